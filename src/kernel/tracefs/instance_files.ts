/**
 * The files of a tracing directory (init_tracer_tracefs() and tracer_init_tracefs() of Linux
 * 6.1): the control files of every instance (current_tracer, tracing_on, trace, trace_pipe,
 * buffer_size_kb, trace_options, options/, per_cpu/, trace_marker, events/ ...) and the files
 * only the top directory has (README, available_filter_functions, set_graph_function,
 * max_graph_depth, tracing_thresh, saved_cmdlines, kprobe_events, stack_trace, instances/ ...).
 */
import { CpuContext } from '../current';
import { EINVAL, ENODEV } from '../errno';
import { readDataText } from '../data';
import { FtraceHash } from '../ftrace_hash';
import { FunctionProfiler } from '../ftrace_profile';
import { Dir, DynDir, File, PseudoNode, PseudoOpen, StreamFile, textFile, parseUlong, O_TRUNC, O_NONBLOCK, O_ACCMODE, TOP_DIR_MODE } from './vfs';
import { TRACE_OPTIONS, TOP_LEVEL_OPTIONS, TRACE_CLOCKS } from './trace_array';
import { timeText } from './trace_output';
import { GRAPH_OPTIONS } from './trace_functions_graph';
import { FilterHashes } from './trace_functions';
import { Instance, InstanceEnv, TRACER_OPTIONS, TRACE_BUF_SIZE_DEFAULT } from './instance';
import { eventsDir, setEventFile, availableEventsFile, setClrEvent } from './events_files';
import { filterFile, graphFile, pidFile, availableFilterFunctions, enabledFunctionsText, dynFtraceTotalInfo } from './ftrace_files';
import { DynamicEvents } from './dynamic_events';
import { StackTracer } from './trace_stack';
import { TriggerActions } from './event_trigger';

/** What the directory builders need from the tracing subsystem (the Tracefs object). */
export interface TracefsCore extends InstanceEnv {
  top: Instance;
  instances: Map<string, Instance>;
  graphHash: { hash: FtraceHash; set: Set<number> };
  graphNotraceHash: { hash: FtraceHash; set: Set<number> };
  globalHashes: FilterHashes;
  profiler: FunctionProfiler | null;
  dynamic: DynamicEvents;
  stack: StackTracer;
  mkdirInstance(name: string): number;
  rmdirInstance(name: string): number;
  triggerActions(inst: Instance): TriggerActions;
  markIp(): number;
}

const W = 0o640, R = 0o440;

function ctl(show: () => string, write: (t: string, ctx: CpuContext) => number): File {
  return new File(W, { show, write: (t, ctx) => { const r = write(t, ctx); return r < 0 ? r : t.length; } });
}

/** every option name an options/ directory has: global ones, then every tracer's */
function optionNames(env: TracefsCore, top: boolean): string[] {
  const names = TRACE_OPTIONS.map(([n]) => n).filter((n) => top || !TOP_LEVEL_OPTIONS.has(n));
  for (const l of Object.values(TRACER_OPTIONS)) for (const [n] of l) names.push(n);
  for (const [n] of GRAPH_OPTIONS) if (env.graph.opts.has(n)) names.push(n);
  return names.sort();
}

/** set an option by name; 0 or -EINVAL */
function setOption(env: TracefsCore, inst: Instance, name: string, on: boolean): number {
  const tr = inst.tr;
  if (tr.flags.has(name)) {
    tr.flags.set(name, on);
    if (name === 'overwrite') { tr.buffer.overwrite = on; }
    if (name === 'record-cmd' || name === 'record-tgid') { /* recorded at the next switch */ }
    return 0;
  }
  if (env.graph.opts.has(name)) {
    env.graph.opts.set(name, on);
    if (name === 'graph-time' && env.profiler) env.profiler.graphTime = on;
    return 0;
  }
  if (env.tracerOpts.has(name)) {
    if (name === 'test_nop_refuse' && on) return -EINVAL;
    env.tracerOpts.set(name, on);
    if (name === 'func_stack_trace' && inst.tr.tracerName === 'function') {
      inst.fn.stop(); inst.fn.stackTrace = on; inst.fn.start();
    }
    return 0;
  }
  return -EINVAL;
}

function optionValue(env: TracefsCore, inst: Instance, name: string): boolean {
  return inst.tr.flags.get(name) ?? env.graph.opts.get(name) ?? env.tracerOpts.get(name) ?? false;
}

function tracerOptionList(env: TracefsCore, inst: Instance): string[] {
  const t = inst.tr.tracerName;
  if (t === 'function_graph') return GRAPH_OPTIONS.map(([n]) => n).filter((n) => env.graph.opts.has(n));
  return (TRACER_OPTIONS[t] ?? []).map(([n]) => n);
}

/** `trace` / per_cpu/cpuN/trace: the header and every line; O_TRUNC clears */
function traceFile(inst: Instance, cpu?: number): StreamFile {
  return new StreamFile(W, () => inst.reader(false, cpu).text(true), {
    open: (flags) => { if ((flags & O_ACCMODE) && flags & O_TRUNC) { if (cpu === undefined) inst.tr.reset(); else inst.tr.buffer.reset(cpu); } return 0; },
    write: (t) => t.length,
  });
}

/** trace_pipe (per_cpu/cpuN/trace_pipe): consuming, blocking while empty, EOF once tracing is off */
function tracePipe(inst: Instance, cpu?: number): PseudoNode {
  return {
    kind: 'file', mode: R,
    open: (flags): PseudoOpen | number => {
      if (flags & O_ACCMODE) return -EINVAL;
      inst.pipeReaders++;
      let readAny = false;
      let it = inst.reader(true, cpu);
      let carry = '';
      return {
        read: (count) => {
          if (!carry) {
            if (inst.tr.buffer.empty(it.cpus)) {
              if (readAny && !inst.tr.tracingOn) return new Uint8Array(0);
              if (flags & O_NONBLOCK) return Buffer.alloc(0);
              return null;
            }
            if (it.tr.tracerName !== inst.tr.tracerName) it = inst.reader(true, cpu);
            while (carry.length < count && it.next()) carry += it.line();
          }
          const out = Buffer.from(carry.slice(0, count), 'latin1');
          carry = carry.slice(count);
          if (out.length) readAny = true;
          return out;
        },
        write: () => -EINVAL,
        release: () => { inst.pipeReaders--; return 0; },
        waitReadable: (wake) => inst.waitData(wake),
      };
    },
  };
}

/** per_cpu/cpuN/trace_pipe_raw: whole ring buffer pages, consumed */
function tracePipeRaw(inst: Instance, cpu: number): PseudoNode {
  return {
    kind: 'file', mode: R,
    open: (flags): PseudoOpen | number => {
      if (flags & O_ACCMODE) return -EINVAL;
      return {
        read: () => {
          const p = inst.tr.buffer.readPage(cpu);
          if (p) return p;
          if (!inst.tr.tracingOn || flags & O_NONBLOCK) return new Uint8Array(0);
          return null;
        },
        write: () => -EINVAL,
        release: () => 0,
        waitReadable: (wake) => inst.waitData(wake),
      };
    },
  };
}

function statsText(inst: Instance, cpu: number): string {
  const st = inst.tr.buffer.stats(cpu);
  const inNs = inst.tr.clockInNs();
  const ts = (v: number) => (inNs ? timeText(v, true).slice(1) : String(v));
  return `entries: ${st.entries}\noverrun: ${st.overrun}\ncommit overrun: ${st.commitOverrun}\nbytes: ${st.bytes}\n` +
    `oldest event ts: ${ts(st.oldestTs)}\nnow ts: ${ts(inst.tr.now())}\ndropped events: ${st.dropped}\nread events: ${st.read}\n`;
}

/** buffer_size_kb of one CPU or all; "7 (expanded: 1408)" before the first expansion */
function sizeText(inst: Instance, cpu?: number): string {
  const n = inst.tr.host.ncpus;
  const sizes = cpu === undefined ? [...Array(n).keys()].map((c) => inst.sizeKb(c)) : [inst.sizeKb(cpu)];
  if (sizes.some((s) => s !== sizes[0])) return 'X\n';
  return inst.tr.expanded ? `${sizes[0]}\n` : `${sizes[0]} (expanded: ${TRACE_BUF_SIZE_DEFAULT >> 10})\n`;
}

function sizeWrite(inst: Instance, t: string, cpu?: number): number {
  const v = parseUlong(t);
  if (v === null || v === 0) return -EINVAL;
  inst.tr.expanded = true;
  inst.tr.buffer.resizeBytes(v * 1024, cpu);
  return 0;
}

function perCpuDir(inst: Instance): DynDir {
  const n = inst.tr.host.ncpus;
  const dirs = new Map<number, Dir>();
  return new DynDir(() => [...Array(n).keys()].map((c) => `cpu${c}`), (name) => {
    const m = /^cpu(\d+)$/.exec(name);
    if (!m || Number(m[1]) >= n) return null;
    const cpu = Number(m[1]);
    let d = dirs.get(cpu);
    if (!d) {
      d = new Dir(0o750)
        .add('buffer_size_kb', ctl(() => sizeText(inst, cpu), (t) => sizeWrite(inst, t, cpu)))
        .add('snapshot', snapshotFile(inst))
        .add('snapshot_raw', textFile(() => '', R))
        .add('stats', textFile(() => statsText(inst, cpu), R))
        .add('trace', traceFile(inst, cpu))
        .add('trace_pipe', tracePipe(inst, cpu))
        .add('trace_pipe_raw', tracePipeRaw(inst, cpu));
      dirs.set(cpu, d);
    }
    return d;
  }, 0o750);
}

const SNAPSHOT_FREED = '#\n# * Snapshot is freed *\n#\n# Snapshot commands:\n' +
  '# echo 0 > snapshot : Clears and frees snapshot buffer\n' +
  '# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n' +
  '#                      Takes a snapshot of the main buffer.\n' +
  '# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n' +
  "#                      (Doesn't have to be '2' works with any number that\n" +
  "#                       is not a '0' or '1')\n";

function snapshotFile(inst: Instance): File {
  return new File(W, {
    show: () => `# tracer: ${inst.tr.tracerName}\n#\n${SNAPSHOT_FREED}`,
    write: (t) => {
      const v = parseUlong(t);
      if (v === null) return -EINVAL;
      return t.length;
    },
  });
}

function clockText(inst: Instance): string {
  return TRACE_CLOCKS.map(([n], i) => (i === inst.tr.clockId ? `[${n}]` : n)).join(' ') + '\n';
}

/** The files every instance has. */
export function instanceDir(env: TracefsCore, inst: Instance): Dir {
  const tr = inst.tr;
  const d = new Dir(TOP_DIR_MODE);
  const act = env.triggerActions(inst);
  d.add('available_tracers', textFile(() => inst.available().join(' ') + '\n', R));
  d.add('current_tracer', ctl(() => `${tr.tracerName}\n`, (t) => inst.setTracer(t.trim())));
  d.add('tracing_cpumask', ctl(() => `${tr.cpumask.toString(16)}\n`, (t) => {
    if (!/^[0-9a-fA-F,]+\s*$/.test(t)) return -EINVAL;
    tr.cpumask = BigInt('0x' + t.trim().replace(/,/g, '')) & ((1n << BigInt(tr.host.ncpus)) - 1n);
    return 0;
  }));
  d.add('trace_options', ctl(() => {
    let s = '';
    for (const [n] of TRACE_OPTIONS) if (tr.flags.has(n)) s += (tr.flags.get(n) ? '' : 'no') + n + '\n';
    for (const n of tracerOptionList(env, inst)) s += (optionValue(env, inst, n) ? '' : 'no') + n + '\n';
    return s;
  }, (t) => {
    const name = t.trim();
    const neg = name.startsWith('no');
    const base = neg ? name.slice(2) : name;
    const allowed = tr.flags.has(base) || tracerOptionList(env, inst).includes(base);
    return allowed ? setOption(env, inst, base, !neg) : -EINVAL;
  }));
  d.add('trace', traceFile(inst));
  d.add('trace_pipe', tracePipe(inst));
  d.add('buffer_size_kb', ctl(() => sizeText(inst), (t) => sizeWrite(inst, t)));
  d.add('buffer_total_size_kb', textFile(() => {
    let tot = 0;
    for (let c = 0; c < tr.host.ncpus; c++) tot += inst.sizeKb(c);
    return tr.expanded ? `${tot}\n` : `${tot} (expanded: ${(TRACE_BUF_SIZE_DEFAULT >> 10) * tr.host.ncpus})\n`;
  }, R));
  d.add('free_buffer', new File(0o200, {
    write: (t) => t.length,
    release: () => { if (tr.opt('disable_on_free')) tr.tracingOn = false; tr.buffer.resizeBytes(1); tr.expanded = true; return 0; },
  }));
  d.add('trace_marker', new File(0o220, { write: (t, ctx) => inst.mark(ctx, t, env.markIp()) }));
  d.add('trace_marker_raw', new File(0o220, {
    write: (t, ctx) => {
      if (t.length < 4) return -EINVAL;
      const b = Buffer.from(t, 'latin1');
      tr.traceRaw(ctx, b.readUInt32LE(0), b.subarray(4));
      return t.length;
    },
  }));
  d.add('trace_clock', ctl(() => clockText(inst), (t) => {
    const i = TRACE_CLOCKS.findIndex(([n]) => n === t.trim());
    if (i < 0) return -EINVAL;
    tr.clockId = i;
    tr.reset();
    return 0;
  }));
  d.add('tracing_on', ctl(() => (tr.tracingOn ? '1\n' : '0\n'), (t) => {
    const v = parseUlong(t);
    if (v === null) return -EINVAL;
    tr.tracingOn = v !== 0;
    inst.kickReaders();
    return 0;
  }));
  d.add('timestamp_mode', textFile(() => '[delta] absolute\n', R));
  d.add('buffer_percent', ctl(() => `${tr.bufferPercent}\n`, (t) => {
    const v = parseUlong(t);
    if (v === null || v > 100) return -EINVAL;
    tr.bufferPercent = v;
    return 0;
  }));
  d.add('options', new DynDir(() => optionNames(env, inst.tr.top), (name) => {
    if (!optionNames(env, inst.tr.top).includes(name)) return null;
    return ctl(() => (optionValue(env, inst, name) ? '1\n' : '0\n'), (t) => {
      const v = parseUlong(t);
      if (v === null || v > 1) return -EINVAL;
      return setOption(env, inst, name, v === 1);
    });
  }, 0o750));
  d.add('tracing_max_latency', ctl(() => `${Math.floor(tr.maxLatency / 1000)}\n`, (t) => {
    const v = parseUlong(t);
    if (v === null) return -EINVAL;
    tr.maxLatency = v * 1000;
    return 0;
  }));
  d.add('set_ftrace_filter', filterFile({ hash: inst.hashes.filterHash, probes: inst.probes, notrace: false, changed: () => inst.hashesChanged() }));
  d.add('set_ftrace_notrace', filterFile({ hash: inst.hashes.notraceHash, probes: null, notrace: true, changed: () => inst.hashesChanged() }));
  d.add('snapshot', snapshotFile(inst));
  d.add('error_log', ctl(() => tr.errorLog.join(''), () => { tr.errorLog.length = 0; return 0; }));
  d.add('per_cpu', perCpuDir(inst));
  d.add('set_ftrace_pid', pidFile(tr.ftracePids, (p) => !!tr.host.task(p), () => inst.pidsChanged()));
  d.add('set_ftrace_notrace_pid', pidFile(tr.ftraceNoPids, (p) => !!tr.host.task(p), () => inst.pidsChanged()));
  d.add('set_event', setEventFile(inst));
  d.add('set_event_pid', pidFile(tr.eventPids, (p) => !!tr.host.task(p), () => undefined));
  d.add('set_event_notrace_pid', pidFile(tr.eventNoPids, (p) => !!tr.host.task(p), () => undefined));
  d.add('events', eventsDir(inst, act, () => env.dynamic.systems()));
  return d;
}

/** The files only the top directory has. */
export function topLevelFiles(env: TracefsCore, d: Dir): void {
  const top = env.top;
  d.add('README', textFile(() => readDataText('tracefs/README'), R));
  d.add('available_events', availableEventsFile(top));
  d.add('available_filter_functions', new StreamFile(R, () => availableFilterFunctions()));
  d.add('dyn_ftrace_total_info', textFile(dynFtraceTotalInfo, R));
  d.add('enabled_functions', textFile(enabledFunctionsText, R));
  d.add('set_graph_function', graphFile(env.graphHash, false, () => undefined));
  d.add('set_graph_notrace', graphFile(env.graphNotraceHash, true, () => undefined));
  d.add('max_graph_depth', ctl(() => `${env.graph.maxDepth}\n`, (t) => {
    const v = parseUlong(t);
    if (v === null) return -EINVAL;
    env.graph.maxDepth = v;
    return 0;
  }));
  d.add('tracing_thresh', ctl(() => `${Math.floor(env.graph.thresh / 1000)}\n`, (t) => {
    const v = parseUlong(t);
    if (v === null) return -EINVAL;
    env.graph.thresh = v * 1000;
    return 0;
  }));
  d.add('saved_cmdlines', textFile(() => env.cmdlines.text(), R));
  d.add('saved_cmdlines_size', ctl(() => `${env.cmdlines.size}\n`, (t) => {
    const v = parseUlong(t);
    if (v === null || v < 1 || v > 32768) return -EINVAL;
    env.cmdlines.resize(v);
    return 0;
  }));
  d.add('saved_tgids', textFile(() => env.cmdlines.tgidText(), R));
  d.add('printk_formats', textFile(() => readDataText('tracefs/printk_formats'), R));
  d.add('instances', {
    kind: 'dir', mode: 0o750,
    list: () => [...env.instances.keys()],
    child: (name) => instanceNode(env, name),
    mkdir: (name) => env.mkdirInstance(name),
    rmdir: (name) => env.rmdirInstance(name),
  } as PseudoNode);
  env.dynamic.addFiles(d);
  env.stack.addFiles(d, env.globalHashes);
  if (env.profiler) addProfilerFiles(env, d, env.profiler);
}

const instanceDirs = new WeakMap<Instance, Dir>();
function instanceNode(env: TracefsCore, name: string): PseudoNode | null {
  const inst = env.instances.get(name);
  if (!inst) return null;
  let d = instanceDirs.get(inst);
  if (!d) { d = instanceDir(env, inst); instanceDirs.set(inst, d); }
  return d;
}

/** function_profile_enabled and trace_stat/functionN (CONFIG_FUNCTION_PROFILER kernels) */
function addProfilerFiles(env: TracefsCore, d: Dir, prof: FunctionProfiler): void {
  const stat = new DynDir(() => [...Array(env.host.ncpus).keys()].map((c) => `function${c}`), (name) => {
    const m = /^function(\d+)$/.exec(name);
    if (!m || Number(m[1]) >= env.host.ncpus) return null;
    return textFile(() => prof.statText(Number(m[1]), env.graph.thresh), R);
  }, 0o750);
  d.add('function_profile_enabled', ctl(() => (prof.isEnabled ? '1\n' : '0\n'), (t) => {
    const v = parseUlong(t);
    if (v === null) return -EINVAL;
    if (v) return prof.start(env.host.ncpus);
    prof.stop();
    return 0;
  }));
  d.add('trace_stat', stat);
}

export { ENODEV, setClrEvent };
