/**
 * AF_UNIX sockets (net/unix/af_unix.c): socket(AF_UNIX, SOCK_STREAM | SOCK_DGRAM | SOCK_SEQPACKET),
 * bind to a path (a socket inode in the file system, EADDRINUSE when the path exists) or autobind,
 * listen/accept, connect (ENOENT when the path does not exist, ECONNREFUSED when it is not a socket
 * or nobody listens on it, EPROTOTYPE on a type mismatch), stream and datagram send/receive
 * between the two ends, shutdown and close (the peer then reads end of file, a datagram sender
 * gets ECONNREFUSED).  The call paths are the `unix_*` templates of paths/templates/net.ts.
 *
 * glibc reaches this on every getpwuid/getgrgid: nscd's socket (libc_nss.ts) is an AF_UNIX stream
 * socket whose connect to /var/run/nscd/socket fails with ENOENT on a box without nscd.
 */
import type { NetMachine } from './core';
import type { FsMachine } from '../fs/namei';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { Inode } from '../include/fs';
import { Sock, AF_UNIX, SOCK_STREAM, SOCK_DGRAM, TCP_ESTABLISHED, TCP_CLOSE, TCP_LISTEN, SKB_DROP_REASON_NOT_SPECIFIED } from '../include/net';
import { sockOf, fail, takeWaiters, sendBuf, rxCount, empty } from './sock';

type UnixMachine = NetMachine & FsMachine;

const ENOENT = 2, EINVAL = 22, EPIPE = 32, EAGAIN = 11, EADDRINUSE = 98, EISCONN = 106, ENOTCONN = 107, ECONNREFUSED = 111,
  EPROTOTYPE = 91, EOPNOTSUPP = 95, ESOCKTNOSUPPORT = 94, EPROTONOSUPPORT = 93;
const SOCK_SEQPACKET = 5;
const S_IFSOCK = 0o140000;
const SHUT_RD = 0, SHUT_WR = 1;
/** sk_max_ack_backlog past which connect waits (here: EAGAIN) */
const SOMAXCONN = 4096;

/** the socket bound at a socket inode (unix_find_bsd: d_backing_inode -> unix_find_socket_byinode) */
const boundAt = new WeakMap<Inode, Sock>();
let autobindSeq = 0;

export const netUnix = new Semantics<UnixMachine>('net/unix');

const isStream = (s: Sock): boolean => s.type === SOCK_STREAM || s.type === SOCK_SEQPACKET;
netUnix.cond('is_stream', (_m, _c, _t, e) => { const s = sockOf(e); return !!s && isStream(s); });
netUnix.cond('unix_named', (_m, _c, _t, e) => typeof e.path === 'string' && e.path !== '');

/** unix_create: the sock of a new AF_UNIX socket */
netUnix.hook('unix_new', (_m, _c, _t, e) => {
  const type = Number(e.a[1]) & 0xf, proto = Number(e.a[2]);
  if (proto && proto !== AF_UNIX) return fail(e, EPROTONOSUPPORT);
  if (type !== SOCK_STREAM && type !== SOCK_DGRAM && type !== SOCK_SEQPACKET) return fail(e, ESOCKTNOSUPPORT);
  const s = new Sock(type, 0);
  s.family = AF_UNIX;
  e.sock = s;
  e.sk = s;
  return H_CONT;
});

/** bind(2) to a path (a new socket inode, mode 0777 & ~umask) or, with no path, autobind's abstract name */
netUnix.hook('unix_bind', (m, _c, t, e) => {
  const s = sockOf(e)!;
  if (s.path) return fail(e, EINVAL);
  const p = typeof e.path === 'string' ? e.path : '';
  if (!p) { s.path = `\0${(++autobindSeq).toString(16).padStart(5, '0')}`; e.ret = 0; return H_CONT; }
  if (m.fs.lookup(p, t.proc.cwd, true)) return fail(e, EADDRINUSE);
  const pp = m.fs.lookupParent(p, t.proc.cwd);
  if (!pp) return fail(e, ENOENT);
  const ino = m.fs.mk(S_IFSOCK | (0o777 & ~t.proc.umask), pp.dir.fs);
  ino.uid = t.euid;
  m.fs.link(pp.dir, pp.name, ino);
  boundAt.set(ino, s);
  s.path = p;
  e.ret = 0;
  return H_CONT;
});

netUnix.hook('unix_listen', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (!isStream(s)) return fail(e, EOPNOTSUPP);
  if (!s.path || s.peer) return fail(e, EINVAL);
  s.backlogMax = Math.max(0, Math.min(SOMAXCONN, Number(e.a[1]) || 0));
  s.listening = true;
  s.state = TCP_LISTEN;
  e.ret = 0;
  return H_CONT;
});

/** unix_find_other: the socket bound at the path, else ENOENT / ECONNREFUSED / EPROTOTYPE */
netUnix.hook('unix_find', (m, _c, t, e) => {
  const s = sockOf(e)!;
  const p = typeof e.path === 'string' ? e.path : '';
  if (!p) return fail(e, EINVAL);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) return fail(e, ENOENT);
  if ((ino.mode & 0o170000) !== S_IFSOCK) return fail(e, ECONNREFUSED);
  const other = boundAt.get(ino);
  if (!other || other.closed) return fail(e, ECONNREFUSED);
  if (other.type !== s.type) return fail(e, EPROTOTYPE);
  e.other = other;
  return H_CONT;
});

/** the connection: a server-side sock queued on the listener's accept queue, both ends peers */
netUnix.hook('unix_stream_connect', (_m, _c, _t, e) => {
  // a connect that fails (no such socket, refused ...) frees the skb it allocated for the request with kfree_skb()
  e.dropReason = SKB_DROP_REASON_NOT_SPECIFIED;
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  if (s.peer) return fail(e, EISCONN);
  const other = e.other as Sock;
  if (!other.listening) return fail(e, ECONNREFUSED);
  if (other.acceptq.length >= Math.max(1, other.backlogMax)) return fail(e, EAGAIN);
  const child = new Sock(s.type, 0);
  child.family = AF_UNIX;
  child.path = other.path;
  child.peer = s;
  s.peer = child;
  child.state = s.state = TCP_ESTABLISHED;
  other.acceptq.push(child);
  takeWaiters(e, other, 'r');
  e.ret = 0;
  return H_CONT;
});

/**
 * connect(2) of an AF_UNIX stream socket to a path that does not exist (glibc's nscd connect on a box
 * without nscd: libc_nss.ts) runs its recorded trees (paths/syscall.ts RECORDED_WHEN): unix_stream_connect
 * makes the new sock and the request's skb, unix_find_other fails, both are freed, -ENOENT.  Other
 * connects keep the `unix_connect` template (their semantics sit on its lines).
 */
netUnix.cond('recorded_connect', (m, _c, t, e) => {
  const s = t.proc.fds[Number(e.a[0])]?.sock;
  return !!s && s.family === AF_UNIX && isStream(s) && !s.peer && typeof e.path === 'string' && e.path !== '' && !m.fs.lookup(e.path, t.proc.cwd);
});
netUnix.hook('connect_enoent', (_m, _c, t, e) => {
  const s = t.proc.fds[Number(e.a[0])]!.sock!;
  e.sock = s;
  e.sk = s;
  // (the request's skb freed with kfree_skb(): reason SKB_DROP_REASON_NOT_SPECIFIED, as unix_stream_connect's hook says)
  e.dropReason = SKB_DROP_REASON_NOT_SPECIFIED;
  return fail(e, ENOENT);
});

netUnix.hook('unix_dgram_connect', (_m, _c, _t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  s.peer = e.other as Sock;
  e.ret = 0;
  return H_CONT;
});

/** send: bytes onto the peer's receive queue (a datagram to the connected peer or the named one) */
netUnix.hook('unix_send', (m, _c, t, e) => {
  const s = sockOf(e)!;
  const buf = sendBuf(e);
  let to = s.peer;
  if (!isStream(s) && typeof e.path === 'string' && e.path) {
    const ino = m.fs.lookup(e.path, t.proc.cwd);
    if (!ino) return fail(e, ENOENT);
    to = boundAt.get(ino) ?? null;
    if (!to || to.type !== s.type) return fail(e, ECONNREFUSED);
  }
  if (!to) return fail(e, ENOTCONN);
  if (to.closed || (isStream(s) && s.finSent)) return fail(e, isStream(s) ? EPIPE : ECONNREFUSED);
  to.rx.push(Uint8Array.from(buf), 0);
  to.segsIn++;
  s.bytesSent += buf.length;
  s.segsOut++;
  takeWaiters(e, to, 'r');
  e.ret = buf.length;
  return H_CONT;
});

/** a stream socket that was never connected has nothing to wait for (unix_stream_read_generic: EINVAL) */
netUnix.hook('unix_recv_check', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (!s.peer && !s.rx.bytes && !s.rxEof && s.state !== TCP_ESTABLISHED) return fail(e, EINVAL);
  return H_CONT;
});

/** a stream read: what is queued, up to the size asked; end of file once the peer is gone */
netUnix.hook('unix_recv', (_m, _c, _t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  if (s.rx.bytes > 0) {
    const b = s.type === SOCK_SEQPACKET ? s.rx.takeDgram(rxCount(e))!.data : s.rx.take(rxCount(e));
    s.bytesRecv += b.length;
    e.data = b;
    e.ret = b.length;
    e.copied = b.length;
    e.len = b.length;
    // the sender blocked on a full queue may go on (unix_stream_read_generic wakes sk_write_space's waiters)
    if (s.peer) takeWaiters(e, s.peer, 'w');
    return H_CONT;
  }
  if (s.rxEof || !s.peer) { e.data = empty; e.ret = 0; return H_CONT; }
  return fail(e, EAGAIN);
});

netUnix.hook('unix_shutdown', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  const how = Number(e.a[1]);
  if (how < SHUT_RD || how > 2) return fail(e, EINVAL);
  if (how !== SHUT_WR) { s.rxEof = true; takeWaiters(e, s, 'r'); }
  if (how !== SHUT_RD) {
    s.finSent = true;
    if (s.peer && isStream(s)) { s.peer.rxEof = true; takeWaiters(e, s.peer, 'r'); }
  }
  e.ret = 0;
  return H_CONT;
});

/** unix_release_sock: the peer reads end of file, queued connections are dropped, the name is free for connects to fail */
netUnix.hook('unix_close', (_m, _c, _t, e) => {
  const s = sockOf(e);
  if (!s || s.closed) return H_CONT;
  s.closed = true;
  s.state = TCP_CLOSE;
  const peer = s.peer;
  if (peer && isStream(s)) { peer.rxEof = true; peer.peer = null; takeWaiters(e, peer, 'rw'); }
  for (const child of s.acceptq.splice(0)) { child.closed = true; if (child.peer) { child.peer.rxEof = true; child.peer.peer = null; takeWaiters(e, child.peer, 'rw'); } }
  s.peer = null;
  return H_CONT;
});

// what the af_unix functions return: the syscall's result (0, bytes or -errno)
for (const fn of ['unix_bind', 'unix_listen', 'unix_accept', 'unix_stream_connect', 'unix_dgram_connect', 'unix_stream_sendmsg',
  'unix_dgram_sendmsg', 'unix_stream_recvmsg', 'unix_dgram_recvmsg', 'unix_shutdown']) netUnix.fnRet(fn, (e) => e.ret);
