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
/** O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY */
const DIR_FLAGS = 0xb0900;
const O_CLOEXEC = 0x80000;
const F_GETFL = 3, F_SETFD = 2, FD_CLOEXEC = 1, F_DUPFD_CLOEXEC = 0x406;
const DT_DIR = 4, DT_REG = 8, DT_LNK = 10, DT_UNKNOWN = 0;

interface Expr { name: RegExp | null; type: string | null; maxdepth: number }
interface Walk { u: U; e: Expr; ring: number; status: number }

const ERRS: Record<number, string> = { [-2]: 'No such file or directory', [-13]: 'Permission denied', [-20]: 'Not a directory' };

function* lstat(u: U, dfd: number, p: string): G<StatInfo | number> {
  const r = yield* u.sys('newfstatat', [dfd, p, 0, AT_SYMLINK_NOFOLLOW]);
  return r.ret < 0 ? r.ret : (r.info as unknown as StatInfo);
}

const typeOf = (s: StatInfo): number => (s.isDir ? DT_DIR : s.isLnk ? DT_LNK : s.isReg ? DT_REG : DT_UNKNOWN);

function* test(w: Walk, path: string, dtype: number): G<void> {
  const base = path === '/' ? '/' : path.replace(/\/+$/, '').split('/').pop() ?? path;
  if (w.e.name && !w.e.name.test(base)) return;
  if (w.e.type && ({ d: DT_DIR, f: DT_REG, l: DT_LNK } as Record<string, number>)[w.e.type] !== dtype) return;
  yield* w.u.printf(path + '\n');
}

/** fts's cwd_advance_fd: the ring's previous descriptor closed, `fd` duplicated into its place */
function* advance(w: Walk, fd: number): G<void> {
  if (w.ring >= 0) yield* w.u.close(w.ring);
  w.ring = fd >= 0 ? (yield* w.u.sys('fcntl', [fd, F_DUPFD_CLOEXEC, 0])).ret : -1;
}

/** a directory (already lstat'ed and tested): into it, its entries, back out to `parent` */
function* visitDir(w: Walk, path: string, parent: number, rel: string, depth: number): G<void> {
  const u = w.u;
  if (depth >= w.e.maxdepth) return;
  const tmp = (yield* u.sys('openat', [parent, rel, DIR_FLAGS])).ret;
  if (tmp < 0) { yield* u.err(`find: '${path}': ${ERRS[tmp] ?? 'Permission denied'}\n`); w.status = 1; return; }
  yield* u.sys('newfstatat', [tmp, '', 0, AT_EMPTY_PATH]);
  yield* u.sys('fcntl', [tmp, F_GETFL]);
  yield* u.sys('fcntl', [tmp, F_SETFD, FD_CLOEXEC]);
  yield* lstat(u, parent, rel);
  const cwd = (yield* u.sys('fcntl', [tmp, F_DUPFD_CLOEXEC, 3])).ret;
  const ents = yield* readDir(u, tmp);
  yield* u.close(tmp);
  yield* advance(w, cwd);
  for (const en of ents) {
    if (en.name === '.' || en.name === '..') continue;
    const child = path.endsWith('/') ? path + en.name : `${path}/${en.name}`;
    let dtype = en.type;
    if (dtype === DT_UNKNOWN || dtype === DT_DIR) {
      const s = yield* lstat(u, cwd, en.name);
      if (typeof s === 'number') continue;
      dtype = typeOf(s);
    }
    yield* test(w, child, dtype);
    if (dtype === DT_DIR) yield* visitDir(w, child, cwd, en.name, depth + 1);
  }
  yield* u.close(cwd);
  yield* advance(w, parent === AT_FDCWD ? -1 : parent);
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
  const w: Walk = { u, e, ring: -1, status: 0 };
  for (const root of roots.length ? roots : ['.']) {
    const s = yield* lstat(u, AT_FDCWD, root);
    if (typeof s === 'number') { yield* u.err(`find: '${root}': ${ERRS[s] ?? 'No such file or directory'}\n`); w.status = 1; continue; }
    yield* test(w, root, typeOf(s));
    if (s.isDir) yield* visitDir(w, root, AT_FDCWD, root, 0);
  }
  if (start >= 0) { yield* u.sys('fchdir', [start]); yield* u.close(start); }
  yield* u.closeStdout();
  return w.status;
};
