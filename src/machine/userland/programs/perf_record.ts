/**
 * perf record, perf report and perf trace inside the machine (linux-perf 6.1's texts from
 * test/fixtures/tracefs-real/perf_record*, perf_trace_s).
 *
 * perf.data here is NOT perf's real file format: it is a documented simplified one that only this
 * perf report reads — the line "TAPSIMPERF 1", one JSON line (the event's name and attr, the number
 * of lost samples), then the sample records exactly as read(2) of the event fds returned them
 * (src/machine/kernel/perf_event_open.ts: PERF_RECORD_SAMPLE with ip, pid/tid, time, cpu, period,
 * callchain, raw arguments, comm).  Symbols are resolved by report from the kernel's symbol table
 * (as perf does from /proc/kallsyms); user-mode samples have no symbols ([unknown]).
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { PerfEventAttr } from '../../kernel/perf_event_open';
import { bytesToString } from '../../process/user';
import { O_WRONLY, O_CREAT, O_TRUNC } from '../../include/fs';
import { PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE } from '../../kernel/perf_event_open';
import { lookupAddr, symbolName, moduleAt } from '../../../kernel/kallsyms';
import { syscallByNr } from '../../../kernel/syscalls';
import { findEvent } from '../../../kernel/tracepoint';
import { formatTraceLines, type TraceArg } from '../perf/trace_print';
import { resolveEvents, prepareWorkload, perfEventOpen, ioctl, eventSyntaxError, cpuCount } from '../perf/session';
import { decodeSamples, DecodedSample, formatReport, formatTraceSummary, type ResolvedSym, type ReportMode } from '../perf/report';

type G<T> = Generator<Op, T, SysResult>;
const MAGIC = 'TAPSIMPERF 1\n';

function* recordUsage(u: U): G<number> {
  yield* u.err(`\n Usage: perf record [<options>] [<command>]\n    or: perf record [<options>] -- <command> [<options>]\n\n    -e, --event <event>   event selector. use 'perf list' to list available events\n`);
  return 129;
}

interface Session { fds: number[]; samples: Uint8Array[]; status: number; signal: number }

const SIGHUP = 1, SIGINT = 2, SIGTERM = 15;
/** how often perf record -a without a command looks for its signal */
const POLL_NS = 100e6;

/** Open `attr` on the workload (or every CPU with -a), run the command, drain the samples. */
function* sample(u: U, attr: PerfEventAttr, all: boolean, cmd: string[]): G<Session | number> {
  const work = cmd.length ? yield* prepareWorkload(u, cmd) : null;
  if (cmd.length && !work) return 127;
  const ncpus = yield* cpuCount(u);
  const fds: number[] = [];
  if (all) {
    for (let c = 0; c < ncpus; c++) {
      const fd = yield* perfEventOpen(u, { ...attr, inherit: false }, -1, c);
      if (fd < 0) return fd;
      fds.push(fd);
    }
    for (const fd of fds) yield* ioctl(u, fd, PERF_EVENT_IOC_ENABLE);
  } else {
    const fd = yield* perfEventOpen(u, { ...attr, enableOnExec: true }, work!.pid, -1);
    if (fd < 0) return fd;
    fds.push(fd);
  }
  let status = 0;
  let signal = 0;
  if (work) {
    yield* work.go();
    const r = yield* u.sys('wait4', [work.pid, 0, 0, 0]);
    status = (r.info?.status as number) ?? 0;
  } else {
    // system wide without a command: until SIGINT, SIGTERM or SIGHUP (perf's record__sig_exit
    // re-raises it once the data is written)
    for (const sig of [SIGINT, SIGTERM, SIGHUP]) yield* u.sigaction(sig, (n) => { signal = n; });
    while (!signal) yield* u.nanosleep(POLL_NS);
  }
  const samples: Uint8Array[] = [];
  for (const fd of fds) {
    yield* ioctl(u, fd, PERF_EVENT_IOC_DISABLE);
    for (;;) {
      const r = yield* u.read(fd, 65536);
      if (r.ret <= 0 || !r.data) break;
      samples.push(r.data);
    }
    yield* u.close(fd);
  }
  return { fds, samples, status, signal };
}

interface RecordOpts { events: string[]; all: boolean; callchain: boolean; period: number; freq: number; out: string; cmd: string[] }

function parseRecord(argv: string[]): RecordOpts | null {
  const o: RecordOpts = { events: [], all: false, callchain: false, period: 0, freq: 0, out: 'perf.data', cmd: [] };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '-e' || a === '--event') o.events.push(argv[++i] ?? '');
    else if (a === '-a' || a === '--all-cpus') o.all = true;
    else if (a === '-g') o.callchain = true;
    else if (a === '-c' || a === '--count') o.period = parseInt(argv[++i] ?? '', 10);
    else if (a === '-F' || a === '--freq') o.freq = parseInt(argv[++i] ?? '', 10);
    else if (a === '-o' || a === '--output') o.out = argv[++i] ?? '';
    else if (a.startsWith('-')) return null;
    else break;
  }
  o.cmd = argv.slice(i);
  if ((!o.cmd.length && !o.all) || !o.out || !(o.period >= 0) || !(o.freq >= 0)) return null;
  return o;
}

export function* perfRecord(u: U, argv: string[]): G<number> {
  const o = parseRecord(argv);
  if (!o) return yield* recordUsage(u);
  // the default event: cycles, which a machine without a PMU replaces by cpu-clock (as perf does)
  const specs = yield* resolveEvents(u, o.events.length ? o.events : ['cpu-clock']);
  if (typeof specs === 'string') return yield* eventSyntaxError(u, specs, () => recordUsage(u));
  if (specs.length !== 1 || !specs[0].attr) { yield* u.err('perf record here takes exactly one software or tracepoint event\n'); return 129; }
  const spec = specs[0];
  const attr = spec.attr!;
  // tracepoints default to every hit (-c 1); cpu-clock to 4000 Hz
  if (o.period) { attr.sample = o.period; attr.freq = false; }
  else if (attr.type === 2) { attr.sample = 1; attr.freq = false; }
  else if (spec.clock) { attr.sample = Math.round(1e9 / (o.freq || 4000)); attr.freq = false; }
  else { attr.sample = 1; attr.freq = false; }
  attr.callchain = o.callchain;
  const s = yield* sample(u, attr, o.all, o.cmd);
  if (typeof s === 'number') {
    if (s < 0) yield* u.err(`Error:\nThe sys_perf_event_open() syscall returned with ${-s} for event (${spec.name}).\n`);
    return s < 0 ? 1 : s;
  }
  const body = Buffer.concat(s.samples);
  const n = decodeSamples(body).length;
  const head = MAGIC + JSON.stringify({ event: spec.name, type: attr.type, config: attr.config, period: attr.sample, callchain: attr.callchain, lost: 0 }) + '\n';
  const file = Buffer.concat([Buffer.from(head, 'latin1'), body]);
  const fd = yield* u.open(o.out, O_WRONLY | O_CREAT | O_TRUNC, 0o600);
  if (fd < 0) { yield* u.err(`failed to create '${o.out}'\n`); return 255; }
  yield* u.writeAll(fd, file);
  yield* u.close(fd);
  yield* u.err(`[ perf record: Woken up 1 times to write data ]\n[ perf record: Captured and wrote ${(file.length / 1048576).toFixed(3)} MB ${o.out} (${n} samples) ]\n`);
  if (s.signal) {
    yield* u.sigaction(s.signal, 'default');
    yield* u.kill(yield* u.getpid(), s.signal);
  }
  return (s.status >> 8) & 0xff;
}

/** The kernel symbol of an address (as perf resolves it from /proc/kallsyms), or null (user space / unknown). */
function ksym(addr: number): ResolvedSym | null {
  if (!addr) return null;
  const p = lookupAddr(addr);
  if (!p) return null;
  const mod = addr < 0 ? null : moduleAt(addr);
  return { name: symbolName(p.id), start: p.addr, dso: mod ? `[${mod.name}]` : '[kernel.kallsyms]', kernel: true };
}

interface ReportOpts { input: string; children?: boolean; graph?: string }

function parseReport(argv: string[]): ReportOpts | string {
  const o: ReportOpts = { input: 'perf.data' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-i' || a === '--input') o.input = argv[++i] ?? '';
    else if (a.startsWith('--input=')) o.input = a.slice(8);
    else if (a === '--children') o.children = true;
    else if (a === '--no-children') o.children = false;
    // -g's argument is optional: the next word unless it is an option (perf's parse_callchain_report_opt)
    else if (a === '-g' || a === '--call-graph') o.graph = argv[i + 1] !== undefined && !argv[i + 1].startsWith('-') ? argv[++i] : o.graph ?? '';
    else if (a.startsWith('--call-graph=')) o.graph = a.slice(13);
    else if (a.startsWith('-g') && a.length > 2) o.graph = a.slice(2);
    else if (a === '-G' || a === '--inverted') o.graph = `${o.graph ? o.graph + ',' : ''}caller`;
    else if (a === '--stdio' || a === '-q' || a === '--quiet') continue;
    else return `  Error: unknown option \`${a.replace(/^-+/, '')}'\n`;
  }
  return o;
}

/**
 * The report's call graph layout from -g's `print_type,threshold[,print_limit],order,...` (perf's
 * default: graph,0.5,caller with --children, callee without); null: a print type this perf lacks.
 */
function reportMode(o: ReportOpts, hasChains: boolean): ReportMode | null {
  const children = hasChains && o.children !== false;
  const mode: ReportMode = { graph: hasChains, children, caller: children, minPercent: 0.5 };
  for (const t of (o.graph ?? '').split(',').filter((x) => x !== '')) {
    if (t === 'graph') mode.graph = hasChains;
    else if (t === 'none') mode.graph = false;
    else if (t === 'caller') mode.caller = true;
    else if (t === 'callee') mode.caller = false;
    else if (t === 'function' || t === 'percent') continue;
    else if (/^\d+(\.\d+)?$/.test(t)) mode.minPercent = Number(t);
    else return null;
  }
  return mode;
}

export function* perfReport(u: U, argv: string[]): G<number> {
  const o = parseReport(argv);
  if (typeof o === 'string') { yield* u.err(o); return 129; }
  const input = o.input;
  const fd = yield* u.open(input);
  if (fd < 0) { yield* u.err(`failed to open ${input}: No such file or directory\n`); return 255; }
  const data = yield* u.readAll(fd);
  yield* u.close(fd);
  const text = bytesToString(data.subarray(0, Math.min(data.length, 4096)));
  const nl = text.indexOf('\n', MAGIC.length);
  if (!text.startsWith(MAGIC) || nl < 0) { yield* u.err(`  Error: ${input} is not a perf.data file written by this perf\n`); return 255; }
  let head: { event: string; lost: number; callchain?: boolean };
  try { head = JSON.parse(text.slice(MAGIC.length, nl)) as { event: string; lost: number; callchain?: boolean }; } catch { yield* u.err(`  Error: ${input}: bad header\n`); return 255; }
  const hasChains = head.callchain === true;
  if (o.graph !== undefined && !hasChains && o.graph.split(',')[0] !== 'none') {
    // perf 6.1 prints the header's first lines, then gives up (exit status 0)
    yield* u.out('# To display the perf.data header info, please use --header/--header-only options.\n#\n');
    yield* u.err("Error:\nSelected -g or --branch-history.\nBut no callchain or branch data.\nDid you call 'perf record' without -g or -b?\n");
    return 0;
  }
  const mode = reportMode(o, hasChains);
  if (!mode) { yield* u.err(`perf report here draws call graphs as 'graph' only (-g graph|none,THRESHOLD,caller|callee): ${o.graph}\n`); return 129; }
  const samples = decodeSamples(Buffer.from(data.subarray(nl + 1)));
  yield* u.out(formatReport(head.event, head.lost, samples, ksym, mode));
  return 0;
}

/** A syscall's arguments as its sys_enter tracepoint's format names them (perf trace reads the format files). */
function syscallArgs(call: string): TraceArg[] {
  const ev = findEvent('syscalls', `sys_enter_${call}`);
  return ev ? ev.fields.filter((f) => !f.name.startsWith('common_') && f.name !== '__syscall_nr').map((f) => ({ name: f.name, type: f.type })) : [];
}

/**
 * perf trace CMD: raw_syscalls enter/exit of the workload (and its children), printed as strace-like
 * lines (perf/trace_print.ts); -s: the per-thread summary instead, -S: both.
 */
export function* perfTrace(u: U, argv: string[]): G<number> {
  let i = 0;
  let summary = false, lines = true;
  for (; i < argv.length && argv[i].startsWith('-'); i++) {
    if (argv[i] === '-s' || argv[i] === '--summary') { summary = true; lines = false; }
    else if (argv[i] === '-S' || argv[i] === '--with-summary') summary = true;
    else if (argv[i] === '--') { i++; break; }
    else { yield* u.err(`  Error: unknown switch \`${argv[i].replace(/^-+/, '')}'\n`); return 129; }
  }
  const cmd = argv.slice(i);
  if (!cmd.length) { yield* u.err('perf trace here traces a command: perf trace [-s|-S] COMMAND\n'); return 129; }
  const specs = yield* resolveEvents(u, ['raw_syscalls:sys_enter,raw_syscalls:sys_exit']);
  if (typeof specs === 'string' || specs.length !== 2) return 1;
  // both events on one workload: two fds; the child is started once both are open
  const work = yield* prepareWorkload(u, cmd);
  if (!work) return 127;
  const fds: number[] = [];
  for (const s of specs) {
    const fd = yield* perfEventOpen(u, { ...s.attr!, sample: 1, raw: true, enableOnExec: true }, work.pid, -1);
    if (fd < 0) return 1;
    fds.push(fd);
  }
  yield* work.go();
  const r = yield* u.sys('wait4', [work.pid, 0, 0, 0]);
  const all: DecodedSample[][] = [];
  for (const fd of fds) {
    const parts: Uint8Array[] = [];
    for (;;) {
      const x = yield* u.read(fd, 65536);
      if (x.ret <= 0 || !x.data) break;
      parts.push(x.data);
    }
    yield* u.close(fd);
    all.push(decodeSamples(Buffer.concat(parts)));
  }
  const name = (nr: number) => syscallByNr(nr)?.name ?? String(nr);
  // perf trace writes to stderr, as the workload's own output goes to stdout
  if (lines) yield* u.err(formatTraceLines(all[0], all[1], name, syscallArgs));
  if (summary) yield* u.err(formatTraceSummary(all[0], all[1], name));
  return (((r.info?.status as number) ?? 0) >> 8) & 0xff;
}
