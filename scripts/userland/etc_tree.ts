/**
 * `node dist/scripts/userland/etc_tree.js`: data/userland/etc.json, the real guest's /etc as the
 * recorded `tar cf /root/etc.tar /etc` walked it (data/recordings/tar.json.gz, its strace run of
 * Debian 12's GNU tar on the recording guest, scripts/record/): every directory's entries in the
 * order getdents64 returned them (ext4's hash order: the order find, tar and cp -r visit them; the
 * same in every recording made on the recorder's fixed-seed disk, scripts/record/README.md),
 * each entry's type, mode, owner, size, mtime, link count and inode number from tar's
 * newfstatat(AT_SYMLINK_NOFOLLOW), a symlink's target from readlinkat, and a file's content where
 * strace showed all of it (reads under strace's 256-byte string limit).
 *
 * strace shows at most 256 bytes per read, so the files' whole contents come from the guest's disk:
 * `node dist/scripts/userland/etc_tree.js DIR` with DIR/etc copied out of the recording guest's ext4
 * image by scripts/record/pull_etc.sh. Each copied file must have the recorded size and begin with
 * the bytes strace showed tar read (else the generator fails: the disk is not the one recorded).
 *
 * Output: data/userland/etc.json, `{ source, entries: [path, type, mode, uid, gid, size, mtime, nlink,
 * ino, target|content|null] }` in walk order (a directory before its entries), type 'd', 'f' or 'l',
 * the content of files up to INLINE bytes (latin1); data/userland/etc-files.json.gz, `{ source, files:
 * [path, base64][] }`, the longer files' contents (loaded only when one is read).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { findRecording, loadRecording } from '../record/recording';
import { splitArgs } from '../paths/strace';

type Entry = [string, string, number, number, number, number, number, number, number, string | null];

/** a C string as strace prints it ("..." with \n \t \" \\ \NNN \xNN escapes); [text, complete] */
export function straceString(s: string): [string, boolean] | null {
  const m = /^"((?:[^"\\]|\\.)*)"(\.\.\.)?$/s.exec(s.trim());
  if (!m) return null;
  let out = '';
  const b = m[1];
  for (let i = 0; i < b.length; i++) {
    const ch = b[i];
    if (ch !== '\\') { out += ch; continue; }
    const n = b[++i];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', v: '\v', f: '\f', a: '\x07', b: '\b', '"': '"', '\\': '\\' };
    if (n in simple) { out += simple[n]; continue; }
    if (n === 'x') { out += String.fromCharCode(parseInt(b.slice(i + 1, i + 3), 16)); i += 2; continue; }
    const oct = /^[0-7]{1,3}/.exec(b.slice(i))![0];
    out += String.fromCharCode(parseInt(oct, 8));
    i += oct.length - 1;
  }
  return [out, !m[2]];
}

function statField(s: string, f: string): number {
  const m = new RegExp(`\\b${f}=(0[0-7]*|[0-9]+|0x[0-9a-f]+)`).exec(s);
  if (!m) return 0;
  return m[1].startsWith('0x') ? parseInt(m[1], 16) : m[1].length > 1 && m[1].startsWith('0') ? parseInt(m[1], 8) : Number(m[1]);
}

/** files longer than this keep their content in etc-files.json.gz, not etc.json */
export const INLINE = 1024;

export function etcTree(recName = 'tar', root = '/etc'): Entry[] {
  const e = findRecording(recName);
  if (!e) throw new Error(`no recording ${recName}`);
  const r = loadRecording(e);
  const fdPath = new Map<string, string>();
  const order = new Map<string, string[]>();
  const stat = new Map<string, string>();
  const target = new Map<string, string>();
  const content = new Map<string, string>();
  let cwd = '/root';
  const at = (dfd: string, name: string): string => {
    const base = name.startsWith('/') ? '' : dfd.trim() === '-100' ? cwd : fdPath.get(dfd.trim()) ?? '?';
    return path.posix.normalize(name ? `${base}/${name}` : base).replace(/\/$/, '') || '/';
  };
  for (const [, , name, args, ret] of r.strace as [number, number, string, string, string][]) {
    const a = splitArgs(args);
    if (name === 'chdir' && ret === '0') cwd = straceString(a[0])?.[0] ?? cwd;
    if (name === 'openat' && /^\d+$/.test(ret)) fdPath.set(ret, at(a[0], straceString(a[1])?.[0] ?? ''));
    else if (name === 'close') fdPath.delete(a[0].trim());
    else if (name === 'getdents64') {
      const p = fdPath.get(a[0].trim());
      if (!p) continue;
      const names = [...args.matchAll(/d_name="((?:[^"\\]|\\.)*)"/g)].map((m) => straceString(`"${m[1]}"`)![0]).filter((n) => n !== '.' && n !== '..');
      order.set(p, [...(order.get(p) ?? []), ...names]);
    } else if (name === 'newfstatat' && ret === '0') {
      const nm = straceString(a[1])?.[0] ?? '';
      const p = nm === '' ? fdPath.get(a[0].trim()) : at(a[0], nm);
      if (p && !stat.has(p)) stat.set(p, a[2]);
    } else if (name === 'readlinkat' && /^\d+$/.test(ret)) {
      const t = straceString(a[2]);
      if (t) target.set(at(a[0], straceString(a[1])?.[0] ?? ''), t[0]);
    } else if (name === 'read' && /^\d+$/.test(ret)) {
      const p = fdPath.get(a[0].trim());
      const t = straceString(a[1]);
      if (!p || !t || !p.startsWith(root)) continue;
      if (!content.has(p)) content.set(p, t[0]); // the first read of the first open: what the disk must begin with
    }
  }
  const out: Entry[] = [];
  const walk = (p: string): void => {
    const st = stat.get(p);
    if (!st) throw new Error(`${recName}: no stat of ${p}`);
    const mode = statField(st, 'st_mode');
    const type = (mode & 0o170000) === 0o040000 ? 'd' : (mode & 0o170000) === 0o120000 ? 'l' : 'f';
    const size = statField(st, 'st_size');
    const body = type === 'l' ? target.get(p) ?? null : type === 'f' ? content.get(p) ?? null : null;
    out.push([p, type, mode & 0o7777, statField(st, 'st_uid'), statField(st, 'st_gid'), size, statField(st, 'st_mtime'),
      statField(st, 'st_nlink'), statField(st, 'st_ino'), body]);
    if (type === 'd') for (const n of order.get(p) ?? []) walk(`${p}/${n}`);
  };
  walk(root);
  return out;
}

/**
 * Each file's whole content from `disk` (a copy of the guest's /etc's parent): checked against the
 * recorded size and the bytes strace showed; [entries with short contents inline, long files].
 */
export function withContents(entries: Entry[], disk: string): [Entry[], [string, string][]] {
  const long: [string, string][] = [];
  const out = entries.map((e): Entry => {
    if (e[1] !== 'f') return e;
    const b = fs.readFileSync(path.join(disk, e[0]));
    const shown = Buffer.from(e[9] ?? '', 'latin1');
    if (b.length !== e[5]) throw new Error(`${e[0]}: ${b.length} bytes on the disk, ${e[5]} in the recording`);
    if (!b.subarray(0, shown.length).equals(shown)) throw new Error(`${e[0]}: the disk's content differs from what tar read`);
    if (b.length <= INLINE) return [...e.slice(0, 9), b.toString('latin1')] as Entry;
    long.push([e[0], b.toString('base64')]);
    return [...e.slice(0, 9), null] as Entry;
  });
  return [out, long];
}

if (require.main === module) {
  const disk = process.argv[2];
  if (!disk || !fs.existsSync(path.join(disk, 'etc'))) {
    console.error('usage: etc_tree.js DIR   (DIR/etc: the guest\'s /etc, from scripts/record/pull_etc.sh)');
    process.exit(1);
  }
  const [entries, long] = withContents(etcTree(), disk);
  const dir = path.join(__dirname, '..', '..', '..', 'data', 'userland');
  const out = fs.existsSync(dir) ? dir : path.join(__dirname, '..', '..', 'data', 'userland');
  const source = 'data/recordings/tar.json.gz (strace of tar cf /root/etc.tar /etc on the recording guest); contents: that guest\'s disk (scripts/record/pull_etc.sh)';
  fs.writeFileSync(path.join(out, 'etc.json'), JSON.stringify({ source, entries }) + '\n');
  fs.writeFileSync(path.join(out, 'etc-files.json.gz'), zlib.gzipSync(JSON.stringify({ source, files: long }) + '\n', { level: 9 }));
  console.log(`${out}: ${entries.length} entries, ${long.length} files in etc-files.json.gz`);
}
