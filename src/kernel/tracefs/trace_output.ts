/**
 * Reading a trace (kernel/trace/trace.c s_show/print_trace_line and trace_output.c of Linux
 * 6.1): the `trace` file's header for each mode (function header with the 5 flag columns, the
 * latency-format header), the per-line context (`comm-pid [cpu] flags ts: ` or the latency
 * context), and each record type's text, raw, hex and bin forms. Record printers are registered
 * per type id (the function tracer's, trace_marker's, tracepoint events', kprobe events' ...).
 */
import { KERNEL_RELEASE } from '../config';
import { lookupAddr, symbolName, symbolModule } from '../kallsyms';
import { RbEventRef } from '../ring_buffer';
import { SavedCmdlines } from './saved_cmdlines';
import { TraceArray, TRACE_FN, TRACE_STACK, TRACE_PRINT, TRACE_RAW_DATA, rdI64 } from './trace_array';

/** One record as a printer sees it. */
export class RecView {
  dv!: DataView;
  bytes!: Uint8Array;
  /** offset of the trace_entry in dv */
  off = 0;
  /** record length (trace_entry + body, as reserved) */
  len = 0;
  cpu = 0;
  ts = 0;
  get type(): number { return this.dv.getUint16(this.off, true); }
  get flags(): number { return this.dv.getUint8(this.off + 2); }
  get pc(): number { return this.dv.getUint8(this.off + 3); }
  get pid(): number { return this.dv.getInt32(this.off + 4, true); }
  u8(o: number): number { return this.dv.getUint8(this.off + o); }
  i32(o: number): number { return this.dv.getInt32(this.off + o, true); }
  u32(o: number): number { return this.dv.getUint32(this.off + o, true); }
  i64(o: number): number { return rdI64(this.dv, this.off + o); }
  big(o: number, size: number, signed: boolean): bigint {
    const at = this.off + o;
    let v: bigint;
    switch (size) {
      case 1: v = BigInt(signed ? this.dv.getInt8(at) : this.dv.getUint8(at)); break;
      case 2: v = BigInt(signed ? this.dv.getInt16(at, true) : this.dv.getUint16(at, true)); break;
      case 4: v = BigInt(signed ? this.dv.getInt32(at, true) : this.dv.getUint32(at, true)); break;
      default: v = signed ? this.dv.getBigInt64(at, true) : this.dv.getBigUint64(at, true);
    }
    return v;
  }
  /** bytes [o, o+n) of the record */
  slice(o: number, n: number): Uint8Array {
    return this.bytes.subarray(this.off + o, this.off + o + n);
  }
  /** NUL-terminated string at o (at most n bytes) */
  str(o: number, n: number): string {
    const b = this.slice(o, n);
    const z = b.indexOf(0);
    return Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1');
  }
  set(e: RbEventRef): this {
    this.dv = e.dv; this.bytes = e.bytes; this.off = e.off; this.len = e.len; this.cpu = e.cpu; this.ts = e.ts;
    return this;
  }
}

/** Output state of one reader of a trace (trace_iterator). */
export interface OutIter {
  tr: TraceArray;
  cmdlines: SavedCmdlines;
  /** TRACE_ITER_SYM_OFFSET / SYM_ADDR / PRINT_PARENT of the instance */
  symOffset: boolean;
  symAddr: boolean;
  printParent: boolean;
  /** latency-format context */
  lat: boolean;
  /** %p prints hashed (hash-ptr) */
  hashPtr: boolean;
}

export interface RecordPrinter {
  /** the text after the context, newline included */
  trace(r: RecView, it: OutIter): string;
  /** the raw option's body (after "pid cpu ts "); default: nothing */
  raw?(r: RecView, it: OutIter): string;
  /** the name shown by the hex/bin options (none needed) */
}

/** Printers by record type (struct trace_event registered by register_trace_event()). */
export class OutputRegistry {
  private readonly byType = new Map<number, RecordPrinter>();
  /** `fallback` makes the printer of a type not registered yet (trace events, on first use) */
  constructor(private readonly fallback?: (type: number) => RecordPrinter | undefined) {
    this.byType.set(TRACE_FN, {
      trace: (r, it) => fnText(r.i64(8), r.i64(16), it) + '\n',
      raw: (r) => `${hexU(r.i64(8))} ${hexU(r.i64(16))}\n`,
    });
    this.byType.set(TRACE_STACK, {
      trace: (r, it) => {
        let s = '<stack trace>\n';
        const n = Math.min(r.i32(8), Math.floor((r.len - 16) / 8));
        for (let i = 0; i < n; i++) {
          const a = r.i64(16 + 8 * i);
          if (a === -1) break;
          s += ` => ${ipSym(a, it)}\n`;
        }
        return s;
      },
    });
    this.byType.set(TRACE_PRINT, {
      trace: (r, it) => `${ipSym(r.i64(8), it)}: ${r.str(16, r.len - 16)}`,
      raw: (r) => `# ${hexU(r.i64(8))} buf: ${r.str(16, r.len - 16)}`,
    });
    this.byType.set(TRACE_RAW_DATA, {
      trace: (r) => {
        let s = `# ${r.u32(8).toString(16)} buf:`;
        for (let i = 12; i < r.len; i++) s += ` ${r.u8(i).toString(16).padStart(2, '0')}`;
        return s + '\n';
      },
    });
  }
  set(type: number, p: RecordPrinter): void {
    this.byType.set(type, p);
  }
  delete(type: number): void {
    this.byType.delete(type);
  }
  get(type: number): RecordPrinter | undefined {
    let p = this.byType.get(type);
    if (p === undefined && this.fallback) {
      p = this.fallback(type);
      if (p) this.byType.set(type, p);
    }
    return p;
  }
}

export function hexU(v: number): string {
  return BigInt.asUintN(64, BigInt(v)).toString(16);
}

/** seq_print_ip_sym(): symbol (sym-offset: +0xoff/0xsize) [ <addr>], "0" for 0. */
export function ipSym(ip: number, it: { symOffset: boolean; symAddr: boolean }): string {
  if (!ip) return '0';
  const p = lookupAddr(ip);
  let s: string;
  if (!p) s = `0x${hexU(ip).padStart(8, '0')}`;
  else {
    const mod = symbolModule(p.id);
    s = symbolName(p.id);
    // sprint_symbol() (sym-offset) appends the module; kallsyms_lookup()'s name alone does not
    if (it.symOffset) s += `+0x${p.offset.toString(16)}/0x${p.size.toString(16)}` + (mod ? ` [${mod}]` : '');
  }
  if (it.symAddr) s += ` <${hexU(ip).padStart(16, '0')}>`;
  return s;
}

/** print_fn_trace(): "func <-parent". */
export function fnText(ip: number, parent: number, it: OutIter): string {
  let s = ipSym(ip, it);
  if (it.printParent && parent) s += ' <-' + ipSym(parent, it);
  return s;
}

/** trace_print_lat_fmt(): the 5 flag characters. */
export function latFmt(flags: number, pc: number): string {
  const nmi = flags & 0x40, hard = flags & 0x08, soft = flags & 0x10, bh = flags & 0x80;
  const irq = flags & 0x01 && bh ? 'D' : flags & 0x01 ? 'd' : bh ? 'b' : flags & 0x02 ? 'X' : '.';
  const nr = flags & 0x24;
  const need = nr === 0x24 ? 'N' : nr === 0x04 ? 'n' : nr === 0x20 ? 'p' : '.';
  const hs = nmi && hard ? 'Z' : nmi ? 'z' : hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
  const p1 = pc & 0xf ? (pc & 0xf).toString(16) : '.';
  const p2 = pc & 0xf0 ? (pc >> 4).toString(16) : '.';
  return irq + need + hs + p1 + p2;
}

/** ns2usecs() then " %5lu.%06lu", or " %12llu" for clocks not in ns. */
export function timeText(ts: number, inNs: boolean): string {
  if (!inNs) return ' ' + String(ts).padStart(12);
  const us = Math.floor((ts + 500) / 1000);
  const secs = Math.floor(us / 1e6);
  return ' ' + String(secs).padStart(5) + '.' + String(us - secs * 1e6).padStart(6, '0');
}

/** trace_print_context(): "%16s-%-7d [%03d] flags ts: " */
export function contextText(r: RecView, it: OutIter): string {
  const tr = it.tr;
  const pid = r.pid;
  let s = `${it.cmdlines.find(pid).padStart(16)}-${String(pid).padEnd(7)} `;
  if (tr.opt('record-tgid')) {
    const tgid = it.cmdlines.tgid(pid);
    s += tgid ? `(${String(tgid).padStart(7)}) ` : '(-------) ';
  }
  s += `[${String(r.cpu).padStart(3, '0')}] `;
  if (tr.opt('irq-info')) s += latFmt(r.flags, r.pc);
  return s + timeText(r.ts, tr.clockInNs()) + ': ';
}

/** trace_find_mark(): the delay mark of a duration in ns (latency format and graph durations). */
export function traceFindMark(ns: number): string {
  if (ns > 1e9) return '$';
  if (ns > 1e8) return '@';
  if (ns > 1e7) return '*';
  if (ns > 1e6) return '#';
  if (ns > 1e5) return '!';
  if (ns > 1e4) return '+';
  return ' ';
}

/** trace_print_lat_context(): "%8.8s-%-7d %3d" + flags + " %4lldus%c: " (relative to `start`). */
export function latContextText(r: RecView, it: OutIter, start: number, nextTs: number, idx: number): string {
  const pid = r.pid;
  const comm = it.cmdlines.find(pid);
  const inNs = it.tr.clockInNs();
  const verbose = it.tr.opt('verbose');
  let abs = r.ts - start, rel = nextTs - r.ts;
  if (inNs) { abs = Math.floor((abs + 500) / 1000); rel = Math.floor((rel + 500) / 1000); }
  let s: string;
  if (verbose) {
    s = `${comm.padStart(16)} ${String(pid).padStart(7)} ${String(r.cpu).padStart(3)} ${r.flags} ${(r.pc & 0xf).toString(16).padStart(8, '0')} ${idx.toString(16).padStart(8, '0')} `;
    if (inNs) {
      s += `[${Math.floor((r.ts + 500) / 1000).toString(16).padStart(8, '0')}] ${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, '0')}ms (+${Math.floor(rel / 1000)}.${String(rel % 1000).padStart(3, '0')}ms): `;
    } else s += `[${r.ts.toString(16).padStart(16, '0')}] ${abs} (+${rel}): `;
  } else {
    s = `${comm.slice(0, 8).padStart(8)}-${String(pid).padEnd(7)} ${String(r.cpu).padStart(3)}` + latFmt(r.flags, r.pc);
    s += inNs ? ` ${String(abs).padStart(4)}us${traceFindMark(rel * 1000)}: ` : ` ${String(abs).padStart(4)}: `;
  }
  return s;
}

/** print_func_help_header_irq() / print_func_help_header() with print_event_info(). */
export function funcHeader(tr: TraceArray, cpus?: readonly number[]): string {
  const tot = tr.buffer.totals(cpus);
  let s = `# entries-in-buffer/entries-written: ${tot.entries}/${tot.written}   #P:${tr.host.ncpus}\n#\n`;
  const tgid = tr.opt('record-tgid');
  if (tr.opt('irq-info')) {
    const sp = tgid ? '            ' : '  ';
    s += `#                            ${sp}  _-----=> irqs-off/BH-disabled\n` +
      `#                            ${sp} / _----=> need-resched\n` +
      `#                            ${sp}| / _---=> hardirq/softirq\n` +
      `#                            ${sp}|| / _--=> preempt-depth\n` +
      `#                            ${sp}||| / _-=> migrate-disable\n` +
      `#                            ${sp}|||| /     delay\n` +
      `#           TASK-PID  ${tgid ? '     TGID   ' : '  '} CPU#  |||||  TIMESTAMP  FUNCTION\n` +
      `#              | |    ${tgid ? '       |    ' : '  '}   |   |||||     |         |\n`;
  } else {
    s += `#           TASK-PID    ${tgid ? '   TGID   ' : ''} CPU#     TIMESTAMP  FUNCTION\n` +
      `#              | |      ${tgid ? '     |    ' : ''}   |         |         |\n`;
  }
  return s;
}

/** print_lat_help_header() */
export const LAT_HELP_HEADER = '#                    _------=> CPU#            \n' +
  '#                   / _-----=> irqs-off/BH-disabled\n' +
  '#                  | / _----=> need-resched    \n' +
  '#                  || / _---=> hardirq/softirq \n' +
  '#                  ||| / _--=> preempt-depth   \n' +
  '#                  |||| / _-=> migrate-disable \n' +
  '#                  ||||| /     delay           \n' +
  '#  cmd     pid     |||||| time  |   caller     \n' +
  '#     \\   /        ||||||  \\    |    /       \n';

/** print_trace_header(): the latency-format header (no latency tracer: the saved data is empty). */
export function latencyHeader(tr: TraceArray, cpus?: readonly number[]): string {
  const tot = tr.buffer.totals(cpus);
  return `# ${tr.tracerName} latency trace v1.1.5 on ${KERNEL_RELEASE}\n` +
    '# --------------------------------------------------------------------\n' +
    `# latency: ${Math.floor(tr.maxLatency / 1000)} us, #${tot.entries}/${tot.written}, CPU#0 | (M:desktop VP:0, KP:0, SP:0 HP:0 #P:${tr.host.ncpus})\n` +
    '#    -----------------\n' +
    '#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n' +
    '#    -----------------\n' +
    '#\n';
}
