/**
 * The end of a run: `tapsim shell -c CMD` and `tapsim shell FILE` end when their shell exits, and
 * the machine ends with them.  The shell's exit_group is then the last thing the machine does, and
 * its kernel side (do_exit: exit_mm's teardown of the ~400 pages a dash maps, the files, the
 * parent's wakeup: ~8,500 kernel calls, a tenth of a plain start's CPU) is only worth running when
 * something can see it:
 * - a probe of any kind in the kernel: an ftrace_ops (a tracer, the function profiler, a stap
 *   kernel.function probe, kprobes on ftrace), a kprobe, a tracepoint with a probe (trace events,
 *   stap, perf), a perf software event;
 * - another live process that holds one of the shell's files (its terminal), which could still
 *   print while the exit runs (a background job).
 * With none of these, the run ends at the exit_group call itself, with its status: what the run
 * prints and its status are the same, byte for byte, as after the whole exit.
 */
import type { Process, Task } from '../include/sched';
import { ftraceOpsRegistered } from '../../kernel/ftrace';
import { kprobesRegistered } from '../../kernel/kprobes';
import { tracepointsEnabled } from '../../kernel/tracepoint';
import { perfSw } from '../kernel/perf_events';

/** The processes of a machine (process/procs.ts Procs.procs). */
export interface SessionMachine {
  readonly procs: { readonly procs: ReadonlyMap<number, Process> };
}

/** Nothing in the kernel is attached to see what runs. */
export function kernelUnobserved(): boolean {
  return !ftraceOpsRegistered() && kprobesRegistered() === 0 && tracepointsEnabled() === 0 && !perfSw.active;
}

/** No live process but `leader` holds one of `leader`'s files. */
function aloneWithItsFiles(m: SessionMachine, leader: Process): boolean {
  const own = new Set(leader.fds.filter((f) => f !== null));
  for (const p of m.procs.procs.values()) {
    if (p === leader || p.exited) continue;
    for (const f of p.fds) if (f && own.has(f)) return false;
  }
  return true;
}

/**
 * Make `leader`'s exit_group end the run when nothing can see the exit (the file's comment):
 * `leader.runEnd` then holds the exit status (process/user.ts runUser), and the caller stops
 * running the machine once it is set.
 */
export function endRunAtExit(m: SessionMachine, leader: Process): void {
  leader.atExitGroup = (t: Task, code: number): boolean => {
    if (t.proc !== leader || leader.threads.length !== 1 || !kernelUnobserved() || !aloneWithItsFiles(m, leader)) return false;
    leader.runEnd = code & 0xff;
    return true;
  };
}
