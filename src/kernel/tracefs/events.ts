/**
 * Trace events of one trace instance (kernel/trace/trace_events.c of Linux 6.1): a
 * trace_event_file per event with its enable state (soft mode for triggers), filter and
 * triggers; enabling registers the event's probe on its tracepoint (syscall events share the
 * raw_syscalls probe, as trace_syscalls.c does), and a hit builds the record as TP_fast_assign
 * would (event_assign.ts), applies the filter and commits it. Records print as
 * "name: " + the event's print fmt, syscall events as `sys_openat(dfd: ffffff9c, ...)`.
 */
import { CpuContext } from '../current';
import { EINVAL } from '../errno';
import {
  TraceEvent, TraceEventField, tracepointProbeRegister, tracepointProbeUnregister, syscallEventProbeRegister,
  syscallEventProbeUnregister, eventRecordSize, COMMON_FIELDS,
} from '../tracepoint';
import { EventFilter, FilterField, FilterRec, parseFilter, filterErrorText } from './event_filter';
import { fieldGetters, FieldValue, CALL_SITE_CONTEXT } from './event_assign';
import { parsePrintFmt, ParsedPrintFmt, renderPrintFmt, kernelSym, Rec, Val, PrintEnv } from './print_fmt';
import { TraceArray } from './trace_array';
import { kmem } from '../memory';
import { RecView, RecordPrinter, OutIter, hexU } from './trace_output';

export const EVENT_FILE_FL_ENABLED = 1, EVENT_FILE_FL_SOFT_MODE = 2, EVENT_FILE_FL_SOFT_DISABLED = 4,
  EVENT_FILE_FL_TRIGGER_MODE = 8, EVENT_FILE_FL_FILTERED = 16;

/** An event trigger (event_trigger_data): see event_trigger.ts. */
export interface EventTrigger {
  cmd: string;
  /** -1 = unlimited */
  count: number;
  filter: EventFilter | null;
  filterText: string;
  /** enable_event / disable_event target */
  target?: EventFile;
  targetName?: string;
}

/** How a field is stored in the record. */
export interface FieldLayout extends FilterField {
  field: TraceEventField;
  /** a char array (fixed) or a __data_loc dynamic array */
  str: boolean;
  dyn: boolean;
  arr: boolean;
}

const layouts = new Map<TraceEvent, FieldLayout[]>();

/** The fields of an event as filters and printers use them (common fields first). */
export function eventLayout(ev: TraceEvent): FieldLayout[] {
  let l = layouts.get(ev);
  if (l) return l;
  l = [...COMMON_FIELDS, ...ev.fields].map((f) => {
    const dyn = f.type.startsWith('__data_loc') || f.type.startsWith('__rel_loc');
    const arr = !dyn && f.type.includes('[');
    const charish = /\bchar\b/.test(f.type);
    const str = (arr || dyn) && charish;
    const ptr = !arr && !dyn && /char\s*\*/.test(f.type);
    const kind: FilterField['kind'] = f.name === 'comm' || f.name === 'COMM' ? 'comm' : str ? (dyn ? 'dyn' : 'static') : ptr ? 'ptr' : f.name === 'cpu' || f.name === 'CPU' ? 'cpu' : 'num';
    return { name: f.name, type: f.type, offset: f.offset, size: f.size, signed: f.signed, kind, field: f, str, dyn, arr };
  });
  layouts.set(ev, l);
  return l;
}

/** Read a field of a record in the ring buffer (or a scratch record). */
export function fieldValue(r: RecView, f: FieldLayout): Val {
  if (f.dyn) {
    const loc = r.u32(f.offset);
    const off = loc & 0xffff, len = loc >>> 16;
    const b = r.slice(off, len);
    if (f.str) { const z = b.indexOf(0); return Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1'); }
    return b;
  }
  if (f.arr) {
    if (f.str) return r.str(f.offset, f.size);
    return r.slice(f.offset, f.size);
  }
  if (f.size > 8) return r.slice(f.offset, f.size);
  return r.big(f.offset, f.size, f.signed);
}

function dynBytes(r: RecView, f: FieldLayout): Uint8Array {
  const loc = r.u32(f.offset);
  return r.slice(loc & 0xffff, loc >>> 16);
}

/** PrintEnv of tracefs: %p hashed unless hash-ptr is off, %pS with offsets and sizes. */
export function tracefsPrintEnv(it: { hashPtr: boolean }): PrintEnv {
  return {
    ptr: (v) => (it.hashPtr ? hashPtr(v) : BigInt.asUintN(64, v).toString(16).padStart(16, '0')),
    sym: (v, offset) => kernelSym(v, offset),
  };
}

/** ptr_to_id(): a 32-bit keyed hash of the pointer (NULL and error pointers print as they are). */
export function hashPtr(v: bigint): string {
  const u = BigInt.asUintN(64, v);
  if (u === 0n || u >= 0xfffffffffffff001n) return u.toString(16).padStart(16, '0');
  let x = u ^ 0x9e3779b97f4a7c15n;
  x = BigInt.asUintN(64, (x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n);
  x = BigInt.asUintN(64, (x ^ (x >> 27n)) * 0x94d049bb133111ebn);
  x ^= x >> 31n;
  return (x & 0xffffffffn).toString(16).padStart(16, '0');
}

/** Printers of tracepoint events (trace_raw_output_*) and syscall events. */
export function eventPrinter(ev: TraceEvent): RecordPrinter {
  const lay = eventLayout(ev);
  if (ev.system === 'syscalls' && ev.syscallNr !== undefined) return syscallPrinter(ev, lay);
  let pf: ParsedPrintFmt | null = null;
  const byName = new Map(lay.map((f) => [f.name, f]));
  return {
    trace: (r: RecView, it: OutIter) => {
      if (!pf) pf = parsePrintFmt(ev.printFmt);
      const rec: Rec = {
        field: (n) => { const f = byName.get(n); return f ? fieldValue(r, f) : 0n; },
        dyn: (n) => { const f = byName.get(n); return f ? dynBytes(r, f) : null; },
      };
      return `${ev.name}: ${renderPrintFmt(pf, rec, tracefsPrintEnv(it))}\n`;
    },
  };
}

function syscallPrinter(ev: TraceEvent, lay: FieldLayout[]): RecordPrinter {
  const name = 'sys_' + ev.name.replace(/^sys_(enter|exit)_/, '');
  const exit = ev.name.startsWith('sys_exit_');
  const args = lay.slice(COMMON_FIELDS.length + 1);
  return {
    trace: (r, it) => {
      if (exit) return `${name} -> 0x${hexU(r.i64(16))}\n`;
      const verbose = it.tr.opt('verbose');
      const parts = args.map((f) => `${verbose ? f.type + ' ' : ''}${f.name}: ${BigInt.asUintN(64, r.big(f.offset, 8, false)).toString(16)}`);
      return `${name}(${parts.join(', ')})\n`;
    },
  };
}

/** struct trace_event_file */
export class EventFile {
  flags = 0;
  private smRef = 0;
  filter: EventFilter | null = null;
  /** the filter file's text (an accepted expression, or an expression with its parse error) */
  filterText: string | null = null;
  readonly triggers: EventTrigger[] = [];
  private registered = false;
  private readonly probe: (data: unknown, ...args: unknown[]) => void;
  private readonly sysProbe: (data: unknown, regs: { args: readonly unknown[] }, v: number) => void;

  constructor(readonly tr: TraceArray, readonly ev: TraceEvent, private readonly host: EventsHost) {
    this.probe = (_d, ...args) => this.hit(args, this.host.current());
    this.sysProbe = (_d, regs, v) => this.hitSyscall(regs, v, this.host.current());
  }

  get enabled(): boolean {
    return (this.flags & EVENT_FILE_FL_ENABLED) !== 0;
  }

  /** enable file contents */
  enableText(): string {
    let s = this.flags & EVENT_FILE_FL_ENABLED && !(this.flags & EVENT_FILE_FL_SOFT_DISABLED) ? '1' : '0';
    if (this.flags & (EVENT_FILE_FL_SOFT_DISABLED | EVENT_FILE_FL_SOFT_MODE)) s += '*';
    return s + '\n';
  }

  /** __ftrace_event_enable_disable(file, enable, soft_disable) */
  enableDisable(on: boolean, soft = false): number {
    if (!on) {
      if (soft) {
        if (--this.smRef > 0) return 0;
        this.flags &= ~EVENT_FILE_FL_SOFT_MODE;
      }
      if (this.flags & EVENT_FILE_FL_SOFT_MODE && !soft) {
        this.flags |= EVENT_FILE_FL_SOFT_DISABLED;
        return 0;
      }
      if (this.flags & EVENT_FILE_FL_ENABLED) {
        this.flags &= ~(EVENT_FILE_FL_ENABLED | EVENT_FILE_FL_SOFT_DISABLED);
        this.unreg();
      }
      this.flags &= ~EVENT_FILE_FL_SOFT_DISABLED;
      return 0;
    }
    if (soft) {
      if (this.smRef++ === 0) { this.flags |= EVENT_FILE_FL_SOFT_MODE; if (!(this.flags & EVENT_FILE_FL_ENABLED)) this.flags |= EVENT_FILE_FL_SOFT_DISABLED; }
    } else this.flags &= ~EVENT_FILE_FL_SOFT_DISABLED;
    if (!(this.flags & EVENT_FILE_FL_ENABLED)) {
      const r = this.reg();
      if (r < 0) return r;
      this.flags |= EVENT_FILE_FL_ENABLED;
      if (soft) this.flags |= EVENT_FILE_FL_SOFT_DISABLED;
    }
    return 0;
  }

  private reg(): number {
    if (this.registered) return 0;
    const ev = this.ev;
    let r: number;
    if (ev.system === 'syscalls' && ev.syscallNr !== undefined) r = syscallEventProbeRegister(ev.name, this.sysProbe, this);
    else if (ev.tracepoint) r = tracepointProbeRegister(ev.name, this.probe, this);
    else if (this.host.dynReg) r = this.host.dynReg(this, true);
    else r = -EINVAL;
    if (r === 0) { this.registered = true; this.host.cmdlineUsers(1); }
    return r;
  }

  private unreg(): void {
    if (!this.registered) return;
    const ev = this.ev;
    if (ev.system === 'syscalls' && ev.syscallNr !== undefined) syscallEventProbeUnregister(ev.name, this.sysProbe, this);
    else if (ev.tracepoint) tracepointProbeUnregister(ev.name, this.probe, this);
    else if (this.host.dynReg) this.host.dynReg(this, false);
    this.registered = false;
    this.host.cmdlineUsers(-1);
  }

  /** Set (or with "0" clear) the filter; 0 or -EINVAL (the file then shows the error). */
  setFilter(text: string): number {
    const t = text.replace(/\n$/, '');
    if (t === '0' || t.trim() === '') { this.filter = null; this.filterText = null; this.flags &= ~EVENT_FILE_FL_FILTERED; return 0; }
    const byName = new Map(eventLayout(this.ev).map((f) => [f.name, f as FilterField]));
    const r = parseFilter(t, (n) => byName.get(n) ?? commonFilterField(n), false);
    if (r instanceof EventFilter) {
      this.filter = r;
      this.filterText = t;
      this.flags |= EVENT_FILE_FL_FILTERED;
      return 0;
    }
    this.filter = null;
    this.flags &= ~EVENT_FILE_FL_FILTERED;
    this.filterText = filterErrorText(t, r);
    this.tr.errorLog.push(`event filter parse error: ${t}`);
    return -EINVAL;
  }

  filterFileText(): string {
    return this.filterText === null ? 'none\n' : this.filterText.endsWith('\n') ? this.filterText : this.filterText + '\n';
  }

  /** The tracepoint fired with its TP_PROTO arguments. */
  hit(args: readonly unknown[], ctx: CpuContext): void {
    const lay = eventLayout(this.ev);
    const getters = fieldGetters(this.ev);
    const n = COMMON_FIELDS.length;
    this.commit(ctx, (b) => {
      for (let i = 0; i < getters.length; i++) b.put(lay[n + i], getters[i](args, ctx));
    });
  }

  /** A syscall event: sys_enter_X records the arguments, sys_exit_X the return value. */
  hitSyscall(regs: { args: readonly unknown[] }, v: number, ctx: CpuContext): void {
    const lay = eventLayout(this.ev);
    const exit = this.ev.name.startsWith('sys_exit_');
    const n = COMMON_FIELDS.length;
    this.commit(ctx, (b) => {
      b.put(lay[n], this.ev.syscallNr ?? 0);
      if (exit) b.put(lay[n + 1], v);
      // the registers hold what the caller passed: 32-bit C types zero-extended
      else for (let i = n + 1; i < lay.length; i++) b.put(lay[i], regArg(regs.args[i - n - 1], lay[i].type));
    });
  }

  /** Build the record, run soft-disable / pid / filter checks and triggers, commit. */
  commit(ctx: CpuContext, fill: (b: RecordBuilder) => void): void {
    const tr = this.tr;
    if (this.flags & EVENT_FILE_FL_SOFT_DISABLED) {
      // trace_trigger_soft_disabled(): triggers without conditions still run
      if (this.triggers.length) this.host.runTriggers(this, null, ctx);
      return;
    }
    if (!tr.eventTask(ctx.task)) return;
    const b = builder.start(this.ev);
    fill(b);
    const rec = b.view();
    if (this.filter && !this.filter.match(filterRec(rec, ctx))) return;
    const len = b.length();
    // syscall events are recorded under the raw_syscalls tracepoint's preempt_disable (no _dec)
    const site = CALL_SITE_CONTEXT[this.ev.name];
    const rctx = site ? { ...ctx, irqsOff: ctx.irqsOff || site.irqsOff, preemptCount: (ctx.preemptCount ?? 0) + site.preempt } : ctx;
    const dv = tr.reserve(rctx, this.ev.id, len, this.ev.system === 'syscalls' ? 1 : 0);
    if (dv !== null) {
      const off = tr.buffer.off;
      new Uint8Array(dv.buffer).set(b.bytes.subarray(8, len), off + 8);
      this.host.committed(ctx.cpu);
    }
    if (this.triggers.length) this.host.runTriggers(this, rec, ctx);
  }
}

const INT32_TYPES = /^(int|unsigned int|unsigned|u32|s32|__u32|__s32|pid_t|uid_t|gid_t|key_t|mqd_t|clockid_t|timer_t|qid_t|key_serial_t|rwf_t|umode_t|mode_t)$/;

/** A syscall argument as the register holds it. */
function regArg(v: unknown, type: string): number | bigint {
  let x: bigint;
  if (typeof v === 'number') x = BigInt(Math.trunc(v));
  else if (typeof v === 'bigint') x = v;
  else if (typeof v === 'boolean') x = v ? 1n : 0n;
  else if (v === null || v === undefined) x = 0n;
  else x = BigInt(kmem.addrOf(v));
  return INT32_TYPES.test(type) ? BigInt.asUintN(32, x) : BigInt.asUintN(64, x);
}

/** Common fields a filter may name besides the event's own (CPU / COMM). */
function commonFilterField(n: string): FilterField | null {
  if (n === 'cpu' || n === 'CPU') return { name: n, type: 'int', offset: 0, size: 4, signed: true, kind: 'cpu' };
  if (n === 'comm' || n === 'COMM') return { name: n, type: 'char[16]', offset: 0, size: 16, signed: true, kind: 'comm' };
  return null;
}

/** FilterRec over a record being built. */
export function filterRec(r: RecView, ctx: CpuContext): FilterRec {
  return {
    num: (f) => r.big(f.offset, Math.min(f.size, 8), f.signed),
    str: (f) => {
      const l = f as FieldLayout;
      if (l.dyn) { const loc = r.u32(f.offset); const b = r.slice(loc & 0xffff, loc >>> 16); const z = b.indexOf(0); return { s: Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1'), len: loc >>> 16 }; }
      if (l.kind === 'ptr') return { s: '', len: 0 };
      return { s: r.str(f.offset, f.size), len: f.size };
    },
    cpu: () => ctx.cpu,
    comm: () => ctx.task.comm,
  };
}

/** What an instance's events need from their owner. */
export interface EventsHost {
  current(): CpuContext;
  /** a record was committed on a CPU (saved_cmdlines at the next switch) */
  committed(cpu: number): void;
  /** cmdline recording users (tracing_start/stop_cmdline_record) */
  cmdlineUsers(delta: number): void;
  runTriggers(f: EventFile, rec: RecView | null, ctx: CpuContext): void;
  /** dynamic events (kprobes, uprobes) register themselves */
  dynReg?(f: EventFile, on: boolean): number;
}

/** A reusable scratch record. */
export class RecordBuilder {
  readonly bytes = new Uint8Array(65536);
  private readonly dv = new DataView(this.bytes.buffer);
  private end = 0;
  private readonly rv = new RecView();
  start(ev: TraceEvent): this {
    this.end = Math.max(8, eventRecordSize(ev));
    this.bytes.fill(0, 0, this.end);
    this.dv.setUint16(0, ev.id, true);
    return this;
  }
  put(f: FieldLayout, v: FieldValue): void {
    const dv = this.dv;
    if (f.dyn) {
      const b = typeof v === 'string' ? Buffer.from(v + '\0', 'latin1') : v instanceof Uint8Array ? v : new Uint8Array(0);
      const at = this.end;
      const len = Math.min(b.length, this.bytes.length - at);
      this.bytes.set(b.subarray(0, len), at);
      this.end = at + ((len + 3) & ~3);
      dv.setUint32(f.offset, ((len << 16) | at) >>> 0, true);
      return;
    }
    if (typeof v === 'string') {
      const b = Buffer.from(v, 'latin1');
      this.bytes.set(b.subarray(0, Math.max(0, f.size - 1)), f.offset);
      return;
    }
    if (v instanceof Uint8Array) { this.bytes.set(v.subarray(0, f.size), f.offset); return; }
    const x = BigInt.asUintN(64, BigInt(typeof v === 'number' ? Math.trunc(v) : v));
    switch (f.size) {
      case 1: dv.setUint8(f.offset, Number(x & 0xffn)); break;
      case 2: dv.setUint16(f.offset, Number(x & 0xffffn), true); break;
      case 4: dv.setUint32(f.offset, Number(x & 0xffffffffn), true); break;
      default: if (f.size >= 8) dv.setBigUint64(f.offset, x, true);
    }
  }
  length(): number {
    return this.end;
  }
  view(): RecView {
    const r = this.rv;
    r.dv = this.dv; r.bytes = this.bytes; r.off = 0; r.len = this.end;
    return r;
  }
}

const builder = new RecordBuilder();
