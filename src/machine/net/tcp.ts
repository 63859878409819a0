/**
 * Semantics of the networking paths (paths/net.ts): sockets, the loopback TCP state machine
 * (handshake, data, ACKs, FIN/close, RST), UDP and raw ICMP datagrams, the per-CPU backlog and
 * the softirq that drains it.
 */
import type { Machine } from '../machine';
import { defineHook, defineCond, defineTpArgs, defineFnArgs, defineFnRet, pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP, H_AGAIN } from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/fair';
import { Task, Env, TASK_INTERRUPTIBLE, SIGPIPE } from '../include/sched';
import { OpenFile } from '../include/fs';
import {
  Sock, Packet, mkPacket, AF_INET, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP,
  TCP_ESTABLISHED, TCP_SYN_SENT, TCP_SYN_RECV, TCP_FIN_WAIT1, TCP_FIN_WAIT2, TCP_CLOSE, TCP_CLOSE_WAIT, TCP_LAST_ACK,
  TCP_LISTEN, TCP_MSS, RCVBUF, LOOPBACK, SkbView, packetOfSkb,
} from '../include/net';
import { kmem, KernelMemory } from '../../kernel/memory';

const EPERM = 1, EINTR = 4, EBADF = 9, EAGAIN = 11, EINVAL = 22, EPIPE = 32, EAFNOSUPPORT = 97, EADDRINUSE = 98,
  ENOTSOCK = 88, EDESTADDRREQ = 89, EMSGSIZE = 90, EPROTONOSUPPORT = 93, EOPNOTSUPP = 95, ECONNRESET = 104,
  EISCONN = 106, ENOTCONN = 107, ECONNREFUSED = 111;
const NET_RX = 1 << 3;
const MSG_DONTWAIT = 0x40;
const O_NONBLOCK = 0o4000;

const sockOf = (e: Env): Sock | null => (e.sock as Sock | undefined) ?? null;
const empty = new Uint8Array(0);

// ---------------------------------------------------------------- struct sock in kernel memory

function sockAddr(mem: KernelMemory, s: Sock): number {
  const T = 'struct sock';
  const a = mem.allocStruct(T);
  mem.bind(s, a);
  writeSock(mem, a, s);
  return a;
}
function writeSock(mem: KernelMemory, a: number, s: Sock): void {
  const T = 'struct sock';
  const set = (f: string, v: number) => { try { mem.setField(a, T, f, v); } catch { /* layout differs */ } };
  const htons = (p: number) => ((p & 0xff) << 8) | ((p >> 8) & 0xff);
  set('__sk_common.skc_family', AF_INET);
  set('__sk_common.skc_state', s.state);
  set('__sk_common.skc_num', s.port);
  set('__sk_common.skc_dport', htons(s.dport));
  set('__sk_common.skc_rcv_saddr', 0x0100007f);
  set('__sk_common.skc_daddr', s.dport ? 0x0100007f : 0);
  set('sk_type', s.type);
  set('sk_protocol', s.protocol);
  set('sk_rcvbuf', RCVBUF);
  set('sk_sndbuf', 16384 * 4);
}
kmem.addMaterializer((o, mem) => (o instanceof Sock ? sockAddr(mem, o) : null));

// ---------------------------------------------------------------- struct sk_buff in kernel memory

/**
 * An sk_buff of a loopback packet: the SkbView's fields, and a head buffer holding the Ethernet,
 * IPv4 (127.0.0.1 -> 127.0.0.1) and TCP/UDP/ICMP headers, with mac/network/transport_header
 * offsets into it (data at the network header); the payload is not copied.
 */
function skbAddr(mem: KernelMemory, skb: SkbView, p: Packet): number {
  const T = 'struct sk_buff';
  const a = mem.allocStruct(T);
  mem.bind(skb, a);
  const set = (f: string, v: number) => { try { mem.setField(a, T, f, v); } catch { /* layout differs */ } };
  set('len', skb.len);
  set('data_len', skb.data_len);
  set('protocol', skb.protocol);
  set('mark', skb.mark);
  set('queue_mapping', skb.queue_mapping);
  set('hash', skb.hash);
  const thLen = p.proto === IPPROTO_TCP ? 32 : 8;
  const size = 14 + 20 + thLen;
  const head = mem.alloc(size, 64);
  const u8 = (at: number, v: number) => mem.writeUnsigned(head + at, 1, v & 0xff);
  const be16 = (at: number, v: number) => { u8(at, v >> 8); u8(at + 1, v); };
  const be32 = (at: number, v: number) => { be16(at, v >>> 16); be16(at + 2, v & 0xffff); };
  be16(12, 0x0800); // ETH_P_IP
  const ip = 14;
  u8(ip, 0x45);
  be16(ip + 2, 20 + thLen + p.data.length);
  u8(ip + 8, 64);
  u8(ip + 9, p.proto);
  be32(ip + 12, LOOPBACK);
  be32(ip + 16, LOOPBACK);
  const th = ip + 20;
  if (p.proto === IPPROTO_TCP) {
    be16(th, p.sport);
    be16(th + 2, p.dport);
    u8(th + 12, (thLen / 4) << 4);
    u8(th + 13, (p.fin ? 0x01 : 0) | (p.syn ? 0x02 : 0) | (p.rst ? 0x04 : 0) | (p.data.length ? 0x08 : 0) | (p.ack ? 0x10 : 0));
    be16(th + 14, 65483);
  } else if (p.proto === IPPROTO_UDP) {
    be16(th, p.sport);
    be16(th + 2, p.dport);
    be16(th + 4, 8 + p.data.length);
  } else {
    u8(th, p.icmpType ?? 0);
  }
  set('head', head);
  set('data', head + ip);
  set('mac_header', 0);
  set('network_header', ip);
  set('transport_header', th);
  set('end', size);
  set('tail', size);
  return a;
}
kmem.addMaterializer((o, mem) => {
  const p = packetOfSkb(o);
  return p ? skbAddr(mem, o as SkbView, p) : null;
});
/** keep an already-materialized struct sock in step with the machine's socket */
function syncSock(s: Sock): void {
  const a = kmem.boundAddr(s);
  if (a !== undefined) writeSock(kmem, a, s);
}

// ---------------------------------------------------------------- helpers

function installFd(t: Task, f: OpenFile): number {
  const fds = t.proc.fds;
  for (let i = 0; i < fds.length; i++) if (!fds[i]) { fds[i] = f; return i; }
  fds.push(f);
  return fds.length - 1;
}

function sockFile(m: Machine, s: Sock, flags = 2): OpenFile {
  const f = new OpenFile('sock', null, flags);
  f.sock = s;
  f.onClose = () => { if (!m.net.toRelease.includes(s)) m.net.toRelease.push(s); };
  return f;
}

function fail(e: Env, errno: number): number {
  e.err = errno;
  e.ret = -errno;
  return H_CONT;
}

/** a state change to announce through tcp_set_state / inet_sock_set_state */
function change(e: Env, s: Sock, to: number, slot: 'sc1' | 'sc2' = 'sc1'): void {
  const list = (e.states as [Sock, number, number][] | undefined) ?? (e.states = []) as [Sock, number, number][];
  list.push([s, s.state, to]);
  s.state = to;
  syncSock(s);
  e[slot] = true;
}

function takeWaiters(e: Env, s: Sock | null, which: 'r' | 'w' | 'rw'): void {
  if (!s) return;
  const list = (e.wake as Task[] | undefined) ?? (e.wake = []) as Task[];
  if (which !== 'w') list.push(...s.readWait.splice(0));
  if (which !== 'r') list.push(...s.writeWait.splice(0));
}

function tcpPkt(from: Sock, flags: Partial<Packet>, data: Uint8Array = empty): Packet {
  return mkPacket({ proto: IPPROTO_TCP, sport: from.port, dport: from.dport, data, ...flags });
}

function unhash(m: Machine, s: Sock): void {
  const k = `${s.port}:${s.dport}`;
  if (m.net.conns.get(k) === s) m.net.conns.delete(k);
}

/** leave a socket's wait lists (a sleeping hook re-runs after any wakeup, a signal included) */
function unwait(s: Sock, t: Task): void {
  let i = s.readWait.indexOf(t);
  if (i >= 0) s.readWait.splice(i, 1);
  i = s.writeWait.indexOf(t);
  if (i >= 0) s.writeWait.splice(i, 1);
}
/** sleep on a socket wait list (the hook re-runs after wakeup) */
function sleepOn(t: Task, list: Task[], wchan: string): number {
  if (!list.includes(t)) list.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = wchan;
  return H_SLEEP;
}
const sigPending = (t: Task) => (t.sigPending & ~t.sigBlocked) !== 0;
function nonblock(e: Env): boolean {
  const f = e.file as OpenFile | undefined;
  const flags = e.name === 'recvfrom' || e.name === 'sendto' ? Number(e.a[3]) : e.name === 'recvmsg' || e.name === 'sendmsg' ? Number(e.a[2]) : 0;
  return ((flags & MSG_DONTWAIT) !== 0) || (!!f && (f.flags & O_NONBLOCK) !== 0);
}

// ---------------------------------------------------------------- conditions

const typeOf = (e: Env): number => {
  const s = sockOf(e);
  if (s) return s.isTcp ? 1 : s.isIcmp ? 3 : 2;
  if (e.name === 'socket') {
    const ty = Number(e.a[1]) & 0xf, pr = Number(e.a[2]);
    return ty === SOCK_STREAM ? 1 : pr === IPPROTO_ICMP || ty === SOCK_RAW ? 3 : 2;
  }
  return 0;
};
defineCond('is_tcp', (_m, _c, _t, e) => typeOf(e) === 1);
defineCond('is_udp', (_m, _c, _t, e) => typeOf(e) === 2);
defineCond('is_icmp', (_m, _c, _t, e) => typeOf(e) === 3);
defineCond('sock_ok', (_m, _c, _t, e) => !!e.sock && !e.err);
defineCond('sock_ok2', (_m, _c, _t, e) => !e.err);
defineCond('state_change', (_m, _c, _t, e) => e.sc1 === true);
defineCond('state_change2', (_m, _c, _t, e) => e.sc2 === true);
defineCond('fin', (_m, _c, _t, e) => e.fin === true);
defineCond('accepted', (_m, _c, _t, e) => e.accepted === true);
defineCond('copied', (_m, _c, _t, e) => ((e.copied as number) ?? 0) > 0);
defineCond('ack_now', (_m, _c, _t, e) => e.ackNow === true);
defineCond('tcp_done', (_m, _c, _t, e) => e.tcpDone === true);
defineCond('time_wait', (_m, _c, _t, e) => e.timeWait === true);
defineCond('send_ack', (_m, _c, _t, e) => e.sendAck === true);
defineCond('udp_found', (_m, _c, _t, e) => e.udpFound === true);
defineCond('raw_match', (m, _c, _t, e) => (e.pkt as Packet).icmpType === 0 && m.net.raw.some((s) => !s.closed));
defineCond('icmp_echo', (_m, _c, _t, e) => (e.pkt as Packet).icmpType === 8);
defineCond('pkt_tcp', (_m, _c, _t, e) => (e.pkt as Packet).proto === IPPROTO_TCP);
defineCond('pkt_udp', (_m, _c, _t, e) => (e.pkt as Packet).proto === IPPROTO_UDP);
defineCond('pkt_icmp', (_m, _c, _t, e) => (e.pkt as Packet).proto === IPPROTO_ICMP);
defineCond('pkt_ack', (_m, _c, _t, e) => (e.pkt as Packet).ack === true);
defineCond('pkt_fin', (_m, _c, _t, e) => (e.pkt as Packet).fin === true);
defineCond('pkt_rst', (_m, _c, _t, e) => (e.pkt as Packet).rst === true);
defineCond('pkt_data', (_m, _c, _t, e) => e.queued === true);
defineCond('rx_wait', (_m, _c, _t, e) => {
  const s = sockOf(e);
  return !!s && !e.err && s.rx.chunks.length === 0 && !s.rxEof && !s.err;
});
defineCond('sock_release', (m) => m.net.toRelease.length > 0);

// ---------------------------------------------------------------- socket(), bind(), listen()

defineHook('sock_new', (m, _c, t, e) => {
  const [domain, type0, proto0] = e.a as number[];
  if (domain !== AF_INET) return fail(e, EAFNOSUPPORT);
  const type = type0 & 0xf;
  let proto = proto0;
  if (type === SOCK_STREAM) { if (proto && proto !== IPPROTO_TCP) return fail(e, EPROTONOSUPPORT); proto = IPPROTO_TCP; }
  else if (type === SOCK_DGRAM) { if (proto && proto !== IPPROTO_UDP && proto !== IPPROTO_ICMP) return fail(e, EPROTONOSUPPORT); proto = proto || IPPROTO_UDP; }
  else if (type === SOCK_RAW) { if (t.euid !== 0) return fail(e, EPERM); if (proto !== IPPROTO_ICMP) return fail(e, EPROTONOSUPPORT); }
  else return fail(e, EINVAL);
  const s = new Sock(type, proto);
  if (s.isIcmp) m.net.raw.push(s);
  e.sock = s;
  e.sk = s;
  e.ret = installFd(t, sockFile(m, s, 2 | (type0 & O_NONBLOCK)));
  return H_CONT;
});

defineHook('sock_lookup', (_m, _c, t, e) => {
  const f = t.proc.fds[Number(e.a[0])] ?? null;
  if (!f) return fail(e, EBADF);
  if (!f.sock) return fail(e, ENOTSOCK);
  e.file = f;
  e.sock = f.sock;
  e.sk = f.sock;
  return H_CONT;
});

defineHook('sock_bind', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (s.port) return fail(e, EINVAL);
  let port = Number(e.port ?? 0);
  if (port && m.net.portInUse(port, s.type)) return fail(e, EADDRINUSE);
  if (!port) port = m.net.ephemeralPort();
  s.port = port;
  if (s.isUdp) m.net.udp.set(port, s);
  syncSock(s);
  e.ret = 0;
  return H_CONT;
});

defineHook('sock_listen', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (!s.isTcp) return fail(e, EOPNOTSUPP);
  if (s.state !== TCP_CLOSE && s.state !== TCP_LISTEN) return fail(e, EINVAL);
  if (!s.port) s.port = m.net.ephemeralPort();
  const other = m.net.listeners.get(s.port);
  if (other && other !== s) return fail(e, EADDRINUSE);
  s.backlogMax = Math.max(1, Math.min(4096, Number(e.a[1]) || 128));
  if (s.state !== TCP_LISTEN) {
    m.net.listeners.set(s.port, s);
    s.listening = true;
    change(e, s, TCP_LISTEN);
  }
  e.ret = 0;
  return H_CONT;
});

defineHook('set_state', (_m, _c, _t, e) => {
  const list = e.states as [Sock, number, number][] | undefined;
  const st = list?.shift();
  if (!st) return H_CONT;
  e.tpSk = st[0];
  e.oldstate = st[1];
  e.newstate = st[2];
  e.state = st[2];
  // tcp_set_state() sees the old sk_state and stores the new one (set_state_done)
  writeSkState(st[0], st[1]);
  return H_CONT;
});
defineHook('set_state_done', (_m, _c, _t, e) => {
  if (e.tpSk) writeSkState(e.tpSk as Sock, e.newstate as number);
  return H_CONT;
});
function writeSkState(s: Sock, state: number): void {
  const a = kmem.boundAddr(s);
  if (a !== undefined) kmem.setField(a, 'struct sock', '__sk_common.skc_state', state);
}
// tcp_set_state(sk, state): the socket changing state (not necessarily the path's socket)
defineFnArgs('tcp_set_state', (_m, _c, _t, e) => [e.tpSk ?? e.sk, e.state]);
// the child socket a listener creates for a completed handshake
for (const fn of ['tcp_v4_syn_recv_sock', 'tcp_create_openreq_child', 'inet_csk_clone_lock']) {
  defineFnRet(fn, (e) => e.newsk ?? null);
}
defineTpArgs('inet_sock_set_state', (_m, _c, _t, e) => [e.tpSk ?? e.sk, e.oldstate ?? 0, e.newstate ?? 0]);

// ---------------------------------------------------------------- accept(), connect()

defineHook('sock_accept_wait', (_m, _c, t, e) => {
  const s = sockOf(e)!;
  unwait(s, t);
  if (!s.listening) return fail(e, EINVAL);
  if (s.acceptq.length) return H_CONT;
  if (nonblock(e)) return fail(e, EAGAIN);
  if (sigPending(t)) return fail(e, EINTR);
  return sleepOn(t, s.readWait, 'inet_csk_accept');
});
defineHook('sock_accept', (m, _c, t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  const child = s.acceptq.shift()!;
  e.child = child;
  e.ret = installFd(t, sockFile(m, child));
  e.accepted = true;
  e.info = { port: child.dport };
  return H_CONT;
});

defineHook('tcp_connect_start', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (s.state === TCP_ESTABLISHED || s.state === TCP_CLOSE_WAIT) return fail(e, EISCONN);
  if (s.state !== TCP_CLOSE || s.listening) return fail(e, EINVAL);
  const port = Number(e.port ?? 0);
  if (!s.port) s.port = m.net.ephemeralPort();
  s.dport = port;
  s.err = 0;
  m.net.conns.set(`${s.port}:${port}`, s);
  change(e, s, TCP_SYN_SENT);
  e.out = tcpPkt(s, { syn: true });
  return H_CONT;
});
defineHook('tcp_connect_wait', (m, _c, t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  unwait(s, t);
  if (s.state === TCP_ESTABLISHED || s.state === TCP_CLOSE_WAIT) { e.ret = 0; return H_CONT; }
  if (s.err) { const er = s.err; s.err = 0; unhash(m, s); return fail(e, er); }
  if (sigPending(t)) return fail(e, EINTR);
  return sleepOn(t, s.writeWait, 'inet_wait_for_connect');
});
defineHook('dgram_connect', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  s.dport = Number(e.port ?? 0);
  if (!s.port && s.isUdp) { s.port = m.net.ephemeralPort(); m.net.udp.set(s.port, s); }
  syncSock(s);
  e.ret = 0;
  return H_CONT;
});

// ---------------------------------------------------------------- send

function sendBuf(e: Env): Uint8Array {
  return (e.buf as Uint8Array | undefined) ?? empty;
}

defineHook('tcp_send', (_m, _c, t, e) => {
  const s = sockOf(e)!;
  unwait(s, t);
  const buf = sendBuf(e);
  const done = (e.done as number) ?? 0;
  e.done = done;
  if (e.err) return H_CONT;
  if (s.state !== TCP_ESTABLISHED && s.state !== TCP_CLOSE_WAIT) {
    if (done) { e.ret = done; return H_CONT; }
    if (s.state === TCP_CLOSE && !s.peer && !s.err) return fail(e, ENOTCONN);
    t.sigPending |= 1 << (SIGPIPE - 1);
    return fail(e, s.err || EPIPE);
  }
  if (s.finSent) { t.sigPending |= 1 << (SIGPIPE - 1); return fail(e, EPIPE); }
  if (done >= buf.length) { e.ret = done; return H_CONT; }
  const peer = s.peer && !s.peer.closed ? s.peer : null;
  const space = peer ? RCVBUF - peer.rx.bytes : RCVBUF;
  if (space <= 0) {
    // a blocking send waits for room until everything is queued (sk_stream_wait_memory)
    if (nonblock(e)) { if (done) { e.ret = done; return H_CONT; } return fail(e, EAGAIN); }
    if (sigPending(t)) { if (done) { e.ret = done; return H_CONT; } return fail(e, EINTR); }
    return sleepOn(t, s.writeWait, 'sk_stream_wait_memory');
  }
  const n = Math.min(buf.length - done, space);
  const segs: Packet[] = [];
  for (let o = 0; o < n; o += TCP_MSS) segs.push(tcpPkt(s, { ack: true }, buf.subarray(done + o, done + Math.min(n, o + TCP_MSS))));
  s.bytesSent += n;
  e.done = done + n;
  e.ret = done + n;
  pushPath(t.ks, 'tcp_push_segs', newEnv('tcp_push', { sk: s, sock: s, segs, size_goal: TCP_MSS, mss_now: TCP_MSS }));
  return H_AGAIN;
});
defineHook('tcp_xmit', (_m, c, _t, e) => {
  const segs = e.segs as Packet[];
  const p = segs.shift();
  if (!p) return H_CONT;
  const s = sockOf(e)!;
  s.segsOut++;
  pushPath(c.ks, 'tcp_xmit_data', newEnv('tcp_xmit', { sk: s, sock: s, out: p, skb: p.skb, len: p.data.length }));
  return H_AGAIN;
});
defineHook('ack_pkt', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  e.out = tcpPkt(s, { ack: true });
  s.segsOut++;
  return H_CONT;
});

defineHook('udp_send', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  const buf = sendBuf(e);
  const dport = Number(e.port ?? s.dport);
  if (!dport) return fail(e, EDESTADDRREQ);
  if (buf.length > 65507) return fail(e, EMSGSIZE);
  if (!s.port) { s.port = m.net.ephemeralPort(); m.net.udp.set(s.port, s); syncSock(s); }
  e.out = mkPacket({ proto: IPPROTO_UDP, sport: s.port, dport, data: buf });
  s.bytesSent += buf.length;
  s.segsOut++;
  e.ret = buf.length;
  return H_CONT;
});
defineHook('raw_send', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  const buf = sendBuf(e);
  if (buf.length < 8) return fail(e, EINVAL);
  e.out = mkPacket({
    proto: IPPROTO_ICMP, sport: 0, dport: 0, data: buf, icmpType: buf[0],
    icmpId: (buf[4] << 8) | buf[5], icmpSeq: (buf[6] << 8) | buf[7],
  });
  s.bytesSent += buf.length;
  s.segsOut++;
  e.ret = buf.length;
  return H_CONT;
});

// ---------------------------------------------------------------- the device and the backlog

export const loDev = { name: 'lo', mtu: 65536, ifindex: 1, type: 772, flags: 0x49 };
defineHook('lo_xmit', (m, _c, _t, e) => {
  const p = e.out as Packet;
  e.skb = p.skb;
  m.net.packets++;
  m.net.bytes += p.skb.len;
  return H_CONT;
});
defineHook('enqueue_backlog', (m, c, _t, e) => {
  m.net.backlog[c.id].push(e.out as Packet);
  c.softirqPending |= NET_RX;
  return H_CONT;
});
/**
 * rcu_read_unlock_bh() at the end of __dev_queue_xmit: from task context, pending softirqs
 * (NET_RX raised by the loopback) run right here (do_softirq -> __do_softirq); from softirq
 * context the running net_rx_action loop picks the packet up.
 */
defineHook('bh_enable', (_m, c) => {
  if (c.ctx.context !== 0 || !(c.softirqPending & NET_RX)) return H_CONT;
  pushPath(c.ks, 'bh_softirq', newEnv('softirq', { vec: 3, pending: 0 }));
  return H_PUSHED;
});
/** do_softirq on the task's stack: softirq context while __do_softirq runs */
defineHook('bh_enter', (_m, c, _t, e) => {
  const ctx = c.ctx;
  e.savedCtx = ctx.context;
  e.savedPc = ctx.preemptCount;
  e.pending = c.softirqPending;
  c.softirqPending = 0;
  ctx.context = 1;
  ctx.preemptCount = (ctx.preemptCount ?? 0) + 0x100;
  c.softirqs++;
  return H_CONT;
});
defineHook('bh_leave', (m, c, _t, e) => {
  c.ctx.context = e.savedCtx as number;
  c.ctx.preemptCount = e.savedPc as number;
  if (!m.net.backlog[c.id].length) c.softirqPending &= ~NET_RX;
  return H_CONT;
});

defineHook('net_rx', (m, c, _t, e) => {
  const q = m.net.backlog[c.id];
  const n = ((e.rxDone as number) ?? 0);
  if (!q.length || n >= 10000) return H_CONT;
  e.rxDone = n + 1;
  const p = q.shift()!;
  pushPath(c.ks, 'netif_receive', newEnv('netif_receive', { pkt: p, skb: p.skb }));
  return H_AGAIN;
});

// ---------------------------------------------------------------- TCP receive

defineHook('tcp_rcv', (m, c, _t, e) => {
  const p = e.pkt as Packet;
  const net = m.net;
  const conn = net.conns.get(`${p.dport}:${p.sport}`) ?? null;
  const lis = net.listeners.get(p.dport) ?? null;
  const sub = (name: string, extra: Record<string, unknown>) => {
    pushPath(c.ks, name, Object.assign(newEnv(name, { pkt: p, skb: p.skb }), extra));
    return H_PUSHED;
  };
  if (conn) {
    const s = conn;
    s.segsIn++;
    const env: Env = newEnv('tcp_rcv', { pkt: p, skb: p.skb, sk: s, sock: s });
    if (p.rst) {
      s.err = s.state === TCP_SYN_SENT ? ECONNREFUSED : ECONNRESET;
      change(env, s, TCP_CLOSE);
      unhash(m, s);
      takeWaiters(env, s, 'rw');
      pushPath(c.ks, 'tcp_rcv_reset', env);
      return H_PUSHED;
    }
    if (s.state === TCP_SYN_SENT) {
      if (!(p.syn && p.ack)) return H_CONT;
      change(env, s, TCP_ESTABLISHED);
      takeWaiters(env, s, 'w');
      pushPath(c.ks, 'tcp_rcv_synack', env);
      return H_PUSHED;
    }
    if (s.state === TCP_ESTABLISHED && !p.fin && !p.syn) {
      if (p.data.length) {
        if (!s.closed) s.rx.push(p.data);
        env.queued = true;
        takeWaiters(env, s, 'r');
      }
      if (p.ack) env.wakeW = s.writeWait.splice(0);
      pushPath(c.ks, 'tcp_rcv_est', env);
      return H_PUSHED;
    }
    // the slow path: tcp_rcv_state_process
    if (p.ack) {
      env.wakeW = s.writeWait.splice(0);
      if (s.state === TCP_FIN_WAIT1 && s.finSent) change(env, s, TCP_FIN_WAIT2);
      else if (s.state === TCP_LAST_ACK) {
        change(env, s, TCP_CLOSE);
        env.tcpDone = true;
        unhash(m, s);
        takeWaiters(env, s, 'rw');
      }
    }
    if (p.data.length && (s.state === TCP_FIN_WAIT1 || s.state === TCP_FIN_WAIT2 || s.state === TCP_ESTABLISHED)) {
      if (!s.closed) s.rx.push(p.data);
      env.queued = true;
      takeWaiters(env, s, 'r');
    }
    if (p.fin && !s.rxEof) {
      s.rxEof = true;
      env.sendAck = true;
      if (s.state === TCP_ESTABLISHED) change(env, s, TCP_CLOSE_WAIT, 'sc2');
      else if (s.state === TCP_FIN_WAIT2 || s.state === TCP_FIN_WAIT1) {
        change(env, s, TCP_CLOSE, 'sc2');
        env.timeWait = true;
      }
      takeWaiters(env, s, 'rw');
    }
    // the time-wait socket leaves the established hash (inet_twsk_hashdance)
    if (env.timeWait) unhash(m, s);
    pushPath(c.ks, 'tcp_rcv_state', env);
    return H_PUSHED;
  }
  if (lis && lis.listening && !lis.closed) {
    if (p.syn && !p.ack) {
      if (lis.acceptq.length + lis.reqs.size >= lis.backlogMax) return sub('tcp_rcv_nosock', { sk: lis });
      const child = new Sock(SOCK_STREAM, IPPROTO_TCP);
      child.port = lis.port;
      child.dport = p.sport;
      lis.reqs.set(p.sport, child);
      const out = mkPacket({ proto: IPPROTO_TCP, sport: lis.port, dport: p.sport, syn: true, ack: true, data: empty });
      return sub('tcp_rcv_syn', { sk: lis, sock: lis, out, req: child });
    }
    const child = lis.reqs.get(p.sport);
    if (child && p.ack && !p.syn) {
      lis.reqs.delete(p.sport);
      const env: Env = newEnv('tcp_rcv', { pkt: p, skb: p.skb, sk: lis, sock: lis, newsk: child });
      change(env, child, TCP_SYN_RECV);
      change(env, child, TCP_ESTABLISHED);
      net.conns.set(`${child.port}:${child.dport}`, child);
      const client = net.conns.get(`${child.dport}:${child.port}`) ?? null;
      child.peer = client;
      if (client) client.peer = child;
      lis.acceptq.push(child);
      takeWaiters(env, lis, 'r');
      pushPath(c.ks, 'tcp_rcv_reqack', env);
      return H_PUSHED;
    }
  }
  const out = p.rst ? null : mkPacket({ proto: IPPROTO_TCP, sport: p.dport, dport: p.sport, rst: true, ack: true, data: empty });
  return sub('tcp_rcv_nosock', { sk: null, out });
});

defineHook('wake_waiters', (_m, c, _t, e) => {
  const w = e.wake as Task[] | undefined;
  if (!w || !w.length) return H_CONT;
  e.wake = [];
  return pushWakeups(c, w);
});
defineHook('wake_writers', (_m, c, _t, e) => {
  const w = e.wakeW as Task[] | undefined;
  if (!w || !w.length) return H_CONT;
  e.wakeW = [];
  return pushWakeups(c, w);
});

// ---------------------------------------------------------------- UDP / ICMP receive

defineHook('udp_rcv', (m, _c, _t, e) => {
  const p = e.pkt as Packet;
  const s = m.net.udp.get(p.dport);
  if (!s || s.closed || (s.dport && s.dport !== p.sport)) return H_CONT;
  if (s.rx.bytes + p.data.length > RCVBUF) return H_CONT;
  s.rx.push(p.data, p.sport);
  s.segsIn++;
  e.sk = s;
  e.udpFound = true;
  takeWaiters(e, s, 'r');
  return H_CONT;
});
function ipHeader(len: number, proto: number): Uint8Array {
  const h = new Uint8Array(20);
  h[0] = 0x45; h[2] = (len >> 8) & 0xff; h[3] = len & 0xff; h[6] = 0x40; h[8] = 64; h[9] = proto;
  h.set([127, 0, 0, 1], 12); h.set([127, 0, 0, 1], 16);
  return h;
}
defineHook('raw_queue', (m, _c, _t, e) => {
  const p = e.pkt as Packet;
  for (const s of m.net.raw) {
    if (s.closed) continue;
    const b = new Uint8Array(20 + p.data.length);
    b.set(ipHeader(b.length, IPPROTO_ICMP));
    b.set(p.data, 20);
    s.rx.push(b, 0, p);
    s.segsIn++;
    takeWaiters(e, s, 'r');
  }
  return H_CONT;
});
defineHook('icmp_reply_pkt', (_m, _c, _t, e) => {
  const p = e.pkt as Packet;
  const data = Uint8Array.from(p.data);
  data[0] = 0;
  // RFC 1624 incremental checksum update for the type change 8 -> 0
  const sum = ((data[2] << 8) | data[3]) + 0x0800;
  const cs = (sum & 0xffff) + (sum >> 16);
  data[2] = (cs >> 8) & 0xff; data[3] = cs & 0xff;
  e.out = mkPacket({ proto: IPPROTO_ICMP, sport: 0, dport: 0, data, icmpType: 0, icmpId: p.icmpId, icmpSeq: p.icmpSeq });
  return H_CONT;
});

// ---------------------------------------------------------------- receive syscalls

defineHook('sock_wait_rx', (_m, _c, t, e) => {
  const s = sockOf(e)!;
  unwait(s, t);
  if (s.rx.chunks.length || s.rxEof || s.err) return H_CONT;
  if (s.isTcp && s.state !== TCP_ESTABLISHED && s.state !== TCP_FIN_WAIT1 && s.state !== TCP_FIN_WAIT2) return H_CONT;
  if (nonblock(e)) return fail(e, EAGAIN);
  if (sigPending(t)) return fail(e, EINTR);
  return sleepOn(t, s.readWait, s.isTcp ? 'sk_wait_data' : '__skb_wait_for_more_packets');
});
function rxCount(e: Env): number {
  return Number(e.count ?? e.a[2]);
}
defineHook('tcp_recv', (m, _c, _t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  if (s.rx.bytes > 0) {
    const b = s.rx.take(rxCount(e));
    s.bytesRecv += b.length;
    e.data = b;
    e.ret = b.length;
    e.copied = b.length;
    e.len = b.length;
    e.ackNow = !!s.peer && !s.peer.closed && (s.state === TCP_ESTABLISHED || s.state === TCP_FIN_WAIT1 || s.state === TCP_FIN_WAIT2);
    if (e.ackNow && !m.net.conns.has(`${s.dport}:${s.port}`)) e.ackNow = false;
    return H_CONT;
  }
  // a reset is reported once (sock_error), then reads see end of file
  if (s.err) { const er = s.err; s.err = 0; s.rxEof = true; return fail(e, er); }
  if (s.rxEof) { e.data = empty; e.ret = 0; return H_CONT; }
  return fail(e, ENOTCONN);
});
defineHook('dgram_recv', (_m, _c, _t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  const d = s.rx.takeDgram(rxCount(e));
  if (!d) { e.data = empty; e.ret = 0; return H_CONT; }
  s.bytesRecv += d.data.length;
  e.data = d.data;
  e.ret = d.data.length;
  e.copied = d.data.length || 1;
  e.len = d.data.length;
  e.info = { port: d.from };
  return H_CONT;
});

// ---------------------------------------------------------------- shutdown, close

defineHook('tcp_shutdown', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  const how = Number(e.a[1]);
  if (how < 0 || how > 2) return fail(e, EINVAL);
  if (s.state === TCP_CLOSE || s.state === TCP_LISTEN || s.state === TCP_SYN_SENT) return fail(e, ENOTCONN);
  if (how !== 1) { s.rxEof = true; takeWaiters(e, s, 'r'); }
  if (how !== 0 && !s.finSent) finish(e, s);
  e.ret = 0;
  return H_CONT;
});
/** send our FIN: ESTABLISHED -> FIN_WAIT1, CLOSE_WAIT -> LAST_ACK */
function finish(e: Env, s: Sock): void {
  if (s.state === TCP_ESTABLISHED) change(e, s, TCP_FIN_WAIT1);
  else if (s.state === TCP_CLOSE_WAIT) change(e, s, TCP_LAST_ACK);
  else return;
  s.finSent = true;
  s.segsOut++;
  e.fin = true;
  e.out = tcpPkt(s, { fin: true, ack: true });
  takeWaiters(e, s, 'w');
}
defineHook('dgram_shutdown', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (!s.dport) return fail(e, ENOTCONN);
  s.rxEof = true;
  takeWaiters(e, s, 'r');
  e.ret = 0;
  return H_CONT;
});
defineHook('sock_release_pop', (m, _c, _t, e) => {
  const s = m.net.toRelease.shift();
  if (!s) return H_CONT;
  e.sock = s;
  e.sk = s;
  return H_CONT;
});
defineHook('sock_release_all', (m, c) => {
  const s = m.net.toRelease.shift();
  if (!s) return H_CONT;
  pushPath(c.ks, 'sock_fput', newEnv('close', { sock: s, sk: s }));
  return H_AGAIN;
});
defineHook('tcp_close', (m, _c, _t, e) => {
  const s = sockOf(e);
  if (!s) return H_CONT;
  s.closed = true;
  if (s.state === TCP_LISTEN) {
    m.net.listeners.delete(s.port);
    s.listening = false;
    change(e, s, TCP_CLOSE);
    // not yet accepted connections are reset
    for (const ch of s.acceptq.splice(0)) {
      ch.closed = true;
      unhash(m, ch);
      const peer = ch.peer;
      if (peer && peer.state !== TCP_CLOSE) {
        peer.err = ECONNRESET;
        peer.rxEof = true;
        change(e, peer, TCP_CLOSE, 'sc2');
        unhash(m, peer);
        takeWaiters(e, peer, 'rw');
      }
    }
    s.reqs.clear();
    takeWaiters(e, s, 'rw');
    return H_CONT;
  }
  if (s.state === TCP_SYN_SENT) { change(e, s, TCP_CLOSE); unhash(m, s); return H_CONT; }
  finish(e, s);
  if (s.state === TCP_CLOSE) unhash(m, s);
  return H_CONT;
});
defineHook('dgram_close', (m, _c, _t, e) => {
  const s = sockOf(e);
  if (!s) return H_CONT;
  s.closed = true;
  if (s.isUdp && m.net.udp.get(s.port) === s) m.net.udp.delete(s.port);
  const i = m.net.raw.indexOf(s);
  if (i >= 0) m.net.raw.splice(i, 1);
  return H_CONT;
});

/** sizes the sendmsg/recvmsg functions get as arguments ($size, $len, $flags) */
defineHook('sock_args', (_m, _c, _t, e) => {
  const buf = e.buf as Uint8Array | undefined;
  const n = buf ? buf.length : rxCount(e);
  e.size = n;
  e.len = n;
  e.count = n;
  e.flags = e.name === 'sendto' || e.name === 'recvfrom' ? Number(e.a[3]) : e.name === 'sendmsg' || e.name === 'recvmsg' ? Number(e.a[2]) : 0;
  return H_CONT;
});

// what the socket layer functions return: the syscall's result (bytes, fd, 0 or -errno)
for (const fn of ['sock_sendmsg', 'sock_recvmsg', 'inet_sendmsg', 'inet_recvmsg', 'tcp_sendmsg', 'tcp_sendmsg_locked', 'tcp_recvmsg',
  'tcp_recvmsg_locked', 'udp_sendmsg', 'udp_recvmsg', 'raw_sendmsg', 'raw_recvmsg', 'sock_read_iter', 'sock_write_iter',
  '__sys_sendto', '__sys_recvfrom', '__sys_sendmsg', '__sys_recvmsg', '___sys_sendmsg', '___sys_recvmsg', '____sys_sendmsg',
  '____sys_recvmsg', '__sys_connect', '__sys_connect_file', 'inet_stream_connect', '__inet_stream_connect', 'inet_dgram_connect',
  '__sys_accept4', 'do_accept', 'inet_accept', '__sys_bind', 'inet_bind', '__inet_bind', '__sys_listen', 'inet_listen',
  '__sys_shutdown', 'inet_shutdown', '__sys_socket']) defineFnRet(fn, (e) => e.ret);

// ---------------------------------------------------------------- tracepoint arguments

defineTpArgs('net_dev_queue', (_m, _c, _t, e) => [e.skb]);
defineTpArgs('net_dev_start_xmit', (_m, _c, _t, e) => [e.skb, loDev]);
defineTpArgs('net_dev_xmit', (_m, _c, _t, e) => [e.skb, 0, loDev, (e.skb as { len: number } | undefined)?.len ?? 0]);
defineTpArgs('netif_rx', (_m, _c, _t, e) => [e.skb]);
defineTpArgs('netif_rx_entry', (_m, _c, _t, e) => [e.skb]);
defineTpArgs('netif_rx_exit', () => [0]);
defineTpArgs('netif_receive_skb', (_m, _c, _t, e) => [e.skb]);
defineTpArgs('netif_receive_skb_entry', (_m, _c, _t, e) => [e.skb]);
defineTpArgs('netif_receive_skb_exit', () => [0]);
defineTpArgs('consume_skb', (_m, _c, _t, e) => [e.skb ?? null]);
defineTpArgs('kfree_skb', (_m, _c, _t, e) => [e.skb ?? null, 0, e.dropReason ?? 2]);
defineTpArgs('skb_copy_datagram_iovec', (_m, _c, _t, e) => [e.skb ?? null, e.copied ?? 0]);
defineTpArgs('tcp_probe', (_m, _c, _t, e) => [e.sk, e.skb]);
defineTpArgs('tcp_rcv_space_adjust', (_m, _c, _t, e) => [e.sk]);
defineTpArgs('tcp_send_reset', (_m, _c, _t, e) => [e.sk ?? null, e.skb]);
defineTpArgs('inet_sk_error_report', (_m, _c, _t, e) => [e.sk]);

export { LOOPBACK };
