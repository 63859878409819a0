/**
 * The BSD socket layer (net/socket.c, net/ipv4/af_inet.c): socket(), bind(), listen(), accept(),
 * the wait for received data, the sockets closed by their last fd (sock_close), the sizes the
 * sendmsg/recvmsg functions take, and what the socket-layer functions return.
 */
import type { NetMachine } from './core';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_AGAIN } from '../paths/kexec';
import { installFd, fdOf } from '../include/fdtable';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import {
  Sock, AF_INET, AF_UNIX, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, TCP_ESTABLISHED,
  TCP_FIN_WAIT1, TCP_FIN_WAIT2, TCP_CLOSE, TCP_LISTEN,
} from '../include/net';
import { syncSock } from './layout';
import { sockOf, sockFile, fail, change, unwait, sleepOn, sigPending, nonblock, rxCount, rxReady } from './sock';

const EPERM = 1, EINTR = 4, EACCES = 13, EBADF = 9, EAGAIN = 11, EINVAL = 22, EAFNOSUPPORT = 97, EADDRINUSE = 98, ENOTSOCK = 88,
  EPROTONOSUPPORT = 93, EOPNOTSUPP = 95;
const O_NONBLOCK = 0o4000;

export const netSocket = new Semantics<NetMachine>('net/socket');

/** socket(2) runs its recorded trees for every family but AF_UNIX (paths/syscall.ts RECORDED_WHEN) */
netSocket.cond('recorded_socket', (_m, _c, _t, e) => e.a[0] !== AF_UNIX);
netSocket.hook('sock_new', (m, _c, t, e) => {
  const [domain, type0, proto0] = e.a as number[];
  // an AF_UNIX socket made by unix_create (net/unix.ts): its file and descriptor
  if (domain === AF_UNIX) {
    if (!e.err) e.ret = installFd(t, sockFile(m, e.sock as Sock, 2 | (type0 & O_NONBLOCK)));
    return H_CONT;
  }
  if (domain !== AF_INET) return fail(e, EAFNOSUPPORT);
  const type = type0 & 0xf;
  let proto = proto0;
  if (type === SOCK_STREAM) { if (proto && proto !== IPPROTO_TCP) return fail(e, EPROTONOSUPPORT); proto = IPPROTO_TCP; }
  else if (type === SOCK_DGRAM) {
    if (proto && proto !== IPPROTO_UDP && proto !== IPPROTO_ICMP) return fail(e, EPROTONOSUPPORT);
    // ping sockets (ping_init_sock): Debian 12's net.ipv4.ping_group_range is "1 0", no group may open one
    if (proto === IPPROTO_ICMP) return fail(e, EACCES);
    proto = proto || IPPROTO_UDP;
  }
  else if (type === SOCK_RAW) { if (t.euid !== 0) return fail(e, EPERM); if (proto !== IPPROTO_ICMP) return fail(e, EPROTONOSUPPORT); }
  else return fail(e, EINVAL);
  const s = new Sock(type, proto);
  if (s.isIcmp) m.net.raw.push(s);
  e.sock = s;
  e.sk = s;
  e.ret = installFd(t, sockFile(m, s, 2 | (type0 & O_NONBLOCK)));
  return H_CONT;
});

netSocket.hook('sock_lookup', (_m, _c, t, e) => {
  const f = t.proc.fds[Number(e.a[0])] ?? null;
  if (!f) return fail(e, EBADF);
  if (!f.sock) return fail(e, ENOTSOCK);
  e.file = f;
  e.sock = f.sock;
  e.sk = f.sock;
  return H_CONT;
});

netSocket.hook('sock_bind', (m, _c, _t, e) => {
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

netSocket.hook('sock_listen', (m, _c, _t, e) => {
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

netSocket.hook('sock_accept_wait', (_m, _c, t, e) => {
  const s = sockOf(e)!;
  unwait(s, t);
  if (!s.listening) return fail(e, EINVAL);
  // inet_csk_accept() takes the request off the queue and returns its child socket
  if (s.acceptq.length) { e.child = s.acceptq.shift()!; return H_CONT; }
  if (nonblock(e)) return fail(e, EAGAIN);
  if (sigPending(t)) return fail(e, EINTR);
  return sleepOn(t, s.readWait, 'inet_csk_accept');
});
netSocket.hook('sock_accept', (m, _c, t, e) => {
  if (e.err) return H_CONT;
  const child = e.child as Sock;
  // accept4's SOCK_NONBLOCK (= O_NONBLOCK) gives the new file O_NONBLOCK
  e.ret = installFd(t, sockFile(m, child, 2 | (e.name === 'accept4' ? Number(e.a[3] ?? 0) & O_NONBLOCK : 0)));
  e.accepted = true;
  e.info = { port: child.dport };
  return H_CONT;
});

/**
 * The wait of a receive on the path's socket for data (sk_wait_data, __skb_wait_for_more_packets):
 * H_CONT when it can go on (data, end of file, an error, a TCP socket no longer connected), else
 * EAGAIN, EINTR, or asleep on the socket's readers (the caller re-runs after a wakeup).
 */
export function sockWaitRx(t: Task, e: Env): number {
  const s = sockOf(e)!;
  unwait(s, t);
  if (rxReady(s, e)) return H_CONT;
  if (s.isTcp && s.state !== TCP_ESTABLISHED && s.state !== TCP_FIN_WAIT1 && s.state !== TCP_FIN_WAIT2) return H_CONT;
  if (nonblock(e)) return fail(e, EAGAIN);
  if (sigPending(t)) return fail(e, EINTR);
  return sleepOn(t, s.readWait, s.isTcp ? 'sk_wait_data' : '__skb_wait_for_more_packets');
}
netSocket.hook('sock_wait_rx', (_m, _c, t, e) => sockWaitRx(t, e));
netSocket.hook('sock_release_pop', (m, _c, _t, e) => {
  const s = m.net.toRelease.shift();
  if (!s) return H_CONT;
  e.sock = s;
  e.sk = s;
  return H_CONT;
});
netSocket.hook('sock_release_all', (m, c) => {
  const s = m.net.toRelease.shift();
  if (!s) return H_CONT;
  pushPath(c.ks, 'sock_fput', newEnv('close', { sock: s, sk: s }));
  return H_AGAIN;
});
// the sockets whose last file reference went (an exit's files): released by the deferred fput
netSocket.at('task_work_run', 'sock_release_all');
/** sizes the sendmsg/recvmsg functions get as arguments ($size, $len, $flags) */
export function sockArgs(e: Env): void {
  const buf = e.buf as Uint8Array | undefined;
  const n = buf ? buf.length : rxCount(e);
  e.size = n;
  e.len = n;
  e.count = n;
  e.flags = e.name === 'sendto' || e.name === 'recvfrom' ? Number(e.a[3]) : e.name === 'sendmsg' || e.name === 'recvmsg' ? Number(e.a[2]) : 0;
}
netSocket.hook('sock_args', (_m, _c, _t, e) => { sockArgs(e); return H_CONT; });

// what the socket layer functions return: the syscall's result (bytes, fd, 0 or -errno)
for (const fn of ['sock_sendmsg', 'sock_recvmsg', 'inet_sendmsg', 'inet_recvmsg', 'tcp_sendmsg', 'tcp_sendmsg_locked', 'tcp_recvmsg',
  'tcp_recvmsg_locked', 'udp_sendmsg', 'udp_recvmsg', 'raw_sendmsg', 'raw_recvmsg', 'sock_read_iter', 'sock_write_iter',
  '__sys_sendto', '__sys_recvfrom', '__sys_sendmsg', '__sys_recvmsg', '___sys_sendmsg', '___sys_recvmsg', '____sys_sendmsg',
  '____sys_recvmsg', '__sys_connect', '__sys_connect_file', 'inet_stream_connect', '__inet_stream_connect', 'inet_dgram_connect',
  '__sys_accept4', 'do_accept', 'inet_accept', '__sys_bind', 'inet_bind', '__inet_bind', '__sys_listen', 'inet_listen',
  '__sys_shutdown', 'inet_shutdown', '__sys_socket']) netSocket.fnRet(fn, (e) => e.ret);
/** struct sock *inet_csk_accept(): the accepted connection's sock, NULL on error */
netSocket.fnRet('inet_csk_accept', (e) => (e.err ? null : e.child ?? null));


/**
 * epoll_ctl(epfd, op, fd, event): the descriptor must be open (EBADF); the interest set itself is
 * what the program passes to each epoll_wait (fs/timerfd.ts), so there is nothing more to keep here.
 */
netSocket.syscall('epoll_ctl', (_m, _c, t, e) => {
  const EPOLL_CTL_ADD = 1, EPOLL_CTL_DEL = 2, EPOLL_CTL_MOD = 3;
  const op = Number(e.a[1]);
  if (!fdOf(t, e.a[2])) return fail(e, EBADF);
  if (op !== EPOLL_CTL_ADD && op !== EPOLL_CTL_DEL && op !== EPOLL_CTL_MOD) return fail(e, EINVAL);
  e.ret = 0;
  return H_CONT;
});

/**
 * sendfile(out_fd, in_fd, offset, count) to a TCP socket (do_sendfile -> splice -> tcp_sendpage): the
 * file's bytes from the offset (`off`, else the file position, which then moves) become the send's
 * data; the pages go out through the same tcp_send as sendmsg's.  Other destinations (a file, a pipe)
 * are not modelled: EINVAL.
 */
netSocket.hook('sendfile_prep', (_m, _c, t, e) => {
  const out = fdOf(t, e.a[0]), inf = fdOf(t, e.a[1]);
  if (!out || !inf) return fail(e, EBADF);
  const ino = inf.inode;
  if (!ino || !ino.isReg || !out.sock || !out.sock.isTcp) return fail(e, EINVAL);
  const usePos = e.off === undefined;
  const off = usePos ? inf.pos : Number(e.off);
  const n = Math.max(0, Math.min(Number(e.a[3]), ino.size - off));
  e.buf = ino.readBytes(off, n);
  if (usePos) inf.pos += n;
  e.file = out;
  e.sock = out.sock;
  e.sk = out.sock;
  e.size = n;
  e.count = n;
  e.info = { off: off + n };
  return H_CONT;
});
