/**
 * Inline instances reached by the call paths (`+name[:lines]` nodes of paths/dsl.ts).
 *
 * A function inlined into its caller has no fentry site: a probe on it is an int3 kprobe at the
 * instance's entry pc inside the caller (kernel/inline_sites.ts has the DWARF instances). When a
 * path reaches a `+name` node, the instance of `name` inside the function running there (the
 * enclosing function node, which may be several templates up when a hook pushed the path) is
 * looked up once per (node, caller), and its int3 site fires with the inline function's
 * arguments built from the path environment. Callers without such an instance fire nothing.
 *
 * Several instances may share one entry pc (signal_wake_up inlined in complete_signal starts with
 * its own inlined signal_wake_up_state and that one's arch_set_bit): one int3 site fires for all
 * of them, and each probe reads the parameters of its own function there (`PtRegs.argsOf`), built
 * from the caller's objects by the subsystem's `fnArgs` for that function, else by name and type.
 */
import { inlineInstancesIn, InlineInstance } from '../../kernel/inline_sites';
import { kprobeHitAddress, int3SiteArmed } from '../../kernel/kprobes';
import { returnAddress } from '../../kernel/callsites';
import type { PtRegs } from '../../kernel/current';
import { inlineRefs } from './dsl';
import { inlineArgs } from './args';
import { fnArgsNamed, inlineGateOf } from './semantics';
import type { Cond } from './semantics';
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env, KStack } from '../include/kstack';

/** (ref index, caller id) -> the instance, or null */
const chosen = new Map<number, InlineInstance | null>();

/** The instance a `+name[:lines]` reference means inside `caller`, or null. */
export function inlineInstanceFor(ref: number, caller: number): InlineInstance | null {
  const key = caller * 4096 + ref;
  let inst = chosen.get(key);
  if (inst !== undefined) return inst;
  const r = inlineRefs[ref];
  inst = null;
  for (const i of inlineInstancesIn(caller)) {
    if (i.fn.name !== r.name) continue;
    if (r.lines.includes(i.callLine)) { inst = i; break; }
    if (inst === null) inst = i;
  }
  chosen.set(key, inst);
  return inst;
}

/** The argument builder of an inline instance: its function's `fnArgs`, else by name and type. */
function builderOf(inst: InlineInstance): (m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[] {
  return (fnArgsNamed(inst.fn.name) as ((m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[]) | undefined) ?? inlineArgs(inst.fn);
}

class InlineRegs implements PtRegs {
  retval: unknown = undefined;
  private a: readonly unknown[] | null = null;
  private byFn: Map<string, readonly unknown[]> | null = null;
  constructor(public ip: number, public parentIp: number, private inst: InlineInstance,
    private m: MachineCore, private c: Cpu, private t: Task, private e: Env) {}
  get args(): readonly unknown[] {
    if (this.a === null) this.a = builderOf(this.inst)(this.m, this.c, this.t, this.e);
    return this.a;
  }
  set args(v: readonly unknown[]) {
    this.a = v;
  }
  /** The parameters of inline function `name` at this pc (another instance sharing the site). */
  argsOf(name: string): readonly unknown[] {
    if (name === this.inst.fn.name) return this.args;
    let v = this.byFn?.get(name);
    if (v !== undefined) return v;
    v = [];
    for (const i of inlineInstancesIn(this.inst.caller)) {
      if (i.addr === this.inst.addr && i.fn.name === name) { v = builderOf(i)(this.m, this.c, this.t, this.e); break; }
    }
    (this.byFn ??= new Map()).set(name, v);
    return v;
  }
}

/** (ref index, caller id) -> the conditions of the instances sharing the site (Semantics.inlineIf) */
const gates = new Map<number, Cond[]>();
function gatesOf(ref: number, inst: InlineInstance): Cond[] {
  const key = inst.caller * 4096 + ref;
  let g = gates.get(key);
  if (g === undefined) {
    g = [];
    for (const i of inlineInstancesIn(inst.caller)) {
      const c = i.addr === inst.addr ? inlineGateOf(i.fn.name) : undefined;
      if (c && !g.includes(c)) g.push(c);
    }
    gates.set(key, g);
  }
  return g;
}

let firing: InlineInstance | null = null;
/** The inline instance whose site is being fired (for its Semantics.inlineIf condition), else null. */
export function firingInline(): InlineInstance | null {
  return firing;
}
/** Fire the int3 site of inline reference `ref` inside the function at stack slot sp-1. */
export function fireInline(m: MachineCore, c: Cpu, ks: KStack, t: Task, e: Env, ref: number, sp: number): void {
  const caller = ks.fn[sp - 1];
  const inst = inlineInstanceFor(ref, caller);
  if (inst === null || !int3SiteArmed(inst.addr)) return;
  firing = inst;
  try {
    for (const g of gatesOf(ref, inst)) if (!g(m, c, t, e)) return;
  } finally {
    firing = null;
  }
  const parent = sp > 1 ? returnAddress(ks.fn[sp - 2], caller) : 0;
  const regs = new InlineRegs(inst.addr, parent, inst, m, c, t, e);
  // the code running is the caller's: backtraces start at the site, then the caller's callers
  ks.sp = sp - 1;
  try {
    kprobeHitAddress(inst.addr, c.ctx, regs);
  } finally {
    ks.sp = sp;
  }
}
