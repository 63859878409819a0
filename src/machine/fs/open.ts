/**
 * Opening and closing files (fs/open.c, fs/namei.c path_openat / do_open, fs/file.c): the
 * errors found before the file is opened, the open itself (creating, truncating, appending;
 * binding the struct file path_openat allocated), close (the last reference goes through
 * __fput), dup2 and chdir.
 */
import { Fs, atDir } from './namei';
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { pushPath, H_CONT, H_PUSHED } from '../paths/kexec';
import { Task, RW_TASKWORK } from '../include/sched';
import type { Cpu } from '../include/cpu';
import type { Env } from '../include/kstack';
import { OpenFile, S_IFMT, S_IFREG, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY, O_WRONLY, O_PATH, PAGE } from '../include/fs';
import type { Inode } from '../include/fs';
import { fdOf, installFd } from '../include/fdtable';
import { drain } from '../kernel/sched/core';
import { kmem } from '../../kernel/memory';
import { fillFile } from './layout';
import { journalOf, ext4Truncated, ext4ReleaseFile, ext4DirFnames } from './ext4';
import { truncating } from '../mm/filemap';
import { fifoOpen, fifoWaiting } from './pipe';

const ENXIO = 6, ENOENT = 2, EBADF = 9, EEXIST = 17, ENOTDIR = 20, EISDIR = 21, EINVAL = 22;

export const fsOpen = new Semantics<FsMachine>('fs/open');

/** The open itself (lookup, create, the checks of do_open, the file opened and installed: fd_install). */
function openAt(m: FsMachine, c: Cpu, t: Task, e: Env, dfd: unknown, p: string, flags: number, mode: number): number {
  // the open of a FIFO that slept for its partner, woken
  const waited = fifoWaiting(e);
  if (waited) return fifoOpen(c, t, e, waited, flags, (f) => opened(t, e, f));
  const fs = m.fs;
  const cwd = atDir(m, t, dfd, p);
  let ino = fs.lookup(p, cwd);
  // (a file this open creates is not truncated: do_open's FMODE_CREATED)
  const created = !ino;
  if (!ino) {
    if (!(flags & O_CREAT)) { e.ret = -ENOENT; return H_CONT; }
    const pp = fs.lookupParent(p, cwd);
    if (!pp) { e.ret = -ENOENT; return H_CONT; }
    // tracefs / debugfs: no files are created by open
    if (pp.dir.pseudo || pp.dir.mounted?.pseudo) { e.ret = -13; return H_CONT; }
    ino = fs.mk(S_IFREG | (mode & 0o777 & ~t.proc.umask), pp.dir.fs === 'proc' ? 'ext4' : pp.dir.fs);
    ino.data = Buffer.alloc(0);
    ino.uid = t.euid;
    fs.allocExtent(ino);
    fs.link(pp.dir, pp.name, ino);
  } else if (flags & O_CREAT && flags & O_EXCL) { e.ret = -EEXIST; return H_CONT; }
  if (flags & O_DIRECTORY && !ino.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  if (ino.isDir && (flags & 3)) { e.ret = -EISDIR; return H_CONT; }
  // a socket's node, a device node no driver has (chrdev_open, blkdev_open): ENXIO
  if (!(flags & O_PATH) && ((ino.mode & S_IFMT) === 0o140000 || ((ino.isChr || ino.isBlk) && !ino.dev))) { e.ret = -ENXIO; return H_CONT; }
  // a FIFO's f_op->open (an O_PATH open calls no open method)
  if (ino.isFifo && !(flags & O_PATH)) return fifoOpen(c, t, e, ino, flags, (f) => opened(t, e, f));
  let f: OpenFile;
  if (ino.pseudo && !ino.isDir) {
    // a tracefs/debugfs file: its file_operations' open (which may refuse: EBUSY, EPERM ...); named by
    // its path under /sys, the walk left RCU mode in sysfs (kernfs_iop_permission) and crossed the
    // tracefs/debugfs mount point in ref-walk mode (__traverse_mounts: paths/model.ts TREE_FEATURES)
    if (p.startsWith('/sys/')) e.treeFeat = ['mnt'];
    const h = ino.pseudo.open ? ino.pseudo.open(flags, { ctx: c.ctx }) : -22;
    if (typeof h === 'number') { e.ret = h; return H_CONT; }
    f = new OpenFile('proc', ino, flags);
    f.pseudo = h;
    f.onClose = () => { h.release(); };
  } else if (ino.isDir) f = new OpenFile('dir', ino, flags);
  else if (ino.show) { f = new OpenFile('proc', ino, flags); f.text = Buffer.from(ino.show(), 'latin1'); }
  else if (ino.dev && ino.dev !== 'sda' && ino.dev !== 'sda1' && ino.dev !== 'sda2') f = new OpenFile('dev', ino, flags);
  else {
    f = new OpenFile('file', ino, flags);
    // ext4_release_file at the file's last release: one that close(2) does not make (a dup2 over its
    // descriptor, an exit, an exec's close-on-exec: the machine runs no deferred fput for those) only ends
    // the inode's EXT4_STATE_DA_ALLOC_CLOSE, its pages left to the flusher
    const file = ino;
    if (file.fs === 'ext4' && file.isReg) f.onClose = () => { ext4ReleaseFile(m, file); };
  }
  if (flags & O_TRUNC && ino.isReg && !ino.show) truncateFile(m, ino, 0, e, created);
  if (flags & O_APPEND) f.pos = ino.size;
  opened(t, e, f);
  return H_CONT;
}
/** The open's file installed (fd_install): the struct file and fd the rest of the open path sees from do_dentry_open on. */
function opened(t: Task, e: Env, f: OpenFile): void {
  e.ret = installFd(t, f);
  e.opened = f;
  e.fd = e.ret;
}
/**
 * do_dentry_open: the file the open made is the struct file path_openat allocated (bound to its address
 * when a probe has seen it, laid out as opened); before it, probes see the struct as alloc_empty_file left it.
 */
fsOpen.hook('open_bind', (_m, _c, _t, e) => {
  const f = e.opened;
  if (!(f instanceof OpenFile) || e.name !== 'openat') return H_CONT;
  if (typeof e.filpAddr === 'number') { kmem.bind(f, e.filpAddr); fillFile(kmem, e.filpAddr, f); }
  e.file = f;
  return H_CONT;
});
fsOpen.at('do_dentry_open', 'open_bind');
/**
 * openat(2) on its recorded trees: the open, then (a failure) the struct file path_openat allocated is
 * freed by the deferred fput on the way back to user mode, as the recordings show (task_work_run ____fput).
 */
fsOpen.syscall('openat', (m, c, t, e) => {
  const r = openAt(m, c, t, e, e.a[0], String(e.a[1]), Number(e.a[2]), Number(e.a[3]));
  if (e.ret < 0) t.resumeWork |= RW_TASKWORK;
  return r;
});
/** creat(path, mode): open(path, O_CREAT|O_WRONLY|O_TRUNC, mode) (fs/open.c); it runs no recorded tree, so the file is the one it opened */
fsOpen.syscall('creat', (m, c, t, e) => {
  const r = openAt(m, c, t, e, -100, String(e.a[0]), O_CREAT | O_WRONLY | O_TRUNC, Number(e.a[1]));
  if (e.opened instanceof OpenFile) e.file = e.opened;
  return r;
});

/** Close descriptor `fd` of `t` (close_fd: pick_file, filp_close): the file, or null when none is open there. */
function closeFd(t: Task, fd: number): OpenFile | null {
  const f = fdOf(t, fd);
  if (!f) return null;
  t.proc.fds[fd] = null;
  f.close();
  return f;
}
fsOpen.hook('close', (m, c, t, e) => {
  const f = closeFd(t, e.a[0] as number);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  e.ret = 0;
  if (f.refs === 0) pushPath(t.ks, 'close_file', e);
  const r = drain(c);
  return f.refs === 0 || r === H_PUSHED ? H_PUSHED : H_CONT;
});
/**
 * close on its recorded trees (paths/syscall.ts RECORDED_WHEN): the descriptor's file goes; when that
 * was its last reference, the deferred fput runs on the way back to user mode (task_work_run: the
 * recorded `tail:task_work_run` of a close of that kind of file, ____fput __fput ...).  A socket's
 * release keeps its template (close_file: sock_close's semantics sit on its lines).
 */
fsOpen.cond('recorded_close', (_m, _c, t, e) => {
  const f = fdOf(t, e.a[0] as number);
  return !!f && f.kind !== 'sock';
});
fsOpen.hook('close_recorded', (m, c, t, e) => {
  // the deferred fput of the file's last reference runs ext4_release_file: its auto_da_alloc flush
  // (fs/ext4.ts ext4ReleaseFile; decided before the close's onClose ends the state)
  const last = fdOf(t, e.a[0] as number);
  const da = last?.refs === 1 && last.kind === 'file' && !!last.inode && ext4ReleaseFile(m, last.inode);
  // ... and of a directory read through the htree code, ext4_release_dir's free of its fnames (fs/ext4.ts ext4DirFnames)
  const fnames = last?.refs === 1 ? ext4DirFnames(last) : -1;
  const f = closeFd(t, e.a[0] as number);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  e.ret = 0;
  if (f.refs === 0) {
    t.resumeWork |= RW_TASKWORK;
    if (da) { e.tailFeat = ['da']; e.daIno = f.inode; }
    // (a recorded release of a directory about as big: its kfrees, free_rb_tree_fname's and the dir_info's,
    // nearest the machine's; a tree whose frees are one repeated call takes the count itself, ext4.ts)
    if (fnames >= 0) { e.tailFeat = ['fn']; e.dirFnames = fnames; e.treeCount = ['tail:task_work_run', 'kfree', fnames + 1]; }
  }
  return drain(c);
});
fsOpen.syscall('dup2', (_m, _c, t, e) => {
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
});
/** fchdir(fd): the directory open on fd becomes the working directory */
fsOpen.syscall('fchdir', (m, _c, t, e) => {
  const ino = fdOf(t, e.a[0])?.inode;
  if (!ino) { e.ret = -EBADF; return H_CONT; }
  if (!ino.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  t.proc.cwd = m.fs.pathOf(ino);
  e.ret = 0;
  return H_CONT;
});
fsOpen.syscall('chdir', (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  if (!ino.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  t.proc.cwd = '/' + Fs.parts(p, t.proc.cwd).join('/');
  e.ret = 0;
  return H_CONT;
});
/**
 * do_truncate of a regular file to `n` bytes: the pages past the end leave the page cache; ext4 frees
 * the blocks past it (written again, they are allocated anew: fdatasync then commits)
 */
function truncateFile(m: FsMachine, ino: Inode, n: number, e: Env, created = false): void {
  if (ino.fs === 'ext4' && ino.size > n) journalOf(m).reallocated.add(ino);
  if (!created) ext4Truncated(m, ino, n);
  truncating(e, ino, Math.ceil(n / PAGE));
  if (n === 0) {
    m.mm.filePages -= ino.cachedPages; m.mm.freePages += ino.cachedPages;
    ino.pc.fill(0); ino.cachedPages = 0; ino.dirtyPages = 0;
  } else {
    let dropped = 0;
    for (let i = Math.ceil(n / PAGE); i < ino.pc.length; i++) {
      if (!ino.pc[i]) continue;
      dropped++;
      if (ino.pc[i] === 2) ino.dirtyPages--;
      ino.pc[i] = 0;
    }
    ino.cachedPages -= dropped; m.mm.filePages -= dropped; m.mm.freePages += dropped;
  }
  ino.truncate(n);
}
/** ftruncate(fd, length): a regular file open for writing (EINVAL otherwise, as fs/open.c do_sys_ftruncate) */
fsOpen.syscall('ftruncate', (m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  const n = Number(e.a[1]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  if (!f.inode || !f.inode.isReg || f.inode.show || !(f.flags & 3) || n < 0) { e.ret = -EINVAL; return H_CONT; }
  truncateFile(m, f.inode, n, e);
  e.ret = 0;
  return H_CONT;
});
/** dup(fd): the file at the lowest free descriptor (fs/file.c ksys_dup) */
fsOpen.syscall('dup', (_m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  e.ret = f ? installFd(t, f.dup()) : -EBADF;
  return H_CONT;
});
