/**
 * Connecting the probe layer to the simulated machine (src/machine): the kernel perf events count
 * in (perf, timer.profile), which CPU context is executing when a tracepoint fires (kernel.trace), and
 * the kernel stack of a CPU for backtraces (print_backtrace, caller, callers, stack).
 *
 *   connectMachine(machine, () => machine.cpus[executingCpuId].ctx)
 *
 * traceCall() does not pass the CPU: by default the executing CPU is the machine's
 * `executingCpu()` (the CPU whose step, interrupt or softirq is running); the optional second
 * argument overrides it (tests).  Kernel-memory layouts of
 * the machine's files, inodes and dentries come from src/machine/fs/layout.ts (installed by src/machine/paths/args.ts installMaterializers).
 */
import type { Machine } from '../machine/machine';
import type { CpuContext } from '../kernel/current';
import { machineKernelStack } from '../machine/fs/tracing';
import { setCurrentCpuContext } from './tracepoint';
import { setBacktraceSource, setTaskLookup } from './context';
import { installMaterializers } from '../machine/paths/args';
import type { Process } from '../machine/include/sched';
import type { Engine } from '../runtime/engine';
import { taskInfo } from './hit';
import { setProcfsMachine } from './procfs';
import { adoptStapio, StdinFeed } from './stapio';
import { setNetfilterMachine } from './netfilter';
import { setPerfMachine } from './perf';
import { setTaskFinderMachine } from './task_finder';
import { installKernelGlobals } from '../kernel/globals';
import { installTaskObjects } from './task_objects';


export function connectMachine(m: Machine, executing?: () => CpuContext): void {
  // struct file / inode / dentry layouts of the machine's OpenFile and Inode objects
  installMaterializers();
  installTaskObjects(m); // task_struct fs/mm/flags of the machine's tasks (src/probes/task_objects.ts)
  setProcfsMachine(m);
  setNetfilterMachine(m);
  setPerfMachine(m);
  setTaskFinderMachine(m);
  setCurrentCpuContext(executing ?? (() => (m.executingCpu() ?? m.cpus[0]).ctx));
  setTaskLookup((tid) => m.task(tid));
  installKernelGlobals({
    uptimeNs: () => m.now, ncpus: m.ncpus, nrThreads: () => m.procs.tasks.size, totalPages: m.mm.totalPages,
    freePagesAtBoot: m.mm.freePages, idleTask: m.cpus[0].idleTask, pidMax: 4194304,
  });
  // the CPU's own context, or a hit context naming that CPU's current task (perf overflow hits:
  // the interrupted kernel stack)
  setBacktraceSource((ctx) => machineKernelStack(m, ctx));
}

export function disconnectMachine(): void {
  installTaskObjects(null);
  setProcfsMachine(null);
  setNetfilterMachine(null);
  setPerfMachine(null);
  setTaskFinderMachine(null);
  setCurrentCpuContext(null);
  setBacktraceSource(null);
  setTaskLookup(null);
}

/**
 * Run the machine under a script session: the engine adopts the machine's clock and event queue
 * (Engine.attachHost), so probe handlers read the machine's virtual time and the engine's timers
 * are events among the machine's.  `-c CMD`: the command is spawned before the begin probes
 * (as stapio does: directly when it has no shell syntax, else through `/bin/sh -c`; target() is
 * its pid) and the session ends when it exits.  `-x PID`: target() = PID.  `stdin`: stapio's
 * standard input, for input.* probes (stapio.ts).  Returns target().
 */
export function driveMachine(engine: Engine, m: Machine,
  opts: { command?: string; proc?: Process | null; targetPid?: number; out?: (s: string) => void; err?: (s: string) => void;
    stdin?: StdinFeed; argv?: readonly string[] } = {}): number {
  let proc: Process | null = opts.proc ?? null;
  const out = opts.out ?? (() => undefined);
  const stapio = adoptStapio(m, engine.stapioPid, engine.moduleName, opts.stdin, opts.argv, { out, err: opts.err ?? out });
  if (!proc && opts.command !== undefined) {
    proc = m.procs.spawnCommand(opts.command, out, opts.err ?? out, stapio ?? undefined);
  }
  const pid = proc ? proc.tgid : opts.targetPid ?? 0;
  const p = proc;
  engine.attachHost({
    now: () => Math.floor(m.now),
    schedule: (at, fire, prio) => { m.schedule(at, fire, prio); },
    next: () => m.queue.peek()?.t,
    step: () => { m.stepSlice(); },
    ncpus: m.ncpus,
    task: (cpu) => taskInfo(m.current(cpu)),
    afterStep: p ? () => { if (p.finished) engine.exit(); } : undefined,
    system: (cmd, out) => { m.spawnShell(cmd, out); },
  }, pid);
  return pid;
}
