/**
 * The function tracer (kernel/trace/trace_functions.c of Linux 6.1) and the function probes of
 * set_ftrace_filter (`func:traceon[:N]`, `traceoff`, `stacktrace`, `snapshot`, `enable_event`,
 * `disable_event`, `dump`, `cpudump`): tr->ops (function_trace_call, or
 * function_stack_trace_call with the func_stack_trace option) shares the instance's
 * set_ftrace_filter / set_ftrace_notrace hashes (for the top instance: global_ops, whose hashes
 * graph_ops also uses); the probes have one ops of their own per trace array, filtered to the
 * functions they were set on.
 */
import { CpuContext } from '../current';
import {
  FtraceOps, FTRACE_OPS_FL_PID, FTRACE_OPS_FL_INITIALIZED, registerFtraceFunction, unregisterFtraceFunction,
  ftraceTraceFunction, ftraceTestRecursionTrylock, ftraceTestRecursionUnlock, TRACE_FTRACE_START, ftraceUpdateHashes,
} from '../ftrace';
import { lookupAddr, symbolName } from '../kallsyms';
import { TraceArray } from './trace_array';
import { FtraceHash } from '../ftrace_hash';

/** The hashes an instance's set_ftrace_filter / set_ftrace_notrace edit. */
export interface FilterHashes { filterHash: Set<number>; notraceHash: Set<number> }

export class FunctionTracer {
  readonly ops: FtraceOps;
  /** func_stack_trace (a tracer option of "function") */
  stackTrace = false;
  private running = false;
  constructor(private readonly tr: TraceArray, hashes: FilterHashes, private readonly stackOf: (ctx: CpuContext) => number[]) {
    this.ops = new FtraceOps(tr.top ? 'global_ops' : 'trace_ops', (ip, parentIp, _op, _regs, ctx) => this.call(ip, parentIp, ctx),
      FTRACE_OPS_FL_PID | FTRACE_OPS_FL_INITIALIZED, 'function_trace_call', hashes);
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): number {
    if (this.running) return 0;
    const r = registerFtraceFunction(this.ops);
    if (r < 0) return r;
    this.running = true;
    return 0;
  }

  stop(): void {
    if (!this.running) return;
    unregisterFtraceFunction(this.ops);
    this.running = false;
  }

  private call(ip: number, parentIp: number, ctx: CpuContext): void {
    const tr = this.tr;
    if (!tr.opt('function-trace') || !tr.ftraceTask(ctx.task)) return;
    // reached through ftrace_ops_list_func: its recursion lock disabled preemption once more
    const viaList = ftraceTraceFunction() === 'ftrace_ops_list_func' ? 1 : 0;
    if (this.stackTrace) {
      // function_stack_trace_call(): local_irq_save, no recursion lock
      if (!tr.buffer.recordOn) return;
      const dv = tr.reserve(ctx, 1, 24, viaList, true);
      if (dv === null) return;
      const off = tr.buffer.off;
      writeAddr(dv, off + 8, ip);
      writeAddr(dv, off + 16, parentIp);
      tr.traceStack({ ...ctx, irqsOff: true }, this.stackOf(ctx), viaList);
      return;
    }
    const bit = ftraceTestRecursionTrylock(ctx, TRACE_FTRACE_START);
    if (bit < 0) return;
    tr.traceFunction(ctx, ip, parentIp, viaList);
    ftraceTestRecursionUnlock(ctx, bit);
  }
}

function writeAddr(dv: DataView, off: number, v: number): void {
  const hi = Math.floor(v / 4294967296);
  dv.setUint32(off, v - hi * 4294967296, true);
  dv.setInt32(off + 4, hi, true);
}

// ---------------------------------------------------------------- function probes (commands)

export type ProbeCmd = 'traceon' | 'traceoff' | 'stacktrace' | 'snapshot' | 'enable_event' | 'disable_event' | 'dump' | 'cpudump';
export const PROBE_CMDS: readonly string[] = ['traceon', 'traceoff', 'stacktrace', 'snapshot', 'enable_event', 'disable_event', 'dump', 'cpudump'];

interface FuncProbe {
  cmd: ProbeCmd;
  /** the count_probe_ops variant (a count was given): its own probe, printed with ":count=N" */
  counted: boolean;
  /** enable_event / disable_event target "sys:event" */
  event?: string;
  /** the probe's filter hash (printed in bucket order) */
  hash: FtraceHash;
  /** per function ip: the remaining count (-1 = unlimited) */
  counts: Map<number, number>;
}

/** What the probes act on (the trace array's owner provides these). */
export interface ProbeActions {
  stack(ctx: CpuContext): void;
  snapshot(): void;
  /** soft-enable/disable an event: true when its state changed */
  setEvent(event: string, on: boolean): boolean;
  dump(all: boolean): void;
}

/** The ftrace_func_probe list of a trace array (newest probe first), with their ops. */
export class FunctionProbes {
  private readonly probes: FuncProbe[] = [];
  private readonly ops: FtraceOps;
  private registered = false;
  constructor(private readonly tr: TraceArray, private readonly act: ProbeActions) {
    this.ops = new FtraceOps('probe_ops', (ip, _p, _o, _r, ctx) => this.hit(ip, ctx), FTRACE_OPS_FL_INITIALIZED, 'function_trace_probe_call');
  }

  private hit(ip: number, ctx: CpuContext): void {
    for (const p of this.probes) {
      const left = p.counts.get(ip);
      if (left === undefined || left === 0) continue;
      let changed = true;
      switch (p.cmd) {
        case 'traceon': changed = !this.tr.tracingOn; if (changed) this.tr.tracingOn = true; break;
        case 'traceoff': changed = this.tr.tracingOn; if (changed) this.tr.tracingOn = false; break;
        case 'stacktrace': this.act.stack(ctx); break;
        case 'snapshot': this.act.snapshot(); break;
        case 'enable_event': changed = this.act.setEvent(p.event ?? '', true); break;
        case 'disable_event': changed = this.act.setEvent(p.event ?? '', false); break;
        case 'dump': case 'cpudump': this.act.dump(p.cmd === 'dump'); break;
      }
      if (left > 0 && changed) p.counts.set(ip, left - 1);
    }
  }

  /**
   * register_ftrace_function_probe(): `cmd` (counted when count >= 0) on the records `ips`
   * (in record order, as ftrace_match_records() found them). Returns the number added.
   */
  add(cmd: ProbeCmd, ips: readonly number[], count: number, event?: string): number {
    const counted = count >= 0;
    let p = this.probes.find((x) => x.cmd === cmd && x.counted === counted && x.event === event);
    if (!p) { p = { cmd, counted, event, hash: new FtraceHash(0), counts: new Map() }; this.probes.unshift(p); }
    const work = p.hash.copy();
    let n = 0;
    for (const ip of ips) { if (!p.counts.has(ip)) n++; p.counts.set(ip, counted ? count : -1); work.add(ip); }
    p.hash = work.moved();
    this.sync();
    return n;
  }

  /** unregister_ftrace_function_probe_func(): remove cmd from these functions. */
  remove(cmd: ProbeCmd, ips: readonly number[], event?: string): number {
    let n = 0;
    for (const p of [...this.probes]) {
      if (p.cmd !== cmd || (event !== undefined && p.event !== event)) continue;
      const work = p.hash.copy();
      for (const ip of ips) if (p.counts.delete(ip)) { n++; work.remove(ip); }
      p.hash = work.moved();
      if (p.counts.size === 0) this.probes.splice(this.probes.indexOf(p), 1);
    }
    this.sync();
    return n;
  }

  clear(): void {
    this.probes.length = 0;
    this.sync();
  }

  private sync(): void {
    this.ops.filterHash.clear();
    for (const q of this.probes) for (const ip of q.counts.keys()) this.ops.filterHash.add(ip);
    const want = this.ops.filterHash.size > 0;
    if (want && !this.registered) { registerFtraceFunction(this.ops); this.registered = true; } else if (!want && this.registered) {
      unregisterFtraceFunction(this.ops);
      this.registered = false;
    } else if (this.registered) ftraceUpdateHashes();
  }

  /** t_probe_show() lines: "func:cmd:unlimited" / ":count=N" (enable_event: "func:enable_event:sys:ev:...") */
  lines(): string[] {
    const out: string[] = [];
    for (const p of this.probes) {
      for (const ip of p.hash.entries()) {
        const count = p.counts.get(ip) ?? -1;
        const pos = lookupAddr(ip);
        const name = pos ? symbolName(pos.id) : ip.toString(16);
        const tail = !p.counted || count < 0 ? ':unlimited' : `:count=${count}`;
        if (p.cmd === 'enable_event' || p.cmd === 'disable_event') out.push(`${name}:${p.cmd}:${p.event}${tail}`);
        else out.push(`${name}:${p.cmd}${tail}`);
      }
    }
    return out;
  }
}
