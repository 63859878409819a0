/**
 * `npm run fidelity [-- WORKLOAD ...] [--seed N] [--slowdown X] [--write]`: how close tapsim's machine is to the real
 * Debian 12 kernel, per workload (issue 14, part 4). WORKLOAD is a catalogue name (`ls-root`) or any
 * command string (`'ls /'`); with none, every recording in data/recordings/ is measured and the table
 * is written to bench/FIDELITY.md, with the held-out recordings (data/recordings/heldout/: commands outside
 * the catalogue, which nothing in the machine was generated from) in a section of their own. For each workload: the tapsim run (bench/fidelity_run.ts) against
 * the recording (scripts/record/FORMAT.md):
 *   fn J    weighted Jaccard of per-function call counts of the workload's tasks (Σmin / Σmax)
 *   ev J    the same for tracepoint event counts
 *   sys     normalized edit similarity of each task's syscall-name sequence vs the strace recording
 *           (tasks matched in creation order; fidelity_measure.ts syscallSimilarity says why per task)
 *   distinct functions, calls, syscalls and page faults (handle_mm_fault calls) on each side
 * The machine runs at the recordings' CPU speed (cpuSlowdown: their QEMU guest emulated the CPU, TCG):
 * a full run measures every workload first at hardware speed (cpuSlowdown 1: FIDELITY.md's
 * "At hardware speed" table, and the on-CPU times fidelity_speed.ts derives the recordings' slowdown
 * from, stored in bench/recording_speed.json), then at the recordings' slowdowns (the main table: fn J and the
 * counts at the graph runs' median, ev J at the events runs'). A run of some workloads uses the stored
 * slowdowns; `--slowdown X` sets both (1: hardware speed).
 */
import * as fs from 'fs';
import * as path from 'path';
import { compareSides, FidelityRow, FidelitySide } from './fidelity_measure';
import { runSimulated, flagBytes, recorderWarmsUp, warmUpCommand } from './fidelity_run';
import { findRecording, HELDOUT_DIR, IndexEntry, loadIndex, loadRecording, Recording, RECORDINGS_DIR } from '../scripts/record/recording';
import { parseShape, ShapeNode } from '../scripts/record/shape';
import { syscalls as syscallTable } from '../src/kernel/syscalls';
import { MIN_TICKS, SpeedSample, speedSamples, storedSlowdown, storeSlowdown } from './fidelity_speed';

export function recordedSide(r: Recording): FidelitySide {
  const functions = new Map<string, number>();
  r.functions.forEach((f, i) => { if (r.calls[i] > 0) functions.set(f, (functions.get(f) ?? 0) + r.calls[i]); });
  const events = new Map<string, number>();
  r.events.forEach((e, i) => { if (r.eventCounts[i] > 0) events.set(e, r.eventCounts[i]); });
  const lines = r.strace.filter((s) => s[2] !== '---' && s[2] !== '+++');
  const syscalls = lines.map((s) => s[2]);
  // the tasks in creation order: the root, then the pids fork/vfork/clone returned, in the order of the calls
  const order = lines.length ? [lines[0][0]] : [];
  for (const s of lines) if (/^(clone3?|v?fork)$/.test(s[2]) && /^\d+$/.test(s[4])) order.push(Number(s[4]));
  const per = new Map<number, string[]>(order.map((p) => [p, []]));
  for (const s of lines) per.get(s[0])?.push(s[2]);
  // a recording made without its strace run (flag nostrace: idle traces the whole system) has no sequence
  return { functions, events, syscalls, tasks: [...per.values()], straced: r.strace.length > 0 };
}

let sysNames: Map<string, string> | null = null;
/** The syscall-table name of a syscall function ('__x64_sys_newfstatat' -> 'newfstatat'). */
function sysName(fn: string): string {
  if (!sysNames) {
    sysNames = new Map();
    for (const s of syscallTable()) if (s.abi !== 'x32' && s.tableSymbol && !sysNames.has(s.tableSymbol)) sysNames.set(s.tableSymbol, s.name);
  }
  return sysNames.get(fn) ?? fn.replace(/^__(x64|do|se)_sys_/, '');
}

/**
 * The recording's calls per kernel entry, named as the simulated side names them (bench/fidelity_run.ts
 * byEntry): 'sys:NAME' (x64_sys_call's syscall function), 'fault' (a user page fault), 'irq' (every
 * interrupt and softirq, wherever it ran), 'fork_return', 'other'.
 */
export function recordedEntries(r: Recording): Map<string, number> {
  const out = new Map<string, number>();
  const parsed = new Map<number, ShapeNode[]>();
  const shape = (id: number): ShapeNode[] => { let p = parsed.get(id); if (!p) parsed.set(id, (p = parseShape(r.shapes[id]))); return p; };
  const walk = (ns: readonly ShapeNode[], k: number, b: string): void => {
    for (const n of ns) {
      const m = k * n.repeat;
      if (n.kind === 'call') { out.set(b, (out.get(b) ?? 0) + m); walk(n.children, m, b); } else if (n.kind === 'ref') walk(shape(n.shape), m, 'irq');
    }
  };
  for (const t of r.tasks) {
    for (let i = 0; i < t.entries.length; i += 3) {
      const ns = shape(t.entries[i + 2]);
      const top = ns.find((x) => x.kind === 'call');
      let b = 'other';
      if (top && top.kind === 'call') {
        const f = r.functions[top.fn];
        const sys = top.children.find((x) => x.kind === 'call');
        if (f === 'x64_sys_call' && sys && sys.kind === 'call') b = `sys:${sysName(r.functions[sys.fn])}`;
        else if (f === 'lock_mm_and_find_vma' || f === 'do_user_addr_fault') b = 'fault';
        else if (f === 'schedule_tail') b = 'fork_return';
      }
      walk(ns, 1, b);
    }
  }
  return out;
}

/** Per-entry lines (real vs tapsim calls), the largest differences first. */
function entryLines(real: ReadonlyMap<string, number>, sim: ReadonlyMap<string, number>, top = 12): string[] {
  const keys = [...new Set([...real.keys(), ...sim.keys()])];
  const d = (k: string): number => Math.abs((real.get(k) ?? 0) - (sim.get(k) ?? 0));
  keys.sort((a, b) => d(b) - d(a) || (a < b ? -1 : 1));
  return keys.slice(0, top).map((k) => `    ${k}: real ${real.get(k) ?? 0}, tapsim ${sim.get(k) ?? 0}`);
}

const pct = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(3));

function rowLine(name: string, command: string, row: FidelityRow): string {
  return `| ${name} | \`${command.replace(/\|/g, '\\|')}\` | ${pct(row.functionJaccard)} | ${pct(row.eventJaccard)} | ${pct(row.syscallSimilarity)} | ` +
    `${row.distinct.sim} / ${row.distinct.real} | ${row.calls.sim} / ${row.calls.real} | ${row.syscalls.sim} / ${Number.isNaN(row.syscallSimilarity) ? 'n/a' : row.syscalls.real} | ` +
    `${row.pageFaults.sim} / ${row.pageFaults.real} |`;
}

export const TABLE_HEAD = '| workload | command | fn J | ev J | sys | distinct fns sim / real | calls sim / real | syscalls sim / real | faults sim / real |\n' +
  '|---|---|---|---|---|---|---|---|---|';

/**
 * The CPU the recorded workload started on in the graph run (its root's first kernel entry) or, with
 * `eventsRun`, in the events run (the CPU of its first event record: the two runs were separate
 * executions, often on different CPUs): the machine's serial interrupts land in the workload only when
 * it runs on the CPU IRQ 4 is routed to, as in the recordings.
 */
export function recordedCpu(rec: Recording, eventsRun = false): number | undefined {
  const c = eventsRun && rec.eventRecords.length >= 3 ? rec.eventRecords[2] : rec.tasks[0]?.entries[1];
  return typeof c === 'number' && c >= 0 ? c : undefined;
}

/**
 * The recordings made before the recorder had its untraced warm-up run (be2b24e; scripts/record/README.md
 * lists the warm ones): their traced runs followed only SETUP and `sync; sleep 0.5`, so the machine skips
 * the warm-up for them too. Re-recording one makes it warm: take it off this list (head, grep, sync,
 * pagecache-hit, cow, sleep and anon-fault were, in 373b66c: their events runs read nothing from disk
 * although that boot's pagecache-miss had dropped the page cache after their graph runs,
 * RECORDED_WITH_DROP_CACHES).
 */
export const RECORDED_BEFORE_WARM_UP: ReadonlySet<string> = new Set([
  'cat', 'gzip', 'pagecache-miss', 'signal', 'swap', 'tcp-http', 'idle',
]);

/** Whether the machine runs the recorder's warm-up before the workload (recorder.sh run_setup, as the recording was made). */
export function warmsUp(rec: Recording): boolean {
  return recorderWarmsUp(rec.flags) && !RECORDED_BEFORE_WARM_UP.has(rec.name);
}

/**
 * The recordings whose boot also recorded pagecache-miss (its setup ends `echo 3 > /proc/sys/vm/drop_caches`):
 * recorder.sh runs the graph runs of every workload of a boot, then every events run, so that drop came
 * between each one's graph run and its events phase (the batches of 373b66c and 66856cb, whose message
 * notes it: ls-root, wc, cp and timeout read their programs from disk again). Their events runs find the
 * files and programs the drop evicted read once more by the events phase's warm-up only: referenced, not
 * active (cp, files, stat, wc and tar-gzip: the events run activates as many pages as the graph run,
 * mm_lru_activate 38 21 10 364 ..., where a boot without the drop activates none: tar, cp-r, ls-l).
 * Re-recording one in a boot without pagecache-miss: take it off this list.
 */
export const RECORDED_WITH_DROP_CACHES: ReadonlySet<string> = new Set([
  'grep', 'wc', 'head', 'stat', 'sleep', 'anon-fault', 'fork-wait', 'files', 'pipe', 'pagecache-hit', 'tar-gzip', 'cp', 'cow', 'sync', 'signal',
]);

/**
 * What the recording's boot ran between its graph run and its events phase that the machine replays
 * (SimOptions.betweenRuns): for RECORDED_WITH_DROP_CACHES, pagecache-miss's run_setup (its SETUP, which
 * drops the page cache, then `sync; sleep 0.5`) and its run (cold: no warm-up), as recorder.sh ran them.
 */
export function bootBetweenRuns(rec: Recording): string[] | undefined {
  if (!RECORDED_WITH_DROP_CACHES.has(rec.name)) return undefined;
  const pm = findRecording('pagecache-miss');
  if (!pm) return undefined;
  return [...(pm.setup ? [pm.setup] : []), 'sync; sleep 0.5', warmUpCommand(pm.command)];
}

interface Measured { row: FidelityRow; ms: number; status: number; entries: string[]; samples: SpeedSample[] }

/** A recording to measure: its index entry and its directory (the catalogue's, or the held-out one). */
interface Workload { entry: IndexEntry; dir: string }

function measure({ entry, dir }: Workload, seed: number, cpuSlowdown: number, eventsRun = false): Measured {
  const rec = loadRecording(entry, dir);
  const t = Date.now();
  const memcg = rec.flags.find((f) => f.startsWith('memcg='));
  const sim = runSimulated(rec.command, { setup: rec.setup || undefined, warmUp: warmsUp(rec), eventsRun: eventsRun && !rec.flags.includes('background'), betweenRuns: bootBetweenRuns(rec), seed, allTasks: rec.flags.includes('background'), memcgMax: memcg ? flagBytes(memcg.slice(6)) : undefined, cpu: recordedCpu(rec, eventsRun), cpuSlowdown });
  const ms = Date.now() - t;
  return { row: compareSides(sim, recordedSide(rec)), ms, status: sim.status, entries: entryLines(recordedEntries(rec), sim.byEntry), samples: speedSamples(rec, sim.onCpuNs) };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The table's summary: fn J and ev J median / mean / counts over thresholds, distinct functions within 10%. */
export function summary(rows: readonly FidelityRow[]): string {
  const fn = rows.map((r) => r.functionJaccard), ev = rows.map((r) => r.eventJaccard);
  const over = (xs: number[], t: number): number => xs.filter((x) => x >= t).length;
  const within = rows.filter((r) => Math.abs(r.distinct.sim - r.distinct.real) <= 0.1 * r.distinct.real).length;
  return `fn J median ${pct(median(fn))}, mean ${pct(mean(fn))} (${over(fn, 0.8)}/${rows.length} ≥ 0.8); ` +
    `ev J median ${pct(median(ev))}, mean ${pct(mean(ev))} (${over(ev, 0.8)}/${rows.length} ≥ 0.8, ${over(ev, 0.9)} ≥ 0.9); ` +
    `distinct functions within 10%: ${within}/${rows.length}`;
}

/** The held-out table's summary: fn J and ev J median, mean and how many reach issue 14's 0.6 for workloads outside the catalogue. */
export function heldoutSummary(rows: readonly FidelityRow[]): string {
  const fn = rows.map((r) => r.functionJaccard), ev = rows.map((r) => r.eventJaccard);
  const over = (xs: number[]): number => xs.filter((x) => x >= 0.6).length;
  return `fn J median ${pct(median(fn))}, mean ${pct(mean(fn))}, min ${pct(Math.min(...fn))} (${over(fn)}/${rows.length} ≥ 0.6); ` +
    `ev J median ${pct(median(ev))}, mean ${pct(mean(ev))}, min ${pct(Math.min(...ev))} (${over(ev)}/${rows.length} ≥ 0.6)`;
}

function main(): void {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const si = args.indexOf('--seed');
  const seed = si >= 0 ? Number(args.splice(si, 2)[1]) : 1;
  const di = args.indexOf('--slowdown');
  const slowdownArg = di >= 0 ? Number(args.splice(di, 2)[1]) : undefined;
  const wanted = args.filter((a) => !a.startsWith('--'));
  const all = wanted.length === 0;
  const entries: Workload[] = [];
  const heldout: Workload[] = [];
  let missing = 0;
  for (const w of wanted) {
    const e = findRecording(w);
    const h = e ? null : findRecording(w, HELDOUT_DIR);
    if (h) entries.push({ entry: h, dir: HELDOUT_DIR });
    else if (!e) {
      console.error(`fidelity: no recording for '${w}' (neither a catalogue name nor a recorded command).\n` +
        `  Record it on the real kernel with: npm run record -- '${w.replace(/'/g, "'\\''")}'\n` +
        `  (scripts/record/README.md; it boots Debian 12 under QEMU), then run npm run fidelity -- '${w.replace(/'/g, "'\\''")}' again.`);
      missing++;
    } else entries.push({ entry: e, dir: RECORDINGS_DIR });
  }
  if (all) {
    entries.push(...loadIndex().recordings.map((entry) => ({ entry, dir: RECORDINGS_DIR })));
    heldout.push(...loadIndex(HELDOUT_DIR).recordings.map((entry) => ({ entry, dir: HELDOUT_DIR })));
  }
  if (!entries.length) { process.exitCode = missing ? 2 : 0; if (!missing) console.error('fidelity: no recordings in data/recordings/'); return; }
  // the recordings' CPU speed (fidelity_speed.ts), one slowdown per recorded run kind: the graph run
  // (what fn J, distinct functions, calls, syscalls and faults compare) and the events run (ev J); a full
  // run derives them from a first pass at hardware speed (which also gives the hardware-speed summary), a
  // run of some workloads reads the stored ones, `--slowdown X` sets both
  let slowdown = slowdownArg;
  let evSlowdown: number | undefined;
  let hardware: FidelityRow[] = [];
  const hardwareLines: string[] = [];
  let derivation = '';
  if (all && slowdown === undefined) {
    const samples: SpeedSample[] = [];
    console.log('pass 1, at hardware speed (cpuSlowdown 1):');
    for (const e of entries) {
      const m = measure(e, seed, 1);
      hardware.push(m.row);
      samples.push(...m.samples);
      const ratio = (run: string): string => { const s = m.samples.find((x) => x.run === run); return s ? s.ratio.toFixed(1) : '-'; };
      const line = `| ${e.entry.name} | ${pct(m.row.functionJaccard)} | ${pct(m.row.eventJaccard)} | ${m.row.distinct.sim} / ${m.row.distinct.real} | ${m.row.calls.sim} / ${m.row.calls.real} | ${ratio('graph')} / ${ratio('events')} |`;
      hardwareLines.push(line);
      console.log(line);
    }
    const st = storeSlowdown(samples, seed);
    slowdown = st.graphMedian;
    evSlowdown = st.eventsMedian;
    derivation = `derived by this run from ${st.samples} traced runs (the graph runs' median ${st.graphMedian}, the events runs' ${st.eventsMedian}, all runs' ${st.slowdown}; stored in bench/recording_speed.json)`;
    console.log(`the recordings' CPU slowdown: graph runs ${slowdown}, events runs ${evSlowdown} (${derivation})`);
  } else if (slowdown === undefined) {
    const st = storedSlowdown();
    slowdown = st.graphMedian;
    evSlowdown = st.eventsMedian;
    derivation = 'bench/recording_speed.json';
  } else {
    evSlowdown = slowdown;
    derivation = '--slowdown';
  }
  const lines: string[] = [TABLE_HEAD];
  const rows: FidelityRow[] = [];
  const details: string[] = [];
  console.log(`cpuSlowdown ${slowdown} (ev J: ${evSlowdown}) (${derivation}):`);
  console.log(TABLE_HEAD);
  const measureAt = (w: Workload): { row: FidelityRow; ms: number; status: number; byEntry: string[] } => {
    const { row, ms, status, entries: byEntry } = measure(w, seed, slowdown as number);
    // ev J against the events run, at its speed, after the graph phase's runs (as recorded)
    row.eventJaccard = measure(w, seed, evSlowdown as number, true).row.eventJaccard;
    return { row, ms, status, byEntry };
  };
  for (const w of entries) {
    const e = w.entry;
    const { row, ms, status, byEntry } = measureAt(w);
    rows.push(row);
    const line = rowLine(e.name, e.command, row);
    lines.push(line);
    console.log(line);
    details.push(`- **${e.name}** (${ms} ms${status !== 0 ? `, tapsim exit status ${status}` : ''}): most missing ` +
      row.missing.slice(0, 6).map(([f, n]) => `${f} ${n}`).join(', ') +
      (row.extra.length ? `; most extra ${row.extra.slice(0, 4).map(([f, n]) => `${f} ${n}`).join(', ')}` : '') +
      (wanted.length ? `\n  calls per kernel entry (largest differences):\n${byEntry.join('\n')}` : ''));
  }
  if (wanted.length) for (const d of details) console.log(d);
  console.log(summary(rows));
  // the commands outside the catalogue (data/recordings/heldout/): nothing the machine runs was generated from them
  const heldRows: FidelityRow[] = [];
  const heldLines: string[] = [TABLE_HEAD];
  if (heldout.length) console.log('outside the catalogue:');
  for (const w of heldout) {
    const { row } = measureAt(w);
    heldRows.push(row);
    const line = rowLine(w.entry.name, w.entry.command, row);
    heldLines.push(line);
    console.log(line);
  }
  if (heldRows.length) console.log(`outside the catalogue: ${heldoutSummary(heldRows)}`);
  if (hardware.length) console.log(`at hardware speed: ${summary(hardware)}`);
  if (all || write) {
    const out = path.join(__dirname, '..', '..', 'bench', 'FIDELITY.md');
    fs.writeFileSync(out, `# Fidelity: tapsim's machine vs the real Debian 12 kernel\n\n` +
      `Generated by \`npm run fidelity\` (bench/fidelity.ts, seed ${seed}) from the recordings in data/recordings/ ` +
      `(scripts/record/, FORMAT.md). Per workload, the workload's tasks only, from the root's execve on:\n\n` +
      `- **fn J**: weighted Jaccard similarity of per-function call counts (Σ min / Σ max over function names)\n` +
      `- **ev J**: the same for tracepoint event counts (syscalls:sys_enter_X / sys_exit_X included)\n` +
      `- **sys**: normalized edit similarity (1 − Σ Levenshtein / Σ longer length) of each task's syscall-name sequence vs strace (n/a for a workload recorded without strace), tasks matched in creation order (per task: the merged order of concurrent tasks is timing, and the recording's strace and events runs do not agree on it)\n` +
      `- distinct functions, calls, syscalls, page faults (handle_mm_fault calls): tapsim / real\n` +
      `- \`__traceiter_*\` (run only because a tracer probes that tracepoint: the recorder's pid filters and fork events) are left out on both sides\n\n` +
      `**CPU speed.** The recordings ran in a QEMU guest without KVM (TCG), whose CPU executes kernel and user code tens of times slower ` +
      `than hardware while its clock, timers and sleeps keep real time; so the table's machine runs at the recordings' speed, ` +
      `that of the graph run for what is compared with it (fn J, distinct functions, calls, syscalls, faults), \`cpuSlowdown ${slowdown}\`, ` +
      `and that of the events run for ev J, \`cpuSlowdown ${evSlowdown}\` (MachineOptions.cpuSlowdown: every simulated CPU cost, ` +
      `kernel functions, modelled copies and programs' compute, × the factor), ${derivation}. The derivation (bench/fidelity_speed.ts): the workload's timer interrupts in each ` +
      `traced run (graph run: hrtimer_interrupt calls; events run: local_timer_entry events) × 4 ms (HZ 250) are the guest CPU time it ` +
      `took; divided by the simulated on-CPU time of the workload's tasks (Σ sum_exec_runtime) at hardware speed (cpuSlowdown 1: the ` +
      `full run's first pass), that is one ratio per traced run; the slowdown is the median of the ratios of every graph and events ` +
      `run with at least ${MIN_TICKS} ticks of every recording but the \`background\` ones, one number per run kind for the whole catalogue ` +
      `(not per workload): the graph runs went slower than the events runs (function_graph's cost per traced call, most in the ` +
      `kernel-call-heavy workloads, whose events runs went at 5-20x; the ratios per run are in "At hardware speed"). ` +
      `Users' machines run at hardware speed (cpuSlowdown 1): its figures are in "At hardware speed" below.\n\n` +
      `Issue 14's targets: fn J ≥ 0.8, ev J ≥ 0.9 on the catalogue, distinct functions within 10%; issue 15: sys ≥ 0.95.\n\n` +
      `Summary (cpuSlowdown ${slowdown}, ev J at ${evSlowdown}): ${summary(rows)}.\n\n` +
      lines.join('\n') + '\n\n' +
      (heldRows.length ? `## Outside the catalogue\n\nCommands the catalogue does not have, run by the same programs (\`npm run record -- --heldout CMD\`, ` +
        `data/recordings/heldout/): the machine's entry model and page cache are generated from the catalogue's recordings only ` +
        `(scripts/paths/), so these measure it on workloads it was not built from, at the same speeds. Issue 14's target: 0.6.\n\n` +
        `Summary: ${heldoutSummary(heldRows)}.\n\n${heldLines.join('\n')}\n\n` : '') +
      (hardware.length ? `## At hardware speed (cpuSlowdown 1)\n\nSummary: ${summary(hardware)}.\n\nThe last column is each recording's CPU-time ratio (fidelity_speed.ts: ticks × 4 ms / simulated on-CPU time at hardware speed) in its graph and events runs ('-': not counted), the samples of the slowdown's median.\n\n| workload | fn J | ev J | distinct fns sim / real | calls sim / real | CPU ratio graph / events |\n|---|---|---|---|---|---|\n${hardwareLines.join('\n')}\n\n` : '') +
      '## Largest differences (real calls − tapsim calls)\n\n' + details.join('\n') + '\n');
    console.log(`fidelity: wrote ${path.relative(process.cwd(), out)}`);
  }
  if (missing) process.exitCode = 2;
}

if (require.main === module) main();
