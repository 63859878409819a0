/**
 * The per-hit context of kernel probes: what the probe families put in `ProbeContext.data`
 * (registers, the CPU context, entry values) and the TaskInfo view of the kernel's TaskRef.
 */
import type { CpuContext, PtRegs, TaskRef } from '../kernel/current';
import type { ProbeContext, TaskInfo } from '../runtime/context';
import type { Engine, RegisteredProbe } from '../runtime/engine';

export interface KHit {
  regs: PtRegs;
  cpuCtx: CpuContext;
  /** arguments at this point (function args, TP_PROTO args) */
  args: readonly unknown[];
  /** return probes: the arguments saved at entry */
  entryArgs?: readonly unknown[];
  /** return probes: @entry values computed at entry */
  entry?: unknown[];
  /** tracepoints */
  tp?: { name: string; system: string };
  /** function id (kallsyms) of the probed function, -1 when none */
  fn: number;
  /** probe address (kernel.function / kprobe) */
  addr: number;
}

/** TaskInfo read live from the scheduler's task object (machine Task or any TaskRef). */
class TaskView implements TaskInfo {
  constructor(private readonly t: TaskRef) {}
  get pid(): number { return this.t.pid; }
  get tid(): number { return this.t.tid; }
  get execname(): string { return this.t.comm; }
  get ppid(): number {
    const x = this.t as unknown as { ppid?: number; proc?: { parent?: { tgid: number } | null } };
    if (typeof x.ppid === 'number') return x.ppid;
    return x.proc?.parent?.tgid ?? 0;
  }
  private num(k: string): number {
    const v = (this.t as unknown as Record<string, unknown>)[k];
    if (typeof v === 'number') return v;
    const p = (this.t as unknown as { proc?: Record<string, unknown> }).proc;
    const pv = p ? p[k === 'euid' ? 'uid' : k === 'egid' ? 'gid' : k] : undefined;
    return typeof pv === 'number' ? pv : 0;
  }
  get uid(): number { return this.num('uid'); }
  get gid(): number { return this.num('gid'); }
  get euid(): number { return this.num('euid'); }
  get egid(): number { return this.num('egid'); }
}

const views = new WeakMap<TaskRef, TaskInfo>();
let lastTask: TaskRef | null = null;
let lastView: TaskInfo | null = null;

export function taskInfo(t: TaskRef): TaskInfo {
  if (t === lastTask) return lastView!;
  let v = views.get(t);
  if (!v) views.set(t, (v = new TaskView(t)));
  lastTask = t;
  lastView = v;
  return v;
}

/** The kernel TaskRef behind a context (for task_current() etc.), or null. */
export function hitTask(c: ProbeContext): TaskRef | null {
  const d = c.data as KHit | undefined;
  return d && d.cpuCtx ? d.cpuCtx.task : null;
}

/**
 * Build the ProbeContext of a kernel hit (a flat object literal: no spread on the hot path) and
 * deliver it through Engine.hit (error handling, state checks, -t timing).
 */
export function deliver(engine: Engine, p: RegisteredProbe, probeType: string, isReturn: boolean, hit: KHit): void {
  if (engine.state !== 'RUNNING') return;
  const m = p.meta;
  const c: ProbeContext = {
    pp: m.pp, pn: m.pn, probeIndex: m.index, family: m.family, probeType,
    cpu: hit.cpuCtx.cpu, task: taskInfo(hit.cpuCtx.task), isReturn, userMode: false,
    engine, mem: undefined, data: hit,
  };
  engine.hit(p, c, null);
}

/**
 * The reusable hit record of a Deliverer: `args` is read through the registers on demand, so
 * a hit whose handler never looks at arguments never builds them (the machine's executor gives
 * registers with lazily-built arguments).
 */
class HitRec implements KHit {
  regs: PtRegs = NO_REGS;
  cpuCtx: CpuContext = NO_CPU;
  /** explicit arguments (tracepoints), or null: the registers' */
  argv: readonly unknown[] | null = null;
  entryArgs: readonly unknown[] | undefined = undefined;
  entry: unknown[] | undefined = undefined;
  tp: { name: string; system: string } | undefined = undefined;
  constructor(public fn: number, public addr: number) {}
  get args(): readonly unknown[] {
    const a = this.argv;
    return a !== null ? a : this.regs.args;
  }
  set args(v: readonly unknown[]) {
    this.argv = v;
  }
}

/**
 * The hot path of one probe: a preallocated context and hit record refilled for each hit
 * (handlers do not nest — a handler never re-enters the simulated kernel — so nothing is
 * allocated per hit).
 */
export class Deliverer {
  private readonly c: ProbeContext;
  private readonly h: HitRec;
  constructor(private readonly engine: Engine, private readonly p: RegisteredProbe, probeType: string, isReturn: boolean, fn: number, addr: number) {
    const m = p.meta;
    this.h = new HitRec(fn, addr);
    this.c = {
      pp: m.pp, pn: m.pn, probeIndex: m.index, family: m.family, probeType,
      cpu: 0, task: NO_TASK, isReturn, userMode: false,
      engine, mem: undefined, data: this.h,
    };
  }

  /** `args` undefined: the hit's arguments are `regs.args` (read only if a handler asks). */
  fire(regs: PtRegs, cpuCtx: CpuContext, args?: readonly unknown[], entryArgs?: readonly unknown[], entry?: unknown[], userMode = false): void {
    const engine = this.engine;
    if (engine.state !== 'RUNNING') return;
    const h = this.h;
    // (pointers stored only when they change: see fireEntry)
    if (h.regs !== regs) h.regs = regs;
    if (h.cpuCtx !== cpuCtx) h.cpuCtx = cpuCtx;
    const argv = args === undefined ? null : args;
    if (h.argv !== argv) h.argv = argv;
    if (h.entryArgs !== entryArgs) h.entryArgs = entryArgs;
    h.entry = entry;
    const c = this.c;
    c.userMode = userMode;
    c.cpu = cpuCtx.cpu;
    const task = taskInfo(cpuCtx.task);
    if (c.task !== task) c.task = task;
    engine.hit(this.p, c, null);
  }

  /** fire() of an entry hit: the arguments are `regs.args` (a fixed arity for the hot path) */
  fireEntry(regs: PtRegs, cpuCtx: CpuContext): void {
    const engine = this.engine;
    if (engine.state !== 'RUNNING') return;
    const h = this.h;
    // pointers are stored only when they change (the same registers, CPU and task hit after
    // hit): a store may cost a write barrier's slow path, a compare does not
    if (h.regs !== regs) h.regs = regs;
    if (h.cpuCtx !== cpuCtx) h.cpuCtx = cpuCtx;
    h.argv = null;
    h.entryArgs = undefined;
    h.entry = undefined;
    const c = this.c;
    c.cpu = cpuCtx.cpu;
    const task = taskInfo(cpuCtx.task);
    if (c.task !== task) c.task = task;
    engine.hit(this.p, c, null);
  }
}

const NO_REGS: PtRegs = { ip: 0, parentIp: 0, args: [], retval: undefined };
const NO_CPU: CpuContext = { cpu: 0, task: { pid: 0, tid: 0, comm: 'swapper/0' } };
const NO_TASK: TaskInfo = { pid: 0, tid: 0, ppid: 0, execname: 'swapper/0', uid: 0, gid: 0, euid: 0, egid: 0 };

/** Evaluate a return probe's @entry expressions in the entry context. */
export function entryValues(engine: Engine, p: RegisteredProbe, hit: KHit): unknown[] | undefined {
  const fns = (p.handler as unknown as { entry?: ((c: ProbeContext) => unknown)[] }).entry;
  if (!fns || !fns.length) return undefined;
  const m = p.meta;
  const c: ProbeContext = {
    pp: m.pp, pn: m.pn, probeIndex: m.index, family: m.family, probeType: 'kprobe',
    cpu: hit.cpuCtx.cpu, task: taskInfo(hit.cpuCtx.task), isReturn: false, userMode: false,
    engine, mem: undefined, data: hit,
  };
  try {
    return fns.map((f) => f(c));
  } catch {
    return undefined;
  }
}
