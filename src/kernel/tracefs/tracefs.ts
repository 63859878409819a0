/**
 * tracefs of Linux 6.1 over the simulated kernel: the Tracefs object is the tracing subsystem's
 * global state (saved cmdlines, the function_graph globals, the profiler, the top instance and
 * instances/, dynamic events, the stack tracer) and gives the machine the two filesystem
 * roots it mounts: tracefs (/sys/kernel/tracing) and debugfs (kprobes/ and the `tracing`
 * automount of tracefs).
 *
 *   const tfs = new Tracefs(host);            // host: clock, CPUs, current context, stacks
 *   machine.mount('/sys/kernel/tracing', tfs.root());
 *   machine.mount('/sys/kernel/debug', tfs.debugfs());
 */
import { CpuContext } from '../current';
import { EBUSY, EEXIST, EINVAL, ENOENT } from '../errno';
import { kconfig } from '../config';
import { FtraceHash } from '../ftrace_hash';
import { FunctionProfiler } from '../ftrace_profile';
import { ftraceGraphUser } from '../fgraph';
import { kallsymsLookupName, symbolAddr } from '../kallsyms';
import { tracepointProbeRegister, tracepointProbeUnregister, TraceEvent, eventById, findEvent } from '../tracepoint';
import { Dir, PseudoNode, TOP_DIR_MODE, lazyDir } from './vfs';
import { TraceArray, TracefsHost } from './trace_array';
import { OutputRegistry, RecView } from './trace_output';
import { SavedCmdlines } from './saved_cmdlines';
import { GraphGlobals, GRAPH_OPTIONS } from './trace_functions_graph';
import { FilterHashes, ProbeActions } from './trace_functions';
import { EventFile, EventsHost, eventPrinter } from './events';
import { runTriggers, TriggerActions } from './event_trigger';
import { Instance, InstanceEnv, TRACER_OPTIONS } from './instance';
import { instanceDir, topLevelFiles } from './instance_files';
import { DynamicEvents } from './dynamic_events';
import { StackTracer } from './trace_stack';
import { debugfsRoot } from './debugfs';

export interface TracefsOptions {
  /** CONFIG_FUNCTION_PROFILER (Debian's 6.1 build has it off): function_profile_enabled, trace_stat/ */
  functionProfiler?: boolean;
}

export class Tracefs implements InstanceEnv {
  readonly cmdlines = new SavedCmdlines();
  readonly out = new OutputRegistry((type) => this.printerFor(type));
  readonly graph: GraphGlobals;
  readonly graphHash = { hash: new FtraceHash(0), set: new Set<number>() };
  readonly graphNotraceHash = { hash: new FtraceHash(0), set: new Set<number>() };
  readonly tracerOpts = new Map<string, boolean>();
  /** global_ops' hashes: the top instance's set_ftrace_filter / set_ftrace_notrace */
  readonly globalHashes: FilterHashes = { filterHash: new Set(), notraceHash: new Set() };
  readonly top: Instance;
  readonly instances = new Map<string, Instance>();
  readonly profiler: FunctionProfiler | null;
  readonly dynamic: DynamicEvents;
  readonly stack: StackTracer;
  private cmdlineRefs = 0;
  private readonly switchProbe: (d: unknown, ...a: unknown[]) => void;
  private rootDir: Dir | null = null;
  private rootNode: PseudoNode | null = null;

  /**
   * `root`: the node to answer as the root (root()), when a machine mounted tracefs before making
   * it (a lazyDir over this object's topDir: src/machine/fs/tracing.ts).
   */
  constructor(readonly host: TracefsHost, opts: TracefsOptions = {}, root?: PseudoNode) {
    if (root) this.rootNode = root;
    this.cmdlines.resize(6552);
    const gopts = new Map<string, boolean>(GRAPH_OPTIONS);
    this.graph = { graphHash: this.graphHash.set, graphNotrace: this.graphNotraceHash.set, maxDepth: 0, thresh: 0, opts: gopts };
    for (const l of Object.values(TRACER_OPTIONS)) for (const [n, d] of l) this.tracerOpts.set(n, d);
    const withProfiler = opts.functionProfiler ?? kconfig('CONFIG_FUNCTION_PROFILER') === 'y';
    this.profiler = withProfiler ? new FunctionProfiler(() => this.top.tr.now(), this.globalHashes) : null;
    if (!withProfiler) gopts.delete('graph-time');
    this.switchProbe = (_d, _preempt, prev, next) => this.onSwitch(prev as CpuContext['task'], next as CpuContext['task']);
    this.top = new Instance('', this, this.globalHashes);
    this.dynamic = new DynamicEvents(this);
    this.stack = new StackTracer(host);
  }

  // ---------------------------------------------------------------- InstanceEnv

  cmdlineUsers(delta: number): void {
    const before = this.cmdlineRefs;
    this.cmdlineRefs += delta;
    if (before === 0 && this.cmdlineRefs > 0) tracepointProbeRegister('sched_switch', this.switchProbe, this);
    else if (before > 0 && this.cmdlineRefs === 0) tracepointProbeUnregister('sched_switch', this.switchProbe, this);
  }

  committed(cpu: number): void {
    this.cmdlines.pending[cpu] = true;
  }

  /** probe_sched_switch(): save prev and next once something was recorded on this CPU */
  private onSwitch(prev: CpuContext['task'], next: CpuContext['task']): void {
    const cpu = this.host.current().cpu;
    if (!this.cmdlines.pending[cpu]) return;
    const cmd = this.top.tr.opt('record-cmd');
    const tgid = this.top.tr.opt('record-tgid');
    if (cmd) { if (prev) this.cmdlines.save(prev); if (next) this.cmdlines.save(next); }
    if (tgid) { if (prev) this.cmdlines.saveTgid(prev); if (next) this.cmdlines.saveTgid(next); }
    this.cmdlines.pending[cpu] = false;
  }

  graphBusy(): boolean {
    return ftraceGraphUser() !== null;
  }

  dynamicEvents(): TraceEvent[] {
    return [...this.dynamic.systems().values()].flat().sort((a, b) => a.id - b.id);
  }

  eventsHost(inst: Instance): EventsHost {
    return {
      current: () => this.host.current(),
      committed: (cpu) => this.committed(cpu),
      cmdlineUsers: (d) => this.cmdlineUsers(d),
      runTriggers: (f, rec, ctx) => runTriggers(f, rec, ctx, this.triggerActions(inst)),
      dynReg: (f, on) => this.dynamic.reg(f, on),
    };
  }

  triggerActions(inst: Instance): TriggerActions {
    return {
      findEvent: (_f, sys, name) => {
        const ev = findEvent(sys, name) ?? this.dynamic.find(sys, name);
        return ev ? inst.file(ev) : null;
      },
      stack: (ctx, from) => this.stackRecord(inst.tr, ctx, from),
      snapshot: () => this.snapshot(inst),
    };
  }

  probeActions(inst: Instance): ProbeActions {
    return {
      stack: (ctx) => this.stackRecord(this.top.tr, ctx),
      snapshot: () => this.snapshot(inst),
      setEvent: (event, on) => {
        const [sys, name] = event.split(':');
        const ev = findEvent(sys, name) ?? this.dynamic.find(sys, name);
        if (!ev) return false;
        const f = inst.file(ev);
        const was = (f.flags & 4) === 0;
        if (on) f.flags &= ~4; else f.flags |= 4;
        return was !== on;
      },
      dump: () => undefined,
    };
  }

  /** A kernel_stack record of the context's current stack (trace_dump_stack()). */
  stackRecord(tr: TraceArray, ctx: CpuContext, from?: string): void {
    const first = from ? kallsymsLookupName(from) : null;
    const frames = this.host.kernelStack(ctx);
    tr.traceStack(ctx, (first !== null ? [first + 0x9b, ...frames] : frames).slice(0, 8));
    this.committed(ctx.cpu);
  }

  /** echo 1 > snapshot: swap the buffer with the spare one */
  snapshot(inst: Instance): void {
    const tr = inst.tr;
    if (!tr.snapshot) return;
    void tr;
  }

  private printerFor(type: number): ReturnType<typeof eventPrinter> | undefined {
    const ev: TraceEvent | null = eventById(type) ?? this.dynamic.byId(type);
    if (!ev) return undefined;
    return this.dynamic.printer(ev) ?? eventPrinter(ev);
  }

  // ---------------------------------------------------------------- instances

  mkdirInstance(name: string): number {
    if (this.instances.has(name)) return -EEXIST;
    if (!/^[^/]+$/.test(name)) return -EINVAL;
    const inst = new Instance(name, this, { filterHash: new Set(), notraceHash: new Set() });
    this.instances.set(name, inst);
    return 0;
  }

  rmdirInstance(name: string): number {
    const inst = this.instances.get(name);
    if (!inst) return -ENOENT;
    if (inst.pipeReaders) return -EBUSY;
    inst.setTracer('nop');
    for (const f of inst.madeFiles()) if (f.enabled) f.enableDisable(false);
    inst.probes.clear();
    this.instances.delete(name);
    return 0;
  }

  instance(name: string): Instance | undefined {
    return name === '' ? this.top : this.instances.get(name);
  }

  /**
   * The tracefs root (what `mount -t tracefs` shows): one node, mounted at boot on
   * /sys/kernel/tracing and reached again through debugfs' `tracing`; its ~90 files are made when
   * it is first listed or looked up (a start mounts it and never reads it).
   */
  root(): PseudoNode {
    return (this.rootNode ??= lazyDir(TOP_DIR_MODE, () => this.topDir()));
  }

  /** The root's directory (made on first use). */
  topDir(): Dir {
    if (!this.rootDir) {
      const d = instanceDir(this, this.top);
      topLevelFiles(this, d);
      this.rootDir = d;
    }
    return this.rootDir;
  }

  /** debugfs: kprobes/{list,enabled,blacklist} and the `tracing` automount. */
  debugfs(): PseudoNode {
    return debugfsRoot(this);
  }

  /** tracing_mark_write's own address (the ip of trace_marker records) */
  markIp(): number {
    const a = kallsymsLookupName('tracing_mark_write');
    return a === null ? 0 : a + 0x75;
  }

  /** Stop everything (a machine shutting down): tracers, events, probes. */
  shutdown(): void {
    for (const inst of [this.top, ...this.instances.values()]) {
      inst.setTracer('nop');
      for (const f of inst.madeFiles()) if (f.enabled) f.enableDisable(false);
      inst.probes.clear();
    }
    this.profiler?.stop();
    this.stack.enable(false);
    this.dynamic.clear();
  }
}

export type { EventFile, RecView, TracefsHost };
export { symbolAddr };
