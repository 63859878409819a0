/**
 * The filesystem tree (the dcache and path lookup of fs/namei.c, inode creation): one tree with
 * an ext4 root on /dev/sda1, procfs at /proc, devtmpfs at /dev, sysfs at /sys and tmpfs at /tmp;
 * lookups that follow symlinks, parent lookups, and the helpers that build the tree.  Inodes and
 * open files are include/fs.ts; what system calls do with them is in open.ts, read_write.ts,
 * stat.ts and, for directories (mkdir, unlink, rename) and the path walk, below.
 */
import type { MachineCore } from '../core/machine';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { Inode, LazyDir, OpenFile, FsType, PAGE, S_IFMT, S_IFDIR, S_IFREG, S_IFLNK, S_IFCHR, S_IFBLK, S_IFIFO } from '../include/fs';
import { Semantics } from '../paths/semantics';
import { procFileKind } from '../paths/features';
import { pushPath, H_CONT, H_PUSHED } from '../paths/kexec';
import { fdOf } from '../include/fdtable';
import type { MmMachine } from '../mm/mm';
import { truncating } from '../mm/filemap';
import type { PseudoNode } from '../../kernel/tracefs/vfs';

/**
 * The machine as the filesystem uses it: its tree, memory (page-cache accounting, /proc/meminfo)
 * and from the process layer above, the journal thread and what /proc shows of the processes.
 */
export interface FsMachine extends MmMachine {
  readonly fs: Fs;
  readonly procs: { readonly jbd2: Task | null; readonly tasks: Map<number, Task>; readonly nextPid: number };
}

const ENOENT = 2, EBUSY = 16, EEXIST = 17, ENOTDIR = 20, EISDIR = 21, ENOTEMPTY = 39;

export interface FsStat {
  files: number;
}

/** Full path -> its normalised components (Fs.parts), bounded */
const partsMemo = new Map<string, readonly string[]>();
const PARTS_MEMO_MAX = 4096;

function splitPath(full: string): string[] {
  const out: string[] = [];
  const n = full.length;
  let i = 0;
  while (i < n) {
    let j = full.indexOf('/', i);
    if (j < 0) j = n;
    if (j > i) {
      const s = full.slice(i, j);
      if (s === '..') out.pop();
      else if (s !== '.') out.push(s);
    }
    i = j + 1;
  }
  return out;
}

export class Fs {
  readonly root: Inode;
  private nextIno = 2;
  /** next free disk block on /dev/sda1 for file extents */
  nextBlock = 1 << 16;
  readonly sdaBlocks = 64 * 1024 * 1024 / 4; // 64 GiB disk
  /** inodes with dirty page-cache pages */
  readonly dirty = new Set<Inode>();
  /** tasks in sync(2) waiting for the flusher's writeback to complete (fs/sync.ts, mm/page_writeback.ts) */
  readonly syncWaiters: Task[] = [];
  /** An empty tree (the root directory); the machine then populates it (userland/fstree.ts). */
  constructor(private m: MachineCore) {
    this.root = this.mk(S_IFDIR | 0o755, 'ext4');
    this.root.parent = this.root;
  }

  mk(mode: number, fs: FsType): Inode {
    const ino = (fs === 'ext4' && this.nextIno === 2) ? 2 : this.nextIno;
    this.nextIno = Math.max(this.nextIno, ino) + 1;
    return new Inode(ino, mode, fs, this.m.now);
  }

  /** The next inode number, taken without making an inode (what `mk` numbers its inode). */
  takeIno(): number {
    return this.nextIno++;
  }

  /** `n` inode numbers taken at once (the first of them): a tree made later numbers its entries in them */
  reserveInos(n: number): number {
    const first = this.nextIno;
    this.nextIno += n;
    return first;
  }

  /**
   * Split and normalise a path relative to cwd. The result is shared (memoized per full path:
   * workloads resolve the same few paths over and over): callers must not modify it.
   */
  static parts(p: string, cwd: string): readonly string[] {
    const full = p.charCodeAt(0) === 47 /* '/' */ ? p : `${cwd}/${p}`;
    let out = partsMemo.get(full);
    if (out !== undefined) return out;
    out = splitPath(full);
    if (partsMemo.size >= PARTS_MEMO_MAX) partsMemo.clear();
    partsMemo.set(full, out);
    return out;
  }

  /** Resolve a path to an inode (following symlinks, except a final one when nofollow). */
  lookup(p: string, cwd = '/', nofollow = false, depth = 0): Inode | null {
    if (depth > 8) return null;
    const parts = Fs.parts(p, cwd);
    return this.walkParts(parts, parts.length, nofollow, depth);
  }

  /** Resolve the first `n` components of a split absolute path (see lookup). */
  private walkParts(parts: readonly string[], n: number, nofollow: boolean, depth: number): Inode | null {
    let cur = this.root;
    // the path walked so far (needed only to resolve a relative symlink): `base` followed by
    // '/' + parts[k] for each k in [from, i), built only when a symlink is met
    let base = '';
    let from = 0;
    for (let i = 0; i < n; i++) {
      if (cur.mounted) cur = cur.mounted;
      // (isDir and isLnk written out: a start resolves ~1,000 paths before any of this is compiled)
      const kids = cur.children;
      if ((cur.mode & S_IFMT) !== S_IFDIR || !kids) return null;
      const nx = cur.pseudo ? this.pseudoChild(cur, parts[i]) : kids.get(parts[i]) ?? cur.dyn?.child(parts[i]);
      if (!nx) return null;
      if ((nx.mode & S_IFMT) === S_IFLNK && (i < n - 1 || !nofollow)) {
        let curPath = base;
        for (let k = from; k < i; k++) curPath += '/' + parts[k];
        const tgt = nx.target.startsWith('/') ? nx.target : `${curPath}/${nx.target}`;
        const r = this.lookup(tgt, '/', false, depth + 1);
        if (!r) return null;
        cur = r;
        base = '/' + Fs.parts(tgt, '/').join('/');
        from = i + 1;
        continue;
      }
      cur = nx;
    }
    return cur.mounted ?? cur;
  }

  /** The inode standing for a pseudo filesystem node (made once per node). */
  pseudoInode(node: PseudoNode, fs: FsType): Inode {
    let ino = this.pseudoInodes.get(node);
    if (!ino) {
      ino = this.mk((node.kind === 'dir' ? S_IFDIR : S_IFREG) | node.mode, fs);
      ino.pseudo = node;
      ino.size = node.size ?? 0;
      this.pseudoInodes.set(node, ino);
    }
    return ino;
  }
  private readonly pseudoInodes = new WeakMap<PseudoNode, Inode>();

  private pseudoChild(dir: Inode, name: string): Inode | null {
    if (name === '..') return dir.parent;
    const n = dir.pseudo!.child?.(name) ?? null;
    if (!n) return null;
    const ino = this.pseudoInode(n, dir.fs);
    if (!ino.parent) ino.parent = dir;
    return ino;
  }

  /** mount a pseudo filesystem root on a directory (mount -t tracefs / debugfs) */
  mountPseudo(dir: Inode, root: PseudoNode, fs: FsType): void {
    const r = this.pseudoInode(root, fs);
    r.parent = dir.parent;
    dir.mounted = r;
    this.mounts.push({ dir, fs, at: this.pathOf(dir) });
  }

  /** pseudo filesystems mounted, for /proc/mounts */
  readonly mounts: { dir: Inode; fs: FsType; at: string }[] = [];

  /** The parent directory inode and final name of a path. */
  lookupParent(p: string, cwd = '/'): { dir: Inode; name: string } | null {
    const parts = Fs.parts(p, cwd);
    if (!parts.length) return null;
    const name = parts[parts.length - 1];
    // = lookup('/' + all but the last component)
    const dir = this.walkParts(parts, parts.length - 1, false, 0);
    if (!dir || !dir.isDir) return null;
    return { dir, name };
  }

  /** Create (or return) a node under dir. */
  link(dir: Inode, name: string, ino: Inode): Inode {
    dir.children!.set(name, ino);
    if (ino.parent === null) ino.parent = dir;
    if (ino.isDir) dir.nlink++;
    dir.mtime = this.m.now;
    return ino;
  }

  /** mkdir -p style helper for building the tree. */
  mkdirp(p: string, fs: FsType = 'ext4', mode = 0o755): Inode {
    let cur = this.root;
    for (const s of Fs.parts(p, '/')) {
      let nx = cur.children!.get(s);
      if (!nx) nx = this.link(cur, s, this.mk(S_IFDIR | mode, fs === 'ext4' ? cur.fs : fs));
      cur = nx;
    }
    if (fs !== 'ext4') cur.fs = fs;
    return cur;
  }

  /** Create a regular file with contents (string, bytes, or synthetic generator + size). */
  createFile(p: string, content: string | Uint8Array | { size: number; gen: (off: number, len: number) => Uint8Array }, mode = 0o644, fs?: FsType): Inode {
    const pp = this.lookupParent(p)!;
    const ino = this.mk(S_IFREG | mode, fs ?? pp.dir.fs);
    if (typeof content === 'string' || content instanceof Uint8Array) {
      const b = typeof content === 'string' ? Buffer.from(content, 'latin1') : Buffer.from(content);
      ino.data = b;
      ino.size = b.length;
    } else {
      ino.gen = content.gen;
      ino.size = content.size;
    }
    this.allocExtent(ino);
    this.link(pp.dir, pp.name, ino);
    return ino;
  }

  allocExtent(ino: Inode): void {
    if (ino.fs !== 'ext4') return;
    ino.diskBlock = this.reserveExtent(ino.size);
  }

  /** The disk extent of an ext4 file of `size` bytes: its first block, the next file's after it and its slack. */
  reserveExtent(size: number): number {
    const block = this.nextBlock;
    this.nextBlock += Math.max(16, Math.ceil(size / PAGE) + 64);
    return block;
  }

  /** `n` disk blocks taken at once (the first of them): the extents of a tree made later */
  reserveBlocks(n: number): number {
    const first = this.nextBlock;
    this.nextBlock += n;
    return first;
  }

  symlink(p: string, target: string): Inode {
    const pp = this.lookupParent(p)!;
    const ino = this.mk(S_IFLNK | 0o777, pp.dir.fs);
    ino.target = target;
    ino.size = target.length;
    return this.link(pp.dir, pp.name, ino);
  }

  procFile(p: string, show: () => string, store?: (s: string) => number, mode = 0o444): Inode {
    const pp = this.lookupParent(p)!;
    const ino = this.procFileIn(pp.dir, pp.name, show, store, mode);
    // its descriptors' kind: the recorded reads of that /proc file (paths/features.ts procFileKind)
    if (p.startsWith('/proc/')) ino.procKind = procFileKind(p);
    return ino;
  }

  /** procFile in directory `dir` (a tree builder that holds the directory: no path walk). */
  procFileIn(dir: Inode, name: string, show: () => string, store?: (s: string) => number, mode = 0o444): Inode {
    const ino = this.mk(S_IFREG | mode, dir.fs);
    ino.show = show;
    ino.store = store ?? null;
    return this.link(dir, name, ino);
  }

  devNode(p: string, dev: string, blk: boolean, major: number, minor: number, mode = 0o666): Inode {
    const pp = this.lookupParent(p)!;
    const ino = this.mk((blk ? S_IFBLK : S_IFCHR) | mode, 'devtmpfs');
    ino.dev = dev;
    ino.rdev = (major << 8) | minor;
    return this.link(pp.dir, pp.name, ino);
  }

  /** The machine's device node under /dev of type `type` (S_IFCHR, S_IFBLK) and number `rdev`, if any. */
  deviceNode(type: number, rdev: number): Inode | null {
    const dev = this.lookup('/dev');
    for (const n of dev?.children?.values() ?? []) if ((n.mode & S_IFMT) === type && n.rdev === rdev && n.dev) return n;
    return null;
  }

  devNullFile(): OpenFile {
    return new OpenFile('dev', this.lookup('/dev/null'), 2);
  }

  /** Absolute path of an inode (for /proc/PID/cwd and pwd). */
  pathOf(ino: Inode): string {
    const parts: string[] = [];
    let cur = ino;
    for (let i = 0; i < 64 && cur !== this.root; i++) {
      const par = cur.parent!;
      let name = '?';
      const kids = par.children;
      if (kids instanceof LazyDir) name = kids.nameOf(cur) ?? '?';
      else for (const [k, v] of kids ?? []) if (v === cur) { name = k; break; }
      // a computed child (/proc/PID): the directory knows the name it made it under (no lookup)
      if (name === '?' && par.dyn?.nameOf) name = par.dyn.nameOf(cur) ?? '?';
      parts.unshift(name);
      cur = par;
    }
    return '/' + parts.join('/');
  }
}

// ---------------------------------------------------------------- path walk, mkdir, unlink, rename

export const namei = new Semantics<FsMachine>('fs/namei');

function resolvePathArg(e: Env): string {
  switch (e.name) {
    case 'openat': case 'newfstatat': case 'mkdirat': case 'unlinkat': case 'renameat2': return String(e.a[1]);
    default: return String(e.a[0]);
  }
}
namei.hook('walk', (m, _c, t, e) => {
  const p = resolvePathArg(e);
  const n = Math.max(1, Fs.parts(p, t.proc.cwd).length);
  for (let i = 0; i < Math.min(n, 8); i++) pushPath(t.ks, 'walk_component', e);
  e.path = p;
  return H_PUSHED;
});
/**
 * The directory a path of an *at() call is relative to (fs/namei.c path_init): the working directory
 * for AT_FDCWD (-100) or an absolute path, else the directory open on `dfd`.
 */
export function atDir(m: FsMachine, t: Task, dfd: unknown, p: unknown): string {
  if (dfd === -100 || Number(dfd) === -100 || String(p).startsWith('/')) return t.proc.cwd;
  const ino = fdOf(t, dfd)?.inode;
  return ino && ino.isDir ? m.fs.pathOf(ino) : t.proc.cwd;
}
/** do_mkdirat, for mkdir(2) and mkdirat(2) */
function mkdirAt(m: FsMachine, t: Task, cwd: string, p: string, mode: number): number {
  if (m.fs.lookup(p, cwd, true)) return -EEXIST;
  const pp = m.fs.lookupParent(p, cwd);
  if (!pp) return -ENOENT;
  if (pp.dir.pseudo) return pp.dir.pseudo.mkdir ? pp.dir.pseudo.mkdir(pp.name) : -1;
  const ino = m.fs.mk(S_IFDIR | (mode & 0o777 & ~t.proc.umask), pp.dir.fs);
  ino.uid = t.euid;
  m.fs.link(pp.dir, pp.name, ino);
  return 0;
}
namei.syscall('mkdirat', (m, _c, t, e) => {
  e.ret = mkdirAt(m, t, atDir(m, t, e.a[0], e.a[1]), String(e.a[1]), Number(e.a[2]));
  return H_CONT;
});
namei.syscall('mkdir', (m, _c, t, e) => {
  e.ret = mkdirAt(m, t, t.proc.cwd, String(e.a[0]), Number(e.a[1]));
  return H_CONT;
});
const EPERM = 1, EINVAL = 22, S_IFSOCK = 0o140000;
/**
 * do_mknodat, for mknodat(2) and mknod(2): may_mknod (a directory: EPERM; an unknown type: EINVAL),
 * filename_create (EEXIST, ENOENT), the umask, then vfs_create for a regular file (type 0 or S_IFREG) and
 * vfs_mknod for a FIFO, a socket or, with CAP_MKNOD (root), a device (new_decode_dev of `dev`: the node
 * opens the driver of the machine's node of that number, if any); /proc and pseudo filesystems have no mknod.
 */
function mknodAt(m: FsMachine, t: Task, cwd: string, p: string, mode: number, dev: number): number {
  const type = mode & S_IFMT;
  if (type === S_IFDIR) return -EPERM;
  if (type !== 0 && type !== S_IFREG && type !== S_IFCHR && type !== S_IFBLK && type !== S_IFIFO && type !== S_IFSOCK) return -EINVAL;
  if (m.fs.lookup(p, cwd, true)) return -EEXIST;
  const pp = m.fs.lookupParent(p, cwd);
  if (!pp) return -ENOENT;
  const dir = pp.dir.mounted ?? pp.dir;
  if (dir.pseudo || dir.fs === 'proc' || dir.fs === 'sysfs') return -EPERM;
  const device = type === S_IFCHR || type === S_IFBLK;
  if (device && t.euid !== 0) return -EPERM;
  const ino = m.fs.mk((type || S_IFREG) | (mode & 0o7777 & ~t.proc.umask), pp.dir.fs);
  ino.uid = t.euid;
  ino.gid = t.egid;
  if (ino.isReg) { ino.data = Buffer.alloc(0); m.fs.allocExtent(ino); }
  if (device) {
    const major = (dev & 0xfff00) >> 8, minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
    ino.rdev = (major << 8) | minor;
    const drv = m.fs.deviceNode(type, ino.rdev);
    if (drv) { ino.dev = drv.dev; ino.cdev = drv.cdev; }
  }
  m.fs.link(pp.dir, pp.name, ino);
  return 0;
}
namei.syscall('mknodat', (m, _c, t, e) => {
  e.ret = mknodAt(m, t, atDir(m, t, e.a[0], e.a[1]), String(e.a[1]), Number(e.a[2]), Number(e.a[3]));
  return H_CONT;
});
namei.syscall('mknod', (m, _c, t, e) => {
  e.ret = mknodAt(m, t, t.proc.cwd, String(e.a[0]), Number(e.a[1]), Number(e.a[2]));
  return H_CONT;
});
/** do_unlinkat / do_rmdir, for unlinkat(2) (AT_REMOVEDIR 0x200: rmdir), unlink(2) and rmdir(2) */
function unlinkAt(m: FsMachine, t: Task, cwd: string, p: string, rmdir: boolean, e?: Env): number {
  const pp = m.fs.lookupParent(p, cwd);
  if (pp && pp.dir.pseudo) return rmdir && pp.dir.pseudo.rmdir ? pp.dir.pseudo.rmdir(pp.name) : -1;
  const ino = pp ? pp.dir.children!.get(pp.name) : undefined;
  if (!pp || !ino) return -ENOENT;
  if (rmdir && !ino.isDir) return -ENOTDIR;
  if (!rmdir && ino.isDir) return -EISDIR;
  // vfs_rmdir: a mount point (another filesystem's root here) is busy, before the filesystem's own emptiness check
  if (rmdir && (ino.fs !== pp.dir.fs || ino.mountMinor)) return -EBUSY;
  if (rmdir && ino.children!.size) return -ENOTEMPTY;
  pp.dir.children!.delete(pp.name);
  if (ino.isDir) pp.dir.nlink--;
  ino.nlink--;
  // the last link's unlink truncates the file's pages (ext4_evict_inode's truncate_inode_pages_final)
  if (e && ino.isReg) truncating(e, ino, 0, ino.nlink <= 0);
  if (ino.nlink <= 0 && ino.cachedPages) {
    m.mm.filePages -= ino.cachedPages; m.mm.freePages += ino.cachedPages; ino.cachedPages = 0; ino.pc.fill(0);
    m.fs.dirty.delete(ino);
  }
  return 0;
}
namei.syscall('unlinkat', (m, _c, t, e) => {
  const p = String(e.a[1]);
  e.ret = unlinkAt(m, t, atDir(m, t, e.a[0], p), p, (Number(e.a[2]) & 0x200) !== 0, e);
  return H_CONT;
});
namei.syscall('unlink', (m, _c, t, e) => { e.ret = unlinkAt(m, t, t.proc.cwd, String(e.a[0]), false, e); return H_CONT; });
namei.syscall('rmdir', (m, _c, t, e) => { e.ret = unlinkAt(m, t, t.proc.cwd, String(e.a[0]), true); return H_CONT; });
/** do_renameat2, for renameat2(2) (RENAME_NOREPLACE 1: mv's first attempt) and rename(2) */
function renameAt(m: FsMachine, t: Task, aDir: string, aPath: string, bDir: string, bPath: string, flags: number): number {
  const a = m.fs.lookupParent(aPath, aDir);
  const b = m.fs.lookupParent(bPath, bDir);
  const ino = a ? a.dir.children!.get(a.name) : undefined;
  if (!a || !b || !ino) return -ENOENT;
  if (flags & 1 && b.dir.children!.has(b.name)) return -EEXIST;
  a.dir.children!.delete(a.name);
  b.dir.children!.set(b.name, ino);
  ino.parent = b.dir;
  return 0;
}
namei.syscall('renameat2', (m, _c, t, e) => {
  e.ret = renameAt(m, t, atDir(m, t, e.a[0], e.a[1]), String(e.a[1]), atDir(m, t, e.a[2], e.a[3]), String(e.a[3]), Number(e.a[4]));
  return H_CONT;
});
namei.syscall('rename', (m, _c, t, e) => {
  e.ret = renameAt(m, t, t.proc.cwd, String(e.a[0]), t.proc.cwd, String(e.a[1]), 0);
  return H_CONT;
});
