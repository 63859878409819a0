/**
 * Networking objects (include/net/sock.h, include/linux/skbuff.h, include/linux/net.h) of the
 * loopback network (127.0.0.1 only): AF_INET stream (TCP), datagram (UDP) and raw ICMP sockets
 * (`Sock`, and `SocketView`, their BSD-layer struct socket), the packets that travel through
 * `lo` (`Packet` and its sk_buff view) and receive queues.  The call paths are in
 * paths/templates/net.ts, the semantics (TCP state machine, queues, wakeups) in net/.
 */
import type { WaitQueue } from './wait';
import { hash32 } from '../core/prng';

export const AF_UNIX = 1, AF_INET = 2;
export const SOCK_STREAM = 1, SOCK_DGRAM = 2, SOCK_RAW = 3;
export const IPPROTO_ICMP = 1, IPPROTO_TCP = 6, IPPROTO_UDP = 17;
export const LOOPBACK = 0x7f000001;
/** enum skb_drop_reason (include/net/dropreason.h): kfree_skb()'s, and tcp_v4_rcv's until it knows better */
export const SKB_DROP_REASON_NOT_SPECIFIED = 1;
export const LO_MTU = 65536;
/** loopback MSS: MTU - IP header - TCP header - timestamps option */
export const TCP_MSS = 65483 - 12;
/** receive buffer (sk_rcvbuf) of a socket */
export const RCVBUF = 131072;

/** TCP states (include/net/tcp_states.h) */
export const TCP_ESTABLISHED = 1, TCP_SYN_SENT = 2, TCP_SYN_RECV = 3, TCP_FIN_WAIT1 = 4, TCP_FIN_WAIT2 = 5,
  TCP_TIME_WAIT = 6, TCP_CLOSE = 7, TCP_CLOSE_WAIT = 8, TCP_LAST_ACK = 9, TCP_LISTEN = 10, TCP_CLOSING = 11;

export interface Packet {
  proto: number;
  sport: number;
  dport: number;
  syn?: boolean;
  ack?: boolean;
  fin?: boolean;
  rst?: boolean;
  data: Uint8Array;
  /** ICMP type (8 echo request, 0 echo reply) and id/sequence */
  icmpType?: number;
  icmpId?: number;
  icmpSeq?: number;
  /** the sk_buff as probes see it (TP args, $skb) */
  skb: SkbView;
}

/** The fields of struct sk_buff a probe may read (filled into kernel memory on first use). */
export interface SkbView {
  /** bytes from skb->data: the Ethernet frame while sent, the IP datagram once eth_type_trans pulled the header */
  len: number;
  /** paged bytes (TCP payload sits in page frags; UDP and ICMP skbs are linear) */
  data_len: number;
  truesize: number;
  protocol: number;
  mark: number;
  queue_mapping: number;
  hash: number;
  ip_summed: number;
  /** eth_type_trans() has run (loopback_xmit): skb->data at the network header */
  received: boolean;
}

/** kmalloc's size classes above 256 bytes (kmalloc_size_roundup; past 8 KiB whole pages, a power of two) */
function kmallocRound(n: number): number {
  let b = 512;
  while (b < n) b *= 2;
  return b;
}
/**
 * skb->truesize of a loopback packet as 6.1 sets it (SKB_TRUESIZE: 256 bytes of struct sk_buff
 * plus the kmalloc'd head, which holds the 320-byte skb_shared_info, plus page frags).  The real
 * guest's netif_rx_entry events (data/recordings: ping, udp, tcp-http, tbench) show: ICMP echo and
 * small UDP datagrams 768 (ip_append_data: sock_alloc_send_skb(len + hh_len 16 + 15)); TCP
 * segments 1280 (alloc_skb_fclone(MAX_TCP_HEADER)) plus the payload in frags (data 16 -> 1296,
 * 65483 -> 66763); pure ACKs 2 (__tcp_send_ack: skb_set_tcp_pure_ack).
 */
function skbTruesize(p: Omit<Packet, 'skb'>, ipLen: number): number {
  if (p.proto === IPPROTO_TCP) {
    if (p.ack && !p.syn && !p.fin && !p.rst && !p.data.length) return 2;
    if (!p.rst) return 1280 + p.data.length;
  }
  return 256 + kmallocRound(((ipLen + 31 + 63) & ~63) + 320);
}

/**
 * The sk_buff view of a packet: a class with a back-reference to its packet (packetOfSkb() is a
 * field load, not a WeakMap entry per packet; `pkt` is not a scalar, so it never lands in the
 * materialized struct).
 */
class Skb implements SkbView {
  len: number;
  data_len: number;
  truesize: number;
  protocol = 0x0008;
  mark = 0;
  queue_mapping = 0;
  hash: number;
  ip_summed: number;
  received = false;
  readonly pkt: Packet;
  constructor(pkt: Packet, len: number, hash: number) {
    this.len = len;
    this.hash = hash;
    this.pkt = pkt;
    const tcp = pkt.proto === IPPROTO_TCP;
    this.data_len = tcp && !pkt.rst ? pkt.data.length : 0;
    this.truesize = skbTruesize(pkt, len - 14);
    // CHECKSUM_PARTIAL for TCP and UDP (the guest: ip_summed=3), CHECKSUM_NONE for ICMP
    this.ip_summed = pkt.proto === IPPROTO_ICMP ? 0 : 3;
  }
}

/**
 * The TCP header length of a segment: 20 bytes plus options: SYN and SYN-ACK carry MSS, SACK_PERM,
 * timestamps and window scale (40), other segments timestamps (32), a reset none (20); the real
 * guest's net_dev_xmit lengths on lo: 74, 66 and 54.
 */
export function tcpHdrLen(p: { syn?: boolean; rst?: boolean }): number {
  return p.rst ? 20 : p.syn ? 40 : 32;
}

/** Make a packet of `p`, which the packet takes over (callers pass a fresh object literal). */
export function mkPacket(p: Omit<Packet, 'skb'>): Packet {
  // ICMP data already starts with its 8-byte header
  const hdr = p.proto === IPPROTO_TCP ? tcpHdrLen(p) : p.proto === IPPROTO_UDP ? 8 : 0;
  // the flow hash (skb->hash): a function of the 4-tuple, as the kernel's is; ICMP has none (the guest: hash=0)
  const skbHash = p.proto === IPPROTO_ICMP ? 0 : hash32(((p.sport & 0xffff) << 16) ^ p.dport ^ (p.proto << 8));
  // skb->len at the device: IP header + transport header + payload; protocol ETH_P_IP (network order)
  const pkt = p as Packet;
  pkt.skb = new Skb(pkt, 20 + hdr + p.data.length + 14, skbHash);
  return pkt;
}

/** The packet an sk_buff view belongs to (for laying out its headers in kernel memory). */
export function packetOfSkb(skb: object): Packet | undefined {
  return skb instanceof Skb ? skb.pkt : undefined;
}

/** A byte or datagram receive queue. */
export class RxQueue {
  /** `cpu`: where a TCP segment's sk_buff was allocated (skb->alloc_cpu: the loopback sender's), -1 unknown */
  chunks: { data: Uint8Array; from: number; pkt?: Packet; cpu?: number }[] = [];
  bytes = 0;
  /** the alloc CPUs of the chunks the last take() used up (each one's skb freed by the reader) */
  readonly freedCpus: number[] = [];
  push(data: Uint8Array, from = 0, pkt?: Packet, cpu = -1): void {
    this.chunks.push({ data, from, pkt, cpu });
    this.bytes += data.length;
  }
  /** stream read: up to max bytes across chunks */
  take(max: number): Uint8Array {
    const out = new Uint8Array(Math.min(max, this.bytes));
    let o = 0;
    this.freedCpus.length = 0;
    while (o < out.length) {
      const c = this.chunks[0];
      const k = Math.min(c.data.length, out.length - o);
      out.set(c.data.subarray(0, k), o);
      o += k;
      if (k === c.data.length) { this.chunks.shift(); this.freedCpus.push(c.cpu ?? -1); } else c.data = c.data.subarray(k);
    }
    this.bytes -= out.length;
    return out;
  }
  /** datagram read: one datagram (truncated to max) */
  takeDgram(max: number): { data: Uint8Array; from: number; pkt?: Packet } | null {
    const c = this.chunks.shift();
    if (!c) return null;
    this.bytes -= c.data.length;
    return { data: c.data.subarray(0, max), from: c.from, pkt: c.pkt };
  }
}

let sockIds = 0;
export class Sock {
  readonly id = ++sockIds;
  /** local and remote port (host order), 0 when unbound / unconnected */
  port = 0;
  dport = 0;
  state = TCP_CLOSE;
  listening = false;
  backlogMax = 128;
  /** accept queue (established children) and half-open requests by client port */
  acceptq: Sock[] = [];
  reqs = new Map<number, Sock>();
  /** connected peer socket on the loopback (TCP) */
  peer: Sock | null = null;
  rx = new RxQueue();
  /** FIN received: reads return 0 once rx is empty */
  rxEof = false;
  /** connection refused / reset */
  err = 0;
  /** the owner closed it (close/exit) */
  closed = false;
  /** shutdown(SHUT_WR) done or FIN sent */
  finSent = false;
  /** an ACK is owed and the delayed-ACK timer is armed (ICSK_ACK_TIMER) */
  delack = false;
  /** bytes received since the last ACK we sent (tp->rcv_nxt - tp->rcv_wup) */
  rcvUnacked = 0;
  /** bytes sent the peer has not ACKed yet (tp->snd_nxt - tp->snd_una) */
  sndUnacked = 0;
  /**
   * replies sent within the ACK timeout of the data they answer (tcp_event_data_sent's
   * inet_csk_inc_pingpong_cnt): from TCP_PINGPONG_THRESH on the connection is interactive, ACKs ride
   * on the replies instead of going out on their own
   */
  pingpong = 0;
  /** when data last arrived (icsk_ack.lrcvtime) */
  lastRcv = -Infinity;
  /** tasks waiting for data / connection / accept / buffer space */
  readWait: WaitQueue = [];
  writeWait: WaitQueue = [];
  /**
   * epoll waiters added with EPOLLEXCLUSIVE (nginx's workers on their shared listening socket):
   * a wakeup of the readers takes only the first of them (ep_poll_callback's exclusive wake)
   */
  exclWait: WaitQueue = [];
  /** statistics */
  bytesSent = 0;
  bytesRecv = 0;
  segsOut = 0;
  segsIn = 0;
  /** address family: AF_INET, or AF_UNIX (net/unix.ts) */
  family = AF_INET;
  /** AF_UNIX: the path it is bound to ('' while unbound) */
  path = '';
  constructor(readonly type: number, readonly protocol: number) {}
  get isTcp(): boolean { return this.type === SOCK_STREAM && this.family === AF_INET; }
  get isUdp(): boolean { return this.type === SOCK_DGRAM && this.protocol !== IPPROTO_ICMP && this.family === AF_INET; }
  get isUnix(): boolean { return this.family === AF_UNIX; }
  get isIcmp(): boolean { return this.protocol === IPPROTO_ICMP; }
  /** EPOLLIN: a listener with a connection to accept, or data, end of file or an error to read */
  get pollIn(): boolean {
    return this.listening ? this.acceptq.length > 0 : this.rx.chunks.length > 0 || this.rxEof || this.err !== 0;
  }
}

export const TCP_STATE_NAMES = ['', 'ESTABLISHED', 'SYN_SENT', 'SYN_RECV', 'FIN_WAIT1', 'FIN_WAIT2', 'TIME_WAIT', 'CLOSE',
  'CLOSE_WAIT', 'LAST_ACK', 'LISTEN', 'CLOSING'];

/**
 * The BSD-layer `struct socket` of a Sock (what sock_sendmsg/sock_recvmsg/sock_*_iter take and
 * a socket file's private_data points to): laid out by net/layout.ts when a probe reads it.
 */
export class SocketView {
  constructor(readonly sk: Sock) {}
  /** socket_state: SS_UNCONNECTED 1, SS_CONNECTING 2, SS_CONNECTED 3, SS_DISCONNECTING 4 */
  get ssState(): number {
    const s = this.sk;
    if (s.isUnix) return s.peer ? 3 : 1;
    if (s.type !== 1) return s.dport ? 3 : 1;
    if (s.state === TCP_SYN_SENT) return 2;
    if (s.state === TCP_CLOSE || s.listening) return 1;
    return s.finSent ? 4 : 3;
  }
}
const socketViews = new WeakMap<Sock, SocketView>();
export function socketView(s: Sock): SocketView {
  let v = socketViews.get(s);
  if (!v) socketViews.set(s, (v = new SocketView(s)));
  return v;
}
