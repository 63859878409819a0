/**
 * Files (include/linux/fs.h): inodes with contents, directories, symlinks and device nodes, and
 * open file descriptions (struct file).  Regular files on the ext4 root live on /dev/sda (each
 * file has a disk extent) and are read through the page cache (mm/filemap.ts, whose per-page
 * state is `Inode.pc`) and the block layer.  Synthetic files (`gen`) produce deterministic
 * content without storing it.  The tree and its lookups are fs/namei.ts.
 */
import type { Pipe } from './pipe_fs_i';
import type { Sock } from './net';
import type { WaitQueue } from './wait';
import type { Env } from './kstack';
import type { PseudoNode, PseudoOpen } from '../../kernel/tracefs/vfs';

export const S_IFMT = 0o170000, S_IFREG = 0o100000, S_IFDIR = 0o040000, S_IFLNK = 0o120000,
  S_IFCHR = 0o020000, S_IFBLK = 0o060000, S_IFIFO = 0o010000;
export const PAGE = 4096;

export type FsType = 'ext4' | 'proc' | 'devtmpfs' | 'sysfs' | 'tmpfs' | 'pipefs' | 'sockfs' | 'tracefs' | 'debugfs' | 'anon_inodefs';

/** the page-cache state of an inode with no pages yet (shared: ensurePages replaces it before a page is set) */
const NO_PAGES = new Uint8Array(0);

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
  /** a file or directory of a kernel pseudo filesystem (tracefs, debugfs): the VFS calls into it */
  pseudo: PseudoNode | null = null;
  /** a filesystem mounted on this directory: walks continue in its root */
  mounted: Inode | null = null;
  /** procfs/sysfs content producer and writer */
  show: (() => string) | null = null;
  /** a /proc file: its descriptors' kind, which picks its recorded reads (paths/features.ts procFileKind), else '' */
  procKind = '';
  store: ((s: string) => number) | null = null;
  children: Map<string, Inode> | null = null;
  /** a directory whose further children are computed (/proc's per-process directories) */
  dyn: { child(name: string): Inode | null; list(): string[]; nameOf?(ino: Inode): string | null } | null = null;
  parent: Inode | null = null;
  target = '';
  /** device: 'null' | 'zero' | 'urandom' | 'random' | 'tty' | 'ttyS' | 'sda' | 'sda1' | 'console' */
  dev = '';
  /** the root of a tmpfs mount: its anonymous st_dev minor (stat's st_dev of everything under it; 0: not a mount root) */
  mountMinor = 0;
  /** a character device's driver (drivers/: the serial port behind /dev/ttyS0) */
  cdev: CharDevice | null = null;
  rdev = 0;
  /** first disk block (4 KiB) of this file's extent on /dev/sda */
  diskBlock = 0;
  /** page cache state per page: 0 absent, 1 clean, 2 dirty, 3 under read I/O, 4 under writeback */
  pc: Uint8Array = NO_PAGES;
  cachedPages = 0;
  dirtyPages = 0;
  /** tasks waiting for I/O on this inode's pages (made at the first wait: a boot makes ~1,000 inodes) */
  waiters: WaitQueue | null = null;
  /** a FIFO's pipe while the FIFO is open (i_pipe: made by the first open, freed by the last close; fs/pipe.ts) */
  pipe: Pipe | null = null;
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
  get isFifo(): boolean { return (this.mode & S_IFMT) === S_IFIFO; }
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

/** Where a LazyDir's entries come from (the boot tree that made the directory). */
export interface LazyDirSource {
  /** entry `name`, made on the first ask and the same inode after (undefined: no such entry) */
  one(name: string): Inode | undefined;
  /** every entry in the directory's order, the ones `one` made among them */
  all(): [string, Inode][];
  /** entry `name` as it will be made, if it is not made yet (LazyDir.peek) */
  pending?(name: string): LazyEntry | undefined;
}

/**
 * An entry of a LazyDir not made yet, as the boot's warm page cache sees it (mm/filemap.ts
 * warmPageCache): the inode's kind and size, and state to give the inode when it is made.  It
 * may stand for the inode in the file LRU (mm/mm.ts), which takes the inode when it reaches it.
 */
export interface LazyEntry {
  readonly lazy: true;
  readonly mode: number;
  readonly fs: FsType;
  readonly size: number;
  /** state waiting for the inode (the warm page cache's pages), given to it when made */
  whenMade: ((ino: Inode) => void) | null;
  /** the inode: made now if it is not yet */
  inode(): Inode;
}

/**
 * A directory's entries made when first used (Inode.children of a boot tree that a run mostly does
 * not read: the guest's /etc, userland/etc_tree.ts).  A look-up of one name (get, has) makes that
 * entry only; anything that lists, counts or changes the directory makes all of it first, in its
 * order; an entry added under a new name is added alone, after them.  Entries keep the numbers,
 * times and order an eager build gives them: the builder reserves them at boot.
 */
export class LazyDir extends Map<string, Inode> {
  private source: LazyDirSource | null = null;
  constructor(made: Iterable<[string, Inode]>, source: LazyDirSource) {
    super();
    for (const [n, i] of made) super.set(n, i);
    this.source = source;
  }
  /** entries added under names the source does not have, before it was filled (they follow its entries) */
  private added: [string, Inode][] | null = null;
  private fill(): void {
    const s = this.source;
    if (!s) return;
    this.source = null;
    super.clear();
    for (const [n, i] of s.all()) super.set(n, i);
    if (this.added) for (const [n, i] of this.added) super.set(n, i);
    this.added = null;
  }
  get(name: string): Inode | undefined {
    let i = super.get(name);
    if (i === undefined && this.source) {
      i = this.source.one(name);
      // (kept, so that nameOf finds it without making the rest; fill() puts every entry back in order)
      if (i) super.set(name, i);
    }
    return i;
  }
  /** the name of entry `ino` when it is made (an inode's path: fs/namei.ts pathOf), without making the others */
  nameOf(ino: Inode): string | undefined {
    for (const [k, v] of super.entries()) if (v === ino) return k;
    return undefined;
  }
  /** entry `name` without making it: its inode if made, else what will make it (undefined: none, or its source cannot tell) */
  peek(name: string): Inode | LazyEntry | undefined {
    return super.get(name) ?? this.source?.pending?.(name) ?? this.get(name);
  }
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
  set(name: string, ino: Inode): this {
    // a new name: added after the source's entries without making them (a file created in /usr/bin)
    if (this.source && this.get(name) === undefined) {
      (this.added ??= []).push([name, ino]);
      return super.set(name, ino);
    }
    this.fill();
    return super.set(name, ino);
  }
  delete(name: string): boolean {
    this.fill();
    return super.delete(name);
  }
  clear(): void {
    this.fill();
    super.clear();
  }
  get size(): number {
    this.fill();
    return super.size;
  }
  forEach(cb: (ino: Inode, name: string, map: Map<string, Inode>) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(cb, thisArg);
  }
  entries(): MapIterator<[string, Inode]> {
    this.fill();
    return super.entries();
  }
  keys(): MapIterator<string> {
    this.fill();
    return super.keys();
  }
  values(): MapIterator<Inode> {
    this.fill();
    return super.values();
  }
  [Symbol.iterator](): MapIterator<[string, Inode]> {
    this.fill();
    return super[Symbol.iterator]();
  }
}

/**
 * A LazyDir of the entries `names` (in that order, each name once), entry k made by `make(k)` on its
 * first look-up or listing and the same inode after.
 */
export function lazyEntries(names: readonly string[], make: (k: number) => Inode): LazyDir {
  const made: (Inode | undefined)[] = new Array(names.length);
  let index: Map<string, number> | null = null;
  const at = (k: number): Inode => (made[k] ??= make(k));
  return new LazyDir([], {
    one: (name) => {
      if (!index) {
        index = new Map();
        for (let k = 0; k < names.length; k++) if (!index.has(names[k])) index.set(names[k], k);
      }
      const k = index.get(name);
      return k === undefined ? undefined : at(k);
    },
    all: () => names.map((n, k): [string, Inode] => [n, at(k)]),
  });
}

const pseudoInos = new WeakMap<object, number>();
let nextPseudoIno = 20480;
/** the inode number of a pipe or socket (get_next_ino: one per object, in creation order) */
export function pseudoIno(o: object): number {
  let n = pseudoInos.get(o);
  if (n === undefined) { n = nextPseudoIno++; pseudoInos.set(o, n); }
  return n;
}

/** An open file description (struct file); fds point at these, shared after dup/fork. */
export class OpenFile {
  refs = 1;
  pos = 0;
  constructor(readonly kind: 'file' | 'dir' | 'pipe_r' | 'pipe_w' | 'console' | 'dev' | 'proc' | 'sock',
    readonly inode: Inode | null, public flags: number) {}
  pipe: Pipe | null = null;
  /** f_version: a FIFO opened O_NONBLOCK for reading with no writer keeps the pipe's w_counter (pipe_poll: no POLLHUP until a writer came) */
  version = 0;
  sock: Sock | null = null;
  /** an open pseudo filesystem file (tracefs): reads, writes and release go to it */
  pseudo: PseudoOpen | null = null;
  /** a file on the shared anonymous inode (anon_inode_getfile): its dentry name ("[timerfd]") and file_operations */
  anon: { name: string; fops: string } | null = null;
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

/** A character device's driver: what a write(2) to its node does (returns the bytes taken). */
export interface CharDevice {
  write(e: Env, b: Uint8Array): number;
}

/** A file that writes to a caller-provided writer (the program's terminal). */
export class ConsoleFile extends OpenFile {
  /** `terminal`: the device node it stands for (/dev/pts/0), which its struct file names (f_inode, f_path) */
  constructor(readonly writer: (s: string) => void, readonly terminal: Inode | null = null) {
    super('console', null, 1);
  }
}

/** open(2) flags (include/uapi/asm-generic/fcntl.h). */
export const O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0o100, O_EXCL = 0o200, O_TRUNC = 0o1000,
  O_APPEND = 0o2000, O_NONBLOCK = 0o4000, O_PATH = 0o10000000, O_DIRECTORY = 0o200000, O_DIRECT = 0o40000,
  /** what open(2) adds on 64-bit (force_o_largefile): in every file's f_flags, F_GETFL's result */
  O_LARGEFILE = 0o100000;

/** What stat(2) returns (struct stat's fields the programs use). */
export interface StatInfo {
  ino: number; mode: number; nlink: number; uid: number; gid: number; size: number;
  mtime: number; isDir: boolean; isReg: boolean; isLnk: boolean; isChr: boolean; isBlk: boolean; rdev: number;
  /** access time (ns of machine time), 512-byte blocks allocated, st_dev (major << 8 | minor), st_blksize */
  atime?: number; blocks?: number; dev?: number; blksize?: number;
}

/**
 * A write's effect on the file (the part buffered and O_DIRECT writes share): the bytes go into the
 * inode at `pos`, mtime is now, the file position moves (not for pwrite64) and the syscall returns
 * the length. `e` is the path's environment (file, ino, buf, pos, name, ret).
 */
export function storeWrite(e: Record<string, unknown>, now: number): { f: OpenFile; ino: Inode; b: Uint8Array; pos: number } {
  const f = e.file as OpenFile;
  const ino = e.ino as Inode;
  const b = e.buf as Uint8Array;
  const pos = e.pos as number;
  ino.writeBytes(pos, b);
  ino.mtime = now;
  if (e.name !== 'pwrite64') f.pos = pos + b.length;
  e.ret = b.length;
  return { f, ino, b, pos };
}
