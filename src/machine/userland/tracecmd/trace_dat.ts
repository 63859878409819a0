/**
 * The trace.dat file of trace-cmd 3.1 (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): what
 * `trace-cmd record` writes and `trace-cmd report` reads.
 *
 * Version 6 (what this trace-cmd writes, as real trace-cmd does with `--file-version 6`): the
 * magic "\x17\x08Dtracing", "6\0", endianness, sizeof(long), page size, then in a fixed order
 * header_page and header_event, the ftrace event formats, the event systems' formats, kallsyms,
 * printk formats, saved cmdlines, the CPU count, the options ("options  \0", id u16 + size u32 +
 * data, ended by id 0) and "flyrecord\0" with each CPU's offset and size (u64 each) and the
 * selected clock (u64 size, "[global]"); the CPU data (whole ring buffer pages as trace_pipe_raw
 * gives them) starts at the next page boundary.
 *
 * Version 7 (real trace-cmd 3.1's default): the same metadata in sections (id u16, flags u16,
 * string id u32, size u64; flag 1 = compressed: u32 compressed size, u32 size, data) reached from
 * chained option sections (the DONE option holds the next one's offset); a BUFFER option gives each
 * CPU's data, which when compressed is a u32 chunk count and chunks (u32 compressed size, u32
 * size, data). zlib and zstd compression (trace-cmd's two algorithms) are read.
 * Checked against files written by trace-cmd 3.1.6 in the recording guest
 * (test/fixtures/tracefs-real/tc_v6.dat, tc_v7none.dat, tc_v7zstd.dat; scripts/tracefs/guest/part-tracedat.sh).
 */

export const MAGIC = Uint8Array.of(0x17, 0x08, 0x44, ...Buffer.from('tracing'));

export const OPT = {
  DONE: 0, DATE: 1, CPUSTAT: 2, BUFFER: 3, TRACECLOCK: 4, UNAME: 5, HOOK: 6, OFFSET: 7, CPUCOUNT: 8, VERSION: 9,
  PROCMAPS: 10, TRACEID: 11, TIME_SHIFT: 12, GUEST: 13, TSC2NSEC: 14, STRINGS: 15, HEADER_INFO: 16, FTRACE_EVENTS: 17,
  EVENT_FORMATS: 18, KALLSYMS: 19, PRINTK: 20, CMDLINES: 21, BUFFER_TEXT: 22,
} as const;

/** Everything a report needs from a trace.dat file. */
export interface TraceDat {
  version: number;
  pageSize: number;
  longSize: number;
  compression: string;
  headerPage: string;
  headerEvent: string;
  /** events/ftrace/NAME/format texts */
  ftraceFormats: string[];
  /** system name -> its events' format texts */
  systems: Map<string, string[]>;
  kallsyms: string;
  printk: string;
  cmdlines: string;
  /** the trace_clock file's text ("local [global] counter ...\n"), '' if not stored */
  clock: string;
  uname: string;
  tracecmdVersion: string;
  /** trace_pipe_raw's stats per CPU (CPUSTAT options) */
  cpuStats: string[];
  /** each CPU's data: whole ring buffer pages */
  cpuData: Uint8Array[];
}

export class TraceDatError extends Error {}

// ------------------------------------------------------------------------------- writing

class Out {
  private parts: Uint8Array[] = [];
  length = 0;
  bytes(b: Uint8Array): void { this.parts.push(b); this.length += b.length; }
  str0(s: string): void { this.bytes(Buffer.from(s + '\0', 'latin1')); }
  u16(v: number): void { const b = Buffer.alloc(2); b.writeUInt16LE(v); this.bytes(b); }
  u32(v: number): void { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); this.bytes(b); }
  u64(v: number): void { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.bytes(b); }
  text(s: string): Buffer { return Buffer.from(s, 'latin1'); }
  sized64(s: string): void { const b = this.text(s); this.u64(b.length); this.bytes(b); }
  sized32(s: string): void { const b = this.text(s); this.u32(b.length); this.bytes(b); }
  option(id: number, data: Uint8Array): void { this.u16(id); this.u32(data.length); this.bytes(data); }
  done(): Uint8Array { return Buffer.concat(this.parts, this.length); }
}

/** What `record` prints about each CPU's data: its offset in the file and its size. */
export interface CpuPlacement { offset: number; size: number }

/** A version-6 trace.dat of `d` and where each CPU's data landed. */
export function writeTraceDatV6(d: TraceDat, traceId: Uint8Array): { file: Uint8Array; cpus: CpuPlacement[] } {
  const o = new Out();
  o.bytes(MAGIC);
  o.str0('6');
  o.bytes(Uint8Array.of(0, d.longSize));
  o.u32(d.pageSize);
  o.str0('header_page');
  o.sized64(d.headerPage);
  o.str0('header_event');
  o.sized64(d.headerEvent);
  o.u32(d.ftraceFormats.length);
  for (const f of d.ftraceFormats) o.sized64(f);
  o.u32(d.systems.size);
  for (const [sys, fmts] of d.systems) {
    o.str0(sys);
    o.u32(fmts.length);
    for (const f of fmts) o.sized64(f);
  }
  o.sized32(d.kallsyms);
  o.sized32(d.printk);
  o.sized64(d.cmdlines);
  o.u32(d.cpuData.length);
  o.bytes(Buffer.from('options  \0', 'latin1'));
  if (d.clock) o.option(OPT.TRACECLOCK, o.text(d.clock + '\0'));
  o.option(OPT.UNAME, o.text(d.uname + '\0'));
  o.option(OPT.VERSION, o.text(d.tracecmdVersion + '\0'));
  o.option(OPT.TRACEID, traceId);
  for (const s of d.cpuStats) o.option(OPT.CPUSTAT, o.text(s + '\0'));
  o.u16(OPT.DONE);
  o.bytes(Buffer.from('flyrecord\0', 'latin1'));
  // after the CPU entries, the selected clock ("[global]"), when the TRACECLOCK option is there
  const sel = d.clock ? Buffer.from(/\[[^\]]*\]/.exec(d.clock)?.[0] ?? '', 'latin1') : null;
  let at = o.length + 16 * d.cpuData.length + (sel ? 8 + sel.length : 0);
  at = Math.ceil(at / d.pageSize) * d.pageSize;
  const cpus: CpuPlacement[] = [];
  for (const data of d.cpuData) {
    cpus.push({ offset: at, size: data.length });
    o.u64(at);
    o.u64(data.length);
    at += Math.ceil(data.length / d.pageSize) * d.pageSize;
  }
  if (sel) { o.u64(sel.length); o.bytes(sel); }
  for (const [i, data] of d.cpuData.entries()) {
    if (o.length < cpus[i].offset) o.bytes(new Uint8Array(cpus[i].offset - o.length));
    o.bytes(data);
  }
  return { file: o.done(), cpus };
}

/** The sections of a version-7 file, in the order trace-cmd 3.1 writes them (their names are the string table's). */
const V7_STRINGS = ['headers', 'ftrace events', 'events format', 'kallsyms', 'printk', 'command lines', 'options', 'buffer flyrecord ', 'options', 'strings'];

/**
 * A version-7 trace.dat of `d` without compression (`trace-cmd record --file-version 7
 * --compression none`; 3.1's default is a compressed v7) and where each CPU's data landed: the
 * metadata sections, the options section (pointers to them, clock, uname, version, trace id, CPU
 * stats, CPU count, DONE with the next options' offset), the "buffer flyrecord" section with the
 * CPU data at the next page boundary, the second options section (BUFFER: the section's offset,
 * "", the clock, page size, each CPU's offset and size), and the string table.
 */
export function writeTraceDatV7(d: TraceDat, traceId: Uint8Array): { file: Uint8Array; cpus: CpuPlacement[] } {
  const o = new Out();
  const strId: number[] = [];
  let sp = 0;
  for (const n of V7_STRINGS) { strId.push(sp); sp += n.length + 1; }
  const sectionHead = (id: number, str: number, size: number) => { o.u16(id); o.u16(0); o.u32(strId[str]); o.u64(size); };
  const section = (id: number, str: number, body: Out): number => {
    const at = o.length;
    const b = body.done();
    sectionHead(id, str, b.length);
    o.bytes(b);
    return at;
  };
  const u64b = (v: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  o.bytes(MAGIC);
  o.str0('7');
  o.bytes(Uint8Array.of(0, d.longSize));
  o.u32(d.pageSize);
  o.str0('none');
  o.str0('');
  const firstOptAt = o.length;
  o.u64(0); // patched: the first options section
  const meta = new Out();
  meta.str0('header_page'); meta.sized64(d.headerPage); meta.str0('header_event'); meta.sized64(d.headerEvent);
  const headersAt = section(OPT.HEADER_INFO, 0, meta);
  const ft = new Out();
  ft.u32(d.ftraceFormats.length);
  for (const f of d.ftraceFormats) ft.sized64(f);
  const ftraceAt = section(OPT.FTRACE_EVENTS, 1, ft);
  const ev = new Out();
  ev.u32(d.systems.size);
  for (const [sys, fmts] of d.systems) { ev.str0(sys); ev.u32(fmts.length); for (const f of fmts) ev.sized64(f); }
  const eventsAt = section(OPT.EVENT_FORMATS, 2, ev);
  const ks = new Out(); ks.sized32(d.kallsyms);
  const kallsymsAt = section(OPT.KALLSYMS, 3, ks);
  const pk = new Out(); pk.sized32(d.printk);
  const printkAt = section(OPT.PRINTK, 4, pk);
  const cl = new Out(); cl.sized64(d.cmdlines);
  const cmdlinesAt = section(OPT.CMDLINES, 5, cl);
  // the first options section: its size is known before the offsets it holds
  const opts = (next: number): Out => {
    const x = new Out();
    x.option(OPT.HEADER_INFO, u64b(headersAt));
    x.option(OPT.FTRACE_EVENTS, u64b(ftraceAt));
    x.option(OPT.EVENT_FORMATS, u64b(eventsAt));
    x.option(OPT.KALLSYMS, u64b(kallsymsAt));
    x.option(OPT.PRINTK, u64b(printkAt));
    if (d.clock) x.option(OPT.TRACECLOCK, x.text(d.clock + '\0'));
    x.option(OPT.UNAME, x.text(d.uname + '\0'));
    x.option(OPT.VERSION, x.text(d.tracecmdVersion + '\0'));
    x.option(OPT.TRACEID, traceId);
    for (const st of d.cpuStats) x.option(OPT.CPUSTAT, x.text(st + '\0'));
    x.option(OPT.CMDLINES, u64b(cmdlinesAt));
    const n = Buffer.alloc(4); n.writeUInt32LE(d.cpuData.length); x.option(OPT.CPUCOUNT, n);
    x.option(OPT.DONE, u64b(next));
    return x;
  };
  const optAt = o.length;
  const optSize = 16 + opts(0).length;
  // the buffer section: padding to the page boundary, then each CPU's pages
  const bufAt = optAt + optSize;
  let dataAt = Math.ceil((bufAt + 16) / d.pageSize) * d.pageSize;
  const cpus: CpuPlacement[] = [];
  for (const data of d.cpuData) { cpus.push({ offset: dataAt, size: data.length }); dataAt += data.length; }
  const opt2At = dataAt;
  section(0, 6, opts(opt2At));
  const buf = new Out();
  buf.bytes(new Uint8Array((cpus[0]?.offset ?? bufAt + 16) - (bufAt + 16)));
  for (const data of d.cpuData) buf.bytes(data);
  section(OPT.BUFFER, 7, buf);
  const b2 = new Out();
  const bo = new Out();
  bo.u64(bufAt);
  bo.str0('');
  bo.str0(d.clock ? (/\[([^\]]*)\]/.exec(d.clock)?.[1] ?? '') : '');
  bo.u32(d.pageSize);
  bo.u32(d.cpuData.length);
  cpus.forEach((c, i) => { bo.u32(i); bo.u64(c.offset); bo.u64(c.size); });
  b2.option(OPT.BUFFER, bo.done());
  b2.option(OPT.DONE, u64b(0));
  section(0, 8, b2);
  const st = new Out();
  for (const n of V7_STRINGS) st.str0(n);
  section(OPT.STRINGS, 9, st);
  const file = Buffer.from(o.done());
  file.writeBigUInt64LE(BigInt(optAt), firstOptAt);
  return { file, cpus };
}

// ------------------------------------------------------------------------------- reading

class In {
  constructor(readonly b: Buffer, public p = 0) {}
  need(n: number): void { if (this.p + n > this.b.length || n < 0) throw new TraceDatError('truncated file'); }
  u8(): number { this.need(1); return this.b[this.p++]; }
  u16(): number { this.need(2); const v = this.b.readUInt16LE(this.p); this.p += 2; return v; }
  u32(): number { this.need(4); const v = this.b.readUInt32LE(this.p); this.p += 4; return v; }
  u64(): number {
    this.need(8);
    const v = this.b.readBigUInt64LE(this.p);
    this.p += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new TraceDatError('bad size or offset');
    return Number(v);
  }
  str0(): string {
    const e = this.b.indexOf(0, this.p);
    if (e < 0) throw new TraceDatError('truncated file');
    const s = this.b.toString('latin1', this.p, e);
    this.p = e + 1;
    return s;
  }
  bytes(n: number): Buffer { this.need(n); const v = this.b.subarray(this.p, this.p + n); this.p += n; return v; }
  text(n: number): string { return this.bytes(n).toString('latin1'); }
  expect(s: string): void { if (this.text(s.length) !== s) throw new TraceDatError(`missing '${s.replace(/\0/g, '')}'`); }
}

function decompress(alg: string, data: Buffer, size: number): Buffer {
  let out: Buffer;
  try {
    if (alg === 'zlib') out = (require('zlib') as typeof import('zlib')).inflateSync(data); // loaded only for a compressed file
    else if (alg === 'zstd') {
      const { decompress: unzstd } = require('fzstd') as { decompress: (b: Uint8Array) => Uint8Array };
      out = Buffer.from(unzstd(data));
    } else throw new TraceDatError(`unknown compression algorithm '${alg}'`);
  } catch (e) {
    if (e instanceof TraceDatError) throw e;
    throw new TraceDatError(`corrupt ${alg} data`);
  }
  if (out.length !== size) throw new TraceDatError(`corrupt ${alg} data`);
  return out;
}

function emptyDat(version: number): TraceDat {
  return {
    version, pageSize: 4096, longSize: 8, compression: 'none', headerPage: '', headerEvent: '', ftraceFormats: [],
    systems: new Map(), kallsyms: '', printk: '', cmdlines: '', clock: '', uname: '', tracecmdVersion: '', cpuStats: [], cpuData: [],
  };
}

function readHeaders(r: In, d: TraceDat): void {
  r.expect('header_page\0');
  d.headerPage = r.text(r.u64());
  r.expect('header_event\0');
  d.headerEvent = r.text(r.u64());
}
function readFtrace(r: In, d: TraceDat): void {
  for (let n = r.u32(); n > 0; n--) d.ftraceFormats.push(r.text(r.u64()));
}
function readSystems(r: In, d: TraceDat): void {
  for (let n = r.u32(); n > 0; n--) {
    const sys = r.str0();
    const list: string[] = [];
    for (let k = r.u32(); k > 0; k--) list.push(r.text(r.u64()));
    d.systems.set(sys, list);
  }
}

function textOpt(b: Buffer): string {
  const z = b.indexOf(0);
  return b.toString('latin1', 0, z < 0 ? b.length : z);
}

/** Parse a trace.dat file (versions 6 and 7). */
export function readTraceDat(bytes: Uint8Array): TraceDat {
  const r = new In(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (bytes.length < 10 || !MAGIC.every((v, i) => bytes[i] === v)) throw new TraceDatError('not a trace.dat file');
  r.p = MAGIC.length;
  const version = Number(r.str0());
  if (version !== 6 && version !== 7) throw new TraceDatError(`unsupported file version ${version}`);
  const d = emptyDat(version);
  if (r.u8() !== 0) throw new TraceDatError('big-endian files are not supported');
  d.longSize = r.u8();
  d.pageSize = r.u32();
  return version === 6 ? readV6(r, d) : readV7(r, d);
}

function readV6(r: In, d: TraceDat): TraceDat {
  readHeaders(r, d);
  readFtrace(r, d);
  readSystems(r, d);
  d.kallsyms = r.text(r.u32());
  d.printk = r.text(r.u32());
  d.cmdlines = r.text(r.u64());
  const ncpus = r.u32();
  let kind = r.text(10);
  if (kind === 'options  \0') {
    for (;;) {
      const id = r.u16();
      if (id === OPT.DONE) break;
      const data = r.bytes(r.u32());
      option(d, id, data);
    }
    kind = r.text(10);
  }
  if (kind !== 'flyrecord\0') throw new TraceDatError(kind.startsWith('latency') ? 'latency trace files are not supported' : 'missing flyrecord');
  const places: CpuPlacement[] = [];
  for (let c = 0; c < ncpus; c++) places.push({ offset: r.u64(), size: r.u64() });
  for (const p of places) { r.p = p.offset; d.cpuData.push(r.bytes(p.size)); }
  return d;
}

function option(d: TraceDat, id: number, data: Buffer): void {
  switch (id) {
    case OPT.TRACECLOCK: if (data.length) d.clock = textOpt(data); break;
    case OPT.UNAME: d.uname = textOpt(data); break;
    case OPT.VERSION: d.tracecmdVersion = textOpt(data); break;
    case OPT.CPUSTAT: d.cpuStats.push(textOpt(data)); break;
    default: break;
  }
}

/** A v7 section's content (decompressed). */
function section(r: In, d: TraceDat, at: number): In {
  const s = new In(r.b, at);
  s.u16();
  const flags = s.u16();
  s.u32();
  const size = s.u64();
  const body = s.bytes(size);
  if (!(flags & 1)) return new In(body);
  const b = new In(body);
  const csize = b.u32(), usize = b.u32();
  return new In(decompress(d.compression, b.bytes(csize), usize));
}

function readV7(r: In, d: TraceDat): TraceDat {
  d.compression = r.str0();
  r.str0();
  if (d.compression === '') d.compression = 'none';
  let next = r.u64();
  const seen = new Set<number>();
  while (next && !seen.has(next)) {
    seen.add(next);
    const s = section(r, d, next);
    next = 0;
    while (s.p < s.b.length) {
      const id = s.u16();
      const data = s.bytes(s.u32());
      const at = () => new In(data).u64();
      switch (id) {
        case OPT.DONE: next = at(); break;
        case OPT.HEADER_INFO: readHeaders(section(r, d, at()), d); break;
        case OPT.FTRACE_EVENTS: readFtrace(section(r, d, at()), d); break;
        case OPT.EVENT_FORMATS: readSystems(section(r, d, at()), d); break;
        case OPT.KALLSYMS: { const k = section(r, d, at()); d.kallsyms = k.text(k.u32()); break; }
        case OPT.PRINTK: { const k = section(r, d, at()); d.printk = k.text(k.u32()); break; }
        case OPT.CMDLINES: { const k = section(r, d, at()); d.cmdlines = k.text(k.u64()); break; }
        case OPT.BUFFER: readBuffer(r, d, new In(data)); break;
        default: option(d, id, data);
      }
      if (id === OPT.DONE) break;
    }
  }
  return d;
}

/** The top buffer's CPU data (instances' buffers are not read). */
function readBuffer(r: In, d: TraceDat, o: In): void {
  o.u64();
  const name = o.str0();
  if (name !== '') return;
  const clock = o.str0();
  if (clock && !d.clock) d.clock = clock;
  o.u32();
  const n = o.u32();
  for (let i = 0; i < n; i++) {
    o.u32();
    const offset = o.u64(), size = o.u64();
    if (d.compression === 'none' || size === 0) { r.p = offset; d.cpuData.push(r.bytes(size)); continue; }
    const c = new In(r.b, offset);
    const parts: Buffer[] = [];
    for (let k = c.u32(); k > 0; k--) {
      const csize = c.u32(), usize = c.u32();
      parts.push(decompress(d.compression, c.bytes(csize), usize));
    }
    d.cpuData.push(Buffer.concat(parts));
  }
}
