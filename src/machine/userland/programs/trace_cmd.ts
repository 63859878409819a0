/**
 * trace-cmd 3.1 inside the machine: record, start, stop, extract, report, list, stat, show, reset.
 * Like the real one it is a tracefs client: it writes current_tracer, set_ftrace_filter,
 * set_graph_function, set_ftrace_pid, set_event ..., runs the command, reads every CPU's
 * per_cpu/cpuN/trace_pipe_raw pages and stores them with the event formats, cmdlines and symbols in
 * a version-6 trace.dat (src/machine/userland/tracecmd/trace_dat.ts); report reads versions 6 and 7
 * (the real 3.1's default, zlib/zstd compressed) and prints as trace-cmd 3.1 does (tracecmd/report.ts).
 * Messages and layouts from the recording guest (test/fixtures/tracefs-real/tc_*,
 * scripts/tracefs/guest/part-tracecmd.sh). One difference: the real record stores /proc/kallsyms
 * whole; this one stores the symbols its function records need (the machine has no /proc/kallsyms).
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, Prog, SysResult } from '../../include/sched';
import { O_WRONLY, O_CREAT, O_TRUNC } from '../../include/fs';
import { lookupAddr, symbolName, symbolModule, symbolAddr, isFunction } from '../../../kernel/kallsyms';
import { readTraceDat, writeTraceDatV6, writeTraceDatV7, TraceDat, TraceDatError } from '../tracecmd/trace_dat';
import { Report, ReportOptions } from '../tracecmd/report';
import { parseFormat } from '../tracecmd/event_format';
import { pageEvents } from '../../../kernel/ring_buffer';
import { readText, writeText, listDir, which } from '../libfs';

type G<T> = Generator<Op, T, SysResult>;

const T = '/sys/kernel/tracing';
const O_NONBLOCK = 0o4000;
const SIGINT = 2;
export const TRACE_CMD_VERSION = '3.1.6 (not-a-git-repo)';

const USAGE = `
trace-cmd version ${TRACE_CMD_VERSION}

usage:
  trace-cmd [COMMAND] ...

  commands:
     record - record a trace into a trace.dat file
     start - start tracing without recording into a file
     extract - extract a trace from the kernel
     stop - stop the kernel from recording trace data
     show - show the contents of the kernel tracing buffer
     reset - disable all kernel tracing and clear the trace buffers
     report - read out the trace stored in a trace.dat file
     stat - show the status of the running tracing (ftrace) system
     list - list the available events, plugins or options

`;




/** die(): "trace-cmd: <errno text>\n  <message>\n", status 2 as the recorded runs show */
function* die(u: U, msg: string, errno = 'No such file or directory'): G<number> {
  yield* u.err(`trace-cmd: ${errno}\n  ${msg}\n`);
  return 2;
}

const glob = (g: string) => new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');

/** The events a -e argument names (SYSTEM:EVENT, SYSTEM, EVENT, globs in either part), as "sys:event". */
function* matchEvents(u: U, spec: string): G<string[]> {
  const [s, e] = spec.includes(':') ? spec.split(':', 2) : [null, spec];
  const out: string[] = [];
  for (const sys of yield* listDir(u, `${T}/events`)) {
    const sysDir = yield* listDir(u, `${T}/events/${sys}`);
    if (!sysDir.includes('enable')) continue;
    const events = sysDir.filter((n) => !['enable', 'filter'].includes(n));
    if (s === null && glob(e).test(sys)) { for (const ev of events) out.push(`${sys}:${ev}`); continue; }
    if (s !== null && !glob(s).test(sys)) continue;
    for (const ev of events) if (glob(e || '*').test(ev)) out.push(`${sys}:${ev}`);
  }
  return out;
}

interface RecordOpts {
  plugin?: string;
  events: string[];
  filters: string[];
  notrace: string[];
  graph: string[];
  pids: number[];
  follow: boolean;
  output: string;
  command: string[];
  /** --file-version (6, this trace-cmd's default; 7 with --compression none or --file-version 7) */
  fileVersion: number;
}

function parseRecord(argv: string[], withCommand: boolean): RecordOpts | string {
  const o: RecordOpts = { events: [], filters: [], notrace: [], graph: [], pids: [], follow: false, output: 'trace.dat', command: [], fileVersion: 6 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '--') { o.command = argv.slice(a === '--' ? i + 1 : i); break; }
    const val = () => { if (i + 1 >= argv.length) throw new Error(a); return argv[++i]; };
    switch (a) {
      case '-p': o.plugin = val(); break;
      case '-e': o.events.push(val()); break;
      case '-l': o.filters.push(val()); break;
      case '-n': o.notrace.push(val()); break;
      case '-g': o.graph.push(val()); break;
      case '-P': { const v = val(); if (!/^\d+$/.test(v)) return `invalid pid '${v}'`; o.pids.push(Number(v)); break; }
      case '-F': o.follow = true; break;
      case '-o': o.output = val(); break;
      case '--file-version': {
        const v = val();
        if (v !== '6' && v !== '7') return `Unsupported file version ${v}, supported versions are from 6 to 7`;
        o.fileVersion = Number(v);
        break;
      }
      // trace-cmd's zstd and zlib compressors are not here: version 7 is written uncompressed
      case '--compression': {
        const v = val();
        if (v !== 'none') return `Compression algorithm ${v} is not supported by this trace-cmd (only 'none')`;
        o.fileVersion = 7;
        break;
      }
      default: return `unknown option '${a}'`;
    }
  }
  if (!withCommand && o.command.length) return `unexpected argument '${o.command[0]}'`;
  if (o.follow && !o.command.length) return 'Filter on executable (-F) requires a command to execute';
  return o;
}

/** Set the tracing files up for a record or start; an error message on failure. */
function* setup(u: U, o: RecordOpts): G<string | null> {
  const tracers = ((yield* readText(u, `${T}/available_tracers`)) ?? '').trim().split(/\s+/);
  if (o.plugin && !tracers.includes(o.plugin)) return `Plugin '${o.plugin}' does not exist`;
  const events: string[] = [];
  for (const e of o.events) {
    const m = yield* matchEvents(u, e);
    if (!m.length) return `No events enabled with ${e}`;
    events.push(...m);
  }
  yield* writeText(u, `${T}/tracing_on`, '0');
  yield* resetFiles(u);
  if (o.filters.length && (yield* writeText(u, `${T}/set_ftrace_filter`, o.filters.join(' '))) < 0) return `Could not set function filter ${o.filters.join(' ')}`;
  if (o.notrace.length) yield* writeText(u, `${T}/set_ftrace_notrace`, o.notrace.join(' '));
  if (o.graph.length) yield* writeText(u, `${T}/set_graph_function`, o.graph.join(' '));
  if (o.pids.length) {
    yield* writeText(u, `${T}/set_ftrace_pid`, o.pids.join(' '));
    yield* writeText(u, `${T}/set_event_pid`, o.pids.join(' '));
  }
  for (const e of events) yield* writeText(u, `${T}/set_event`, e + '\n', true);
  if (o.plugin) {
    yield* u.out(`  plugin '${o.plugin}'\n`);
    yield* writeText(u, `${T}/current_tracer`, o.plugin);
  }
  yield* writeText(u, `${T}/trace`, '');
  return null;
}

/** What `trace-cmd reset` undoes. */
function* resetFiles(u: U): G<void> {
  yield* writeText(u, `${T}/current_tracer`, 'nop');
  yield* writeText(u, `${T}/set_event`, '');
  yield* writeText(u, `${T}/set_ftrace_filter`, '');
  yield* writeText(u, `${T}/set_ftrace_notrace`, '');
  yield* writeText(u, `${T}/set_graph_function`, '');
  yield* writeText(u, `${T}/set_ftrace_pid`, '');
  yield* writeText(u, `${T}/set_event_pid`, '');
  yield* writeText(u, `${T}/options/function-fork`, '0');
  yield* writeText(u, `${T}/options/event-fork`, '0');
}


/** Run the command (its pid in set_ftrace_pid/set_event_pid first with -F); its exit status. */
function* runCommand(u: U, o: RecordOpts): G<number> {
  const path = yield* which(u, o.command[0]);
  if (!path) { yield* u.err(`trace-cmd: No such file or directory\n  Failed to exec ${o.command[0]}\n`); return 127; }
  const follow = o.follow;
  const pid = yield* u.fork(function* (cu: U): Prog {
    if (follow) {
      // the command's threads and children too, as trace-cmd's -F sets the fork options
      yield* writeText(cu, `${T}/options/function-fork`, '1');
      yield* writeText(cu, `${T}/options/event-fork`, '1');
      const me = yield* cu.getpid();
      yield* writeText(cu, `${T}/set_ftrace_pid`, String(me));
      yield* writeText(cu, `${T}/set_event_pid`, String(me));
    }
    yield* writeText(cu, `${T}/tracing_on`, '1');
    yield* cu.exec(path, o.command);
    yield* cu.err(`trace-cmd: No such file or directory\n  Failed to exec ${o.command[0]}\n`);
    return 127;
  });
  const [, st] = yield* u.wait(pid);
  return st;
}

/** Wait for Ctrl-C (record/start without a command). */
function* untilInterrupted(u: U): G<void> {
  let stop = false;
  yield* u.sigaction(SIGINT, () => { stop = true; });
  yield* u.out('Hit Ctrl^C to stop recording\n');
  while (!stop) yield* u.nanosleep(100e6);
}

/** Every CPU's unread ring buffer pages (trace_pipe_raw, non-blocking). */
function* readRaw(u: U, ncpus: number): G<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let c = 0; c < ncpus; c++) {
    const fd = yield* u.open(`${T}/per_cpu/cpu${c}/trace_pipe_raw`, O_NONBLOCK);
    const parts: Uint8Array[] = [];
    if (fd >= 0) {
      for (;;) {
        const r = yield* u.read(fd, 4096);
        if (r.ret <= 0 || !r.data) break;
        parts.push(r.data);
      }
      yield* u.close(fd);
    }
    out.push(Buffer.concat(parts));
  }
  return out;
}

function* cpuCount(u: U): G<number> {
  return (yield* listDir(u, `${T}/per_cpu`)).filter((n) => /^cpu\d+$/.test(n)).length;
}

/** The symbols the function / function_graph records of `pages` point at, as kallsyms lines. */
function symbolsFor(dat: TraceDat): string {
  const ids = new Map<number, string>();
  const types = new Map<number, string[]>();
  for (const f of dat.ftraceFormats) {
    const ev = parseFormat('ftrace', f);
    if (!ev) continue;
    const want = ev.fields.filter((x) => ['ip', 'parent_ip', 'func'].includes(x.name)).map((x) => String(x.offset));
    if (want.length) types.set(ev.id, want);
  }
  const want = new Set<number>();
  for (const [cpu, data] of dat.cpuData.entries()) {
    for (let p = 0; p + 16 <= data.length; p += dat.pageSize) {
      const bytes = data.subarray(p, p + dat.pageSize);
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const commit = dv.getUint32(8, true) & 0x3fffffff;
      for (const e of pageEvents(cpu, dv, bytes, 0, Math.min(commit, dat.pageSize - 16), 0)) {
        const offs = types.get(dv.getUint16(e.off, true));
        if (offs) for (const o of offs) want.add(Number(dv.getBigInt64(e.off + Number(o), true)));
      }
    }
  }
  for (const a of want) {
    const s = lookupAddr(a);
    if (!s) continue;
    const addr = symbolAddr(s.id);
    const mod = symbolModule(s.id);
    ids.set(addr, `${BigInt.asUintN(64, BigInt(addr)).toString(16).padStart(16, '0')} ${isFunction(s.id) ? 't' : 'd'} ${symbolName(s.id)}${mod ? `\t[${mod}]` : ''}`);
  }
  return [...ids.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1] + '\n').join('');
}

/** Gather the metadata and the pages into a trace.dat and write it; prints what record prints. */
function* writeDat(u: U, file: string, cpuData: Uint8Array[], version = 6): G<number> {
  const ftrace: string[] = [];
  for (const ev of yield* listDir(u, `${T}/events/ftrace`)) {
    const f = yield* readText(u, `${T}/events/ftrace/${ev}/format`);
    if (f) ftrace.push(f);
  }
  const systems = new Map<string, string[]>();
  for (const line of ((yield* readText(u, `${T}/set_event`)) ?? '').split('\n')) {
    const [sys, ev] = line.split(':');
    if (!ev) continue;
    const f = yield* readText(u, `${T}/events/${sys}/${ev}/format`);
    if (!f) continue;
    if (!systems.has(sys)) systems.set(sys, []);
    systems.get(sys)!.push(f);
  }
  const uts = ((yield* readText(u, '/proc/sys/kernel/ostype')) ?? 'Linux').trim();
  const host = ((yield* readText(u, '/proc/sys/kernel/hostname')) ?? 'debian').trim();
  const rel = ((yield* readText(u, '/proc/sys/kernel/osrelease')) ?? '6.1.0-56-amd64').trim();
  const stats: string[] = [];
  for (let c = 0; c < cpuData.length; c++) stats.push(`CPU: ${c}\n${(yield* readText(u, `${T}/per_cpu/cpu${c}/stats`)) ?? ''}`);
  const dat: TraceDat = {
    version, pageSize: 4096, longSize: 8, compression: 'none',
    headerPage: (yield* readText(u, `${T}/events/header_page`)) ?? '',
    headerEvent: (yield* readText(u, `${T}/events/header_event`)) ?? '',
    ftraceFormats: ftrace, systems, kallsyms: '',
    printk: (yield* readText(u, `${T}/printk_formats`)) ?? '',
    cmdlines: (yield* readText(u, `${T}/saved_cmdlines`)) ?? '',
    clock: (yield* readText(u, `${T}/trace_clock`)) ?? '',
    uname: `${uts} ${host} ${rel} x86_64`, tracecmdVersion: '3.1.6 not-a-git-repo', cpuStats: stats, cpuData,
  };
  dat.kallsyms = symbolsFor(dat);
  // the trace id: 8 bytes of the machine's randomness
  const rnd = yield* readText(u, '/proc/sys/kernel/random/uuid');
  const id = Buffer.from((rnd ?? '').replace(/[^0-9a-f]/g, '').padEnd(16, '0').slice(0, 16), 'hex');
  const { file: bytes, cpus } = version === 7 ? writeTraceDatV7(dat, id) : writeTraceDatV6(dat, id);
  const fd = yield* u.open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644);
  if (fd < 0) return yield* die(u, `creating output file ${file}`);
  yield* u.writeAll(fd, bytes);
  yield* u.close(fd);
  for (const [c, p] of cpus.entries()) yield* u.out(`CPU${c} data recorded at offset=0x${p.offset.toString(16)}\n    ${p.size} bytes in size\n`);
  return 0;
}

function* record(u: U, argv: string[], mode: 'record' | 'start'): G<number> {
  let o: RecordOpts | string;
  try {
    o = parseRecord(argv, mode === 'record');
  } catch (e) {
    return yield* die(u, `option requires an argument -- '${(e as Error).message.replace(/^-/, '')}'`, 'Invalid argument');
  }
  if (typeof o === 'string') return yield* die(u, o, 'Invalid argument');
  if (mode === 'record' && !o.plugin && !o.events.length) o.events.push('all');
  if (o.events.includes('all')) o.events = o.events.filter((e) => e !== 'all').concat('*:*');
  const err = yield* setup(u, o);
  if (err) return yield* die(u, err);
  if (mode === 'start') { yield* writeText(u, `${T}/tracing_on`, '1'); return 0; }
  if (o.command.length) yield* runCommand(u, o);
  else { yield* writeText(u, `${T}/tracing_on`, '1'); yield* untilInterrupted(u); }
  yield* writeText(u, `${T}/tracing_on`, '0');
  const data = yield* readRaw(u, yield* cpuCount(u));
  const st = yield* writeDat(u, o.output, data, o.fileVersion);
  yield* resetFiles(u);
  yield* writeText(u, `${T}/tracing_on`, '1');
  return st;
}

function* extract(u: U, argv: string[]): G<number> {
  let out = 'trace.dat';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '-o' && i + 1 < argv.length) out = argv[++i];
    else return yield* die(u, `unknown option '${argv[i]}'`, 'Invalid argument');
  }
  const data = yield* readRaw(u, yield* cpuCount(u));
  return yield* writeDat(u, out, data);
}

function* report(u: U, argv: string[]): G<number> {
  let input = 'trace.dat';
  const o: ReportOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-i' && i + 1 < argv.length) input = argv[++i];
    else if (a === '--cpu' && i + 1 < argv.length) {
      o.cpus ??= new Set();
      for (const c of argv[++i].split(',')) o.cpus.add(Number(c));
    } else if (a === '-t') o.nsTime = true;
    else if (a === '-l') o.latency = true;
    else if (a === '-F' && i + 1 < argv.length) (o.events ??= []).push(argv[++i]);
    else if (!a.startsWith('-') && i === argv.length - 1) input = a;
    else return yield* die(u, `unknown option '${a}'`, 'Invalid argument');
  }
  const fd = yield* u.open(input);
  if (fd < 0) { yield* u.err(`trace-cmd: No such file or directory\n  opening '${input}'\n\n`); return 2; }
  const bytes = yield* u.readAll(fd);
  yield* u.close(fd);
  let rep: Report;
  try {
    rep = new Report(readTraceDat(bytes), o);
  } catch (e) {
    if (!(e instanceof TraceDatError)) throw e;
    yield* u.err(`trace-cmd: Invalid argument\n  reading '${input}': ${e.message}\n`);
    return 2;
  }
  let buf = '';
  for (const l of rep.lines()) {
    buf += l;
    if (buf.length > 65536) { yield* u.out(buf); buf = ''; }
  }
  yield* u.out(buf);
  return 0;
}

function* list(u: U, argv: string[]): G<number> {
  const what = argv.length ? argv : ['-e', '-t', '-o'];
  for (let i = 0; i < what.length; i++) {
    const a = what[i];
    const pat = what[i + 1] && !what[i + 1].startsWith('-') ? what[++i] : null;
    const re = pat ? new RegExp(pat) : null;
    if (a === '-t') yield* u.out(((yield* readText(u, `${T}/available_tracers`)) ?? '').trim() + '\n');
    else if (a === '-e') {
      const lines = ((yield* readText(u, `${T}/available_events`)) ?? '').split('\n').filter((l) => l && (!re || re.test(l)));
      yield* u.out(lines.map((l) => l + '\n').join(''));
    } else if (a === '-o') {
      let s = '';
      for (const n of yield* listDir(u, `${T}/options`)) {
        const v = ((yield* readText(u, `${T}/options/${n}`)) ?? '').trim();
        s += (v === '1' ? '' : 'no') + n + '\n';
      }
      yield* u.out(s);
    } else if (a === '-f') {
      const lines = ((yield* readText(u, `${T}/available_filter_functions`)) ?? '').split('\n').filter((l) => l && (!re || re.test(l)));
      yield* u.out(lines.map((l) => l + '\n').join(''));
    } else return yield* die(u, `unknown option '${a}'`, 'Invalid argument');
  }
  return 0;
}

function* stat(u: U): G<number> {
  let s = '';
  const tracer = ((yield* readText(u, `${T}/current_tracer`)) ?? 'nop').trim();
  if (tracer !== 'nop') s += `\nTracer: ${tracer}\n`;
  const ev = ((yield* readText(u, `${T}/set_event`)) ?? '').trim();
  s += '\nEvents:\n' + (ev ? ' Individual events:\n' + ev.split('\n').map((l) => `   ${l}\n`).join('') : ' All disabled\n');
  for (const [file, title] of [['set_ftrace_filter', 'Function Filter'], ['set_ftrace_notrace', 'Function No Trace'], ['set_graph_function', 'Graph Filter'], ['set_ftrace_pid', 'Filtered PIDs']]) {
    const t = ((yield* readText(u, `${T}/${file}`)) ?? '').split('\n').filter((l) => l && !l.startsWith('#') && l !== 'no pid');
    if (t.length) s += `\n${title}:\n` + t.map((l) => `   ${l}\n`).join('');
  }
  s += `\nBuffer size in kilobytes (per cpu):\n   ${((yield* readText(u, `${T}/buffer_size_kb`)) ?? '').trim()}\n`;
  s += `\nBuffer total size in kilobytes:\n   ${((yield* readText(u, `${T}/buffer_total_size_kb`)) ?? '').trim()}\n`;
  const clock = /\[(.*?)\]/.exec((yield* readText(u, `${T}/trace_clock`)) ?? '')?.[1] ?? 'local';
  if (clock !== 'local') s += `\nClock: ${clock}\n`;
  const on = ((yield* readText(u, `${T}/tracing_on`)) ?? '0').trim();
  s += on === '1' ? '\nTracing is enabled\n' : '\nTracing is disabled\n';
  const stack = ((yield* readText(u, '/proc/sys/kernel/stack_tracer_enabled')) ?? '').trim();
  // trace-cmd 3.1 prints this for a readable "0" (the recording guest shows it)
  s += stack === '1' ? '\nStack tracing is enabled\n\n' : '\nError reading stack tracer status\n\n';
  yield* u.out(s);
  return 0;
}

function* show(u: U, argv: string[]): G<number> {
  const file = argv.includes('-p') ? 'trace_pipe' : argv.includes('--tracing_on') ? 'tracing_on' : argv.includes('--current_tracer') ? 'current_tracer' : 'trace';
  const fd = yield* u.open(`${T}/${file}`);
  if (fd < 0) return yield* die(u, `opening ${file}`);
  for (;;) {
    const r = yield* u.read(fd, 65536);
    if (r.ret <= 0 || !r.data) break;
    yield* u.writeAll(1, r.data);
  }
  yield* u.close(fd);
  return 0;
}

export const traceCmd: ProgramMain = function* (u, argv) {
  const [cmd, ...rest] = argv.slice(1);
  switch (cmd) {
    case 'record': return yield* record(u, rest, 'record');
    case 'start': return yield* record(u, rest, 'start');
    case 'stop': yield* writeText(u, `${T}/tracing_on`, '0'); return 0;
    case 'restart': yield* writeText(u, `${T}/tracing_on`, '1'); return 0;
    case 'extract': return yield* extract(u, rest);
    case 'report': return yield* report(u, rest);
    case 'list': return yield* list(u, rest);
    case 'stat': return yield* stat(u);
    case 'show': return yield* show(u, rest);
    case 'reset':
      yield* resetFiles(u);
      yield* writeText(u, `${T}/trace`, '');
      yield* writeText(u, `${T}/tracing_on`, '1');
      return 0;
    case 'clear': yield* writeText(u, `${T}/trace`, ''); return 0;
    case '--version': case '-v':
      yield* u.out(`\ntrace-cmd version ${TRACE_CMD_VERSION}\n\n`);
      return 0;
    default:
      yield* u.err(USAGE);
      return 255;
  }
};
