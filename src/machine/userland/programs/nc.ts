/**
 * netcat-openbsd 1.219 (Debian 12's `nc`): a TCP or UDP (-u) client, or a server (-l), copying stdin
 * to the socket and the socket to stdout in its poll loop (netcat.c readwrite: four pollfds, stdin in,
 * net out, net in, stdout out; 16 KiB buffers), -w SECS the poll timeout once stdin is done, -W N
 * exit after N packets received, -q SECS (accepted; the machine's runs end by -w or the peer).
 *
 * System calls as the real binary's (strace of the real guest, data/recordings/udp): SIGPIPE ignored,
 * malloc's start; a client resolves the port through getaddrinfo (the services database: nscd,
 * nsswitch.conf, the libnss_db dlopen, /etc/services), makes a non-blocking socket (fcntl F_GETFL /
 * F_SETFL), connects and puts the flags back; a UDP server sets SO_REUSEADDR and SO_REUSEPORT, binds,
 * waits for the first datagram with recvfrom(MSG_PEEK) and connects to its sender.  Then the poll
 * loop: read(0) / write(net) / read(net) / write(1); stdin's end (read 0 or POLLHUP) closes its slot,
 * a UDP net-in slot closes after -W packets with shutdown(SHUT_RD), and the loop ends when nothing
 * is left to poll or the -w timeout passes with stdin done.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { servicesLookup } from '../libc_nss';

type G<T> = Generator<Op, T, SysResult>;
const AF_INET = 2, SOCK_STREAM = 1, SOCK_DGRAM = 2, IPPROTO_TCP = 6, IPPROTO_UDP = 17, SOCK_NONBLOCK = 0o4000;
const SOL_SOCKET = 1, SO_REUSEADDR = 2, SO_REUSEPORT = 15;
const F_GETFL = 3, F_SETFL = 4, MSG_PEEK = 2, SHUT_RD = 0, SIGPIPE = 13;
const POLLIN = 0x1, POLLOUT = 0x4, POLLHUP = 0x10;
const BUFSIZE = 16384, EAGAIN = 11;

interface Opts { udp: boolean; listen: boolean; timeoutMs: number; recvLimit: number; host: string; port: number }

function parse(argv: string[]): Opts | string {
  const o: Opts = { udp: false, listen: false, timeoutMs: -1, recvLimit: -1, host: '', port: 0 };
  const pos: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '-') { pos.push(a); continue; }
    for (let k = 1; k < a.length; k++) {
      const c = a[k];
      const val = (): string => { const v = a.slice(k + 1) || argv[++i] || ''; k = a.length; return v; };
      if (c === 'u') o.udp = true;
      else if (c === 'l') o.listen = true;
      else if (c === 'w') o.timeoutMs = Number(val()) * 1000;
      else if (c === 'W') o.recvLimit = Number(val());
      else if (c === 'q' || c === 's' || c === 'p' || c === 'i' || c === 'T' || c === 'I' || c === 'O' || c === 'V') val();
      else if ('nvzkdDNbCFh46tr'.includes(c)) { /* accepted, no effect on the machine's loopback */ }
      else return `nc: invalid option -- '${c}'`;
    }
  }
  if (pos.length < 1 || pos.length > 2) return 'usage: nc [-46CDdFhklNnrStUuvZz] [-I length] [-i interval] [-M ttl]';
  o.port = Number(pos[pos.length - 1]);
  o.host = pos.length === 2 ? pos[0] : '';
  if (!Number.isInteger(o.port) || o.port <= 0 || o.port > 65535) return `nc: port number invalid: ${pos[pos.length - 1]}`;
  return o;
}

/** readwrite(): the poll loop between stdin/stdout and the socket */
function* readwrite(u: U, net: number, o: Opts): G<void> {
  // pfd: stdin in, net out, net in, stdout out
  const fds = [0, net, net, 1];
  let toNet: Uint8Array | null = null, toOut: Uint8Array | null = null;
  let received = 0;
  let stdinDone = false;
  for (;;) {
    if (fds.every((f) => f < 0)) return;
    // once stdin is done the client's -w applies (netcat: timeout = -1 while stdin is open, unless -w)
    const events = [toNet ? 0 : POLLIN, toNet ? POLLOUT : 0, toOut ? 0 : POLLIN, toOut ? POLLOUT : 0];
    if (fds[0] < 0 && fds[2] < 0 && !toOut) return;
    const pfds = fds.map((f, i) => [f, events[i]] as [number, number]);
    const r = yield* u.sys('poll', [0, 4, o.timeoutMs], { pfds });
    if (r.ret === 0) return; // -w timeout
    if (r.ret < 0) continue;
    const rev = (r.info?.revents as number[] | undefined) ?? [];
    if (fds[0] >= 0 && rev[0] & POLLIN) {
      const rd = yield* u.read(0, BUFSIZE);
      if (rd.ret <= 0) { fds[0] = -1; stdinDone = true; } else toNet = rd.data ?? null;
    } else if (fds[0] >= 0 && rev[0] & POLLHUP) { fds[0] = -1; stdinDone = true; }
    if (fds[2] >= 0 && rev[2] & POLLIN) {
      const rd = yield* u.read(net, BUFSIZE);
      if (rd.ret === 0 || (rd.ret < 0 && rd.ret !== -EAGAIN)) fds[2] = -1;
      else if (rd.ret > 0) {
        toOut = rd.data ?? null;
        received++;
        if (o.udp && o.recvLimit > 0 && received >= o.recvLimit) {
          yield* u.sys('shutdown', [net, SHUT_RD]);
          fds[2] = -1;
          // the net-out slot goes with the net-in one once nothing is pending
          if (!toNet) fds[1] = -1;
          if (stdinDone) fds[0] = -1;
        }
      }
    }
    if (toNet && fds[1] >= 0 && rev[1] & POLLOUT) { yield* u.write(net, toNet); toNet = null; }
    if (toOut && rev[3] & POLLOUT) {
      yield* u.write(1, toOut);
      toOut = null;
      if (fds[2] < 0 && fds[0] < 0) return;
    }
    void stdinDone;
  }
}

export const nc: ProgramMain = function* (u, argv) {
  const o = parse(argv);
  if (typeof o === 'string') { yield* u.err(`${o}\n`); return 1; }
  yield* u.sigaction(SIGPIPE, 'ignore');
  yield* u.malloc();
  const type = o.udp ? SOCK_DGRAM : SOCK_STREAM, proto = o.udp ? IPPROTO_UDP : IPPROTO_TCP;
  if (o.listen) {
    const s = yield* u.socket(AF_INET, type, proto);
    if (s < 0) return 1;
    yield* u.sys('setsockopt', [s, SOL_SOCKET, SO_REUSEADDR, 0, 4], { value: 1 });
    yield* u.sys('setsockopt', [s, SOL_SOCKET, SO_REUSEPORT, 0, 4], { value: 1 });
    if ((yield* u.bind(s, o.port)) < 0) { yield* u.err('nc: Address already in use\n'); return 1; }
    let conn = s;
    if (o.udp) {
      // wait for the first datagram, then talk to its sender only
      const p = yield* u.sys('recvfrom', [s, 0, 2048, MSG_PEEK, 0, 0]);
      if (p.ret < 0) return 1;
      const from = Number((p.info as { port?: number } | undefined)?.port ?? 0);
      yield* u.connect(s, from);
    } else {
      yield* u.listen(s, 1);
      conn = yield* u.accept(s);
      if (conn < 0) return 1;
      yield* u.close(s);
    }
    yield* readwrite(u, conn, o);
    yield* u.close(conn);
    yield* u.close(conn);
    return 0;
  }
  yield* servicesLookup(u);
  const s = yield* u.socket(AF_INET, type | SOCK_NONBLOCK, proto);
  if (s < 0) return 1;
  const fl = (yield* u.sys('fcntl', [s, F_GETFL])).ret;
  yield* u.sys('fcntl', [s, F_SETFL, fl]);
  const rc = yield* u.connect(s, o.port);
  yield* u.sys('fcntl', [s, F_SETFL, fl]);
  if (rc < 0 && rc !== -115) {
    yield* u.close(s);
    if (!argv.includes('-z')) yield* u.err(`nc: connect to ${o.host || '127.0.0.1'} port ${o.port} (${o.udp ? 'udp' : 'tcp'}) failed: Connection refused\n`);
    return 1;
  }
  yield* readwrite(u, s, o);
  yield* u.close(s);
  return 0;
};
