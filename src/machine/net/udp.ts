/**
 * Datagrams over the loopback (net/ipv4/udp.c, raw.c, icmp.c): UDP send and receive, raw ICMP
 * sockets (ping) and the kernel's echo replies, connect/shutdown/close of datagram sockets.
 */
import type { NetMachine } from './core';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { Packet, Sock, mkPacket, IPPROTO_ICMP, IPPROTO_UDP, RCVBUF } from '../include/net';
import type { Env } from '../include/kstack';
import { syncSock } from './layout';
import { sockOf, empty, fail, takeWaiters, sendBuf, rxCount } from './sock';

const MSG_PEEK = 2;
const EINVAL = 22, EDESTADDRREQ = 89, EMSGSIZE = 90, ENOTCONN = 107;

export const netUdp = new Semantics<NetMachine>('net/udp');

netUdp.hook('dgram_connect', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  s.dport = Number(e.port ?? 0);
  if (!s.port && s.isUdp) { s.port = m.net.ephemeralPort(); m.net.udp.set(s.port, s); }
  syncSock(s);
  e.ret = 0;
  return H_CONT;
});

netUdp.hook('udp_send', (m, _c, _t, e) => {
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
netUdp.hook('raw_send', (_m, _c, _t, e) => {
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

// ---------------------------------------------------------------- UDP / ICMP receive

/** The socket a received datagram goes to (__udp4_lib_lookup, room in its receive buffer); null: dropped. */
export function udpTarget(m: NetMachine, p: Packet): Sock | null {
  const s = m.net.udp.get(p.dport);
  if (!s || s.closed || (s.dport && s.dport !== p.sport)) return null;
  return s.rx.bytes + p.data.length > RCVBUF ? null : s;
}
/** __udp_enqueue_schedule_skb: the datagram queued on `s`, its readers to wake (e.wake) */
export function udpQueue(s: Sock, p: Packet, e: Env): void {
  s.rx.push(p.data, p.sport, p);
  s.segsIn++;
  e.sk = s;
  e.udpFound = true;
  takeWaiters(e, s, 'r');
}
netUdp.hook('udp_rcv', (m, _c, _t, e) => {
  const p = e.pkt as Packet;
  const s = udpTarget(m, p);
  if (s) udpQueue(s, p, e);
  return H_CONT;
});
function ipHeader(len: number, proto: number): Uint8Array {
  const h = new Uint8Array(20);
  h[0] = 0x45; h[2] = (len >> 8) & 0xff; h[3] = len & 0xff; h[6] = 0x40; h[8] = 64; h[9] = proto;
  h.set([127, 0, 0, 1], 12); h.set([127, 0, 0, 1], 16);
  return h;
}
/** raw_v4_input: an echo reply queued on every open raw socket (ping's), their readers to wake (e.wake) */
export function rawQueue(m: NetMachine, p: Packet, e: Env): void {
  for (const s of m.net.raw) {
    if (s.closed) continue;
    const b = new Uint8Array(20 + p.data.length);
    b.set(ipHeader(b.length, IPPROTO_ICMP));
    b.set(p.data, 20);
    s.rx.push(b, 0, p);
    s.segsIn++;
    takeWaiters(e, s, 'r');
  }
}
netUdp.hook('raw_queue', (m, _c, _t, e) => {
  rawQueue(m, e.pkt as Packet, e);
  return H_CONT;
});
/** icmp_reply of echo request `p`: the echo reply (type 0, the checksum updated) */
export function icmpEchoReply(p: Packet): Packet {
  const data = Uint8Array.from(p.data);
  data[0] = 0;
  // RFC 1624 incremental checksum update for the type change 8 -> 0
  const sum = ((data[2] << 8) | data[3]) + 0x0800;
  const cs = (sum & 0xffff) + (sum >> 16);
  data[2] = (cs >> 8) & 0xff; data[3] = cs & 0xff;
  return mkPacket({ proto: IPPROTO_ICMP, sport: 0, dport: 0, data, icmpType: 0, icmpId: p.icmpId, icmpSeq: p.icmpSeq });
}
netUdp.hook('icmp_reply_pkt', (_m, _c, _t, e) => {
  e.out = icmpEchoReply(e.pkt as Packet);
  return H_CONT;
});

/** inet_dgram_connect autobinds a UDP socket that has no local port yet (inet_autobind) */
netUdp.cond('udp_unbound', (_m, _c, _t, e) => { const s = sockOf(e); return !!s && s.isUdp && !s.port; });
netUdp.hook('dgram_recv', (_m, _c, _t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  // MSG_PEEK: the datagram stays queued (netcat's UDP server learns its peer so)
  const flags = e.name === 'recvfrom' ? Number(e.a[3]) : e.name === 'recvmsg' ? Number(e.a[2]) : 0;
  const head = s.rx.chunks[0];
  const d = flags & MSG_PEEK ? (head ? { data: head.data.subarray(0, rxCount(e)), from: head.from, pkt: undefined } : null) : s.rx.takeDgram(rxCount(e));
  if (!d) { e.data = empty; e.ret = 0; return H_CONT; }
  s.bytesRecv += d.data.length;
  e.data = d.data;
  // the datagram's skb, which skb_free_datagram -> consume_skb frees after the copy
  if (d.pkt) e.skb = d.pkt.skb;
  e.ret = d.data.length;
  e.copied = d.data.length || 1;
  e.len = d.data.length;
  e.info = { port: d.from };
  return H_CONT;
});

netUdp.hook('dgram_shutdown', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (!s.dport) return fail(e, ENOTCONN);
  s.rxEof = true;
  takeWaiters(e, s, 'r');
  e.ret = 0;
  return H_CONT;
});
netUdp.hook('dgram_close', (m, _c, _t, e) => {
  const s = sockOf(e);
  if (!s) return H_CONT;
  s.closed = true;
  if (s.isUdp && m.net.udp.get(s.port) === s) m.net.udp.delete(s.port);
  const i = m.net.raw.indexOf(s);
  if (i >= 0) m.net.raw.splice(i, 1);
  return H_CONT;
});

