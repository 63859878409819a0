/**
 * Flight recorder mode with an output file (`stap -F -o FILE`): stap(1) "runs staprun in
 * background as a daemon and shows its pid".  stap 4.8's stapio (init_stapio) calls daemon(0, 1),
 * prints the new process's pid as "%d\n" on its standard output, then points its standard
 * output and error at /dev/null; the session goes on writing FILE (rotated by -S) until a
 * signal (SIGINT, SIGTERM ...) ends it, and `stap` itself exits 0 at once.
 *
 * Here the daemon is this command again, started detached (its own session, no terminal), with
 * the same arguments and working directory, its standard streams on /dev/null; FLIGHT_ENV tells
 * it that it is the daemon, which runs pass 5 as an ordinary -o run.  Without -o (flight recorder
 * in memory, reattached by `staprun -A`) there is no separate module to leave loaded, so the run
 * stays in the foreground.
 */
import type { StapOptions } from './options';

/** Set in the daemon's environment: this process is the background session. */
export const FLIGHT_ENV = 'TAPSIM_STAPIO_DAEMON';

/** Whether pass 5 of `opts` runs as a background daemon started by this process. */
export function daemonizes(opts: StapOptions): boolean {
  return opts.flightRecorder && opts.outputFile !== undefined && process.env[FLIGHT_ENV] !== '1';
}

/** Start the daemon running this command's session; its pid, or an error message. */
export function startDaemon(): { pid: number } | { error: string } {
  const entry = process.argv[1];
  try {
    // (required here: every stap start loads this module, and child_process costs a start that never daemonizes)
    const { spawn } = require('child_process') as typeof import('child_process');
    const child = spawn(process.execPath, [...process.execArgv, entry, ...process.argv.slice(2)], {
      cwd: process.cwd(),
      env: { ...process.env, [FLIGHT_ENV]: '1' },
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    if (child.pid === undefined) return { error: 'Failed to daemonize stapio' };
    return { pid: child.pid };
  } catch {
    return { error: 'Failed to daemonize stapio' };
  }
}
