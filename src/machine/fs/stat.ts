/** stat(2) (fs/stat.c) and getdents64(2) (fs/readdir.c). */
import type { FsMachine } from './namei';
import { atDir } from './namei';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { Inode } from '../include/fs';
import { fdOf } from '../include/fdtable';
import type { StatInfo } from '../include/fs';
import { ext4DirBlocks, ext4Fills, ext4ReaddirOrder } from './ext4_dirhash';
import { mountRootOf } from './proc_namespace';

const ENOENT = 2, EBADF = 9, ENOTDIR = 20;

export const fsStat = new Semantics<FsMachine>('fs/stat');

/** st_dev of each filesystem, as the real guest's mountinfo shows (sda1 8:1, proc 0:19, sysfs 0:20, devtmpfs 0:5 ...) */
const ST_DEV: Record<string, number> = { ext4: 0x801, proc: 19, sysfs: 20, devtmpfs: 5, tmpfs: 23, pipefs: 13, sockfs: 8, tracefs: 12, debugfs: 7 };

function statOf(ino: Inode): StatInfo {
  // ext4 directories take one 4 KiB block; regular files whole blocks (st_blocks counts 512-byte units)
  const ext4 = ino.fs === 'ext4';
  const size = ino.show ? 0 : ino.isBlk ? 0 : ext4 && ino.isDir ? Math.max(4096, ino.size) : ino.size;
  return {
    ino: ino.ino, mode: ino.mode, nlink: ino.nlink, uid: ino.uid, gid: ino.gid,
    size, mtime: ino.mtime, isDir: ino.isDir, isReg: ino.isReg, isLnk: ino.isLnk,
    isChr: ino.isChr, isBlk: ino.isBlk, rdev: ino.rdev,
    atime: ino.atime, blocks: ext4 && (ino.isReg || ino.isDir) ? Math.ceil(size / 4096) * 8 : 0, dev: ino.fs === 'tmpfs' ? mountRootOf(ino)?.mountMinor ?? ST_DEV.tmpfs : ST_DEV[ino.fs] ?? 0, blksize: 4096,
  };
}
/** fstat of the terminal a command writes to (a console file has no inode): the pseudo-terminal /dev/pts/0, crw--w---- 136,0 */
const TTY_STAT: StatInfo = { ino: 3, mode: 0o20620, nlink: 1, uid: 0, gid: 5, size: 0, mtime: 0, isDir: false, isReg: false, isLnk: false, isChr: true, isBlk: false, rdev: 136 << 8 };
/** fstat of a pipe end (a pipefs inode, not in the tree): prw------- of the task's user, size 0, st_dev 0:13 (strace of Debian 12's wc reading a pipe) */
const pipeStat = (uid: number, gid: number): StatInfo => ({ ino: 0, mode: 0o10600, nlink: 1, uid, gid, size: 0, mtime: 0, isDir: false, isReg: false, isLnk: false, isChr: false, isBlk: false, rdev: 0, blocks: 0, dev: ST_DEV.pipefs, blksize: 4096 });
fsStat.hook('stat', (m, _c, t, e) => {
  const flags = Number(e.a[3]);
  let ino: Inode | null;
  const kind = flags & 0x1000 ? fdOf(t, e.a[0])?.kind : undefined;
  if (kind === 'console') { e.info = { ...TTY_STAT } as unknown as Record<string, unknown>; e.ret = 0; return H_CONT; }
  if ((kind === 'pipe_r' || kind === 'pipe_w') && !fdOf(t, e.a[0])!.inode) { e.info = pipeStat(t.euid, t.egid) as unknown as Record<string, unknown>; e.ret = 0; return H_CONT; }
  if (flags & 0x1000) ino = fdOf(t, e.a[0])?.inode ?? null;
  else ino = m.fs.lookup(String(e.a[1]), atDir(m, t, e.a[0], e.a[1]), (flags & 0x100) !== 0);
  if (!ino) { e.ret = (flags & 0x1000) ? -EBADF : -ENOENT; return H_CONT; }
  e.info = statOf(ino) as unknown as Record<string, unknown>;
  e.ret = 0;
  return H_CONT;
});
/** statx(dfd, path, flags, mask, buf): the same lookup as newfstatat (AT_EMPTY_PATH 0x1000, AT_SYMLINK_NOFOLLOW 0x100) */
fsStat.syscall('statx', (m, _c, t, e) => {
  const flags = Number(e.a[2]);
  const ino = flags & 0x1000 ? fdOf(t, e.a[0])?.inode ?? null : m.fs.lookup(String(e.a[1]), atDir(m, t, e.a[0], e.a[1]), (flags & 0x100) !== 0);
  if (!ino) { e.ret = flags & 0x1000 ? -EBADF : -ENOENT; return H_CONT; }
  e.info = statOf(ino) as unknown as Record<string, unknown>;
  e.ret = 0;
  return H_CONT;
});
/** An ext4 directory of the disk (not a computed one): read through the htree code (ext4_dx_readdir) */
const htree = (d: Inode): boolean => d.fs === 'ext4' && !d.pseudo && !d.dyn;

fsStat.syscall('getdents64', (m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f || !f.inode) { e.ret = -EBADF; return H_CONT; }
  if (!f.inode.isDir) { e.ret = -ENOTDIR; return H_CONT; }
  if (!f.dirNames) {
    const d = f.inode;
    // an ext4 directory in its htree order (ext4_dirhash.ts); the others as their filesystem keeps them
    f.dirNames = htree(d) ? ext4ReaddirOrder(d.children!.keys(), ext4DirBlocks(d))
      : ['.', '..', ...(d.pseudo?.list ? d.pseudo.list() : d.children!.keys()), ...(d.dyn?.list() ?? [])];
  }
  const from = f.pos;
  const names = f.dirNames.slice(from, from + 512);
  f.pos += names.length;
  // the call's tree is one that stored about as many entries in the readdir's rb-tree (ext4_htree_store_dirent:
  // each a kmalloc) as ext4_dx_readdir's fills store in this call (ext4Fills; paths/entry.ts sys_body), and
  // its free_rb_tree_fname frees the fnames the fills free (fs/ext4.ts count rule of kfree: e.dirFnames)
  if (htree(f.inode)) {
    const fills = ext4Fills(f.dirNames.length, ext4DirBlocks(f.inode), from, f.pos);
    e.zapPages = fills.stores;
    e.zapFn = 'ext4_htree_store_dirent';
    e.dirFnames = fills.frees;
  }
  // d_type of each entry (DT_DIR 4, DT_REG 8, DT_LNK 10, DT_CHR 2, DT_BLK 6; DT_UNKNOWN 0 for computed entries)
  const kids = f.inode.children;
  const types = names.map((n) => {
    const c = n === '.' || n === '..' ? f.inode : kids?.get(n);
    return !c ? 0 : c.isDir ? 4 : c.isReg ? 8 : c.isLnk ? 10 : c.isChr ? 2 : c.isBlk ? 6 : 0;
  });
  // d_ino of each entry (0 where the directory has no inode for it: computed entries)
  const inos = names.map((n) => (n === '.' ? f.inode!.ino : n === '..' ? (f.inode!.parent ?? f.inode!).ino : kids?.get(n)?.ino ?? 0));
  e.info = { names, types, inos };
  e.ret = names.reduce((a, n) => a + 24 + n.length, 0);
  return H_CONT;
});
