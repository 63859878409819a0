/**
 * The kernel executor: runs compiled call paths (paths/dsl.ts) on a simulated CPU.
 *
 * Every function node is one mcount site reached: with nothing attached that is a typed-array
 * load and a branch (ftrace.siteState); when a site is live, kenter()/kleave() of
 * src/kernel/ftrace.ts run with the CPU's CpuContext (current task, CPU, irq/softirq context),
 * the function's arguments (from per-function builders) and the caller's address as parent ip.
 * Tracepoint nodes call traceCall() when the tracepoint's static key is on.
 *
 * Execution is resumable: a hook may put the task to sleep (the schedule path is pushed and the
 * hook re-runs after wakeup), switch CPUs to another task, or push another path.
 */
import { kenterRegs, kleave, siteState } from '../../kernel/ftrace';
import { LazyRet } from '../../kernel/current';
import type { PtRegs } from '../../kernel/current';
import { symbolAddr, symbolName } from '../../kernel/kallsyms';
import { madeTracepoint, tracepointsMade, traceCall } from '../../kernel/tracepoint';
import { hash32 } from '../core/prng';
import { genericArgs, tracepointArgs } from './args';
import { OP_END, OP_HOOK, OP_IF, OP_IFNOT, OP_RET, OP_TP, OP_INLINE, OP_REPEAT, OP_LOOP, OP_MODEL, OP_SUB, path, tpNames, hookNames, condNames, modelKeyNames } from './dsl';
import { modelPath } from './model';
import { chunkCode } from './compile';
import { fireInline } from './inline';
import { int3SiteCount } from '../../kernel/kprobes';
import { returnAddress } from '../../kernel/callsites';
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env, KStack, CompiledPath } from '../include/kstack';
import type { Tracepoint } from '../../kernel/tracepoint';
import { hookNamed, condNamed, tpArgsNamed, tpGateOf, fnArgsOf, retOf, countRuleAt } from './semantics';
import type { Hook, Cond, ArgBuilder } from './semantics';

// Module-private copies of what the interpreter reads per op: imported bindings compile to
// property loads on the exporting module's object (a dictionary lookup for big modules).
const sites = siteState;
const P_RET = OP_RET, P_TP = OP_TP, P_HOOK = OP_HOOK, P_IF = OP_IF, P_IFNOT = OP_IFNOT, P_END = OP_END, P_INLINE = OP_INLINE;
const P_REPEAT = OP_REPEAT, P_LOOP = OP_LOOP, P_MODEL = OP_MODEL, P_SUB = OP_SUB;
const int3Armed = int3SiteCount;

/** hook time worth remembering for sampling interrupts (Cpu.noteSpan) */
const SPAN_MIN_NS = 1000;

/** hook results */
export const H_CONT = 0;
const HK_CONT = 0, HK_SLEEP = 1, HK_PUSHED = 2, HK_SWITCHED = 3, HK_IDLE = 4, HK_AGAIN = 5;
const RS_DONE = 0, RS_BUDGET = 1, RS_SWITCH = 2, RS_IDLE = 3;
/** the task went to sleep: run schedule, then re-run this hook */
export const H_SLEEP = 1;
/** a frame was pushed: continue with it, then after this hook */
export const H_PUSHED = 2;
/** the CPU now runs another task (the schedule path's switch point) */
export const H_SWITCHED = 3;
/** idle wait: the CPU stops until kicked; the hook re-runs then */
export const H_IDLE = 4;

/** frames were pushed: run them, then re-run this hook (loops) */
export const H_AGAIN = 5;

/** interp results */
export const R_DONE = 0;
export const R_BUDGET = 1;
export const R_SWITCH = 2;
export const R_IDLE = 3;

const hooks: (Hook | undefined)[] = [];
const conds: (Cond | undefined)[] = [];

function hookAt(i: number): Hook {
  let h = hooks[i];
  if (!h) {
    h = hookNamed(hookNames[i]);
    if (!h) throw new Error(`kernel path hook %${hookNames[i]} is not defined`);
    hooks[i] = h;
  }
  return h;
}
function condAt(i: number): Cond {
  let c = conds[i];
  if (!c) {
    c = condNamed(condNames[i]);
    if (!c) throw new Error(`kernel path condition ?${condNames[i]} is not defined`);
    conds[i] = c;
  }
  return c;
}

let costs: Uint16Array | null = null;
/** the cost tables of machines whose CPU is slower than hardware (MachineCore.cpuSlowdown), by slowdown */
const slowCosts = new Map<number, Uint16Array>();
/** the largest CPU slowdown a cost table holds (127 ns × 500 < 65536) */
export const MAX_CPU_SLOWDOWN = 500;
/**
 * Simulated cost in ns of one function's own work (deterministic per function), by function
 * id: 0 until first asked for (fnCost), so a start does not hash every kernel symbol.  Sized
 * above the symbol count (110,097) without opening the symbol table; an id past it is costed
 * every time (fnCost), the same number.  `slowdown` (MachineCore.cpuSlowdown): the table of a CPU
 * that many times slower than hardware, each cost multiplied by it (rounded, at least 1 ns).
 */
export function fnCosts(slowdown = 1): Uint16Array {
  if (slowdown === 1) return costs ?? (costs = new Uint16Array(1 << 17));
  let t = slowCosts.get(slowdown);
  if (!t) {
    if (!(slowdown > 0 && slowdown <= MAX_CPU_SLOWDOWN)) throw new RangeError(`CPU slowdown ${slowdown} is not in (0, ${MAX_CPU_SLOWDOWN}]`);
    slowCosts.set(slowdown, (t = new Uint16Array(1 << 17)));
  }
  return t;
}

/** The cost of function `id` on a CPU `slowdown` times slower than hardware, filled into its table on first use. */
export function fnCost(id: number, slowdown = 1): number {
  const t = slowdown === 1 ? costs ?? fnCosts() : fnCosts(slowdown);
  return t[id] || costInto(t, id, slowdown);
}

/** Fill in the cost of function `id` in `t`, the table of `slowdown` (out of interp's loop: its first use only). */
function costInto(t: Uint16Array, id: number, slowdown: number): number {
  const ns = 18 + (hash32(id + 7) % 110);
  return (t[id] = slowdown === 1 ? ns : Math.max(1, Math.round(ns * slowdown)));
}

function argsOf(m: MachineCore, c: Cpu, t: Task, e: Env, fn: number): unknown[] {
  const b = fnArgsOf(fn) ?? genericArgs(fn);
  return b ? b(m, c, t, e) : [];
}

/**
 * pt_regs of a live function entry reached by a path: the arguments are built from the path
 * environment only when a handler reads them (most handlers never do).
 */
class PathRegs implements PtRegs {
  ip = 0.5;
  parentIp = 0.5;
  retval: unknown = undefined;
  private a: readonly unknown[] | null = null;
  constructor(private m: MachineCore, private c: Cpu, private t: Task, private e: Env, private fn: number) {}
  /** refill for the next live entry on this CPU (handlers do not keep regs past the hit) */
  set(ip: number, parentIp: number, m: MachineCore, c: Cpu, t: Task, e: Env, fn: number): this {
    this.ip = ip;
    this.parentIp = parentIp;
    this.retval = undefined;
    this.a = null;
    this.m = m;
    this.c = c;
    this.t = t;
    this.e = e;
    this.fn = fn;
    return this;
  }
  get args(): readonly unknown[] {
    let a = this.a;
    if (a === null) a = this.a = argsOf(this.m, this.c, this.t, this.e, this.fn);
    return a;
  }
  set args(v: readonly unknown[]) {
    this.a = v;
  }
}

/** one reusable PathRegs per CPU id */
const cpuRegs: PathRegs[] = [];

/**
 * Per tracepoint reference of the paths (tpNames index): the Tracepoint (its static key) and args.
 * `tp` is null while no Tracepoint of the name is made (tracepoint(): nothing can be registered on
 * it, so it is off; a name the kernel lacks never gets one); `made` is tracepointsMade.count when it
 * was looked for, so that it is looked for again once more are made.
 */
interface TpRef { tp: Tracepoint | null; made: number; name: string; build: ArgBuilder | null; gate: Cond | null | undefined }
const tpRefs: TpRef[] = [];
const tpMade = tracepointsMade;
function tpRef(idx: number): TpRef {
  let r = tpRefs[idx];
  if (r === undefined) {
    const full = tpNames[idx];
    const colon = full.indexOf(':');
    const name = colon >= 0 ? full.slice(colon + 1) : full;
    r = { tp: madeTracepoint(name) ?? null, made: tpMade.count, name, build: null, gate: undefined };
    tpRefs[idx] = r;
  }
  return r;
}
/** A reference without its Tracepoint, looked for again (more were made since): whether it has one now. */
function tpResolved(r: TpRef): boolean {
  r.made = tpMade.count;
  r.tp = madeTracepoint(r.name) ?? null;
  return r.tp !== null;
}
function fireTp(m: MachineCore, c: Cpu, t: Task, e: Env, r: TpRef): void {
  const tp = r.tp as Tracepoint;
  // the condition the C code tests around the trace call (Semantics.tpIf)
  if (r.gate === undefined) r.gate = tpGateOf(r.name) ?? null;
  if (r.gate !== null && !r.gate(m, c, t, e)) return;
  let b = r.build;
  // a subsystem's builder, else the TP_PROTO parameters from the path environment by name and type
  if (b === null) b = r.build = tpArgsNamed(r.name) ?? tracepointArgs(r.name);
  traceCall(tp, ...b(m, c, t, e));
}

/** Push a path onto a kernel stack. */
export function pushPath(ks: KStack, name: string | CompiledPath, env: Env): void {
  const p = typeof name === 'string' ? path(name) : name;
  ks.frames.push({ code: p.code, pc: 0, env, path: p, loops: undefined });
}

export function newEnv(name: string, extra?: Record<string, unknown>): Env {
  const e: Env = { name, nr: -1, a: [], ret: 0, rv: 0 };
  if (extra) Object.assign(e, extra);
  return e;
}

/**
 * Run kernel code of `ks` on CPU `c` for task `t` until the frames are exhausted (R_DONE),
 * the CPU's time reaches `until` (R_BUDGET), the CPU switched to another task (R_SWITCH) or
 * went idle (R_IDLE).
 */
export function interp(m: MachineCore, c: Cpu, ks: KStack, t: Task, until: number, base = 0): number {
  const cost = m.cpuSlowdown === 1 ? costs ?? fnCosts() : fnCosts(m.cpuSlowdown);
  const st = sites;
  const retAddr = returnAddress;
  const fnS = ks.fn;
  const mkS = ks.mark;
  const ctx = c.ctx;
  for (;;) {
    const frames = ks.frames;
    if (frames.length <= base) return RS_DONE;
    const f = frames[frames.length - 1];
    const code = f.code;
    const env = f.env;
    let pc = f.pc;
    let sp = ks.sp;
    let now = m.now;
    let calls = 0;
    for (;;) {
      const op = code[pc++];
      if (op >= 0) {
        fnS[sp] = op;
        if (st[op] === 0) mkS[sp] = -1;
        else {
          m.now = now;
          ks.sp = sp; // backtraces of this hit: fnS[sp] is being entered, its callers below
          const parent = sp > 0 ? retAddr(fnS[sp - 1], op) : 0;
          const regs = cpuRegs[c.id] ?? (cpuRegs[c.id] = new PathRegs(m, c, t, env, op));
          mkS[sp] = kenterRegs(op, ctx, regs.set(symbolAddr(op), parent, m, c, t, env, op));
        }
        sp++;
        calls++;
        now += cost[op] || costInto(cost, op, m.cpuSlowdown);
        // (not inside a softirq run on the task's stack, net/core.ts bh_enter: what it does to a socket
        // is done under the socket's lock, which a syscall on another CPU waits for)
        if (now >= until && c.ctx.context === 0) {
          m.now = now; f.pc = pc; ks.sp = sp; m.kcalls += calls;
          return RS_BUDGET;
        }
        continue;
      }
      if (op === P_RET) {
        sp--;
        const mk = mkS[sp];
        if (mk >= 0) { m.now = now; ks.sp = sp; const fn = fnS[sp], e = env; kleave(fn, ctx, new LazyRet(() => retOf(fn, e)), mk); }
        continue;
      }
      if (op === P_TP) {
        // a tracepoint's static key: one load and a branch while nothing is attached
        const r = tpRefs[code[pc++]] ?? tpRef(code[pc - 1]);
        if (r.tp === null ? r.made === tpMade.count || !tpResolved(r) || !r.tp!.enabled : !r.tp.enabled) continue;
        m.now = now; ks.sp = sp; m.kcalls += calls; calls = 0;
        fireTp(m, c, t, env, r);
        now = m.now;
        continue;
      }
      if (op === P_INLINE) {
        // an inline instance's entry: only int3 kprobes can see it
        const ri = code[pc++];
        if (sp === 0 || int3Armed() === 0) continue;
        m.now = now; ks.sp = sp; m.kcalls += calls; calls = 0;
        fireInline(m, c, ks, t, env, ri, sp);
        now = m.now;
        continue;
      }
      m.now = now;
      ks.sp = sp;
      m.kcalls += calls;
      calls = 0;
      if (op === P_IF || op === P_IFNOT) {
        const ci = code[pc++];
        const target = code[pc++];
        const v = (conds[ci] ?? condAt(ci))(m, c, t, env);
        if (v !== (op === P_IF)) pc = target;
        continue;
      }
      if (op === P_HOOK) {
        const at = pc - 1;
        const hi = code[pc++];
        f.pc = pc;
        const r = (hooks[hi] ?? hookAt(hi))(m, c, t, env);
        // a hook that models work (copying, clearing ...) spends that time in the function it runs in
        if (m.now - now > SPAN_MIN_NS && sp > 0 && !t.idle) c.noteSpan(fnS[sp - 1], now, m.now);
        now = m.now;
        if (r === HK_CONT) continue;
        if (r === HK_PUSHED) break;
        if (r === HK_AGAIN) {
          // the pushed frames sit above this one; re-run the hook when they are done
          f.pc = at;
          break;
        }
        if (r === HK_SLEEP) {
          env.slept = true;
          f.pc = at; // re-run after wakeup
          pushPath(ks, schedulePath ?? (schedulePath = path('schedule')), env);
          break;
        }
        if (r === HK_SWITCHED) return RS_SWITCH;
        if (r === HK_IDLE) { f.pc = at; return RS_IDLE; }
        throw new Error(`hook %${hookNames[hi]} returned ${r}`);
      }
      if (op === P_REPEAT) {
        // rule, recorded count, the other calls, end: the body's repetitions (a rule's count less the
        // other calls, else the recorded one)
        const ri = code[pc++];
        const rec = code[pc++];
        const other = code[pc++];
        const end = code[pc++];
        let n = rec;
        if (ri >= 0) { const v = countRuleAt(ri)(m, c, t, env); if (v !== undefined) n = v - other; }
        if (n <= 0) { pc = end; continue; }
        (f.loops ?? (f.loops = [])).push(n);
        continue;
      }
      if (op === P_LOOP) {
        const start = code[pc++];
        const loops = f.loops!;
        const left = loops[loops.length - 1] - 1;
        if (left > 0) { loops[loops.length - 1] = left; pc = start; } else loops.pop();
        continue;
      }
      if (op === P_SUB) {
        // callees compiled on their first run (paths/compile.ts): run in place, as a frame of their own
        const p = chunkCode(code[pc++]);
        f.pc = pc;
        pushPath(ks, p, env);
        break;
      }
      if (op === P_MODEL) {
        const p = modelPath(m, c, t, env, modelKeyNames[code[pc++]]);
        if (p === null) continue;
        f.pc = pc;
        pushPath(ks, p, env);
        break;
      }
      if (op === P_END) {
        frames.pop();
        const parentEnv = frames.length ? frames[frames.length - 1].env : null;
        if (parentEnv && parentEnv !== env) parentEnv.rv = env.rv;
        break;
      }
      throw new Error(`bad kernel path opcode ${op} in ${f.path.name}`);
    }
  }
}
let schedulePath: CompiledPath | null = null;

/** Run a path to completion on an interrupt stack (no sleeping). */
export function runSync(m: MachineCore, c: Cpu, ks: KStack, name: string, env: Env): void {
  const base = ks.frames.length;
  pushPath(ks, name, env);
  const t = c.ctx.task as Task;
  const saved = c.ks;
  c.ks = ks;
  while (ks.frames.length > base) {
    const r = interp(m, c, ks, t, Infinity, base);
    if (r === RS_DONE) break;
    if (r !== RS_BUDGET) throw new Error(`path ${name} tried to sleep in atomic context`);
  }
  c.ks = saved;
}

/** Names of the functions currently on a kernel stack, outermost first (for tests / backtraces). */
export function stackNames(ks: KStack): string[] {
  const out: string[] = [];
  for (let i = 0; i < ks.sp; i++) out.push(symbolName(ks.fn[i]));
  return out;
}
