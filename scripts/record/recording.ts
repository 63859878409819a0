/**
 * The recorded data's types and loader (data/recordings/, documented in FORMAT.md). Readers need only
 * this file and shape.ts; nothing here runs QEMU.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

export const FORMAT_VERSION = 1;

export interface RunInfo {
  /** wall seconds of the run in the guest (TCG: CPU work is slower than on hardware, see FORMAT.md) */
  seconds: number;
  status: number;
  /** events the ring buffer dropped (a full buffer: the trace ends early on that CPU) */
  dropped: number;
  /** trace lines read */
  lines: number;
  /** guest seconds of the recorder's fixed shell loop just before and just after the run (absent in
   * older recordings): larger than on an unloaded host when the host took CPU from QEMU (FORMAT.md) */
  calib?: number[];
}

export interface RecordedTask {
  pid: number;
  comm: string;
  /** the workload task that forked it, -1 for the root */
  parent: number;
  /** sched_process_exec filenames, in order */
  execs: string[];
  /** flat [startUs, cpu, shape, ...]: this task's kernel entries in order (FORMAT.md, "Entries") */
  entries: number[];
}

export interface Recording {
  format: number;
  name: string;
  command: string;
  setup: string;
  flags: string[];
  kernel: string;
  cpus: number;
  memMB: number;
  runs: { graph?: RunInfo; events?: RunInfo; strace?: RunInfo };
  /** interned kernel function names: the ids of shapes and `calls` */
  functions: string[];
  /** the module of each module function seen (function_graph prints `name [module]`) */
  functionModules: Record<string, string>;
  /** per function id: calls by the workload's tasks (graph run), and inclusive ns (TCG time) */
  calls: number[];
  timeNs: number[];
  /** path shapes (shape.ts grammar), their kind ('entry', 'irq', 'softirq') and how often each ran */
  shapes: string[];
  shapeKinds: string[];
  shapeCounts: number[];
  tasks: RecordedTask[];
  /** interned event names ('sched_switch', 'sys_enter_openat', ...): ids of `!E`, counts, records */
  events: string[];
  /** per event id: count for the workload's tasks / for every task during the events run */
  eventCounts: number[];
  systemEventCounts: number[];
  /** flat [tUs, pid, cpu, event, flags, fields, ...] of the workload's tasks (capped) */
  eventRecords: (number | string)[];
  eventRecordsDropped: number;
  /** /proc/vmstat counters that changed during the events run (system-wide) */
  vmstat: Record<string, number>;
  /** strace records: [pid, tUs, name, args, ret] */
  strace: [number, number, string, string, string][];
  /** /proc/<pid>/maps (and cmdline) of each workload process just before it exited (strace run) */
  maps: { pid: number; cmdline: string; maps: string }[];
  /** the summary the index shows */
  summary: RecordingSummary;
}

export interface RecordingSummary {
  distinctFunctions: number;
  calls: number;
  /** handle_mm_fault calls (user and kernel-mode faults on user memory) in the graph run */
  pageFaults: number;
  /** exceptions:page_fault_user + page_fault_kernel events in the events run */
  pageFaultEvents: number;
  /** syscalls in the strace run (signals and exits not counted) */
  syscalls: number;
  tasks: number;
  shapes: number;
  events: number;
  /** the slowest calibration of the workload's runs (RunInfo.calib; absent in older recordings) */
  calib?: number;
}

export interface IndexEntry { name: string; command: string; setup: string; file: string; summary: RecordingSummary }
export interface RecordingIndex { format: number; recordings: IndexEntry[] }

export const RECORDINGS_DIR = path.join(__dirname, '..', '..', '..', 'data', 'recordings');
/**
 * Recordings of commands outside the catalogue (`npm run record -- --heldout CMD...`): the fidelity
 * run measures them apart (issue 14: "workloads outside the catalogue that use the same programs"),
 * and nothing the machine runs is generated from them (scripts/paths/ reads RECORDINGS_DIR only).
 */
export const HELDOUT_DIR = path.join(RECORDINGS_DIR, 'heldout');

export function readJsonGz<T>(file: string): T {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8')) as T;
}

export function loadIndex(dir = RECORDINGS_DIR): RecordingIndex {
  const f = path.join(dir, 'index.json');
  if (!fs.existsSync(f)) return { format: FORMAT_VERSION, recordings: [] };
  return JSON.parse(fs.readFileSync(f, 'utf8')) as RecordingIndex;
}

/** The recording of a catalogue name or of an exact command string, or null. */
export function findRecording(nameOrCommand: string, dir = RECORDINGS_DIR): IndexEntry | null {
  const idx = loadIndex(dir);
  return idx.recordings.find((r) => r.name === nameOrCommand) ?? idx.recordings.find((r) => r.command === nameOrCommand.trim()) ?? null;
}

export function loadRecording(entry: IndexEntry, dir = RECORDINGS_DIR): Recording {
  return readJsonGz<Recording>(path.join(dir, entry.file));
}
