/**
 * iputils ping 20221126 (Debian 12) over the loopback, with the system calls strace shows for the
 * real binary (data/recordings/ping.json.gz): libcap's probe of the bounding set (PR_CAPBSET_READ,
 * a binary search for CAP_LAST_CAP), the capabilities limited to CAP_NET_RAW/CAP_NET_ADMIN across a
 * setuid with PR_SET_KEEPCAPS, CAP_NET_RAW raised for the sockets (an ICMP datagram socket first,
 * refused by net.ipv4.ping_group_range, then a raw one; IPv4 then IPv6) and dropped again; the
 * source address found by connecting a UDP socket (getsockname); the raw socket's options
 * (ICMP_FILTER, IP_RECVERR, SO_SNDBUF, SO_RCVBUF read back, SO_TIMESTAMP, SO_SNDTIMEO/RCVTIMEO);
 * SIGINT/SIGALRM/SIGQUIT handlers; the terminal's size; all capabilities dropped; then each echo
 * request sent, its reply received (recvmsg) and printed through stdio, the rest of the interval
 * waited.  The machine has no poll(2): the interval is slept with clock_nanosleep; no IPv6: the
 * ICMPv6 socket fails (EAFNOSUPPORT) and ping goes on with IPv4 as the real one does.
 */
import type { ProgramMain } from '../../process/user';
import { libcapInit } from '../libcap';

const AF_INET = 2, AF_INET6 = 10, SOCK_DGRAM = 2, SOCK_RAW = 3, IPPROTO_ICMP = 1, IPPROTO_ICMPV6 = 58;
const PR_SET_KEEPCAPS = 8;
const CAP_NET_ADMIN = 12, CAP_NET_RAW = 13;
const SOL_SOCKET = 1, SOL_IP = 0, SOL_RAW = 255, ICMP_FILTER = 1, IP_RECVERR = 11;
const SO_SNDBUF = 7, SO_RCVBUF = 8, SO_TIMESTAMP = 29, SO_SNDTIMEO = 21, SO_RCVTIMEO = 20;
const EACCES = 13, EPERM = 1, EPROTONOSUPPORT = 93, EAFNOSUPPORT = 97;
const SEND_ERRORS: Record<number, string> = { 1: 'Operation not permitted', 22: 'Invalid argument', 105: 'No buffer space available' };
const bit = (cap: number): number => 2 ** cap;

export const ping: ProgramMain = function* (u, argv) {
  let count = Infinity, interval = 1, quiet = false, size = 56;
  let host = '';
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const val = () => (a.length > 2 ? a.slice(2) : argv[++i]);
    if (a.startsWith('-c')) count = Number(val());
    else if (a.startsWith('-i')) interval = Number(val());
    else if (a.startsWith('-s')) size = Number(val());
    else if (a === '-q') quiet = true;
    else if (a.startsWith('-')) { /* other options: defaults */ }
    else host = a;
  }
  yield* libcapInit(u);
  yield* u.malloc();
  const capget = function* (): Generator<import('../../include/sched').Op, { effective: number; permitted: number; inheritable: number }, import('../../include/sched').SysResult> {
    yield* u.sys('capget', [0, 0]);
    const r = yield* u.sys('capget', [0, 1]);
    return (r.info as { caps?: { effective: number; permitted: number; inheritable: number } } | undefined)?.caps ?? { effective: 0, permitted: 0, inheritable: 0 };
  };
  const capset = function* (effective: number, permitted: number): Generator<import('../../include/sched').Op, number, import('../../include/sched').SysResult> {
    return (yield* u.sys('capset', [0, 1], { caps: { effective, permitted, inheritable: 0 } })).ret;
  };
  // limit_capabilities: keep CAP_NET_ADMIN and CAP_NET_RAW permitted, none effective; then the uid
  const caps = yield* capget();
  yield* u.sys('capget', [0, 0]);
  const keep = caps.permitted % bit(CAP_NET_RAW + 1) >= bit(CAP_NET_ADMIN) ? (bit(CAP_NET_ADMIN) + bit(CAP_NET_RAW)) : 0;
  yield* capset(0, keep);
  yield* u.sys('prctl', [PR_SET_KEEPCAPS, 1, 0, 0, 0]);
  const uid = (yield* u.sys('getuid', [])).ret;
  yield* u.sys('setuid', [uid]);
  yield* u.sys('prctl', [PR_SET_KEEPCAPS, 0, 0, 0, 0]);
  yield* u.sys('getuid', []);
  if (!host) { yield* u.err('ping: usage error: Destination address required\n'); return 2; }
  if (!(count > 0)) { yield* u.err(`ping: invalid argument: '${count}': out of range: 1 <= value <= 9223372036854775807\n`); return 1; }
  const names: Record<string, string> = { localhost: '127.0.0.1', 'ip6-localhost': '127.0.0.1', [u.m.hostname]: '127.0.1.1' };
  const addr = names[host] ?? host;
  // other names go to DNS: the nameserver of /etc/resolv.conf is off the loopback-only machine, so
  // the resolver's connect() fails (ENETUNREACH) before any packet leaves, and getaddrinfo gives EAI_AGAIN
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(addr)) { yield* u.err(`ping: ${host}: Temporary failure in name resolution\n`); return 2; }
  // enable_capability_raw, the sockets (create_socket: a ping socket, else a raw one), disable_capability_raw
  yield* capget();
  yield* capset(keep ? bit(CAP_NET_RAW) : 0, keep);
  const sock = function* (family: number, proto: number): Generator<import('../../include/sched').Op, [number, number], import('../../include/sched').SysResult> {
    const fd = yield* u.socket(family, SOCK_DGRAM, proto);
    if (fd === -EACCES || fd === -EPERM || fd === -EPROTONOSUPPORT || (fd === -EAFNOSUPPORT && family === AF_INET)) return [yield* u.socket(family, SOCK_RAW, proto), SOCK_RAW];
    return [fd, SOCK_DGRAM];
  };
  const [fd, type] = yield* sock(AF_INET, IPPROTO_ICMP);
  const [fd6] = yield* sock(AF_INET6, IPPROTO_ICMPV6);
  yield* capget();
  yield* capset(0, keep);
  if (fd < 0) { yield* u.err(`ping: socket: ${fd === -EPERM || fd === -EACCES ? 'Operation not permitted' : 'Address family not supported by protocol'}\n`); return 2; }
  // the source address: a UDP socket connected to the destination (port 1025), its name read
  const probe = yield* u.socket(AF_INET, SOCK_DGRAM, 0);
  if (probe >= 0) {
    const c = yield* u.connect(probe, 1025);
    if (c < 0) { yield* u.err('ping: connect: Network is unreachable\n'); return 2; }
    yield* u.sys('getsockname', [probe, 0, 16]);
    yield* u.close(probe);
  }
  if (!addr.startsWith('127.')) { yield* u.err('ping: connect: Network is unreachable\n'); return 2; }
  // ping4_run's socket set-up (ICMP_FILTER only on a raw socket: echo replies and errors pass)
  if (type === SOCK_RAW) yield* u.sys('setsockopt', [fd, SOL_RAW, ICMP_FILTER, 0, 4], { value: ~((1 << 0) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 11) | (1 << 12)) });
  yield* u.sys('setsockopt', [fd, SOL_IP, IP_RECVERR, 0, 4], { value: 1 });
  yield* u.sys('setsockopt', [fd, SOL_SOCKET, SO_SNDBUF, 0, 4], { value: size + 268 });
  yield* u.sys('setsockopt', [fd, SOL_SOCKET, SO_RCVBUF, 0, 4], { value: 65536 });
  yield* u.sys('getsockopt', [fd, SOL_SOCKET, SO_RCVBUF, 0, 4]);
  yield* u.printf(`PING ${host} (${addr}) ${size}(${size + 28}) bytes of data.\n`);
  yield* u.sys('setsockopt', [fd, SOL_SOCKET, SO_TIMESTAMP, 0, 4], { value: 1 });
  yield* u.sys('setsockopt', [fd, SOL_SOCKET, SO_SNDTIMEO, 0, 16], { buf: new Uint8Array(16) });
  yield* u.sys('setsockopt', [fd, SOL_SOCKET, SO_RCVTIMEO, 0, 16], { buf: new Uint8Array(16) });
  const id = (yield* u.getpid()) & 0xffff;
  let stop = false;
  yield* u.sigaction(2, () => { stop = true; });
  yield* u.sigaction(14, () => { stop = true; });
  yield* u.sigaction(3, () => undefined);
  yield* u.sys('rt_sigprocmask', [2, 1, 0, 8], { set: 0 });
  if (yield* u.isatty(1)) yield* u.sys('ioctl', [1, 0x5413, 0]);
  // drop_capabilities
  yield* u.sys('capget', [0, 0]);
  yield* capset(0, 0);
  void fd6;
  const label = host === addr ? addr : `${host} (${addr})`;
  const rtts: number[] = [];
  let sent = 0;
  const start = u.m.now;
  let lastRecv = start;
  for (let seq = 1; seq <= count && !stop; seq++) {
    const pkt = new Uint8Array(8 + size);
    pkt[0] = 8; pkt[4] = id >> 8; pkt[5] = id & 0xff; pkt[6] = (seq >> 8) & 0xff; pkt[7] = seq & 0xff;
    for (let i = 8; i < pkt.length; i++) pkt[i] = (i - 8) & 0xff;
    let sum = 0;
    for (let i = 0; i < pkt.length; i += 2) sum += (pkt[i] << 8) | (pkt[i + 1] ?? 0);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    sum = ~sum & 0xffff;
    pkt[2] = sum >> 8; pkt[3] = sum & 0xff;
    const t0 = u.m.now;
    const r = yield* u.sendto(fd, pkt, 0);
    sent++;
    // a refused send (a netfilter hook dropped the echo request: EPERM) is reported and counted
    if (r < 0) yield* u.err(`ping: sendmsg: ${SEND_ERRORS[-r] ?? `Unknown error ${-r}`}\n`);
    else for (;;) {
      const x = yield* u.recvmsg(fd, 192);
      if (x.ret < 0 || !x.data) break;
      const b = x.data;
      const off = (b[0] & 0xf) * 4;
      if (b[off] !== 0 || ((b[off + 4] << 8) | b[off + 5]) !== id) continue;
      const rseq = (b[off + 6] << 8) | b[off + 7];
      const t1 = u.m.now;
      lastRecv = t1;
      const ms = (t1 - t0) / 1e6;
      rtts.push(ms);
      const tm = ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : String(Math.round(ms));
      if (!quiet) yield* u.printf(`${x.ret - off} bytes from ${label}: icmp_seq=${rseq} ttl=${b[8]} time=${tm} ms\n`);
      break;
    }
    if (seq < count && !stop) {
      const wait = Math.round(interval * 1e9 - (u.m.now - t0));
      if (wait > 0) yield* u.nanosleep(wait);
    }
  }
  const recv = rtts.length;
  const loss = sent ? Math.round(((sent - recv) / sent) * 100) : 0;
  yield* u.printf('\n');
  yield* u.printf(`--- ${host} ping statistics ---\n`);
  yield* u.printf(`${sent} packets transmitted, ${recv} received, ${loss}% packet loss, time ${Math.round((lastRecv - start) / 1e6)}ms\n`);
  if (recv) {
    const min = Math.min(...rtts), max = Math.max(...rtts);
    const avg = rtts.reduce((a, b) => a + b, 0) / recv;
    const mdev = Math.sqrt(Math.max(0, rtts.reduce((a, b) => a + b * b, 0) / recv - avg * avg));
    yield* u.printf(`rtt min/avg/max/mdev = ${min.toFixed(3)}/${avg.toFixed(3)}/${max.toFixed(3)}/${mdev.toFixed(3)} ms\n`);
  }
  yield* u.closeStdout();
  return recv ? 0 : 1;
};
