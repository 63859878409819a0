/**
 * read(2), write(2) and lseek(2) through the VFS (fs/read_write.c): the file kind decides the
 * path (page cache for regular files and block devices, pipes, seq files of /proc, sockets, the
 * terminal, character devices); /dev/zero, /dev/urandom and the console are served here.
 */
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { keyHasFeature } from '../paths/model';
import type { Task } from '../include/sched';
import { TASK_INTERRUPTIBLE, TASK_RUNNING, TASK_UNINTERRUPTIBLE } from '../include/sched';
import { timedWake } from '../kernel/time';
import { OpenFile, ConsoleFile, Inode, PAGE, O_APPEND, O_DIRECT, storeWrite } from '../include/fs';
import { fdOf } from '../include/fdtable';
import { BlkRequest, REQ_SYNC, REQ_IDLE } from '../include/blkdev';
import type { Env } from '../include/kstack';
import { bufferedWrite, cachedRead, readahead, markAccessed } from '../mm/filemap';
import type { Cpu } from '../include/cpu';
import { mbAllocate } from './ext4';

const EBADF = 9, EISDIR = 21, EINVAL = 22, EPERM = 1, EINTR = 4;

export const fsReadWrite = new Semantics<FsMachine>('fs/read_write');

fsReadWrite.cond('blkdev', (_m, _c, _t, e) => e.blkdev === true);
fsReadWrite.hook('read_dispatch', (m, c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  // a pipe's or FIFO's write side (vfs_read: no FMODE_READ)
  if (f.pipe && (f.flags & 3) === 1) { e.ret = -EBADF; return H_CONT; }
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
    // a directory's f_op->read is generic_read_dir: -EISDIR (cat /etc, wc /etc)
    case 'dir': e.ret = -EISDIR; return H_CONT;
    case 'pipe_r': pushPath(t.ks, 'read_pipe', e); return H_PUSHED;
    case 'proc': pushPath(t.ks, 'read_seq', e); return H_PUSHED;
    case 'sock': e.sock = f.sock; e.sk = f.sock; pushPath(t.ks, 'sock_read', e); return H_PUSHED;
    default: pushPath(t.ks, f.inode?.dev === 'zero' ? 'read_zero' : 'read_simple', e); return H_PUSHED;
  }
});
/** A character device's, a seq file's or a pseudo file's read (the `read_simple` paths' work; read_zero's). */
function simpleRead(m: FsMachine, t: Task, e: Env): number {
  const f = e.file as OpenFile;
  const n = e.count as number;
  if (f.pseudo) {
    const b = f.pseudo.read(n, f.pos);
    if (b === null) {
      // nothing to read yet (trace_pipe): sleep until the producer wakes us, or a signal
      if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
      const cancel = f.pseudo.waitReadable ? f.pseudo.waitReadable(() => { cancel?.(); if (t.state !== TASK_RUNNING) timedWake(m, t, 1000); }) : null;
      t.state = TASK_INTERRUPTIBLE;
      t.wchan = 'wait_on_pipe';
      return H_SLEEP;
    }
    e.data = b; e.ret = b.length;
    if (e.name !== 'pread64') f.pos += b.length;
    return H_CONT;
  }
  if ('ttyRead' in f) {
    // an interactive terminal (tty.ts): a typed line, EOF, or sleep until one comes
    const r = (f as unknown as { ttyRead(t: Task, n: number): Uint8Array | number | null }).ttyRead(t, n);
    if (r === null) {
      if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
      t.state = TASK_INTERRUPTIBLE;
      t.wchan = 'n_tty_read';
      return H_SLEEP;
    }
    if (typeof r === 'number') { e.ret = r; return H_CONT; }
    e.data = r; e.ret = r.length;
    return H_CONT;
  }
  if (f.kind === 'proc') {
    const b = f.text!.subarray(f.pos, f.pos + n);
    e.data = b; e.ret = b.length;
    if (e.name !== 'pread64') f.pos += b.length;
    return H_CONT;
  }
  const dev = f.inode?.dev ?? '';
  if (dev === 'zero') { e.data = new Uint8Array(n); e.ret = n; m.now += n / 8 * m.cpuSlowdown; return H_CONT; }
  if (dev === 'urandom' || dev === 'random') {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = m.rand.int(256);
    e.data = b; e.ret = n; m.now += n * m.cpuSlowdown; return H_CONT;
  }
  e.data = new Uint8Array(0); e.ret = 0; // /dev/null, console: EOF
  return H_CONT;
}
fsReadWrite.hook('simple_read', (m, _c, t, e) => simpleRead(m, t, e));
/** drivers/char/mem.c read_zero: cond_resched() after each page (PAGE_SIZE chunk) it cleared. */
fsReadWrite.hook('zero_resched', (_m, _c, t, e) => {
  const n = typeof e.ret === 'number' && e.ret > 0 ? Math.ceil(e.ret / PAGE) : 0;
  for (let i = 0; i < n; i++) pushPath(t.ks, 'cond_resched', e);
  return n ? H_PUSHED : H_CONT;
});
fsReadWrite.hook('write_dispatch', (m, c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  e.file = f;
  // writev's third argument is the iovec count: its bytes are the gathered buffer
  e.count = e.name === 'writev' ? (e.buf as Uint8Array).length : e.a[2] as number;
  e.done = 0;
  switch (f.kind) {
    case 'file': {
      const ino = f.inode!;
      if (ino.isBlk) { e.ret = e.count as number; return H_CONT; }
      e.ino = ino;
      e.pos = e.name === 'pwrite64' ? (e.a[3] as number) : (f.flags & O_APPEND ? ino.size : f.pos);
      pushPath(t.ks, f.flags & O_DIRECT && ino.fs === 'ext4' && ino.isReg ? 'write_direct' : 'write_generic', e);
      return H_PUSHED;
    }
    // a pipe's write end, a FIFO open for writing (O_WRONLY or O_RDWR); vfs_write: EBADF without FMODE_WRITE
    case 'pipe_w': case 'pipe_r':
      if (!(f.flags & 3)) { e.ret = -EBADF; return H_CONT; }
      pushPath(t.ks, 'write_pipe', e); return H_PUSHED;
    case 'sock': e.sock = f.sock; e.sk = f.sock; pushPath(t.ks, 'sock_write', e); return H_PUSHED;
    case 'console': pushPath(t.ks, 'write_tty', e); return H_PUSHED;
    case 'proc': {
      const ino = f.inode!;
      if (f.pseudo) { e.ret = f.pseudo.write(e.buf as Uint8Array, c.ctx); return H_CONT; }
      if (!ino.store) { e.ret = -EPERM; return H_CONT; }
      e.ret = ino.store(Buffer.from(e.buf as Uint8Array).toString('latin1'));
      return H_CONT;
    }
    default: pushPath(t.ks, isNullDev(f) ? 'write_null' : 'write_simple', e); return H_PUSHED;
  }
});
/** /dev/null and /dev/zero: their write is write_null */
const isNullDev = (f: OpenFile): boolean => f.inode?.dev === 'null' || f.inode?.dev === 'zero';
fsReadWrite.hook('simple_write', (m, _c, _t, e) => simpleWrite(m, e));
/** A write to the terminal, /dev/null or another character device (the `write_simple` paths' work). */
function simpleWrite(m: FsMachine, e: Env): number {
  const f = e.file as OpenFile;
  const b = e.buf as Uint8Array;
  if (f instanceof ConsoleFile) f.writer(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'));
  // a character device with a driver (the serial port): its write takes the bytes
  e.ret = f.inode?.cdev ? f.inode.cdev.write(e, b) : b.length;
  // write_null does not look at the data
  if (!isNullDev(f)) m.now += b.length / 4 * m.cpuSlowdown;
  return H_CONT;
}

fsReadWrite.syscall('lseek', (m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  const [, off, wh] = e.a as number[];
  const base = wh === 0 ? 0 : wh === 1 ? f.pos : (f.inode?.size ?? 0);
  if (base + off < 0) { e.ret = -EINVAL; return H_CONT; }
  f.pos = base + off;
  e.ret = f.pos;
  return H_CONT;
});

/**
 * An O_DIRECT pwrite64 (its template, write_direct: write(2) runs its recorded trees): the data goes
 * to the file's blocks in one bio (dioRequest) submitted by the writer; %dio_wait sleeps until it completes.
 */
fsReadWrite.hook('dio_submit', (m, c, t, e) => {
  const { ino, b, pos } = storeWrite(e, m.now);
  const req = dioRequest(c, ino, pos, b.length, true);
  e.dioReq = req;
  pushPath(t.ks, 'bio_submit', newEnv('bio', { req, rq: req, bio: req }));
  return H_PUSHED;
});
fsReadWrite.hook('dio_wait', (_m, _c, t, e) => {
  const req = e.dioReq as BlkRequest | undefined;
  if (!req || req.done) return H_CONT;
  if (!req.waiters.includes(t)) req.waiters.push(t);
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'blk_io_schedule';
  return H_SLEEP;
});

/**
 * copy_file_range(fd_in, off_in, fd_out, off_out, len, flags) (vfs_copy_file_range): ext4 has no
 * remap_file_range, so the kernel copies through the page cache (splice: the copy is cached, so a later
 * read of it hits, as gzip's of the file cp made in data/recordings/gzip); at the files' positions
 * (NULL offsets: both advance), up to len bytes of what the source has left; 0 at its end.
 */
fsReadWrite.syscall('copy_file_range', (m, _c, t, e) => {
  const a = e.a as number[];
  const fi = fdOf(t, a[0]), fo = fdOf(t, a[2]);
  if (!fi || !fo || !(fo.flags & 3)) { e.ret = -EBADF; return H_CONT; }
  const src = fi.inode, dst = fo.inode;
  if (!src || !dst || !src.isReg || !dst.isReg || fi.kind !== 'file' || fo.kind !== 'file') { e.ret = -EINVAL; return H_CONT; }
  if (fo.flags & O_APPEND) { e.ret = -EBADF; return H_CONT; }
  const b = src.readBytes(fi.pos, Math.min(Number(a[4]), 0x7ffff000));
  // splice reads the source with filemap_read, marking its folios accessed: those read before are
  // activated, the mm_lru_activate events its tree fires (mm/filemap.ts 'lru_activate')
  e.lruActivate = markAccessed(src, fi.pos, fi.pos + b.length);
  // the copy goes through the page cache: the destination's pages are cached and dirty, as a write's
  if (b.length) bufferedWrite(m, { file: fo, ino: dst, buf: Uint8Array.from(b), pos: fo.pos, name: 'copy_file_range' });
  fi.pos += b.length;
  e.ret = b.length;
  return H_CONT;
});

/**
 * read(2) and write(2) on their recorded trees, for the files whose work the recordings show: an ext4
 * file's read (a page-cache hit: filemap_get_read_batch, folio_mark_accessed per folio, touch_atime; a
 * miss or a read reaching the readahead marker: page_cache_sync_ra / page_cache_async_ra, the folios
 * allocated and read by ext4_mpage_readpages' bios; an O_DIRECT read: iomap_dio_rw's bio, the caller
 * asleep in blk_io_schedule until it completes), a buffered or O_DIRECT write to one, a write to
 * /dev/null, the terminal, a read of /dev/null.  The rest (pipes, sockets, seq files, block devices,
 * /dev/zero, whose clear_user the recordings cannot show) run their template.
 *
 * The work is done before the tree runs (its outcome chooses the variant: `e.treeFeat`, paths/model.ts
 * TREE_FEATURES); the bios it makes (`e.ioReqs`) are submitted, issued and waited for at the tree's
 * submit_bio, blk_mq_flush_plug_list and io_schedule (block/core.ts); the time the copy takes is spent
 * where the real kernel copies (`copy_time`: filemap_read, generic_perform_write, n_tty_write, whose
 * copies are inlined), so a profile sees it there.
 */
const ext4File = (f: OpenFile | null): f is OpenFile =>
  f !== null && f.kind === 'file' && !!f.inode && f.inode.isReg && !f.inode.isBlk && f.inode.fs === 'ext4' && !f.pseudo;
const devNull = (f: OpenFile): boolean => f.kind === 'dev' && f.inode?.dev === 'null';
/** Run `work` with the machine's time it takes kept in e.copyNs for `copy_time`. */
function timed(m: FsMachine, e: Env, work: () => void): number {
  const t0 = m.now;
  work();
  e.copyNs = m.now - t0;
  m.now = t0;
  return H_CONT;
}
fsReadWrite.cond('recorded_read', (_m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f || (f.flags & 3) === 1) return false;
  // a /proc file a recording read: the recorded seq_file / access_remote_vm trees of its kind (procfs
  // owns the text); one no recording read runs the template (another file's tree would call its show function)
  if (f.kind === 'proc' && f.inode?.procKind) return keyHasFeature('sys:read', f.inode.procKind);
  return devNull(f) || ext4File(f);
});
/**
 * An O_DIRECT transfer of `f` at `pos` (iomap_dio_rw): one bio of the file's blocks, REQ_OP_READ or
 * REQ_OP_WRITE | REQ_SYNC | REQ_IDLE ("WS" in the guest's block_rq_issue events of dd oflag=direct),
 * completed by iomap_dio_bio_end_io; the page cache is not used.
 */
function dioRequest(c: Cpu, ino: Inode, pos: number, bytes: number, write: boolean): BlkRequest {
  return {
    ino, pages: [], write, swap: false, sector: (ino.diskBlock + Math.floor(pos / PAGE)) * 8, bytes,
    cpu: c.id, waiters: [], flags: write ? REQ_SYNC | REQ_IDLE : 0, dio: true,
  };
}
fsReadWrite.syscall('read', (m, c, t, e) => {
  const f = fdOf(t, e.a[0])!;
  e.file = f;
  e.count = e.a[2] as number;
  e.pos = f.pos;
  if (!ext4File(f)) return simpleRead(m, t, e);
  const ino = f.inode!;
  e.ino = ino;
  const pos = f.pos;
  const end = Math.min(ino.size, pos + (e.count as number));
  if (f.flags & O_DIRECT) {
    const b = ino.readBytes(pos, Math.max(0, end - pos));
    f.pos = pos + b.length;
    e.data = b;
    e.ret = b.length;
    if (b.length) {
      e.ioReqs = [(e.req = dioRequest(c, ino, pos, b.length, false))];
      e.ioBlocked = true;
      e.treeFeat = ['dio'];
    }
    return H_CONT;
  }
  const io = readahead(m, c.id, f, ino, pos, end);
  const act = markAccessed(ino, pos, end);
  // the tree features this read's state gives (paths/model.ts TREE_FEATURES 'sys:read')
  e.treeFeat = [io.sync && 'sra', io.async && 'ara', io.pages > 0 && 'rap', act && 'act'].filter((x): x is string => !!x);
  // (e.req: the bio submit_bio and the block tracepoints see; block/core.ts moves it on per request)
  if (io.reqs.length) { e.ioReqs = io.reqs; e.req = io.reqs[0]; }
  // a synchronous readahead's pages are waited for in the tree (io_schedule); others at touch_atime (read_wait)
  e.ioBlocked = io.sync && io.pages > 0;
  e.readPos = pos;
  e.readEnd = end;
  return timed(m, e, () => {
    const b = cachedRead(m, e, ino, f, pos, e.count as number);
    e.folios = Math.ceil(b.length / PAGE);
  });
});
fsReadWrite.cond('recorded_write', (_m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f || !(f.flags & 3)) return false;
  return f.kind === 'console' || devNull(f) || f.inode?.cdev != null || ext4File(f);
});
fsReadWrite.syscall('write', (m, c, t, e) => {
  const f = fdOf(t, e.a[0])!;
  e.file = f;
  e.count = e.a[2] as number;
  if (!ext4File(f)) return timed(m, e, () => simpleWrite(m, e));
  const ino = f.inode!;
  e.ino = ino;
  e.pos = f.flags & O_APPEND ? ino.size : f.pos;
  if (f.flags & O_DIRECT) {
    // the file's blocks before the write (a direct write allocates those past them: mbAllocate)
    const allocated = Math.ceil(ino.size / PAGE);
    const { b, pos } = storeWrite(e, m.now);
    if (b.length) {
      e.ioReqs = [(e.req = dioRequest(c, ino, pos, b.length, true))];
      e.ioBlocked = true;
      // ext4_ext_map_blocks finds an extent (ext4_ext_show_extent) when the file has blocks
      e.extBefore = allocated > 0;
      const end = Math.ceil((pos + b.length) / PAGE);
      const first = Math.max(allocated, Math.floor(pos / PAGE));
      // the blocks it allocates (the allocation's events: paths/trace_ext4.ts)
      if (end > first) e.mb = mbAllocate(ino, first, end - first, allocated);
      e.treeFeat = ['dio'];
    }
    return H_CONT;
  }
  return timed(m, e, () => bufferedWrite(m, e));
});
/**
 * pwrite64(2) runs its recorded trees (ext4_file_write_iter's buffered write: data/recordings/dbench)
 * for a buffered write of an ext4 file or /dev/null; an O_DIRECT one keeps its template (write_direct).
 */
fsReadWrite.cond('recorded_pwrite64', (_m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f || !(f.flags & 3)) return false;
  return devNull(f) || (ext4File(f) && !(f.flags & O_DIRECT));
});
fsReadWrite.syscall('pwrite64', (m, _c, t, e) => {
  const f = fdOf(t, e.a[0])!;
  e.file = f;
  e.count = e.a[2] as number;
  if (!ext4File(f)) return timed(m, e, () => simpleWrite(m, e));
  e.ino = f.inode!;
  e.pos = e.a[3] as number;
  return timed(m, e, () => bufferedWrite(m, e));
});
fsReadWrite.hook('copy_time', (m, _c, _t, e) => {
  const ns = e.copyNs;
  if (typeof ns === 'number' && ns > 0) { m.now += ns; e.copyNs = 0; }
  return H_CONT;
});
fsReadWrite.at('filemap_read', 'copy_time', 'exit');
fsReadWrite.at('generic_perform_write', 'copy_time', 'exit');
fsReadWrite.at('n_tty_write', 'copy_time', 'exit');
// filemap_read marks each folio it copied accessed
fsReadWrite.count('folio_mark_accessed', (_m, _c, _t, e) => (typeof e.folios === 'number' ? e.folios : undefined));
