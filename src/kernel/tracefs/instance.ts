/**
 * One trace instance's machinery (the top /sys/kernel/tracing or instances/NAME): its trace
 * array, tracers (nop, function, function_graph; blk and mmiotrace select without a device),
 * function filters and probes, event files, and the readers of its buffer (trace, trace_pipe,
 * per_cpu/cpuN/trace, trace_pipe_raw).
 */
import { CpuContext } from '../current';
import { EBUSY, EINVAL } from '../errno';
import { ftraceUpdateHashes, setFtracePids } from '../ftrace';
import { TraceEvent, traceEvents } from '../tracepoint';
import { TraceArray, TracefsHost } from './trace_array';
import { FunctionTracer, FunctionProbes, FilterHashes, ProbeActions } from './trace_functions';
import { GraphTracer, GraphOutput, GraphGlobals } from './trace_functions_graph';
import { EventFile, EventsHost } from './events';
import { TraceIter, TracerOutput } from './trace_iter';
import { OutputRegistry } from './trace_output';
import { SavedCmdlines } from './saved_cmdlines';

export const TRACERS = ['blk', 'mmiotrace', 'function_graph', 'function', 'nop'];
/** tracers an instance may use (struct tracer allow_instances) */
export const INSTANCE_TRACERS = ['function', 'nop'];
/** TRACE_BUF_SIZE_DEFAULT */
export const TRACE_BUF_SIZE_DEFAULT = 1441792;

/** Tracer-specific options (tracer_flags) in their trace_options order, with defaults. */
export const TRACER_OPTIONS: Record<string, readonly [string, boolean][]> = {
  nop: [['test_nop_accept', false], ['test_nop_refuse', false]],
  function: [['func_stack_trace', false], ['func-no-repeats', false]],
  blk: [['blk_classic', false], ['blk_cgroup', false], ['blk_cgname', false]],
  mmiotrace: [],
};

/** Shared state the instances use (the Tracefs object). */
export interface InstanceEnv {
  host: TracefsHost;
  cmdlines: SavedCmdlines;
  out: OutputRegistry;
  graph: GraphGlobals;
  /** tracer option values (global: tracer_flags are per tracer) */
  tracerOpts: Map<string, boolean>;
  /** cmdline recording users changed */
  cmdlineUsers(delta: number): void;
  /** a record was committed on a CPU */
  committed(cpu: number): void;
  /** the event files' triggers and probes' actions */
  eventsHost(inst: Instance): EventsHost;
  probeActions(inst: Instance): ProbeActions;
  /** the graph tracer may not start while the profiler owns the graph hooks */
  graphBusy(): boolean;
  /** kprobe/uprobe events in creation order (on tr->events after the static ones) */
  dynamicEvents(): readonly TraceEvent[];
}

export class Instance {
  readonly tr: TraceArray;
  readonly hashes: FilterHashes;
  readonly fn: FunctionTracer;
  readonly graph: GraphTracer | null;
  readonly graphOut: GraphOutput | null;
  readonly probes: FunctionProbes;
  private readonly files = new Map<number, EventFile>();
  /** trace_pipe readers (tr->trace_ref) */
  pipeReaders = 0;
  private waiters: (() => void)[] = [];

  constructor(readonly name: string, readonly env: InstanceEnv, hashes: FilterHashes) {
    const top = name === '';
    this.tr = new TraceArray(name, env.host, top, !top);
    this.hashes = hashes;
    this.tr.buffer.resizeBytes(top ? 1 : TRACE_BUF_SIZE_DEFAULT);
    this.fn = new FunctionTracer(this.tr, hashes, (ctx) => env.host.kernelStack(ctx));
    this.graph = top ? new GraphTracer(this.tr, env.graph, hashes) : null;
    this.graphOut = top ? new GraphOutput(env.graph.opts) : null;
    this.probes = new FunctionProbes(this.tr, env.probeActions(this));
    this.tr.buffer.onWrite = null;
    this.tr.onCommit = (cpu) => env.committed(cpu);
  }

  /** ring buffer expanded to its default size on first use (ring_buffer_expanded) */
  expand(): void {
    if (this.tr.expanded) return;
    this.tr.expanded = true;
    this.tr.buffer.resizeBytes(TRACE_BUF_SIZE_DEFAULT);
  }

  /** buffer_size_kb of one CPU as the kernel reports it (the size in whole pages) */
  sizeKb(cpu: number): number {
    return this.tr.buffer.capacityOf(cpu) >> 10;
  }

  available(): string[] {
    return this.tr.top ? TRACERS : INSTANCE_TRACERS;
  }

  /** tracing_set_tracer() */
  setTracer(name: string): number {
    this.expand();
    if (name === this.tr.tracerName) return 0;
    if (!this.available().includes(name)) return -EINVAL;
    if (this.pipeReaders) return -EBUSY;
    if (name === 'function_graph' && this.env.graphBusy()) return -EBUSY;
    this.stopTracer();
    this.tr.reset();
    this.tr.tracerName = name;
    let r = 0;
    if (name === 'function') {
      this.fn.stackTrace = this.env.tracerOpts.get('func_stack_trace') === true;
      r = this.fn.start();
      if (r === 0) this.env.cmdlineUsers(1);
    } else if (name === 'function_graph' && this.graph) {
      r = this.graph.start();
      if (r === 0) this.env.cmdlineUsers(1);
    }
    if (r < 0) { this.tr.tracerName = 'nop'; return r; }
    return 0;
  }

  private stopTracer(): void {
    const old = this.tr.tracerName;
    if (old === 'function' && this.fn.isRunning) { this.fn.stop(); this.env.cmdlineUsers(-1); }
    if (old === 'function_graph' && this.graph) { this.graph.stop(); this.env.cmdlineUsers(-1); }
  }

  /** The current tracer's output hooks for a reader. */
  tracerOutput(): TracerOutput | undefined {
    return this.tr.tracerName === 'function_graph' && this.graphOut ? this.graphOut : undefined;
  }

  /** set_ftrace_filter / notrace changed */
  hashesChanged(): void {
    ftraceUpdateHashes();
  }

  /** set_ftrace_pid changed: the top instance's pids drive the ftrace PID ops check */
  pidsChanged(): void {
    if (this.tr.top) setFtracePids(this.tr.ftracePids);
  }

  /** The event file of an event in this instance (made on first use). */
  file(ev: TraceEvent): EventFile {
    let f = this.files.get(ev.id);
    if (!f) { f = new EventFile(this.tr, ev, this.env.eventsHost(this)); this.files.set(ev.id, f); }
    return f;
  }

  /** Event files in tr->events order: the latest registered first. */
  *eventFiles(all?: readonly TraceEvent[]): Generator<EventFile, void, void> {
    all ??= [...traceEvents(), ...this.env.dynamicEvents()];
    for (let i = all.length - 1; i >= 0; i--) {
      const ev = all[i];
      if (ev.system === 'ftrace') continue;
      yield this.file(ev);
    }
  }

  /** The event files made so far (the only ones that can be enabled). */
  madeFiles(): IterableIterator<EventFile> {
    return this.files.values();
  }

  /** enabled event files only (set_event) */
  enabledFiles(): EventFile[] {
    return [...this.files.values()].filter((f) => f.enabled && !(f.flags & 4)).sort((a, b) => b.ev.id - a.ev.id);
  }

  /** A reader of the buffer (a new trace_iterator). */
  reader(consuming: boolean, cpu?: number): TraceIter {
    return new TraceIter(this.tr, this.env.cmdlines, this.env.out, consuming, cpu, this.tracerOutput());
  }

  /** trace_pipe readers waiting for data */
  waitData(wake: () => void): () => void {
    this.waiters.push(wake);
    this.tr.buffer.onWrite = () => this.wakeAll();
    return () => { this.waiters = this.waiters.filter((w) => w !== wake); if (!this.waiters.length) this.tr.buffer.onWrite = null; };
  }

  private wakeAll(): void {
    const w = this.waiters;
    this.waiters = [];
    this.tr.buffer.onWrite = null;
    for (const f of w) f();
  }

  /** tracing_on changed to on: blocked readers re-check (and EOF when it went off) */
  kickReaders(): void {
    this.wakeAll();
  }

  /** trace_marker */
  mark(ctx: CpuContext, text: string, ip: number): number {
    if (!this.tr.opt('markers')) return -EINVAL;
    let t = text.length > 1024 ? text.slice(0, 1024) : text;
    if (!t.endsWith('\n')) t += '\n';
    if (!this.tr.tracingOn) return -EBADF;
    this.tr.tracePrint(ctx, ip, t);
    this.env.committed(ctx.cpu);
    return text.length;
  }
}

const EBADF = 9;
