/**
 * The kernel symbol table's compact form: kallsyms.gz + modules.gz turned into one binary file of
 * typed arrays, with nothing parsed and no per-symbol object made.  `npm run build` writes it to
 * dist/kernel-tables/ (scripts/build-kernel-tables.ts); a run without it (or with data newer than
 * it) parses the text data and writes the same table to the cache directory, so only the first
 * such run pays for the parse.
 *
 * Layout: a JSON header line (format, source stamp, section offsets), then 8-byte aligned
 * sections: addresses (Float64, signed 64-bit values as numbers), nm type letters (Uint8),
 * module index (Int16, -1 vmlinux), name offsets (Uint32, n+1) into a Latin-1 name blob, symbol
 * ids grouped by the hash of their name (FNV-1a of the Latin-1 bytes, masked to a power-of-two
 * bucket count about n/2; sorted by (bucket, name, id) so a name's ids are neighbours), the
 * start of each bucket in that list (Uint32, buckets+1), and module data as three JSON lines
 * (module list, ftrace sites, source locations; each parsed on first use).  A name lookup
 * hashes the name and compares it with the one or two symbols of its bucket instead of the ~17
 * of a binary search (a start looks up a few hundred names, in code not yet optimized).
 * The file is read a section at a time as they are first used, and the 2 MB name blob in 64 KB
 * pages: a start reads the header, the name index and the pages its names fall in, not the
 * whole 4.4 MB.  Names are decoded one by one as asked for; only globs decode them all (allNames()).
 */
import * as fs from 'fs';
import * as path from 'path';
import { kernelDataDir, dataFilesStamp, readDataText, openDerivedTable, writeDerivedTable } from './data';
import { cacheFile } from '../cachedir';

/** A loaded module (modules.gz): core layout in the module area, text first. */
export interface KModule {
  name: string;
  base: number;
  /** core size (/proc/modules' size, /sys/module/M/coresize) */
  size: number;
  textSize: number;
  /** reference count and the modules using this one, as /proc/modules shows them */
  refcnt: number;
  usedBy: string[];
  /** in memory (/proc/modules 'Live'); false: installed with debuginfo but not loaded (probes resolve, never register) */
  loaded: boolean;
  /** first symbol id and one past the last */
  firstId: number;
  endId: number;
}

export interface ModuleData {
  modules: KModule[];
  /** module dyn_ftrace sites (absolute ips, ascending) */
  sites: number[];
  /** [symbol id, file, line] of module functions with a source location */
  locs: [number, string, number][];
  /** every directory of /sys/module (loaded modules and built-in ones with parameters) */
  sysModules: string[];
}

/** The symbol table in its parsed (text) form. */
export interface SymtabSource {
  names: string[];
  types: string[];
  addrs: number[];
  /** module index per symbol (-1 vmlinux) */
  mods: number[];
  moduleData: ModuleData;
}

const FORMAT = 'tapsim-ksymtab-6';
const SOURCES = ['kallsyms.gz', 'modules.gz'];

interface Header {
  format: string;
  stamp: string;
  n: number;
  /** [byte offset, byte length] of each section, from the start of the file */
  sections: Record<'addrs' | 'types' | 'mods' | 'nameOff' | 'names' | 'byName' | 'nameBuckets' | 'modules', [number, number]>;
}

/**
 * Where a table's sections come from: the bytes of `len` at file offset `off`, in memory that a
 * typed array of any element size can view (8-aligned).  A file is read section by section as
 * they are first used (a start that looks up a few hundred names reads about 2 of its 4.4 MB).
 */
export interface SectionSource {
  bytes(off: number, len: number): Buffer;
}

/** Sections of a table held in one buffer. */
export function bufferSource(buf: Buffer): SectionSource {
  if (buf.byteOffset % 8 !== 0) buf = Buffer.from(buf); // typed views need aligned offsets
  return { bytes: (off, len) => buf.subarray(off, off + len) };
}

/** Sections of a table file, read when asked for (the descriptor stays open). */
function fileSource(fd: number): SectionSource {
  return {
    bytes(off, len) {
      // (not from the pool: its own aligned memory, every byte read below)
      const b = Buffer.allocUnsafeSlow(len);
      let got = 0;
      while (got < len) {
        const k = fs.readSync(fd, b, got, len - got, off + got);
        if (k <= 0) throw new Error('kernel symbol table file is shorter than its header says');
        got += k;
      }
      return b;
    },
  };
}

/** The name blob is read in pages of this many bytes (plus NAME_MAX, so a name never straddles two). */
const NAME_PAGE = 1 << 16;
/** KSYM_NAME_LEN */
const NAME_MAX = 512;

export class Symtab {
  readonly n: number;
  private addrsA?: Float64Array;
  private typesA?: Uint8Array;
  private modsA?: Int16Array;
  /** ids with a non-negative address come first in the file (unsigned order): this many */
  private nonNegCount = -1;
  private sortedA?: Float64Array;
  private nameOffA?: Uint32Array;
  private readonly namePages: (Buffer | undefined)[];
  private byNameA?: Int32Array;
  private nameBucketsA?: Uint32Array;
  private moduleParts?: string[];
  private moduleListA?: KModule[];
  private sites?: number[];
  private locs?: ModuleData['locs'];
  private names?: string[];

  constructor(private readonly src: SectionSource, private readonly h: Header) {
    this.n = h.n;
    this.namePages = new Array<Buffer | undefined>(Math.ceil(h.sections.names[1] / NAME_PAGE));
  }

  private section<T>(ctor: { new (b: ArrayBufferLike, off: number, len: number): T; BYTES_PER_ELEMENT: number }, key: keyof Header['sections']): T {
    const [off, len] = this.h.sections[key];
    const b = this.src.bytes(off, len);
    return new ctor(b.buffer, b.byteOffset, len / ctor.BYTES_PER_ELEMENT);
  }

  /** Signed 64-bit addresses as numbers, by id. */
  get addrs(): Float64Array {
    return (this.addrsA ??= this.section(Float64Array, 'addrs'));
  }

  /** nm type letters (character codes), by id. */
  get types(): Uint8Array {
    return (this.typesA ??= this.section(Uint8Array, 'types'));
  }

  /** Module index (-1 vmlinux), by id. */
  get mods(): Int16Array {
    return (this.modsA ??= this.section(Int16Array, 'mods'));
  }

  private get nameOff(): Uint32Array {
    return (this.nameOffA ??= this.section(Uint32Array, 'nameOff'));
  }

  private get byName(): Int32Array {
    return (this.byNameA ??= this.section(Int32Array, 'byName'));
  }

  private get nameBuckets(): Uint32Array {
    return (this.nameBucketsA ??= this.section(Uint32Array, 'nameBuckets'));
  }

  /** The page of the name blob holding the name that starts at blob offset `s`. */
  private namePage(s: number): Buffer {
    const k = s >>> 16;
    let p = this.namePages[k];
    if (!p) {
      const [off, len] = this.h.sections.names;
      const start = k * NAME_PAGE;
      p = this.namePages[k] = this.src.bytes(off + start, Math.min(NAME_PAGE + NAME_MAX, len - start));
    }
    return p;
  }

  /**
   * The buffer holding symbol `id`'s name, its start in `nameS` and end in `nameE` (fields, not
   * a returned tuple: destructuring runs the iterator protocol, slow in code not yet optimized).
   */
  private nameS = 0;
  private nameE = 0;
  private nameBuf(id: number): Buffer {
    const off = this.nameOff;
    const s = off[id], e = off[id + 1];
    const base = s - (s % NAME_PAGE);
    const p = this.namePage(s);
    if (e - base > p.length) {
      // (longer than KSYM_NAME_LEN: not in kallsyms data, read on its own)
      this.nameS = 0;
      this.nameE = e - s;
      return this.src.bytes(this.h.sections.names[0] + s, e - s);
    }
    this.nameS = s - base;
    this.nameE = e - base;
    return p;
  }

  private get nonNeg(): number {
    if (this.nonNegCount < 0) {
      // file order is unsigned-ascending: the non-negative (per-cpu, absolute) addresses first
      const addrs = this.addrs;
      let lo = 0, hi = this.n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (addrs[mid] >= 0) lo = mid + 1;
        else hi = mid;
      }
      this.nonNegCount = lo;
    }
    return this.nonNegCount;
  }

  /** Addresses in signed order (the negative, kernel half first). */
  get sortedAddrs(): Float64Array {
    if (!this.sortedA) {
      const a = new Float64Array(this.n);
      a.set(this.addrs.subarray(this.nonNeg));
      a.set(this.addrs.subarray(0, this.nonNeg), this.n - this.nonNeg);
      this.sortedA = a;
    }
    return this.sortedA;
  }

  /** Id of the k-th symbol in signed address order (stable). */
  sortedId(k: number): number {
    const neg = this.n - this.nonNeg;
    return k < neg ? this.nonNeg + k : k - neg;
  }

  name(id: number): string {
    if (this.names) return this.names[id];
    return this.nameBuf(id).toString('latin1', this.nameS, this.nameE);
  }

  /** nm type letter of a symbol. */
  type(id: number): string {
    return String.fromCharCode(this.types[id]);
  }

  /** Every name, in id order (decoded once, for globs and listings). */
  allNames(): readonly string[] {
    if (!this.names) {
      // one decode of the whole blob, then slices of it (a Buffer#toString per name costs ~10x)
      const [off, len] = this.h.sections.names;
      const blob = this.src.bytes(off, len).toString('latin1');
      const ends = this.nameOff;
      const names = new Array<string>(this.n);
      for (let i = 0; i < this.n; i++) names[i] = blob.slice(ends[i], ends[i + 1]);
      this.names = names;
    }
    return this.names;
  }

  /**
   * Ids of the symbols whose name has its first '.' after its first byte (foo.isra.0, foo.cold),
   * ascending: found by scanning the name bytes for dots, without decoding every name.
   */
  dottedIds(): number[] {
    if (this.dotted) return this.dotted;
    const [off, len] = this.h.sections.names;
    const blob = this.src.bytes(off, len);
    const ends = this.nameOff;
    const ids: number[] = [];
    const hashes: number[] = [];
    for (let p = blob.indexOf(0x2e); p >= 0;) {
      // the symbol holding byte p: the last id whose name starts at or before p
      let lo = 0;
      let hi = this.n - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ends[mid] <= p) lo = mid;
        else hi = mid - 1;
      }
      if (p > ends[lo]) {
        ids.push(lo);
        hashes.push(bytesHashOf(blob, ends[lo], p));
      }
      // (its first dot decides: on to the next name)
      p = lo + 1 < this.n ? blob.indexOf(0x2e, ends[lo + 1]) : -1;
    }
    this.dottedHashes = hashes;
    return (this.dotted = ids);
  }
  private dotted?: number[];

  /** nameHashOf the part before the first '.' of each dottedIds() name, in the same order. */
  dottedPrefixHashes(): number[] {
    if (!this.dottedHashes) this.dottedIds();
    return this.dottedHashes!;
  }
  private dottedHashes?: number[];

  /** Compare `name` with symbol `id`'s name, in Latin-1 code order (faster than Buffer#compare). */
  private cmp(name: string, id: number): number {
    const b = this.nameBuf(id);
    const s = this.nameS;
    const len = this.nameE - s;
    const m = Math.min(len, name.length);
    for (let i = 0; i < m; i++) {
      const d = name.charCodeAt(i) - b[s + i];
      if (d !== 0) return d;
    }
    return name.length - len;
  }

  /** Ids of every symbol with this exact name, ascending (address order). */
  lookup(name: string): number[] {
    const bn = this.byName;
    const buckets = this.nameBuckets;
    const b = nameHashOf(name) & (buckets.length - 2);
    const end = buckets[b + 1];
    const out: number[] = [];
    let k = buckets[b];
    while (k < end && this.cmp(name, bn[k]) > 0) k++;
    while (k < end && this.cmp(name, bn[k]) === 0) out.push(bn[k++]);
    return out;
  }

  /** The modules section's JSON lines (list, ftrace sites, source locations, /sys/module). */
  private modulePart(i: number): string {
    const parts = this.moduleParts ??= [];
    let p = parts[i];
    if (p === undefined) {
      // only line i is decoded (a start reads /sys/module's, the last and shortest, of ~340 KB)
      const [off, len] = this.h.sections.modules;
      const b = this.moduleBytes ??= this.src.bytes(off, len);
      let start = 0;
      for (let k = 0; k < i && start <= b.length; k++) {
        const nl = b.indexOf(10, start);
        start = nl < 0 ? b.length + 1 : nl + 1;
      }
      if (start > b.length) return undefined as unknown as string;
      const nl = b.indexOf(10, start);
      p = parts[i] = b.toString('latin1', start, nl < 0 ? b.length : nl);
    }
    return p;
  }
  private moduleBytes?: Buffer;

  /** Loaded modules, in load order. */
  moduleList(): KModule[] {
    return (this.moduleListA ??= JSON.parse(this.modulePart(0)) as KModule[]);
  }

  /** Module dyn_ftrace sites (absolute ips, ascending). */
  moduleSites(): number[] {
    return (this.sites ??= JSON.parse(this.modulePart(1)) as number[]);
  }

  /** [symbol id, file, line] of module functions with a source location. */
  moduleLocs(): ModuleData['locs'] {
    return (this.locs ??= JSON.parse(this.modulePart(2)) as ModuleData['locs']);
  }

  /** Directories of /sys/module. */
  sysModules(): string[] {
    return JSON.parse(this.modulePart(3) ?? '[]') as string[];
  }

  modules(): ModuleData {
    return { modules: this.moduleList(), sites: this.moduleSites(), locs: this.moduleLocs(), sysModules: this.sysModules() };
  }
}

const FNV_OFFSET = 0x811c9dc5, FNV_PRIME = 0x01000193;
/** FNV-1a over a name's character codes (its Latin-1 bytes). */
export function nameHashOf(name: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}
/** nameHashOf of the name whose Latin-1 bytes are b[from..to). */
function bytesHashOf(b: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], FNV_PRIME);
  return h >>> 0;
}

/** Bucket count of the name index for n symbols: a power of two, at least n/2. */
export function nameBucketCount(n: number): number {
  let b = 1024;
  while (b * 2 < n) b *= 2;
  return b;
}

// ------------------------------------------------------------------------- the text form

/** signed 64-bit value of an unsigned hex string, as a number */
function parseAddrHex(v: string): number {
  return Number(BigInt.asIntN(64, BigInt(/^0x/i.test(v) ? v : '0x' + v)));
}

/** Parse kallsyms.gz (delta-encoded System.map) and modules.gz (null: no module data). */
export function parseSymtabText(text: string, moduleText: string | null): SymtabSource {
  const names: string[] = [];
  const types: string[] = [];
  const addrs: number[] = [];
  const mods: number[] = [];
  let curN = 0;
  let pos = 0;
  const len = text.length;
  while (pos < len) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? len : nl;
    const sp1 = text.indexOf(' ', pos);
    const d = text.slice(pos, sp1);
    if (d.length > 12) curN = Number(BigInt.asIntN(64, BigInt.asUintN(64, BigInt(curN)) + BigInt('0x' + d)));
    else curN += parseInt(d, 16);
    names.push(text.slice(sp1 + 3, end));
    types.push(text[sp1 + 1]);
    addrs.push(curN);
    mods.push(-1);
    pos = end + 1;
  }
  const md: ModuleData = { modules: [], sites: [], locs: [], sysModules: [] };
  if (moduleText !== null) {
    let cur: KModule | null = null;
    for (const line of moduleText.split('\n')) {
      if (!line) continue;
      if (line.startsWith('S ')) {
        md.sysModules = line.slice(2).split(' ');
        continue;
      }
      if (line.startsWith('M ')) {
        const [, name, base, size, tsize, refcnt, usedBy, state] = line.split(' ');
        if (cur) cur.endId = names.length;
        cur = {
          name, base: parseAddrHex(base), size: parseInt(size, 16), textSize: parseInt(tsize, 16),
          refcnt: Number(refcnt ?? 0), usedBy: usedBy && usedBy !== '-' ? usedBy.split(',') : [], loaded: state !== 'Unloaded',
          firstId: names.length, endId: names.length,
        };
        md.modules.push(cur);
        continue;
      }
      if (!cur) continue;
      if (line[0] === '@') { md.sites.push(cur.base + parseInt(line.slice(1), 16)); continue; }
      const tab = line.indexOf('\t');
      const head = tab < 0 ? line : line.slice(0, tab);
      const sp1 = head.indexOf(' ');
      const id = names.length;
      names.push(head.slice(sp1 + 3));
      types.push(head[sp1 + 1]);
      addrs.push(cur.base + parseInt(head.slice(0, sp1), 16));
      mods.push(md.modules.length - 1);
      if (tab >= 0) {
        const [, file, ln] = line.split('\t');
        md.locs.push([id, file, Number(ln)]);
      }
    }
    if (cur) cur.endId = names.length;
  }
  return { names, types, addrs, mods, moduleData: md };
}

/** The binary form of a parsed table; `stamp` identifies the data it was made from. */
export function encodeSymtab(src: SymtabSource, stamp: string): Buffer {
  const n = src.names.length;
  const names = src.names;
  const nb = nameBucketCount(n);
  const bucket = Uint32Array.from(names, (s) => nameHashOf(s) & (nb - 1));
  const byName = Int32Array.from({ length: n }, (_, i) => i);
  byName.sort((a, b) => bucket[a] - bucket[b] || (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : a - b));
  const nameBuckets = new Uint32Array(nb + 1);
  for (let i = 0; i < n; i++) nameBuckets[bucket[i] + 1]++;
  for (let b = 0; b < nb; b++) nameBuckets[b + 1] += nameBuckets[b];
  const nameBufs = names.map((s) => Buffer.from(s, 'latin1'));
  const nameOff = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) nameOff[i + 1] = nameOff[i] + nameBufs[i].length;
  const parts: [keyof Header['sections'], Buffer][] = [
    ['addrs', Buffer.from(Float64Array.from(src.addrs).buffer)],
    ['types', Buffer.from(src.types.join(''), 'latin1')],
    ['mods', Buffer.from(Int16Array.from(src.mods).buffer)],
    ['nameOff', Buffer.from(nameOff.buffer)],
    ['names', Buffer.concat(nameBufs)],
    ['byName', Buffer.from(byName.buffer)],
    ['nameBuckets', Buffer.from(nameBuckets.buffer)],
    ['modules', Buffer.from([src.moduleData.modules, src.moduleData.sites, src.moduleData.locs, src.moduleData.sysModules].map((x) => JSON.stringify(x)).join('\n'), 'latin1')],
  ];
  // header length is fixed before offsets are known: pad it to a 64-byte multiple with spaces
  const sections = {} as Header['sections'];
  const layout = (base: number): number => {
    let off = base;
    for (const [k, b] of parts) {
      off = (off + 7) & ~7;
      sections[k] = [off, b.length];
      off += b.length;
    }
    return off;
  };
  let headLen = 0;
  let head = '';
  for (;;) {
    layout(headLen);
    head = JSON.stringify({ format: FORMAT, stamp, n, sections } satisfies Header);
    const need = (head.length + 1 + 63) & ~63;
    if (need <= headLen) break;
    headLen = need;
  }
  const total = layout(headLen);
  const out = Buffer.alloc(total, 0);
  out.write(head.padEnd(headLen - 1, ' ') + '\n', 0, 'latin1');
  for (const [k, b] of parts) b.copy(out, sections[k][0]);
  return out;
}

function parseHeader(text: string, stamp: string): Header | null {
  let h: Header;
  try {
    h = JSON.parse(text) as Header;
  } catch {
    return null;
  }
  return h.format === FORMAT && h.stamp === stamp ? h : null;
}

/** The table in `buf` if it is one made from data with this stamp, else null. */
export function decodeSymtab(buf: Buffer, stamp: string): Symtab | null {
  const nl = buf.indexOf(10);
  if (nl < 0) return null;
  const h = parseHeader(buf.toString('latin1', 0, nl), stamp);
  return h && new Symtab(bufferSource(buf), h);
}

/** The table in file `file` if it is one made from data with this stamp (read as used), else null. */
export function openSymtabFile(file: string, stamp: string): Symtab | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  // the header line is padded to a multiple of 64 bytes
  const head = Buffer.alloc(4096);
  const got = fs.readSync(fd, head, 0, head.length, 0);
  const nl = head.subarray(0, got).indexOf(10);
  const h = nl < 0 ? null : parseHeader(head.toString('latin1', 0, nl), stamp);
  if (!h) {
    fs.closeSync(fd);
    return null;
  }
  return new Symtab(fileSource(fd), h);
}

// ------------------------------------------------------------------------- files

/** Identity of the data files the table is made from (sizes and times). */
export function sourceStamp(): string {
  return dataFilesStamp(SOURCES, ';');
}

/** The table `npm run build` writes: dist/kernel-tables/ksymtab.bin. */
export function builtSymtabFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'ksymtab.bin');
}

function cachedSymtabFile(): string | null {
  return cacheFile('ksymtab.bin');
}

/** Parse the text data into a table (the slow path). */
export function parseSymtabData(): SymtabSource {
  let moduleText: string | null;
  try {
    moduleText = readDataText('modules.gz');
  } catch {
    moduleText = null; // no module data
  }
  return parseSymtabText(readDataText('kallsyms.gz'), moduleText);
}

/** The table: the build's (or a cached) one when current, else parsed from the text data (`parsed`) and cached. */
export function openSymtab(): { table: Symtab; parsed: boolean } {
  const stamp = sourceStamp();
  return openDerivedTable([builtSymtabFile(), cachedSymtabFile()], (f) => openSymtabFile(f, stamp), (buf) => decodeSymtab(buf, stamp),
    () => encodeSymtab(parseSymtabData(), stamp));
}

/** Build step: write the table for the current data files to `file`. */
export function writeSymtab(file: string): number {
  return writeDerivedTable(file, encodeSymtab(parseSymtabData(), sourceStamp()));
}
