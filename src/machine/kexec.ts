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
import { kenter, kleave, siteState } from '../kernel/ftrace';
import { symbolAddr, symbolCount, symbolName } from '../kernel/kallsyms';
import { tracepoint, traceCall, tracepointProto } from '../kernel/tracepoint';
import { hash32 } from './prng';
import { genericArgs } from './args';
import { OP_END, OP_HOOK, OP_IF, OP_IFNOT, OP_RET, OP_TP, path, tpNames, hookNames, condNames, CompiledPath } from './paths/dsl';
import type { Machine, Cpu } from './machine';
import { Env, KStack, Task, TASK_RUNNING } from './task';

export type Hook = (m: Machine, c: Cpu, t: Task, e: Env) => number;
export type Cond = (m: Machine, c: Cpu, t: Task, e: Env) => boolean;
export type ArgBuilder = (m: Machine, c: Cpu, t: Task, e: Env) => unknown[];

/** hook results */
export const H_CONT = 0;
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
const hookByName = new Map<string, Hook>();
const condByName = new Map<string, Cond>();
const tpArgs = new Map<string, ArgBuilder>();
const fnArgsByName = new Map<string, ArgBuilder>();
let fnArgs: Map<number, ArgBuilder> | null = null;

export function defineHook(name: string, h: Hook): void {
  hookByName.set(name, h);
}
export function defineCond(name: string, c: Cond): void {
  condByName.set(name, c);
}
/** Argument builder for a tracepoint (TP_PROTO order). */
export function defineTpArgs(name: string, b: ArgBuilder): void {
  tpArgs.set(name, b);
}
/** Argument builder for a kernel function (for probes reading $args). */
export function defineFnArgs(fnName: string, b: ArgBuilder): void {
  fnArgsByName.set(fnName, b);
  fnArgs = null;
}
export function hookDefined(name: string): boolean {
  return hookByName.has(name);
}
export function condDefined(name: string): boolean {
  return condByName.has(name);
}

function hookAt(i: number): Hook {
  let h = hooks[i];
  if (!h) {
    h = hookByName.get(hookNames[i]);
    if (!h) throw new Error(`kernel path hook %${hookNames[i]} is not defined`);
    hooks[i] = h;
  }
  return h;
}
function condAt(i: number): Cond {
  let c = conds[i];
  if (!c) {
    c = condByName.get(condNames[i]);
    if (!c) throw new Error(`kernel path condition ?${condNames[i]} is not defined`);
    conds[i] = c;
  }
  return c;
}

let costs: Uint16Array | null = null;
/** Simulated cost in ns of one function's own work (deterministic per function). */
export function fnCosts(): Uint16Array {
  if (costs) return costs;
  const n = symbolCount();
  costs = new Uint16Array(n);
  for (let i = 0; i < n; i++) costs[i] = 18 + (hash32(i + 7) % 110);
  return costs;
}

function argsOf(m: Machine, c: Cpu, t: Task, e: Env, fn: number): unknown[] {
  if (!fnArgs) {
    fnArgs = new Map();
    for (const [n, b] of fnArgsByName) {
      const id = (require('../kernel/ftrace') as typeof import('../kernel/ftrace')).functionId(n);
      if (id >= 0) fnArgs.set(id, b);
    }
  }
  const b = fnArgs.get(fn) ?? genericArgs(fn);
  return b ? b(m, c, t, e) : [];
}

const protoNames = new Map<string, string[]>();
function fireTp(m: Machine, c: Cpu, t: Task, e: Env, idx: number): void {
  const full = tpNames[idx];
  const colon = full.indexOf(':');
  const name = colon >= 0 ? full.slice(colon + 1) : full;
  const tp = tracepoint(name);
  if (!tp || !tp.enabled) return;
  const b = tpArgs.get(name);
  let args: unknown[];
  if (b) args = b(m, c, t, e);
  else {
    // generic: TP_PROTO parameter names looked up in the path environment
    let names = protoNames.get(name);
    if (!names) {
      names = (tracepointProto(name) ?? []).map((p) => p.name);
      protoNames.set(name, names);
    }
    args = names.map((n) => (e[n] !== undefined ? e[n] : n === 'task' || n === 'p' || n === 'tsk' ? t : 0));
  }
  traceCall(tp, ...args);
}

/** Fire a tracepoint from TS code (for events raised outside a template, e.g. by hooks). */
export function fireTracepoint(name: string, args: unknown[]): void {
  const tp = tracepoint(name);
  if (tp && tp.enabled) traceCall(tp, ...args);
}

/** Push a path onto a kernel stack. */
export function pushPath(ks: KStack, name: string | CompiledPath, env: Env): void {
  const p = typeof name === 'string' ? path(name) : name;
  ks.frames.push({ code: p.code, pc: 0, env, path: p });
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
export function interp(m: Machine, c: Cpu, ks: KStack, t: Task, until: number, base = 0): number {
  const cost = costs ?? fnCosts();
  const fnS = ks.fn;
  const mkS = ks.mark;
  const ctx = c.ctx;
  for (;;) {
    const frames = ks.frames;
    if (frames.length <= base) return R_DONE;
    const f = frames[frames.length - 1];
    const code = f.code;
    let pc = f.pc;
    let sp = ks.sp;
    let now = m.now;
    for (;;) {
      const op = code[pc++];
      if (op >= 0) {
        fnS[sp] = op;
        if (siteState[op] === 0) mkS[sp] = -1;
        else {
          m.now = now;
          const parent = sp > 0 ? symbolAddr(fnS[sp - 1]) + 9 : 0;
          mkS[sp] = kenter(op, ctx, argsOf(m, c, t, f.env, op), parent);
        }
        sp++;
        m.kcalls++;
        now += cost[op];
        if (now >= until) {
          m.now = now; f.pc = pc; ks.sp = sp;
          return R_BUDGET;
        }
        continue;
      }
      if (op === OP_RET) {
        sp--;
        const mk = mkS[sp];
        if (mk >= 0) { m.now = now; kleave(fnS[sp], ctx, f.env.rv, mk); }
        continue;
      }
      m.now = now;
      ks.sp = sp;
      if (op === OP_TP) {
        fireTp(m, c, t, f.env, code[pc++]);
        now = m.now;
        continue;
      }
      if (op === OP_IF || op === OP_IFNOT) {
        const ci = code[pc++];
        const target = code[pc++];
        const v = condAt(ci)(m, c, t, f.env);
        if (v !== (op === OP_IF)) pc = target;
        continue;
      }
      if (op === OP_HOOK) {
        const at = pc - 1;
        const hi = code[pc++];
        f.pc = pc;
        const r = hookAt(hi)(m, c, t, f.env);
        now = m.now;
        if (r === H_CONT) continue;
        if (r === H_PUSHED) break;
        if (r === H_AGAIN) {
          // the pushed frames sit above this one; re-run the hook when they are done
          f.pc = at;
          break;
        }
        if (r === H_SLEEP) {
          f.pc = at; // re-run after wakeup
          pushPath(ks, 'schedule', f.env);
          break;
        }
        if (r === H_SWITCHED) return R_SWITCH;
        if (r === H_IDLE) { f.pc = at; return R_IDLE; }
        throw new Error(`hook %${hookNames[hi]} returned ${r}`);
      }
      if (op === OP_END) {
        frames.pop();
        const parentEnv = frames.length ? frames[frames.length - 1].env : null;
        if (parentEnv && parentEnv !== f.env) parentEnv.rv = f.env.rv;
        break;
      }
      throw new Error(`bad kernel path opcode ${op} in ${f.path.name}`);
    }
  }
}

/** Run a path to completion on an interrupt stack (no sleeping). */
export function runSync(m: Machine, c: Cpu, ks: KStack, name: string, env: Env): void {
  const base = ks.frames.length;
  pushPath(ks, name, env);
  const t = c.ctx.task as Task;
  const saved = c.ks;
  c.ks = ks;
  while (ks.frames.length > base) {
    const r = interp(m, c, ks, t, Infinity, base);
    if (r === R_DONE) break;
    if (r !== R_BUDGET) throw new Error(`path ${name} tried to sleep in atomic context`);
  }
  c.ks = saved;
}

/** Names of the functions currently on a kernel stack, outermost first (for tests / backtraces). */
export function stackNames(ks: KStack): string[] {
  const out: string[] = [];
  for (let i = 0; i < ks.sp; i++) out.push(symbolName(ks.fn[i]));
  return out;
}

export { TASK_RUNNING };
