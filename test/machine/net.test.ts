import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { U } from '../../src/machine/process/user';
import type { Prog, Op, SysResult } from '../../src/machine/include/sched';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter, resetFtrace } from '../../src/kernel/ftrace';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { symbolName, lookupAddr } from '../../src/kernel/kallsyms';
import { parseShell } from '../../src/machine/userland/shell';
import { mkPacket, packetOfSkb } from '../../src/machine/include/net';
import { newEnv } from '../../src/machine/paths/kexec';

const AF_INET = 2, SOCK_STREAM = 1, SOCK_DGRAM = 2;

function install(m: Machine, name: string, main: (u: U, argv: string[]) => Prog): void {
  m.fs.createFile(`/usr/bin/${name}`, 'ELF', 0o755);
  m.procs.programs.set(`/usr/bin/${name}`, main);
}

/**
 * One TCP connection on 127.0.0.1:`port`: a listening socket, a forked client that connects and runs
 * `client` on its socket, the accepted server side. Reports bind/listen/connect results.
 */
function* connection(u: U, port: number, client: (cu: U, s: number) => Prog,
  report: (k: string, v: unknown) => void = () => undefined): Generator<Op, { l: number; c: number; pid: number }, SysResult> {
  const l = yield* u.socket(AF_INET, SOCK_STREAM);
  report('bind', yield* u.bind(l, port));
  report('listen', yield* u.listen(l));
  const pid = yield* u.fork(function* (cu: U): Prog {
    const s = yield* cu.socket(AF_INET, SOCK_STREAM);
    report('connect', yield* cu.connect(s, port));
    return yield* client(cu, s);
  });
  const c = yield* u.accept(l);
  return { l, c, pid };
}

/** a TCP exchange: the client sends `n` bytes (sendto, then sendmsg), half-closes, reads the server's count */
function* tcpPair(u: U, n: number, report: (k: string, v: unknown) => void): Prog {
  const { l, c, pid } = yield* connection(u, 5001, function* (cu: U, s: number): Prog {
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = (i * 7) & 0xff;
    report('sent', (yield* cu.sendAll(s, data.subarray(0, n >> 1))) + (yield* cu.sendmsg(s, data.subarray(n >> 1))));
    report('shutdown', yield* cu.shutdown(s, 1));
    const r = yield* cu.recvmsg(s, 100);
    report('reply', Buffer.from(r.data ?? []).toString());
    report('eof', (yield* cu.recv(s, 100)).ret);
    yield* cu.close(s);
    return 0;
  }, report);
  const parts: Uint8Array[] = [];
  for (;;) {
    const r = yield* u.read(c, 50000);
    if (r.ret <= 0 || !r.data) break;
    parts.push(r.data);
  }
  const got = Buffer.concat(parts);
  let ok = got.length === n;
  for (let i = 0; ok && i < n; i++) ok = got[i] === ((i * 7) & 0xff);
  report('received', got.length);
  report('intact', ok);
  yield* u.write(c, `got ${got.length}`);
  yield* u.close(c);
  yield* u.close(l);
  yield* u.wait(pid);
  return 0;
}

describe('machine: loopback networking', () => {
  afterEach(() => resetFtrace());

  it('TCP: bytes sent = bytes received; the 6.1 call path seen by an ftrace ops', () => {
    const m = new Machine({ seed: 21 });
    const res: Record<string, unknown> = {};
    install(m, 'tcppair', (u) => tcpPair(u, 300000, (k, v) => { res[k] = v; }));
    const parents = new Map<string, number>();
    const op = new FtraceOps('net_ops', (ip, parentIp) => {
      const p = lookupAddr(parentIp);
      const k = `${symbolName(lookupAddr(ip)!.id)}<-${p ? symbolName(p.id) : '?'}`;
      parents.set(k, (parents.get(k) ?? 0) + 1);
    });
    for (const g of ['tcp_sendmsg', 'inet_sendmsg', 'tcp_write_xmit', '__tcp_transmit_skb', 'ip_finish_output2', 'loopback_xmit',
      '__netif_rx', 'do_softirq', 'net_rx_action', 'process_backlog', 'ip_rcv', 'tcp_v4_rcv', 'tcp_rcv_established', 'tcp_data_queue',
      'sock_def_readable', 'tcp_recvmsg', 'skb_copy_datagram_iter', 'tcp_v4_connect', 'inet_csk_accept', 'tcp_send_fin', 'sock_read_iter']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    const r = m.run('tcppair');
    unregisterFtraceFunction(op);
    expect(r.status).to.equal(0);
    expect(res).to.deep.equal({ bind: 0, listen: 0, connect: 0, sent: 300000, shutdown: 0, received: 300000, intact: true, reply: 'got 300000', eof: 0 });
    for (const k of ['inet_sendmsg<-sock_sendmsg', 'tcp_sendmsg<-inet_sendmsg', 'tcp_write_xmit<-__tcp_push_pending_frames',
      '__tcp_transmit_skb<-tcp_write_xmit', 'ip_finish_output2<-__ip_finish_output', 'loopback_xmit<-dev_hard_start_xmit',
      '__netif_rx<-loopback_xmit', 'do_softirq<-__local_bh_enable_ip', 'net_rx_action<-__do_softirq', 'process_backlog<-__napi_poll',
      'ip_rcv<-__netif_receive_skb_one_core', 'tcp_v4_rcv<-ip_protocol_deliver_rcu', 'tcp_rcv_established<-tcp_v4_do_rcv',
      'tcp_data_queue<-tcp_rcv_established', 'sock_def_readable<-tcp_data_queue', 'tcp_recvmsg<-inet_recvmsg',
      'skb_copy_datagram_iter<-tcp_recvmsg_locked', 'tcp_v4_connect<-__inet_stream_connect', 'inet_csk_accept<-inet_accept',
      'tcp_send_fin<-tcp_shutdown', 'sock_read_iter<-vfs_read']) {
      expect(parents.get(k), k).to.be.greaterThan(0);
    }
    // 300000 bytes in MSS-sized segments
    expect(parents.get('tcp_sendmsg<-inet_sendmsg')).to.equal(3); // sendto, sendmsg, and the server's write()
    expect(parents.get('__tcp_transmit_skb<-tcp_write_xmit')).to.be.greaterThan(4);
  });

  it('tracepoints: every transmitted packet is received; TCP state changes in order', () => {
    const m = new Machine({ seed: 22 });
    install(m, 'tcppair', (u) => tcpPair(u, 5000, () => undefined));
    const counts: Record<string, number> = {};
    const states: string[] = [];
    const mk = (name: string) => () => { counts[name] = (counts[name] ?? 0) + 1; };
    const probes: [string, (...a: unknown[]) => void][] = ['net_dev_queue', 'net_dev_xmit', 'netif_rx', 'netif_receive_skb', 'tcp_probe']
      .map((n) => [n, mk(n)]);
    probes.push(['inet_sock_set_state', (_data: unknown, _sk: unknown, a: unknown, b: unknown) => { states.push(`${a}>${b}`); }]);
    for (const [n, f] of probes) tracepointProbeRegister(n, f, null);
    const r = m.run('tcppair');
    for (const [n, f] of probes) tracepointProbeUnregister(n, f, null);
    expect(r.status).to.equal(0);
    expect(counts.net_dev_xmit).to.be.greaterThan(8);
    expect(counts.net_dev_queue).to.equal(counts.net_dev_xmit);
    expect(counts.netif_rx).to.equal(counts.net_dev_xmit);
    expect(counts.netif_receive_skb).to.equal(counts.net_dev_xmit);
    expect(counts.tcp_probe).to.be.greaterThan(0);
    // LISTEN; client SYN_SENT -> ESTABLISHED; server child CLOSE -> SYN_RECV -> ESTABLISHED;
    // client half-close FIN_WAIT1 -> FIN_WAIT2, server CLOSE_WAIT -> LAST_ACK -> CLOSE, client -> CLOSE
    expect(states).to.include.members(['7>10', '7>2', '2>1', '7>3', '3>1', '1>4', '1>8', '4>5', '8>9', '9>7', '5>7', '10>7']);
    expect(states.indexOf('7>2')).to.be.lessThan(states.indexOf('2>1'));
    expect(states.indexOf('1>4')).to.be.lessThan(states.indexOf('4>5'));
  });

  // The real guest (linux-image-6.1.0-56, perl client/server on 127.0.0.1, sock:inet_sock_set_state and
  // ftrace of tcp_fin/tcp_send_delayed_ack/tcp_time_wait/tcp_v4_send_reset): the passive side goes
  // ESTABLISHED -> CLOSE_WAIT and delays its ACK (tcp_send_delayed_ack), its FIN carries it when it
  // closes; the active closer goes FIN_WAIT1 -> FIN_WAIT2, ACKs the FIN and hands the connection to a
  // TIME_WAIT socket (tcp_time_wait, then FIN_WAIT2 -> CLOSE); no reset anywhere.
  it('TCP close: CLOSE_WAIT/LAST_ACK, FIN_WAIT1/FIN_WAIT2/TIME_WAIT, the delayed ACK, no reset', () => {
    const m = new Machine({ seed: 27 });
    install(m, 'closer', function* (u: U): Prog {
      const { l, c, pid } = yield* connection(u, 5003, function* (cu: U, s: number): Prog {
        yield* cu.write(s, 'ping');
        yield* cu.close(s);
        return 0;
      });
      while ((yield* u.read(c, 100)).ret > 0) { /* until the FIN */ }
      // stay in CLOSE_WAIT past the delayed-ACK timeout (40 ms): the timer sends the ACK
      yield* u.nanosleep(100e6);
      yield* u.close(c);
      yield* u.wait(pid);
      yield* u.close(l);
      return 0;
    });
    const events: string[] = [];
    const onState = (_d: unknown, _sk: unknown, a: unknown, b: unknown) => { events.push(`${a}>${b}`); };
    const onXmit = (_d: unknown, skb: unknown) => {
      const p = packetOfSkb(skb as object)!;
      events.push(`${p.sport === 5003 ? 'S' : 'C'}:${p.syn ? 'S' : ''}${p.ack ? 'A' : ''}${p.fin ? 'F' : ''}${p.rst ? 'R' : ''}`);
    };
    const resets: unknown[] = [];
    const onReset = (...a: unknown[]) => { resets.push(a); };
    tracepointProbeRegister('inet_sock_set_state', onState, null);
    tracepointProbeRegister('net_dev_xmit', onXmit, null);
    tracepointProbeRegister('tcp_send_reset', onReset, null);
    const t0 = m.now;
    const r = m.run('closer');
    tracepointProbeUnregister('inet_sock_set_state', onState, null);
    tracepointProbeUnregister('net_dev_xmit', onXmit, null);
    tracepointProbeUnregister('tcp_send_reset', onReset, null);
    expect(r.status).to.equal(0);
    expect(resets).to.deep.equal([]);
    const close = events.slice(events.indexOf('1>4'));
    expect(close).to.deep.equal(['1>4', 'C:AF', '1>8', 'S:A', '4>5', '8>9', 'S:AF', 'C:A', '5>7', '9>7', '10>7']);
    expect(m.net.tw.size).to.equal(1);
    expect(m.now - t0).to.be.greaterThan(100e6);
    // a late duplicate ACK for the connection meets the TIME_WAIT socket: dropped, not reset
    const [local] = [...m.net.tw.keys()][0].split(':').map(Number);
    const hits: string[] = [];
    const op = new FtraceOps('tw_ops', (ip) => { hits.push(symbolName(lookupAddr(ip)!.id)); });
    for (const g of ['tcp_timewait_state_process', 'tcp_v4_send_reset', 'inet_twsk_put']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    // tcp_v4_rcv's discard_it: kfree_skb_reason(skb, drop_reason) with the reason it started with
    const drops: string[] = [];
    const onDrop = (_d: unknown, skb: unknown, loc: unknown, why: unknown) => { drops.push(`${packetOfSkb(skb as object)?.sport}@${symbolName(lookupAddr(Number(loc))!.id)}:${why}`); };
    tracepointProbeRegister('kfree_skb', onDrop, null);
    m.net.backlog[0].push(mkPacket({ proto: 6, sport: 5003, dport: local, ack: true, data: new Uint8Array(0) }));
    m.irq(m.cpus[0], 'timer_net_rx', newEnv('softirq', { vec: 3 }), 1);
    unregisterFtraceFunction(op);
    tracepointProbeUnregister('kfree_skb', onDrop, null);
    expect(hits).to.deep.equal(['tcp_timewait_state_process', 'inet_twsk_put']);
    // SKB_DROP_REASON_NOT_SPECIFIED (1), returning into tcp_v4_rcv
    expect(drops).to.deep.equal(['5003@tcp_v4_rcv:1']);
  });

  it('UDP datagrams, errors: refused, address in use, bad family', () => {
    const m = new Machine({ seed: 23 });
    const res: Record<string, unknown> = {};
    install(m, 'udptest', function* (u) {
      const a = yield* u.socket(AF_INET, SOCK_DGRAM);
      res.bind = yield* u.bind(a, 6000);
      const b = yield* u.socket(AF_INET, SOCK_DGRAM);
      res.inuse = yield* u.bind(b, 6000);
      res.sent = yield* u.sendto(b, 'hello', 6000);
      res.sent2 = yield* u.sendto(b, 'world!', 6000);
      const r1 = yield* u.recv(a, 100);
      const r2 = yield* u.recv(a, 3);
      res.got = [Buffer.from(r1.data!).toString(), Buffer.from(r2.data!).toString()];
      const t = yield* u.socket(AF_INET, SOCK_STREAM);
      res.refused = yield* u.connect(t, 7777);
      res.family = yield* u.socket(10, SOCK_STREAM);
      res.notsock = yield* u.send(1, 'x');
      return 0;
    });
    const fns = new Set<string>();
    const op = new FtraceOps('udp_ops', (ip) => { fns.add(symbolName(lookupAddr(ip)!.id)); });
    for (const g of ['udp_sendmsg', 'udp_rcv', '__udp_enqueue_schedule_skb', 'udp_recvmsg', 'tcp_v4_send_reset']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    const r = m.run('udptest');
    unregisterFtraceFunction(op);
    expect(r.status).to.equal(0);
    expect(res).to.deep.equal({ bind: 0, inuse: -98, sent: 5, sent2: 6, got: ['hello', 'wor'], refused: -111, family: -97, notsock: -88 });
    expect([...fns].sort((x, y) => (x < y ? -1 : 1))).to.deep.equal(['__udp_enqueue_schedule_skb', 'tcp_v4_send_reset', 'udp_rcv', 'udp_recvmsg', 'udp_sendmsg']);
  });

  it('ping -c N: ICMP echo through raw_sendmsg, icmp_rcv/icmp_echo, raw_recvmsg', () => {
    const m = new Machine({ seed: 24 });
    const fns = new Map<string, number>();
    const op = new FtraceOps('ping_ops', (ip) => { const n = symbolName(lookupAddr(ip)!.id); fns.set(n, (fns.get(n) ?? 0) + 1); });
    for (const g of ['raw_sendmsg', 'icmp_rcv', 'icmp_echo', 'raw_rcv', 'raw_recvmsg']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    const t0 = m.now;
    const r = m.run('ping -c 3 localhost');
    unregisterFtraceFunction(op);
    expect(r.status).to.equal(0);
    const lines = r.out.split('\n');
    expect(lines[0]).to.equal('PING localhost (127.0.0.1) 56(84) bytes of data.');
    for (let i = 1; i <= 3; i++) expect(lines[i]).to.match(new RegExp(`^64 bytes from localhost \\(127\\.0\\.0\\.1\\): icmp_seq=${i} ttl=64 time=0\\.\\d{3} ms$`));
    expect(lines[5]).to.equal('--- localhost ping statistics ---');
    expect(lines[6]).to.match(/^3 packets transmitted, 3 received, 0% packet loss, time 200\dms$/);
    expect(lines[7]).to.match(/^rtt min\/avg\/max\/mdev = [\d.]+\/[\d.]+\/[\d.]+\/[\d.]+ ms$/);
    expect(m.now - t0).to.be.greaterThan(2e9);
    expect(Object.fromEntries(fns)).to.deep.equal({ raw_sendmsg: 3, icmp_rcv: 6, icmp_echo: 3, raw_rcv: 3, raw_recvmsg: 3 });
    expect(m.run('ping -c 1 10.0.0.1').status).to.equal(2);
  });

  it('/sys/class/net/lo: the attributes the real guest shows for lo once up (mtu 65536, ifindex 1, flags 0x9, type 772)', () => {
    const m = new Machine({ seed: 28 });
    const r = m.run('ls /sys/class/net; cat /sys/class/net/lo/mtu /sys/class/net/lo/ifindex /sys/class/net/lo/flags /sys/class/net/lo/address /sys/class/net/lo/type; readlink /sys/class/net/lo');
    expect(r.out).to.equal('lo\n65536\n1\n0x9\n00:00:00:00:00:00\n772\n../../devices/virtual/net/lo\n');
  });

  it('recvAll: a Buffer of exactly the bytes asked for, whether they came in one receive or several', () => {
    const m = new Machine({ seed: 22 });
    const res: Record<string, unknown> = {};
    install(m, 'recvall', (u) => (function* (): Prog {
      const { l, c, pid } = yield* connection(u, 5003, function* (cu: U, s: number): Prog {
        yield* cu.sendAll(s, 'hello');
        yield* cu.nanosleep(1e6);
        yield* cu.sendAll(s, 'abc');
        yield* cu.nanosleep(1e6);
        yield* cu.sendAll(s, 'defgh');
        yield* cu.close(s);
        return 0;
      });
      const one = yield* u.recvAll(c, 5);
      const two = yield* u.recvAll(c, 8);
      const eof = yield* u.recvAll(c, 4);
      res.one = [Buffer.isBuffer(one), (one as Buffer).toString('latin1')];
      res.two = [Buffer.isBuffer(two), (two as Buffer).toString('latin1')];
      res.eof = [Buffer.isBuffer(eof), eof.length];
      yield* u.close(c);
      yield* u.wait(pid);
      return 0;
    })());
    expect(m.run('recvall').status).to.equal(0);
    expect(res).to.deep.equal({ one: [true, 'hello'], two: [true, 'abcdefgh'], eof: [true, 0] });
  });

  it('packets: the sk_buff view leads back to its packet; other objects have no packet', () => {
    const p = mkPacket({ proto: 6, sport: 40000, dport: 5001, ack: true, data: new Uint8Array(10) });
    expect(packetOfSkb(p.skb)).to.equal(p);
    expect(p.skb.len).to.equal(20 + 32 + 10 + 14);
    expect(Object.keys(p)).to.deep.equal(['proto', 'sport', 'dport', 'ack', 'data', 'skb']);
    expect(packetOfSkb({ ...p.skb })).to.equal(undefined);
    expect(packetOfSkb({})).to.equal(undefined);
  });

  it('tbench: Debian\'s client and server over loopback, byte-identical for a seed', () => {
    const run = () => {
      const m = new Machine({ seed: 25 });
      const r = m.run('head -n 30 /usr/share/dbench/client.txt > /tmp/l; echo "1.5 Sleep 0 NT_STATUS_OK" >> /tmp/l; ' +
        'tbench_srv > /dev/null & sleep 1; tbench -t 1 -c /tmp/l 3 127.0.0.1; kill $!');
      return `${r.status}|${r.out}|${m.now}|${m.net.packets}`;
    };
    const a = run();
    // 3 clients, each replaying the 30 lines once (17 WriteX each): 29 exchanges (Deltree sends nothing)
    expect(a).to.match(/^0\|dbench version 4\.00 - Copyright Andrew Tridgell 1999-2004\n\nRunning for 1 seconds with load '\/tmp\/l' and minimum warmup 0 secs\n/);
    expect(a).to.match(/\n {3}3 {2}cleanup {3}1 sec\n/);
    expect(a).to.match(/\n WriteX +51 /);
    expect(a).to.match(/\nThroughput 0 MB\/sec {2}3 clients {2}3 procs {2}max_latency=0\.000 ms\n\|/);
    expect(run()).to.equal(a);
  });
});

describe('machine: tar, gzip, make, sh', () => {
  const m = new Machine({ seed: 26 });
  it('gzip/gunzip round trip with plausible sizes; gzip -l; zcat', () => {
    const r = m.run('cd /tmp && cp /etc/passwd p && gzip p && ls p* && gzip -l p.gz && zcat p.gz | head -1 && gunzip p.gz && ls p*');
    const lines = r.out.split('\n');
    expect(lines[0]).to.equal('p.gz');
    expect(lines[1]).to.match(/compressed\s+uncompressed\s+ratio uncompressed_name/);
    const [, comp, unc] = /^\s+(\d+)\s+(\d+)\s+[\d.]+% p$/.exec(lines[2]) ?? [];
    expect(Number(unc)).to.equal(m.fs.lookup('/etc/passwd')!.size);
    expect(Number(comp)).to.be.lessThan(Number(unc));
    expect(lines[3]).to.equal('root:x:0:0:root:/root:/bin/bash');
    expect(lines[4]).to.equal('p');
    expect(m.fs.lookup('/tmp/p')!.readBytes(0, 1000)).to.deep.equal(m.fs.lookup('/etc/passwd')!.readBytes(0, 1000));
  });
  it('tar -c/-t/-x (and z) round trip', () => {
    const r = m.run('cd / && tar -czf /tmp/app.tgz usr/src/app && tar -tzf /tmp/app.tgz && mkdir /tmp/out && tar -xzf /tmp/app.tgz -C /tmp/out && cat /tmp/out/usr/src/app/util.c && tar cf /tmp/h.tar etc/hostname && tar tvf /tmp/h.tar');
    expect(r.status).to.equal(0);
    const lines = r.out.split('\n');
    expect(lines.slice(0, 4)).to.deep.equal(['usr/src/app/', 'usr/src/app/Makefile', 'usr/src/app/main.c', 'usr/src/app/util.c']);
    expect(lines[4]).to.equal('int add(int a, int b) { return a + b; }');
    expect(lines[5]).to.match(/^-rw-r--r-- root\/root\s+7 \d{4}-\d\d-\d\d \d\d:\d\d etc\/hostname$/);
    expect(m.fs.lookup('/tmp/h.tar')!.size).to.equal(10240);
    expect(m.run('tar tf /nonexistent.tar').status).to.equal(2);
  });
  it('make runs recipes through sh and then is up to date', () => {
    const r = m.run('cd /usr/src/app && make && ls && make');
    expect(r.out).to.equal("cc -c main.c\ncc -c util.c\ncc -o app main.o util.o\nMakefile  app  main.c  main.o  util.c  util.o\nmake: Nothing to be done for 'all'.\n");
    expect(m.run('cd /usr/src/app && echo >> util.c && make app').out).to.equal('cc -c util.c\ncc -o app main.o util.o\n');
    m.fs.createFile('/tmp/mk', 'x:\n\tfalse\n');
    const f = m.run('cd /tmp && make -f mk; echo $?');
    expect(f.out).to.equal('false\nmake: *** [mk:2: x] Error 1\n2\n');
  });
  it('sh -c, sh FILE, sh < stdin, background jobs, $!, wait, $? after ;', () => {
    expect(m.run('sh -c "echo hi; exit 3"; echo $?').out).to.equal('hi\n3\n');
    expect(m.run('false; echo $?').out).to.equal('1\n');
    const t0 = m.now;
    const r = m.run('sleep 1 & echo started $!; wait $!; echo waited $?');
    expect(r.out).to.match(/^started (\d+)\nwaited 0\n$/);
    expect(m.now - t0).to.be.within(1e9, 1.1e9);
    const t1 = m.now;
    expect(m.run('sleep 2 & sleep 1 & echo now; wait; echo done').out).to.equal('now\ndone\n');
    expect(m.now - t1).to.be.within(2e9, 2.1e9);
    expect(m.run('sh -c "exit 5" & wait $!; echo $?').out).to.equal('5\n');
    expect(m.run('wait 99999; echo $?').out).to.equal('127\n');
    expect(parseShell('a & b', () => '').map((l) => !!l.bg)).to.deep.equal([true, false]);
    m.fs.createFile('/tmp/s.sh', '# a script\necho one # comment\necho two &&\n  echo three\nfalse\necho st=$?\n');
    expect(m.run('sh /tmp/s.sh; echo "echo in; echo x" | sh').out).to.equal('one\ntwo\nthree\nst=1\nin\nx\n');
  });
});
