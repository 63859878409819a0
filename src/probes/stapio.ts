/**
 * stapio in the simulated machine: the session's user-space half (pid `stp_pid()`, comm
 * "stapio") exists as a process, asleep in its poll loop, so that the `-c` command is its child
 * (the command's exit sends SIGCHLD to stapio, `ppid` of the command is stapio's pid) and
 * process listings show it as on a real system. It does no work of its own here: the engine
 * plays stapio's part (output transport, system() commands, switch_file()). If a signal wakes
 * it, it goes back to polling every 200 ms.
 */
import type { Machine } from '../machine/machine';
import type { Process } from '../machine/include/sched';
import type { U } from '../machine/process/user';
import { SIGCHLD } from '../machine/include/signal';

const STAPIO = '/usr/libexec/systemtap/stapio';

function* stapioMain(u: U): Generator<import('../machine/include/sched').Op, number, import('../machine/include/sched').SysResult> {
  for (;;) yield* u.nanosleep(200000000);
}

/** Put the session's stapio process (pid `pid`) into the machine; null when the pid is taken. */
export function adoptStapio(m: Machine, pid: number, moduleName: string): Process | null {
  if (m.procs.procs.has(pid) || m.procs.tasks.has(pid)) return null;
  const p = m.procs.adoptSleeper(pid, 'stapio', STAPIO, [STAPIO, '-R', moduleName, '-F3'], stapioMain, 'do_sys_poll');
  // stapio catches SIGCHLD (its chld_proc handler notices the -c command's exit)
  p.sigHandlers.set(SIGCHLD, () => undefined);
  return p;
}
