/**
 * The function profiler of Linux 6.1 (kernel/trace/ftrace.c, CONFIG_FUNCTION_PROFILER with
 * CONFIG_FUNCTION_GRAPH_TRACER): `function_profile_enabled` registers the graph hooks
 * (profile_graph_entry / profile_graph_return) and keeps per-CPU {hit, time, time²} records per
 * function; `trace_stat/functionN` shows them sorted by total time (function_stat_cmp), with the
 * graph duration printer for Time, Avg and s^2. Writing 1 (after 0) resets the statistics.
 * Options: graph-time (default on; off subtracts the time spent in children) and
 * `tracing_thresh` (rows whose average is below it are not shown).
 */
import { CpuContext } from './current';
import { FgraphOps, GraphEnt, GraphRet, registerFtraceGraph, unregisterFtraceGraph } from './fgraph';
import { lookupAddr, symbolName } from './kallsyms';

export interface ProfileRec { ip: number; counter: number; time: number; timeSquared: bigint }

/** trace_print_graph_duration(): integer µs, up to 7 digits with ns decimals, " us ", padding to 8. */
export function graphDuration(ns: number | bigint): string {
  const d = BigInt(ns);
  const us = (d / 1000n).toString();
  const rem = d % 1000n;
  let s = us;
  let len = us.length;
  if (len < 7) {
    const ns3 = rem.toString().padStart(3, '0').slice(0, Math.min(4, 8 - len) - 1);
    s += '.' + ns3;
    len += ns3.length + 1;
  }
  s += ' us ';
  for (let i = len; i < 8; i++) s += ' ';
  return s;
}

/** The profiler: one per kernel (function_profile_enabled is a top-level file). */
export class FunctionProfiler implements FgraphOps {
  /** per CPU: function ip -> record, in insertion order */
  readonly stats: Map<number, ProfileRec>[] = [];
  private enabled = false;
  /** per task: time spent in children of the functions on its stack (ret_stack[].subtime) */
  private readonly subtime = new WeakMap<object, number[]>();
  graphTime = true;
  constructor(private readonly clock: () => number, private readonly hashes?: { filterHash: Set<number>; notraceHash: Set<number> }) {}

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** echo 1 > function_profile_enabled: reset and start; 0, or -EBUSY when a graph user exists. */
  start(ncpus: number): number {
    if (this.enabled) return 0;
    this.stats.length = 0;
    for (let c = 0; c < ncpus; c++) this.stats.push(new Map());
    const r = registerFtraceGraph(this, this.clock, this.hashes);
    if (r < 0) return r;
    this.enabled = true;
    return 0;
  }

  /** echo 0 > function_profile_enabled (the statistics stay readable). */
  stop(): void {
    if (!this.enabled) return;
    unregisterFtraceGraph(this);
    this.enabled = false;
  }

  entryfunc(e: GraphEnt, ctx: CpuContext): boolean {
    const m = this.stats[ctx.cpu];
    if (!m) return false;
    let rec = m.get(e.func);
    if (!rec) { rec = { ip: e.func, counter: 0, time: 0, timeSquared: 0n }; m.set(e.func, rec); }
    rec.counter++;
    let st = this.subtime.get(ctx.task);
    if (!st) { st = []; this.subtime.set(ctx.task, st); }
    st.push(0);
    return true;
  }

  retfunc(g: GraphRet, ctx: CpuContext): void {
    const st = this.subtime.get(ctx.task);
    const child = st && st.length ? st.pop()! : 0;
    let t = g.rettime - g.calltime;
    // the parent's subtime accumulates this call's whole time (profile_graph_return)
    if (st && st.length) st[st.length - 1] += t;
    if (!this.graphTime) t = t > child ? t - child : 0;
    const rec = this.stats[ctx.cpu]?.get(g.func);
    if (!rec) return;
    rec.time += t;
    rec.timeSquared += BigInt(t) * BigInt(t);
  }

  /** trace_stat/function<cpu> contents; `thresh` = tracing_thresh in ns (0: all rows). */
  statText(cpu: number, thresh = 0): string {
    let s = '  Function                               Hit    Time            Avg             s^2\n' +
      '  --------                               ---    ----            ---             ---\n';
    const m = this.stats[cpu];
    if (!m) return s;
    // function_stat_cmp: descending total time; equal times keep the later record first
    const recs = [...m.values()].reverse().sort((a, b) => b.time - a.time);
    for (const rec of recs) {
      if (rec.counter === 0) continue;
      const avg = Math.floor(rec.time / rec.counter);
      if (thresh && avg < thresh) continue;
      const p = lookupAddr(rec.ip);
      const name = p ? symbolName(p.id) : rec.ip.toString(16);
      const n = BigInt(rec.counter);
      const denom = n * (n - 1n) * 1000n;
      let stddev = 0n;
      if (denom) {
        const mask = (1n << 64n) - 1n;
        const num = (n * rec.timeSquared - BigInt(rec.time) * BigInt(rec.time)) & mask;
        stddev = num / denom;
      }
      s += `  ${name.slice(0, 30).padEnd(30)}  ${String(rec.counter).padStart(10)}    ` +
        `${graphDuration(rec.time)}    ${graphDuration(avg)}    ${graphDuration(stddev)}\n`;
    }
    return s;
  }
}
