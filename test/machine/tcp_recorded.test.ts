/**
 * TCP on the recorded trees (src/machine/net/tcp.ts, net/once.ts): the variant a send, a receive or a
 * connect runs is the one the machine's state calls for, as on the real Debian 12 kernel
 * (data/recordings/tbench.json.gz, tcp-http.json.gz): the first connect after boot makes the connect
 * path's random keys, later ones do not; a send that fits the peer's buffer runs tcp_sendmsg's recorded
 * tree and wakes a sleeping reader from the softirq it runs; a receive sleeps in sk_wait_data until
 * MSG_WAITALL is satisfied; tcp_cleanup_rbuf ACKs on its own until the connection is interactive.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { U } from '../../src/machine/process/user';
import type { Prog } from '../../src/machine/include/sched';
import { resetFtrace } from '../../src/kernel/ftrace';
import { counting } from './ftrace_counting';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { packetOfSkb } from '../../src/machine/include/net';

const AF_INET = 2, SOCK_STREAM = 1, MSG_WAITALL = 0x100;

function install(m: Machine, name: string, main: (u: U) => Prog): void {
  m.fs.createFile(`/usr/bin/${name}`, 'ELF', 0o755);
  m.procs.programs.set(`/usr/bin/${name}`, main);
}


describe('machine: TCP on recorded trees', () => {
  afterEach(() => resetFtrace());

  it('the first connect after boot makes net_secret, table_perturb (4096 ChaCha blocks) and inet_ehash_secret; the next connect none', () => {
    const m = new Machine({ seed: 31 });
    const c = counting(['chacha_block_generic', 'mutex_lock', 'secure_ipv4_port_ephemeral', '__inet_hash_connect'], 'tcp_rec');
    const per: number[][] = [];
    install(m, 'twoconn', function* (u: U): Prog {
      const l = yield* u.socket(AF_INET, SOCK_STREAM);
      yield* u.bind(l, 5100);
      yield* u.listen(l);
      for (let i = 0; i < 2; i++) {
        const s = yield* u.socket(AF_INET, SOCK_STREAM);
        const before = [...c.n.values()];
        expect(yield* u.connect(s, 5100)).to.equal(0);
        per.push([...c.n.values()].map((v, j) => v - before[j]));
        yield* u.close(yield* u.accept(l));
        yield* u.close(s);
      }
      return 0;
    });
    expect(m.run('twoconn').status).to.equal(0);
    c.stop();
    // tcp-http's recorded first connect: 4,101 chacha_block_generic (1 + 4096 + 1 + ... key erasures), one mutex_lock (once_mutex)
    const [first, second] = per;
    expect(first[0]).to.be.within(4096, 4110);
    expect(first[1]).to.equal(1);
    expect(first[2]).to.equal(1);
    expect(second).to.deep.equal([0, 0, 1, 1]);
  });

  it('a send wakes the reader asleep in sk_wait_data from the softirq its recorded tree runs; MSG_WAITALL waits for all of it', () => {
    // (a seed whose draw of the sender's recorded tcp_sendmsg tree is one that allocates an skb and runs
    // tcp_release_cb, as most recorded ones: seeds 2 to 10 draw one; 32 drew a variant with neither once the
    // per-CPU page lists and the pipe pages moved the machine's timing, and so its draws)
    const m = new Machine({ seed: 2 });
    const c = counting(['tcp_release_cb', 'tcp_stream_alloc_skb', 'sk_wait_data', 'tcp_rcv_established', 'sock_def_readable', '__release_sock'], 'tcp_rec');
    let readerPid = 0;
    const woken: number[] = [];
    const onWake = (_d: unknown, p: unknown) => { woken.push((p as { pid: number }).pid); };
    let got = '';
    const seen: Record<string, number[]> = {};
    install(m, 'waitall', function* (u: U): Prog {
      const l = yield* u.socket(AF_INET, SOCK_STREAM);
      yield* u.bind(l, 5101);
      yield* u.listen(l);
      const pid = yield* u.fork(function* (cu: U): Prog {
        const s = yield* cu.socket(AF_INET, SOCK_STREAM);
        yield* cu.connect(s, 5101);
        yield* cu.nanosleep(5e6);
        // the reader is asleep: this send's softirq wakes it, but 4 bytes do not satisfy its MSG_WAITALL of 8
        const w0 = woken.length;
        seen.send1 = [...c.n.values()];
        yield* cu.send(s, 'abcd');
        seen.send1 = [...c.n.values()].map((v, j) => v - seen.send1[j]);
        seen.woke1 = [woken.slice(w0).filter((p) => p === readerPid).length];
        yield* cu.nanosleep(5e6);
        yield* cu.send(s, 'efgh');
        yield* cu.close(s);
        return 0;
      });
      const a = yield* u.accept(l);
      readerPid = u.pid;
      const before = [...c.n.values()];
      const r = yield* u.recv(a, 8, MSG_WAITALL);
      seen.recv = [...c.n.values()].map((v, j) => v - before[j]);
      got = Buffer.from(r.data ?? []).toString();
      yield* u.close(a);
      yield* u.wait(pid);
      return 0;
    });
    tracepointProbeRegister('sched_wakeup', onWake, null);
    const st = m.run('waitall').status;
    tracepointProbeUnregister('sched_wakeup', onWake, null);
    c.stop();
    expect(st).to.equal(0);
    expect(got).to.equal('abcdefgh');
    // the recorded tcp_sendmsg tree (tcp_stream_alloc_skb, release_sock's tcp_release_cb), then the peer's receive
    // in the sender's softirq: tcp_rcv_established, sock_def_readable, the reader woken
    // (a recorded tcp_sendmsg tree whose release_sock processed the socket's backlog, __release_sock: 20 of the
    // 145 recorded sendto trees, adds that segment's tcp_rcv_established in the sender's context)
    const [rcb, alloc, wait, est, readable, backlog] = seen.send1;
    expect([rcb, alloc, wait, est - backlog, readable]).to.deep.equal([1, 1, 0, 1, 1]);
    expect(seen.woke1).to.deep.equal([1]);
    // the receive slept (the recorded variant with sk_wait_data), woke, went back to sleep for the rest:
    // one run of the recorded recvfrom tree
    expect(seen.recv[2]).to.equal(1);
  });

  it('tcp_cleanup_rbuf ACKs a read that empties the queue until the connection is interactive (pingpong), then the replies carry the ACKs', () => {
    const m = new Machine({ seed: 33 });
    // the server's pure ACKs (no data, no SYN/FIN) as the device sends them
    let acksOut = 0;
    const onXmit = (_d: unknown, skb: unknown) => {
      const p = packetOfSkb(skb as object);
      if (p && p.sport === 5102 && p.ack && !p.syn && !p.fin && p.data.length === 0) acksOut++;
    };
    const acks: number[] = [];
    install(m, 'pingpong', function* (u: U): Prog {
      const l = yield* u.socket(AF_INET, SOCK_STREAM);
      yield* u.bind(l, 5102);
      yield* u.listen(l);
      const pid = yield* u.fork(function* (cu: U): Prog {
        const s = yield* cu.socket(AF_INET, SOCK_STREAM);
        yield* cu.connect(s, 5102);
        for (let i = 0; i < 6; i++) {
          yield* cu.send(s, 'ping');
          yield* cu.recv(s, 4, MSG_WAITALL);
        }
        yield* cu.close(s);
        return 0;
      });
      const a = yield* u.accept(l);
      for (let i = 0; i < 6; i++) {
        const before = acksOut;
        yield* u.recv(a, 4, MSG_WAITALL);
        acks.push(acksOut - before);
        yield* u.send(a, 'pong');
      }
      yield* u.close(a);
      yield* u.wait(pid);
      return 0;
    });
    tracepointProbeRegister('net_dev_xmit', onXmit, null);
    const st = m.run('pingpong').status;
    tracepointProbeUnregister('net_dev_xmit', onXmit, null);
    expect(st).to.equal(0);
    // the first reads ACK on their own; from the third reply within the ACK timeout (TCP_PINGPONG_THRESH)
    // the server's reads leave the ACK to its reply
    expect(acks).to.deep.equal([1, 1, 1, 0, 0, 0]);
  });

  it('a send larger than the room in the peer\'s buffer runs the template (tcp_send waits for room), not the recorded tree', () => {
    const m = new Machine({ seed: 34 });
    // tcp_stream_alloc_skb: the recorded tcp_sendmsg tree (the template has none); the reader's receives run meanwhile
    const c = counting(['tcp_stream_alloc_skb', 'tcp_sendmsg'], 'tcp_rec');
    let big: number[] = [];
    install(m, 'bigsend', function* (u: U): Prog {
      const l = yield* u.socket(AF_INET, SOCK_STREAM);
      yield* u.bind(l, 5103);
      yield* u.listen(l);
      const pid = yield* u.fork(function* (cu: U): Prog {
        const s = yield* cu.socket(AF_INET, SOCK_STREAM);
        yield* cu.connect(s, 5103);
        const before = [...c.n.values()];
        expect(yield* cu.send(s, new Uint8Array(300000))).to.equal(300000);
        big = [...c.n.values()].map((v, j) => v - before[j]);
        yield* cu.close(s);
        return 0;
      });
      const a = yield* u.accept(l);
      let n = 0;
      for (;;) { const r = yield* u.recv(a, 65536); if (r.ret <= 0) break; n += r.ret; }
      expect(n).to.equal(300000);
      yield* u.close(a);
      yield* u.wait(pid);
      return 0;
    });
    expect(m.run('bigsend').status).to.equal(0);
    c.stop();
    expect(big).to.deep.equal([0, 1]);
  });
});
