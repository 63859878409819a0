/**
 * The machine's tracing filesystems: the kernel's tracefs (src/kernel/tracefs/) over this
 * machine's clock, CPUs and stacks, mounted where Debian 12's systemd mounts them at boot
 * (tracefs on /sys/kernel/tracing, debugfs on /sys/kernel/debug with its `tracing` automount).
 */
import type { CpuContext } from '../../kernel/current';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Fs } from './namei';
import type { Tracefs, TracefsOptions } from '../../kernel/tracefs/tracefs';
import type { PseudoNode } from '../../kernel/tracefs/vfs';
import { TOP_DIR_MODE, lazyDir } from '../../kernel/tracefs/vfs';
import { debugfsRoot } from '../../kernel/tracefs/debugfs';
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

/** A machine's tracefs, made when first used. */
export interface MachineTracefs {
  /** the tracefs (made now if it was not) */
  get(): Tracefs;
  /** the tracefs if something made it */
  made(): Tracefs | null;
}

/**
 * Mount tracefs and debugfs on the machine.  The Tracefs itself (its top instance, ring buffers,
 * tracers and the ~25 modules of src/kernel/tracefs/) is made when something first uses it: a
 * look-up or listing under either mount, /proc/sys/kernel/stack_tracer_enabled, or the
 * machine's `tracefs`.  Making it reads nothing of the machine's state and changes none (the
 * mounts' inodes are made here, at boot, in the same order as before), so when it is made is
 * not observable.
 */
export function attachTracefs(m: TracingMachine, opts: TracefsOptions = {}): MachineTracefs {
  let tfs: Tracefs | null = null;
  const get = (): Tracefs => (tfs ??= makeTracefs(m, opts, root));
  // the root Tracefs.root() answers: the same node under both mounts and a later `mount -t tracefs`
  const root = lazyDir(TOP_DIR_MODE, () => get().topDir());
  const fs = m.fs;
  fs.mountPseudo(fs.mkdirp('/sys/kernel/tracing', 'sysfs'), root, 'tracefs');
  fs.mountPseudo(fs.mkdirp('/sys/kernel/debug', 'sysfs'), debugfsRoot({ root: () => root }), 'debugfs');
  // the stack tracer's switch (kernel/trace/trace_stack.c stack_trace_sysctl: proc_dointvec)
  fs.mkdirp('/proc/sys/kernel', 'proc');
  fs.procFile('/proc/sys/kernel/stack_tracer_enabled', () => `${get().stack.enabled ? 1 : 0}\n`, (s) => {
    if (!/^\s*-?\d+\s*$/.test(s)) return -22;
    get().stack.enable(parseInt(s, 10) !== 0);
    return s.length;
  }, 0o644);
  return { get, made: () => tfs };
}

function makeTracefs(m: TracingMachine, opts: TracefsOptions, root: PseudoNode): Tracefs {
  const { Tracefs } = require('../../kernel/tracefs/tracefs') as typeof import('../../kernel/tracefs/tracefs');
  return new Tracefs({
    clock: () => Math.floor(m.now),
    ncpus: m.ncpus,
    current: () => (m.executingCpu() ?? m.cpus[0]).ctx,
    kernelStack: (ctx) => machineKernelStack(m, ctx),
    task: (pid) => m.task(pid),
  }, opts, root);
}
