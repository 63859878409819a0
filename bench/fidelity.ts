/**
 * `npm run fidelity [-- WORKLOAD ...] [--seed N] [--write]`: how close tapsim's machine is to the real
 * Debian 12 kernel, per workload (issue 14, part 4). WORKLOAD is a catalogue name (`ls-root`) or any
 * command string (`'ls /'`); with none, every recording in data/recordings/ is measured and the table
 * is written to bench/FIDELITY.md. For each workload: the tapsim run (bench/fidelity_run.ts) against
 * the recording (scripts/record/FORMAT.md):
 *   fn J    weighted Jaccard of per-function call counts of the workload's tasks (Σmin / Σmax)
 *   ev J    the same for tracepoint event counts
 *   sys     normalized edit similarity of each task's syscall-name sequence vs the strace recording
 *           (tasks matched in creation order; fidelity_measure.ts syscallSimilarity says why per task)
 *   distinct functions, calls, syscalls and page faults (handle_mm_fault calls) on each side
 */
import * as fs from 'fs';
import * as path from 'path';
import { compareSides, FidelityRow, FidelitySide } from './fidelity_measure';
import { runSimulated, flagBytes, recorderWarmsUp } from './fidelity_run';
import { findRecording, IndexEntry, loadIndex, loadRecording, Recording } from '../scripts/record/recording';
import { parseShape, ShapeNode } from '../scripts/record/shape';
import { syscalls as syscallTable } from '../src/kernel/syscalls';

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
 * The CPU the recorded workload started on (its root's first kernel entry): the machine's serial
 * interrupts land in the workload only when it runs on the CPU IRQ 4 is routed to, as in the recordings.
 */
export function recordedCpu(rec: Recording): number | undefined {
  const c = rec.tasks[0]?.entries[1];
  return typeof c === 'number' && c >= 0 ? c : undefined;
}

/**
 * The recordings made before the recorder had its untraced warm-up run (be2b24e; scripts/record/README.md
 * lists the warm ones): their traced runs followed only SETUP and `sync; sleep 0.5`, so the machine skips
 * the warm-up for them too. Re-recording one makes it warm: take it off this list.
 */
export const RECORDED_BEFORE_WARM_UP: ReadonlySet<string> = new Set([
  'cat', 'head', 'grep', 'uname', 'gzip', 'sync', 'pagecache-miss', 'pagecache-hit', 'signal', 'cow', 'sleep', 'swap', 'anon-fault', 'tcp-http', 'idle',
]);

/** Whether the machine runs the recorder's warm-up before the workload (recorder.sh run_setup, as the recording was made). */
export function warmsUp(rec: Recording): boolean {
  return recorderWarmsUp(rec.flags) && !RECORDED_BEFORE_WARM_UP.has(rec.name);
}

function measure(entry: IndexEntry, seed: number): { row: FidelityRow; ms: number; status: number; entries: string[] } {
  const rec = loadRecording(entry);
  const t = Date.now();
  const memcg = rec.flags.find((f) => f.startsWith('memcg='));
  const sim = runSimulated(rec.command, { setup: rec.setup || undefined, warmUp: warmsUp(rec), seed, allTasks: rec.flags.includes('background'), memcgMax: memcg ? flagBytes(memcg.slice(6)) : undefined, cpu: recordedCpu(rec) });
  const ms = Date.now() - t;
  return { row: compareSides(sim, recordedSide(rec)), ms, status: sim.status, entries: entryLines(recordedEntries(rec), sim.byEntry) };
}

function main(): void {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const si = args.indexOf('--seed');
  const seed = si >= 0 ? Number(args.splice(si, 2)[1]) : 1;
  const wanted = args.filter((a) => !a.startsWith('--'));
  const all = wanted.length === 0;
  const entries: IndexEntry[] = [];
  let missing = 0;
  for (const w of wanted) {
    const e = findRecording(w);
    if (!e) {
      console.error(`fidelity: no recording for '${w}' (neither a catalogue name nor a recorded command).\n` +
        `  Record it on the real kernel with: npm run record -- '${w.replace(/'/g, "'\\''")}'\n` +
        `  (scripts/record/README.md; it boots Debian 12 under QEMU), then run npm run fidelity -- '${w.replace(/'/g, "'\\''")}' again.`);
      missing++;
    } else entries.push(e);
  }
  if (all) entries.push(...loadIndex().recordings);
  if (!entries.length) { process.exitCode = missing ? 2 : 0; if (!missing) console.error('fidelity: no recordings in data/recordings/'); return; }
  const lines: string[] = [TABLE_HEAD];
  const details: string[] = [];
  console.log(TABLE_HEAD);
  for (const e of entries) {
    const { row, ms, status, entries: byEntry } = measure(e, seed);
    const line = rowLine(e.name, e.command, row);
    lines.push(line);
    console.log(line);
    details.push(`- **${e.name}** (${ms} ms${status !== 0 ? `, tapsim exit status ${status}` : ''}): most missing ` +
      row.missing.slice(0, 6).map(([f, n]) => `${f} ${n}`).join(', ') +
      (row.extra.length ? `; most extra ${row.extra.slice(0, 4).map(([f, n]) => `${f} ${n}`).join(', ')}` : '') +
      (wanted.length ? `\n  calls per kernel entry (largest differences):\n${byEntry.join('\n')}` : ''));
  }
  if (wanted.length) for (const d of details) console.log(d);
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
      `Issue 14's targets: fn J ≥ 0.8, ev J ≥ 0.9 on the catalogue, distinct functions within 10%; issue 15: sys ≥ 0.95.\n\n` +
      lines.join('\n') + '\n\n## Largest differences (real calls − tapsim calls)\n\n' + details.join('\n') + '\n');
    console.log(`fidelity: wrote ${path.relative(process.cwd(), out)}`);
  }
  if (missing) process.exitCode = 2;
}

if (require.main === module) main();
