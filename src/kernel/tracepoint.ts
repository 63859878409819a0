/**
 * Tracepoints and trace events of Debian's 6.1.0-56-amd64 vmlinux.
 *
 * Event data comes from the kernel image itself: every `struct trace_event_call` in the
 * _ftrace_events section with its class (system), fields_array (type, name, size, align, signed,
 * len), print_fmt; offsets are laid out exactly as event_define_fields() does, syscall events as
 * syscall_enter_define_fields() does from the syscall metadata. Event ids are assigned in
 * section order as event_trace_enable() -> register_trace_event() does at boot (first dynamic id
 * = __TRACE_LAST_TYPE = 20; ftrace's own events keep their fixed TRACE_* types; syscall events
 * whose metadata is not mapped to a table slot get no id and are not listed).
 * TP_PROTO arguments come from the BTF of __bpf_trace_<class> (param names and types).
 *
 * Runtime: each tracepoint has a probe array (tracepoint_probe_register/unregister) with the
 * kernel's priority ordering and -EEXIST/-ENOENT results; traceCall() invokes the probes.
 */
import { noteParseTime } from './data';
import { openEventTable, EventTable, TraceEvent, TraceEventField } from './event_table';
import { btfFunc, btfTypeName, TypeStyle } from './btf';
import { EEXIST, ENOENT, EINVAL } from './errno';
import { globToRegExp } from './kallsyms';

export type { TraceEventField, TraceEvent } from './event_table';

export const TRACE_EVENT_FL_FILTERED = 1 << 0;
export const TRACE_EVENT_FL_CAP_ANY = 1 << 1;
export const TRACE_EVENT_FL_NO_SET_FILTER = 1 << 2;
export const TRACE_EVENT_FL_IGNORE_ENABLE = 1 << 3;
export const TRACE_EVENT_FL_TRACEPOINT = 1 << 4;

/** struct trace_entry, as trace_define_common_fields() declares it. */
export const COMMON_FIELDS: readonly TraceEventField[] = [
  { type: 'unsigned short', name: 'common_type', offset: 0, size: 2, signed: false, len: 0 },
  { type: 'unsigned char', name: 'common_flags', offset: 2, size: 1, signed: false, len: 0 },
  { type: 'unsigned char', name: 'common_preempt_count', offset: 3, size: 1, signed: false, len: 0 },
  { type: 'int', name: 'common_pid', offset: 4, size: 4, signed: true, len: 0 },
];

interface Loaded {
  table: EventTable;
  /** every event, those with an id, and the maps: made on first use */
  all?: TraceEvent[];
  events?: TraceEvent[];
  byKey?: Map<string, TraceEvent>;
  byId?: Map<number, TraceEvent>;
  tracepoints: string[];
}

let L: Loaded | null = null;

function load(): Loaded {
  if (L) return L;
  const t0 = process.hrtime.bigint();
  const { table, parsed } = openEventTable();
  L = { table, tracepoints: table.tracepoints };
  noteParseTime(parsed ? 'events.json.gz' : 'events.tab', Number(process.hrtime.bigint() - t0) / 1e6);
  return L;
}

/** Every event in section order (those without an id too). */
function allEvents(): TraceEvent[] {
  const l = load();
  if (!l.all) l.all = Array.from({ length: l.table.count }, (_, i) => l.table.event(i));
  return l.all;
}

function registered(): Loaded & { events: TraceEvent[]; byKey: Map<string, TraceEvent>; byId: Map<number, TraceEvent> } {
  const l = load();
  if (!l.events) {
    const events = allEvents().filter((e) => e.id > 0);
    const byKey = new Map<string, TraceEvent>();
    const byId = new Map<number, TraceEvent>();
    for (const e of events) { byKey.set(`${e.system}:${e.name}`, e); byId.set(e.id, e); }
    l.events = events;
    l.byKey = byKey;
    l.byId = byId;
  }
  return l as ReturnType<typeof registered>;
}

/** Registered events (with an id) of this exact system and name, in registration order. */
function exact(system: string, name: string): TraceEvent[] {
  const t = load().table;
  const out: TraceEvent[] = [];
  for (const i of t.find(system, name)) {
    const e = t.event(i);
    if (e.id > 0) out.push(e);
  }
  return out;
}

/** Every registered trace event (those with an id), in boot registration order. */
export function traceEvents(): readonly TraceEvent[] {
  return registered().events;
}

export function findEvent(system: string, name: string): TraceEvent | null {
  const evs = exact(system, name);
  // (the last of a repeated key, as a map filled in order keeps)
  return evs.length ? evs[evs.length - 1] : null;
}

export function eventById(id: number): TraceEvent | null {
  return registered().byId.get(id) ?? null;
}

/** Events matching "system-glob:name-glob" or just "name-glob" (any system). */
export function matchEvents(pattern: string): TraceEvent[] {
  const c = pattern.indexOf(':');
  if (c >= 0 && !/[*?[\\]/.test(pattern)) return exact(pattern.slice(0, c), pattern.slice(c + 1));
  const sys = c >= 0 ? globToRegExp(pattern.slice(0, c)) : null;
  const nm = globToRegExp(c >= 0 ? pattern.slice(c + 1) : pattern);
  return registered().events.filter((e) => (sys === null || sys.test(e.system)) && nm.test(e.name));
}

/** The events/<system>/<name>/format file, byte for byte as f_show() prints it. */
export function eventFormat(ev: TraceEvent): string {
  const line = (f: TraceEventField) => {
    const br = f.type.indexOf('[');
    const arr = br >= 0 && !f.type.startsWith('__data_loc');
    const tail = `;\toffset:${f.offset};\tsize:${f.size};\tsigned:${f.signed ? 1 : 0};\n`;
    if (!arr) return `\tfield:${f.type} ${f.name}${tail}`;
    const base = f.type.slice(0, br);
    return f.len ? `\tfield:${base} ${f.name}[${f.len}]${tail}` : `\tfield:${base} ${f.name}[]${tail}`;
  };
  let s = `name: ${ev.name}\nID: ${ev.id}\nformat:\n`;
  for (const f of COMMON_FIELDS) s += line(f);
  s += '\n';
  for (const f of ev.fields) s += line(f);
  s += `\nprint fmt: ${ev.printFmt}\n`;
  return s;
}

/** Size of the record an event writes: 8-byte header + fields (before dynamic data). */
export function eventRecordSize(ev: TraceEvent): number {
  let end = 8;
  for (const f of ev.fields) end = Math.max(end, f.offset + f.size);
  return end;
}

/** Names of every `struct tracepoint` in vmlinux (TRACE_EVENT and DECLARE_TRACE-only ones), sorted. */
export function tracepointNames(): readonly string[] {
  return load().tracepoints;
}

export interface TpArg {
  name: string;
  type: string;
  btfType: number;
}

/**
 * TP_PROTO of a tracepoint: the parameters of __bpf_trace_<class> after `void *__data`
 * (BTF carries their names and types). Null when BTF has no such function.
 */
export function tracepointProto(name: string, style: TypeStyle = 'c'): TpArg[] | null {
  const ev = allEvents().find((e) => e.name === name && e.tracepoint);
  const cands = ev ? [`__bpf_trace_${ev.class}`, `__bpf_trace_${name}`] : [`__bpf_trace_${name}`];
  for (const c of cands) {
    const f = btfFunc(c);
    if (f) return f.params.slice(1).map((p) => ({ name: p.name, type: btfTypeName(p.type, style), btfType: p.type }));
  }
  return null;
}

// ---------------------------------------------------------------- runtime probe arrays

export type TracepointProbe = (data: unknown, ...args: unknown[]) => void;

export interface TracepointFunc {
  func: TracepointProbe;
  data: unknown;
  prio: number;
}

export const TRACEPOINT_DEFAULT_PRIO = 10;

/** struct tracepoint: name, static key state and the RCU-replaced funcs array. */
export class Tracepoint {
  readonly name: string;
  /** static_key enabled: true while at least one probe is registered */
  enabled = false;
  /** the probe array; replaced (never mutated) on every change, as the kernel does */
  funcs: readonly TracepointFunc[] = [];
  regfuncCalls = 0;
  unregfuncCalls = 0;
  constructor(name: string) {
    this.name = name;
  }
}

const tps = new Map<string, Tracepoint>();

/** The tracepoint object by name (created on first use), or null if vmlinux has no such tracepoint. */
export function tracepoint(name: string): Tracepoint | null {
  let tp = tps.get(name);
  if (tp) return tp;
  const names = load().tracepoints;
  let lo = 0, hi = names.length - 1, found = false;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (names[mid] === name) { found = true; break; }
    if (names[mid] < name) lo = mid + 1; else hi = mid - 1;
  }
  if (!found) return null;
  tp = new Tracepoint(name);
  tps.set(name, tp);
  tracepointsMade.count++;
  return tp;
}

/**
 * How many Tracepoint objects tracepoint() has made (a probe can only be registered on one it made):
 * the machine's executor resolves a path's tracepoint references against the made ones and looks
 * again when this changes, so a start that attaches nothing never reads the event table.
 */
export const tracepointsMade = { count: 0 };

/** The Tracepoint of `name` if tracepoint() has made it, else undefined (reads no table). */
export function madeTracepoint(name: string): Tracepoint | undefined {
  return tps.get(name);
}

/** How many tracepoints have a probe registered (static key on). */
export function tracepointsEnabled(): number {
  let n = 0;
  for (const tp of tps.values()) if (tp.enabled) n++;
  return n;
}

/** tracepoint_probe_register_prio(): 0, or -EEXIST for a duplicate (func, data), -ENOENT/-EINVAL. */
export function tracepointProbeRegister(name: string, func: TracepointProbe, data: unknown,
  prio: number = TRACEPOINT_DEFAULT_PRIO): number {
  const tp = tracepoint(name);
  if (!tp) return -ENOENT;
  if (typeof func !== 'function') return -EINVAL;
  const old = tp.funcs;
  if (old.some((f) => f.func === func && f.data === data)) return -EEXIST;
  // func_add(): insert before the first probe with a lower priority
  const pos = old.findIndex((f) => f.prio < prio);
  const next = old.slice();
  next.splice(pos < 0 ? next.length : pos, 0, { func, data, prio });
  if (old.length === 0) { tp.regfuncCalls++; tp.enabled = true; }
  tp.funcs = next;
  return 0;
}

/** tracepoint_probe_unregister(): 0 or -ENOENT when (func, data) is not registered. */
export function tracepointProbeUnregister(name: string, func: TracepointProbe, data: unknown): number {
  const tp = tracepoint(name);
  if (!tp) return -ENOENT;
  const i = tp.funcs.findIndex((f) => f.func === func && f.data === data);
  if (i < 0) return -ENOENT;
  const next = tp.funcs.slice();
  next.splice(i, 1);
  tp.funcs = next;
  if (next.length === 0) { tp.enabled = false; tp.unregfuncCalls++; }
  return 0;
}

/** trace_<name>(args): call every registered probe with (data, ...args) in array order. */
export function traceCall(tp: Tracepoint, ...args: unknown[]): void {
  if (!tp.enabled) return;
  const funcs = tp.funcs; // snapshot, as rcu_dereference gives
  for (let i = 0; i < funcs.length; i++) funcs[i].func(funcs[i].data, ...args);
}

// ---------------------------------------------------------------- syscalls:sys_enter_* / sys_exit_*

/**
 * syscalls:sys_enter_<name> / sys_exit_<name> are not tracepoints of their own: as
 * kernel/trace/trace_syscalls.c does, enabling one registers a single shared probe
 * (ftrace_syscall_enter / ftrace_syscall_exit) on raw_syscalls' sys_enter / sys_exit tracepoint
 * (once, refcounted) and sets the syscall's bit in enabled_enter_syscalls / enabled_exit_syscalls;
 * the shared probe dispatches by syscall number (`id` for sys_enter, `regs.orig_ax` for sys_exit).
 * Probes are called as func(data, regs, nr) for enter (the args are syscall_get_arguments(regs)
 * = regs.args) and func(data, regs, ret) for exit.
 */
export type SyscallEventProbe = (data: unknown, regs: { args: readonly unknown[]; orig_ax?: number }, v: number) => void;
const sysProbes: [Map<number, TracepointFunc[]>, Map<number, TracepointFunc[]>] = [new Map(), new Map()];
const sysRefs = [0, 0];
const sysShared: TracepointProbe[] = [
  (_d, regs, id) => {
    const l = sysProbes[0].get(Number(id));
    if (l) for (let i = 0; i < l.length; i++) (l[i].func as SyscallEventProbe)(l[i].data, regs as { args: unknown[] }, Number(id));
  },
  (_d, regs, ret) => {
    const nr = Number((regs as { orig_ax?: number }).orig_ax ?? -1);
    const l = sysProbes[1].get(nr);
    if (l) for (let i = 0; i < l.length; i++) (l[i].func as SyscallEventProbe)(l[i].data, regs as { args: unknown[] }, Number(ret));
  },
];

function syscallEvent(name: string): { exit: number; nr: number } | null {
  const t = load().table;
  const first = t.find('syscalls', name)[0];
  const ev = first === undefined ? undefined : t.event(first);
  if (!ev || ev.syscallNr === undefined || !/^sys_(enter|exit)_/.test(name)) return null;
  return { exit: name.startsWith('sys_exit_') ? 1 : 0, nr: ev.syscallNr };
}

/** reg_event_syscall_enter()/reg_event_syscall_exit(): 0, -ENOENT (no such event), -EEXIST. */
export function syscallEventProbeRegister(name: string, func: SyscallEventProbe, data: unknown): number {
  const se = syscallEvent(name);
  if (!se) return -ENOENT;
  const map = sysProbes[se.exit];
  const l = map.get(se.nr) ?? [];
  if (l.some((f) => f.func === (func as TracepointProbe) && f.data === data)) return -EEXIST;
  if (sysRefs[se.exit] === 0) {
    const r = tracepointProbeRegister(se.exit ? 'sys_exit' : 'sys_enter', sysShared[se.exit], null);
    if (r) return r;
  }
  sysRefs[se.exit]++;
  map.set(se.nr, [...l, { func: func as TracepointProbe, data, prio: TRACEPOINT_DEFAULT_PRIO }]);
  return 0;
}

/** unreg_event_syscall_enter()/_exit(): the shared raw_syscalls probe goes with the last user. */
export function syscallEventProbeUnregister(name: string, func: SyscallEventProbe, data: unknown): number {
  const se = syscallEvent(name);
  if (!se) return -ENOENT;
  const map = sysProbes[se.exit];
  const l = map.get(se.nr) ?? [];
  const i = l.findIndex((f) => f.func === (func as TracepointProbe) && f.data === data);
  if (i < 0) return -ENOENT;
  const next = l.slice();
  next.splice(i, 1);
  if (next.length) map.set(se.nr, next); else map.delete(se.nr);
  if (--sysRefs[se.exit] === 0) tracepointProbeUnregister(se.exit ? 'sys_exit' : 'sys_enter', sysShared[se.exit], null);
  return 0;
}

/** Drop all registered probes (test/session reset). */
export function resetTracepoints(): void {
  // reset in place: a Tracepoint object stays the one of its name for the whole process (the
  // machine's executor caches them per path node, as a static key's address is fixed)
  for (const tp of tps.values()) {
    tp.enabled = false;
    tp.funcs = [];
    tp.regfuncCalls = 0;
    tp.unregfuncCalls = 0;
  }
  sysProbes[0].clear(); sysProbes[1].clear(); sysRefs[0] = sysRefs[1] = 0;
}
