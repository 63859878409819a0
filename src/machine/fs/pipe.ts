/**
 * Pipes and FIFOs (fs/pipe.c): pipe2, reads that wait for data or the last writer, writes that wait for
 * room or fail with EPIPE (and SIGPIPE); a FIFO's open (fifo_open: the inode's pipe shared by every
 * opener, a reader waiting for a writer and a writer for a reader, O_NONBLOCK, O_RDWR) and release.
 */
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP, H_AGAIN, H_PUSHED, pushPath, newEnv } from '../paths/kexec';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import type { Task } from '../include/sched';
import type { Cpu } from '../include/cpu';
import type { Env } from '../include/kstack';
import { SIGPIPE } from '../include/signal';
import { OpenFile, O_NONBLOCK } from '../include/fs';
import type { Inode } from '../include/fs';
import { Pipe } from '../include/pipe_fs_i';
import type { WaitQueue } from '../include/wait';
import { installFd } from '../include/fdtable';
import { pushWakeups, wakeLater, wakeTasks } from '../kernel/sched/core';

const EBADF = 9, EPIPE = 32, EINTR = 4, EAGAIN = 11, ENXIO = 6, EINVAL = 22;

export const fsPipe = new Semantics<FsMachine>('fs/pipe');

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
fsPipe.syscall('pipe2', (_m, _c, t, e) => {
  const p = new Pipe();
  const r = installFd(t, pipeFile('pipe_r', p));
  const w = installFd(t, pipeFile('pipe_w', p));
  e.info = { fds: [r, w] };
  e.ret = 0;
  return H_CONT;
});
fsPipe.hook('pipe_read', (m, c, t, e) => {
  const f = e.file as OpenFile;
  const p = f.pipe;
  if (!p) { e.ret = -EBADF; return H_CONT; }
  if (p.bytes > 0) {
    const kept = p.pagesKept, freed = p.pagesFreed;
    const b = p.take(e.count as number);
    e.data = b; e.ret = b.length;
    const w = p.writeWait.splice(0);
    const r = pushWakeups(c, w);
    // the pages read to their end, released before the writers are woken: freed, or kept as tmp_page
    return pushPages(t, 'pipe_buf_free', p.pagesFreed - freed, pushPages(t, 'pipe_buf_keep', p.pagesKept - kept, r));
  }
  const writers = p.writers;
  if (writers === 0) { e.data = new Uint8Array(0); e.ret = 0; return H_CONT; }
  if (f.flags & O_NONBLOCK) { e.ret = -EAGAIN; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  p.readWait.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'pipe_read';
  return H_SLEEP;
});
fsPipe.hook('pipe_write', (m, c, t, e) => {
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
  const allocated = p.pagesAllocated;
  const n = p.push(b.subarray(done));
  e.done = done + n;
  // the pages this round allocated (alloc_page per pipe buffer not filled into the tmp_page), before it wakes the readers
  const pages = p.pagesAllocated - allocated;
  const waiters = p.readWait.splice(0);
  if ((e.done as number) < b.length && n === 0) {
    if (waiters.length) { pushWakeups(c, waiters); return H_AGAIN; }
    // O_NONBLOCK: what fitted, else EAGAIN
    if (f.flags & O_NONBLOCK) { e.ret = (e.done as number) > 0 ? e.done as number : -EAGAIN; return H_CONT; }
    p.writeWait.push(t);
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'pipe_write';
    return H_SLEEP;
  }
  e.ret = e.done as number;
  return pushPages(t, 'pipe_buf_alloc', pages, pushWakeups(c, waiters));
});

/**
 * Push path `name` `n` times on `t`'s stack (above what `r`, a hook result, pushed: they run first), and
 * the hook result that says so.
 */
function pushPages(t: Task, name: string, n: number, r: number): number {
  for (let i = 0; i < n; i++) pushPath(t.ks, name, newEnv(name, {}));
  return n > 0 ? H_PUSHED : r;
}

// ---------------------------------------------------------------- FIFOs

const FMODE_READ = 1, FMODE_WRITE = 2;
/** f_mode's FMODE_READ / FMODE_WRITE of an open with access mode `acc` (O_RDONLY 0, O_WRONLY 1, O_RDWR 2) */
const fmodeOf = (acc: number): number => (acc === 0 ? FMODE_READ : acc === 1 ? FMODE_WRITE : acc === 2 ? FMODE_READ | FMODE_WRITE : 0);

/** wake_up_interruptible_all of a wait queue, from a release (no path of its own: the next hook drains them) */
function wakeAllLater(q: WaitQueue): void {
  for (const w of q.splice(0)) wakeLater(w);
}

/** put_pipe_info: the last struct file of a FIFO's pipe frees it (i_pipe = NULL: its unread bytes go) */
function putPipe(ino: Inode, p: Pipe): void {
  if (--p.files === 0 && ino.pipe === p) ino.pipe = null;
}

/**
 * pipe_release of a FIFO's file: its side's count drops; when that leaves one side without the other,
 * both queues are woken (readers see EOF, writers EPIPE); the pipe goes with its last file.
 */
function fifoRelease(ino: Inode, p: Pipe, fmode: number): void {
  if (fmode & FMODE_READ) p.readers--;
  if (fmode & FMODE_WRITE) p.writers--;
  if ((p.readers === 0) !== (p.writers === 0)) { wakeAllLater(p.readWait); wakeAllLater(p.writeWait); }
  putPipe(ino, p);
}

/** The FIFO an open waits on (it runs again when woken), else null. */
export function fifoWaiting(e: Env): Inode | null {
  return (e.fifoWait as FifoWait | undefined)?.ino ?? null;
}

/** An open of a FIFO that waits for its partner (wait_for_partner): the file, its side, the counter it watches. */
interface FifoWait { f: OpenFile; p: Pipe; ino: Inode; fmode: number; cur: number }

/**
 * fifo_open (fs/pipe.c) for an open of FIFO `ino` with `flags`, from do_dentry_open: the inode's pipe (made
 * by the first opener), the side's counts, the partner's wake-up (wake_up_partner: every task on the pipe's
 * read queue, where both sides wait); then a reader without a writer waits for one (O_NONBLOCK: does not), a
 * writer without a reader waits (O_NONBLOCK: ENXIO), O_RDWR never waits.  The wait sleeps interruptibly in
 * wait_for_partner (the task's wchan) and this runs again when woken: done once the partner's counter moved, EINTR
 * for a signal.  `done(f)` installs the file; the result is the hook's.
 */
export function fifoOpen(c: Cpu, t: Task, e: Env, ino: Inode, flags: number, done: (f: OpenFile) => void): number {
  const w = e.fifoWait as FifoWait | undefined;
  if (w) return fifoWaited(c, t, e, w, done);
  // the recorded openat trees that ran fifo_open (paths/model.ts TREE_FEATURES)
  e.treeFeat = ['fifo'];
  const fmode = fmodeOf(flags & 3);
  if (!fmode) { e.ret = -EINVAL; return H_CONT; }
  if (fmode === FMODE_WRITE && flags & O_NONBLOCK && !(ino.pipe?.readers)) { e.ret = -ENXIO; return H_CONT; }
  let p = ino.pipe;
  if (p) p.files++;
  else {
    p = ino.pipe = new Pipe();
    p.readers = p.writers = p.rCounter = p.wCounter = 0;
    p.files = 1;
  }
  const f = new OpenFile(fmode === FMODE_WRITE ? 'pipe_w' : 'pipe_r', ino, flags);
  f.pipe = p;
  const pipe = p;
  f.onClose = () => fifoRelease(ino, pipe, fmode);
  let partner = false;
  let wait: 'r' | 'w' | '' = '';
  if (fmode === FMODE_READ) {
    p.rCounter++;
    partner = p.readers++ === 0;
    if (!p.writers) {
      // O_NONBLOCK: no POLLHUP until a writer has come (filp->f_version)
      if (flags & O_NONBLOCK) f.version = p.wCounter;
      else wait = 'w';
    }
  } else if (fmode === FMODE_WRITE) {
    p.wCounter++;
    partner = p.writers++ === 0;
    if (!p.readers) wait = 'r';
  } else {
    p.readers++; p.writers++; p.rCounter++; p.wCounter++;
    partner = p.readers === 1 || p.writers === 1;
  }
  const woke = partner ? wakeTasks(c, e, p.readWait.splice(0)) : H_CONT;
  if (!wait) { done(f); return woke; }
  e.fifoWait = { f, p, ino, fmode, cur: wait === 'w' ? p.wCounter : p.rCounter } satisfies FifoWait;
  return fifoSleep(t, p);
}

function fifoSleep(t: Task, p: Pipe): number {
  if (!p.readWait.includes(t)) p.readWait.push(t);
  t.state = TASK_INTERRUPTIBLE;
  // get_wchan's first function that is not the scheduler's: wait_for_partner, out of line in Debian's 6.1
  // build (a text symbol of its kallsyms, no inline instance in its DWARF), as on a newer host kernel
  t.wchan = 'wait_for_partner';
  return H_SLEEP;
}

/** wait_for_partner's loop after a wake-up: the partner came, a signal interrupts (the side's count undone), or sleep again. */
function fifoWaited(c: Cpu, t: Task, e: Env, w: FifoWait, done: (f: OpenFile) => void): number {
  const { p, fmode } = w;
  const now = fmode === FMODE_READ ? p.wCounter : p.rCounter;
  if (now !== w.cur) {
    e.fifoWait = undefined;
    done(w.f);
    return H_CONT;
  }
  if (!(t.sigPending & ~t.sigBlocked)) return fifoSleep(t, p);
  // finish_wait, then err_rd / err_wr: the other side's waiters see this one go (-ERESTARTSYS: EINTR here)
  e.fifoWait = undefined;
  const i = p.readWait.indexOf(t);
  if (i >= 0) p.readWait.splice(i, 1);
  let r = H_CONT;
  if (fmode === FMODE_READ) { if (--p.readers === 0) r = wakeTasks(c, e, p.writeWait.splice(0)); }
  else if (--p.writers === 0) r = wakeTasks(c, e, p.readWait.splice(0));
  putPipe(w.ino, p);
  e.ret = -EINTR;
  return r;
}
