/**
 * tbench's socket backend (dbench 4.0 sockio.c, socklib.c) and its server, tbench_srv (tbench_srv.c),
 * as strace of Debian 12's binaries shows them (data/recordings/tbench.json.gz):
 *   client nb_setup: socket, gethostbyname(SERVER) (the resolver's configuration, /etc/hosts for a
 *   name), the -T socket options (default "TCP_NODELAY SO_REUSEADDR": setsockopt SOL_TCP TCP_NODELAY,
 *   SOL_SOCKET SO_REUSEADDR), connect to port 7003, the options again, one 8-byte exchange.
 *   Each operation is one SMB-like exchange (do_packets): send of the request (its size from the
 *   operation, the header [request size - 4, reply size - 4]), recv of the 4-byte reply header
 *   (MSG_WAITALL), recv of the rest with MSG_WAITALL|MSG_TRUNC (TCP discards it: nothing copied).
 *   Deltree and the cleanup send nothing.
 *   tbench_srv: socket, SO_REUSEADDR, bind 0.0.0.0:7003, its options, listen(20), "waiting for
 *   connections" on stdout, SIGCHLD ignored, then per connection (waitpid WNOHANG reaping first) accept
 *   and fork: the child ignores SIGPIPE, prints "^" (flushing what the parent had buffered), and answers
 *   each request (recv header, recv body, send the asked-for reply) until the peer closes.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Prog } from '../../include/sched';
import { gethostbyname } from '../libc_nss';
import { errStr } from '../libc_strerror';
import type { Child, G, NbClient, OpName } from './dbench_child';
import { ival } from './dbench_child';

export const TCP_PORT = 7003;
/** dbench.h TCP_OPTIONS: the default -T */
export const TCP_OPTIONS = 'TCP_NODELAY SO_REUSEADDR';
const AF_INET = 2, SOCK_STREAM = 1, MSG_WAITALL = 0x100, MSG_TRUNC = 0x20, SIGPIPE = 13, SIGCHLD = 17;
const SOL_SOCKET = 1, IPPROTO_TCP = 6, IPPROTO_IP = 0;
/** sizeof(struct sockio)'s buffer, and tbench_srv's */
const BUF = 70000;

/** socklib.c socket_options: name, level, option, value of OPT_ON, type */
const SOCKET_OPTIONS: readonly [string, number, number, number, 'bool' | 'int' | 'on'][] = [
  ['SO_KEEPALIVE', SOL_SOCKET, 9, 0, 'bool'], ['SO_REUSEADDR', SOL_SOCKET, 2, 0, 'bool'], ['SO_BROADCAST', SOL_SOCKET, 6, 0, 'bool'],
  ['TCP_NODELAY', IPPROTO_TCP, 1, 0, 'bool'], ['IPTOS_LOWDELAY', IPPROTO_IP, 1, 0x10, 'on'], ['IPTOS_THROUGHPUT', IPPROTO_IP, 1, 0x08, 'on'],
  ['SO_SNDBUF', SOL_SOCKET, 7, 0, 'int'], ['SO_RCVBUF', SOL_SOCKET, 8, 0, 'int'], ['SO_SNDLOWAT', SOL_SOCKET, 19, 0, 'int'],
  ['SO_RCVLOWAT', SOL_SOCKET, 18, 0, 'int'], ['SO_SNDTIMEO', SOL_SOCKET, 21, 0, 'int'], ['SO_RCVTIMEO', SOL_SOCKET, 20, 0, 'int'],
];

/** set_socket_options: each token of `opts` (NAME or NAME=VALUE) as one setsockopt */
function* setSocketOptions(u: U, fd: number, opts: string): G<void> {
  for (const tok of opts.split(/[ \t,]+/).filter(Boolean)) {
    const eq = tok.indexOf('=');
    const name = eq >= 0 ? tok.slice(0, eq) : tok;
    const value = eq >= 0 ? Number.parseInt(tok.slice(eq + 1), 10) || 0 : 1;
    const o = SOCKET_OPTIONS.find(([n]) => n.toLowerCase() === name.toLowerCase());
    if (!o) { yield* u.err(`Unknown socket option ${name}\n`); continue; }
    if (o[4] === 'on' && eq >= 0) yield* u.err(`syntax error - ${name} does not take a value\n`);
    const r = yield* u.sys('setsockopt', [fd, o[1], o[2], 0, 4], { value: o[4] === 'on' ? o[3] : value });
    if (r.ret !== 0) yield* u.err(`Failed to set socket option ${name}\n`);
  }
}

/** write_sock: send until all of buf went (or an error / nothing sent) */
function* writeSock(u: U, fd: number, buf: Uint8Array): G<number> {
  let total = 0;
  while (total < buf.length) {
    const r = yield* u.send(fd, buf.subarray(total));
    if (r <= 0) { if (r < 0) yield* u.err(`send: ${errStr(r)}\n`); break; }
    total += r;
  }
  return total;
}
/** read_sock: recv(MSG_WAITALL) until size bytes came into buf at off (or end of file / an error) */
function* readSock(u: U, fd: number, buf: Uint8Array, off: number, size: number): G<number> {
  let total = 0;
  while (total < size) {
    const r = yield* u.recv(fd, size - total, MSG_WAITALL);
    if (r.ret <= 0) { if (r.ret < 0) yield* u.err(`recv: ${errStr(r.ret)}\n`); break; }
    if (r.data) buf.set(r.data.subarray(0, Math.min(r.data.length, buf.length - off - total)), off + total);
    total += r.ret;
  }
  return total;
}
const getU32 = (b: Uint8Array, o: number): number => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
const putU32 = (b: Uint8Array, o: number, v: number): void => { b[o] = v >>> 24; b[o + 1] = (v >>> 16) & 255; b[o + 2] = (v >>> 8) & 255; b[o + 3] = v & 255; };

/** nb_setup of the socket backend; null (after "client N failed to start") when it cannot connect */
export function* sockioClient(u: U, child: Child, server: string, tcpOptions: string): G<NbClient | null> {
  const buf = new Uint8Array(BUF);
  // open_socket_out
  const fd = yield* u.socket(AF_INET, SOCK_STREAM, 0);
  let ok = fd >= 0;
  if (ok) {
    const addr = yield* gethostbyname(u, server);
    if (!addr) { yield* u.err(`unknown host: ${server}\n`); ok = false; } else {
      yield* setSocketOptions(u, fd, tcpOptions);
      // the loopback-only machine routes 127/8 and nothing else
      const rc = addr.startsWith('127.') ? yield* u.connect(fd, TCP_PORT) : -101;
      if (rc < 0) {
        yield* u.close(fd);
        yield* u.err(`failed to connect to ${server} - ${errStr(rc)}\n`);
        ok = false;
      }
    }
  }
  if (!ok) { yield* u.printf(`client ${child.id} failed to start\n`); return null; }
  yield* setSocketOptions(u, fd, tcpOptions);

  /** do_packets: one exchange; false when it failed (the client has exited 1 then) */
  const packets = function* (send: number, recv: number): G<boolean> {
    putU32(buf, 0, send - 4);
    putU32(buf, 4, recv - 4);
    if ((yield* writeSock(u, fd, buf.subarray(0, send))) !== send) { yield* u.printf(`error writing ${send} bytes\n`); return false; }
    if ((yield* readSock(u, fd, buf, 0, 4)) !== 4) { yield* u.printf('error reading header\n'); return false; }
    if (getU32(buf, 0) !== recv - 4) { yield* u.printf(`lost sync (${recv - 4} ${getU32(buf, 0) | 0})\n`); return false; }
    const r = yield* u.recv(fd, recv - 4, MSG_WAITALL | MSG_TRUNC);
    if (r.ret !== recv - 4) { yield* u.printf(`error reading ${recv - 4} bytes\n`); return false; }
    return true;
  };
  if (!(yield* packets(8, 8))) return null;

  const utf16 = (s: string): number => 2 * s.length;
  const op = function* (params: readonly string[], fname: string, fname2: string): G<OpName | null> {
    let name: OpName, send: number, recv: number;
    switch (params[0]) {
      case 'NTCreateX': name = 'NTCreateX'; send = 70 + 2 + utf16(fname) + 2; recv = 39 + 12 * 4; break;
      case 'Close': name = 'Close'; send = 39 + 8; recv = 39; break;
      case 'Rename': name = 'Rename'; send = 39 + 8 + utf16(fname) + utf16(fname2); recv = 39; break;
      case 'Unlink': name = 'Unlink'; send = 39 + 2 + utf16(fname) + 2; recv = 39; break;
      case 'Deltree': return 'Deltree';
      case 'Rmdir': name = 'Rmdir'; send = 39 + 2 + utf16(fname) + 2; recv = 39; break;
      case 'Mkdir': name = 'Mkdir'; send = 39 + 2 + utf16(fname) + 2; recv = 39; break;
      case 'QUERY_PATH_INFORMATION': name = 'Qpathinfo'; send = 39 + 16 + utf16(fname); recv = 39 + 32; break;
      case 'QUERY_FILE_INFORMATION': name = 'Qfileinfo'; send = 39 + 20; recv = 39 + 32; break;
      case 'QUERY_FS_INFORMATION': name = 'Qfsinfo'; send = 39 + 20; recv = 39 + 32; break;
      case 'SET_FILE_INFORMATION': name = 'Sfileinfo'; send = 39 + 32; recv = 39 + 8; break;
      case 'FIND_FIRST': name = 'Find'; send = 39 + 20 + utf16(fname); recv = 39 + 90 * ival(params[4]); break;
      case 'WriteX': name = 'WriteX'; send = 39 + 20 + ival(params[3]); recv = 39 + 16; child.bytes += ival(params[3]); break;
      case 'ReadX': name = 'ReadX'; send = 39 + 20; recv = 39 + 20 + ival(params[4]); child.bytes += ival(params[4]); break;
      case 'LockX': name = 'LockX'; send = 39 + 12; recv = 39; break;
      case 'UnlockX': name = 'UnlockX'; send = 39 + 12; recv = 39; break;
      case 'Flush': name = 'Flush'; send = 39 + 2; recv = 39; break;
      default: return null;
    }
    // exit(1) when the exchange failed
    if (!(yield* packets(send, recv))) yield* u.exit(1);
    return name;
  };
  return {
    op,
    *cleanup() { /* nb_cleanup and nb_deltree of sockio.c send nothing */ },
  };
}

/** tbench_srv.c server(): one connection's requests answered until it closes */
function* serve(u: U, fd: number): Prog {
  const buf = new Uint8Array(BUF);
  yield* u.sigaction(SIGPIPE, 'ignore');
  yield* u.printf('^');
  yield* u.fflush();
  for (;;) {
    if ((yield* readSock(u, fd, buf, 0, 4)) !== 4) break;
    let n = getU32(buf, 0);
    if (n + 4 >= BUF) { yield* u.printf('overflow in server!\n'); yield* u.fflush(); return 1; }
    if ((yield* readSock(u, fd, buf, 4, n)) !== n) break;
    n = getU32(buf, 4);
    putU32(buf, 0, n);
    const out = n + 4 <= BUF ? buf.subarray(0, n + 4) : (() => { const b = new Uint8Array(n + 4); b.set(buf); return b; })();
    if ((yield* writeSock(u, fd, out)) !== n + 4) break;
  }
  yield* u.fflush();
  return 0;
}

/** tbench_srv [-t OPTIONS] */
export const tbenchSrv: ProgramMain = function* (u, argv) {
  let tcpOptions = TCP_OPTIONS;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-t') tcpOptions = argv[++i] ?? '';
    else if (a.startsWith('-t')) tcpOptions = a.slice(2);
    else if (a.startsWith('-')) {
      yield* u.err(`tbench_srv: invalid option -- '${a[1] ?? ''}'\n`);
      yield* u.printf('usage: tbench_srv [OPTIONS]\noptions:\n  -t options       set socket options\n');
      yield* u.fflush();
      return 1;
    }
  }
  // open_socket_in
  let sock = yield* u.socket(AF_INET, SOCK_STREAM, 0);
  if (sock < 0) { yield* u.err('socket failed\n'); } else {
    yield* u.sys('setsockopt', [sock, SOL_SOCKET, 2, 0, 4], { value: 1 });
    if ((yield* u.bind(sock, TCP_PORT)) < 0) sock = -1;
    else yield* setSocketOptions(u, sock, tcpOptions);
  }
  if ((yield* u.listen(sock, 20)) < 0) { yield* u.err('listen failed\n'); return 1; }
  yield* u.printf('waiting for connections\n');
  yield* u.sigaction(SIGCHLD, 'ignore');
  for (;;) {
    for (;;) { const [r] = yield* u.wait(-1, true); if (r <= 0) break; }
    const fd = (yield* u.sys('accept', [sock, 0, 16])).ret;
    if (fd >= 0) {
      yield* u.fork(function* (cu: U): Prog {
        cu.inheritStdio(u);
        return yield* serve(cu, fd);
      });
      yield* u.close(fd);
    }
  }
};
