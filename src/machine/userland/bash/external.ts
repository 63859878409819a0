/**
 * How bash 5.2 runs an external command in the foreground (execute_cmd.c execute_disk_command, jobs.c
 * make_child / wait_for), where dash vforks: the command searched on PATH (findcmd.c: "." looked at,
 * each PATH candidate stat-ed, the found file's status and access checked for execute and read), every
 * signal that matters blocked around fork(2) (clone), the child resetting its signals and applying
 * the redirections itself (dup2 and the source's close-on-exec flag read, files opened then dup2-ed),
 * then execve; the parent juggling SIGCHLD's mask and SIGINT's handler around wait4, then asking the
 * terminal size (checkwinsize).  The order is the strace of Debian 12's bash 5.2.15 running
 * `cat <&3 > /dev/null` as the last command of `bash -c` (data/recordings/tcp-http).
 */
import type { U } from '../../process/user';
import type { Op, SysResult, Prog } from '../../include/sched';
import { dashEnvironment } from '../sh/vars';
import { SIGINT, SIGQUIT, SIGTERM, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU, sigBit } from '../../include/signal';

type G<T> = Generator<Op, T, SysResult>;

const SIG_BLOCK = 0, SIG_SETMASK = 2;
const X_OK = 1, R_OK = 4, TIOCGWINSZ = 0x5413;
const F_DUPFD = 0, F_GETFD = 1, F_SETFD = 2, FD_CLOEXEC = 1;

/**
 * add_undo_redirect: the descriptor a redirection replaces saved before it is (fcntl F_GETFD to see it is
 * open, a copy >= 10, the original's close-on-exec flag read, the copy's set); the copy, -1 if not open
 */
export function* bashSaveFd(u: U, fd: number): G<number> {
  if ((yield* u.sys('fcntl', [fd, F_GETFD])).ret < 0) return -1;
  const copy = (yield* u.sys('fcntl', [fd, F_DUPFD, 10])).ret;
  yield* u.sys('fcntl', [fd, F_GETFD]);
  if (copy < 0) return -1;
  yield* u.sys('fcntl', [copy, F_SETFD, FD_CLOEXEC]);
  return copy;
}

/** What the shell gives the bash path: its hash table, PATH, environment, redirections and message prefix. */
export interface BashShell {
  hashed: Map<string, string>;
  path(): string;
  environment(path: string): string[];
  /** the redirections applied in the child, nothing saved */
  redirectInChild(cu: U): G<boolean>;
  prefix(): string;
}

/** the order bash's variable table gives the usual exported names (the recording's execve of cat) */
const BASH_ENV_ORDER = ['PWD', 'HOME', 'TERM', 'SHLVL', 'PATH', 'OLDPWD'];
/**
 * The environment bash passes a command: the exported variables with SHLVL (bash counts itself in)
 * and `_` (the command's path, last): the real `bash -c`'s execve of cat passed PWD, HOME, TERM,
 * SHLVL=1, PATH, OLDPWD, _=/usr/bin/cat; other names follow in dash's order.
 */
export function bashEnvironment(vars: ReadonlyMap<string, string>, exported: ReadonlySet<string>, path: string): string[] {
  const env = new Map(dashEnvironment(vars, exported).map((kv) => [kv.slice(0, kv.indexOf('=')), kv] as const));
  env.set('SHLVL', `SHLVL=${(Number(vars.get('SHLVL')) || 0) + 1}`);
  const known = BASH_ENV_ORDER.filter((k) => env.has(k));
  const rest = [...env.keys()].filter((k) => !BASH_ENV_ORDER.includes(k) && k !== '_');
  return [...known, ...rest].map((k) => env.get(k)!).concat(`_=${path}`);
}

/** stat-ed and its access checked with the ids (file_status / executable_file: eaccess) */
function* accessCheck(u: U, p: string, mode: number): G<void> {
  yield* u.stat(p);
  for (const id of ['geteuid', 'getegid', 'getuid', 'getgid']) yield* u.sys(id, []);
  yield* u.sys('access', [p, mode]);
}

/** search_for_command: the hashed path, else "." and each PATH directory; null when not found */
function* search(u: U, sh: BashShell, name: string): G<string | null> {
  if (name.includes('/')) return name;
  const h = sh.hashed.get(name);
  if (h) { yield* u.stat(h); return h; }
  yield* u.stat('.');
  for (const d of sh.path().split(':')) {
    if (!d) continue;
    const p = `${d}/${name}`;
    const st = yield* u.stat(p);
    if (typeof st === 'number' || !st.isReg) continue;
    yield* accessCheck(u, p, X_OK);
    yield* accessCheck(u, p, R_OK);
    sh.hashed.set(name, p);
    return p;
  }
  return null;
}

/** the shells that forked a command */
const forked = new WeakSet<U>();

/** the foreground external command; its exit status */
export function* bashExternal(u: U, sh: BashShell, name: string, words: string[]): G<number> {
  forked.add(u);
  const path = yield* search(u, sh, name);
  if (!path) { yield* u.err(`${sh.prefix()}${name}: command not found\n`); return 127; }
  yield* u.sys('rt_sigprocmask', [SIG_BLOCK, 0, 1, 8]);
  yield* u.sys('rt_sigprocmask', [SIG_BLOCK, 1, 1, 8], { set: sigBit(SIGINT) | sigBit(SIGTERM) | sigBit(SIGCHLD) });
  const env = sh.environment(path);
  const pid = yield* u.fork(function* (cu: U): Prog {
    yield* cu.getpid();
    yield* cu.sys('rt_sigprocmask', [SIG_SETMASK, 1, 0, 8], { set: 0 });
    // restore_original_signals: the job-control signals and those bash set for itself back to their defaults
    for (const s of [SIGTSTP, SIGTTIN, SIGTTOU]) yield* cu.sigaction(s, 'default');
    for (const s of [SIGINT, SIGQUIT]) yield* cu.sigaction(s, 'ignore');
    yield* cu.sigaction(SIGCHLD, 'default');
    if (!(yield* sh.redirectInChild(cu))) return 1;
    const r = yield* cu.exec(path, words, env);
    yield* cu.err(`${sh.prefix()}${path}: ${r === -2 ? 'No such file or directory' : 'Permission denied'}\n`);
    return r === -2 ? 127 : 126;
  });
  yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 0, 8], { set: 0 });
  for (let i = 0; i < 2; i++) {
    yield* u.sys('rt_sigprocmask', [SIG_BLOCK, 1, 1, 8], { set: sigBit(SIGCHLD) });
    if (i === 0) yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 0, 8], { set: 0 });
  }
  // wait_for: SIGINT caught while waiting (wait_sigint_handler), then put back
  yield* u.sigaction(SIGINT, 'ignore');
  yield* u.sigaction(SIGINT, 'ignore');
  let status = 0;
  if (pid > 0) {
    const [, st] = yield* u.wait(-1);
    status = (st & 0x7f) ? 128 + (st & 0x7f) : (st >> 8) & 0xff;
  }
  yield* u.sigaction(SIGINT, 'ignore');
  yield* u.sys('ioctl', [2, TIOCGWINSZ, 0]);
  yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 0, 8], { set: 0 });
  return status;
}

/**
 * The end of `bash -c` after it forked: the dead jobs cleaned up with SIGCHLD blocked (jobs.c
 * BLOCK_CHILD / UNBLOCK_CHILD), then exit; the status passed through
 */
export function* bashAtExit(u: U, status: number): G<number> {
  if (!forked.has(u)) return status;
  yield* u.sys('rt_sigprocmask', [SIG_BLOCK, 1, 1, 8], { set: sigBit(SIGCHLD) });
  yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 0, 8], { set: 0 });
  return status;
}
