/**
 * The kernel symbol table's compact form: kallsyms.gz + modules.gz turned into one binary file of
 * typed arrays that a start reads in one piece, with nothing parsed and no per-symbol object
 * made.  `npm run build` writes it to dist/kernel-tables/ (scripts/build-kernel-tables.ts); a run
 * without it (or with data newer than it) parses the text data and writes the same table to the
 * cache directory, so only the first such run pays for the parse.
 *
 * Layout: a JSON header line (format, source stamp, section offsets), then 8-byte aligned
 * sections: addresses (Float64, signed 64-bit values as numbers), nm type letters (Uint8),
 * module index (Int16, -1 vmlinux), name offsets (Uint32, n+1) into a Latin-1 name blob, symbol
 * ids grouped by the hash of their name (FNV-1a of the Latin-1 bytes, masked to a power-of-two
 * bucket count about n/2; sorted by (bucket, name, id) so a name's ids are neighbours), the
 * start of each bucket in that list (Uint32, buckets+1), and module data as JSON (parsed on
 * first use).  A name lookup hashes the name and compares it with the one or two symbols of its
 * bucket instead of the ~17 of a binary search (a start looks up a few hundred names, in code
 * not yet optimized); the index adds 256 KB to the file, which a start reads whole.
 * Names are decoded one by one as asked for; only globs decode them all (allNames()).
 */
import * as fs from 'fs';
import * as path from 'path';
import { kernelDataDir, readDataText, openDerivedTable, writeDerivedTable } from './data';
import { defaultCacheDir } from '../cachedir';

/** A loaded module (modules.gz): core layout in the module area, text first. */
export interface KModule {
  name: string;
  base: number;
  size: number;
  textSize: number;
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

const FORMAT = 'tapsim-ksymtab-3';
const SOURCES = ['kallsyms.gz', 'modules.gz'];

interface Header {
  format: string;
  stamp: string;
  n: number;
  /** [byte offset, byte length] of each section, from the start of the file */
  sections: Record<'addrs' | 'types' | 'mods' | 'nameOff' | 'names' | 'byName' | 'nameBuckets' | 'modules', [number, number]>;
}

export class Symtab {
  readonly n: number;
  readonly addrs: Float64Array;
  readonly types: Uint8Array;
  readonly mods: Int16Array;
  /** ids with a non-negative address come first in the file (unsigned order): this many */
  private readonly nonNeg: number;
  private sortedA?: Float64Array;
  private readonly nameOff: Uint32Array;
  private readonly blob: Buffer;
  private readonly byName: Int32Array;
  private readonly nameBuckets: Uint32Array;
  private readonly moduleText: string;
  private moduleData?: ModuleData;
  private names?: string[];

  constructor(buf: Buffer, h: Header) {
    const arr = <T>(ctor: { new (b: ArrayBufferLike, off: number, len: number): T; BYTES_PER_ELEMENT: number }, s: [number, number]): T =>
      new ctor(buf.buffer, buf.byteOffset + s[0], s[1] / ctor.BYTES_PER_ELEMENT);
    this.n = h.n;
    this.addrs = arr(Float64Array, h.sections.addrs);
    this.types = arr(Uint8Array, h.sections.types);
    this.mods = arr(Int16Array, h.sections.mods);
    this.nameOff = arr(Uint32Array, h.sections.nameOff);
    this.byName = arr(Int32Array, h.sections.byName);
    this.nameBuckets = arr(Uint32Array, h.sections.nameBuckets);
    this.blob = buf.subarray(h.sections.names[0], h.sections.names[0] + h.sections.names[1]);
    this.moduleText = buf.toString('latin1', h.sections.modules[0], h.sections.modules[0] + h.sections.modules[1]);
    // file order is unsigned-ascending: the non-negative (per-cpu, absolute) addresses first
    const addrs = this.addrs;
    let lo = 0, hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (addrs[mid] >= 0) lo = mid + 1;
      else hi = mid;
    }
    this.nonNeg = lo;
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
    return this.blob.toString('latin1', this.nameOff[id], this.nameOff[id + 1]);
  }

  /** nm type letter of a symbol. */
  type(id: number): string {
    return String.fromCharCode(this.types[id]);
  }

  /** Every name, in id order (decoded once, for globs and listings). */
  allNames(): readonly string[] {
    if (!this.names) {
      const names = new Array<string>(this.n);
      for (let i = 0; i < this.n; i++) names[i] = this.blob.toString('latin1', this.nameOff[i], this.nameOff[i + 1]);
      this.names = names;
    }
    return this.names;
  }

  /** Compare `name` with symbol `id`'s name, in Latin-1 code order (faster than Buffer#compare). */
  private cmp(name: string, id: number): number {
    const b = this.blob;
    const s = this.nameOff[id], e = this.nameOff[id + 1];
    const len = e - s;
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

  modules(): ModuleData {
    if (!this.moduleData) this.moduleData = JSON.parse(this.moduleText) as ModuleData;
    return this.moduleData;
  }
}

/** FNV-1a over a name's character codes (its Latin-1 bytes). */
export function nameHashOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
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
  const md: ModuleData = { modules: [], sites: [], locs: [] };
  if (moduleText !== null) {
    let cur: KModule | null = null;
    for (const line of moduleText.split('\n')) {
      if (!line) continue;
      if (line.startsWith('M ')) {
        const [, name, base, size, tsize] = line.split(' ');
        if (cur) cur.endId = names.length;
        cur = { name, base: parseAddrHex(base), size: parseInt(size, 16), textSize: parseInt(tsize, 16), firstId: names.length, endId: names.length };
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
    ['modules', Buffer.from(JSON.stringify(src.moduleData), 'latin1')],
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

/** The table in `buf` if it is one made from data with this stamp, else null. */
export function decodeSymtab(buf: Buffer, stamp: string): Symtab | null {
  const nl = buf.indexOf(10);
  if (nl < 0) return null;
  let h: Header;
  try {
    h = JSON.parse(buf.toString('latin1', 0, nl)) as Header;
  } catch {
    return null;
  }
  if (h.format !== FORMAT || h.stamp !== stamp) return null;
  if (buf.byteOffset % 8 !== 0) buf = Buffer.from(buf); // typed views need aligned offsets
  return new Symtab(buf, h);
}

// ------------------------------------------------------------------------- files

/** Identity of the data files the table is made from (sizes and times). */
export function sourceStamp(): string {
  return SOURCES.map((f) => {
    try {
      const st = fs.statSync(path.join(kernelDataDir(), f));
      return `${f}=${st.size}:${st.mtimeMs}`;
    } catch {
      return `${f}=-`;
    }
  }).join(';');
}

/** The table `npm run build` writes: dist/kernel-tables/ksymtab.bin. */
export function builtSymtabFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'ksymtab.bin');
}

function cachedSymtabFile(): string {
  return path.join(defaultCacheDir(), 'ksymtab.bin');
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
  return openDerivedTable([builtSymtabFile(), cachedSymtabFile()], (buf) => decodeSymtab(buf, stamp), () => encodeSymtab(parseSymtabData(), stamp));
}

/** Build step: write the table for the current data files to `file`. */
export function writeSymtab(file: string): number {
  return writeDerivedTable(file, encodeSymtab(parseSymtabData(), sourceStamp()));
}
