/**
 * What the socket semantics (socket.ts, tcp.ts, udp.ts) share: the socket of a path, errors,
 * state changes announced through tcp_set_state / inet_sock_set_state, wait lists, and the
 * conditions the networking templates (paths/templates/net.ts) test.
 */
import type { NetMachine } from './core';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import { Task, TASK_INTERRUPTIBLE } from '../include/sched';
import type { Env } from '../include/kstack';
import { leaveQueues, type WaitQueue } from '../include/wait';
import { OpenFile } from '../include/fs';
import { Sock, Packet, mkPacket, AF_UNIX, SOCK_STREAM, SOCK_RAW, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP } from '../include/net';
import { syncSock } from './layout';

const MSG_DONTWAIT = 0x40;
const O_NONBLOCK = 0o4000;

export const sockOf = (e: Env): Sock | null => (e.sock as Sock | undefined) ?? null;
export const empty = new Uint8Array(0);

// ---------------------------------------------------------------- helpers

export function sockFile(m: NetMachine, s: Sock, flags = 2): OpenFile {
  const f = new OpenFile('sock', null, flags);
  f.sock = s;
  f.onClose = () => { if (!m.net.toRelease.includes(s)) m.net.toRelease.push(s); };
  return f;
}

export function fail(e: Env, errno: number): number {
  e.err = errno;
  e.ret = -errno;
  return H_CONT;
}

/** a state change to announce through tcp_set_state / inet_sock_set_state */
export function change(e: Env, s: Sock, to: number, slot: 'sc1' | 'sc2' = 'sc1'): void {
  const list = (e.states as [Sock, number, number][] | undefined) ?? (e.states = []) as [Sock, number, number][];
  list.push([s, s.state, to]);
  s.state = to;
  syncSock(s);
  e[slot] = true;
}

export function takeWaiters(e: Env, s: Sock | null, which: 'r' | 'w' | 'rw'): void {
  if (!s) return;
  const list = (e.wake as WaitQueue | undefined) ?? (e.wake = []) as WaitQueue;
  if (which !== 'w') {
    list.push(...s.readWait.splice(0));
    const x = s.exclWait.shift();
    if (x) list.push(x);
  }
  if (which !== 'r') list.push(...s.writeWait.splice(0));
}

export function tcpPkt(from: Sock, flags: Partial<Packet>, data: Uint8Array = empty): Packet {
  // a segment carrying an ACK settles a delayed one (tcp_event_ack_sent clears the timer)
  if (flags.ack) { from.delack = false; from.rcvUnacked = 0; }
  from.sndUnacked += data.length;
  return mkPacket({ proto: IPPROTO_TCP, sport: from.port, dport: from.dport, data, ...flags });
}

export function unhash(m: NetMachine, s: Sock): void {
  const k = `${s.port}:${s.dport}`;
  if (m.net.conns.get(k) === s) m.net.conns.delete(k);
}

/** leave a socket's wait lists (a sleeping hook re-runs after any wakeup, a signal included) */
export function unwait(s: Sock, t: Task): void {
  leaveQueues(t, [s.readWait, s.writeWait]);
}
/** sleep on a socket wait list (the hook re-runs after wakeup) */
export function sleepOn(t: Task, list: WaitQueue, wchan: string): number {
  if (!list.includes(t)) list.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = wchan;
  return H_SLEEP;
}
export const sigPending = (t: Task) => (t.sigPending & ~t.sigBlocked) !== 0;
export function nonblock(e: Env): boolean {
  const f = e.file as OpenFile | undefined;
  const flags = e.name === 'recvfrom' || e.name === 'sendto' ? Number(e.a[3]) : e.name === 'recvmsg' || e.name === 'sendmsg' ? Number(e.a[2]) : 0;
  return ((flags & MSG_DONTWAIT) !== 0) || (!!f && (f.flags & O_NONBLOCK) !== 0);
}

/** the data a send transmits */
export function sendBuf(e: Env): Uint8Array {
  return (e.buf as Uint8Array | undefined) ?? empty;
}

/** the size a receive asks for */
export function rxCount(e: Env): number {
  return Number(e.count ?? e.a[2]);
}
const MSG_TRUNC = 0x20, MSG_WAITALL = 0x100;
/** the receive call's flags: recvfrom's a[3], recvmsg's a[2] (the msghdr's call), none for read(2) */
export function rxFlags(e: Env): number {
  return e.name === 'recvfrom' ? Number(e.a[3] ?? 0) : e.name === 'recvmsg' ? Number(e.a[2] ?? 0) : 0;
}
/**
 * Whether a receive on `s` can complete now: data queued, or for a TCP MSG_WAITALL receive as much as
 * it asked for (tcp_recvmsg_locked's target: sock_rcvlowat gives len with MSG_WAITALL); end of file and
 * errors end the wait too.
 */
export function rxReady(s: Sock, e: Env): boolean {
  if (s.rxEof || s.err) return true;
  if (s.isTcp && (rxFlags(e) & MSG_WAITALL)) return s.rx.bytes >= rxCount(e);
  return s.rx.chunks.length > 0;
}
/** a TCP receive with MSG_TRUNC discards what it receives (tcp_recvmsg_locked copies nothing) */
export const rxTrunc = (e: Env): boolean => (rxFlags(e) & MSG_TRUNC) !== 0;
export const netSock = new Semantics<NetMachine>('net/sock');

const typeOf = (e: Env): number => {
  const s = sockOf(e);
  if (s) return s.isUnix ? 4 : s.isTcp ? 1 : s.isIcmp ? 3 : 2;
  if (e.name === 'socket') {
    if (Number(e.a[0]) === AF_UNIX) return 4;
    const ty = Number(e.a[1]) & 0xf, pr = Number(e.a[2]);
    return ty === SOCK_STREAM ? 1 : pr === IPPROTO_ICMP || ty === SOCK_RAW ? 3 : 2;
  }
  return 0;
};
netSock.cond('is_tcp', (_m, _c, _t, e) => typeOf(e) === 1);
netSock.cond('is_udp', (_m, _c, _t, e) => typeOf(e) === 2);
netSock.cond('is_icmp', (_m, _c, _t, e) => typeOf(e) === 3);
netSock.cond('is_unix', (_m, _c, _t, e) => typeOf(e) === 4);
netSock.cond('sock_ok', (_m, _c, _t, e) => !!e.sock && !e.err);
netSock.cond('sock_ok2', (_m, _c, _t, e) => !e.err);
netSock.cond('state_change', (_m, _c, _t, e) => e.sc1 === true);
netSock.cond('state_change2', (_m, _c, _t, e) => e.sc2 === true);
netSock.cond('fin', (_m, _c, _t, e) => e.fin === true);
netSock.cond('accepted', (_m, _c, _t, e) => e.accepted === true);
netSock.cond('copied', (_m, _c, _t, e) => ((e.copied as number) ?? 0) > 0);
netSock.cond('ack_now', (_m, _c, _t, e) => e.ackNow === true);
netSock.cond('tcp_done', (_m, _c, _t, e) => e.tcpDone === true);
netSock.cond('time_wait', (_m, _c, _t, e) => e.timeWait === true);
netSock.cond('send_ack', (_m, _c, _t, e) => e.sendAck === true);
netSock.cond('udp_found', (_m, _c, _t, e) => e.udpFound === true);
netSock.cond('raw_match', (m, _c, _t, e) => (e.pkt as Packet).icmpType === 0 && m.net.raw.some((s) => !s.closed));
netSock.cond('icmp_echo', (_m, _c, _t, e) => (e.pkt as Packet).icmpType === 8);
netSock.cond('pkt_tcp', (_m, _c, _t, e) => (e.pkt as Packet).proto === IPPROTO_TCP);
netSock.cond('pkt_udp', (_m, _c, _t, e) => (e.pkt as Packet).proto === IPPROTO_UDP);
netSock.cond('pkt_icmp', (_m, _c, _t, e) => (e.pkt as Packet).proto === IPPROTO_ICMP);
netSock.cond('pkt_ack', (_m, _c, _t, e) => (e.pkt as Packet).ack === true);
netSock.cond('pkt_fin', (_m, _c, _t, e) => (e.pkt as Packet).fin === true);
netSock.cond('pkt_rst', (_m, _c, _t, e) => (e.pkt as Packet).rst === true);
netSock.cond('pkt_data', (_m, _c, _t, e) => e.queued === true);
netSock.cond('rx_wait', (_m, _c, _t, e) => {
  const s = sockOf(e);
  return !!s && !e.err && !rxReady(s, e);
});
netSock.cond('sock_release', (m) => m.net.toRelease.length > 0);

