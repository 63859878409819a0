/**
 * The converter: raw recorder output (REC_WORK/raw/<workload>/{graph,events,strace}/, raw/system/) to
 * the compact committed data (data/recordings/<workload>.json.gz, system.json.gz, index.json).
 * Re-runnable on the raw traces: `node dist/scripts/record/convert.js --raw DIR --out DIR [NAME ...]`.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as readline from 'readline';
import * as zlib from 'zlib';
import { EventsConverter } from './events';
import { GraphConverter, GraphResult } from './graph';
import { Interner } from './intern';
import { FORMAT_VERSION, IndexEntry, Recording, RecordingIndex, RunInfo, loadIndex } from './recording';
import { parseStrace } from './strace';
import { convertProcs, convertSystem, droppedEvents } from './system';

const KERNEL = '6.1.0-56-amd64';

function readText(p: string): string { return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : ''; }

function meta(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of readText(path.join(dir, 'meta')).split('\n')) {
    const i = l.indexOf('\t');
    if (i > 0) out[l.slice(0, i)] = l.slice(i + 1);
  }
  return out;
}

async function eachLine(gz: string, fn: (s: string) => void): Promise<void> {
  if (!fs.existsSync(gz)) return;
  const rl = readline.createInterface({ input: fs.createReadStream(gz).pipe(zlib.createGunzip()), crlfDelay: Infinity });
  for await (const l of rl) fn(l);
}

function runInfo(dir: string, lines: number): RunInfo {
  const m = meta(dir);
  const calib = [m.calib0, m.calib1].filter((x) => x !== undefined && x !== '').map(Number);
  return {
    seconds: Math.round((Number(m.t1) - Number(m.t0)) * 1000) / 1000, status: Number(m.status ?? 0),
    dropped: droppedEvents(readText(path.join(dir, 'buffer_stats'))), lines,
    ...(calib.length ? { calib } : {}),
  };
}

/** how much slower than the median calibration of the index a run may be before it is reported */
const CALIB_SLACK = 1.5;

/**
 * The recordings whose runs were slowed by a loaded host: their slowest calibration against the
 * median of every recording's (the guest's usual speed; the loop's own spread on a quiet host is
 * about +-25%). Their tick, RCU and timer events are too many for their work: re-record them on a
 * quiet host.
 */
export function slowedRecordings(index: RecordingIndex): { name: string; ratio: number }[] {
  const withCalib = index.recordings.filter((r) => r.summary.calib !== undefined);
  if (withCalib.length === 0) return [];
  const sorted = withCalib.map((r) => r.summary.calib!).sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  return withCalib.map((r) => ({ name: r.name, ratio: r.summary.calib! / median })).filter((r) => r.ratio > CALIB_SLACK);
}

function dense(m: Map<number, number>, n: number): number[] {
  const a = new Array<number>(n).fill(0);
  for (const [k, v] of m) a[k] = v;
  return a;
}

function vmstatDelta(before: string, after: string): Record<string, number> {
  const parse = (s: string): Map<string, number> => new Map(s.split('\n').filter(Boolean).map((l) => { const [k, v] = l.split(' '); return [k, Number(v)]; }));
  const a = parse(before);
  const out: Record<string, number> = {};
  for (const [k, v] of parse(after)) if (v !== (a.get(k) ?? 0)) out[k] = v - (a.get(k) ?? 0);
  return out;
}

/**
 * Drop the shapes no kept entry uses (made before the workload's successful execve restarted the
 * counts) and renumber the rest in first-use order, references and entries included.
 */
function compactShapes(shapes: Interner, kinds: Map<number, string>, graph: GraphResult): void {
  const remap = new Map<number, number>();
  const kept = new Interner();
  const keptKinds = new Map<number, string>();
  const uses = new Map<number, number>();
  const rewrite = (text: string): string => text.replace(/@(\d+)/g, (_m, d: string) => `@${keep(Number(d))}`);
  const keep = (id: number): number => {
    let n = remap.get(id);
    if (n === undefined) {
      const text = rewrite(shapes.names[id]);
      n = kept.id(text);
      remap.set(id, n);
      keptKinds.set(n, kinds.get(id) ?? 'entry');
      uses.set(n, graph.shapeUses.get(id) ?? 0);
    }
    return n;
  };
  for (const t of graph.tasks) for (let i = 2; i < t.entries.length; i += 3) t.entries[i] = keep(t.entries[i]);
  shapes.reset(kept.names);
  kinds.clear();
  for (const [k, v] of keptKinds) kinds.set(k, v);
  graph.shapeUses.clear();
  for (const [k, v] of uses) graph.shapeUses.set(k, v);
}

function calibs(runs: Recording['runs']): number[] {
  return [runs.graph, runs.events, runs.strace].flatMap((r) => r?.calib ?? []);
}

export async function convertWorkload(raw: string): Promise<Recording> {
  const functions = new Interner();
  const shapes = new Interner();
  const events = new Interner();
  const shapeKinds = new Map<number, string>();
  const gdir = path.join(raw, 'graph');
  const edir = path.join(raw, 'events');
  const sdir = path.join(raw, 'strace');
  const m = meta(fs.existsSync(gdir) ? gdir : edir);
  const flags = (m.flags ?? '').split(',').filter(Boolean);
  const background = flags.includes('background');
  const runs: Recording['runs'] = {};

  let graph = null;
  if (fs.existsSync(path.join(gdir, 'trace.gz'))) {
    const g = new GraphConverter({ rootPid: background ? null : Number(meta(gdir).pid), functions, shapes, events, shapeKinds });
    await eachLine(path.join(gdir, 'trace.gz'), (l) => g.line(l));
    graph = g.finish();
    runs.graph = runInfo(gdir, graph.lines);
  }
  let ev = null;
  if (fs.existsSync(path.join(edir, 'trace.gz'))) {
    const e = new EventsConverter(events, background ? null : Number(meta(edir).pid));
    await eachLine(path.join(edir, 'trace.gz'), (l) => e.line(l));
    ev = e.finish();
    runs.events = runInfo(edir, ev.lines);
  }
  const strace = parseStrace(readText(path.join(sdir, 'strace.txt')));
  if (fs.existsSync(sdir)) runs.strace = runInfo(sdir, strace.length);
  const maps: Recording['maps'] = [];
  const mdir = path.join(sdir, 'maps');
  if (fs.existsSync(mdir)) {
    for (const f of fs.readdirSync(mdir).filter((x) => /^\d+$/.test(x)).sort((a, b) => Number(a) - Number(b)))
      maps.push({ pid: Number(f), cmdline: readText(path.join(mdir, `${f}.cmdline`)).trim(), maps: readText(path.join(mdir, f)) });
  }

  if (graph) compactShapes(shapes, shapeKinds, graph);
  const nf = functions.size;
  const calls = graph ? dense(graph.calls, nf) : new Array<number>(nf).fill(0);
  const shapeCounts = graph ? dense(graph.shapeUses, shapes.size) : [];
  const eventCounts = ev ? dense(ev.counts, events.size) : new Array<number>(events.size).fill(0);
  const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
  const fid = (n: string): number => (functions.has(n) ? functions.id(n) : -1);
  const eid = (n: string): number => (events.has(n) ? events.id(n) : -1);
  const calib = calibs(runs);
  const rec: Recording = {
    format: FORMAT_VERSION, name: m.name, command: m.command, setup: m.setup ?? '', flags, kernel: KERNEL, cpus: 4, memMB: 2048,
    runs, functions: functions.names, functionModules: graph ? Object.fromEntries([...graph.modules].sort()) : {}, calls, timeNs: graph ? dense(graph.timeNs, nf) : [],
    shapes: shapes.names, shapeKinds: shapes.names.map((_, i) => shapeKinds.get(i) ?? 'entry'), shapeCounts,
    tasks: graph ? graph.tasks : [],
    events: events.names, eventCounts, systemEventCounts: ev ? dense(ev.systemCounts, events.size) : [],
    eventRecords: ev ? ev.records : [], eventRecordsDropped: ev ? ev.recordsDropped : 0,
    vmstat: vmstatDelta(readText(path.join(edir, 'vmstat.before')), readText(path.join(edir, 'vmstat.after'))),
    strace: strace.map((r) => [r.pid, r.t, r.name, r.args, r.ret]), maps,
    summary: {
      distinctFunctions: calls.filter((c) => c > 0).length, calls: sum(calls),
      pageFaults: fid('handle_mm_fault') >= 0 ? calls[fid('handle_mm_fault')] : 0,
      pageFaultEvents: (eventCounts[eid('page_fault_user')] ?? 0) + (eventCounts[eid('page_fault_kernel')] ?? 0),
      syscalls: strace.filter((r) => r.name !== '---' && r.name !== '+++').length,
      tasks: graph ? graph.tasks.length : 0, shapes: shapes.size, events: sum(eventCounts),
      ...(calib.length ? { calib: Math.max(...calib) } : {}),
    },
  };
  return rec;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (k: string): string | undefined => { const i = args.indexOf(k); return i >= 0 ? args.splice(i, 2)[1] : undefined; };
  const raw = opt('--raw') ?? path.join(process.env.REC_WORK ?? '/tmp/tapsim-record', 'raw');
  const out = opt('--out') ?? path.join(__dirname, '..', '..', '..', 'data', 'recordings');
  // the system snapshot: converted when asked (record.sh, for a batch that recorded one) or when every
  // raw recording is converted; a raw snapshot left from an earlier boot is not converted again
  const si = args.indexOf('--system');
  const withSystem = si >= 0 ? (args.splice(si, 1), true) : args.length === 0;
  const names = args.length ? args : fs.readdirSync(raw).filter((d) => d !== 'system' && fs.statSync(path.join(raw, d)).isDirectory()).sort();
  fs.mkdirSync(out, { recursive: true });
  const index: RecordingIndex = loadIndex(out);
  if (withSystem && fs.existsSync(path.join(raw, 'system'))) {
    const sys = convertSystem(path.join(raw, 'system'));
    fs.writeFileSync(path.join(out, 'system.json.gz'), zlib.gzipSync(JSON.stringify(sys), { level: 9 }));
    fs.writeFileSync(path.join(out, 'procs.json.gz'), zlib.gzipSync(JSON.stringify(convertProcs(path.join(raw, 'system'))), { level: 9 }));
    console.log('system: snapshot, processes and idle rates');
  }
  for (const name of names) {
    const dir = path.join(raw, name);
    if (!fs.existsSync(dir)) { console.error(`convert: no raw recording ${dir}`); process.exitCode = 1; continue; }
    const t = Date.now();
    const rec = await convertWorkload(dir);
    const file = `${name}.json.gz`;
    fs.writeFileSync(path.join(out, file), zlib.gzipSync(JSON.stringify(rec), { level: 9 }));
    const entry: IndexEntry = { name, command: rec.command, setup: rec.setup, file, summary: rec.summary };
    const i = index.recordings.findIndex((r) => r.name === name);
    if (i >= 0) index.recordings[i] = entry; else index.recordings.push(entry);
    const s = rec.summary;
    console.log(`${name}: ${s.distinctFunctions} functions, ${s.calls} calls, ${s.pageFaults} faults, ${s.syscalls} syscalls, ` +
      `${s.shapes} shapes, ${s.events} events (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }
  index.recordings.sort((a, b) => a.name.localeCompare(b.name));
  index.format = FORMAT_VERSION;
  fs.writeFileSync(path.join(out, 'index.json'), JSON.stringify(index, null, 1) + '\n');
  for (const r of slowedRecordings(index))
    console.warn(`convert: warning: ${r.name} ran ${r.ratio.toFixed(2)}x slower than the recordings' median calibration ` +
      `(the host was loaded: too many tick and RCU events for its work); re-record it on a quiet host`);
}

if (require.main === module) main().catch((e) => { console.error(`convert: ${e instanceof Error ? e.message : e}`); process.exit(1); });
