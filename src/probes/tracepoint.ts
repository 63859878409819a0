/**
 * `kernel.trace("NAME")` / `kernel.trace("SYSTEM:NAME")` (both may glob): one ResolvedPoint per
 * trace event backed by a tracepoint, pp `kernel.trace("sched:sched_switch")`; `$args` are the
 * TP_PROTO parameters; registration with tracepoint_probe_register().
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { BuildRequest, Provider } from '../elaborate/probes';
import { suggest, renderComponents } from '../elaborate/util';
import { matchEvents, traceEvents, tracepointProbeRegister, tracepointProbeUnregister, tracepoint, TraceEvent } from '../kernel/tracepoint';
import { hasGlob } from '../kernel/kallsyms';
import { idleTask, CpuContext, TaskRef } from '../kernel/current';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import { deliver, entryValues } from './hit';
import { targetType, targetDefined, targetPointee, envFor, syscallExitEntry } from './targets';
import { btfTypeName } from '../kernel/btf';

export interface TracePointData {
  name: string;
  system: string;
}

/** Matches by pattern: the event table never changes (tp_syscall.* names "sys_enter" ~400 times). */
const matched = new Map<string, TraceEvent[]>();

function events(pattern: string): TraceEvent[] {
  let m = matched.get(pattern);
  if (!m) matched.set(pattern, (m = matchingEvents(pattern)));
  return m;
}

function matchingEvents(pattern: string): TraceEvent[] {
  const evs = matchEvents(pattern).filter((e) => e.tracepoint);
  const seen = new Set<string>();
  return evs.filter((e) => {
    const k = `${e.system}:${e.name}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  }).sort((a, b) => {
    const x = `${a.system}:${a.name}`;
    const y = `${b.system}:${b.name}`;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function build(req: BuildRequest): A.ResolvedPoint[] {
  const c = req.components[1];
  const pat = c.arg && c.arg.k === 'str' ? c.arg.value : '';
  const evs = events(pat);
  if (!evs.length) {
    const name = pat.includes(':') ? pat.slice(pat.indexOf(':') + 1) : pat;
    const sugg = hasGlob(name) ? '' : suggest(name, traceEvents().filter((e) => e.tracepoint).map((e) => e.name));
    throw new SemanticError(sugg ? `no match (similar tracepoints: ${sugg})` : 'no match', undefined, [], 'pp-no-match');
  }
  const rest = req.components.slice(2);
  const suffix = rest.length ? '.' + renderComponents(rest) : '';
  return evs.map((e) => ({
    family: 'kernel.trace',
    pp: `kernel.trace(${JSON.stringify(`${e.system}:${e.name}`)})${suffix}`,
    data: { name: e.name, system: e.system },
  }));
}

function vars(rp: A.ResolvedPoint): { name: string; type: string }[] {
  const env = envFor(rp);
  return env ? env.vars.map((v) => ({ name: '$' + v.name, type: btfTypeName(v.type, 'stap') })) : [];
}

export const tracepointProvider: Provider = {
  family: 'kernel.trace', build, vars, targetType, targetDefined, targetPointee, entryValid: syscallExitEntry,
};

/** The probe's handler has @entry expressions (only syscall return aliases on sys_exit can). */
function entryFns(p: RegisteredProbe): boolean {
  const fns = (p.handler as unknown as { entry?: unknown[] }).entry;
  return !!fns && fns.length > 0;
}

/** Runtime: the tracepoint probe receives TP_PROTO args; the CPU context is the machine's current one. */
export class TracepointFamily implements ProbeFamilyRuntime {
  family = 'kernel.trace';
  private regs: { name: string; fn: (data: unknown, ...args: unknown[]) => void; data: unknown }[] = [];
  private armed = false;
  /** Where the current CPU context comes from (the machine sets it; default: CPU 0 idle task). */
  constructor(private current: () => CpuContext = defaultCurrent) {}

  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    for (const p of probes) {
      const d = p.meta.data as unknown as TracePointData;
      const tp = { name: d.name, system: d.system };
      // @entry in a sys_exit-based return alias: evaluated at the task's sys_enter, like a
      // kretprobe's entry handler; a sys_exit without a recorded entry (the syscall was entered
      // before registration) is not delivered, as a kretprobe would not fire for it.
      const saved = d.name === 'sys_exit' && d.system === 'raw_syscalls' && entryFns(p)
        ? new WeakMap<TaskRef, unknown[] | undefined>() : null;
      const fn = (_data: unknown, ...args: unknown[]): void => {
        if (!this.armed) return;
        const ctx = this.current();
        let entry: unknown[] | undefined;
        if (saved) {
          if (!saved.has(ctx.task)) return;
          entry = saved.get(ctx.task);
          saved.delete(ctx.task);
        }
        deliver(engine, p, 'kernel_tracepoint', false, {
          regs: { ip: 0, parentIp: 0, args, retval: undefined }, cpuCtx: ctx, args, tp, fn: -1, addr: 0, entry,
        });
      };
      if (saved && tracepoint('sys_enter')) {
        const enterTp = { name: 'sys_enter', system: 'raw_syscalls' };
        const enter = (_data: unknown, ...args: unknown[]): void => {
          if (!this.armed || engine.state !== 'RUNNING') return;
          const ctx = this.current();
          saved.set(ctx.task, entryValues(engine, p, {
            regs: { ip: 0, parentIp: 0, args, retval: undefined }, cpuCtx: ctx, args, tp: enterTp, fn: -1, addr: 0,
          }));
        };
        if (!tracepointProbeRegister('sys_enter', enter, saved)) this.regs.push({ name: 'sys_enter', fn: enter, data: saved });
      }
      if (!tracepoint(d.name)) {
        engine.warn(`probe ${p.meta.pp} registration error [man warning::pass5] (rc -2)`);
        continue;
      }
      const rc = tracepointProbeRegister(d.name, fn, p);
      if (rc) engine.warn(`probe ${p.meta.pp} registration error [man warning::pass5] (rc ${rc})`);
      else this.regs.push({ name: d.name, fn, data: p });
    }
  }

  unregister(): void {
    this.armed = false;
    for (const r of this.regs) tracepointProbeUnregister(r.name, r.fn, r.data);
    this.regs = [];
  }
}

let currentCtx: (() => CpuContext) | null = null;
/** The machine installs the "current CPU context" source for tracepoint hits. */
export function setCurrentCpuContext(f: (() => CpuContext) | null): void {
  currentCtx = f;
}
function defaultCurrent(): CpuContext {
  return currentCtx ? currentCtx() : { cpu: 0, task: idleTask(0) };
}
/** The executing CPU's context (the machine's, else CPU 0's idle task): what a tracepoint hit sees. */
export function currentCpuContext(): CpuContext {
  return defaultCurrent();
}
