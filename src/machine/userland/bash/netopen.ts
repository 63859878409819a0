/**
 * bash's /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT redirections (bash 5.2 lib/sh/netopen.c,
 * redir.c redir_special_open): the file named is not opened; bash makes a socket (AF_INET,
 * SOCK_STREAM with IPPROTO_TCP, or SOCK_DGRAM with IPPROTO_UDP) and connects it to HOST:PORT, the
 * numeric address and port taken as they are (strace of Debian 12's bash 5.2.15 running
 * `exec 3<>/dev/tcp/127.0.0.1/80`: socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 3, connect(3,
 * {sin_port=htons(80), sin_addr=127.0.0.1}, 16) = 0).  A failed connect closes the socket and bash
 * reports `bash: connect: Connection refused` then `bash: /dev/tcp/HOST/PORT: Connection refused`.
 * The machine has loopback only: HOST must be 127.x.x.x or localhost.
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';

const AF_INET = 2, SOCK_STREAM = 1, SOCK_DGRAM = 2, IPPROTO_TCP = 6, IPPROTO_UDP = 17;
const ECONNREFUSED = 111, ENETUNREACH = 101;

/** the redirection target as bash's special file, or null for an ordinary file */
export function netPath(target: string): { udp: boolean; host: string; port: number } | null {
  const m = /^\/dev\/(tcp|udp)\/([^/]+)\/([^/]+)$/.exec(target);
  if (!m) return null;
  return { udp: m[1] === 'udp', host: m[2], port: Number(m[3]) };
}

/** netopen: the connected socket's descriptor, or -1 after bash's messages on stderr */
export function* netOpen(u: U, target: string, shellName: string): Generator<Op, number, SysResult> {
  const p = netPath(target)!;
  const loop = p.host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(p.host);
  if (!Number.isInteger(p.port) || p.port < 0 || p.port > 65535) {
    yield* u.err(`${shellName}: ${p.host}: Servname not supported for ai_socktype\n${shellName}: ${target}: Invalid argument\n`);
    return -1;
  }
  const fd = yield* u.socket(AF_INET, p.udp ? SOCK_DGRAM : SOCK_STREAM, p.udp ? IPPROTO_UDP : IPPROTO_TCP);
  if (fd < 0) return -1;
  const rc = loop ? yield* u.connect(fd, p.port) : -ENETUNREACH;
  if (rc < 0) {
    yield* u.close(fd);
    const why = rc === -ECONNREFUSED ? 'Connection refused' : 'Network is unreachable';
    yield* u.err(`${shellName}: connect: ${why}\n${shellName}: ${target}: ${why}\n`);
    return -1;
  }
  return fd;
}
