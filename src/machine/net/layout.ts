/**
 * The networking objects as kernel memory lays them out: `struct sock` (the socket's
 * __sk_common addresses, ports and state, type, protocol, buffer sizes; kept in step as the
 * state changes), `struct sk_buff` (len, protocol, hash, and a head buffer with the Ethernet,
 * IPv4 and TCP/UDP/ICMP headers), `struct socket` (the BSD layer: state, type, sk); and the
 * arguments of type `struct socket *`, `msghdr *` and `sk_buff *` of the socket functions.
 */
import { kmem, KernelMemory } from '../../kernel/memory';
import {
  Sock, Packet, SkbView, SocketView, socketView, packetOfSkb, AF_INET, IPPROTO_TCP, IPPROTO_UDP, RCVBUF, LOOPBACK, tcpHdrLen,
} from '../include/net';
import type { Env } from '../include/kstack';
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { fileOf, syscallArg, registerLazyMaterializer } from '../paths/args';
import { loDev, txSkb } from './core';

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
  set('truesize', skb.truesize);
  set('ip_summed', skb.ip_summed);
  set('protocol', skb.protocol);
  try { mem.setField(a, T, 'dev', loDev); } catch { /* layout differs */ }
  set('mark', skb.mark);
  set('queue_mapping', skb.queue_mapping);
  set('hash', skb.hash);
  const thLen = p.proto === IPPROTO_TCP ? tcpHdrLen(p) : 8;
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
  // __dev_queue_xmit sees the frame from its Ethernet header; after eth_type_trans, the datagram
  set('data', head + (skb.received ? ip : 0));
  set('mac_header', 0);
  set('network_header', ip);
  set('transport_header', th);
  set('end', size);
  set('tail', size);
  return a;
}
/**
 * eth_type_trans() in loopback_xmit: the receive side sees the datagram (skb->len without the
 * 14-byte Ethernet header, skb->data at the IP header; the guest: len=98 queued, len=84 received).
 */
export function ethTypeTrans(skb: SkbView): void {
  if (skb.received) return;
  skb.received = true;
  skb.len -= 14;
  const a = kmem.boundAddr(skb);
  if (a === undefined) return;
  kmem.setField(a, 'struct sk_buff', 'len', skb.len);
  const data = kmem.fieldOf('struct sk_buff', 'data').offset;
  kmem.writeUnsigned(a + data, 8, kmem.readUnsigned(a + data, 8) + 14n);
}

/** keep an already-materialized struct sock in step with the machine's socket */
export function syncSock(s: Sock): void {
  const a = kmem.boundAddr(s);
  if (a !== undefined) writeSock(kmem, a, s);
}

/** tcp_set_state() writes the state into an already-materialized struct sock */
export function writeSkState(s: Sock, state: number): void {
  const a = kmem.boundAddr(s);
  if (a !== undefined) kmem.setField(a, 'struct sock', '__sk_common.skc_state', state);
}

// ---------------------------------------------------------------- struct socket

/** struct socket: state, type, flags, sk (the struct sock), file left 0 */
function socketAddr(mem: KernelMemory, v: SocketView): number {
  const T = 'struct socket';
  const a = mem.allocStruct(T);
  mem.bind(v, a);
  mem.setField(a, T, 'state', v.ssState);
  mem.setField(a, T, 'type', v.sk.type);
  mem.setField(a, T, 'flags', 0);
  mem.setField(a, T, 'sk', v.sk);
  return a;
}

// ---------------------------------------------------------------- arguments

const msgSlots = new WeakMap<Env, number>();

export const netLayout = new Semantics<MachineCore>('net/layout');
netLayout.setup(() => {
  kmem.addMaterializer((o, mem) => (o instanceof Sock ? sockAddr(mem, o) : null));
  kmem.addMaterializer((o, mem) => {
    const p = packetOfSkb(o);
    return p ? skbAddr(mem, o as SkbView, p) : null;
  });
  registerLazyMaterializer((o, mem) => (o instanceof SocketView ? socketAddr(mem, o) : null));
});
// sendmsg/recvmsg's message: the data left to copy (msg_iter.count) and msg_flags
netLayout.structArg('msghdr', () => (_m, _c, _t, e) => {
  let a = msgSlots.get(e);
  if (a === undefined) {
    a = kmem.allocStruct('struct msghdr');
    msgSlots.set(e, a);
  }
  const v = syscallArg(e, 'len') ?? syscallArg(e, 'size') ?? e.count ?? e.len;
  const n = typeof v === 'number' ? v : v instanceof Uint8Array ? v.length : typeof v === 'string' ? v.length : 0;
  kmem.setField(a, 'struct msghdr', 'msg_iter.count', n);
  kmem.setField(a, 'struct msghdr', 'msg_flags', Number(syscallArg(e, 'flags') ?? 0));
  return a;
});
netLayout.structArg('socket', () => (_m, _c, t, e) => {
  const s = (e.sock as Sock | undefined) ?? fileOf(t, e)?.sock;
  return s instanceof Sock ? socketView(s) : 0;
});
// every struct net_device argument is lo, the machine's one device
netLayout.structArg('net_device', () => () => loDev);
/** the functions of the IPv4 output and device transmit path: their skb is the packet being sent (e.out) */
const TX_FUNCTIONS = new Set(['ip_send_skb', 'ip_local_out', '__ip_local_out', 'ip_output', 'ip_finish_output', '__ip_finish_output',
  'ip_finish_output2', '__dev_queue_xmit', 'dev_queue_xmit', 'dev_hard_start_xmit', 'loopback_xmit', '__netif_rx', 'netif_rx',
  'netif_rx_internal', 'enqueue_to_backlog']);
netLayout.structArg('sk_buff', (f, pname) => {
  if (TX_FUNCTIONS.has(f)) return (_m, _c, _t, e) => txSkb(e) ?? 0;
  // the packet being sent (e.out) before the device path names its skb
  return (_m, _c, _t, e) => (e[pname] ?? e.skb ?? (e.out as { skb?: unknown } | undefined)?.skb ?? 0);
});
