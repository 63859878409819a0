/**
 * The small commands of programs/coreutils_small.ts and uname (core.ts). Expected: the same command lines
 * on this Debian 12 host (coreutils 9.1, env -i PATH=/usr/bin:/bin sh); the one difference, rmdir -p
 * reaching /tmp, is the machine's /tmp being a tmpfs mount (EBUSY, as vfs_rmdir gives a mount point)
 * where the host's is a plain directory (ENOTEMPTY).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { KERNEL_RELEASE } from '../../src/kernel/config';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';

describe('machine: basename, dirname, rmdir, md5sum, sha1sum, sha256sum, tac, yes, whoami, nproc, hostname, uname, nice', () => {
  const m = new Machine({ seed: 1 });
  it('print what coreutils 9.1 prints, messages and exit statuses included', () => {
    const script = [
      "basename /a/b.c .c; basename -a /x/y /z/w/; basename -s .c /a/b.c /d/e.c; basename /; basename \"\"; dirname /a/b c /; dirname; echo rc=$?; dirname a/b/ \"\" //x",
      "rmdir /tmp/nonexist; echo rc=$?; mkdir -p /tmp/p1/p2; rmdir -p /tmp/p1/p2 2>&1; echo rc=$?; ls -d /tmp/p1 2>&1; rmdir 2>&1; echo rc=$?",
      "echo hello > /tmp/h5; md5sum /tmp/h5 /nonexist; echo rc=$?; sha1sum /tmp/h5; sha256sum /tmp/h5; echo x | md5sum; printf \"a\\nb\\nc\" | tac; echo; printf \"1\\n2\\n\" | tac; yes | head -2; yes ab cd | head -1",
    ].join('\n');
    expect(m.run(script).out).to.equal("b\ny\nw\nb\ne\n/\n\n/a\n.\n/\ndirname: missing operand\nTry 'dirname --help' for more information.\nrc=1\na\n.\n/\nrmdir: failed to remove '/tmp/nonexist': No such file or directory\nrc=1\nrmdir: failed to remove directory '/tmp': Device or resource busy\nrc=1\nls: cannot access '/tmp/p1': No such file or directory\nrmdir: missing operand\nTry 'rmdir --help' for more information.\nrc=1\nb1946ac92492d2347c6235b4d2611184  /tmp/h5\nmd5sum: /nonexist: No such file or directory\nrc=1\nf572d396fae9206628714fb2ce00f72e94f2258f  /tmp/h5\n5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  /tmp/h5\n401b30e3b8b5d629635a5c613cdb7919  -\ncb\na\n\n2\n1\ny\ny\nab cd\n");
  });

  it('whoami names the effective user from /etc/passwd; nproc counts the CPUs; hostname and uname give the machine\'s identity', () => {
    expect(m.run('whoami; nproc; nproc --ignore=1; nproc --ignore=9').out).to.equal('root\n4\n3\n1\n');
    const host = m.run('cat /etc/hostname').out.trim();
    expect(m.run('hostname; uname -n').out).to.equal(`${host}\n${host}\n`);
    expect(m.run('uname; uname -sr; uname -rs; uname -mo; uname -p; uname -i').out).to.equal(
      `Linux\nLinux ${KERNEL_RELEASE}\nLinux ${KERNEL_RELEASE}\nx86_64 GNU/Linux\nunknown\nunknown\n`);
    // -a asks for every field: -p and -i beside it add nothing (this host: 'uname -ap' prints what 'uname -a' does)
    expect(m.run('uname -ap; uname -api').out).to.equal(m.run('uname -a; uname -a').out);
    expect(m.run('uname -a').out).to.match(new RegExp(`^Linux ${host} ${KERNEL_RELEASE} #1 SMP PREEMPT_DYNAMIC Debian .* x86_64 GNU/Linux\n$`));
    expect(m.run('uname -x 2>&1; echo rc=$?; uname x 2>&1; echo rc=$?').out).to.equal(
      "uname: invalid option -- 'x'\nTry 'uname --help' for more information.\nrc=1\nuname: extra operand 'x'\nTry 'uname --help' for more information.\nrc=1\n");
  });

  it('rmdir of a mount point is EBUSY, of a directory with entries ENOTEMPTY', () => {
    expect(m.run('rmdir /proc 2>&1; mkdir -p /root/q/r; rmdir /root/q 2>&1; rmdir /root/q/r /root/q && echo ok').out).to.equal(
      "rmdir: failed to remove '/proc': Device or resource busy\nrmdir: failed to remove '/root/q': Directory not empty\nok\n");
  });

  it('nice sets the niceness (getpriority, setpriority) and execs the command; its messages and statuses as coreutils\'', () => {
    // expected: env -i PATH=/usr/bin:/bin sh -c '...' on this Debian 12 host, as root
    expect(m.run('nice; nice -n 5 nice; nice -3 nice; nice --adjustment=2 nice; nice nice; nice -n 30 nice; nice -n x true 2>&1; echo rc=$?; '
      + 'nice nonexist 2>&1; echo rc=$?; nice -n 5 -- nice; nice -n -5 nice').out).to.equal(
      "0\n5\n3\n2\n10\n19\nnice: invalid adjustment 'x'\nrc=125\nnice: 'nonexist': No such file or directory\nrc=127\n5\n-5\n");
    // the niced task's nice value (/proc/PID/stat field 19)
    expect(m.run('nice -n 7 sh -c \'cut -d" " -f19 /proc/$$/stat\'').out).to.equal('7\n');
  });

  it('reports errors as gnulib error() does: program name, message, strerror and newline each a write (strace of rmdir, md5sum)', () => {
    const writes: number[] = [];
    const probe = (_d: unknown, regs: unknown, id: unknown): void => {
      const a = (regs as { args: unknown[] }).args;
      if (Number(id) === 1 && Number(a[0]) === 2) writes.push(1);
    };
    tracepointProbeRegister('sys_enter', probe, null);
    try {
      expect(m.run('rmdir /nonexist 2>/dev/null').status).to.equal(1);
      expect(writes.length).to.equal(4);
      writes.length = 0;
      m.run('basename 2>/dev/null');
      // "basename: ", "missing operand", "\n", then usage's one fprintf
      expect(writes.length).to.equal(4);
    } finally {
      tracepointProbeUnregister('sys_enter', probe, null);
    }
  });
});
