/**
 * The rest of the real guest's Debian 12 install (data/userland/root.tsv, made by
 * scripts/userland/root_tree.ts from the recorder's debootstrapped tree): the 13,755 directories,
 * files and symlinks of /usr, /var, /boot, ... with their modes, owners, sizes, times and symlink
 * targets, beside the machine's own entries (fstree.ts: the programs it runs, ld.so and the libraries,
 * the services' files), which keep their inodes. /etc is etc_tree.ts's.
 *
 * Entries are made when first looked up (include/fs.ts LazyDir): a directory's lines are parsed when
 * a name in it is first asked for or it is first listed. Their inode numbers and disk extents are
 * reserved at boot, in the recorded inode order (mke2fs -d's walk), so an entry's number and extent do
 * not depend on what was looked up before. A file's bytes are a deterministic filler of its real size
 * (the recording keeps no contents outside /etc).
 */
import type { Fs } from '../fs/namei';
import { Inode, LazyDir, S_IFDIR, S_IFLNK, S_IFREG } from '../include/fs';
import * as nodeFs from 'fs';
import { userlandDataFile } from '../process/ldso';
import { machineNsOf } from './libc_time';

/**
 * The first line (what a boot reads): the entries' count and their extents' blocks, the first
 * directories' index (head), and each directory up to SUB_DEPTH levels down with recorded entries,
 * with the names of its subdirectories (sub)
 */
interface Header { count: number; blocks: number; head: Index; sub: Record<string, string[]> }
/** each directory's recorded lines: offset and length in the body, its count of subdirectories */
type Index = Record<string, [number, number, number]>;
/** one recorded entry */
/**
 * one recorded entry: `type` d, f or l; `kind` what a regular file holds: 'e' an ELF object, 's' a shell
 * script whose text recordedScript() gives, '' anything else
 */
export interface RootEntry { name: string; type: string; kind: string; mode: number; uid: number; gid: number; size: number; mtime: number; rank: number; block: number; target: string }

let scripts: Record<string, string> | undefined;
/** The bytes of recorded shell script `path` (data/userland/scripts.json: read when one is first read). */
export function recordedScript(path: string): (off: number, len: number) => Uint8Array {
  let b: Buffer | undefined;
  return (off, len) => {
    if (scripts === undefined) {
      const f = userlandDataFile('scripts.json');
      scripts = f ? JSON.parse(nodeFs.readFileSync(f, 'latin1')) as Record<string, string> : {};
    }
    b ??= Buffer.from(scripts[path] ?? '', 'latin1');
    const out = new Uint8Array(len);
    out.set(b.subarray(off, off + len));
    return out;
  };
}

let header: { h: Header; bodyAt: number; first: Buffer } | null | undefined;
/** the first line of root.tsv and the first directories' lines after it, read at once (a start reads no more) */
function readHeader(): { h: Header; bodyAt: number; first: Buffer } | null {
  if (header !== undefined) return header;
  const f = userlandDataFile('root.tsv');
  if (!f) return (header = null);
  const b = readAt(f, 0, FIRST_BYTES);
  const nl = b.indexOf(10);
  return (header = nl < 0 ? null : { h: JSON.parse(b.toString('latin1', 0, nl)) as Header, bodyAt: nl + 1, first: b });
}
/** how much of the file a boot reads: the first line and the first directories' lines (~45 KB of it) */
const FIRST_BYTES = 65536;
function readAt(file: string, pos: number, len: number): Buffer {
  const fd = nodeFs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(len);
    return b.subarray(0, nodeFs.readSync(fd, b, 0, len, pos));
  } finally {
    nodeFs.closeSync(fd);
  }
}

let whole: { index: Index; body: Buffer } | null | undefined;
/** the whole file (the index is its last line), read when a look-up first goes past the first directories */
function load(): { index: Index; body: Buffer } | null {
  if (whole !== undefined) return whole;
  const f = userlandDataFile('root.tsv'), hd = readHeader();
  if (!f || !hd) return (whole = null);
  const buf = nodeFs.readFileSync(f);
  const end = buf.length - 1, nl = buf.lastIndexOf(10, end - 1);
  return (whole = { index: JSON.parse(buf.toString('latin1', nl + 1, end)) as Index, body: buf.subarray(hd.bodyAt, nl + 1) });
}

/** the recorded entries of directory `dir` ('/' for the root), in inode order; [] when the recording has none (parsed once a process) */
const parsed = new Map<string, RootEntry[]>();
export function rootEntries(dir: string): RootEntry[] {
  let r = parsed.get(dir);
  if (!r) parsed.set(dir, (r = parseEntries(dir)));
  return r;
}
function parseEntries(dir: string): RootEntry[] {
  const hd = readHeader();
  if (!hd) return [];
  let text: string;
  const first = hd.h.head[dir];
  if (first && !whole) {
    const at = hd.bodyAt + first[0];
    text = (at + first[1] <= hd.first.length ? hd.first : readAt(userlandDataFile('root.tsv'), 0, at + first[1])).toString('latin1', at, at + first[1]);
  } else {
    const d = load();
    const h = d?.index[dir];
    if (!d || !h || !h[1]) return [];
    text = d.body.toString('latin1', h[0], h[0] + h[1]);
  }
  return text.slice(0, -1).split('\n').map(entryOf);
}
function entryOf(line: string): RootEntry {
  const f = line.split('\t');
  const t = f[1];
  return { name: f[0], type: t === 'e' || t === 's' ? 'f' : t, kind: t === 'e' || t === 's' ? t : '', mode: parseInt(f[2], 8), uid: +f[3], gid: +f[4], size: +f[5], mtime: +f[6], rank: +f[7], block: +f[8], target: f[9] };
}

/** the depth to which the first line lists subdirectories (scripts/userland/root_tree.ts SUB_DEPTH) */
const SUB_DEPTH = 3;
const depthOf = (dir: string): number => (dir === '/' ? 0 : dir.split('/').length - 1);
const join = (dir: string, name: string): string => (dir === '/' ? `/${name}` : `${dir}/${name}`);

/**
 * Add the recorded tree to the machine's (after the rest of it: the numbers made before stay). A boot
 * reserves the entries' numbers and extents and wraps the machine's own directories; the index and a
 * directory's lines are read when a look-up first misses in it (or it is listed, or its link count is
 * read). `gen(path, kind)` gives a file's bytes (RootEntry.kind); times after `latestS` (packages updated after the install)
 * are taken as `latestS`, as the machine's own files' are.
 */
export function installRootTree(fs: Fs, bootNs: number, latestS: number, gen: (path: string, kind: string) => (off: number, len: number) => Uint8Array): void {
  const hd = readHeader();
  if (!hd) return;
  const inoBase = fs.reserveInos(hd.h.count);
  const blockBase = fs.reserveBlocks(hd.h.blocks);
  const ns = (s: number): number => machineNsOf(bootNs, Math.min(s, latestS));
  const index = (): Index => load()?.index ?? {};
  /** a recorded directory's count of subdirectories and whether it has entries: from the first line down to SUB_DEPTH, else the index */
  const dirFacts = (path: string): { subdirs: number; entries: boolean } => {
    if (depthOf(path) <= SUB_DEPTH) {
      const sub = hd.h.sub[path];
      return { subdirs: sub?.length ?? 0, entries: sub !== undefined };
    }
    const h = index()[path];
    return { subdirs: h?.[2] ?? 0, entries: !!h?.[1] };
  };
  /** the inode of recorded entry `e` of directory `dir` (inode `parent`) */
  const make = (dir: string, e: RootEntry, parent: Inode): Inode => {
    const path = join(dir, e.name);
    const ino = new Inode(inoBase + e.rank, e.type === 'd' ? S_IFDIR | e.mode : e.type === 'l' ? S_IFLNK | 0o777 : S_IFREG | e.mode, 'ext4', bootNs);
    if (e.type === 'd') {
      const f = dirFacts(path);
      ino.nlink = 2 + f.subdirs;
      ino.children = f.entries ? lazyDir(path, ino, []) : new Map();
    } else if (e.type === 'l') {
      ino.target = e.target;
      ino.size = e.target.length;
    } else {
      ino.size = e.size;
      ino.gen = gen(path, e.kind);
      ino.diskBlock = blockBase + e.block;
    }
    ino.uid = e.uid;
    ino.gid = e.gid;
    ino.mtime = ino.atime = ns(e.mtime);
    ino.parent = parent;
    return ino;
  };
  /** directory `dir` (inode `ino`): the machine's entries `own`, then the recorded ones it lacks, made when asked for */
  const lazyDir = (dir: string, ino: Inode, own: [string, Inode][]): LazyDir => {
    let recs: Map<string, RootEntry> | null = null;
    const ownNames = new Set(own.map((o) => o[0]));
    const made = new Map<string, Inode>();
    const entries = (): Map<string, RootEntry> => (recs ??= new Map(rootEntries(dir).filter((e) => !ownNames.has(e.name)).map((e) => [e.name, e])));
    const one = (name: string): Inode | undefined => {
      let i = made.get(name);
      if (i) return i;
      const e = entries().get(name);
      if (!e) return undefined;
      made.set(name, (i = make(dir, e, ino)));
      return i;
    };
    return new LazyDir(own, {
      one,
      all: () => [...own, ...[...entries().keys()].map((n): [string, Inode] => [n, one(n)!])],
    });
  };
  /**
   * The machine's own directory `dir` (SUB_DEPTH levels down at most; deeper ones: visitDeep) that
   * the recording has entries in: its link count with the recorded subdirectories it lacks, the
   * entries it gains made when asked for, and where a start looks (the first line's directories) its
   * own files and directories with the recorded mode, owner, time and a file's size (the Debian
   * package's: ld.so's file ends before its last page)
   */
  const visit = (dir: string, ino: Inode, depth: number): void => {
    if (!ino.children) return;
    if (depth > SUB_DEPTH) return visitDeep(dir, ino);
    const sub = hd.h.sub[dir];
    if (!sub) return;
    const own = [...ino.children];
    for (const n of sub) {
      const o = ino.children.get(n);
      if (!o || o.parent !== ino || !o.isDir) ino.nlink++;
    }
    const first = hd.h.head[dir];
    if (first) {
      // (a line's fields parsed only for the names the machine has: most of a directory's are not)
      const at = hd.bodyAt + first[0], text = hd.first.toString('latin1', at, at + first[1]);
      for (let i = 0; i < text.length;) {
        const nl = text.indexOf('\n', i), line = text.slice(i, nl);
        i = nl + 1;
        const o = ino.children.get(line.slice(0, line.indexOf('\t')));
        if (!o || o.parent !== ino || o.fs !== 'ext4') continue;
        const e = entryOf(line);
        if (!((e.type === 'd' && o.isDir) || (e.type === 'f' && o.isReg))) continue;
        o.mode = (e.type === 'd' ? S_IFDIR : S_IFREG) | e.mode;
        o.uid = e.uid;
        o.gid = e.gid;
        o.mtime = o.atime = ns(e.mtime);
        if (e.type === 'f') o.size = e.size;
      }
    }
    ino.children = lazyDir(dir, ino, own);
    for (const [n, c] of own) if (c.isDir && c.parent === ino && c.fs === 'ext4' && !(n === 'etc' && dir === '/')) visit(join(dir, n), c, depth + 1);
  };
  /**
   * An own directory deeper than the first line lists (the machine's /usr/share/zoneinfo/Etc): the
   * recording's entries there and its link count come from the index, read when first needed
   */
  const visitDeep = (dir: string, ino: Inode): void => {
    const own = [...ino.children!];
    const ownDirs = own.filter(([, c]) => c.isDir && c.parent === ino && c.fs === 'ext4');
    const base = ino.nlink;
    let nlink: number | null = null;
    const links = (): number => {
      if (nlink === null) {
        const idx = index(), h = idx[dir];
        nlink = base + (h ? h[2] - ownDirs.filter(([n]) => idx[join(dir, n)] !== undefined).length : 0);
      }
      return nlink;
    };
    Object.defineProperty(ino, 'nlink', { get: links, set: (v: number) => { links(); nlink = v; }, configurable: true, enumerable: true });
    ino.children = lazyDir(dir, ino, own);
    for (const [n, c] of ownDirs) visitDeep(join(dir, n), c);
  };
  visit('/', fs.root, 0);
}
