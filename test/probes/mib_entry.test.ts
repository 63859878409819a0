import { expect } from 'chai';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine, Session } from './helpers';

/** one tbench exchange: Debian's tbench_srv and a tbench client replaying one WriteX line of client.txt, then asleep past its 1 s limit */
const TBENCH_ONE = 'sed -n 12p /usr/share/dbench/client.txt > /tmp/tb; echo "1.5 Sleep 0 NT_STATUS_OK" >> /tmp/tb; tbench_srv > /dev/null & sleep 1; tbench -t 1 -c /tmp/tb 1 127.0.0.1; kill $!';

/** As `stap -c CMD` (the command's own output discarded). */
const stapC = (script: string, cmd: string): Promise<Session> => stapOnMachine(compile(script), cmd, { commandOutput: false });

describe('task fd/rlimit accessors, @entry on syscall returns, @cast in kprobes, SNMP MIB aliases', () => {
  afterEach(resetKernel);

  it('task_open_file_handles / task_rlimit_nofile of the current task', async () => {
    const r = await stapC(`probe syscall.close { if (execname() == "cat" && !done++)
      printf("%d %d %d\\n", task_open_file_handles(task_current()) > 3, task_rlimit_nofile(task_current()), task_max_file_handles(task_current())) }
      global done`, 'cat /etc/hostname');
    expect(r.err).to.equal('');
    expect(r.out).to.equal('1 1024 64\n');
  });

  it('@entry in a tracepoint-based syscall.X.return is evaluated at the same task\'s sys_enter', async () => {
    const r = await stapC(`global n probe syscall.read.return { if (execname() == "cat" && !n++)
      printf("%d %d %d\\n", @entry(__sc_nr()), @entry(tid()) == tid(), gettimeofday_ns() >= @entry(gettimeofday_ns())) }`, 'cat /etc/hostname');
    expect(r.err).to.equal('');
    expect(r.out).to.equal('0 1 1\n');
  });

  it('@entry stays an error in a plain kernel.trace("sys_exit") probe', async () => {
    const r = await stapC('probe kernel.trace("raw_syscalls:sys_exit") { println(@entry(1)) }', 'true');
    expect(r.err).to.contain('@entry is only valid in .return probes');
  });

  it('@cast in a kprobe.function body, f_op of an ext4 file', async () => {
    const r = await stapC(`global n probe kprobe.function("vfs_read") { if (execname() == "cat" && !n++)
      println(symname(@cast(pointer_arg(1), "file", "kernel")->f_op->read_iter), " ", @defined(@cast(pointer_arg(1), "file")->f_op)) }`, 'cat /etc/hostname');
    expect(r.err).to.equal('');
    expect(r.out).to.equal('ext4_file_read_iter 1\n');
  });

  it('tcpmib/ipmib aliases over a loopback TCP exchange', async () => {
    const r = await stapC(`
      function tcpmib_filter_key:long(sk:long, op:long) { return tcpmib_remote_port(sk) == 7003 ? 1 : tcpmib_local_port(sk) == 7003 ? 2 : 0 }
      function linuxmib_filter_key:long(sk:long, op:long) { return tcpmib_filter_key(sk, op) }
      function ipmib_filter_key:long(skb:long, op:long, local:long) {
        return ipmib_get_proto(skb) == 6 && (ipmib_tcp_remote_port(skb, local) == 7003 || ipmib_tcp_local_port(skb, local) == 7003) }
      global states
      probe tcpmib.*, ipmib.*, linuxmib.* {}
      probe tcpmib.CurrEstab { states[key, oldstate, state] += op }
      probe end {
        printf("active %d passive %d estab %d/%d drops %d in %d\\n", ActiveOpens[1], PassiveOpens[2], CurrEstab[1], CurrEstab[2], ListenDrops[2], InReceives[1] > 0)
        foreach ([k, o, s] in states+) printf("%d %d->%d %d\\n", k, o, s, states[k, o, s])
      }`, TBENCH_ONE);
    expect(r.err).to.equal('');
    // one connection: tbench's client connects once (nb_setup) to the listening tbench_srv; both
    // close it (the client at exit: FIN_WAIT1; the server's child then: LAST_ACK)
    expect(r.out).to.equal('active 1 passive 1 estab 0/0 drops 0 in 1\n1 1->4 -1\n2 1->8 -1\n1 2->1 1\n2 3->1 1\n');
  });
});
