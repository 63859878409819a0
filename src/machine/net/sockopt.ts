/**
 * Socket options and names (net/core/sock.c sock_setsockopt/sock_getsockopt, net/socket.c
 * __sys_getsockname, net/ipv4/ip_sockglue.c, net/ipv4/raw.c's ICMP_FILTER): setsockopt(2) keeps the
 * value per socket and level; SO_SNDBUF/SO_RCVBUF are doubled for the kernel's bookkeeping and read
 * back so (getsockopt), their defaults those of the Debian guest (sysctl net.core.wmem_default /
 * rmem_default: 212992); getsockname(2) gives the loopback address and the socket's port.
 */
import type { NetMachine } from './core';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { fdOf } from '../include/fdtable';
import type { Sock } from '../include/net';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';

const EBADF = 9, ENOTSOCK = 88, ENOPROTOOPT = 92, EINVAL = 22;
const SOL_SOCKET = 1, SO_SNDBUF = 7, SO_RCVBUF = 8, SOL_IP = 0, SOL_RAW = 255;
const SOCK_RAW = 3;
const BUF_DEFAULT = 212992, SOCK_MIN_SNDBUF = 4608, SOCK_MIN_RCVBUF = 2304, BUF_MAX = 212992;

export const netSockopt = new Semantics<NetMachine>('net/sockopt');

const options = new WeakMap<Sock, Map<string, number | Uint8Array>>();
function optsOf(s: Sock): Map<string, number | Uint8Array> {
  let o = options.get(s);
  if (!o) options.set(s, o = new Map());
  return o;
}

/** the socket on the call's descriptor, or null with e.ret set (EBADF, ENOTSOCK) */
function sockArg(t: Task, e: Env): Sock | null {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return null; }
  if (!f.sock) e.ret = -ENOTSOCK;
  return f.sock;
}

netSockopt.syscall('setsockopt', (_m, _c, t, e) => {
  const s = sockArg(t, e);
  if (!s) return H_CONT;
  const level = Number(e.a[1]), name = Number(e.a[2]);
  // the option value: an int given as `value`, or the bytes given as `buf`
  const v = e.value !== undefined ? Number(e.value) : (e.buf as Uint8Array | undefined) ?? 0;
  if (level === SOL_RAW && s.type !== SOCK_RAW) { e.ret = -ENOPROTOOPT; return H_CONT; }
  if (level !== SOL_SOCKET && level !== SOL_IP && level !== SOL_RAW && level !== 6 && level !== 17) { e.ret = -ENOPROTOOPT; return H_CONT; }
  if (level === SOL_SOCKET && (name === SO_SNDBUF || name === SO_RCVBUF)) {
    const n = Math.min(typeof v === 'number' ? v : 0, BUF_MAX) * 2;
    optsOf(s).set(`${level}:${name}`, Math.max(name === SO_SNDBUF ? SOCK_MIN_SNDBUF : SOCK_MIN_RCVBUF, n));
  } else optsOf(s).set(`${level}:${name}`, v);
  e.ret = 0;
  return H_CONT;
});

netSockopt.syscall('getsockopt', (_m, _c, t, e) => {
  const s = sockArg(t, e);
  if (!s) return H_CONT;
  const level = Number(e.a[1]), name = Number(e.a[2]);
  const v = optsOf(s).get(`${level}:${name}`);
  if (v === undefined && level === SOL_SOCKET && (name === SO_SNDBUF || name === SO_RCVBUF)) e.info = { value: BUF_DEFAULT };
  else if (v === undefined && level !== SOL_SOCKET) { e.ret = level === SOL_IP || level === SOL_RAW ? 0 : -EINVAL; e.info = { value: 0 }; return H_CONT; }
  else e.info = { value: v ?? 0 };
  e.ret = 0;
  return H_CONT;
});

netSockopt.syscall('getsockname', (_m, _c, t, e) => {
  const s = sockArg(t, e);
  if (!s) return H_CONT;
  e.info = { family: 2, addr: '127.0.0.1', port: s.port };
  e.ret = 0;
  return H_CONT;
});
