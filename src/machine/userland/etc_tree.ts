/**
 * The real guest's /etc (data/userland/etc.json, made by scripts/userland/etc_tree.ts from the strace
 * of `tar cf /root/etc.tar /etc` on the recording guest): its directories, files and symlinks with
 * their modes, owners, sizes and times, each directory's entries in the order the real ext4 returned
 * them (getdents64's hash order: what find, tar, cp -r and ls -U walk in).
 *
 * The entries the machine already has (fstree.ts) keep their inode's place; their content, mode, owner
 * and time become the recorded ones but for MACHINE_OWN (hostname, hosts). Files get the
 * guest's own bytes: inline in
 * etc.json up to 1 KiB, the longer files from data/userland/etc-files.json.gz (copied off the
 * recording guest's disk, scripts/record/pull_etc.sh), read the first time one of them is read.
 * Entries the recording lacks stay, after the recorded ones. New inodes are numbered
 * in the recorded inode order (the machine's numbers differ, their order among these is the real one).
 */
import type { Fs } from '../fs/namei';
import { Inode, LazyDir, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, type LazyEntry } from '../include/fs';
import * as nodeFs from 'fs';
import { userlandDataFile } from '../process/ldso';
import { machineNsOf } from './libc_time';

/** [path, type d|f|l, mode, uid, gid, size, mtime (s), nlink, ino, target | content | null] */
type Entry = [string, string, number, number, number, number, number, number, number, string | null];

/** the mode of a recorded entry's inode (a symlink's is 0777) */
function modeOf(e: Entry): number {
  return e[1] === 'd' ? S_IFDIR | e[2] : e[1] === 'l' ? S_IFLNK | 0o777 : S_IFREG | e[2];
}
/** the size of a recorded entry's inode as made (a directory's 0, a symlink's its target's length, a file's its bytes') */
function sizeOf(e: Entry): number {
  return e[1] === 'd' ? 0 : e[1] === 'l' ? (e[9] ?? '').length : e[9] !== null ? e[9].length : e[5];
}

let entries: Entry[] | null = null;
function load(): Entry[] {
  if (entries) return entries;
  const f = userlandDataFile('etc.json');
  entries = f ? (JSON.parse(nodeFs.readFileSync(f, 'utf8')) as { entries: Entry[] }).entries : [];
  return entries;
}

let files: Map<string, string> | null = null;
/** a long file's recorded bytes (etc-files.json.gz, loaded once, when the first of them is read) */
export function etcFileContent(p: string): Buffer | null {
  if (!files) {
    const f = userlandDataFile('etc-files.json.gz');
    // zlib (and with it Node's stream library, ~10 ms) is loaded only here, not at every start
    const zlib = require('zlib') as typeof import('zlib');
    files = new Map(f ? (JSON.parse(zlib.gunzipSync(nodeFs.readFileSync(f)).toString('utf8')) as { files: [string, string][] }).files : []);
  }
  const b = files.get(p);
  return b === undefined ? null : Buffer.from(b, 'base64');
}

/** the recorded content of a long file, made when it is first read */
function recorded(p: string, size: number): { size: number; gen: (off: number, len: number) => Uint8Array } {
  let data: Buffer | null = null;
  return {
    size,
    gen: (off, len) => {
      data ??= etcFileContent(p);
      if (!data || data.length !== size) throw new Error(`data/userland/etc-files.json.gz lacks ${p} (${size} bytes): regenerate it (scripts/userland/etc_tree.ts)`);
      return data.subarray(off, Math.min(size, off + len));
    },
  };
}

/**
 * Files the machine writes itself and keeps: its host name (hostname, hosts: Machine's `hostname`).
 * passwd and group are the guest's (Debian 12's base users and groups: the 958 and 507 bytes the
 * recordings' cat /etc/passwd and ps's NSS look-ups read).
 */
const MACHINE_OWN = new Set(['/etc/hostname', '/etc/hosts']);

/** The recorded entries in inode order (once a process; Array.prototype.sort is stable: entries of one inode number keep the recording's order). */
let byIno: readonly Entry[] | null = null;
function inInodeOrder(): readonly Entry[] {
  return (byIno ??= load().slice().sort((a, b) => a[8] - b[8]));
}
/** Each path's place in the recording (getdents order), once a process, when a directory is first listed. */
let rankOf: Map<string, number> | null = null;
function rankOfPath(): Map<string, number> {
  if (!rankOf) {
    const all = load();
    rankOf = new Map();
    for (let i = 0; i < all.length; i++) rankOf.set(all[i][0], i);
  }
  return rankOf;
}

/**
 * a recorded entry the machine did not have: its reserved inode number and disk extent, its inode
 * once made, and what stands for it before (LazyDir.peek: the warm page cache's pages wait there)
 */
interface Made { name: string; e: Entry; num: number; block: number; ino: Inode | null; pending: LazyEntry | null }
/** a directory of the tree: the entries it gains, whether the recording lists it (then its entries take the recorded order) */
interface DirPlan { path: string; made: Made[]; listed: boolean; byName: Map<string, Made> | null }

/**
 * Build /etc from the recording (after the rest of the tree: the inode numbers made before stay).
 * Every entry's inode number and disk extent are taken here, in the recorded inode order (savedir's
 * SAVEDIR_SORT_FASTREAD, cp -r's order, sorts by it), as making them one after the other would;
 * the entries the machine made before get the recorded bytes and stat now.  The new inodes are
 * made when first looked up (include/fs.ts LazyDir): a start makes the few the services open, not
 * the directories' listings nor the 176 files the warm page cache holds (their pages wait for them:
 * mm/filemap.ts warmPageCache).  A directory made new takes its recorded time, one the
 * machine made before the boot's time if it gains entries (creating them touched it); a listed
 * directory's entries are in the recorded (getdents) order, the machine's own after them.
 */
export function installEtcTree(fs: Fs, bootNs: number, latestS: number): void {
  const ns = (s: number): number => machineNsOf(bootNs, Math.min(s, latestS));
  const entries = inInodeOrder();
  // the machine's own /etc (fstree.ts, ldso.ts, libc_nss.ts), by path
  const own = new Map<string, Inode>();
  const walk = (d: Inode, p: string): void => {
    own.set(p, d);
    for (const [n, c] of d.children ?? []) if (c.parent === d) walk(c, `${p}/${n}`); else own.set(`${p}/${n}`, c);
  };
  const etc = fs.lookup('/etc', '/', true);
  if (etc) walk(etc, '/etc');
  const plans = new Map<string, DirPlan>();
  const planOf = (p: string): DirPlan | undefined => {
    let d = plans.get(p);
    if (!d && own.get(p)?.isDir) plans.set(p, (d = { path: p, made: [], listed: false, byName: null }));
    return d;
  };
  for (const e of entries) {
    const p = e[0], type = e[1], size = e[5], body = e[9];
    const want = type === 'd' ? S_IFDIR : type === 'l' ? S_IFLNK : S_IFREG;
    const ino = own.get(p);
    if (ino) {
      if ((ino.mode & S_IFMT) !== want) continue; // the machine's own kind of entry stays
      if (ino.isDir) planOf(p)!.listed = true;
      // an entry the machine made before takes the next number, so that its place in inode order is the
      // real one; a file's placeholder text gives way to the guest's bytes and stat (but MACHINE_OWN's)
      if (p !== '/etc') ino.ino = fs.takeIno();
      if (type === 'f' && !MACHINE_OWN.has(p)) {
        if (body !== null) { ino.data = Buffer.from(body, 'latin1'); ino.gen = null; } else { ino.data = null; ino.gen = recorded(p, size).gen; }
        ino.size = size;
        ino.mode = want | e[2];
        ino.uid = e[3];
        ino.gid = e[4];
        ino.mtime = ino.atime = ns(e[6]);
      }
      continue;
    }
    const k = p.lastIndexOf('/');
    const dir = planOf(p.slice(0, k));
    if (!dir) throw new Error(`data/userland/etc.json: ${p} comes before its directory (regenerate it: scripts/userland/etc_tree.ts)`);
    // the number and the extent (fs/namei.ts mk, reserveExtent) making it now would take
    const made: Made = { name: p.slice(k + 1), e, num: fs.takeIno(), block: 0, ino: null, pending: null };
    if (type === 'f') made.block = fs.reserveExtent(body !== null ? body.length : size);
    dir.made.push(made);
    if (type === 'd') plans.set(p, { path: p, made: [], listed: true, byName: null });
  }
  const subdirs = (d: DirPlan): number => d.made.reduce((n, c) => n + (c.e[1] === 'd' ? 1 : 0), 0);
  /** the inode of a new entry of directory `dir` (inode `parent`), made once */
  const make = (c: Made, parent: Inode): Inode => {
    if (c.ino) return c.ino;
    const e = c.e, type = e[1], body = e[9];
    const ino = new Inode(c.num, modeOf(e), 'ext4', bootNs);
    if (type === 'd') {
      const d = plans.get(e[0])!;
      ino.nlink = 2 + subdirs(d);
      if (d.made.length) ino.children = lazyChildren(d, ino);
    } else if (type === 'l') {
      ino.target = body ?? '';
      ino.size = ino.target.length;
    } else {
      if (body !== null) ino.data = Buffer.from(body, 'latin1'); else ino.gen = recorded(e[0], e[5]).gen;
      ino.size = body !== null ? ino.data!.length : e[5];
      ino.diskBlock = c.block;
    }
    ino.uid = e[3];
    ino.gid = e[4];
    ino.mtime = ino.atime = ns(e[6]);
    ino.parent = parent;
    c.ino = ino;
    c.pending?.whenMade?.(ino);
    return ino;
  };
  const entryOf = (d: DirPlan, name: string): Made | undefined => (d.byName ??= new Map(d.made.map((c) => [c.name, c]))).get(name);
  const lazyChildren = (d: DirPlan, dir: Inode): LazyDir => new LazyDir(dir.children ?? [], {
    one: (name) => {
      const c = entryOf(d, name);
      return c && make(c, dir);
    },
    pending: (name) => {
      const c = entryOf(d, name);
      if (!c || c.ino) return undefined;
      return (c.pending ??= { lazy: true, mode: modeOf(c.e), fs: 'ext4', size: sizeOf(c.e), whenMade: null, inode: () => make(c, dir) });
    },
    all: () => {
      const kids: [string, Inode][] = [...(ownKids.get(dir) ?? [])];
      for (const c of d.made) kids.push([c.name, make(c, dir)]);
      return d.listed ? inRecordedOrder(d.path, kids) : kids;
    },
  });
  // the directories the machine made before: the entries they gain (their count of links, their time)
  const ownKids = new Map<Inode, [string, Inode][]>();
  for (const d of plans.values()) {
    const dir = own.get(d.path);
    if (!dir || (!d.made.length && !d.listed)) continue;
    ownKids.set(dir, [...dir.children!]);
    if (d.made.length) {
      dir.nlink += subdirs(d);
      dir.mtime = bootNs;
    }
    dir.children = lazyChildren(d, dir);
  }
}

/**
 * A listed directory's entries in the recorded (getdents) order, the machine's own after them (a
 * stable sort by rank: when the ranks already rise, the order is the given one).
 */
function inRecordedOrder(base: string, kids: [string, Inode][]): [string, Inode][] {
  const rank = rankOfPath();
  const ranked = kids.map((k): [number, string, Inode] => [rank.get(`${base}/${k[0]}`) ?? Infinity, k[0], k[1]]);
  let sorted = true;
  for (let i = 1; i < ranked.length && sorted; i++) if (ranked[i][0] < ranked[i - 1][0]) sorted = false;
  if (!sorted) ranked.sort((a, b) => a[0] - b[0]);
  return ranked.map((k) => [k[1], k[2]]);
}
