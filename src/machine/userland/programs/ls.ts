/**
 * coreutils 9.1 ls (Debian 12): -l -a -A -i -d -h -1 -n -g -o -U -f, columns on a terminal, "total", link
 * targets, dates, with the system calls strace shows (data/recordings/ls-root.json.gz, ls-l.json.gz):
 *
 * - each operand and, for a directory, each entry as getdents64 returns it (gobble_file, in the
 *   directory's order, before sorting) is statx-ed (AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW with -l,
 *   mask 0x25e); with -l also asked for its SELinux context (lgetxattr security.selinux) and, not a
 *   symlink, its ACL (getxattr system.posix_acl_access, a directory system.posix_acl_default too:
 *   file_has_acl), a symlink read for its target (readlink with st_size + 1);
 * - the owner's and group's names come from getpwuid/getgrgid (libc_nss.ts: nscd, nsswitch.conf,
 *   /etc/passwd, /etc/group) the first time each id is seen (idcache.c caches them);
 * - a directory is printed when read: "total", then the lines; the first time shown is where tzset
 *   reads /etc/localtime.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';
import { epochSeconds, lsTime } from '../libc_time';
import { IdCache, tzset } from '../libc_nss';
import { errStr, parseArgs, modeString, human } from './coreutils';
import { areadlink } from '../libfs';

type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100;
/** statx mask of ls -l: TYPE MODE NLINK UID GID MTIME SIZE BLOCKS (0x25e as strace shows; ls -i asks INO) */
const STATX_LONG = 0x25e;
/** O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY, as strace of Debian 12's ls shows (0x90800) */
const O_OPENDIR = 0x90800;
/** SELinux's context buffer (libselinux lgetfilecon_raw starts with 255 bytes) */
const CONTEXT_SIZE = 255;

interface Entry { name: string; path: string; s: StatInfo; link?: string | null }

/**
 * ls -C (coreutils ls.c calculate_columns / print_many_per_line): the most columns whose widths
 * (each name + 2, the last column without) fit in `width`, filled column by column; padding to a
 * column start uses tabs where a tab stop (8) is reached first (ls.c indent()).  Lines, each with its newline.
 */
export function lsColumns(names: string[], width: number): string[] {
  const n = names.length;
  if (!n) return [];
  let best = 1;
  let bestWidths: number[] = [Math.max(...names.map((x) => x.length))];
  for (let cols = 2; cols <= Math.min(n, Math.floor(width / 3)); cols++) {
    const rows = Math.ceil(n / cols);
    const w = new Array<number>(cols).fill(0);
    for (let i = 0; i < n; i++) {
      const c = Math.floor(i / rows);
      w[c] = Math.max(w[c], names[i].length + (c === cols - 1 ? 0 : 2));
    }
    if (w.reduce((a, b) => a + b, 0) < width) { best = cols; bestWidths = w; }
  }
  const rows = Math.ceil(n / best);
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    let line = '';
    let pos = 0;
    for (let c = 0; c < best; c++) {
      const i = c * rows + r;
      if (i >= n) break;
      line += names[i];
      if ((c + 1) * rows + r >= n) break;
      let from = pos + names[i].length;
      const to = pos + bestWidths[c];
      while (from < to) {
        if (Math.floor(to / 8) > Math.floor((from + 1) / 8)) { line += '\t'; from += 8 - (from % 8); } else { line += ' '; from++; }
      }
      pos = to;
    }
    lines.push(line + '\n');
  }
  return lines;
}


const ls: ProgramMain = function* (u, argv) {
  const { flags, long: longOpts, ops } = parseArgs(argv, '', true);
  // -f: directory order and every entry (-aU), and no long listing (ls.c: "-f ... disable -ls --color")
  const unsorted = flags.has('U') || flags.has('f');
  const long = !flags.has('f') && (flags.has('l') || flags.has('n') || flags.has('g') || flags.has('o'));
  const all = flags.has('a') || flags.has('f') || longOpts.includes('all');
  const almost = flags.has('A');
  const inode = flags.has('i') || longOpts.includes('inode');
  const dirSelf = flags.has('d');
  const hum = flags.has('h') || longOpts.includes('human-readable');
  const numeric = flags.has('n');
  const showOwner = !flags.has('g'), showGroup = !flags.has('o');
  const nowSec = epochSeconds(u.m.bootNs, u.m.now);
  const targets = ops.length ? ops : ['.'];
  const ids = new IdCache();
  let st = 0;
  // the first malloc, isatty(1) and on a terminal its width (TIOCGWINSZ): columns (-C), as strace of
  // Debian 12's ls shows
  yield* u.malloc();
  const tty = yield* u.isatty(1);
  const columns = tty && !long && !flags.has('1');
  if (columns) yield* u.sys('ioctl', [1, 0x5413, 0]);

  /** gobble_file for -l: the statx, the SELinux context and ACL asked, a link's target, the owner and group looked up */
  const gobbleLong = function* (name: string, path: string): G<Entry | number> {
    const s = yield* u.statx(path, STATX_LONG | (inode ? 0x100 : 0), true);
    if (typeof s === 'number') return s;
    yield* u.sys('lgetxattr', [path, 'security.selinux', 0, CONTEXT_SIZE]);
    let link: string | null | undefined;
    if (s.isLnk) {
      link = yield* areadlink(u, path, s.size);
    } else {
      yield* u.sys('getxattr', [path, 'system.posix_acl_access', 0, 0]);
      if (s.isDir) yield* u.sys('getxattr', [path, 'system.posix_acl_default', 0, 0]);
    }
    if (!numeric && showOwner) yield* ids.user(u, s.uid);
    if (!numeric && showGroup) yield* ids.group(u, s.gid);
    return { name, path, s, link };
  };

  let tzDone = false;
  /** print a set of entries (sorted by name, unless -U or -f: as the directory returned them); a directory's listing with its "total" */
  const print = function* (entries: Entry[], total: boolean): G<void> {
    if (!unsorted) entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (!long) {
      const out = columns ? lsColumns(entries.map((e) => (inode ? `${e.s.ino} ` : '') + e.name), 80)
        : entries.map((e) => (inode ? `${e.s.ino} ` : '') + e.name + '\n');
      for (const line of out) yield* u.printf(line);
      return;
    }
    const rows: string[][] = [];
    let blocks = 0;
    for (const e of entries) {
      const s = e.s;
      blocks += (s.blocks ?? 0) / 2;
      const size = s.isChr || s.isBlk ? `${s.rdev >> 8}, ${s.rdev & 255}` : hum ? human(s.size) : String(s.size);
      const name = e.link != null ? `${e.name} -> ${e.link}` : e.name;
      const owner = numeric ? String(s.uid) : yield* ids.user(u, s.uid);
      const group = numeric ? String(s.gid) : yield* ids.group(u, s.gid);
      rows.push([inode ? String(s.ino) : '', modeString(s), String(s.nlink), owner, group, size, '', name, String(s.mtime)]);
    }
    const w = (k: number) => Math.max(0, ...rows.map((r) => r[k].length));
    const wi = w(0), wn = w(2), wo = w(3), wg = w(4), ws = w(5);
    if (total) yield* u.printf(`total ${hum ? human(blocks * 1024) : Math.ceil(blocks)}\n`);
    for (const r of rows) {
      // the first localtime() runs tzset
      if (!tzDone) { tzDone = true; yield* tzset(u); }
      const when = lsTime(epochSeconds(u.m.bootNs, Number(r[8])), nowSec);
      yield* u.printf((inode ? r[0].padStart(wi) + ' ' : '') + `${r[1]} ${r[2].padStart(wn)} `
        + (showOwner ? `${r[3].padEnd(wo)} ` : '') + (showGroup ? `${r[4].padEnd(wg)} ` : '') + `${r[5].padStart(ws)} ${when} ${r[7]}\n`);
    }
  };

  const files: Entry[] = [];
  const dirs: Entry[] = [];
  for (const t of targets) {
    const g = long ? yield* gobbleLong(t, t) : yield* u.statx(t, 2, dirSelf);
    if (typeof g === 'number') { yield* u.err(`ls: cannot access '${t}': ${errStr(g)}\n`); st = 2; continue; }
    const e = 'path' in g ? g : { name: t, path: t, s: g };
    if (e.s.isDir && !dirSelf) dirs.push(e); else files.push(e);
  }
  if (files.length) yield* print(files, false);
  if (!unsorted) dirs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const [i, d] of dirs.entries()) {
    const fd = yield* u.open(d.name, O_OPENDIR);
    if (fd < 0) { yield* u.err(`ls: cannot open directory '${d.name}': ${errStr(fd)}\n`); st = 2; continue; }
    yield* u.fstat(fd); // fdopendir
    const entries: Entry[] = [];
    // readdir: a getdents64 of 32 KiB at a time, each entry gobbled as it comes
    for (;;) {
      const r = yield* u.sys('getdents64', [fd, 0, 32768]);
      if (r.ret <= 0) break;
      for (const n of (r.info?.names as string[] | undefined) ?? []) {
        if (!(all || (almost ? n !== '.' && n !== '..' : !n.startsWith('.')))) continue;
        const p = d.name === '/' ? `/${n}` : d.name.endsWith('/') ? `${d.name}${n}` : `${d.name}/${n}`;
        if (!long) {
          if (!inode) { entries.push({ name: n, path: p, s: d.s }); continue; }
          const s = yield* u.stat(p, true);
          if (typeof s !== 'number') entries.push({ name: n, path: p, s });
          continue;
        }
        const g = yield* gobbleLong(n, p);
        if (typeof g !== 'number') entries.push(g);
      }
    }
    yield* u.close(fd);
    if (targets.length > 1) yield* u.printf(`${files.length || i ? '\n' : ''}${d.name}:\n`);
    yield* print(entries, true);
  }
  // through stdio (a write per line on a terminal), then close_stdout
  yield* u.closeStdout();
  return st;
};

export const lsPrograms: Record<string, ProgramMain> = { ls };
