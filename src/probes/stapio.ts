/**
 * stapio in the simulated machine: the session's user-space half (pid `stp_pid()`, comm
 * "stapio") exists as a process, asleep in its poll loop, so that the `-c` command is its child
 * (the command's exit sends SIGCHLD to stapio, `ppid` of the command is stapio's pid) and
 * process listings show it as on a real system.  The engine plays most of stapio's part (output
 * transport, system() commands, switch_file()).  One part it does itself: when the script has
 * `input.char`/`input.line` probes (stdlib/input.stp: procfs("__stdin").write), stapio's
 * stdin thread copies its standard input, one byte per write(2), into
 * /proc/systemtap/MODULE/__stdin, as stap 4.8's stapio does (redirect_stdin), and each write
 * runs the procfs write probe.  Otherwise it polls every 200 ms.
 */
import type { Machine } from '../machine/machine';
import type { Process, Op, SysResult } from '../machine/include/sched';
import type { U, ProgramMain } from '../machine/process/user';
import { O_WRONLY, type OpenFile } from '../machine/include/fs';
import { SIGCHLD } from '../machine/include/signal';
import { wakeLater } from '../machine/kernel/sched/core';
import * as fs from 'fs';

const STAPIO = '/usr/libexec/systemtap/stapio';
const STAP = '/usr/bin/stap';

/** the stap process while its session runs: waiting for staprun/stapio (its wait4) */
const stapWaits: ProgramMain = function* (u) {
  for (;;) if ((yield* u.wait(-1))[0] < 0) return 0;
};

/** stapio's standard input: what has arrived and not been copied yet, and whether it ended. */
export interface StdinFeed {
  /** the bytes (latin1) that arrived since the last call ('' if none) */
  take(): string;
  /** no more input will come */
  ended(): boolean;
}

function stapioMain(moduleName: string, feed: StdinFeed | undefined) {
  return function* (u: U): Generator<Op, number, SysResult> {
    if (feed) {
      const fd = yield* u.open(`/proc/systemtap/${moduleName}/__stdin`, O_WRONLY);
      if (fd >= 0) {
        for (;;) {
          const s = feed.take();
          if (s) {
            for (let i = 0; i < s.length; i++) yield* u.write(fd, s[i]);
            continue;
          }
          if (feed.ended()) break;
          yield* u.nanosleep(10000000);
        }
        yield* u.close(fd);
      }
    }
    for (;;) yield* u.nanosleep(200000000);
  };
}

/**
 * Put the session's stapio process (pid `pid`) into the machine; null when the pid is taken.
 * `stdin`: its standard input, copied to the module's __stdin procfs file (input.* probes).
 */
export function adoptStapio(m: Machine, pid: number, moduleName: string, stdin?: StdinFeed, stapArgv?: readonly string[],
  term?: { out: (s: string) => void; err: (s: string) => void }): Process | null {
  if (m.procs.procs.has(pid) || m.procs.tasks.has(pid)) return null;
  // both on the terminal stap was run from (its output's), as the -c command is
  const fds = (): OpenFile[] | undefined => (term ? m.procs.terminalFds(term.out, term.err) : undefined);
  // its parent: the stap process (the pid before it), which started staprun (exec'd as stapio) and waits for it
  const stap = m.procs.procs.has(pid - 1) || m.procs.tasks.has(pid - 1) ? undefined
    : m.procs.adoptSleeper(pid - 1, 'stap', STAP, ['stap', ...(stapArgv ?? [])], stapWaits, 'do_wait', { fds: fds() });
  const p = m.procs.adoptSleeper(pid, 'stapio', STAPIO, [STAPIO, '-R', moduleName, '-F3'], stapioMain(moduleName, stdin), 'do_sys_poll', { parent: stap, fds: fds() });
  // stapio catches SIGCHLD (its chld_proc handler notices the -c command's exit)
  p.sigHandlers.set(SIGCHLD, () => undefined);
  // its stdin thread starts copying at once (the poll loop sleeps until then)
  if (stdin) wakeLater(p.threads[0]);
  return p;
}

/**
 * The host's standard input as stapio's: a file or pipe is read whole when the session starts
 * (so a rerun copies the same bytes at the same simulated times); a terminal's lines are
 * copied as they are typed.
 */
export function hostStdinFeed(): StdinFeed {
  if (!process.stdin.isTTY) {
    let data: string | null;
    try {
      data = fs.readFileSync(0, 'latin1');
    } catch {
      data = '';
    }
    return { take: () => { const d = data ?? ''; data = null; return d; }, ended: () => data === null };
  }
  let pending = '';
  let done = false;
  process.stdin.on('data', (b: Buffer) => { pending += b.toString('latin1'); });
  process.stdin.on('end', () => { done = true; });
  // the session's end must not wait for the terminal
  process.stdin.unref?.();
  return { take: () => { const d = pending; pending = ''; return d; }, ended: () => done && !pending };
}
