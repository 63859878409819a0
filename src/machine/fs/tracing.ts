/**
 * The machine's tracing filesystems: the kernel's tracefs (src/kernel/tracefs/) over this
 * machine's clock, CPUs and stacks, mounted where Debian 12's systemd mounts them at boot
 * (tracefs on /sys/kernel/tracing, debugfs on /sys/kernel/debug with its `tracing` automount).
 */
import type { CpuContext } from '../../kernel/current';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Fs } from './namei';
import { Tracefs, TracefsOptions } from '../../kernel/tracefs/tracefs';
import { returnAddress } from '../../kernel/callsites';

/** What the tracing filesystems need of the machine. */
export interface TracingMachine {
  readonly now: number;
  readonly ncpus: number;
  readonly cpus: readonly Cpu[];
  readonly fs: Fs;
  executingCpu(): Cpu | null;
  task(pid: number): Task | undefined;
}

/** Kernel return addresses of a CPU's stack, innermost first (callers of the running function). */
export function machineKernelStack(m: TracingMachine, ctx: CpuContext): number[] {
  const c = m.cpus[ctx.cpu];
  if (!c || (c.ctx !== ctx && ctx.task !== c.curr)) return [];
  const ks = c.ks;
  const out: number[] = [];
  // each caller at the return address of its call (src/kernel/callsites.ts, from the disassembly)
  for (let i = ks.sp - 1; i >= 0; i--) out.push(returnAddress(ks.fn[i], ks.fn[i + 1]));
  return out;
}

export function attachTracefs(m: TracingMachine, opts: TracefsOptions = {}): Tracefs {
  const tfs = new Tracefs({
    clock: () => Math.floor(m.now),
    ncpus: m.ncpus,
    current: () => (m.executingCpu() ?? m.cpus[0]).ctx,
    kernelStack: (ctx) => machineKernelStack(m, ctx),
    task: (pid) => m.task(pid),
  }, opts);
  const fs = m.fs;
  fs.mountPseudo(fs.mkdirp('/sys/kernel/tracing', 'sysfs'), tfs.root(), 'tracefs');
  fs.mountPseudo(fs.mkdirp('/sys/kernel/debug', 'sysfs'), tfs.debugfs(), 'debugfs');
  // the stack tracer's switch (kernel/trace/trace_stack.c stack_trace_sysctl: proc_dointvec)
  fs.mkdirp('/proc/sys/kernel', 'proc');
  fs.procFile('/proc/sys/kernel/stack_tracer_enabled', () => `${tfs.stack.enabled ? 1 : 0}\n`, (s) => {
    if (!/^\s*-?\d+\s*$/.test(s)) return -22;
    tfs.stack.enable(parseInt(s, 10) !== 0);
    return s.length;
  }, 0o644);
  return tfs;
}
