/**
 * The function_graph tracer (kernel/trace/trace_functions_graph.c of Linux 6.1): records
 * funcgraph_entry / funcgraph_exit (trace_graph_entry / trace_graph_return, or only the returns
 * longer than tracing_thresh), honouring set_graph_function / set_graph_notrace, max_graph_depth,
 * set_ftrace_pid and funcgraph-irqs; and prints them: the DURATION/FUNCTION CALLS header, leaf
 * calls `func();` (the entry immediately followed by its return on that CPU), nested
 * `func() {` ... `}` (with `} /* func *\/` when the entry was lost or funcgraph-tail is set),
 * duration marks, the CPU / TASK-PID / abstime / latency columns, context-switch banners,
 * `==========>` irq markers, and other events as `/* ... *\/` comments.
 */
import { CpuContext, TaskRef } from '../current';
import { FgraphOps, GraphEnt, GraphRet, registerFtraceGraph, unregisterFtraceGraph } from '../fgraph';
import { lookupAddr, symbolName, kallsymsLookupName } from '../kallsyms';
import { putI64 } from '../ring_buffer';
import { graphDuration } from '../ftrace_profile';
import { TraceArray, TRACE_GRAPH_ENT, TRACE_GRAPH_RET, TRACE_FN, TRACE_STACK, TRACE_PRINT } from './trace_array';
import { RecView, latFmt, traceFindMark, latencyHeader } from './trace_output';
import { TraceIter, TracerOutput } from './trace_iter';
import { FilterHashes } from './trace_functions';

/** funcgraph options (tracer_flags of function_graph) in their trace_options order */
export const GRAPH_OPTIONS: readonly [string, boolean][] = [
  ['funcgraph-overrun', false], ['funcgraph-cpu', true], ['funcgraph-overhead', true], ['funcgraph-proc', false],
  ['funcgraph-duration', true], ['funcgraph-abstime', false], ['funcgraph-irqs', true], ['funcgraph-tail', false],
  ['sleep-time', true], ['graph-time', true],
];

const FTRACE_RETFUNC_DEPTH = 50;

/** Global graph settings (files at the top level only). */
export interface GraphGlobals {
  /** set_graph_function / set_graph_notrace hashes (ips) */
  graphHash: Set<number>;
  graphNotrace: Set<number>;
  /** max_graph_depth (0: unlimited) */
  maxDepth: number;
  /** tracing_thresh in ns (0: off) */
  thresh: number;
  /** option values of the function_graph tracer */
  opts: Map<string, boolean>;
}

interface TaskGraph {
  /** TRACE_GRAPH_BIT: inside a set_graph_function function, entered at depth */
  graphDepth: number;
  /** TRACE_GRAPH_NOTRACE_BIT */
  notrace: boolean;
  /** TRACE_IRQ_BIT: the graph function was entered in a hardirq */
  irqBit: boolean;
}

let irqText: { start: number; end: number } | null = null;
function irqEntryText(): { start: number; end: number } {
  if (!irqText) {
    const s = kallsymsLookupName('__irqentry_text_start');
    const e = kallsymsLookupName('__irqentry_text_end');
    irqText = { start: s ?? 0, end: e ?? 0 };
  }
  return irqText;
}
function inIrqEntryText(addr: number): boolean {
  const t = irqEntryText();
  return addr >= t.start && addr < t.end;
}

export class GraphTracer implements FgraphOps {
  private readonly tasks = new WeakMap<TaskRef, TaskGraph>();
  private running = false;
  constructor(private readonly tr: TraceArray, private readonly g: GraphGlobals, private readonly hashes: FilterHashes) {}

  start(): number {
    if (this.running) return 0;
    const r = registerFtraceGraph(this, () => this.tr.now(), this.hashes);
    if (r < 0) return r;
    this.running = true;
    return 0;
  }

  stop(): void {
    if (!this.running) return;
    unregisterFtraceGraph(this);
    this.running = false;
  }

  private state(t: TaskRef): TaskGraph {
    let s = this.tasks.get(t);
    if (!s) { s = { graphDepth: -1, notrace: false, irqBit: false }; this.tasks.set(t, s); }
    return s;
  }

  /** trace_graph_entry() */
  entryfunc(e: GraphEnt, ctx: CpuContext): boolean {
    const tr = this.tr, g = this.g;
    const st = this.state(ctx.task);
    if (st.notrace) return false;
    if (g.graphNotrace.size && g.graphNotrace.has(e.func)) { st.notrace = true; return true; }
    if (!tr.ftraceTask(ctx.task)) return false;
    // ftrace_graph_ignore_func(): inside a graph function, or this is one (empty hash = all)
    let ok = st.graphDepth >= 0;
    if (!ok) {
      if (g.graphHash.size === 0) ok = true;
      else if (g.graphHash.has(e.func)) {
        ok = true;
        st.graphDepth = e.depth;
        st.irqBit = (ctx.context ?? 0) >= 2;
      }
    }
    if (!ok || (g.maxDepth && e.depth >= g.maxDepth)) return false;
    // ftrace_graph_ignore_irqs(): funcgraph-irqs off drops hardirq entries
    if (!g.opts.get('funcgraph-irqs') && !st.irqBit && (ctx.context ?? 0) >= 2) return false;
    if (g.thresh) return true;
    // prepare_ftrace_return()'s recursion lock disabled preemption; irqs-off is the saved state
    const dv = tr.reserve(ctx, TRACE_GRAPH_ENT, 24, 1, false);
    if (dv === null) return true;
    const off = tr.buffer.off;
    putI64(dv, off + 8, e.func);
    dv.setInt32(off + 16, e.depth, true);
    return true;
  }

  /** trace_graph_return() / trace_graph_thresh_return() */
  retfunc(r: GraphRet, ctx: CpuContext): void {
    const st = this.state(ctx.task);
    if (st.graphDepth >= 0 && r.depth === st.graphDepth) st.graphDepth = -1;
    if (st.notrace) {
      if (this.g.graphNotrace.has(r.func)) st.notrace = false;
      return;
    }
    if (this.g.thresh && r.rettime - r.calltime < this.g.thresh) return;
    const tr = this.tr;
    const dv = tr.reserve(ctx, TRACE_GRAPH_RET, 40, 0, false);
    if (dv === null) return;
    const off = tr.buffer.off;
    putI64(dv, off + 8, r.func);
    dv.setInt32(off + 16, r.depth, true);
    dv.setUint32(off + 20, r.overrun, true);
    putI64(dv, off + 24, r.calltime);
    putI64(dv, off + 32, r.rettime);
  }
}

// ---------------------------------------------------------------- output

interface CpuData { lastPid: number; depth: number; depthIrq: number; enter: number[] }
interface GraphData { cpu: Map<number, CpuData> }

function cpuData(it: TraceIter, cpu: number): CpuData {
  const d = it.priv as GraphData;
  let c = d.cpu.get(cpu);
  if (!c) { c = { lastPid: -1, depth: 0, depthIrq: -1, enter: new Array<number>(FTRACE_RETFUNC_DEPTH).fill(0) }; d.cpu.set(cpu, c); }
  return c;
}

function ps(ip: number): string {
  const p = lookupAddr(ip);
  return p ? symbolName(p.id) : `0x${BigInt.asUintN(64, BigInt(ip)).toString(16)}`;
}

/** The function_graph tracer's output hooks. */
export class GraphOutput implements TracerOutput {
  constructor(private readonly opts: Map<string, boolean>) {}

  private f(name: string): boolean {
    return this.opts.get(name) === true;
  }

  open(it: TraceIter): void {
    it.priv = { cpu: new Map() } as GraphData;
  }

  printHeader(it: TraceIter): string {
    const tr = it.tr;
    if (!tr.opt('context-info')) return '';
    let s = '';
    const lat = tr.opt('latency-format');
    if (lat) {
      if (tr.buffer.empty(it.cpus)) return '';
      s += latencyHeader(tr, it.cpus);
      let size = 0;
      if (this.f('funcgraph-abstime')) size += 16;
      if (this.f('funcgraph-cpu')) size += 4;
      if (this.f('funcgraph-proc')) size += 17;
      const sp = ' '.repeat(size);
      s += `#${sp}  _-----=> irqs-off        \n#${sp} / _----=> need-resched    \n#${sp}| / _---=> hardirq/softirq \n` +
        `#${sp}|| / _--=> preempt-depth   \n#${sp}||| /                      \n`;
    }
    s += '#';
    if (this.f('funcgraph-abstime')) s += '     TIME       ';
    if (this.f('funcgraph-cpu')) s += ' CPU';
    if (this.f('funcgraph-proc')) s += '  TASK/PID       ';
    if (lat) s += '||||   ';
    if (this.f('funcgraph-duration')) s += '  DURATION   ';
    s += '               FUNCTION CALLS\n#';
    if (this.f('funcgraph-abstime')) s += '      |         ';
    if (this.f('funcgraph-cpu')) s += ' |  ';
    if (this.f('funcgraph-proc')) s += '   |    |        ';
    if (lat) s += '||||   ';
    if (this.f('funcgraph-duration')) s += '   |   |      ';
    return s + '               |   |   |   |\n';
  }

  printLine(it: TraceIter, r: RecView): string | null {
    switch (r.type) {
      case TRACE_GRAPH_ENT: return this.entry(it, r);
      case TRACE_GRAPH_RET: return this.ret(it, r);
      case TRACE_STACK: case TRACE_FN: return null;
      default: return this.comment(it, r);
    }
  }

  private cpuCol(it: TraceIter, cpu: number): string {
    const w = String(Math.max(0, it.tr.host.ncpus - 1)).length;
    return ` ${String(cpu).padStart(w)}) `;
  }

  private proc(it: TraceIter, pid: number): string {
    const comm = it.cmdlines.find(pid).slice(0, 7);
    const txt = `${comm}-${pid}`;
    const spaces = Math.max(0, 14 - txt.length);
    return ' '.repeat(spaces >> 1) + txt + ' '.repeat(spaces - (spaces >> 1));
  }

  private prologue(it: TraceIter, r: RecView, irqType: number, addr: number): string {
    let s = '';
    const d = cpuData(it, r.cpu);
    const pid = r.pid;
    if (d.lastPid !== pid) {
      const prev = d.lastPid;
      d.lastPid = pid;
      if (prev !== -1) {
        s += ' ------------------------------------------\n' + this.cpuCol(it, r.cpu) + this.proc(it, prev) + ' => ' +
          this.proc(it, pid) + '\n ------------------------------------------\n\n';
      }
    }
    if (irqType) s += this.irq(it, r, addr, irqType, pid);
    return s + this.columns(it, r, pid);
  }

  private columns(it: TraceIter, r: RecView, pid: number): string {
    if (!it.tr.opt('context-info')) return '';
    let s = '';
    if (this.f('funcgraph-abstime')) {
      const secs = Math.floor(r.ts / 1e9);
      s += `${String(secs).padStart(5)}.${String(Math.floor((r.ts - secs * 1e9) / 1000)).padStart(6, '0')} |  `;
    }
    if (this.f('funcgraph-cpu')) s += this.cpuCol(it, r.cpu);
    if (this.f('funcgraph-proc')) s += this.proc(it, pid) + ' | ';
    if (it.tr.opt('latency-format')) s += ' ' + latFmt(r.flags, r.pc) + ' | ';
    return s;
  }

  private duration(it: TraceIter, ns: number | null, fill: 'full' | 'start' | 'end' | null): string {
    if (!this.f('funcgraph-duration') || !it.tr.opt('context-info')) return '';
    if (fill === 'full') return '              |  ';
    if (fill === 'start') return '  ';
    if (fill === 'end') return ' |';
    const d = ns ?? 0;
    return (this.f('funcgraph-overhead') ? `${traceFindMark(d)} ` : '  ') + graphDuration(d) + '|  ';
  }

  private irq(it: TraceIter, r: RecView, addr: number, type: number, pid: number): string {
    if (!inIrqEntryText(addr)) return '';
    return this.columns(it, r, pid) + this.duration(it, null, 'start') +
      (type === TRACE_GRAPH_ENT ? '==========>' : '<==========') + this.duration(it, null, 'end') + '\n';
  }

  private entry(it: TraceIter, r: RecView): string {
    const func = r.i64(8), depth = r.i32(16), pid = r.pid, cpu = r.cpu;
    const d = cpuData(it, cpu);
    // check_irq_entry(): funcgraph-irqs off hides the irq subtree
    if (!this.f('funcgraph-irqs')) {
      if (d.depthIrq >= 0) return '';
      if (inIrqEntryText(func)) { d.depthIrq = depth; return ''; }
    }
    let s = this.prologue(it, r, TRACE_GRAPH_ENT, func);
    const next = it.peekCpu(cpu);
    let leaf = false, dur = 0;
    if (next) {
      const dv = next.dv, o = next.off;
      if (dv.getUint16(o, true) === TRACE_GRAPH_RET && dv.getInt32(o + 4, true) === pid &&
        dv.getInt32(o + 12, true) * 4294967296 + dv.getUint32(o + 8, true) === func) {
        leaf = true;
        dur = (dv.getInt32(o + 36, true) * 4294967296 + dv.getUint32(o + 32, true)) - (dv.getInt32(o + 28, true) * 4294967296 + dv.getUint32(o + 24, true));
        it.skipCpu(cpu);
      }
    }
    const indent = ' '.repeat(Math.max(0, depth) * 2);
    if (leaf) {
      d.depth = depth - 1;
      if (depth >= 0 && depth < FTRACE_RETFUNC_DEPTH) d.enter[depth] = 0;
      s += this.duration(it, dur, null) + `${indent}${ps(func)}();\n`;
      s += this.irq(it, r, func, TRACE_GRAPH_RET, pid);
      return s;
    }
    d.depth = depth;
    if (depth >= 0 && depth < FTRACE_RETFUNC_DEPTH) d.enter[depth] = func;
    return s + this.duration(it, null, 'full') + `${indent}${ps(func)}() {\n`;
  }

  private ret(it: TraceIter, r: RecView): string {
    const func = r.i64(8), depth = r.i32(16), overrun = r.u32(20);
    const dur = r.i64(32) - r.i64(24);
    const d = cpuData(it, r.cpu);
    if (!this.f('funcgraph-irqs') && d.depthIrq !== -1) {
      if (d.depthIrq >= depth) d.depthIrq = -1;
      return '';
    }
    d.depth = depth - 1;
    let match = true;
    if (depth >= 0 && depth < FTRACE_RETFUNC_DEPTH) {
      if (d.enter[depth] !== func) match = false;
      d.enter[depth] = 0;
    }
    let s = this.prologue(it, r, 0, 0) + this.duration(it, dur, null) + ' '.repeat(Math.max(0, depth) * 2);
    s += match && !this.f('funcgraph-tail') ? '}\n' : `} /* ${ps(func)} */\n`;
    if (this.f('funcgraph-overrun')) s += ` (Overruns: ${overrun})\n`;
    s += this.irq(it, r, func, TRACE_GRAPH_RET, r.pid);
    return s;
  }

  /** print_graph_comment(): another record at depth + 1 as a C comment. */
  private comment(it: TraceIter, r: RecView): string | null {
    const p = it.out.get(r.type);
    if (!p) return null;
    const depth = cpuData(it, r.cpu).depth;
    let s = this.prologue(it, r, 0, 0) + this.duration(it, null, 'full');
    if (depth > 0) s += ' '.repeat((depth + 1) * 2);
    let body: string;
    if (r.type === TRACE_PRINT) body = r.str(16, r.len - 16);
    else body = p.trace(r, it);
    if (body.endsWith('\n')) body = body.slice(0, -1);
    return s + '/* ' + body + ' */\n';
  }
}
