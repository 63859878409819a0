/**
 * struct trace_array (kernel/trace/trace.c of Linux 6.1): one tracing instance — the top one at
 * /sys/kernel/tracing and each instances/NAME — with its ring buffer, trace options, current
 * tracer, trace clock, tracing_on, pid lists, and the record writers every tracer and event uses
 * (struct trace_entry header + the entry of trace_entries.h).
 */
import { CpuContext, TaskRef } from '../current';
import { RingBuffer, putI64 } from '../ring_buffer';

// trace_entries.h types (enum trace_type)
export const TRACE_FN = 1, TRACE_CTX = 2, TRACE_WAKE = 3, TRACE_STACK = 4, TRACE_PRINT = 5, TRACE_BPRINT = 6,
  TRACE_GRAPH_RET = 10, TRACE_GRAPH_ENT = 11, TRACE_USER_STACK = 12, TRACE_BPUTS = 14, TRACE_RAW_DATA = 18;

// trace_entry.flags (enum trace_flag_type)
export const TRACE_FLAG_IRQS_OFF = 0x01, TRACE_FLAG_NEED_RESCHED = 0x04, TRACE_FLAG_HARDIRQ = 0x08,
  TRACE_FLAG_SOFTIRQ = 0x10, TRACE_FLAG_PREEMPT_RESCHED = 0x20, TRACE_FLAG_NMI = 0x40, TRACE_FLAG_BH_OFF = 0x80;

/** FTRACE_STACK_ENTRIES: frames kept in a kernel_stack record */
export const FTRACE_STACK_ENTRIES = 8;

/** What the machine gives the tracing subsystem. */
export interface TracefsHost {
  /** the trace clock (local = sched_clock): ns since boot */
  clock(): number;
  /** possible (= online) CPUs */
  ncpus: number;
  /** the CPU context executing right now (tracepoint probes get no context of their own) */
  current(): CpuContext;
  /** kernel return addresses of a CPU's stack, innermost first (stack traces) */
  kernelStack(ctx: CpuContext): number[];
  /** a task by pid (set_ftrace_pid / saved_tgids) */
  task(pid: number): TaskRef | undefined;
  /** every live task's pid (set_event_pid "function-fork" style listings) */
  need_resched?(cpu: number): boolean;
}

/** trace options (trace_options / options/) in TRACE_FLAGS order, with their defaults */
export const TRACE_OPTIONS: readonly [string, boolean][] = [
  ['print-parent', true], ['sym-offset', false], ['sym-addr', false], ['verbose', false], ['raw', false], ['hex', false],
  ['bin', false], ['block', false], ['trace_printk', true], ['annotate', true], ['userstacktrace', false], ['sym-userobj', false],
  ['printk-msg-only', false], ['context-info', true], ['latency-format', false], ['record-cmd', true], ['record-tgid', false],
  ['overwrite', true], ['disable_on_free', false], ['irq-info', true], ['markers', true], ['event-fork', false],
  ['pause-on-trace', false], ['hash-ptr', true], ['function-trace', true], ['function-fork', false], ['display-graph', false],
  ['stacktrace', false],
];
/** options only the top instance has (TOP_LEVEL_TRACE_FLAGS) */
export const TOP_LEVEL_OPTIONS = new Set(['trace_printk', 'printk-msg-only', 'record-cmd']);

/** trace_clock names (trace_clocks[]) and whether they count in ns */
export const TRACE_CLOCKS: readonly [string, boolean][] = [
  ['local', true], ['global', true], ['counter', false], ['uptime', false], ['perf', true], ['mono', true],
  ['mono_raw', true], ['boot', true], ['tai', true], ['x86-tsc', false],
];

const TWO32 = 4294967296;

/** The instance a record is written for, with the option bits tracers test on the hot path. */
export class TraceArray {
  readonly buffer: RingBuffer;
  /** trace_flags by option name */
  readonly flags = new Map<string, boolean>();
  tracerName = 'nop';
  clockId = 0;
  private counter = 0;
  /** set_ftrace_pid / set_ftrace_notrace_pid (tids; 0 = the idle tasks) */
  readonly ftracePids = new Set<number>();
  readonly ftraceNoPids = new Set<number>();
  /** set_event_pid / set_event_notrace_pid */
  readonly eventPids = new Set<number>();
  readonly eventNoPids = new Set<number>();
  /** tracing_cpumask */
  cpumask: bigint;
  /** buffer_percent */
  bufferPercent = 50;
  /** tracing_max_latency (µs, kept in ns) */
  maxLatency = 0;
  /** error_log entries (tracing_log_err) */
  readonly errorLog: string[] = [];
  /** whether the buffer holds the boot-time minimum (buffer_size_kb "7 (expanded: 1408)") */
  expanded: boolean;
  /** called when the tracer changes, before the new one starts (tracers reset their state) */
  readonly tracerHooks: { stop: (() => void) | null } = { stop: null };
  /** a record was committed on a CPU (trace_taskinfo_save for saved_cmdlines) */
  onCommit: ((cpu: number) => void) | null = null;
  /** the snapshot (max) buffer, when allocated */
  snapshot: RingBuffer | null = null;

  constructor(readonly name: string, readonly host: TracefsHost, readonly top: boolean, expanded: boolean) {
    this.buffer = new RingBuffer({ clock: () => this.now(), ncpus: host.ncpus, sizeKb: 1408 });
    for (const [n, d] of TRACE_OPTIONS) if (top || !TOP_LEVEL_OPTIONS.has(n)) this.flags.set(n, d);
    this.cpumask = (1n << BigInt(host.ncpus)) - 1n;
    this.expanded = expanded;
  }

  opt(name: string): boolean {
    return this.flags.get(name) === true;
  }

  /** The current trace clock's reading (what a record is stamped with). */
  now(): number {
    const c = TRACE_CLOCKS[this.clockId][0];
    if (c === 'counter') return ++this.counter;
    if (c === 'uptime') return Math.floor(this.host.clock() / 4e6); // jiffies at HZ=250
    if (c === 'x86-tsc') return Math.floor(this.host.clock() * 2.4);
    return this.host.clock();
  }

  clockInNs(): boolean {
    return TRACE_CLOCKS[this.clockId][1];
  }

  get tracingOn(): boolean {
    return this.buffer.recordOn;
  }
  set tracingOn(v: boolean) {
    this.buffer.recordOn = v;
    if (this.snapshot) this.snapshot.recordOn = v;
  }

  /** Is this task traced by the function tracers (set_ftrace_pid / set_ftrace_notrace_pid)? */
  ftraceTask(t: TaskRef): boolean {
    if (this.ftraceNoPids.size && this.ftraceNoPids.has(t.tid)) return false;
    return this.ftracePids.size === 0 || this.ftracePids.has(t.tid);
  }

  /** Is this task's event recorded (set_event_pid / set_event_notrace_pid)? */
  eventTask(t: TaskRef): boolean {
    if (this.eventNoPids.size && this.eventNoPids.has(t.tid)) return false;
    return this.eventPids.size === 0 || this.eventPids.has(t.tid);
  }

  /** CPU is in tracing_cpumask */
  cpuTraced(cpu: number): boolean {
    return ((this.cpumask >> BigInt(cpu)) & 1n) === 1n;
  }

  /**
   * Reserve a record of `len` bytes (8-byte trace_entry + body) on the context's CPU and fill
   * the header. `pcAdd` is what the recording path adds to the preempt count (the function
   * tracer's recursion lock disables preemption), `irqsOff` forces the irqs-off flag
   * (local_irq_save in the graph tracer). Returns the view with `this.buffer.off` at the record.
   */
  reserve(ctx: CpuContext, type: number, len: number, pcAdd = 0, irqsOff = false): DataView | null {
    const buf = this.buffer;
    if (!buf.recordOn || !this.cpuTraced(ctx.cpu)) return null;
    const dv = buf.reserve(ctx.cpu, len);
    if (dv === null) return null;
    const off = buf.off;
    dv.setUint16(off, type, true);
    dv.setUint8(off + 2, traceFlags(ctx, irqsOff, this.host));
    dv.setUint8(off + 3, Math.min(((ctx.preemptCount ?? 0) & 0xff) + pcAdd, 0xf));
    dv.setInt32(off + 4, ctx.task.tid, true);
    if (this.onCommit !== null) this.onCommit(ctx.cpu);
    return dv;
  }

  /** TRACE_FN: struct ftrace_entry { ip, parent_ip } */
  traceFunction(ctx: CpuContext, ip: number, parentIp: number, pcAdd: number): boolean {
    const dv = this.reserve(ctx, TRACE_FN, 24, pcAdd);
    if (dv === null) return false;
    const off = this.buffer.off;
    putI64(dv, off + 8, ip);
    putI64(dv, off + 16, parentIp);
    return true;
  }

  /** TRACE_STACK: struct stack_entry { int size; unsigned long caller[] } (the frames given) */
  traceStack(ctx: CpuContext, frames: readonly number[], pcAdd = 0): boolean {
    const n = frames.length;
    const dv = this.reserve(ctx, TRACE_STACK, 16 + 8 * n, pcAdd);
    if (dv === null) return false;
    const off = this.buffer.off;
    dv.setInt32(off + 8, n, true);
    for (let i = 0; i < n; i++) putI64(dv, off + 16 + 8 * i, frames[i]);
    return true;
  }

  /** TRACE_PRINT: struct print_entry { unsigned long ip; char buf[] } (trace_marker, trace_printk) */
  tracePrint(ctx: CpuContext, ip: number, text: string): boolean {
    const b = Buffer.from(text, 'latin1');
    const dv = this.reserve(ctx, TRACE_PRINT, 16 + b.length + 1);
    if (dv === null) return false;
    const off = this.buffer.off;
    putI64(dv, off + 8, ip);
    new Uint8Array(dv.buffer).set(b, off + 16);
    return true;
  }

  /** TRACE_RAW_DATA: struct raw_data_entry { unsigned int id; char buf[] } (trace_marker_raw) */
  traceRaw(ctx: CpuContext, id: number, data: Uint8Array): boolean {
    const dv = this.reserve(ctx, TRACE_RAW_DATA, 12 + data.length);
    if (dv === null) return false;
    const off = this.buffer.off;
    dv.setUint32(off + 8, id, true);
    new Uint8Array(dv.buffer).set(data, off + 12);
    return true;
  }

  /** tracing_reset_online_cpus() */
  reset(): void {
    this.buffer.reset();
  }
}

/** trace_entry.flags of a context (tracing_gen_ctx_flags()). */
export function traceFlags(ctx: CpuContext, irqsOff: boolean, host?: TracefsHost): number {
  // from preempt_count() as the kernel does: HARDIRQ_MASK, SOFTIRQ_OFFSET (serving), BH disabled
  let f = 0;
  if (ctx.irqsOff || irqsOff) f |= TRACE_FLAG_IRQS_OFF;
  const c = ctx.context ?? 0;
  const pc = ctx.preemptCount ?? 0;
  if (c === 3 || pc & 0xf00000) f |= TRACE_FLAG_NMI;
  if (c === 2 || c === 3 || pc & 0xf0000) f |= TRACE_FLAG_HARDIRQ;
  if (c === 1 || pc & 0x100) f |= TRACE_FLAG_SOFTIRQ;
  if ((pc & 0xff00) >> 9) f |= TRACE_FLAG_BH_OFF;
  if (host?.need_resched?.(ctx.cpu)) f |= TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_PREEMPT_RESCHED;
  return f;
}

/** Read the signed 64-bit value at off (JS number). */
export function rdI64(dv: DataView, off: number): number {
  return dv.getInt32(off + 4, true) * TWO32 + dv.getUint32(off, true);
}
