/**
 * nginx 1.22.1 (Debian 12's nginx-light) as the default system runs it: a master and one worker per
 * CPU sharing the listening socket on 0.0.0.0:80 (fd 5, opened by the master at boot), each worker in
 * epoll_wait on it with EPOLLEXCLUSIVE; the site is Debian's default (/etc/nginx/sites-enabled/default:
 * root /var/www/html, index index.html index.htm index.nginx-debian.html, try_files $uri $uri/ =404),
 * the access log fd 4 (/var/log/nginx/access.log, combined format).
 *
 * A worker's system calls for one request are those of the real binary (strace -f of nginx-light
 * 1.22.1-9+deb12u11 on a Debian 12 host serving `bash -c 'exec 3<>/dev/tcp/127.0.0.1/80; printf "GET /
 * HTTP/1.0\r\n\r\n" >&3; cat <&3'`, a `GET /nope` and a keep-alive `HEAD /`): accept4(5, SOCK_NONBLOCK),
 * epoll_ctl ADD of the connection, DEL and ADD of the listener, epoll_wait(60000) for the request,
 * recvfrom(1024) until the header is complete (EAGAIN: wait again), try_files' and the index module's
 * newfstatat calls, openat(O_NONBLOCK) and fstat of the file, setsockopt(TCP_CORK) before a sendfile,
 * writev of the header (and of an error page's body), sendfile of the file, write of the log line,
 * close of the file and, without keep-alive, of the connection; with keep-alive setsockopt(TCP_NODELAY)
 * and epoll_wait(75000) for the next request.  The response bytes are nginx's (the recording
 * data/recordings/tcp-http: cat read `HTTP/1.1 200 OK ... Content-Length: 615` and the page, 848 bytes).
 */
import type { U } from '../../process/user';
import type { Prog, Op, SysResult } from '../../include/sched';
import type { Sock } from '../../include/net';
import type { StatInfo } from '../../include/fs';
import { epochSeconds } from '../libc_time';

const LOG_FD = 4, LISTEN_FD = 5, EPOLL_FD = 8;
const EPOLL_CTL_ADD = 1, EPOLL_CTL_DEL = 2, SOCK_NONBLOCK = 0o4000, O_NONBLOCK = 0o4000;
const IPPROTO_TCP = 6, TCP_NODELAY = 1, TCP_CORK = 3;
const EAGAIN = 11, EINTR = 4;
const ROOT = '/var/www/html';
const INDEX = ['index.html', 'index.htm', 'index.nginx-debian.html'];
/** client_header_timeout (60 s) and the keep-alive wait the real worker passes to epoll_wait (75 s) */
const HEADER_TIMEOUT_MS = 60000, KEEPALIVE_MS = 75000;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');
/** the HTTP date (RFC 1123, GMT): "Thu, 26 Nov 2026 08:31:46 GMT" */
function httpDate(sec: number): string {
  const d = new Date(sec * 1000);
  return `${DAYS[d.getUTCDay()]}, ${p2(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} `
    + `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} GMT`;
}
/** the access log's $time_local (TZ UTC): "26/Nov/2026:08:31:46 +0000" */
function logDate(sec: number): string {
  const d = new Date(sec * 1000);
  return `${p2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
}

const STATUS: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Not Allowed' };
/** nginx's built-in error page: its head and its tail (ngx_http_error_tail), two iovecs of the writev */
function errorPage(code: number): [string, string] {
  const title = `${code} ${STATUS[code]}`;
  return [`<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n`,
    '<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n'];
}

interface Request { method: string; uri: string; proto: string; line: string; keepAlive: boolean; referer: string; agent: string }
function parseRequest(text: string): Request | null {
  const [head] = text.split('\r\n\r\n');
  const lines = head.split('\r\n');
  const m = /^([A-Z]+) (\S+)(?: (HTTP\/\d\.\d))?$/.exec(lines[0] ?? '');
  if (!m) return null;
  const hdr = new Map<string, string>();
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) hdr.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
  }
  const proto = m[3] ?? 'HTTP/0.9';
  const conn = (hdr.get('connection') ?? '').toLowerCase();
  return {
    method: m[1], uri: m[2], proto, line: lines[0], referer: hdr.get('referer') ?? '-', agent: hdr.get('user-agent') ?? '-',
    keepAlive: proto === 'HTTP/1.1' ? conn !== 'close' : conn === 'keep-alive',
  };
}

type G<T> = Generator<Op, T, SysResult>;
const latin1 = (b: Uint8Array | undefined): string => (b ? Buffer.from(b).toString('latin1') : '');
const isStat = (s: StatInfo | number): s is StatInfo => typeof s !== 'number';

/** A worker: it was in epoll_wait on the listening socket when the machine was handed over. */
export function* nginxWorker(u: U): Prog {
  for (let first = true; ; first = false) {
    const lis = u.t.proc.fds[LISTEN_FD]?.sock;
    if (!lis) return 1;
    if (!first) {
      const w = yield* u.sys('epoll_wait', [EPOLL_FD, 0, 512, -1], { socks: [lis], excl: true });
      if (w.ret <= 0) continue;
    }
    const c = (yield* u.sys('accept4', [LISTEN_FD, 0, 16, SOCK_NONBLOCK])).ret;
    if (c < 0) continue;
    yield* u.sys('epoll_ctl', [EPOLL_FD, EPOLL_CTL_ADD, c, 0]);
    yield* u.sys('epoll_ctl', [EPOLL_FD, EPOLL_CTL_DEL, LISTEN_FD, 0]);
    yield* u.sys('epoll_ctl', [EPOLL_FD, EPOLL_CTL_ADD, LISTEN_FD, 0]);
    yield* connection(u, c);
  }
}

/** Serve one connection: requests until one without keep-alive, a timeout or the client's end. */
function* connection(u: U, c: number): Prog {
  const sock = u.t.proc.fds[c]!.sock as Sock;
  let wait = HEADER_TIMEOUT_MS;
  for (;;) {
    let text = '';
    let req: Request | null = null;
    while (!text.includes('\r\n\r\n')) {
      const w = yield* u.sys('epoll_wait', [EPOLL_FD, 0, 512, wait], { socks: [sock] });
      if (w.ret === -EINTR) continue;
      if (w.ret <= 0) { yield* u.close(c); return 0; }
      for (;;) {
        const r = yield* u.recv(c, 1024);
        if (r.ret === -EAGAIN) break;
        if (r.ret <= 0) { yield* u.close(c); return 0; }
        text += latin1(r.data);
        if (text.includes('\r\n\r\n')) break;
      }
    }
    req = parseRequest(text);
    const keep = yield* respond(u, c, req, text.split('\r\n')[0]);
    if (!keep) { yield* u.close(c); return 0; }
    yield* u.sys('setsockopt', [c, IPPROTO_TCP, TCP_NODELAY, 0, 4], { value: 1 });
    wait = KEEPALIVE_MS;
  }
}

/** try_files $uri $uri/ =404 with the index module: the file to send, or an error status */
function* resolve(u: U, uri: string): G<{ path: string } | { status: number }> {
  const path = ROOT + uri;
  const st = yield* u.stat(path);
  if (isStat(st) && st.isReg) return { path };
  const dir = uri.endsWith('/') ? path : `${path}/`;
  const ds = yield* u.stat(dir);
  if (!isStat(ds) || !ds.isDir) return { status: 404 };
  for (let i = 0; i < INDEX.length; i++) {
    const s = yield* u.stat(dir + INDEX[i]);
    if (isStat(s)) {
      // the internal redirect to the index file runs try_files again
      const again = yield* u.stat(dir + INDEX[i]);
      return isStat(again) ? { path: dir + INDEX[i] } : { status: 404 };
    }
    // ngx_http_index_test_dir after the first miss
    if (i === 0) yield* u.stat(dir.replace(/\/$/, '') || '/');
  }
  return { status: 403 };
}

/** one response; true: keep the connection */
function* respond(u: U, c: number, req: Request | null, line: string): G<boolean> {
  const now = epochSeconds(u.m.bootNs, u.m.now);
  const base = (code: number) => `HTTP/1.1 ${code} ${STATUS[code]}\r\nServer: nginx/1.22.1\r\nDate: ${httpDate(now)}\r\n`;
  let code = 400, bytes = 0;
  let keep = false;
  if (!req) {
    const [a, b] = errorPage(400);
    yield* u.sys('writev', [c, 0, 3], { buf: new TextEncoder().encode(`${base(400)}Content-Type: text/html\r\nContent-Length: ${a.length + b.length}\r\nConnection: close\r\n\r\n${a}${b}`) });
    bytes = a.length + b.length;
  } else {
    keep = req.keepAlive;
    const conn = keep ? 'keep-alive' : 'close';
    const r = req.method === 'GET' || req.method === 'HEAD' ? yield* resolve(u, req.uri) : { status: 405 };
    const head = req.method === 'HEAD';
    let fd = -1;
    let st: StatInfo | number = -1;
    if ('path' in r) {
      fd = (yield* u.sys('openat', [-100, r.path, O_NONBLOCK])).ret;
      if (fd >= 0) st = yield* u.fstat(fd);
    }
    if (fd >= 0 && isStat(st)) {
      code = 200;
      const mtime = epochSeconds(u.m.bootNs, st.mtime);
      const hdr = `${base(200)}Content-Type: text/html\r\nContent-Length: ${st.size}\r\nLast-Modified: ${httpDate(mtime)}\r\n`
        + `Connection: ${conn}\r\nETag: "${mtime.toString(16)}-${st.size.toString(16)}"\r\nAccept-Ranges: bytes\r\n\r\n`;
      if (!head && st.size) yield* u.sys('setsockopt', [c, IPPROTO_TCP, TCP_CORK, 0, 4], { value: 1 });
      yield* u.sys('writev', [c, 0, 1], { buf: new TextEncoder().encode(hdr) });
      if (!head && st.size) bytes = Math.max(0, (yield* u.sys('sendfile', [c, fd, 0, st.size], { off: 0 })).ret);
    } else {
      code = 'status' in r ? r.status : 404;
      const [a, b] = errorPage(code);
      const hdr = `${base(code)}Content-Type: text/html\r\nContent-Length: ${a.length + b.length}\r\nConnection: ${conn}\r\n\r\n`;
      yield* u.sys('writev', [c, 0, head ? 1 : 3], { buf: new TextEncoder().encode(head ? hdr : hdr + a + b) });
      if (!head) bytes = a.length + b.length;
    }
    yield* u.write(LOG_FD, `127.0.0.1 - - [${logDate(now)}] "${req.line}" ${code} ${bytes} "${req.referer}" "${req.agent}"\n`);
    if (fd >= 0) yield* u.close(fd);
    return keep;
  }
  yield* u.write(LOG_FD, `127.0.0.1 - - [${logDate(now)}] "${line}" ${code} ${bytes} "-" "-"\n`);
  return false;
}
