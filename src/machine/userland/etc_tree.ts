/**
 * The real guest's /etc (data/userland/etc.json, made by scripts/userland/etc_tree.ts from the strace
 * of `tar cf /root/etc.tar /etc` on the recording guest): its directories, files and symlinks with
 * their modes, owners, sizes and times, each directory's entries in the order the real ext4 returned
 * them (getdents64's hash order: what find, tar, cp -r and ls -U walk in).
 *
 * The entries the machine already has (fstree.ts: passwd, group, hosts, ... whose content its programs
 * read) keep their content, mode, owner and time; the others get the content
 * strace showed (all of it under 256 bytes, else that prefix followed by comment lines to the
 * recorded size). Entries the recording lacks stay, after the recorded ones. New inodes are numbered
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

/** `size` bytes made on demand: the shown prefix, then 64-byte comment lines ("# xxx...\n") */
function fill(prefix: string, size: number): { size: number; gen: (off: number, len: number) => Uint8Array } {
  const head = prefix && !prefix.endsWith('\n') && prefix.length < size ? prefix + '\n' : prefix;
  return {
    size,
    gen: (off, len) => {
      const b = new Uint8Array(Math.max(0, Math.min(len, size - off)));
      for (let i = 0; i < b.length; i++) {
        const p = off + i;
        if (p < head.length) { b[i] = head.charCodeAt(p) & 0xff; continue; }
        const k = (p - head.length) % 64;
        b[i] = k === 63 || p === size - 1 ? 10 : k === 0 ? 35 : k === 1 ? 32 : 120;
      }
      return b;
    },
  };
}

/** Build /etc from the recording (after the rest of the tree: the inode numbers made before stay). */
export function installEtcTree(fs: Fs, bootNs: number, latestS: number): void {
  const ns = (s: number): number => machineNsOf(bootNs, Math.min(s, latestS));
  const dirs: [Inode, string][] = [];
  const before = new Set(load().filter(([p]) => fs.lookup(p, '/', true)).map(([p]) => p));
  // made in the recorded inode order (savedir's SAVEDIR_SORT_FASTREAD, cp -r's order, sorts by it)
  for (const [p, type, mode, uid, gid, size, mtime, , , body] of [...load()].sort((a, b) => a[8] - b[8])) {
    let ino = fs.lookup(p, '/', true);
    const want = type === 'd' ? 0o040000 : type === 'l' ? 0o120000 : 0o100000;
    if (ino && (ino.mode & 0o170000) !== want) continue; // the machine's own kind of entry stays
    if (ino?.isDir) dirs.push([ino, p]);
    // an entry the machine made before keeps its mode, owner, time and content (what its programs and
    // tests rely on) and takes the next number, so that its place in inode order is the real one
    if (ino) {
      if (p !== '/etc') ino.ino = fs.mk(ino.mode, 'ext4').ino;
      continue;
    }
    if (type === 'd') ino = fs.mkdirp(p, 'ext4', mode);
    else if (type === 'l') ino = fs.symlink(p, body ?? '');
    else ino = fs.createFile(p, body !== null && body.length >= size ? body.slice(0, size) : fill(body ?? '', size), mode);
    if (type !== 'l') ino.mode = want | mode;
    ino.uid = uid;
    ino.gid = gid;
    ino.mtime = ino.atime = ns(mtime);
    if (type === 'd') dirs.push([ino, p]);
  }
  // a directory's time is its own (creating its entries above touched it)
  const mtimes = new Map(load().map((e) => [e[0], e[6]]));
  for (const [d, p] of dirs) if (!before.has(p)) d.mtime = d.atime = ns(mtimes.get(p) ?? 0);
  // each directory's entries in the recorded (getdents) order, the machine's own after them
  const rank = new Map<string, number>();
  load().forEach(([p], i) => rank.set(p, i));
  for (const [d, base] of dirs) {
    const kids = [...d.children!.entries()];
    const r = (n: string): number => rank.get(`${base}/${n}`) ?? Infinity;
    kids.sort((a, b) => r(a[0]) - r(b[0]));
    d.children!.clear();
    for (const [n, c] of kids) d.children!.set(n, c);
  }
}
