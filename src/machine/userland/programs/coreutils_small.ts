/**
 * Small commands of the install that scripts call (coreutils 9.1: basename, dirname, nproc, rmdir,
 * printenv, md5sum, sha1sum, sha256sum, tac, yes, whoami, nice; hostname 3.23): their output, messages and
 * exit status as Debian 12's, and the system calls strace shows for the real binaries in the C
 * locale (after ld.so and libc's start-up: malloc's first brk, the work, stdio's fstat/TCGETS and
 * write, close_stdout's close(1), close(2)).  Their files are the recorded install's.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { bytesToString } from '../../process/user';
import { environOf } from '../../process/environ';
import { error, tryHelp } from '../libc_error';
import { getpwuidName } from '../libc_nss';
import { execvp } from '../libfs';

type G<T> = Generator<Op, T, SysResult>;

/** coreutils' "missing operand" and the --help pointer; exit status 1 */
function* missing(u: U, prog: string): G<number> {
  yield* error(u, prog, 'missing operand');
  yield* tryHelp(u, prog);
  yield* u.closeStdout();
  return 1;
}

/** POSIX basename with coreutils' rules: trailing slashes dropped, "/" stays, SUFFIX removed unless it is all that is left */
function baseOf(s: string, suffix: string): string {
  if (s === '') return '';
  let t = s.replace(/\/+$/, '');
  if (t === '') return '/';
  t = t.slice(t.lastIndexOf('/') + 1);
  return suffix && t !== suffix && t.endsWith(suffix) ? t.slice(0, -suffix.length) : t;
}

/** dirname: "." without a slash, "/" for the root's children */
function dirOf(s: string): string {
  const t = s.replace(/\/+$/, '');
  if (t === '') return s.startsWith('/') ? '/' : '.';
  const i = t.lastIndexOf('/');
  if (i < 0) return '.';
  const d = t.slice(0, i).replace(/\/+$/, '');
  return d === '' ? '/' : d;
}

const basename: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  let multiple = false, suffix = '';
  const ops: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-a' || a === '--multiple') multiple = true;
    else if (a === '-s') { suffix = argv[++i] ?? ''; multiple = true; }
    else if (a.startsWith('--suffix=')) { suffix = a.slice(9); multiple = true; }
    else if (a === '--') { ops.push(...argv.slice(i + 1)); break; }
    else ops.push(a);
  }
  if (!ops.length) return yield* missing(u, 'basename');
  if (!multiple && ops.length > 2) {
    yield* error(u, 'basename', `extra operand '${ops[2]}'`);
    yield* tryHelp(u, 'basename');
    yield* u.closeStdout();
    return 1;
  }
  const names = multiple ? ops : [ops[0]];
  if (!multiple && ops.length === 2) suffix = ops[1];
  for (const n of names) yield* u.printf(baseOf(n, suffix) + '\n');
  yield* u.closeStdout();
  return 0;
};

const dirname: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  const ops = argv.slice(1).filter((a) => a !== '--');
  if (!ops.length) return yield* missing(u, 'dirname');
  for (const n of ops) yield* u.printf(dirOf(n) + '\n');
  yield* u.closeStdout();
  return 0;
};

/** nproc: the CPUs of sched_getaffinity (--all: the online ones), less --ignore=N, at least 1 */
const nproc: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  let ignore = 0;
  const all = argv.includes('--all');
  for (let i = 1; i < argv.length; i++) {
    if (argv[i].startsWith('--ignore=')) ignore = Number(argv[i].slice(9));
    else if (argv[i] === '--ignore') ignore = Number(argv[++i]);
  }
  const n = u.m.ncpus;
  if (!all) yield* u.sys('sched_getaffinity', [0, 128, 0]);
  yield* u.printf(`${Math.max(1, n - (ignore || 0))}\n`);
  yield* u.closeStdout();
  return 0;
};

/** rmdir DIR...; -p removes each parent in turn (stopping at the first that fails) */
const rmdir: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  const parents = argv.includes('-p') || argv.includes('--parents');
  const ops = argv.slice(1).filter((a) => !a.startsWith('-'));
  if (!ops.length) return yield* missing(u, 'rmdir');
  let st = 0;
  for (const d of ops) {
    let cur = d;
    let first = true;
    for (;;) {
      const r = (yield* u.sys('rmdir', [cur])).ret;
      if (r < 0) {
        yield* error(u, 'rmdir', `failed to remove ${first ? '' : 'directory '}'${cur}'`, r);
        st = 1;
        break;
      }
      first = false;
      if (!parents) break;
      const up = dirOf(cur);
      if (up === cur || up === '.' || up === '/') break;
      cur = up;
    }
  }
  yield* u.closeStdout();
  return st;
};

/** printenv [NAME...]: the environment, or each NAME's value; 1 when one is not set */
const printenv: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  const env = environOf(u.t.proc);
  const names = argv.slice(1);
  let st = 0;
  if (!names.length) for (const v of env) yield* u.printf(v + '\n');
  for (const n of names) {
    const v = env.find((x) => x.startsWith(n + '='));
    if (v === undefined || n.includes('=')) st = 1;
    else yield* u.printf(v.slice(n.length + 1) + '\n');
  }
  yield* u.closeStdout();
  return st;
};

/** md5sum / sha1sum / sha256sum FILE... (- or none: standard input): fadvise, 32 KiB reads, "HASH  NAME" */
function digest(algo: 'md5' | 'sha1' | 'sha256', prog: string): ProgramMain {
  return function* (u, argv) {
    yield* u.malloc();
    const files = argv.slice(1).filter((a) => a === '-' || !a.startsWith('-'));
    let st = 0;
    for (const f of files.length ? files : ['-']) {
      const fd = f === '-' ? 0 : yield* u.open(f);
      if (fd < 0) { yield* error(u, prog, f, fd); st = 1; continue; }
      yield* u.sys('fadvise64', [fd, 0, 0, 2]);
      yield* u.fstat(fd);
      const { createHash } = require('crypto') as typeof import('crypto');
      const h = createHash(algo);
      let want = 32768;
      for (;;) {
        const r = yield* u.read(fd, want);
        if (r.ret <= 0 || !r.data) break;
        h.update(r.data);
        // (a short read asks for the rest of the 32 KiB block next)
        want -= r.ret;
        if (want <= 0) want = 32768;
      }
      if (fd !== 0) { yield* u.lseek(fd, 0, 1); yield* u.close(fd); }
      yield* u.printf(`${h.digest('hex')}  ${f}\n`);
    }
    yield* u.closeStdout();
    return st;
  };
}

/** tac FILE...: the records (each ending in a newline, the last maybe not) last first */
const tac: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  const files = argv.slice(1).filter((a) => a === '-' || !a.startsWith('-'));
  let st = 0;
  for (const f of files.length ? files : ['-']) {
    const fd = f === '-' ? 0 : yield* u.open(f);
    if (fd < 0) { yield* error(u, 'tac', `failed to open '${f}' for reading`, fd); st = 1; continue; }
    let text = '';
    if (fd !== 0) {
      yield* u.lseek(fd, 0, 2);
      yield* u.isatty(fd);
      yield* u.lseek(fd, 0, 0);
    }
    for (;;) {
      const r = yield* u.read(fd, 8192);
      if (r.ret <= 0 || !r.data) break;
      text += bytesToString(r.data);
    }
    if (fd !== 0) yield* u.close(fd);
    const recs = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
    yield* u.printf(recs.reverse().join(''));
  }
  yield* u.closeStdout();
  return st;
};

/** yes [STRING...]: the line over and over, 8 KiB writes, until a write fails (SIGPIPE ends it first) */
const yes: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  const line = (argv.length > 1 ? argv.slice(1).join(' ') : 'y') + '\n';
  const buf = line.length >= 4096 ? line : line.repeat(Math.floor(8192 / line.length));
  for (;;) {
    const r = (yield* u.write(1, buf)).ret;
    if (r < 0) {
      yield* error(u, 'yes', 'standard output', r);
      return 1;
    }
  }
};

/** whoami: the effective user's name (getpwuid through nsswitch's files) */
const whoami: ProgramMain = function* (u) {
  yield* u.malloc();
  const uid = (yield* u.sys('geteuid', [])).ret;
  const name = yield* getpwuidName(u, uid);
  if (name === null) { yield* error(u, 'whoami', `cannot find name for user ID ${uid}`); yield* u.closeStdout(); return 1; }
  yield* u.printf(name + '\n');
  yield* u.closeStdout();
  return 0;
};

/** hostname (net-tools' hostname 3.23): uname's nodename; no close_stdout */
const hostname: ProgramMain = function* (u) {
  yield* u.malloc();
  yield* u.uname();
  yield* u.printf(`${u.m.hostname}\n`);
  yield* u.fflush();
  return 0;
};

/**
 * nice [-n N | -N | --adjustment=N] [COMMAND [ARG...]]: the niceness (none: print it), raised by N
 * (10 by default) with getpriority/setpriority, then COMMAND exec'd (execvp); a refused change is
 * a warning, the command runs anyway
 */
const nice: ProgramMain = function* (u, argv) {
  yield* u.malloc();
  let adj: string | undefined;
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '-n') adj = argv[++i];
    else if (a.startsWith('--adjustment=')) adj = a.slice(13);
    else if (/^-n./.test(a)) adj = a.slice(2);
    else if (/^-[+-]?\d+$/.test(a)) adj = a.slice(1);
    else break;
  }
  if (adj !== undefined && !/^[+-]?\d+$/.test(adj)) {
    yield* error(u, 'nice', `invalid adjustment '${adj}'`);
    return 125;
  }
  // glibc's getpriority: 20 - the kernel's value
  const cur = 20 - (yield* u.sys('getpriority', [0, 0])).ret;
  if (i >= argv.length) {
    yield* u.printf(`${cur}\n`);
    yield* u.closeStdout();
    return 0;
  }
  const want = Math.max(-20, Math.min(19, cur + Number(adj ?? 10)));
  const r = (yield* u.sys('setpriority', [0, 0, want])).ret;
  if (r < 0) yield* error(u, 'nice', 'cannot set niceness', r);
  const e = yield* execvp(u, argv[i], argv.slice(i));
  yield* error(u, 'nice', `'${argv[i]}'`, e);
  return e === -2 ? 127 : 126;
};

export const coreutilsSmall: Record<string, ProgramMain> = {
  nice,
  basename, dirname, nproc, rmdir, printenv, tac, yes, whoami, hostname,
  md5sum: digest('md5', 'md5sum'), sha1sum: digest('sha1', 'sha1sum'), sha256sum: digest('sha256', 'sha256sum'),
};
