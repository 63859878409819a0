/**
 * coreutils 9.1 stat (Debian 12), the default format and -c/--format: statx of each operand
 * (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT unless -L; STATX_BASIC_STATS | STATX_BTIME), the lines
 * printed through stdio as they are formatted, the owner and group names looked up through NSS
 * (libc_nss.ts: nscd, nsswitch.conf, /etc/passwd, /etc/group) when the Uid/Gid fields come, the time
 * zone read (tzset) before the first time; close_stdout. As strace of the real binary shows
 * (data/recordings/stat.json.gz).
 */
import type { ProgramMain } from '../../process/user';
import type { StatInfo } from '../../include/fs';
import { epochSeconds, statTime } from '../libc_time';
import { getpwuidName, getgrgidName, tzset } from '../libc_nss';
import { errStr, parseArgs, modeString, readlink } from './coreutils';

const AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_NO_AUTOMOUNT = 0x800, STATX_ALL = 0xfff;

const kindOf = (s: StatInfo): string => (s.isDir ? 'directory' : s.isLnk ? 'symbolic link' : s.isChr ? 'character special file' : s.isBlk ? 'block special file'
  : (s.mode & 0o170000) === 0o010000 ? 'fifo' : (s.mode & 0o170000) === 0o140000 ? 'socket' : s.size === 0 ? 'regular empty file' : 'regular file');

export const stat: ProgramMain = function* (u, argv) {
  const { flags, vals, ops, long } = parseArgs(argv, 'c');
  const fmtOpt = vals.c ?? long.find((l) => l.startsWith('format='))?.slice(7);
  const follow = flags.has('L') || long.includes('dereference');
  if (!ops.length) { yield* u.err("stat: missing operand\nTry 'stat --help' for more information.\n"); yield* u.closeStdout(); return 1; }
  let st = 0;
  for (const p of ops) {
    const r = yield* u.sys('statx', [AT_FDCWD, p, AT_NO_AUTOMOUNT | (follow ? 0 : AT_SYMLINK_NOFOLLOW), STATX_ALL, 0]);
    if (r.ret < 0) { yield* u.err(`stat: cannot statx '${p}': ${errStr(r.ret)}\n`); st = 1; continue; }
    const s = r.info as unknown as StatInfo;
    const link = s.isLnk ? yield* readlink(u, p) : null;
    const dev = s.dev ?? 0;
    const time = function* (ns: number) { yield* tzset(u); return statTime(ns, u.m.bootNs); };
    const owner = function* () { return (yield* getpwuidName(u, s.uid)) ?? 'UNKNOWN'; };
    const group = function* () { return (yield* getgrgidName(u, s.gid)) ?? 'UNKNOWN'; };
    if (fmtOpt !== undefined) {
      // the directives in order, each looked up when reached (%U through NSS, times after tzset)
      let line = '';
      const re = /%(.)/g;
      let last = 0;
      for (let mm = re.exec(fmtOpt); mm; mm = re.exec(fmtOpt)) {
        line += fmtOpt.slice(last, mm.index);
        last = re.lastIndex;
        const c = mm[1];
        switch (c) {
          case 'n': line += p; break;
          case 'N': line += link !== null ? `'${p}' -> '${link}'` : `'${p}'`; break;
          case 's': line += String(s.size); break;
          case 'i': line += String(s.ino); break;
          case 'a': line += (s.mode & 0o7777).toString(8); break;
          case 'A': line += modeString(s); break;
          case 'U': line += yield* owner(); break;
          case 'G': line += yield* group(); break;
          case 'u': line += String(s.uid); break;
          case 'g': line += String(s.gid); break;
          case 'h': line += String(s.nlink); break;
          case 'b': line += String(s.blocks ?? 0); break;
          case 'B': line += '512'; break;
          case 'o': line += String(s.blksize ?? 4096); break;
          case 'F': line += kindOf(s); break;
          case 'd': line += String(dev); break;
          case 'D': line += dev.toString(16); break;
          case 'x': line += yield* time(s.atime ?? s.mtime); break;
          case 'y': case 'z': case 'w': line += yield* time(s.mtime); break;
          case 'X': line += String(epochSeconds(u.m.bootNs, s.atime ?? s.mtime)); break;
          case 'Y': case 'Z': case 'W': line += String(epochSeconds(u.m.bootNs, s.mtime)); break;
          case '%': line += '%'; break;
          default: line += mm[0];
        }
      }
      yield* u.printf(line + fmtOpt.slice(last) + '\n');
      continue;
    }
    yield* u.printf(`  File: ${p}${link !== null ? ` -> ${link}` : ''}\n`);
    yield* u.printf(`  Size: ${String(s.size).padEnd(10)}\tBlocks: ${String(s.blocks ?? 0).padEnd(10)} IO Block: ${String(s.blksize ?? 4096).padEnd(6)} ${kindOf(s)}\n`);
    const devs = `${dev >> 8},${dev & 0xff}`;
    yield* u.printf(s.isChr || s.isBlk ? `Device: ${devs}\tInode: ${String(s.ino).padEnd(11)} Links: ${String(s.nlink).padEnd(5)} Device type: ${s.rdev >> 8},${s.rdev & 255}\n`
      : `Device: ${devs}\tInode: ${String(s.ino).padEnd(11)} Links: ${s.nlink}\n`);
    const mode = `(${(s.mode & 0o7777).toString(8).padStart(4, '0')}/${modeString(s)})`;
    const uid = `(${String(s.uid).padStart(5)}/${(yield* owner()).padStart(8)})`;
    const gid = `(${String(s.gid).padStart(5)}/${(yield* group()).padStart(8)})`;
    yield* u.printf(`Access: ${mode}  Uid: ${uid}   Gid: ${gid}\n`);
    const at = yield* time(s.atime ?? s.mtime);
    const t = yield* time(s.mtime);
    yield* u.printf(`Access: ${at}\n`);
    yield* u.printf(`Modify: ${t}\n`);
    yield* u.printf(`Change: ${t}\n`);
    yield* u.printf(` Birth: ${t}\n`);
  }
  yield* u.closeStdout();
  return st;
};
