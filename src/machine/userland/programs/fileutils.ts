/**
 * GNU coreutils 9.1's file operations as Debian 12 runs them: cp, mv, rm, mkdir, touch.  Each issues
 * the system calls strace shows for the real binary (data/recordings/ cp, cp-r, files; the libraries'
 * start-up is process/ldso.ts): cp's target-directory probe (O_PATH|O_DIRECTORY), the FICLONE attempt,
 * fadvise and copy_file_range with its read/write fallback; mv's RENAME_NOREPLACE; rm's fts walk over
 * directory descriptors (is_empty_dir, fdopendir, fstatfs, F_DUPFD_CLOEXEC, unlinkat relative to the
 * directory); mkdir(2) with 0777 for the umask; touch's open, dup2 to fd 0 and utimensat.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';
import { readDir, areadlink } from '../libfs';
import { errStr } from '../libc_strerror';

type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_REMOVEDIR = 0x200, AT_EMPTY_PATH = 0x1000;
const O_WRONLY = 0x1, O_CREAT = 0x40, O_EXCL = 0x80, O_NOCTTY = 0x100, O_TRUNC = 0x200, O_NONBLOCK = 0x800;
const O_DIRECTORY = 0x10000, O_NOFOLLOW = 0x20000, O_CLOEXEC = 0x80000, O_PATH = 0x200000;
const FICLONE = 0x40049409, POSIX_FADV_SEQUENTIAL = 2, F_GETFL = 3, F_SETFD = 2, F_DUPFD_CLOEXEC = 0x406;
/** coreutils' copy_file_range request: SSIZE_MAX rounded down to a 1 GiB multiple (copy.c sparse_copy) */
const COPY_MAX = 9223372035781033984;
const IO_BUFSIZE = 131072;


/** options (-abc, --long) and operands; "--" ends the options */
function args(argv: string[]): { flags: Set<string>; long: Set<string>; ops: string[] } {
  const flags = new Set<string>(), long = new Set<string>(), ops: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { ops.push(...argv.slice(i + 1)); break; }
    if (a.startsWith('--')) long.add(a.slice(2));
    else if (a.startsWith('-') && a.length > 1) for (const ch of a.slice(1)) flags.add(ch);
    else ops.push(a);
  }
  return { flags, long, ops };
}
const baseName = (p: string): string => p.replace(/\/+$/, '').split('/').pop() || p;
const join = (d: string, n: string): string => (d.endsWith('/') ? d + n : `${d}/${n}`);

function* sysStat(u: U, dfd: number, p: string, flags: number): G<StatInfo | number> {
  const r = yield* u.sys('newfstatat', [dfd, p, 0, flags]);
  return r.ret < 0 ? r.ret : (r.info as unknown as StatInfo);
}
/** gnulib close_stdin (mv, cp, rm): fclose(stdin) settles the offset, then close_stdout */
function* closeStdin(u: U): G<void> {
  yield* u.lseek(0, 0, 1);
  yield* u.close(0);
  yield* u.closeStdout();
}
/** gnulib target_directory_operand: the destination opened O_PATH|O_DIRECTORY (a descriptor, or the error) */
function* targetDir(u: U, p: string): G<number> {
  return (yield* u.sys('openat', [AT_FDCWD, p, O_PATH | O_DIRECTORY])).ret;
}

// ---------------------------------------------------------------- cp

interface CpOpts { recursive: boolean; nofollow: boolean }

/**
 * copy.c copy_reg: open the source (O_NOFOLLOW under -r/-P), fstat it, create the destination
 * (O_EXCL when it did not exist, else O_TRUNC), try FICLONE, fstat it, fadvise SEQUENTIAL, then
 * copy_file_range until it returns 0; a first 0 (an empty or special file) or an error falls back
 * to read/write through a 128 KiB buffer (malloc'd past the mmap threshold).
 */
function* copyReg(u: U, src: string, dst: string, mode: number, existed: boolean, o: CpOpts): G<number> {
  const i = yield* u.open(src, o.nofollow ? O_NOFOLLOW : 0);
  if (i < 0) { yield* u.err(`cp: cannot open '${src}' for reading: ${errStr(i)}\n`); return 1; }
  yield* u.fstat(i);
  const out = existed ? yield* u.open(dst, O_WRONLY | O_TRUNC) : yield* u.open(dst, O_WRONLY | O_CREAT | O_EXCL, mode & 0o777);
  if (out < 0) { yield* u.err(`cp: cannot create regular file '${dst}': ${errStr(out)}\n`); yield* u.close(i); return 1; }
  yield* u.sys('ioctl', [out, FICLONE, i]);
  yield* u.fstat(out);
  yield* u.sys('fadvise64', [i, 0, 0, POSIX_FADV_SEQUENTIAL]);
  let first = true;
  let fallback = false;
  for (;;) {
    const r = (yield* u.sys('copy_file_range', [i, 0, out, 0, COPY_MAX, 0])).ret;
    if (r < 0 || (r === 0 && first)) { fallback = true; break; }
    if (r === 0) break;
    first = false;
  }
  if (fallback) {
    yield* u.mmap('cpbuf', (IO_BUFSIZE + 8192) / 4096);
    for (;;) {
      const r = yield* u.read(i, IO_BUFSIZE);
      if (r.ret <= 0 || !r.data) break;
      yield* u.writeAll(out, r.data);
    }
  }
  yield* u.close(out);
  yield* u.close(i);
  if (fallback) yield* u.munmap('cpbuf');
  return 0;
}

/** copy.c copy_internal: a file, a symbolic link (-r: readlink + symlink) or a directory (-r: mkdir, savedir, each entry) */
function* copyAny(u: U, src: string, dst: string, top: boolean, o: CpOpts, dstKnown?: StatInfo | number): G<number> {
  const s = yield* sysStat(u, AT_FDCWD, src, top && !o.nofollow ? 0 : AT_SYMLINK_NOFOLLOW);
  if (typeof s === 'number') { yield* u.err(`cp: cannot stat '${src}': ${errStr(s)}\n`); return 1; }
  if (s.isDir) {
    if (!o.recursive) { yield* u.err(`cp: -r not specified; omitting directory '${src}'\n`); return 1; }
    const d = dstKnown ?? (top ? yield* sysStat(u, AT_FDCWD, dst, AT_SYMLINK_NOFOLLOW) : -2);
    if (typeof d === 'number') {
      const r = (yield* u.sys('mkdirat', [AT_FDCWD, dst, s.mode & 0o777])).ret;
      if (r < 0) { yield* u.err(`cp: cannot create directory '${dst}': ${errStr(r)}\n`); return 1; }
      yield* sysStat(u, AT_FDCWD, dst, AT_SYMLINK_NOFOLLOW);
    }
    // savedir: opendir, readdir to the end, entries sorted by inode (SAVEDIR_SORT_FASTREAD)
    const fd = yield* u.open(src, O_NONBLOCK | O_CLOEXEC | O_DIRECTORY);
    if (fd < 0) { yield* u.err(`cp: cannot access '${src}': ${errStr(fd)}\n`); return 1; }
    yield* u.fstat(fd);
    const ents = yield* readDir(u, fd);
    yield* u.close(fd);
    const names = ents.filter((x) => x.name !== '.' && x.name !== '..').sort((a, b) => a.ino - b.ino).map((x) => x.name);
    let st = 0;
    for (const n of names) st |= yield* copyAny(u, join(src, n), join(dst, n), false, o);
    return st;
  }
  if (s.isLnk && (o.nofollow || !top)) {
    const target = (yield* areadlink(u, src, s.size)) ?? '';
    const r = (yield* u.sys('symlinkat', [target, AT_FDCWD, dst])).ret;
    if (r < 0) { yield* u.err(`cp: cannot create symbolic link '${dst}': ${errStr(r)}\n`); return 1; }
    return 0;
  }
  const d = top ? dstKnown ?? (yield* sysStat(u, AT_FDCWD, dst, 0)) : -2;
  return yield* copyReg(u, src, dst, s.mode, typeof d !== 'number', o);
}

const cp: ProgramMain = function* (u, argv) {
  const { flags, long, ops } = args(argv);
  const o: CpOpts = { recursive: flags.has('r') || flags.has('R') || flags.has('a') || long.has('recursive'), nofollow: false };
  o.nofollow = o.recursive || flags.has('P') || flags.has('d');
  yield* u.sys('geteuid', []);
  if (ops.length < 2) {
    yield* u.err(ops.length ? `cp: missing destination file operand after '${ops[0]}'\nTry 'cp --help' for more information.\n` : 'cp: missing file operand\nTry \'cp --help\' for more information.\n');
    yield* closeStdin(u);
    return 1;
  }
  const dst = ops[ops.length - 1];
  const srcs = ops.slice(0, -1);
  const dfd = yield* targetDir(u, dst);
  let st = 0;
  if (dfd >= 0) {
    for (const s of srcs) st |= yield* copyAny(u, s, join(dst, baseName(s)), true, o);
    yield* u.close(dfd);
  } else if (srcs.length > 1) {
    yield* u.err(`cp: target '${dst}': ${errStr(dfd)}\n`);
    st = 1;
  } else {
    // one source onto a non-directory: stat the source, then the destination (lstat under -r)
    const s0 = yield* sysStat(u, AT_FDCWD, srcs[0], o.nofollow ? AT_SYMLINK_NOFOLLOW : 0);
    if (typeof s0 === 'number') { yield* u.err(`cp: cannot stat '${srcs[0]}': ${errStr(s0)}\n`); st = 1; } else {
      const d = yield* sysStat(u, AT_FDCWD, dst, o.recursive ? AT_SYMLINK_NOFOLLOW : 0);
      st = s0.isDir ? yield* copyAny(u, srcs[0], dst, true, o, d) : yield* copyReg(u, srcs[0], dst, s0.mode, typeof d !== 'number', o);
    }
  }
  yield* closeStdin(u);
  return st ? 1 : 0;
};

// ---------------------------------------------------------------- mv

/**
 * mv.c: geteuid, isatty(0) (prompts), then for two operands renameat2(RENAME_NOREPLACE); when that
 * fails the destination is probed as a directory (O_PATH|O_DIRECTORY) and the source moved into it,
 * or, an existing file, replaced (lstat of both, rename).
 */
const mv: ProgramMain = function* (u, argv) {
  const { ops } = args(argv);
  yield* u.sys('geteuid', []);
  yield* u.isatty(0);
  if (ops.length < 2) {
    yield* u.err(ops.length ? `mv: missing destination file operand after '${ops[0]}'\nTry 'mv --help' for more information.\n` : 'mv: missing file operand\nTry \'mv --help\' for more information.\n');
    yield* closeStdin(u);
    return 1;
  }
  const dst = ops[ops.length - 1];
  let st = 0;
  if (ops.length === 2 && (yield* u.sys('renameat2', [AT_FDCWD, ops[0], AT_FDCWD, dst, 1])).ret === 0) { yield* closeStdin(u); return 0; }
  const dfd = yield* targetDir(u, dst);
  for (const src of ops.slice(0, -1)) {
    const s = yield* sysStat(u, AT_FDCWD, src, AT_SYMLINK_NOFOLLOW);
    if (typeof s === 'number') { yield* u.err(`mv: cannot stat '${src}': ${errStr(s)}\n`); st = 1; continue; }
    const r = dfd >= 0
      ? (yield* u.sys('renameat2', [AT_FDCWD, src, dfd, baseName(src), 1])).ret
      : (yield* sysStat(u, AT_FDCWD, dst, AT_SYMLINK_NOFOLLOW), (yield* u.sys('renameat2', [AT_FDCWD, src, AT_FDCWD, dst, 0])).ret);
    if (r < 0) { yield* u.err(`mv: cannot move '${src}' to '${dfd >= 0 ? join(dst, baseName(src)) : dst}': ${errStr(r)}\n`); st = 1; }
  }
  if (dfd >= 0) yield* u.close(dfd);
  yield* closeStdin(u);
  return st;
};

// ---------------------------------------------------------------- rm

const DT_UNKNOWN = 0, DT_DIR = 4;
/** readdir to the end: each entry (without . and ..) with its d_type */
function* readdirTyped(u: U, fd: number): G<[string, number][]> {
  const out: [string, number][] = [];
  for (;;) {
    const r = yield* u.sys('getdents64', [fd, 0, 32768]);
    if (r.ret <= 0) return out;
    const names = (r.info?.names as string[]) ?? [];
    const types = (r.info?.types as number[]) ?? [];
    names.forEach((n, i) => { if (n !== '.' && n !== '..') out.push([n, types[i] ?? DT_UNKNOWN]); });
  }
}
function* isDirAt(u: U, dfd: number, n: string): G<boolean> {
  const s = yield* sysStat(u, dfd, n, AT_SYMLINK_NOFOLLOW);
  return typeof s !== 'number' && s.isDir;
}
/** fdopendir's checks of a directory descriptor: fstat, F_GETFL, FD_CLOEXEC */
function* fdopendir(u: U, fd: number): G<void> {
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.sys('fcntl', [fd, F_GETFL]);
  yield* u.sys('fcntl', [fd, F_SETFD, 1]);
}

/**
 * rm -r of a directory under fts (FTS_CWDFD | FTS_NOSTAT | FTS_PHYSICAL): remove.c's is_empty_dir
 * (open, fdopendir, one readdir), then fts_build (open O_CLOEXEC, fdopendir, fstatfs, the directory
 * kept as a dup'd descriptor, readdir to the end), the entries removed relative to it, the
 * directory itself last, relative to its parent.
 */
function* rmDir(u: U, pfd: number, p: string, shown: string, force: boolean): G<number> {
  const probe = (yield* u.sys('openat', [pfd, p, O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_DIRECTORY])).ret;
  if (probe >= 0) {
    yield* fdopendir(u, probe);
    yield* u.sys('getdents64', [probe, 0, 32768]);
    yield* u.close(probe);
  }
  const fd = (yield* u.sys('openat', [pfd, p, O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC])).ret;
  if (fd < 0) { yield* u.err(`rm: cannot remove '${shown}': ${errStr(fd)}\n`); return 1; }
  yield* fdopendir(u, fd);
  yield* u.sys('fstatfs', [fd, 0]);
  const dfd = (yield* u.sys('fcntl', [fd, F_DUPFD_CLOEXEC, 3])).ret;
  const entries = yield* readdirTyped(u, fd);
  yield* u.close(fd);
  let st = 0;
  for (const [n, type] of entries) {
    const child = join(shown, n);
    // FTS_NOSTAT: the entry's d_type decides; an unknown type is lstat'd
    const dir = type === DT_UNKNOWN ? yield* isDirAt(u, dfd, n) : type === DT_DIR;
    if (dir) { st |= yield* rmDir(u, dfd, n, child, force); continue; }
    const e = (yield* u.sys('unlinkat', [dfd, n, 0])).ret;
    if (e < 0 && !(force && e === -2)) { yield* u.err(`rm: cannot remove '${child}': ${errStr(e)}\n`); st = 1; }
  }
  if (dfd >= 0) yield* u.close(dfd);
  const e = (yield* u.sys('unlinkat', [pfd, p, AT_REMOVEDIR])).ret;
  if (e < 0) { yield* u.err(`rm: cannot remove '${shown}': ${errStr(e)}\n`); return 1; }
  return st;
}

/**
 * rm.c / remove.c: isatty(0), lstat of / under -r (--preserve-root), each operand lstat'd by
 * fts_open, files unlinked, directories removed by rmDir under -r; close_stdin.
 */
const rm: ProgramMain = function* (u, argv) {
  const { flags, long, ops } = args(argv);
  const force = flags.has('f') || long.has('force');
  const rec = flags.has('r') || flags.has('R') || long.has('recursive');
  yield* u.malloc();
  yield* u.isatty(0);
  if (!ops.length && !force) {
    yield* u.err('rm: missing operand\nTry \'rm --help\' for more information.\n');
    yield* closeStdin(u);
    return 1;
  }
  if (rec) yield* sysStat(u, AT_FDCWD, '/', AT_SYMLINK_NOFOLLOW);
  let st = 0;
  for (const p of ops) {
    // fts's lstat of the operand; one it cannot stat (FTS_NS) is still unlinked (rm -f: ENOENT is quiet)
    const s = yield* sysStat(u, AT_FDCWD, p, AT_SYMLINK_NOFOLLOW);
    if (typeof s !== 'number' && s.isDir) {
      if (rec && p.replace(/\/+$/, '') === '') { yield* u.err('rm: it is dangerous to operate recursively on \'/\'\nrm: use --no-preserve-root to override this failsafe\n'); st = 1; continue; }
      if (!rec) { yield* u.err(`rm: cannot remove '${p}': Is a directory\n`); st = 1; continue; }
      st |= yield* rmDir(u, AT_FDCWD, p, p, force);
      continue;
    }
    const e = (yield* u.sys('unlinkat', [AT_FDCWD, p, 0])).ret;
    if (e < 0 && !(force && e === -2)) { yield* u.err(`rm: cannot remove '${p}': ${errStr(e)}\n`); st = 1; }
  }
  yield* closeStdin(u);
  return st;
};

// ---------------------------------------------------------------- mkdir, touch

/**
 * mkdir -p (gnulib mkancesdirs + savewd): each ancestor made (mkdir 0777) and entered (a new one
 * through an O_NOFOLLOW|O_DIRECTORY descriptor and fchdir, an existing one by chdir), then the last
 * component made in it; an existing last component is stat'd (a directory is fine).
 */
function* mkdirParents(u: U, d: string, more: boolean): G<number> {
  const parts = d.split('/').filter(Boolean);
  if (d.startsWith('/') && parts.length) parts[0] = `/${parts[0]}`;
  if (!parts.length) return 0;
  // savewd: with operands still to come, the working directory is kept open before the first change
  let saved = -1;
  const save = function* (): G<void> { if (more && saved < 0) saved = (yield* u.sys('openat', [AT_FDCWD, '.', 0])).ret; };
  let st = 0;
  for (const comp of parts.slice(0, -1)) {
    const r = (yield* u.sys('mkdir', [comp, 0o777])).ret;
    if (r === 0) {
      const fd = (yield* u.sys('openat', [AT_FDCWD, comp, O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_DIRECTORY])).ret;
      yield* save();
      if (fd >= 0) { yield* u.sys('fchdir', [fd]); yield* u.close(fd); }
      continue;
    }
    if (r === -17) yield* save();
    if (r !== -17 || (yield* u.chdir(comp)) < 0) {
      yield* u.err(`mkdir: cannot create directory '${d}': ${errStr(r === -17 ? -20 : r)}\n`);
      st = 1;
      break;
    }
  }
  if (!st) {
    const last = parts[parts.length - 1];
    const r = (yield* u.sys('mkdir', [last, 0o777])).ret;
    const s = r === -17 ? yield* sysStat(u, AT_FDCWD, last, 0) : r;
    if (r !== 0 && (typeof s === 'number' || !s.isDir)) { yield* u.err(`mkdir: cannot create directory '${d}': ${errStr(r)}\n`); st = 1; }
  }
  if (saved >= 0) { yield* u.sys('fchdir', [saved]); yield* u.close(saved); }
  return st;
}

/** mkdir.c: mkdir(2) with 0777 (the umask applies); -p makes each missing ancestor first */
const mkdir: ProgramMain = function* (u, argv) {
  const { flags, long, ops } = args(argv);
  const parents = flags.has('p') || long.has('parents');
  let st = 0;
  // -p: the umask read (set to 0 and back) for the ancestors' modes
  if (parents) { const old = (yield* u.sys('umask', [0])).ret; yield* u.sys('umask', [old]); }
  if (!ops.length) { yield* u.err('mkdir: missing operand\nTry \'mkdir --help\' for more information.\n'); st = 1; }
  for (const [i, d] of ops.entries()) {
    if (parents) { st |= yield* mkdirParents(u, d, i < ops.length - 1); continue; }
    const r = (yield* u.sys('mkdir', [d, 0o777])).ret;
    if (r < 0) { yield* u.err(`mkdir: cannot create directory '${d}': ${errStr(r)}\n`); st = 1; }
  }
  yield* u.closeStdout();
  return st;
};

/**
 * touch.c: each file opened O_WRONLY|O_CREAT|O_NOCTTY|O_NONBLOCK (0666, the umask applies) onto fd 0
 * (fd_reopen: dup2, close), its times set to now through the descriptor (utimensat(0, NULL, NULL)),
 * fd 0 closed; a file that cannot be opened (a directory) gets utimensat by name. -c creates nothing.
 */
const touch: ProgramMain = function* (u, argv) {
  const { flags, long, ops } = args(argv);
  const noCreate = flags.has('c') || long.has('no-create');
  yield* u.malloc();
  let st = 0;
  if (!ops.length) { yield* u.err('touch: missing file operand\nTry \'touch --help\' for more information.\n'); st = 1; }
  for (const f of ops) {
    const fd = noCreate ? -1 : yield* u.open(f, O_WRONLY | O_CREAT | O_NOCTTY | O_NONBLOCK, 0o666);
    if (fd >= 0) {
      if (fd !== 0) { yield* u.dup2(fd, 0); yield* u.close(fd); }
      yield* u.sys('utimensat', [0, 0, 0, 0]);
      yield* u.close(0);
      continue;
    }
    const r = (yield* u.sys('utimensat', [AT_FDCWD, f, 0, 0])).ret;
    if (r < 0 && !(noCreate && r === -2)) { yield* u.err(`touch: cannot touch '${f}': ${errStr(fd < 0 && !noCreate ? fd : r)}\n`); st = 1; }
  }
  yield* u.closeStdout();
  return st;
};

export const fileutils: Record<string, ProgramMain> = { cp, mv, rm, mkdir, touch };
