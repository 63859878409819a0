/**
 * Connecting the probe layer to the simulated machine (src/machine): which task runs on a CPU
 * (timer.profile), which CPU context is executing when a tracepoint fires (kernel.trace), and
 * the kernel stack of a CPU for backtraces (print_backtrace, caller, callers, stack).
 *
 *   connectMachine(machine, () => machine.cpus[executingCpuId].ctx)
 *
 * The second argument is needed because traceCall() does not pass the CPU: the machine knows
 * which CPU's step is executing (its interpreter loop); until it exposes that, the default is
 * the CPU whose kernel stack is deepest (the one inside a kernel path).  Kernel-memory layouts of
 * the machine's files, inodes and dentries come from src/machine/args.ts (installMaterializers).
 */
import type { Machine } from '../machine/machine';
import type { CpuContext } from '../kernel/current';
import { symbolAddr } from '../kernel/kallsyms';
import { setCurrentCpuContext } from './tracepoint';
import { setCurrentTaskSource } from './timer_profile';
import { setBacktraceSource } from './context';
import { installMaterializers } from '../machine/args';


export function connectMachine(m: Machine, executing?: () => CpuContext): void {
  // struct file / inode / dentry layouts of the machine's OpenFile and Inode objects
  installMaterializers();
  setCurrentTaskSource((cpu) => m.current(cpu));
  setCurrentCpuContext(executing ?? (() => {
    let best = m.cpus[0];
    for (const c of m.cpus) if (c.ks.sp > best.ks.sp) best = c;
    return best.ctx;
  }));
  setBacktraceSource((ctx) => {
    const c = m.cpus[ctx.cpu];
    if (!c || c.ctx !== ctx) return [];
    const ks = c.ks;
    const out: number[] = [];
    // ks.fn[ks.sp] is the function being entered; its callers are below it (return address = +9,
    // as the machine's interpreter passes parentIp)
    for (let i = ks.sp - 1; i >= 0; i--) out.push(symbolAddr(ks.fn[i]) + 9);
    return out;
  });
}

export function disconnectMachine(): void {
  setCurrentTaskSource(null);
  setCurrentCpuContext(null);
  setBacktraceSource(null);
}

/**
 * Run the machine under a script session until the machine is integrated into the engine's
 * clock (src/machine/README.md): the machine advances `sliceNs` of its time per `sliceNs` of the
 * engine's virtual time.  `-c CMD`: the command is spawned before the begin probes (target() is
 * its pid) and the session ends when it exits.  `-x PID`: target() = PID.
 */
export function driveMachine(engine: import('../runtime/engine').Engine, m: Machine,
  opts: { command?: string; targetPid?: number; out?: (s: string) => void; sliceNs?: number } = {}): number {
  const slice = opts.sliceNs ?? 1e6;
  let proc: { exited: boolean; tgid: number } | null = null;
  if (opts.command !== undefined) proc = m.spawnShell(opts.command, opts.out ?? (() => undefined));
  const pid = proc ? proc.tgid : opts.targetPid ?? 0;
  (engine as unknown as { targetPid: number }).targetPid = pid;
  const step = (): void => {
    if (engine.state !== 'RUNNING') return;
    m.runUntil(m.now + slice);
    if (proc && proc.exited) {
      engine.exit();
      return;
    }
    engine.schedule(engine.now + slice, step, Number.MAX_SAFE_INTEGER - 1);
  };
  engine.schedule(slice, step, Number.MAX_SAFE_INTEGER - 1);
  return pid;
}
