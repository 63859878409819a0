/** Semantics of the kernel paths: the %hooks and ?conditions the templates name. */
import type { Machine, Cpu } from '../machine';
import {
  defineHook, defineCond, defineTpArgs, pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP, H_AGAIN,
} from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/fair';
import { pathNames, path, CompiledPath } from '../paths/dsl';
import {
  Task, Env, TASK_INTERRUPTIBLE, TASK_UNINTERRUPTIBLE, TASK_RUNNING, sigDefault, SIGPIPE, SIGKILL,
} from '../include/sched';
import { Fs, Inode, OpenFile, ConsoleFile, PAGE, S_IFDIR, S_IFREG } from '../include/fs';
import { Pipe } from '../include/pipe_fs_i';
import { BlkRequest, requestAddr, bioAddr } from '../block/core';
import { P_PRESENT } from '../mm/mm';
import { O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY, StatInfo } from '../process/user';
import type { U } from '../process/user';
import type { Prog } from '../include/sched';
// networking: sockets, the loopback device, NET_RX (paths/net.ts)
import { kmem } from '../../kernel/memory';
import { fillFile } from '../paths/args';
import '../net/tcp';
import '../kernel/signal';
import '../net/netfilter';
import { perfSw, PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_PAGE_FAULTS_MIN } from '../kernel/perf_events';

const ENOENT = 2, EBADF = 9, ECHILD = 10, EAGAIN = 11, EEXIST = 17, ENOTDIR = 20, EISDIR = 21, EINVAL = 22,
  EPIPE = 32, ENOTEMPTY = 39, ESRCH = 3, EINTR = 4, EPERM = 1;

const sysPaths = new Set<string>();
function hasPath(n: string): boolean {
  if (!sysPaths.size) for (const p of pathNames()) sysPaths.add(p);
  return sysPaths.has(n);
}

/** Wakeups requested by TS code outside a path; drained by hooks through the ttwu path. */
const pendingWakes: Task[] = [];
export function wakeLater(t: Task): void {
  if (!pendingWakes.includes(t)) pendingWakes.push(t);
}
function drain(c: Cpu): number {
  if (!pendingWakes.length) return H_CONT;
  const list = pendingWakes.splice(0);
  return pushWakeups(c, list);
}

/** Wake `t` after `ns` through the hrtimer interrupt on its CPU. */
export function timedWake(m: Machine, t: Task, ns: number): void {
  m.after(ns, () => {
    if (t.state === TASK_RUNNING) return;
    m.irq(m.cpus[t.cpu], 'hrtimer_wake_irq', newEnv('hrtimer', { p: t, irq: 236 }));
  });
}

function fdOf(t: Task, fd: unknown): OpenFile | null {
  const f = t.proc.fds[fd as number];
  return f ?? null;
}

function installFd(t: Task, f: OpenFile, min = 0): number {
  const fds = t.proc.fds;
  for (let i = min; i < fds.length; i++) if (!fds[i]) { fds[i] = f; return i; }
  fds.push(f);
  return fds.length - 1;
}

function resolvePathArg(e: Env): string {
  switch (e.name) {
    case 'openat': case 'newfstatat': case 'mkdirat': case 'unlinkat': case 'renameat2': return String(e.a[1]);
    default: return String(e.a[0]);
  }
}

// ---------------------------------------------------------------- syscall wrapper

/** syscall name -> its compiled path (sys_NAME, else sys_generic): resolved once per name */
const sysPathOf = new Map<string, CompiledPath>();
defineHook('sys', (m, c, t, e) => {
  let cp = sysPathOf.get(e.name);
  if (cp === undefined) {
    const p = `sys_${e.name}`;
    cp = path(hasPath(p) ? p : 'sys_generic');
    sysPathOf.set(e.name, cp);
  }
  pushPath(t.ks, cp, e);
  return H_PUSHED;
});
defineHook('sysret', (_m, _c, t, e) => {
  t.lastResult = { ret: e.ret, data: e.data as Uint8Array | undefined, info: e.info as Record<string, unknown> | undefined };
  return H_CONT;
});
defineCond('sigpending', (_m, _c, t) => (t.sigPending & ~t.sigBlocked) !== 0);
defineTpArgs('sys_enter', (_m, _c, t, e) => [{ ip: 0, args: e.a, orig_ax: e.nr, task: t }, e.nr]);
defineTpArgs('sys_exit', (_m, _c, t, e) => [{ ip: 0, args: e.a, ax: e.ret, orig_ax: e.nr, task: t }, e.ret]);

defineHook('impl', (m, c, t, e) => {
  const f = impls[e.name];
  if (!f) { e.ret = -38; return H_CONT; } // ENOSYS
  return f(m, c, t, e);
});

type Impl = (m: Machine, c: Cpu, t: Task, e: Env) => number;
const impls: Record<string, Impl> = {};

// ---------------------------------------------------------------- path walk

defineHook('walk', (m, _c, t, e) => {
  const p = resolvePathArg(e);
  const n = Math.max(1, Fs.parts(p, t.proc.cwd).length);
  for (let i = 0; i < Math.min(n, 8); i++) pushPath(t.ks, 'walk_component', e);
  e.path = p;
  return H_PUSHED;
});

// ---------------------------------------------------------------- open / close

/**
 * The error of an open found before the file is opened (lookup: ENOENT; do_open: EEXIST,
 * ENOTDIR, EISDIR), 0 when path_openat goes on to vfs_open.
 */
function openError(m: Machine, t: Task, e: Env): number {
  const p = String(e.a[1]);
  const flags = Number(e.a[2]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) {
    if (!(flags & O_CREAT)) return -ENOENT;
    return m.fs.lookupParent(p, t.proc.cwd) ? 0 : -ENOENT;
  }
  if (flags & O_CREAT && flags & O_EXCL) return -EEXIST;
  if (flags & O_DIRECTORY && !ino.isDir) return -ENOTDIR;
  if (ino.isDir && (flags & 3)) return -EISDIR;
  return 0;
}
defineCond('opened', (_m, _c, _t, e) => typeof e.ret === 'number' && e.ret >= 0);
// the checks run once: e.ret is the open's error (0: path_openat goes on to vfs_open, whose
// %open then sets the fd)
defineHook('open_check', (m, _c, t, e) => {
  e.ret = openError(m, t, e);
  return H_CONT;
});
defineCond('open_ok', (_m, _c, _t, e) => e.ret === 0);

defineHook('open', (m, c, t, e) => {
  const p = String(e.a[1]);
  const flags = Number(e.a[2]);
  const fs = m.fs;
  let ino = fs.lookup(p, t.proc.cwd);
  if (!ino) {
    if (!(flags & O_CREAT)) { e.ret = -ENOENT; return H_CONT; }
    const pp = fs.lookupParent(p, t.proc.cwd);
    if (!pp) { e.ret = -ENOENT; return H_CONT; }
    ino = fs.mk(S_IFREG | (Number(e.a[3]) & 0o777), pp.dir.fs === 'proc' ? 'ext4' : pp.dir.fs);
    ino.data = Buffer.alloc(0);
    ino.uid = t.euid;
    fs.allocExtent(ino);
    fs.link(pp.dir, pp.name, ino);
  } else if (flags & O_CREAT && flags & O_EXCL) { e.ret = -EEXIST; return H_CONT; }
  if (flags & O_DIRECTORY && !ino.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  if (ino.isDir && (flags & 3)) { e.ret = -EISDIR; return H_CONT; }
  let f: OpenFile;
  if (ino.isDir) f = new OpenFile('dir', ino, flags);
  else if (ino.show) { f = new OpenFile('proc', ino, flags); f.text = Buffer.from(ino.show(), 'latin1'); }
  else if (ino.dev && ino.dev !== 'sda' && ino.dev !== 'sda1' && ino.dev !== 'sda2') f = new OpenFile('dev', ino, flags);
  else f = new OpenFile('file', ino, flags);
  if (flags & O_TRUNC && ino.isReg && !ino.show) {
    m.mm.filePages -= ino.cachedPages; m.mm.freePages += ino.cachedPages;
    ino.pc.fill(0); ino.cachedPages = 0; ino.dirtyPages = 0;
    ino.truncate(0);
  }
  if (flags & O_APPEND) f.pos = ino.size;
  // the struct file path_openat allocated, when a probe has seen its address
  if (typeof e.filpAddr === 'number') { kmem.bind(f, e.filpAddr); fillFile(kmem, e.filpAddr, f); }
  e.ret = installFd(t, f);
  // the struct file and fd the rest of the open path sees (fd_install(fd, file), ...)
  e.file = f;
  e.fd = e.ret;
  return H_CONT;
});

defineHook('close', (m, c, t, e) => {
  const fd = e.a[0] as number;
  const f = fdOf(t, fd);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  t.proc.fds[fd] = null;
  f.close();
  e.ret = 0;
  if (f.refs === 0) pushPath(t.ks, 'close_file', e);
  const r = drain(c);
  return f.refs === 0 || r === H_PUSHED ? H_PUSHED : H_CONT;
});

// pipes: closing ends wakes the other side
function pipeFile(kind: 'pipe_r' | 'pipe_w', p: Pipe): OpenFile {
  const f = new OpenFile(kind, null, kind === 'pipe_r' ? 0 : 1);
  f.pipe = p;
  f.onClose = () => {
    if (kind === 'pipe_r') { p.readers--; for (const w of p.writeWait.splice(0)) wakeLater(w); }
    else { p.writers--; for (const w of p.readWait.splice(0)) wakeLater(w); }
  };
  return f;
}

impls.pipe2 = (_m, _c, t, e) => {
  const p = new Pipe();
  const r = installFd(t, pipeFile('pipe_r', p));
  const w = installFd(t, pipeFile('pipe_w', p));
  e.info = { fds: [r, w] };
  e.ret = 0;
  return H_CONT;
};
impls.dup2 = (_m, _c, t, e) => {
  const [a, b] = e.a as number[];
  const f = fdOf(t, a);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  if (a === b) { e.ret = b; return H_CONT; }
  const old = t.proc.fds[b];
  while (t.proc.fds.length <= b) t.proc.fds.push(null);
  t.proc.fds[b] = f.dup();
  if (old) old.close();
  e.ret = b;
  return H_CONT;
};

// ---------------------------------------------------------------- read

defineCond('blkdev', (_m, _c, _t, e) => e.blkdev === true);
const isExt4 = (e: Env) => (e.ino as Inode | undefined)?.fs === 'ext4' && e.blkdev !== true;
defineCond('ext4file', (_m, _c, _t, e) => isExt4(e));
defineCond('othfile', (_m, _c, _t, e) => e.blkdev !== true && !isExt4(e));
const reqExt4 = (e: Env) => { const r = e.req as BlkRequest | undefined; return !!r && !r.swap && r.ino?.fs === 'ext4' && !r.ino.isBlk; };
defineCond('ext4read', (_m, _c, _t, e) => e.blkdev !== true && reqExt4(e) && !(e.req as BlkRequest).write);
defineCond('ext4write', (_m, _c, _t, e) => reqExt4(e) && (e.req as BlkRequest).write);
defineCond('ext4wbio', (_m, _c, _t, e) => e.swapio !== true && reqExt4(e) && (e.req as BlkRequest).write);
defineCond('plainbio', (_m, _c, _t, e) => e.swapio !== true && !(reqExt4(e) && (e.req as BlkRequest).write));
/** fsync/sync: wake the journal thread for a commit */
defineHook('jbd2_kick', (m, c) => {
  const j = m.procs.jbd2;
  if (j && j.state !== TASK_RUNNING) { j.scratch.commit = true; return pushWakeups(c, [j]); }
  return H_CONT;
});
defineHook('jbd2_commit', (m, c, t, e) => {
  // the commit writes the journal blocks: one small write request near the journal area
  if (!t.scratch.commit && !m.fs.dirty.size) return H_CONT;
  t.scratch.commit = false;
  const req: BlkRequest = { ino: null, pages: [], write: true, swap: false, sector: 0x1000000 + m.rand.int(1 << 16) * 8, bytes: 3 * PAGE, cpu: c.id, waiters: [] };
  pushPath(t.ks, 'bio_submit', newEnv('bio', { req, rq: req, bio: req }));
  pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
  void e;
  return H_PUSHED;
});
defineHook('jbd2_sleep', (m, _c, t, e) => {
  if (e.slept) return H_CONT;
  e.slept = true;
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'kjournald2';
  timedWake(m, t, 5e9);
  return H_SLEEP;
});

defineHook('read_dispatch', (m, c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  if (!(f.flags & 3) && f.kind === 'pipe_w') { e.ret = -EBADF; return H_CONT; }
  e.file = f;
  e.count = e.a[e.name === 'pread64' ? 2 : 2] as number;
  e.pos = e.name === 'pread64' ? (e.a[3] as number) : f.pos;
  switch (f.kind) {
    case 'file': {
      const ino = f.inode!;
      if (ino.isDir) { e.ret = -EISDIR; return H_CONT; }
      e.blkdev = ino.isBlk;
      e.ino = ino;
      e.got = [];
      e.cur = e.pos;
      e.end = Math.min(ino.size, (e.pos as number) + (e.count as number));
      pushPath(t.ks, 'read_filemap', e);
      return H_PUSHED;
    }
    case 'pipe_r': pushPath(t.ks, 'read_pipe', e); return H_PUSHED;
    case 'proc': pushPath(t.ks, 'read_seq', e); return H_PUSHED;
    case 'sock': e.sock = f.sock; e.sk = f.sock; pushPath(t.ks, 'sock_read', e); return H_PUSHED;
    default: pushPath(t.ks, 'read_simple', e); return H_PUSHED;
  }
});

defineHook('simple_read', (m, _c, t, e) => {
  const f = e.file as OpenFile;
  const n = e.count as number;
  if (f.kind === 'proc') {
    const b = f.text!.subarray(f.pos, f.pos + n);
    e.data = b; e.ret = b.length;
    if (e.name !== 'pread64') f.pos += b.length;
    return H_CONT;
  }
  const dev = f.inode?.dev ?? '';
  if (dev === 'zero') { e.data = new Uint8Array(n); e.ret = n; m.now += n / 8; return H_CONT; }
  if (dev === 'urandom' || dev === 'random') {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = m.rand.int(256);
    e.data = b; e.ret = n; m.now += n; return H_CONT;
  }
  e.data = new Uint8Array(0); e.ret = 0; // /dev/null, console: EOF
  return H_CONT;
});

const RA_MAX = 128; // 512 KiB readahead window
defineHook('read_batches', (m, c, t, e) => {
  const ino = e.ino as Inode;
  const cur = e.cur as number;
  const end = e.end as number;
  if (cur >= end) {
    const pos = e.pos as number;
    const b = ino.readBytes(pos, end - pos);
    e.data = b;
    e.ret = b.length;
    const f = e.file as OpenFile;
    if (e.name !== 'pread64') f.pos = pos + b.length;
    return H_CONT;
  }
  const first = Math.floor(cur / PAGE);
  const last = Math.floor((end - 1) / PAGE);
  const n = Math.min(15, last - first + 1);
  ino.ensurePages(end);
  const be = newEnv('filemap_batch', { ino, first, n, blkdev: e.blkdev, file: e.file, rv: 0 });
  const st = ino.pc[first];
  be.miss = st === 0;
  // async readahead when the batch runs into the marker (end of the last window)
  const raEnd = (ino as unknown as { raEnd?: number }).raEnd ?? 0;
  be.async = !be.miss && raEnd > 0 && first + n >= raEnd - 16 && raEnd * PAGE < ino.size && ino.pc[Math.min(raEnd, ino.pc.length - 1)] === 0;
  e.cur = Math.min(end, (first + n) * PAGE);
  pushPath(t.ks, 'filemap_batch', be);
  return H_AGAIN;
});
defineCond('pc_miss', (_m, _c, _t, e) => e.miss === true);
defineCond('pc_async', (_m, _c, _t, e) => e.async === true);
defineCond('pc_locked', (_m, _c, _t, e) => {
  const ino = e.ino as Inode;
  for (let i = e.first as number, k = 0; k < (e.n as number); k++, i++) if (ino.pc[i] === 3) return true;
  return false;
});

defineHook('ra_alloc', (m, c, t, e) => {
  const ino = e.ino as Inode;
  const holder = ino as unknown as { raEnd?: number; raSize?: number };
  const start = e.miss ? (e.first as number) : (holder.raEnd ?? (e.first as number));
  const size = Math.min(RA_MAX, e.miss ? Math.max(32, (holder.raSize ?? 16) * 2) : (holder.raSize ?? 32) * 2);
  holder.raSize = size;
  const maxPage = Math.ceil(ino.size / PAGE);
  const pages: number[] = [];
  ino.ensurePages(Math.min(ino.size, (start + size) * PAGE));
  for (let i = start; i < Math.min(maxPage, start + size); i++) {
    if (ino.pc[i] !== 0) continue;
    ino.pc[i] = 3;
    ino.cachedPages++;
    m.mm.allocPage('file');
    m.mm.addFileLru(ino, i);
    pages.push(i);
  }
  holder.raEnd = start + size;
  e.raPages = pages;
  const k = Math.min(pages.length, 32);
  for (let i = 0; i < k; i++) pushPath(t.ks, 'pc_add_folio', e);
  return k ? H_PUSHED : H_CONT;
});

defineHook('ra_submit', (m, c, t, e) => {
  const pages = (e.raPages as number[]) ?? [];
  if (!pages.length) return H_CONT;
  const ino = e.ino as Inode;
  // one bio per 256 KiB
  for (let i = 0; i < pages.length; i += 64) {
    const chunk = pages.slice(i, i + 64);
    const req: BlkRequest = {
      ino, pages: chunk, write: false, swap: false, sector: (ino.diskBlock + chunk[0]) * 8,
      bytes: chunk.length * PAGE, cpu: c.id, waiters: [],
    };
    pushPath(t.ks, 'bio_submit', newEnv('bio', { req, blkdev: e.blkdev, rq: req, bio: req }));
  }
  return H_PUSHED;
});

defineHook('bio_queued', (m, c, _t, e) => {
  m.blk.queue(c, e.req as BlkRequest);
  return H_CONT;
});
defineHook('rq_insert_each', (m, c, t, e) => {
  const list = m.blk.plugs[c.id];
  for (let i = list.length - 1; i >= 0; i--) pushPath(t.ks, 'blk_rq_insert', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
defineHook('rq_dispatch_each', (m, c, t, e) => {
  const list = m.blk.takePlug(c);
  for (let i = list.length - 1; i >= 0; i--) pushPath(t.ks, 'blk_rq_queue', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
defineHook('dev_issue', (m, _c, _t, e) => {
  m.blk.issue(e.req as BlkRequest);
  return H_CONT;
});
defineTpArgs('block_rq_issue', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest)]);
defineTpArgs('block_rq_insert', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest)]);
defineTpArgs('block_rq_complete', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest), 0, (e.req as BlkRequest | undefined)?.bytes ?? 0]);
defineTpArgs('block_bio_queue', (_m, _c, _t, e) => [bioAddr(e.req as BlkRequest)]);
defineTpArgs('block_getrq', (_m, _c, _t, e) => [bioAddr(e.req as BlkRequest)]);

defineHook('wait_io', (m, c, t, e) => {
  const ino = e.ino as Inode;
  for (let i = e.first as number, k = 0; k < (e.n as number); k++, i++) {
    if (ino.pc[i] === 3) {
      if (!ino.waiters.includes(t)) ino.waiters.push(t);
      t.state = TASK_UNINTERRUPTIBLE;
      t.wchan = 'folio_wait_bit_common';
      return H_SLEEP;
    }
  }
  return H_CONT;
});

defineHook('copy_pages', (m, c, t, e) => {
  const k = e.n as number;
  for (let i = 0; i < k; i++) pushPath(t.ks, 'copy_page', e);
  m.now += k * 250; // copying 4 KiB to user
  return H_PUSHED;
});

defineHook('blk_irq', (m, c, _t, e) => {
  m.blk.done[c.id].push(e.req as BlkRequest);
  c.softirqPending |= 1 << 4; // BLOCK_SOFTIRQ
  return H_CONT;
});
defineHook('blk_done', (m, c, t, e) => {
  const list = m.blk.done[c.id].splice(0);
  for (const req of list) pushPath(c.ks, 'blk_end_request', newEnv('blk_end', { req, swapio: req.swap }));
  return list.length ? H_PUSHED : H_CONT;
});
defineCond('swapio', (_m, _c, _t, e) => e.swapio === true);
defineHook('bio_done', (m, c, _t, e) => {
  const req = e.req as BlkRequest;
  const ino = req.ino;
  const wake: Task[] = [...req.waiters];
  if (ino) {
    for (const i of req.pages) if (ino.pc[i] === 3) ino.pc[i] = 1; else if (ino.pc[i] === 4) ino.pc[i] = 1;
    wake.push(...ino.waiters.splice(0));
  }
  return pushWakeups(c, wake);
});

// ---------------------------------------------------------------- pipes

defineHook('pipe_read', (m, c, t, e) => {
  const f = e.file as OpenFile;
  const p = f.pipe;
  if (!p) { e.ret = -EBADF; return H_CONT; }
  if (p.bytes > 0) {
    const b = p.take(e.count as number);
    e.data = b; e.ret = b.length;
    const w = p.writeWait.splice(0);
    return pushWakeups(c, w);
  }
  const writers = p.writers;
  if (writers === 0) { e.data = new Uint8Array(0); e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  p.readWait.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'pipe_read';
  return H_SLEEP;
});

defineHook('write_dispatch', (m, c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  e.file = f;
  e.count = e.a[2] as number;
  e.done = 0;
  switch (f.kind) {
    case 'file': {
      const ino = f.inode!;
      if (ino.isBlk) { e.ret = e.count as number; return H_CONT; }
      e.ino = ino;
      e.pos = e.name === 'pwrite64' ? (e.a[3] as number) : (f.flags & O_APPEND ? ino.size : f.pos);
      pushPath(t.ks, 'write_generic', e);
      return H_PUSHED;
    }
    case 'pipe_w': pushPath(t.ks, 'write_pipe', e); return H_PUSHED;
    case 'sock': e.sock = f.sock; e.sk = f.sock; pushPath(t.ks, 'sock_write', e); return H_PUSHED;
    case 'console': pushPath(t.ks, 'write_tty', e); return H_PUSHED;
    case 'proc': {
      const ino = f.inode!;
      if (!ino.store) { e.ret = -EPERM; return H_CONT; }
      e.ret = ino.store(Buffer.from(e.buf as Uint8Array).toString('latin1'));
      return H_CONT;
    }
    default: pushPath(t.ks, 'write_simple', e); return H_PUSHED;
  }
});

defineHook('simple_write', (m, _c, _t, e) => {
  const f = e.file as OpenFile;
  const b = e.buf as Uint8Array;
  if (f instanceof ConsoleFile) f.writer(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'));
  e.ret = b.length;
  m.now += b.length / 4;
  return H_CONT;
});

defineHook('write_pages', (m, c, t, e) => {
  const f = e.file as OpenFile;
  const ino = e.ino as Inode;
  const b = e.buf as Uint8Array;
  const pos = e.pos as number;
  ino.writeBytes(pos, b);
  ino.mtime = m.now;
  ino.ensurePages(ino.size);
  const first = Math.floor(pos / PAGE);
  const last = Math.floor((pos + Math.max(1, b.length) - 1) / PAGE);
  let k = 0;
  for (let i = first; i <= last; i++) {
    if (ino.pc[i] === 0) { ino.cachedPages++; m.mm.allocPage('file'); m.mm.addFileLru(ino, i); }
    if (ino.pc[i] !== 2) { ino.dirtyPages++; m.fs.dirty.add(ino); }
    ino.pc[i] = 2;
    if (k++ < 16) pushPath(t.ks, 'write_page', e);
  }
  if (e.name !== 'pwrite64') f.pos = pos + b.length;
  e.ret = b.length;
  m.now += b.length / 4;
  return H_PUSHED;
});

defineHook('pipe_write', (m, c, t, e) => {
  const f = e.file as OpenFile;
  const p = f.pipe;
  const b = e.buf as Uint8Array;
  const readers = p ? p.readers : 0;
  if (!p || readers === 0) {
    e.ret = -EPIPE;
    t.sigPending |= 1 << (SIGPIPE - 1);
    return H_CONT;
  }
  const done = e.done as number;
  const n = p.push(b.subarray(done));
  e.done = done + n;
  const waiters = p.readWait.splice(0);
  if ((e.done as number) < b.length && n === 0) {
    if (waiters.length) { pushWakeups(c, waiters); return H_AGAIN; }
    p.writeWait.push(t);
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'pipe_write';
    return H_SLEEP;
  }
  e.ret = e.done as number;
  return pushWakeups(c, waiters);
});

// ---------------------------------------------------------------- stat, dirs

function statOf(ino: Inode): StatInfo {
  return {
    ino: ino.ino, mode: ino.mode, nlink: ino.nlink, uid: ino.uid, gid: ino.gid,
    size: ino.show ? 0 : ino.isBlk ? 0 : ino.size, mtime: ino.mtime, isDir: ino.isDir, isReg: ino.isReg, isLnk: ino.isLnk,
    isChr: ino.isChr, isBlk: ino.isBlk, rdev: ino.rdev,
  };
}
defineHook('stat', (m, _c, t, e) => {
  const flags = Number(e.a[3]);
  let ino: Inode | null;
  if (flags & 0x1000) ino = fdOf(t, e.a[0])?.inode ?? null;
  else ino = m.fs.lookup(String(e.a[1]), t.proc.cwd, (flags & 0x100) !== 0);
  if (!ino) { e.ret = (flags & 0x1000) ? -EBADF : -ENOENT; return H_CONT; }
  e.info = statOf(ino) as unknown as Record<string, unknown>;
  e.ret = 0;
  return H_CONT;
});
impls.getdents64 = (m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f || !f.inode) { e.ret = -EBADF; return H_CONT; }
  if (!f.inode.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  if (!f.dirNames) f.dirNames = ['.', '..', ...f.inode.children!.keys()];
  const names = f.dirNames.slice(f.pos, f.pos + 512);
  f.pos += names.length;
  e.info = { names };
  e.ret = names.reduce((a, n) => a + 24 + n.length, 0);
  return H_CONT;
};
impls.lseek = (m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  const [, off, wh] = e.a as number[];
  const base = wh === 0 ? 0 : wh === 1 ? f.pos : (f.inode?.size ?? 0);
  if (base + off < 0) { e.ret = -EINVAL; return H_CONT; }
  f.pos = base + off;
  e.ret = f.pos;
  return H_CONT;
};
impls.mkdirat = (m, _c, t, e) => {
  const p = String(e.a[1]);
  if (m.fs.lookup(p, t.proc.cwd, true)) { e.ret = -EEXIST; return H_CONT; }
  const pp = m.fs.lookupParent(p, t.proc.cwd);
  if (!pp) { e.ret = -ENOENT; return H_CONT; }
  const ino = m.fs.mk(S_IFDIR | (Number(e.a[2]) & 0o777), pp.dir.fs);
  ino.uid = t.euid;
  m.fs.link(pp.dir, pp.name, ino);
  e.ret = 0;
  return H_CONT;
};
impls.unlinkat = (m, _c, t, e) => {
  const p = String(e.a[1]);
  const pp = m.fs.lookupParent(p, t.proc.cwd);
  const ino = pp ? pp.dir.children!.get(pp.name) : undefined;
  if (!pp || !ino) { e.ret = -ENOENT; return H_CONT; }
  const rmdir = (Number(e.a[2]) & 0x200) !== 0;
  if (rmdir && !ino.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  if (!rmdir && ino.isDir) { e.ret = -EISDIR; return H_CONT; }
  if (rmdir && ino.children!.size) { e.ret = -ENOTEMPTY; return H_CONT; }
  pp.dir.children!.delete(pp.name);
  if (ino.isDir) pp.dir.nlink--;
  ino.nlink--;
  if (ino.nlink <= 0 && ino.cachedPages) {
    m.mm.filePages -= ino.cachedPages; m.mm.freePages += ino.cachedPages; ino.cachedPages = 0; ino.pc.fill(0);
    m.fs.dirty.delete(ino);
  }
  e.ret = 0;
  return H_CONT;
};
impls.renameat2 = (m, _c, t, e) => {
  const a = m.fs.lookupParent(String(e.a[1]), t.proc.cwd);
  const b = m.fs.lookupParent(String(e.a[3]), t.proc.cwd);
  const ino = a ? a.dir.children!.get(a.name) : undefined;
  if (!a || !b || !ino) { e.ret = -ENOENT; return H_CONT; }
  a.dir.children!.delete(a.name);
  b.dir.children!.set(b.name, ino);
  ino.parent = b.dir;
  e.ret = 0;
  return H_CONT;
};
impls.chdir = (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  if (!ino.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  t.proc.cwd = '/' + Fs.parts(p, t.proc.cwd).join('/');
  e.ret = 0;
  return H_CONT;
};

// ---------------------------------------------------------------- writeback / sync

/** Write back dirty pages of `inos` (all dirty inodes when omitted) as block write requests. */
defineHook('writeback', (m, c, t, e) => {
  const f = e.file as OpenFile | undefined;
  const list = f?.inode ? [f.inode] : [...m.fs.dirty];
  const reqs: BlkRequest[] = [];
  for (const ino of list) {
    if (!ino.dirtyPages) { m.fs.dirty.delete(ino); continue; }
    const pages: number[] = [];
    for (let i = 0; i < ino.pc.length; i++) if (ino.pc[i] === 2) { ino.pc[i] = 4; pages.push(i); }
    ino.dirtyPages = 0;
    m.fs.dirty.delete(ino);
    for (let i = 0; i < pages.length; i += 64) {
      const chunk = pages.slice(i, i + 64);
      reqs.push({ ino, pages: chunk, write: true, swap: false, sector: (ino.diskBlock + chunk[0]) * 8, bytes: chunk.length * PAGE, cpu: c.id, waiters: [] });
    }
  }
  if (!reqs.length) { e.ret = 0; return H_CONT; }
  if (e.name === 'fsync' || e.name === 'sync') reqs[reqs.length - 1].waiters.push(t);
  for (const req of reqs) pushPath(c.ks, 'bio_submit', newEnv('bio', { req, rq: req, bio: req }));
  m.blk.queue; // requests are queued by %bio_queued, issued below
  e.wbIssued = true;
  e.ret = 0;
  return H_PUSHED;
});
impls.sync = (m, c, t, e) => {
  if (!e.synced) {
    e.synced = true;
    pushPath(t.ks, 'writeback_issue', e);
    return H_AGAIN;
  }
  e.ret = 0;
  return H_CONT;
};
defineHook('flush_plug', (m, c) => {
  for (const r of m.blk.takePlug(c)) m.blk.issue(r);
  return H_CONT;
});
defineHook('wb_wait', (m, c, t, e) => {
  if (!e.wbIssued) return H_CONT;
  if (e.wbWaited) return H_CONT;
  e.wbWaited = true;
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'wait_on_page_writeback';
  return H_SLEEP;
});

// ---------------------------------------------------------------- time

defineHook('nanosleep', (m, c, t, e) => {
  if (e.slept) {
    e.ret = t.sigWoken ? -EINTR : 0;
    t.sigWoken = false;
    return H_CONT;
  }
  e.slept = true;
  const ns = Number(e.a[2]);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'hrtimer_nanosleep';
  timedWake(m, t, ns);
  return H_SLEEP;
});
defineTpArgs('hrtimer_start', (m, _c, t, e) => [{ function: 'hrtimer_wakeup', task: t }, 1]);
defineHook('wake_sleeper', (m, c, _t, e) => pushWakeups(c, [e.p as Task]));

// ---------------------------------------------------------------- processes

impls.getpid = (_m, _c, t, e) => { e.ret = t.pid; return H_CONT; };
impls.newuname = (_m, _c, _t, e) => { e.ret = 0; return H_CONT; };
defineCond('thread', (_m, _c, _t, e) => e.thread === true);
defineHook('dup_mmap', (m, c, t, e) => {
  const mm = t.proc.mm;
  if (!mm) return H_CONT;
  pushPath(t.ks, 'copy_ptes', e);
  return H_PUSHED;
});
impls.clone = (m, c, t, e) => {
  const child = m.procs.fork(t, e.child as (u: U) => Prog, e.thread === true, c);
  e.childTask = child;
  e.p = child;
  e.ret = child.tid;
  return H_CONT;
};
defineHook('wake_new', (m, c, _t, e) => {
  const child = e.childTask as Task;
  m.sched.wakeNew(child, c);
  return H_CONT;
});
defineTpArgs('sched_process_fork', (_m, _c, t, e) => [t, e.childTask]);
defineTpArgs('task_newtask', (_m, _c, _t, e) => [e.childTask ?? null, e.a[0]]);
/** the execve will succeed (bprm_execve reaches the binary loader and sched_process_exec) */
defineCond('execok', (m, _c, t, e) => {
  const ino = m.fs.lookup(String(e.a[0]), t.proc.cwd);
  return !!ino && ino.isReg && m.procs.programs.has(m.fs.pathOf(ino));
});
impls.execve = (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino || !ino.isReg) { e.ret = -ENOENT; return H_CONT; }
  const exe = m.fs.pathOf(ino);
  const oldComm = t.comm;
  if (!m.procs.exec(t, exe, e.a[1] as string[])) { e.ret = -8; return H_CONT; } // ENOEXEC
  e.oldPid = t.pid;
  // the comm changes in __set_task_comm, after task_rename has seen the old one
  e.newComm = t.comm;
  t.comm = oldComm;
  e.ret = 0;
  return H_CONT;
};
defineTpArgs('task_rename', (_m, _c, t, e) => [t, e.newComm ?? t.comm]);
defineHook('set_comm', (_m, _c, t, e) => {
  if (typeof e.newComm === 'string') t.comm = e.newComm;
  const a = kmem.boundAddr(t);
  if (a !== undefined) kmem.setField(a, 'struct task_struct', 'comm', t.comm);
  return H_CONT;
});
defineTpArgs('sched_process_exec', (_m, _c, t, e) => [t, e.oldPid ?? t.pid, { filename: e.a[0] }]);

defineHook('wait', (m, c, t, e) => {
  const pid = Number(e.a[0]);
  const nohang = (Number(e.a[2]) & 1) !== 0;
  const z = m.procs.findZombie(t.proc, pid);
  if (z === 'none') { e.ret = -ECHILD; return H_CONT; }
  if (z) {
    e.reaped = true;
    e.zombie = z;
    e.p = z.threads[0];
    e.ret = z.tgid;
    e.info = { status: z.exitCode >= 128 && (z as unknown as { signaled?: boolean }).signaled ? z.exitCode - 128 : (z.exitCode & 0xff) << 8 };
    t.proc.utime += z.utime; t.proc.stime += z.stime;
    m.procs.reap(z);
    return H_CONT;
  }
  if (nohang) { e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  if (!t.proc.waitq.includes(t)) t.proc.waitq.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'do_wait';
  return H_SLEEP;
});
defineCond('reaped', (_m, _c, _t, e) => e.reaped === true);
defineTpArgs('sched_process_free', (_m, _c, _t, e) => [e.p]);
defineTpArgs('sched_process_exit', (_m, _c, t) => [t]);

defineHook('exit_files', () => H_CONT);
defineHook('exit', (m, c, t, e) => {
  const code = Number(e.a[0]) & 0xff;
  m.procs.exitTask(t, e.signaled ? Number(e.a[0]) : code);
  if (e.signaled) (t.proc as unknown as { signaled?: boolean }).signaled = true;
  return drain(c);
});
impls.rt_sigaction = (_m, _c, t, e) => {
  const sig = Number(e.a[0]);
  if (sig === SIGKILL || sig === 19 || sig < 1 || sig > 64) { e.ret = -EINVAL; return H_CONT; }
  if (e.handler !== undefined) t.proc.sigHandlers.set(sig, e.handler as 'default');
  e.ret = 0;
  return H_CONT;
};

// ---------------------------------------------------------------- memory

impls.mmap = (m, _c, t, e) => {
  const mm = t.proc.mm;
  if (!mm) { e.ret = -EINVAL; return H_CONT; }
  const pages = Math.ceil(Number(e.a[1]) / PAGE);
  const fd = Number(e.a[4]);
  const file = fd >= 0 ? fdOf(t, fd)?.inode ?? null : null;
  mm.region(String(e.region ?? `map${m.rand.int(1e6)}`), pages, file, Number(e.a[5]));
  e.ret = 0x7f0000000000 + m.rand.int(1 << 20) * PAGE;
  return H_CONT;
};
impls.brk = (m, _c, t, e) => {
  const mm = t.proc.mm;
  if (mm) mm.region('heap', Math.ceil(Number(e.a[0]) / PAGE));
  e.ret = 0x55550000000 + Number(e.a[0]);
  return H_CONT;
};
defineHook('unmap', (m, _c, t, e) => {
  const mm = t.proc.mm;
  const region = e.region as string | undefined;
  if (mm && region) {
    const r = mm.regions.get(region);
    if (r) {
      let freed = 0;
      for (let i = 0; i < r.pages.length; i++) {
        if (r.pages[i] === P_PRESENT && !r.file) { m.mm.anonPages--; m.mm.freePages++; freed++; }
        r.pages[i] = 0;
      }
      e.freed = freed;
      mm.regions.delete(region);
    }
  }
  e.ret = 0;
  return H_CONT;
});
defineHook('free_swap_cache', (m, _c, t, e) => {
  const mm = t.proc.mm;
  const n = Math.min(32, Math.max(1, mm ? mm.rss : (e.freed as number) ?? 8));
  for (let i = 0; i < n; i++) pushPath(t.ks, 'free_swap_cache', e);
  return H_PUSHED;
});

// page faults
defineCond('fault_anon', (_m, _c, _t, e) => e.kind === 'anon');
defineCond('fault_file', (_m, _c, _t, e) => e.kind === 'file');
defineCond('fault_wp', (_m, _c, _t, e) => e.kind === 'wp');
defineCond('fault_swap', (_m, _c, _t, e) => e.kind === 'swap');
defineCond('wp_swapcache', (_m, _c, _t, e) => e.swapcache === true);
defineCond('swapin_io', () => true);
defineCond('reclaim', (_m, _c, _t, e) => e.reclaim === true);
defineHook('fault', (m, c, _t, e) => {
  m.mm.faultDone(e.kind as string, e.region as import('../mm/mm').Region, e.idx as number, e.mm as import('../mm/mm').Mm);
  // mm_account_fault(): a swap-in is a major fault (as pgmajfault), the others minor
  if (perfSw.active) perfSw.event(e.kind === 'swap' ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN, c.ctx);
  return H_CONT;
});
defineTpArgs('page_fault_user', (_m, _c, _t, e) => [0x7f0000000000 + (e.idx as number) * PAGE, { ip: 0 }, e.kind === 'wp' ? 7 : 6]);
defineHook('swapin_wait', (m, _c, t, e) => {
  if (e.swWaited) return H_CONT;
  e.swWaited = true;
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'swap_readpage';
  timedWake(m, t, m.blk.latencyNs + 8000);
  return H_SLEEP;
});
defineHook('wake_kswapd', (m) => { m.mm.wakeKswapd(); return H_CONT; });
defineHook('reclaim_batch', (m, c, t, e) => {
  const v = m.mm.reclaimVictims(32);
  m.mm.pgsteal += v.file + v.anon.length;
  const k = Math.min(v.file, 8);
  for (let i = 0; i < k; i++) pushPath(t.ks, 'drop_file_page', e);
  for (const a of v.anon) {
    m.mm.swapOut(a);
    pushPath(t.ks, 'swap_out_page', newEnv('swapout', { req: null }));
  }
  e.reclaimed = v.file + v.anon.length;
  return k + v.anon.length ? H_PUSHED : H_CONT;
});
defineHook('kswapd_sleep', (m, _c, t, e) => {
  if (m.mm.freePages >= m.mm.highPages || !e.reclaimed) {
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'kswapd_try_to_sleep';
    return H_SLEEP;
  }
  return H_CONT;
});
defineTpArgs('mm_vmscan_kswapd_wake', () => [0, 0, 0]);
// pageout(): the folio handed to ->writepage (swap_writepage for anon folios)
defineTpArgs('mm_vmscan_write_folio', () => [{}]);

impls.swapon = (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  if (m.mm.swaps.some((s) => s.path === p)) { e.ret = -16; return H_CONT; } // EBUSY
  const slots = Math.floor((ino.isBlk ? 2 * 1024 * 1024 * 1024 : ino.size) / PAGE) - 1;
  m.mm.swaps.push({ path: p, slots, used: 0, prio: -2 - m.mm.swaps.length });
  e.ret = 0;
  return H_CONT;
};
impls.swapoff = (m, _c, t, e) => {
  const p = String(e.a[0]);
  const i = m.mm.swaps.findIndex((s) => s.path === p);
  if (i < 0) { e.ret = -EINVAL; return H_CONT; }
  m.mm.swaps.splice(i, 1);
  e.ret = 0;
  return H_CONT;
};

// ---------------------------------------------------------------- kthreads, softirqs, misc

defineHook('kthread_park', () => H_CONT);
defineHook('timers', () => H_CONT);
defineHook('balance', () => H_CONT);
defineHook('work', (m, c, t, e) => {
  const fn = e.work as ((m: Machine, c: Cpu, t: Task, e: Env) => number) | undefined;
  return fn ? fn(m, c, t, e) : H_CONT;
});
defineCond('softirq_timer', (_m, _c, _t, e) => ((e.pending as number) & (1 << 1)) !== 0);
defineCond('softirq_block', (_m, _c, _t, e) => ((e.pending as number) & (1 << 4)) !== 0);
defineCond('softirq_net_rx', (_m, _c, _t, e) => ((e.pending as number) & (1 << 3)) !== 0);
defineCond('softirq_sched', (_m, _c, _t, e) => ((e.pending as number) & (1 << 7)) !== 0);
defineCond('softirq_rcu', (_m, _c, _t, e) => ((e.pending as number) & (1 << 9)) !== 0);
defineTpArgs('softirq_entry', (_m, _c, _t, e) => [e.vec ?? 1]);
defineTpArgs('softirq_exit', (_m, _c, _t, e) => [e.vec ?? 1]);
defineTpArgs('softirq_raise', () => [1]);
defineTpArgs('irq_handler_entry', (_m, _c, _t, e) => [e.irq ?? 16, { name: 'ahci[0000:00:1f.2]' }]);
defineTpArgs('irq_handler_exit', (_m, _c, _t, e) => [e.irq ?? 16, { name: 'ahci[0000:00:1f.2]' }, 1]);
defineTpArgs('local_timer_entry', () => [236]);
defineTpArgs('local_timer_exit', () => [236]);
defineTpArgs('hrtimer_expire_entry', (m) => [{ function: 'tick_sched_timer' }, m.now]);
defineTpArgs('hrtimer_expire_exit', () => [{ function: 'tick_sched_timer' }]);
defineTpArgs('kmem_cache_free', () => [0, 0, 'kmalloc-256']);
defineTpArgs('mm_filemap_add_to_page_cache', (_m, _c, _t, e) => [{ mapping: e.ino, index: e.first ?? 0 }]);

void EAGAIN;
