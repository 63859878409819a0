/**
 * perf's event names (tools/perf/util/parse-events.c in miniature): the software events and their
 * aliases, the generic hardware events (which the machine, as a VM without a PMU, cannot count:
 * perf_event_open fails with ENOENT and perf stat prints <not supported>), the tool events, and
 * the `perf list` lines as perf 6.1 prints them (test/fixtures/tracefs-real/perf_list).
 */

/** PERF_COUNT_SW_* by name, in perf list's order, with the aliases perf list shows ("OR"). */
export const SW_EVENTS: readonly { name: string; alias?: string; config: number }[] = [
  { name: 'alignment-faults', config: 7 },
  { name: 'bpf-output', config: 10 },
  { name: 'cgroup-switches', config: 11 },
  { name: 'context-switches', alias: 'cs', config: 3 },
  { name: 'cpu-clock', config: 0 },
  { name: 'cpu-migrations', alias: 'migrations', config: 4 },
  { name: 'dummy', config: 9 },
  { name: 'emulation-faults', config: 8 },
  { name: 'major-faults', config: 6 },
  { name: 'minor-faults', config: 5 },
  { name: 'page-faults', alias: 'faults', config: 2 },
  { name: 'task-clock', config: 1 },
];

/** PERF_COUNT_HW_* by name (PERF_TYPE_HARDWARE, type 0). */
export const HW_EVENTS: Record<string, number> = {
  'cpu-cycles': 0, cycles: 0, instructions: 1, 'cache-references': 2, 'cache-misses': 3,
  'branch-instructions': 4, branches: 4, 'branch-misses': 5, 'bus-cycles': 6,
  'stalled-cycles-frontend': 7, 'idle-cycles-frontend': 7, 'stalled-cycles-backend': 8,
  'idle-cycles-backend': 8, 'ref-cycles': 9,
};

export const TOOL_EVENTS = ['duration_time', 'user_time', 'system_time'];

/** What an -e name resolves to before the tracepoint ids are read. */
export type EventSpec =
  | { kind: 'sw'; name: string; config: number }
  | { kind: 'hw'; name: string; config: number }
  | { kind: 'tp'; name: string; system: string; event: string };

/** An event name (modifiers :u/:k are accepted and ignored: the machine counts both), or null. */
export function parseEventName(s: string): EventSpec | null {
  const tp = /^([A-Za-z0-9_*?]+):([A-Za-z0-9_*?]+)$/.exec(s);
  if (tp && !/^[ukhHGp]+$/.test(tp[2])) return { kind: 'tp', name: s, system: tp[1], event: tp[2] };
  const base = s.replace(/:[ukhHGpP]+$/, '');
  for (const e of SW_EVENTS) if (base === e.name || base === e.alias) return { kind: 'sw', name: base, config: e.config };
  if (base in HW_EVENTS) return { kind: 'hw', name: base, config: HW_EVENTS[base] };
  return null;
}

/** The -e list split on commas outside {} and quotes. */
export function splitEvents(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter((x) => x.length > 0);
}

/** "  NAME<pad to 50> [KIND]" */
export function listLine(name: string, kind: string): string {
  return `  ${name.padEnd(50)} [${kind}]\n`;
}

export function swListLines(): string {
  let out = '';
  for (const e of SW_EVENTS) out += listLine(e.alias ? `${e.name} OR ${e.alias}` : e.name, 'Software event');
  for (const t of TOOL_EVENTS) out += listLine(t, 'Tool event');
  return out;
}

/** The syntax lines perf list prints between the software and the tracepoint events. */
export function descriptorLines(): string {
  return listLine('rNNN', 'Raw hardware event descriptor')
    + listLine('cpu/t1=v1[,t2=v2,t3 ...]/modifier', 'Raw hardware event descriptor')
    + listLine('mem:<addr>[/len][:access]', 'Hardware breakpoint');
}

export const globRe = (g: string): RegExp =>
  new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
