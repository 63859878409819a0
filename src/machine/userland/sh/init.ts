/**
 * The shells' start-up before they run anything: dash's here (bash's is ../bash/init.ts).
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';

type G<T> = Generator<Op, T, SysResult>;

/**
 * dash 0.5.12's start-up (main.c init(), as strace of Debian 12's /bin/sh shows): the ids, SIGCHLD's
 * handler, the first malloc, getppid, PWD checked against "." (setpwd), and the job-control signals'
 * actions looked up (SIGINT, SIGQUIT, SIGTERM) with SIGTERM's set.
 */
export function* dashInit(u: U, catchChld: () => G<void>): G<void> {
  for (const n of ['getuid', 'getgid', 'getpid']) yield* u.sys(n, []);
  yield* catchChld();
  yield* u.sys('geteuid', []);
  yield* u.malloc();
  yield* u.sys('getppid', []);
  yield* u.stat(u.t.proc.cwd);
  yield* u.stat('.');
  yield* u.sys('geteuid', []);
  yield* u.sys('getegid', []);
  for (const sig of [2, 3, 15]) yield* u.sys('rt_sigaction', [sig, 0, 0, 8]);
  yield* u.sys('rt_sigaction', [15, 0, 0, 8]);
}
