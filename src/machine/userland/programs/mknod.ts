/**
 * GNU coreutils 9.1's mkfifo and mknod as Debian 12 runs them (strace of the real binaries): the mode
 * (0666, or -m MODE applied to it with the umask read by umask(0) and put back), mknodat(AT_FDCWD, NAME,
 * TYPE|MODE, DEV) per operand, and after a -m the permissions set again the way glibc's lchmod does it
 * (an O_PATH|O_NOFOLLOW open, fstat of it, chmod of /proc/self/fd/N, close), since the umask applied to
 * the mknod; errors as gnulib's error() writes them (program name, message, strerror, newline).
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { error, tryHelp } from '../libc_error';
import { parseArgs, modeAdjust } from './coreutils';

type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100, AT_EMPTY_PATH = 0x1000;
const O_NOFOLLOW = 0x20000, O_CLOEXEC = 0x80000, O_PATH = 0x200000;
const S_IFIFO = 0o10000, S_IFCHR = 0o20000, S_IFBLK = 0o60000;
/** MODE_RW_UGO: what both make before -m */
const RW_UGO = 0o666;

/** -m MODE / --mode=MODE (null: none given), and the options' errors */
interface Opts { mode: string | null; ops: string[]; bad: string | null }
function options(argv: string[]): Opts {
  const { flags, long, vals, ops } = parseArgs(argv, 'm');
  let mode: string | null = 'm' in vals ? vals.m : null;
  let bad: string | null = null;
  // (-m last: getopt finds no argument for it)
  if (/^-[^-]*m$/.test(argv[argv.length - 1]) && vals.m === '') bad = "option requires an argument -- 'm'";
  for (const f of flags) if (f !== 'Z') bad ??= `invalid option -- '${f}'`;
  for (const l of long) {
    if (l.startsWith('mode=')) mode = l.slice(5);
    else if (l !== 'context' && !l.startsWith('context=')) bad ??= `unrecognized option '--${l}'`;
  }
  return { mode, ops, bad };
}

/**
 * The mode of the new nodes: 0666, or -m MODE applied to it with the process's umask (read by umask(0) and
 * put back, as mode_adjust needs it); a message when MODE is invalid or names more than permission bits.
 */
function* newMode(u: U, spec: string | null): G<number | string> {
  if (spec === null) return RW_UGO;
  // mode_compile comes first: an invalid mode fails before the umask is read
  if (modeAdjust(RW_UGO, false, 0, spec) === null) return 'invalid mode';
  const mask = (yield* u.sys('umask', [0])).ret;
  yield* u.sys('umask', [mask]);
  const mode = modeAdjust(RW_UGO, false, mask, spec)!;
  return mode & ~0o777 ? 'mode must specify only file permission bits' : mode;
}

/** glibc 2.36's lchmod(path, mode): through an O_PATH descriptor and its /proc/self/fd link */
function* lchmod(u: U, path: string, mode: number): G<number> {
  const fd = yield* u.open(path, O_NOFOLLOW | O_CLOEXEC | O_PATH);
  if (fd < 0) return fd;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  const r = (yield* u.sys('chmod', [`/proc/self/fd/${fd}`, mode])).ret;
  yield* u.close(fd);
  return r;
}

/** `main` then exit(): gnulib's close_stdout (atexit) runs however main ended */
const withCloseStdout = (main: ProgramMain): ProgramMain => function* (u, argv) {
  const st = yield* main(u, argv);
  yield* u.closeStdout();
  return st;
};

/** mkfifo.c: each operand made with mkfifo(3) (mknodat S_IFIFO|mode); a failure goes on with the next operand */
const mkfifo: ProgramMain = withCloseStdout(function* (u, argv) {
  const o = options(argv);
  if (o.bad) { yield* error(u, 'mkfifo', o.bad); return yield* tryHelp(u, 'mkfifo'); }
  if (!o.ops.length) { yield* error(u, 'mkfifo', 'missing operand'); return yield* tryHelp(u, 'mkfifo'); }
  const mode = yield* newMode(u, o.mode);
  if (typeof mode === 'string') { yield* error(u, 'mkfifo', mode); return 1; }
  let st = 0;
  for (const p of o.ops) {
    const r = (yield* u.sys('mknodat', [AT_FDCWD, p, S_IFIFO | mode, 0])).ret;
    if (r < 0) { yield* error(u, 'mkfifo', `cannot create fifo '${p}'`, r); st = 1; continue; }
    if (o.mode === null) continue;
    const c = yield* lchmod(u, p, mode);
    if (c < 0) { yield* error(u, 'mkfifo', `cannot set permissions of '${p}'`, c); st = 1; }
  }
  return st;
});

/** glibc's makedev(major, minor) as a 64-bit dev_t (the low 32 bits the kernel's new_decode_dev reads) */
const makedev = (major: number, minor: number): number =>
  ((major & 0xfff) << 8) | (minor & 0xff) | ((minor & 0xfff00) << 12);

/** xstrtoumax(s, NULL, 0, ...): decimal, 0x hex or 0 octal, nothing after the number */
function devNumber(s: string): number | null {
  if (!/^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.test(s)) return null;
  const v = /^0[xX]/.test(s) ? parseInt(s.slice(2), 16) : s.length > 1 && s[0] === '0' ? parseInt(s, 8) : Number(s);
  return v <= 0xffffffff ? v : null;
}

/** mknod.c: NAME p, or NAME b|c|u MAJOR MINOR; the first failure ends it (die) */
const mknod: ProgramMain = withCloseStdout(function* (u, argv) {
  const o = options(argv);
  if (o.bad) { yield* error(u, 'mknod', o.bad); return yield* tryHelp(u, 'mknod'); }
  const ops = o.ops;
  // two operands for a FIFO (or too few to tell), four for a device
  const expected = ops.length < 2 || ops[1][0] === 'p' ? 2 : 4;
  if (ops.length < expected) {
    yield* error(u, 'mknod', ops.length ? `missing operand after '${ops[ops.length - 1]}'` : 'missing operand');
    if (expected === 4 && ops.length === 2) yield* u.err('Special files require major and minor device numbers.\n');
    return yield* tryHelp(u, 'mknod');
  }
  if (ops.length > expected) {
    yield* error(u, 'mknod', `extra operand '${ops[expected]}'`);
    if (expected === 2 && ops.length === 4) yield* u.err('Fifos do not have major and minor device numbers.\n');
    return yield* tryHelp(u, 'mknod');
  }
  const mode = yield* newMode(u, o.mode);
  if (typeof mode === 'string') { yield* error(u, 'mknod', mode); return 1; }
  const [name, type] = ops;
  let r: number;
  if (type[0] === 'b' || type[0] === 'c' || type[0] === 'u') {
    const major = devNumber(ops[2]), minor = devNumber(ops[3]);
    if (major === null) { yield* error(u, 'mknod', `invalid major device number '${ops[2]}'`); return 1; }
    if (minor === null) { yield* error(u, 'mknod', `invalid minor device number '${ops[3]}'`); return 1; }
    r = (yield* u.sys('mknodat', [AT_FDCWD, name, (type[0] === 'b' ? S_IFBLK : S_IFCHR) | mode, makedev(major, minor)])).ret;
  } else if (type[0] === 'p') {
    r = (yield* u.sys('mknodat', [AT_FDCWD, name, S_IFIFO | mode, 0])).ret;
  } else {
    yield* error(u, 'mknod', `invalid device type '${type}'`);
    return yield* tryHelp(u, 'mknod');
  }
  if (r < 0) { yield* error(u, 'mknod', name, r); return 1; }
  if (o.mode !== null) {
    const c = yield* lchmod(u, name, mode);
    if (c < 0) { yield* error(u, 'mknod', `cannot set permissions of '${name}'`, c); return 1; }
  }
  return 0;
});

export const mknodPrograms: Record<string, ProgramMain> = { mkfifo, mknod };
