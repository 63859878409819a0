/**
 * `node dist/scripts/userland/root_tree.js ROOTFS`: data/userland/root.tsv, the file tree of the
 * recording guest's Debian 12 install outside /etc (whose files and bytes data/userland/etc.json
 * has): every directory, file and symlink of /usr, /var, /boot, /opt, ... with its mode, owner,
 * size, mtime and symlink target, read from ROOTFS, the debootstrapped tree scripts/record/image.sh
 * makes ($REC_WORK/rootfs) and mke2fs -d copies onto the recording guest's disk.
 *
 * mke2fs -d populates a directory's entries in alphasort order (C locale: byte order), recursing into a
 * directory when it makes it, so the real inode numbers follow that walk (debugfs of the recorded
 * disk: /usr/sbin 7577, its add-shell 7578, addgroup 7579, ...): each entry's `rank` is its place in
 * it, the order the machine numbers them in (src/machine/userland/root_tree.ts). A file's disk extent
 * is reserved in the same order (fs/namei.ts reserveExtent's formula): `block` is its first block
 * counted from the first extent of the tree.
 *
 * Left out: /etc (etc.json), the mount points' contents (/proc, /sys, /dev, /run, /tmp), /root (the
 * machine's own home) and what the recorder adds to the image (/usr/sbin/recorder-run).
 * File contents are not kept (the machine's bytes for them are a deterministic filler of the real size),
 * but for the shell scripts of /usr/bin and /usr/sbin (#!/bin/sh, up to 16 KiB: gunzip, zcat, which.debianutils, ...), which the
 * machine's dash runs: data/userland/scripts.json, their text by path.
 *
 * Output: a first line of JSON, `{ count, blocks, head, sub }` (the entries, the blocks of their
 * extents: what a boot reserves; the index of the HEAD directories, whose lines come first; the names
 * of the subdirectories of each directory up to SUB_DEPTH levels down), then per
 * directory its entries, one per line: name, type (d f l), mode (octal), uid, gid, size, mtime (s),
 * rank, block, target (tab-separated; a symlink's target last; the type of a regular file is e for an
 * ELF object, s for a shell script whose text data/userland/scripts.json keeps, else f), then a last line, `{ PATH: [offset,
 * length, subdirs] }` for every directory of the tree (offset and length of its lines in the text
 * after the first line, its count of subdirectories). A start reads the first line and the lines of
 * a HEAD directory it misses a name in; the rest is read when a look-up first goes elsewhere.
 */
import * as fs from 'fs';
import * as path from 'path';

const SKIP = new Set(['/etc', '/proc', '/sys', '/dev', '/run', '/tmp', '/root', '/usr/sbin/recorder-run', '/lost+found']);
const PAGE = 4096;
/** the directories whose lines come first, indexed in the first line: the ones a start reads (a warm page cache file's, PATH's: /usr/local/sbin is its first directory) */
/** how deep the first line lists subdirectories (the machine's own directories are no deeper) */
const SUB_DEPTH = 3;
const HEAD = ['/', '/usr', '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib/x86_64-linux-gnu', '/usr/lib/systemd', '/usr/local'];

interface Line { dir: string; text: string }

/** the largest shell script whose text is kept, and where (the commands a user runs) */
const SCRIPT_MAX = 16384;
const SCRIPT_DIRS = ['/usr/bin', '/usr/sbin'];
/** a shell script the machine's dash runs: "#!" naming /bin/sh (maybe with blanks and an option) */
const SH_SCRIPT = /^#![ \t]*\/bin\/sh([ \t]|$)/;

const isFile = (type: string): boolean => type === 'f' || type === 'e' || type === 's';

/** A regular file's type letter: 'e' an ELF object, 's' a shell script kept whole (`keep`: where they are kept), else 'f'. */
function fileKind(file: string, size: number, keep: boolean): string {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(Math.min(size, 256));
    fs.readSync(fd, b, 0, b.length, 0);
    if (b.length >= 4 && b.readUInt32BE(0) === 0x7f454c46) return 'e';
    const first = b.toString('latin1').split('\n')[0];
    return keep && size <= SCRIPT_MAX && SH_SCRIPT.test(first) ? 's' : 'f';
  } finally {
    fs.closeSync(fd);
  }
}

export function rootTree(rootfs: string): { header: { count: number; blocks: number; head: Record<string, [number, number, number]>; sub: Record<string, string[]> }; index: Record<string, [number, number, number]>; body: string; scripts: Record<string, string> } {
  const scripts: Record<string, string> = {};
  const lines: Line[] = [];
  let rank = 0, block = 0;
  const subdirs = new Map<string, number>();
  const allDirs: string[] = ['/'];
  const subdirNames = new Map<string, string[]>();
  const walk = (rel: string): void => {
    const names = fs.readdirSync(path.join(rootfs, rel)).map((n) => Buffer.from(n, 'latin1'));
    names.sort(Buffer.compare);
    for (const b of names) {
      const name = b.toString('latin1');
      if (/[\t\n]/.test(name)) throw new Error(`root_tree: a name with a tab or newline: ${rel}/${JSON.stringify(name)}`);
      const p = `${rel}/${name}`;
      const st = fs.lstatSync(path.join(rootfs, p));
      const skip = SKIP.has(p);
      // a skipped directory is still an entry of its parent (the machine makes its own): only what it holds is left out
      if (skip && !st.isDirectory()) continue;
      const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? fileKind(path.join(rootfs, p), st.size, SCRIPT_DIRS.includes(rel)) : '';
      if (type === 's') scripts[p] = fs.readFileSync(path.join(rootfs, p)).toString('latin1');
      if (!type) continue; // sockets, fifos and device nodes: none in an install's tree outside /dev
      const size = isFile(type) ? st.size : 0;
      const target = type === 'l' ? fs.readlinkSync(path.join(rootfs, p)) : '';
      const fields = [name, type, (st.mode & 0o7777).toString(8), st.uid, st.gid, size, Math.floor(st.mtimeMs / 1000), rank++, isFile(type) ? block : 0, target];
      if (isFile(type)) block += Math.max(16, Math.ceil(size / PAGE) + 64);
      if (!skip) lines.push({ dir: rel || '/', text: fields.join('\t') });
      if (type === 'd') {
        subdirs.set(rel || '/', (subdirs.get(rel || '/') ?? 0) + 1);
        let sn = subdirNames.get(rel || '/');
        if (!sn) subdirNames.set(rel || '/', (sn = []));
        sn.push(name);
        allDirs.push(p);
        if (!skip) walk(p);
      }
    }
  };
  walk('');
  // grouped by directory (a directory's lines in rank order), the directories in the walk's order
  const byDir = new Map<string, string[]>();
  for (const l of lines) {
    let a = byDir.get(l.dir);
    if (!a) byDir.set(l.dir, (a = []));
    a.push(l.text);
  }
  const dirs: Record<string, [number, number, number]> = {};
  let body = '';
  // the directories a start looks in first (the warm page cache's files, the shell's PATH look-ups)
  const order = [...HEAD.filter((d) => byDir.has(d)), ...[...byDir.keys()].filter((d) => !HEAD.includes(d))];
  for (const d of order) {
    const ls = byDir.get(d)!;
    const text = ls.join('\n') + '\n';
    dirs[d] = [Buffer.byteLength(body, 'latin1'), Buffer.byteLength(text, 'latin1'), subdirs.get(d) ?? 0];
    body += text;
  }
  // the empty directories too (no lines): the index names every directory of the tree
  for (const d of allDirs) dirs[d] ??= [0, 0, 0];
  const head: Record<string, [number, number, number]> = {};
  for (const d of HEAD) if (dirs[d]) head[d] = dirs[d];
  // the subdirectories of the directories SUB_DEPTH or fewer levels down (a boot counts the links of
  // the machine's own directories from them)
  const sub: Record<string, string[]> = {};
  for (const d of allDirs) if ((d === '/' ? 0 : d.split('/').length - 1) <= SUB_DEPTH && byDir.has(d)) sub[d] = subdirNames.get(d) ?? [];
  return { header: { count: rank, blocks: block, head, sub }, index: dirs, body, scripts };
}

if (require.main === module) {
  const root = process.argv[2];
  if (!root || !fs.existsSync(path.join(root, 'usr/bin'))) {
    process.stderr.write('usage: node dist/scripts/userland/root_tree.js ROOTFS (the recorder\'s $REC_WORK/rootfs)\n');
    process.exit(2);
  }
  const { header, index, body, scripts } = rootTree(root);
  const out = path.join(__dirname, '../../../data/userland/root.tsv');
  fs.writeFileSync(out, Buffer.from(JSON.stringify(header) + '\n' + body + JSON.stringify(index) + '\n', 'latin1'));
  const sout = path.join(__dirname, '../../../data/userland/scripts.json');
  fs.writeFileSync(sout, Buffer.from(JSON.stringify(scripts, null, 0) + '\n', 'latin1'));
  process.stdout.write(`root_tree: ${header.count} entries, ${Object.keys(index).length} directories -> ${out}; ${Object.keys(scripts).length} shell scripts -> ${sout}\n`);
}
