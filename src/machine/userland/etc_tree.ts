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
import type { Inode } from '../include/fs';
import * as nodeFs from 'fs';
import { userlandDataFile } from '../process/ldso';
import { machineNsOf } from './libc_time';

/** [path, type d|f|l, mode, uid, gid, size, mtime (s), nlink, ino, target | content | null] */
type Entry = [string, string, number, number, number, number, number, number, number, string | null];

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

/** The recorded entries in inode order, and each path's place in the recording (getdents order), once a process. */
let byIno: readonly Entry[] | null = null;
let rankOf: Map<string, number> | null = null;
function order(): { byIno: readonly Entry[]; rank: Map<string, number> } {
  if (!byIno || !rankOf) {
    const all = load();
    // Array.prototype.sort is stable: entries of one inode number keep the recording's order
    byIno = all.slice().sort((a, b) => a[8] - b[8]);
    rankOf = new Map();
    for (let i = 0; i < all.length; i++) rankOf.set(all[i][0], i);
  }
  return { byIno, rank: rankOf };
}

/**
 * Build /etc from the recording (after the rest of the tree: the inode numbers made before stay).
 * A start builds it at every boot: the loops index the entries instead of destructuring them (in
 * code not yet optimised, each destructuring walks an iterator), and a directory whose entries
 * are in the recorded order already is left as it is.
 */
export function installEtcTree(fs: Fs, bootNs: number, latestS: number): void {
  const ns = (s: number): number => machineNsOf(bootNs, Math.min(s, latestS));
  const { byIno: entries, rank } = order();
  /** [directory, its path, its recorded mtime (s), whether the machine made it before] */
  const dirs: [Inode, string, number, boolean][] = [];
  // the directories the machine made before (only directories' times are read from it below)
  const before = new Set<string>();
  for (const e of entries) if (e[1] === 'd' && fs.lookup(e[0], '/', true)) before.add(e[0]);
  // made in the recorded inode order (savedir's SAVEDIR_SORT_FASTREAD, cp -r's order, sorts by it)
  for (const e of entries) {
    const p = e[0], type = e[1], mode = e[2], size = e[5], body = e[9];
    let ino = fs.lookup(p, '/', true);
    const want = type === 'd' ? 0o040000 : type === 'l' ? 0o120000 : 0o100000;
    if (ino && (ino.mode & 0o170000) !== want) continue; // the machine's own kind of entry stays
    if (ino?.isDir) dirs.push([ino, p, e[6], before.has(p)]);
    // an entry the machine made before takes the next number, so that its place in inode order is the
    // real one; a file's placeholder text gives way to the guest's bytes and stat (but MACHINE_OWN's)
    if (ino) {
      if (p !== '/etc') ino.ino = fs.takeIno();
      if (type === 'f' && !MACHINE_OWN.has(p)) {
        if (body !== null) { ino.data = Buffer.from(body, 'latin1'); ino.gen = null; } else { ino.data = null; ino.gen = recorded(p, size).gen; }
        ino.size = size;
        ino.mode = want | mode;
        ino.uid = e[3];
        ino.gid = e[4];
        ino.mtime = ino.atime = ns(e[6]);
      }
      continue;
    }
    if (type === 'd') ino = fs.mkdirp(p, 'ext4', mode);
    else if (type === 'l') ino = fs.symlink(p, body ?? '');
    else ino = fs.createFile(p, body ?? recorded(p, size), mode);
    if (type !== 'l') ino.mode = want | mode;
    ino.uid = e[3];
    ino.gid = e[4];
    ino.mtime = ino.atime = ns(e[6]);
    if (type === 'd') dirs.push([ino, p, e[6], before.has(p)]);
  }
  // a directory's time is its own (creating its entries above touched it)
  for (const d of dirs) if (!d[3]) d[0].mtime = d[0].atime = ns(d[2]);
  // each directory's entries in the recorded (getdents) order, the machine's own after them (a
  // stable sort by rank: when the ranks already rise, the order is the sorted one)
  for (const d of dirs) {
    const base = d[1];
    const children = d[0].children!;
    const kids: [number, string, Inode][] = [];
    let sorted = true;
    let last = -Infinity;
    children.forEach((c, n) => {
      const r = rank.get(`${base}/${n}`) ?? Infinity;
      if (r < last) sorted = false;
      last = r;
      kids.push([r, n, c]);
    });
    if (sorted) continue;
    kids.sort((a, b) => a[0] - b[0]);
    children.clear();
    for (const k of kids) children.set(k[1], k[2]);
  }
}
