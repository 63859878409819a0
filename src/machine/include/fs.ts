/**
 * The simulated filesystem: one tree (ext4 root on /dev/sda1, procfs at /proc, devtmpfs at
 * /dev, sysfs at /sys, tmpfs at /tmp), inodes with contents, directories, symlinks, device
 * nodes, and open file descriptions. Regular files on the ext4 root live on /dev/sda (each file
 * has a disk extent) and are read through the page cache (mm.ts) and the block layer.
 * Synthetic files (`gen`) produce deterministic content without storing it.
 */
import type { Machine } from '../machine';
import type { Pipe } from './pipe_fs_i';
import type { Sock } from './net';

export const S_IFMT = 0o170000, S_IFREG = 0o100000, S_IFDIR = 0o040000, S_IFLNK = 0o120000,
  S_IFCHR = 0o020000, S_IFBLK = 0o060000, S_IFIFO = 0o010000;
export const PAGE = 4096;

export type FsType = 'ext4' | 'proc' | 'devtmpfs' | 'sysfs' | 'tmpfs' | 'pipefs' | 'sockfs';

export class Inode {
  ino: number;
  mode: number;
  uid = 0;
  gid = 0;
  nlink = 1;
  size = 0;
  mtime: number;
  atime: number;
  fs: FsType;
  /** regular file contents (when not synthetic) */
  data: Buffer | null = null;
  /** synthetic content generator */
  gen: ((off: number, len: number) => Uint8Array) | null = null;
  /** procfs/sysfs content producer and writer */
  show: (() => string) | null = null;
  store: ((s: string) => number) | null = null;
  children: Map<string, Inode> | null = null;
  parent: Inode | null = null;
  target = '';
  /** device: 'null' | 'zero' | 'urandom' | 'random' | 'tty' | 'sda' | 'sda1' | 'console' */
  dev = '';
  rdev = 0;
  /** first disk block (4 KiB) of this file's extent on /dev/sda */
  diskBlock = 0;
  /** page cache state per page: 0 absent, 1 clean, 2 dirty, 3 under read I/O, 4 under writeback */
  pc: Uint8Array = new Uint8Array(0);
  cachedPages = 0;
  dirtyPages = 0;
  /** tasks waiting for I/O on this inode's pages */
  waiters: import('./sched').Task[] = [];
  constructor(ino: number, mode: number, fs: FsType, now: number) {
    this.ino = ino;
    this.mode = mode;
    this.fs = fs;
    this.mtime = this.atime = now;
    if ((mode & S_IFMT) === S_IFDIR) { this.children = new Map(); this.nlink = 2; }
  }
  get isDir(): boolean { return (this.mode & S_IFMT) === S_IFDIR; }
  get isReg(): boolean { return (this.mode & S_IFMT) === S_IFREG; }
  get isLnk(): boolean { return (this.mode & S_IFMT) === S_IFLNK; }
  get isChr(): boolean { return (this.mode & S_IFMT) === S_IFCHR; }
  get isBlk(): boolean { return (this.mode & S_IFMT) === S_IFBLK; }
  /** grow the page-cache state array to cover `size` bytes */
  ensurePages(size: number): void {
    const n = Math.ceil(size / PAGE);
    if (n > this.pc.length) {
      const a = new Uint8Array(Math.max(n, this.pc.length * 2));
      a.set(this.pc);
      this.pc = a;
    }
  }
  /** contents bytes [off, off+len) (bounded by size) */
  readBytes(off: number, len: number): Uint8Array {
    const end = Math.min(this.size, off + len);
    if (end <= off) return new Uint8Array(0);
    if (this.gen) return this.gen(off, end - off);
    if (!this.data) return new Uint8Array(end - off);
    return this.data.subarray(off, end);
  }
  writeBytes(off: number, b: Uint8Array): void {
    if (this.gen) {
      // materialise a synthetic file on first write
      this.data = Buffer.from(this.gen(0, this.size));
      this.gen = null;
    }
    const end = off + b.length;
    let d = this.data;
    const size = this.size;
    if (!d || d.length < end) {
      // grow: bytes past `size` are never read, so only [0, size) moves (no zero-filled copy).
      // Room for a few more writes of this size: a file written in big blocks (dbench's 16 KiB)
      // is allocated once, not copied at every doubling.
      const cur = d ? d.length : 0;
      const nb = Buffer.allocUnsafe(Math.max(end, cur * 4, end >= 16384 ? end * 4 : 256));
      const keep = d ? Math.min(size, d.length) : 0;
      if (keep > 0) (d as Buffer).copy(nb, 0, 0, keep);
      if (size > keep) nb.fill(0, keep, Math.min(size, nb.length));
      this.data = d = nb;
    }
    // a hole between the old end of file and `off` reads as zeros
    if (off > size) d.fill(0, size, off);
    d.set(b, off);
    if (end > size) this.size = end;
  }
  truncate(n: number): void {
    if (this.gen && n === 0) this.gen = null;
    const old = this.size;
    this.size = n;
    // bytes at or beyond `size` are never read (writeBytes zero-fills holes it opens): only a
    // truncate that extends the file has bytes to clear
    const d = this.data;
    if (d && n > old && old < d.length) d.fill(0, old, Math.min(n, d.length));
  }
}

/** An open file description (struct file); fds point at these, shared after dup/fork. */
export class OpenFile {
  refs = 1;
  pos = 0;
  constructor(readonly kind: 'file' | 'dir' | 'pipe_r' | 'pipe_w' | 'console' | 'dev' | 'proc' | 'sock',
    readonly inode: Inode | null, public flags: number) {}
  pipe: Pipe | null = null;
  sock: Sock | null = null;
  /** snapshot of a proc file's text at open */
  text: Buffer | null = null;
  /** directory listing cursor */
  dirNames: string[] | null = null;
  onClose: (() => void) | null = null;
  dup(): OpenFile {
    this.refs++;
    return this;
  }
  close(): void {
    if (--this.refs === 0 && this.onClose) this.onClose();
  }
}

/** A file that writes to a caller-provided writer (the program's terminal). */
export class ConsoleFile extends OpenFile {
  constructor(readonly writer: (s: string) => void) {
    super('console', null, 1);
  }
}

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
  constructor(private m: Machine) {
    this.root = this.mk(S_IFDIR | 0o755, 'ext4');
    this.root.parent = this.root;
    (require('../userland/fstree') as typeof import('../userland/fstree')).populate(m, this);
  }

  mk(mode: number, fs: FsType): Inode {
    const ino = (fs === 'ext4' && this.nextIno === 2) ? 2 : this.nextIno;
    this.nextIno = Math.max(this.nextIno, ino) + 1;
    return new Inode(ino, mode, fs, this.m.now);
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
      if (!cur.isDir || !cur.children) return null;
      const nx = cur.children.get(parts[i]);
      if (!nx) return null;
      if (nx.isLnk && (i < n - 1 || !nofollow)) {
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
    return cur;
  }

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
    ino.diskBlock = this.nextBlock;
    this.nextBlock += Math.max(16, Math.ceil(ino.size / PAGE) + 64);
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
    const ino = this.mk(S_IFREG | mode, pp.dir.fs);
    ino.show = show;
    ino.store = store ?? null;
    return this.link(pp.dir, pp.name, ino);
  }

  devNode(p: string, dev: string, blk: boolean, major: number, minor: number, mode = 0o666): Inode {
    const pp = this.lookupParent(p)!;
    const ino = this.mk((blk ? S_IFBLK : S_IFCHR) | mode, 'devtmpfs');
    ino.dev = dev;
    ino.rdev = (major << 8) | minor;
    return this.link(pp.dir, pp.name, ino);
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
      for (const [k, v] of par.children!) if (v === cur) { name = k; break; }
      parts.unshift(name);
      cur = par;
    }
    return '/' + parts.join('/');
  }
}
