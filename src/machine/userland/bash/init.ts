/**
 * bash 5.2's start-up as Debian 12's /usr/bin/bash does it before running `-c` commands (strace of
 * `bash -c '...'` in the Debian 12 guest, data/recordings/tcp-http.json.gz; shell.c main,
 * variables.c initialize_shell_variables, jobs.c initialize_job_control, sig.c
 * initialize_signals): the controlling terminal tried (/dev/tty: ENXIO without one) and stdin asked
 * TCGETS, the first malloc, the ids, sysinfo (the random seed), the job-control signals' handlers
 * set and put back, uname (HOSTTYPE, MACHTYPE), the working directory checked against PWD, $$, PPID,
 * bash's own path found on PATH and checked (BASH), the user's passwd entry (getpwuid through nscd
 * and nsswitch), the process group, SIGCHLD's handler, TIOCGPGRP of stderr, RLIMIT_NPROC (the job
 * table's size), and getpeername of stdin (run by sshd or rshd?).
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { getpwuidName } from '../libc_nss';

type G<T> = Generator<Op, T, SysResult>;
const O_RDWR_NONBLOCK = 0o4002, TCGETS = 0x5401, TIOCGPGRP = 0x540f, RLIMIT_NPROC = 6, X_OK = 1, R_OK = 4;

/** find_user_command's checks of a file found on PATH: stat, then the ids and access(2) for execute and read */
function* fileChecks(u: U, p: string): G<void> {
  yield* u.stat(p);
  for (const mode of [X_OK, R_OK]) {
    if (mode === R_OK) yield* u.stat(p);
    for (const n of ['geteuid', 'getegid', 'getuid', 'getgid']) yield* u.sys(n, []);
    yield* u.sys('access', [p, mode]);
  }
}

/** search PATH for `name` as bash does (stat of each candidate): the path found, or null */
export function* pathSearch(u: U, name: string, path: string): G<string | null> {
  for (const d of path.split(':')) {
    const p = `${d || '.'}/${name}`;
    const st = yield* u.stat(p);
    if (typeof st !== 'number' && st.isReg) { yield* fileChecks(u, p); return p; }
  }
  return null;
}

/** `catchChld`: the shell's SIGCHLD handler installed (jobs.ts), where bash sets it */
export function* bashInit(u: U, path: string, catchChld: () => G<void>): G<void> {
  // a controlling terminal is not kept by a non-interactive shell
  const tty = (yield* u.sys('openat', [-100, '/dev/tty', O_RDWR_NONBLOCK])).ret;
  if (tty >= 0) yield* u.close(tty);
  yield* u.sys('ioctl', [0, TCGETS, 0]);
  yield* u.malloc();
  for (const n of ['getuid', 'getgid', 'geteuid', 'getegid']) yield* u.sys(n, []);
  yield* u.sys('rt_sigprocmask', [0, 0, 0, 8]);
  yield* u.sys('sysinfo', [0]);
  // initialize_terminating_signals / job-control signals: each set to bash's action and put back
  for (const sig of [17, 2, 3, 20, 21, 22]) for (let k = 0; k < 2; k++) yield* u.sys('rt_sigaction', [sig, 0, 0, 8]);
  yield* u.sys('rt_sigprocmask', [0, 0, 0, 8]);
  yield* u.sys('rt_sigaction', [3, 0, 0, 8]);
  yield* u.uname();
  // PWD checked: the directory, ".", again the directory and "/"
  for (const p of [u.t.proc.cwd, '.', u.t.proc.cwd, '/']) yield* u.stat(p);
  yield* u.sys('getpid', []);
  yield* u.sys('getppid', []);
  yield* u.stat('.');
  yield* pathSearch(u, 'bash', path);
  yield* getpwuidName(u, u.t.uid);
  for (const n of ['getpid', 'getppid', 'getpid', 'getppid', 'getpgrp']) yield* u.sys(n, []);
  yield* u.sys('ioctl', [2, TIOCGPGRP, 0]);
  yield* catchChld();
  yield* u.sys('ioctl', [2, TIOCGPGRP, 0]);
  yield* u.sys('prlimit64', [0, RLIMIT_NPROC, 0, 0]);
  yield* u.sys('rt_sigprocmask', [0, 0, 0, 8]);
  yield* u.sys('getpeername', [0, 0, 0]);
  yield* u.sys('rt_sigprocmask', [0, 0, 0, 8]);
}
