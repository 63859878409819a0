/**
 * The entry model (data/paths/entries.json.gz) split by key for reading on demand.  The model is
 * ~13 MB of JSON; gunzipping and parsing it whole cost a start ~40-70 ms, while a shell that runs
 * `true` enters the kernel through half a dozen keys (schedule, ttwu, fault, execve, exit_group ...),
 * and of each it runs one or two of the recorded trees (`fault` alone holds 2.8 MB of them).
 * `npm run build` writes dist/kernel-tables/paths-model.bin (scripts/build-kernel-tables.ts):
 *
 *   line 1     the header's length in bytes (decimal)
 *   header     JSON {format, source, summary, model: {format, generator, recordings},
 *              functions: [offset, length, count], keys: {KEY: [offset, length]}, symtab,
 *              ids: [offset, length]}
 *   body       the model's function names (JSON, read when first asked for: a start needs their
 *              kallsyms ids, not their names) and their kallsyms ids (int32: `ids` below);
 *              the trees (shapes) of every variant, read one at a time when a variant is first
 *              compiled; the variants' programs compiled by the build (below); then each key's variants
 *              without their trees: JSON {rule?, g: [[summary, features]]} (the distinct summaries and
 *              feature vectors of its variants, in order of first use) and the variants as float64
 *              rows [group (an index into g), count, recordings, tree offset, tree length, syscall
 *              function, program offset, program length, relocations length] (offsets from the body's
 *              start): a start reads a key's hundreds of variants without parsing or making one
 *              object per variant
 *
 * Programs: what a start would otherwise compile from the trees' text (paths/compile.ts), the build
 * compiles once: each variant's interpreter program (for a `sys:` key, the callees of its syscall
 * function, whose kallsyms id is the variant's `syscall function`; -1: none), as little-endian int32
 * with hook and tracepoint operands indexing the header's `progs.hooks` and `progs.tps` (the running
 * process numbers its names in its own order: paths/model.ts relocates), each followed by the positions
 * of those operands (int32: relocating touches them, not every op).  They hold kallsyms ids, so
 * they are used only with the symbol table `symtab`, and only while `progs.stamp` is the compiler's
 * (what the programs depend on besides the trees: the hooks attached to functions, tracepoint sites,
 * count rules).
 *
 * `source` is the model file's size and time and `summary` the stamp of the function that summarised
 * each tree (paths/model.ts variantSummary: what choosing a variant needs to know of its tree without
 * reading it): a stale or missing table is unused and the model is read whole as before.  `ids` are
 * the functions' kallsyms ids (functionId) for the symbol table whose sourceStamp() is `symtab`; with
 * another symbol table they are unused.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sourceStamp } from '../../kernel/ksymtab';

/** the format, with the host's byte order (the programs are int32 as the host writes them) */
const FORMAT = `tapsim-paths-model-6-${new Uint8Array(Uint32Array.of(1).buffer)[0] === 1 ? 'LE' : 'BE'}`;

/** A key as the model file has it: its outcome rule and variants [shape, count, features, recordings]. */
export interface ModelKeyData {
  rule?: string;
  v: [string, number, string, number][];
}

export interface ModelFile {
  format: number;
  recordings: { name: string; command: string }[];
  functions: string[];
  keys: Record<string, ModelKeyData>;
}

/** A variant as the loader gives it: its tree (shape) read when asked for. */
export interface VariantData {
  count: number;
  feat: string;
  recs: number;
  /** `summarise(key, shape)` (paths/model.ts) */
  summary: string;
  shape(): string;
  /**
   * the build's program (table-local hook and tracepoint operands, at the positions `at`) and syscall
   * function, when it made them
   */
  program?(): BuiltProgram;
  inner?: number;
}

/**
 * A key's variants as the loader gives them: what choosing reads of every variant (count, features,
 * summary) by index, and a variant's data made only when it is asked for (`at`, once per index: a
 * start draws one or two of a key's hundreds of variants).
 */
export interface KeyData {
  rule?: string;
  /** the number of variants */
  n: number;
  count(i: number): number;
  feat(i: number): string;
  summary(i: number): string;
  at(i: number): VariantData;
  /**
   * The variants' distinct [summary, features] (when the loader has them: the build's table), and
   * the one of variant i: choosing groups the variants by them without comparing their text.
   */
  groups?: readonly (readonly [string, string])[];
  groupOf?(i: number): number;
}

/** The KeyData of variants made whole. */
function listKeyData(v: readonly VariantData[], rule: string | undefined): KeyData {
  const d: KeyData = { n: v.length, count: (i) => v[i].count, feat: (i) => v[i].feat, summary: (i) => v[i].summary, at: (i) => v[i] };
  if (rule !== undefined) d.rule = rule;
  return d;
}

/** What a tree is summarised by for choosing (paths/model.ts): the function and its stamp. */
export interface Summariser {
  stamp: string;
  summarise(key: string, shape: string, functions: readonly string[]): string;
}

/** The model as the loader sees it: its header, and each key's data read when asked for. */
export interface ModelSource {
  format: number;
  recordings: { name: string; command: string }[];
  functions: string[];
  keyNames(): string[];
  keyData(name: string): KeyData | undefined;
  /** functionId() of each of `functions`, when the build worked them out for this symbol table */
  fnIds?: Int32Array;
  /** the names the programs' hook and tracepoint operands index, and the compiler stamp they were made with */
  progs?: ProgramNames;
}

export interface ProgramNames { stamp: string; hooks: string[]; tps: string[] }

/** A program of the build: its code and the positions of its hook and tracepoint operands in it. */
export interface BuiltProgram { code: Int32Array; at: Int32Array }

/** How the build compiles the programs (paths/model.ts buildPrograms): one variant's, and the names their operands index. */
export interface ProgramCompiler {
  stamp: string;
  /**
   * the program of a variant of `key` (functions' kallsyms ids `ids`), the positions of its hook and
   * tracepoint operands, and its syscall function (-1: none)
   */
  compile(key: string, shape: string, ids: Int32Array): { inner: number; code: Int32Array; at: Int32Array };
  names(): { hooks: string[]; tps: string[] };
}

/** A variant's row in the table (float64): [group, count, recordings, tree offset, tree length, syscall function, program offset, program length, relocations length] */
const ROW = 9;

interface Header {
  format: string;
  source: string;
  summary: string;
  model: Omit<ModelFile, 'keys' | 'functions'>;
  /** [offset, length] of the function names' JSON, their number */
  functions: [number, number, number];
  /** key -> [offset, length] of its JSON, [offset, number] of its rows */
  keys: Record<string, [number, number, number, number]>;
  symtab: string;
  /** [offset, length] of the functions' kallsyms ids (int32) */
  ids: [number, number];
  progs?: ProgramNames;
}

/**
 * The table `npm run build` writes: dist/kernel-tables/ (found upward from this module, which sits
 * in dist/src/machine/paths or, bundled, in dist/src/cli).
 */
export function builtModelTableFile(): string {
  return builtTableFile('paths-model.bin');
}

/** dist/kernel-tables/NAME, found upward from this module (dist/src/machine/paths or, bundled, dist/src/cli). */
export function builtTableFile(name: string): string {
  let d = __dirname;
  for (let i = 0; i < 4; i++) {
    if (fs.existsSync(path.join(d, 'kernel-tables'))) return path.join(d, 'kernel-tables', name);
    d = path.dirname(d);
  }
  return path.join(__dirname, '..', '..', '..', 'kernel-tables', name);
}

/** Write a table: a new file renamed over the old, so a process that has the old one open keeps reading it. */
export function writeTable(file: string, data: Buffer): number {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
  return data.length;
}

function stampOf(modelFile: string): string {
  const st = fs.statSync(modelFile);
  return `${st.size}:${st.mtimeMs}`;
}

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** A model read whole (from the model file itself), its trees summarised as they are asked for. */
export function wholeModel(m: ModelFile, s: Summariser): ModelSource {
  return {
    format: m.format, recordings: m.recordings, functions: m.functions,
    keyNames: () => Object.keys(m.keys),
    keyData: (name) => {
      if (!has(m.keys, name)) return undefined;
      const d = m.keys[name];
      const v = d.v.map(([shape, count, feat, recs]): VariantData => ({ count, feat, recs, summary: s.summarise(name, shape, m.functions), shape: () => shape }));
      return listKeyData(v, d.rule);
    },
  };
}

/** `len` bytes of open file `fd` at `pos`, as latin1 text. */
function readText(fd: number, file: string, pos: number, len: number): string {
  const b = Buffer.allocUnsafe(len);
  if (fs.readSync(fd, b, 0, len, pos) !== len) throw new Error(`entry model table ${file}: short read`);
  return b.toString('latin1', 0, len);
}

/** `len` bytes of open file `fd` at `pos`, as int32 (the host's byte order: the table's format names it). */
function readInts(fd: number, file: string, pos: number, len: number): Int32Array {
  const a = new Int32Array(len >> 2);
  if (fs.readSync(fd, new Uint8Array(a.buffer), 0, len, pos) !== len) throw new Error(`entry model table ${file}: short read`);
  return a;
}

/** `n` float64 of open file `fd` at `pos` (the host's byte order). */
function readFloats(fd: number, file: string, pos: number, n: number): Float64Array {
  const a = new Float64Array(n);
  if (fs.readSync(fd, new Uint8Array(a.buffer), 0, n * 8, pos) !== n * 8) throw new Error(`entry model table ${file}: short read`);
  return a;
}

/** The open table a key's variants read their trees and programs from. */
interface OpenTable { fd: number; file: string; base: number; progs: boolean }

/** A variant of the table: its row, its tree and program read when asked for (one object, no closures per variant). */
class TableVariantData implements VariantData {
  readonly count: number;
  readonly recs: number;
  readonly inner?: number;
  readonly program?: () => BuiltProgram;
  /** row `at` of `rows` (at: its first field) */
  constructor(private readonly t: OpenTable, readonly summary: string, readonly feat: string, private readonly rows: Float64Array, private readonly at: number) {
    this.count = rows[at + 1];
    this.recs = rows[at + 2];
    if (t.progs && rows[at + 7] > 0) { this.inner = rows[at + 5]; this.program = this.readProgram; }
  }
  shape(): string {
    const t = this.t;
    return readText(t.fd, t.file, t.base + this.rows[this.at + 3], this.rows[this.at + 4]);
  }
  private readProgram(): BuiltProgram {
    const t = this.t;
    const r = this.rows, a = this.at;
    const pl = r[a + 7];
    const all = readInts(t.fd, t.file, t.base + r[a + 6], pl + r[a + 8]);
    return { code: all.subarray(0, pl >> 2), at: all.subarray(pl >> 2) };
  }
}

/**
 * The table in `table` if it is current for `modelFile` and summariser `s`, else null.  The file stays
 * open for the trees read later: a build that writes a new table meanwhile replaces the file
 * (writeModelTable renames), so a running process keeps reading the table it checked.
 */
export function readModelTable(table: string, modelFile: string, s: Summariser): ModelSource | null {
  let fd: number;
  let keep = false;
  try {
    fd = fs.openSync(table, 'r');
  } catch {
    return null;
  }
  try {
    const first = Buffer.alloc(16);
    const got = fs.readSync(fd, first, 0, 16, 0);
    const nl = first.subarray(0, got).indexOf(10);
    if (nl <= 0) return null;
    const hlen = Number(first.toString('latin1', 0, nl));
    const hbuf = Buffer.alloc(hlen);
    if (!(hlen > 0) || fs.readSync(fd, hbuf, 0, hlen, nl + 1) !== hlen) return null;
    const h = JSON.parse(hbuf.toString('latin1')) as Header;
    if (h.format !== FORMAT || h.source !== stampOf(modelFile) || h.summary !== s.stamp) return null;
    const base = nl + 1 + hlen;
    keep = true;
    const [fnAt, fnLen, fnCount] = h.functions;
    const sameSymtab = h.symtab === sourceStamp() && h.ids[1] === fnCount * 4;
    const progs = sameSymtab ? h.progs : undefined;
    const open: OpenTable = { fd, file: table, base, progs: progs !== undefined };
    let functions: string[] | undefined;
    return {
      ...h.model,
      get functions(): string[] {
        return (functions ??= JSON.parse(readText(fd, table, base + fnAt, fnLen)) as string[]);
      },
      fnIds: sameSymtab ? readInts(fd, table, base + h.ids[0], h.ids[1]) : undefined,
      progs,
      keyNames: () => Object.keys(h.keys),
      keyData: (name) => {
        if (!has(h.keys, name)) return undefined;
        const [off, len, rowsAt, n] = h.keys[name];
        const d = JSON.parse(readText(fd, table, base + off, len)) as { rule?: string; g: [string, string][] };
        const rows = readFloats(fd, table, base + rowsAt, n * ROW);
        const g = d.g;
        const k: KeyData = {
          n, count: (i) => rows[i * ROW + 1], feat: (i) => g[rows[i * ROW]][1], summary: (i) => g[rows[i * ROW]][0],
          at: (i) => { const [sum, feat] = g[rows[i * ROW]]; return new TableVariantData(open, sum, feat, rows, i * ROW); },
          groups: g, groupOf: (i) => rows[i * ROW],
        };
        if (d.rule !== undefined) k.rule = d.rule;
        return k;
      },
    };
  } catch {
    return null;
  } finally {
    if (!keep) fs.closeSync(fd);
  }
}

/**
 * Build step: write the table of `modelFile` (whose content is `m`, whose functions' ids are
 * `functionId`'s answers, whose trees `s` summarises, whose programs `progs` compiles) to `table`;
 * returns its size.
 */
export function writeModelTable(table: string, modelFile: string, m: ModelFile, functionId: (name: string) => number, s: Summariser, progs?: ProgramCompiler): number {
  // the body: every tree, every program, then each key's metadata (offsets are known when it is written)
  const chunks: Uint8Array[] = [];
  let off = 0;
  const putBytes = (b: Uint8Array): [number, number] => {
    chunks.push(b);
    off += b.length;
    return [off - b.length, b.length];
  };
  const put = (text: string): [number, number] => putBytes(Buffer.from(text, 'latin1'));
  const idArray = Int32Array.from(m.functions, functionId);
  const functions = put(JSON.stringify(m.functions));
  const ids = putBytes(new Uint8Array(idArray.buffer));
  const treeAt = Object.values(m.keys).map((d) => d.v.map(([shape]) => put(shape)));
  const progAt = Object.entries(m.keys).map(([k, d]) => d.v.map(([shape]): [number, number, number, number] => {
    if (!progs) return [-1, 0, 0, 0];
    const p = progs.compile(k, shape, idArray);
    const code = putBytes(new Uint8Array(p.code.buffer, p.code.byteOffset, p.code.byteLength));
    const at = putBytes(new Uint8Array(p.at.buffer, p.at.byteOffset, p.at.byteLength));
    return [p.inner, ...code, at[1]];
  }));
  const keys: Record<string, [number, number, number, number]> = {};
  Object.entries(m.keys).forEach(([k, d], i) => {
    const g: [string, string][] = [];
    const groupOf = new Map<string, number>();
    const rows = new Float64Array(d.v.length * ROW);
    d.v.forEach(([shape, count, feat, recs], j) => {
      const summary = s.summarise(k, shape, m.functions);
      const text = `${summary}\n${feat}`;
      let gi = groupOf.get(text);
      if (gi === undefined) { gi = g.length; g.push([summary, feat]); groupOf.set(text, gi); }
      rows.set([gi, count, recs, ...treeAt[i][j], ...progAt[i][j]], j * ROW);
    });
    const json = put(JSON.stringify({ ...(d.rule === undefined ? {} : { rule: d.rule }), g }));
    const at = putBytes(new Uint8Array(rows.buffer));
    keys[k] = [...json, at[0], d.v.length];
  });
  const model: Header['model'] = { format: m.format, recordings: m.recordings };
  const header = Buffer.from(JSON.stringify({ format: FORMAT, source: stampOf(modelFile), summary: s.stamp, model,
    functions: [...functions, m.functions.length], keys, symtab: sourceStamp(), ids, ...(progs ? { progs: { stamp: progs.stamp, ...progs.names() } } : {}) } satisfies Header), 'latin1');
  return writeTable(table, Buffer.concat([Buffer.from(`${header.length}\n`, 'latin1'), header, ...chunks]));
}
