/**
 * Event format files (events/SYSTEM/NAME/format) as libtraceevent reads them from a trace.dat:
 * name, ID, the fields with offset/size/signed, and the print fmt, evaluated on a record's bytes
 * with the kernel's own print fmt evaluator (src/kernel/tracefs/print_fmt.ts) and an environment
 * that prints symbols from the file's kallsyms.
 */
import { parsePrintFmt, renderPrintFmt, ParsedPrintFmt, PrintEnv, Rec, Val } from '../../../kernel/tracefs/print_fmt';

export interface FormatField {
  name: string;
  type: string;
  offset: number;
  size: number;
  signed: boolean;
  /** __data_loc: a u32 (len << 16 | offset) to dynamic data */
  dyn: boolean;
  /** char x[N] / __data_loc char[] */
  str: boolean;
  arr: boolean;
}

export interface EventFormat {
  system: string;
  name: string;
  id: number;
  fields: FormatField[];
  byName: Map<string, FormatField>;
  printFmtText: string;
  printFmt?: ParsedPrintFmt;
}

/** Parse one format file's text; null when it has no name or ID. */
export function parseFormat(system: string, text: string): EventFormat | null {
  const name = /^name: (.*)$/m.exec(text)?.[1];
  const id = /^ID: (\d+)$/m.exec(text)?.[1];
  if (name === undefined || id === undefined) return null;
  const fields: FormatField[] = [];
  for (const m of text.matchAll(/^\s*field:(.*?);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);/gm)) {
    const decl = m[1].trim();
    const dm = /^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?$/.exec(decl);
    if (!dm) continue;
    const type = dm[1].trim();
    const dyn = type.startsWith('__data_loc');
    const arr = !!dm[3] || dyn;
    const str = arr && /\bchar\b/.test(type);
    fields.push({ name: dm[2], type, offset: Number(m[2]), size: Number(m[3]), signed: m[4] === '1', dyn, str, arr });
  }
  const pf = /^print fmt: (.*)$/m.exec(text)?.[1] ?? '';
  return { system, name, id: Number(id), fields, byName: new Map(fields.map((f) => [f.name, f])), printFmtText: pf };
}

/** A record's bytes (the event data past the ring buffer header). */
export interface RawRecord { dv: DataView; bytes: Uint8Array; off: number; len: number }

function slice(r: RawRecord, off: number, len: number): Uint8Array {
  const s = Math.max(0, Math.min(off, r.len));
  return r.bytes.subarray(r.off + s, r.off + Math.min(r.len, s + len));
}

/** A field's value as print fmt sees it. */
export function fieldVal(r: RawRecord, f: FormatField): Val {
  if (f.offset + f.size > r.len) return 0n;
  if (f.dyn) {
    const loc = r.dv.getUint32(r.off + f.offset, true);
    const b = slice(r, loc & 0xffff, loc >>> 16);
    if (f.str) { const z = b.indexOf(0); return Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1'); }
    return b;
  }
  if (f.arr) {
    const b = slice(r, f.offset, f.size);
    if (f.str) { const z = b.indexOf(0); return Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1'); }
    return b;
  }
  return intAt(r, f.offset, f.size, f.signed);
}

export function intAt(r: RawRecord, off: number, size: number, signed: boolean): bigint {
  const dv = r.dv, o = r.off + off;
  if (off + size > r.len) return 0n;
  switch (size) {
    case 1: return BigInt(signed ? dv.getInt8(o) : dv.getUint8(o));
    case 2: return BigInt(signed ? dv.getInt16(o, true) : dv.getUint16(o, true));
    case 4: return BigInt(signed ? dv.getInt32(o, true) : dv.getUint32(o, true));
    case 8: return signed ? dv.getBigInt64(o, true) : dv.getBigUint64(o, true);
    default: return 0n;
  }
}

/** The value of a named integer field (0 when absent). */
export function num(ev: EventFormat, r: RawRecord, name: string): bigint {
  const f = ev.byName.get(name);
  if (!f) return 0n;
  const v = fieldVal(r, f);
  return typeof v === 'bigint' ? v : 0n;
}

export function str(ev: EventFormat, r: RawRecord, name: string): string {
  const f = ev.byName.get(name);
  const v = f ? fieldVal(r, f) : null;
  return typeof v === 'string' ? v : '';
}

/** The event's print fmt evaluated on the record (libtraceevent's default output). */
export function printEvent(ev: EventFormat, r: RawRecord, env: PrintEnv): string {
  if (!ev.printFmt) ev.printFmt = parsePrintFmt(ev.printFmtText);
  const rec: Rec = {
    field: (n) => { const f = ev.byName.get(n); return f ? fieldVal(r, f) : 0n; },
    dyn: (n) => {
      const f = ev.byName.get(n);
      if (!f || !f.dyn) return null;
      const loc = r.dv.getUint32(r.off + f.offset, true);
      return slice(r, loc & 0xffff, loc >>> 16);
    },
  };
  return renderPrintFmt(ev.printFmt, rec, env);
}
