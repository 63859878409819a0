/**
 * Inline instances reached by the call paths (`+name[:lines]` nodes of paths/dsl.ts).
 *
 * A function inlined into its caller has no fentry site: a probe on it is an int3 kprobe at the
 * instance's entry pc inside the caller (kernel/inline_sites.ts has the DWARF instances). When a
 * path reaches a `+name` node, the instance of `name` inside the function running there (the
 * enclosing function node, which may be several templates up when a hook pushed the path) is
 * looked up once per (node, caller), and its int3 site fires with the inline function's
 * arguments built from the path environment. Callers without such an instance fire nothing.
 */
import { inlineInstancesIn, InlineInstance } from '../../kernel/inline_sites';
import { kprobeHitAddress, int3SiteArmed } from '../../kernel/kprobes';
import { returnAddress } from '../../kernel/callsites';
import type { PtRegs } from '../../kernel/current';
import { inlineRefs } from './dsl';
import { inlineArgs } from './args';
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

class InlineRegs implements PtRegs {
  retval: unknown = undefined;
  private a: readonly unknown[] | null = null;
  constructor(public ip: number, public parentIp: number, private build: () => unknown[]) {}
  get args(): readonly unknown[] {
    if (this.a === null) this.a = this.build();
    return this.a;
  }
  set args(v: readonly unknown[]) {
    this.a = v;
  }
}

/** Fire the int3 site of inline reference `ref` inside the function at stack slot sp-1. */
export function fireInline(m: MachineCore, c: Cpu, ks: KStack, t: Task, e: Env, ref: number, sp: number): void {
  const caller = ks.fn[sp - 1];
  const inst = inlineInstanceFor(ref, caller);
  if (inst === null || !int3SiteArmed(inst.addr)) return;
  const build = inlineArgs(inst.fn);
  const parent = sp > 1 ? returnAddress(ks.fn[sp - 2], caller) : 0;
  const regs = new InlineRegs(inst.addr, parent, () => build(m, c, t, e));
  // the code running is the caller's: backtraces start at the site, then the caller's callers
  ks.sp = sp - 1;
  try {
    kprobeHitAddress(inst.addr, c.ctx, regs);
  } finally {
    ks.sp = sp;
  }
}
