/**
 * Connecting the probe layer to the simulated machine (src/machine): which task runs on a CPU
 * (timer.profile), which CPU context is executing when a tracepoint fires (kernel.trace), and
 * the kernel stack of a CPU for backtraces (print_backtrace, caller, callers, stack).
 *
 *   connectMachine(machine, () => machine.cpus[executingCpuId].ctx)
 *
 * The second argument is needed because traceCall() does not pass the CPU: the machine knows
 * which CPU's step is executing (its interpreter loop); until it exposes that, the default is
 * the CPU whose kernel stack is deepest (the one inside a kernel path).
 */
import type { Machine } from '../machine/machine';
import type { CpuContext } from '../kernel/current';
import { symbolAddr } from '../kernel/kallsyms';
import { setCurrentCpuContext } from './tracepoint';
import { setCurrentTaskSource } from './timer_profile';
import { setBacktraceSource } from './context';
import { kmem, KernelMemory } from '../kernel/memory';

interface InodeLike { ino: number; mode: number; size: number; uid: number; gid: number; nlink: number; parent: InodeLike | null; children: Map<string, InodeLike> | null }
interface FileLike { kind: string; inode: InodeLike | null; flags: number; pos: number }

function isInode(o: object): o is InodeLike {
  const x = o as Partial<InodeLike>;
  return typeof x.ino === 'number' && typeof x.mode === 'number' && 'children' in x;
}
function isFile(o: object): o is FileLike {
  const x = o as Partial<FileLike>;
  return typeof x.kind === 'string' && 'inode' in x && typeof x.flags === 'number';
}

const dentries = new WeakMap<InodeLike, number>();
/** A `struct dentry` for an inode: d_name from the parent directory's entry, d_parent, d_inode. */
function dentryOf(mem: KernelMemory, ino: InodeLike): number {
  let d = dentries.get(ino);
  if (d !== undefined) return d;
  const D = 'struct dentry';
  d = mem.allocStruct(D);
  dentries.set(ino, d);
  let name = '/';
  if (ino.parent && ino.parent.children) for (const [k, v] of ino.parent.children) if (v === ino) { name = k; break; }
  mem.setField(d, D, 'd_name.name', mem.strdup(name));
  mem.setField(d, D, 'd_name.len', name.length);
  mem.setField(d, D, 'd_inode', mem.addrOf(ino));
  mem.setField(d, D, 'd_parent', ino.parent && ino.parent !== ino ? dentryOf(mem, ino.parent) : d);
  return d;
}

/** struct inode / struct file layouts for the machine's Inode and OpenFile objects (snapshots). */
function fsMaterializer(o: object, mem: KernelMemory): number | null {
  if (isInode(o)) {
    const I = 'struct inode';
    const a = mem.allocStruct(I);
    mem.bind(o, a);
    mem.setField(a, I, 'i_ino', o.ino);
    mem.setField(a, I, 'i_mode', o.mode);
    mem.setField(a, I, 'i_size', o.size);
    mem.setField(a, I, 'i_uid.val', o.uid);
    mem.setField(a, I, 'i_gid.val', o.gid);
    mem.setField(a, I, '__i_nlink', o.nlink);
    return a;
  }
  if (isFile(o)) {
    const F = 'struct file';
    const a = mem.allocStruct(F);
    mem.bind(o, a);
    mem.setField(a, F, 'f_flags', o.flags);
    mem.setField(a, F, 'f_pos', o.pos);
    if (o.inode) {
      mem.setField(a, F, 'f_inode', mem.addrOf(o.inode));
      mem.setField(a, F, 'f_path.dentry', dentryOf(mem, o.inode));
    }
    return a;
  }
  return null;
}
let fsInstalled = false;

export function connectMachine(m: Machine, executing?: () => CpuContext): void {
  if (!fsInstalled) {
    kmem.addMaterializer(fsMaterializer);
    fsInstalled = true;
  }
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
