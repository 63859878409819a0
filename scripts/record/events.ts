/**
 * Tracepoint events: the tracefs `trace` text of the nop tracer with every event enabled
 * (`COMM-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS`), counted for the workload's tasks and system-wide.
 * Syscall events print no name (`sys_openat(dfd: ...)`, `sys_openat -> 0x3`): they are
 * syscalls:sys_enter_X / sys_exit_X. The workload's tasks are its root from its execve on and every
 * task forked from them (sched_process_fork).
 */
import { Interner, bump } from './intern';

const LINE = /^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+\.\d+): (.*)$/;

export interface ParsedEvent { comm: string; pid: number; cpu: number; flags: string; ts: number; event: string; fields: string }

export function parseEventLine(s: string): ParsedEvent | null {
  const m = LINE.exec(s);
  if (!m) return null;
  const rest = m[6];
  let event: string;
  let fields: string;
  let e = /^(\w+): ?(.*)$/.exec(rest);
  if (e) { event = e[1]; fields = e[2]; }
  else if ((e = /^sys_(\w+)\((.*)\)$/.exec(rest))) { event = `sys_enter_${e[1]}`; fields = e[2]; }
  else if ((e = /^sys_(\w+) -> (.*)$/.exec(rest))) { event = `sys_exit_${e[1]}`; fields = e[2]; }
  else { event = '?'; fields = rest; }
  return { comm: m[1].trim(), pid: Number(m[2]), cpu: Number(m[3]), flags: m[4], ts: Number(m[5]), event, fields };
}

const fieldRe = new Map<string, RegExp>();
/** the value of `key=` in an event's fields */
export function eventField(fields: string, key: string): string | undefined {
  let re = fieldRe.get(key);
  if (!re) { re = new RegExp(`(?:^|\\s)${key}=(\\S*)`); fieldRe.set(key, re); }
  return re.exec(fields)?.[1];
}

export interface EventsResult {
  /** per-event counts of the workload's tasks */
  counts: Map<number, number>;
  /** per-event counts of every task during the run */
  systemCounts: Map<number, number>;
  /** the workload's records, flat [tUs, pid, cpu, event, flags, fields, ...] (at most `maxRecords`) */
  records: (number | string)[];
  recordsDropped: number;
  pids: number[];
  lines: number;
  startTs: number;
  endTs: number;
}

export class EventsConverter {
  private active = new Set<number>();
  private started = false;
  private execed = false;
  private t0 = -1;
  readonly res: EventsResult = { counts: new Map(), systemCounts: new Map(), records: [], recordsDropped: 0, pids: [], lines: 0, startTs: -1, endTs: -1 };

  /** rootPid null: every task is the workload's (from the first line) */
  constructor(private events: Interner, private rootPid: number | null, private maxRecords = 20000) {}

  line(s: string): void {
    const e = parseEventLine(s);
    if (!e) return;
    this.res.lines++;
    const id = this.events.id(e.event);
    bump(this.res.systemCounts, id);
    if (this.rootPid === null) {
      if (!this.started) { this.started = true; this.t0 = e.ts; this.res.startTs = e.ts; }
    } else if (!this.execed && e.pid === this.rootPid && e.event === 'sys_enter_execve') {
      // each execve attempt of the root restarts the workload until one succeeds (a shell's PATH
      // search fails with ENOENT first): counts restart with it
      this.started = true; this.t0 = e.ts; this.res.startTs = e.ts;
      this.active.add(e.pid);
      this.res.counts.clear(); this.res.records.length = 0; this.res.recordsDropped = 0;
    } else if (!this.started) return;
    if (e.pid === this.rootPid && e.event === 'sched_process_exec') this.execed = true;
    if (this.rootPid !== null && !this.active.has(e.pid)) return;
    if (e.event === 'sched_process_fork') {
      const child = Number(eventField(e.fields, 'child_pid'));
      if (child) this.active.add(child);
    }
    this.res.endTs = e.ts;
    bump(this.res.counts, id);
    if (this.res.records.length < this.maxRecords * 6) {
      this.res.records.push(Math.round((e.ts - this.t0) * 1e6), e.pid, e.cpu, id, e.flags, e.fields);
    } else this.res.recordsDropped++;
  }

  finish(): EventsResult {
    this.res.pids = [...this.active].sort((a, b) => a - b);
    return this.res;
  }
}
