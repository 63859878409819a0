/**
 * File attributes and links (fs/attr.c, fs/namei.c's link/symlink, fs/stat.c's readlink,
 * fs/statfs.c, fs/open.c's chown/chmod on a descriptor): fchmodat(2), fchmod(2), fchown(2), symlinkat(2),
 * linkat(2), readlinkat(2), statfs(2), fstatfs(2) — what chmod, ln, ls -l (link targets), stat, df, gzip and rm use.
 */
import type { FsMachine } from './namei';
import { atDir } from './namei';
import { superMagic } from './layout';
import { mountRootOf, mountSizeKb } from './proc_namespace';
import type { Env } from '../include/kstack';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { S_IFLNK, S_IFMT, PAGE } from '../include/fs';
import type { Inode } from '../include/fs';
import { fdOf } from '../include/fdtable';

const ENOENT = 2, EBADF = 9, EPERM = 1, EEXIST = 17, EINVAL = 22;

export const fsAttr = new Semantics<FsMachine>('fs/attr');

/** chmod_common (fs/open.c): the permission bits of an inode; proc and pseudo files refuse */
function chmodCommon(ino: Inode, mode: number): number {
  if (ino.fs === 'proc' || ino.pseudo) return -EPERM;
  ino.mode = (ino.mode & S_IFMT) | (mode & 0o7777);
  return 0;
}
/** fchmodat(dfd, path, mode): a relative path resolves against dfd, as every *at call does */
fsAttr.syscall('fchmodat', (m, _c, t, e) => {
  const ino = m.fs.lookup(String(e.a[1]), atDir(m, t, e.a[0], e.a[1]));
  e.ret = ino ? chmodCommon(ino, Number(e.a[2])) : -ENOENT;
  return H_CONT;
});
/** chmod(path, mode): fchmodat relative to the working directory (glibc's lchmod: chmod of /proc/self/fd/N) */
fsAttr.syscall('chmod', (m, _c, t, e) => {
  const ino = m.fs.lookup(String(e.a[0]), t.proc.cwd);
  e.ret = ino ? chmodCommon(ino, Number(e.a[1])) : -ENOENT;
  return H_CONT;
});
/** fchmod(fd, mode): chmod_common on the open file's inode */
fsAttr.syscall('fchmod', (_m, _c, t, e) => {
  const ino = fdOf(t, e.a[0])?.inode;
  e.ret = ino ? chmodCommon(ino, Number(e.a[1])) : -EBADF;
  return H_CONT;
});
/** fchown(fd, uid, gid): chown_common (-1 keeps the id) */
fsAttr.syscall('fchown', (_m, _c, t, e) => {
  const ino = fdOf(t, e.a[0])?.inode;
  if (!ino) { e.ret = -EBADF; return H_CONT; }
  const [, uid, gid] = (e.a as number[]).map(Number);
  if (uid !== -1 && uid !== 0xffffffff) ino.uid = uid;
  if (gid !== -1 && gid !== 0xffffffff) ino.gid = gid;
  e.ret = 0;
  return H_CONT;
});
fsAttr.syscall('symlinkat', (m, _c, t, e) => {
  const p = String(e.a[2]);
  if (m.fs.lookup(p, t.proc.cwd, true)) { e.ret = -EEXIST; return H_CONT; }
  const pp = m.fs.lookupParent(p, t.proc.cwd);
  if (!pp || pp.dir.pseudo) { e.ret = -ENOENT; return H_CONT; }
  const ino = m.fs.mk(S_IFLNK | 0o777, pp.dir.fs);
  ino.target = String(e.a[0]);
  ino.size = ino.target.length;
  ino.uid = t.euid;
  m.fs.link(pp.dir, pp.name, ino);
  e.ret = 0;
  return H_CONT;
});
fsAttr.syscall('linkat', (m, _c, t, e) => {
  const ino = m.fs.lookup(String(e.a[1]), t.proc.cwd, (Number(e.a[4]) & 0x400) === 0);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  if (ino.isDir) { e.ret = -EPERM; return H_CONT; }
  const p = String(e.a[3]);
  if (m.fs.lookup(p, t.proc.cwd, true)) { e.ret = -EEXIST; return H_CONT; }
  const pp = m.fs.lookupParent(p, t.proc.cwd);
  if (!pp || pp.dir.pseudo) { e.ret = -ENOENT; return H_CONT; }
  pp.dir.children!.set(pp.name, ino);
  pp.dir.mtime = m.now;
  ino.nlink++;
  e.ret = 0;
  return H_CONT;
});
/** readlinkat(dfd, path, buf, size) and readlink(path, buf, size) (fs/stat.c do_readlinkat) */
function readlinkAt(m: FsMachine, cwd: string, p: string, size: number, e: Env): number {
  const ino = m.fs.lookup(p, cwd, true);
  if (!ino) return -ENOENT;
  if (!ino.isLnk) return -EINVAL;
  const s = ino.target.slice(0, size || 4096);
  e.info = { target: s };
  return s.length;
}
fsAttr.syscall('readlinkat', (m, _c, t, e) => {
  e.ret = readlinkAt(m, atDir(m, t, e.a[0], e.a[1]), String(e.a[1]), Number(e.a[3]), e);
  return H_CONT;
});
fsAttr.syscall('readlink', (m, _c, t, e) => {
  e.ret = readlinkAt(m, t.proc.cwd, String(e.a[0]), Number(e.a[2]), e);
  return H_CONT;
});
/**
 * statfs(2): the filesystem of a path, as the real guest's are (ext4 on the 2 GiB sda1 with 4 KiB
 * blocks; tmpfs/devtmpfs sized from memory; proc, sysfs and the others with no blocks).
 */
function statfsOf(m: FsMachine, ino: Inode): Record<string, number> {
  let fsUsed = 0;
  let files = 0;
  if (ino.fs === 'ext4') {
    const walk = (d: typeof ino) => {
      for (const c of d.children?.values() ?? []) {
        if (c.fs !== 'ext4' || c === d) continue;
        files++;
        if (c.isReg) fsUsed += Math.ceil(c.size / PAGE);
        else if (c.isDir) { fsUsed += 1; walk(c); }
      }
    };
    walk(m.fs.root);
  }
  const total = Math.floor((m.fs.lookup('/dev/sda1')?.size ?? 0) / PAGE) || m.fs.sdaBlocks;
  const type = superMagic(ino.fs);
  const info = ino.fs === 'ext4'
    ? { type, bsize: PAGE, blocks: total, bfree: total - fsUsed - 9000, bavail: total - fsUsed - 9000 - Math.floor(total * 0.05), files: 4194304, ffree: 4194304 - files - 11 }
    : ino.fs === 'tmpfs' || ino.fs === 'devtmpfs'
      ? tmpfsInfo(type, m, ino)
      : { type, bsize: PAGE, blocks: 0, bfree: 0, bavail: 0, files: 0, ffree: 0 };
  return info;
}
/**
 * tmpfs and devtmpfs: the size= of the mount the file is on (proc_namespace.ts), else half of memory,
 * tmpfs's default; the pages its files hold are used (shmem_statfs: max_blocks - used_blocks)
 */
function tmpfsInfo(type: number, m: FsMachine, ino: Inode): Record<string, number> {
  const root = mountRootOf(ino);
  const kb = root ? mountSizeKb(m.fs, root) : undefined;
  const blocks = kb ? kb / 4 : Math.floor(m.mm.totalPages / 2);
  let used = 0;
  const walk = (d: Inode): void => {
    for (const c of d.children?.values() ?? []) {
      if (c.fs !== ino.fs || c === d || c.parent !== d) continue;
      if (c.isReg) used += Math.ceil(c.size / PAGE);
      else if (c.isDir) walk(c);
    }
  };
  if (root) walk(root);
  const free = Math.max(0, blocks - used);
  return { type, bsize: PAGE, blocks, bfree: free, bavail: free, files: 250000, ffree: 249990 };
}
fsAttr.syscall('statfs', (m, _c, t, e) => {
  const ino = m.fs.lookup(String(e.a[0]), t.proc.cwd);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  e.info = statfsOf(m, ino);
  e.ret = 0;
  return H_CONT;
});
/** fstatfs(fd, buf): the file system of an open file (fts asks it of each directory it reads) */
fsAttr.syscall('fstatfs', (m, _c, t, e) => {
  const ino = fdOf(t, e.a[0])?.inode;
  if (!ino) { e.ret = -EBADF; return H_CONT; }
  e.info = statfsOf(m, ino);
  e.ret = 0;
  return H_CONT;
});
