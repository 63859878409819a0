/**
 * GNU find 4.9 (findutils) over gnulib's fts as Debian 12 builds it: fts_open per command-line argument
 * with FTS_CWDFD | FTS_PHYSICAL | FTS_NOSTAT | FTS_TIGHT_CYCLE_CHECK. The working directory is a
 * descriptor (fts_cwd_fd) and every name is resolved relative to it; going down pushes the old one on
 * a ring of 4 (the displaced oldest is closed), going up pops it, or opens ".." (checked by fstat) when
 * the ring is empty. A directory is read by fts_build: openat O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|
 * O_CLOEXEC|O_DIRECTORY, fdopendir's fstat, F_GETFL and F_SETFD, the re-stat by name, fstatfs for a
 * leaf (st_nlink 2) on a device not asked yet in this fts, F_DUPFD_CLOEXEC above stderr as the new
 * working descriptor, getdents64 to the end, closedir. Entries come in getdents order; those typed
 * directory or unknown are lstat'ed when fts_read reaches them, the others never. find's
 * consider_visiting keeps its own duplicate of the working descriptor (curr_fd, F_DUPFD_CLOEXEC from 0),
 * dropped on a postorder visit or a change of depth. Matches are printed as they are visited. Around
 * it find keeps the starting directory open (openat "." O_CLOEXEC), asks uname and whether stdin and
 * stdout are terminals, and at the end fchdir's back to it and closes it.
 * From gnulib's fts.c/i-ring.c and findutils' ftsfind.c, checked against strace of Debian 12's find on
 * nested and empty directories and depths past the ring (test/machine/find_fts.test.ts) and against
 * data/recordings/find.json.gz (`find /etc -name *.conf`).
 *
 * Expressions: -name PATTERN, -type d|f|l, -maxdepth N, -print (the default action).
 */
/**
 * GNU find 4.9 (findutils) over gnulib's fts (FTS_CWDFD | FTS_PHYSICAL | FTS_NOSTAT: a virtual working
 * directory kept as a descriptor, entries typed by d_type, only directories stat'ed) with the system
 * calls strace shows Debian 12's find make (data/recordings/find.json.gz, `find /etc -name *.conf`):
 * the starting directory kept open (openat "." O_CLOEXEC), uname, isatty of stdin and stdout; each
 * directory lstat'ed through its parent's descriptor, opened O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|
 * O_CLOEXEC|O_DIRECTORY, fstat'ed, its flags read and FD_CLOEXEC set, lstat'ed again (did it move?),
 * duplicated as the new working descriptor (F_DUPFD_CLOEXEC), read to the end, closed; the previous
 * working descriptor in fts's ring closed and the new one duplicated into it; on the way back up the
 * directory's descriptor closed and the parent's duplicated again. The entries are visited in the
 * order getdents64 returned them; matches are printed as found (stdout line buffered on a terminal).
 * At the end the starting directory is fchdir'ed back to and closed.
 *
 * Expressions: -name PATTERN, -type d|f|l, -maxdepth N, -print (the default action).
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';
import { globToRegExp } from '../../../kernel/kallsyms';
import { readDir } from '../libfs';


type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_EMPTY_PATH = 0x1000;
/** O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY (opendirat and diropen, FTS_PHYSICAL) */
const DIR_FLAGS = 0xb0900;
const O_CLOEXEC = 0x80000;
const F_GETFL = 3, F_SETFD = 2, FD_CLOEXEC = 1, F_DUPFD_CLOEXEC = 0x406;
const DT_DIR = 4, DT_REG = 8, DT_LNK = 10, DT_UNKNOWN = 0;
/** gnulib's I_RING_SIZE: how many ancestors' descriptors fts keeps to climb back without "..";
 * MIN_DIR_NLINK: a directory with this link count has no subdirectories (leaf_optimization asks fstatfs) */
const I_RING_SIZE = 4, MIN_DIR_NLINK = 2;

interface Expr { name: RegExp | null; type: string | null; maxdepth: number }
/** fts's state for one command-line argument (find calls fts_open per argument) and find's own descriptor */
interface Fts {
  u: U; e: Expr;
  /** fts_cwd_fd: the virtual working directory */
  cwd: number;
  /** fts_fd_ring: the ancestors' descriptors, most recent last */
  ring: number[];
  /** fts_leaf_optimization_works_ht: st_dev whose file system type fstatfs already told */
  fsTypes: Set<number>;
}
/** find's side (ftsfind.c): curr_fd (a duplicate of fts's descriptor), the previous entry's depth */
interface Find { u: U; e: Expr; curr: number; prevDepth: number; status: number }
type Info = 'D' | 'DP' | 'F' | 'DNR' | 'NS';
interface Ent { path: string; acc: string; level: number; dtype: number; info: Info; st?: StatInfo; err?: number }

const ERRS: Record<number, string> = { [-2]: 'No such file or directory', [-13]: 'Permission denied', [-20]: 'Not a directory' };

function* fstatat(u: U, dfd: number, p: string): G<StatInfo | number> {
  const r = yield* u.sys('newfstatat', [dfd, p, 0, AT_SYMLINK_NOFOLLOW]);
  return r.ret < 0 ? r.ret : (r.info as unknown as StatInfo);
}

const typeOf = (s: StatInfo): number => (s.isDir ? DT_DIR : s.isLnk ? DT_LNK : s.isReg ? DT_REG : DT_UNKNOWN);

/** fts_stat: the entry lstat'ed relative to the working descriptor */
function* ftsStat(t: Fts, p: Ent): G<void> {
  const s = yield* fstatat(t.u, t.cwd, p.acc);
  if (typeof s === 'number') { p.info = 'NS'; p.err = s; return; }
  p.st = s; p.dtype = typeOf(s); p.info = s.isDir ? 'D' : 'F';
}

/** cwd_advance_fd: going down the old descriptor is pushed on the ring (closing the one it displaces); going up it is closed */
function* advance(t: Fts, fd: number, down: boolean): G<void> {
  const old = t.cwd;
  if (down) {
    t.ring.push(old);
    const displaced = t.ring.length > I_RING_SIZE ? t.ring.shift()! : -1;
    if (displaced >= 0) yield* t.u.close(displaced);
  } else if (old >= 0) yield* t.u.close(old);
  t.cwd = fd;
}

/** back to the parent: fts_safe_changedir(.., -1, "..") (the ring's descriptor, else openat ".." checked by fstat);
 * at a command-line argument RESTORE_INITIAL_CWD */
function* ascend(t: Fts, p: Ent): G<void> {
  if (p.level === 0) return yield* advance(t, AT_FDCWD, false);
  let fd = -1;
  if (t.ring.length) { const v = t.ring.pop()!; if (v >= 0) fd = v; }
  if (fd < 0) {
    fd = (yield* t.u.sys('openat', [t.cwd, '..', DIR_FLAGS])).ret;
    if (fd < 0) return;
    yield* t.u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  }
  yield* advance(t, fd, false);
}

/** ftsfind.c's consider_visiting: left_dir/inside_dir keep curr_fd a duplicate of fts's descriptor, then the expression */
function* consider(f: Find, t: Fts, p: Ent): G<boolean> {
  const u = f.u;
  if (p.info === 'DP' || p.level !== f.prevDepth) {
    if (f.curr >= 0) yield* u.close(f.curr);
    f.curr = -1;
  }
  if (f.curr < 0 && t.cwd !== AT_FDCWD) f.curr = (yield* u.sys('fcntl', [t.cwd, F_DUPFD_CLOEXEC, 0])).ret;
  f.prevDepth = p.level;
  if (p.info === 'NS' || p.info === 'DNR') {
    yield* u.err(`find: '${p.path}': ${ERRS[p.err ?? -13] ?? 'Permission denied'}\n`);
    f.status = 1;
    return false;
  }
  if (p.info === 'DP' || p.level > f.e.maxdepth) return false;
  const base = p.path === '/' ? '/' : p.path.replace(/\/+$/, '').split('/').pop() ?? p.path;
  const ok = (!f.e.name || f.e.name.test(base)) &&
    (!f.e.type || ({ d: DT_DIR, f: DT_REG, l: DT_LNK } as Record<string, number>)[f.e.type] === p.dtype);
  if (ok) yield* u.printf(p.path + '\n');
  // fts_set(FTS_SKIP) at -maxdepth
  return p.info === 'D' && p.level < f.e.maxdepth;
}

/**
 * fts_read below a directory just visited in preorder: fts_build (opendirat, the re-stat of
 * FTS_TIGHT_CYCLE_CHECK, leaf_optimization's fstatfs for a directory with st_nlink 2 on a device not
 * asked yet, the descriptor duplicated above stderr and made the working one, readdir to the end,
 * closedir), each entry in getdents order (directories and unknown types lstat'ed as they come up),
 * back to the parent and the postorder visit
 */
function* walkDir(f: Find, t: Fts, p: Ent): G<void> {
  const u = t.u;
  const fd = (yield* u.sys('openat', [t.cwd, p.acc, DIR_FLAGS])).ret;
  if (fd < 0) { p.info = 'DNR'; p.err = fd; yield* consider(f, t, p); return; }
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.sys('fcntl', [fd, F_GETFL]);
  yield* u.sys('fcntl', [fd, F_SETFD, FD_CLOEXEC]);
  yield* ftsStat(t, p);
  if (p.st && p.st.nlink === MIN_DIR_NLINK && !t.fsTypes.has(p.st.dev ?? 0)) {
    if ((yield* u.sys('fstatfs', [fd, 0])).ret >= 0) t.fsTypes.add(p.st.dev ?? 0);
  }
  const dfd = (yield* u.sys('fcntl', [fd, F_DUPFD_CLOEXEC, 3])).ret;
  if (dfd >= 0) yield* advance(t, dfd, true);
  const ents = (yield* readDir(u, fd)).filter((en) => en.name !== '.' && en.name !== '..');
  yield* u.close(fd);
  if (dfd < 0) return;
  for (const en of ents) {
    const c: Ent = { path: p.path.endsWith('/') ? p.path + en.name : `${p.path}/${en.name}`, acc: en.name, level: p.level + 1, dtype: en.type, info: 'F' };
    // FTS_NOSTAT|FTS_PHYSICAL: a known type other than a directory is not stat'ed
    if (en.type === DT_UNKNOWN || en.type === DT_DIR) yield* ftsStat(t, c);
    if ((yield* consider(f, t, c)) && c.info === 'D') yield* walkDir(f, t, c);
    else if (c.info === 'D') { c.info = 'DP'; yield* consider(f, t, c); }
  }
  yield* ascend(t, p);
  p.info = 'DP';
  yield* consider(f, t, p);
}

export const find: ProgramMain = function* (u, argv) {
  const a = argv.slice(1);
  const roots: string[] = [];
  let i = 0;
  while (i < a.length && !(a[i].startsWith('-') && a[i].length > 1) && a[i] !== '(' && a[i] !== '!') roots.push(a[i++]);
  const e: Expr = { name: null, type: null, maxdepth: Infinity };
  for (; i < a.length; i++) {
    const op = a[i];
    if (op === '-print') continue;
    const arg = a[i + 1];
    if ((op === '-name' || op === '-type' || op === '-maxdepth') && arg === undefined) { yield* u.err(`find: missing argument to \`${op}'\n`); return 1; }
    if (op === '-name') e.name = globToRegExp(a[++i]);
    else if (op === '-type') e.type = a[++i];
    else if (op === '-maxdepth') e.maxdepth = Number(a[++i]);
    else { yield* u.err(`find: unknown predicate \`${op}'\n`); return 1; }
  }
  const start = (yield* u.sys('openat', [AT_FDCWD, '.', O_CLOEXEC])).ret;
  yield* u.uname();
  yield* u.isatty(0);
  yield* u.isatty(1);
  const f: Find = { u, e, curr: -1, prevDepth: -1, status: 0 };
  for (const root of roots.length ? roots : ['.']) {
    // fts_open per argument: its own ring and file-system-type cache; the argument lstat'ed
    const t: Fts = { u, e, cwd: AT_FDCWD, ring: [], fsTypes: new Set() };
    const p: Ent = { path: root, acc: root, level: 0, dtype: DT_UNKNOWN, info: 'F' };
    yield* ftsStat(t, p);
    if (p.info === 'NS') { p.err = p.err === -13 ? -13 : -2; }
    if ((yield* consider(f, t, p)) && p.info === 'D') yield* walkDir(f, t, p);
    else if (p.info === 'D') { p.info = 'DP'; yield* consider(f, t, p); }
  }
  if (start >= 0) { yield* u.sys('fchdir', [start]); yield* u.close(start); }
  yield* u.closeStdout();
  return f.status;
};
