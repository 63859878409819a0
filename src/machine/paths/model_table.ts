/**
 * The entry model (data/paths/entries.json.gz) split by key for reading on demand.  The model is
 * ~5 MB of JSON; gunzipping and parsing it whole cost a start ~40-70 ms, while a shell that runs
 * `true` enters the kernel through half a dozen small keys (schedule, ttwu, fault, wait4 ...).
 * `npm run build` writes dist/kernel-tables/paths-model.bin (scripts/build-kernel-tables.ts):
 *
 *   line 1     the header's length in bytes (decimal)
 *   header     JSON {format, source, model: {format, generator, recordings, functions},
 *              keys: {KEY: [offset, length]}, symtab, ids}
 *   body       each key's JSON ({rule?, v}) at its offset from the body's start
 *
 * `source` is the model file's size and time: a stale or missing table is unused and the model is
 * read whole as before (paths/model.ts).  `ids` are the functions' kallsyms ids (functionId) for the
 * symbol table whose sourceStamp() is `symtab`; with another symbol table they are unused.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sourceStamp } from '../../kernel/ksymtab';

const FORMAT = 'tapsim-paths-model-1';

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

/** The model as the loader sees it: its header, and each key's data read when asked for. */
export interface ModelSource {
  format: number;
  recordings: { name: string; command: string }[];
  functions: string[];
  keyNames(): string[];
  keyData(name: string): ModelKeyData | undefined;
  /** functionId() of each of `functions`, when the build worked them out for this symbol table */
  fnIds?: Int32Array;
}

interface Header {
  format: string;
  source: string;
  model: Omit<ModelFile, 'keys'>;
  keys: Record<string, [number, number]>;
  symtab: string;
  ids: number[];
}

/**
 * The table `npm run build` writes: dist/kernel-tables/ (found upward from this module, which sits
 * in dist/src/machine/paths or, bundled, in dist/src/cli).
 */
export function builtModelTableFile(): string {
  let d = __dirname;
  for (let i = 0; i < 4; i++) {
    if (fs.existsSync(path.join(d, 'kernel-tables'))) return path.join(d, 'kernel-tables', 'paths-model.bin');
    d = path.dirname(d);
  }
  return path.join(__dirname, '..', '..', '..', 'kernel-tables', 'paths-model.bin');
}

function stampOf(modelFile: string): string {
  const st = fs.statSync(modelFile);
  return `${st.size}:${st.mtimeMs}`;
}

/** A model read whole (from the model file itself). */
export function wholeModel(m: ModelFile): ModelSource {
  return {
    format: m.format, recordings: m.recordings, functions: m.functions,
    keyNames: () => Object.keys(m.keys),
    keyData: (name) => (Object.prototype.hasOwnProperty.call(m.keys, name) ? m.keys[name] : undefined),
  };
}

/** The table in `table` if it is current for `modelFile`, else null. */
export function readModelTable(table: string, modelFile: string): ModelSource | null {
  let fd: number;
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
    if (h.format !== FORMAT || h.source !== stampOf(modelFile)) return null;
    const base = nl + 1 + hlen;
    const cache = new Map<string, ModelKeyData>();
    return {
      ...h.model,
      fnIds: h.symtab === sourceStamp() && h.ids.length === h.model.functions.length ? Int32Array.from(h.ids) : undefined,
      keyNames: () => Object.keys(h.keys),
      keyData: (name) => {
        if (!Object.prototype.hasOwnProperty.call(h.keys, name)) return undefined;
        let d = cache.get(name);
        if (d) return d;
        const [off, len] = h.keys[name];
        const b = Buffer.alloc(len);
        const f = fs.openSync(table, 'r');
        try {
          if (fs.readSync(f, b, 0, len, base + off) !== len) throw new Error(`entry model table ${table}: short read`);
        } finally {
          fs.closeSync(f);
        }
        d = JSON.parse(b.toString('latin1')) as ModelKeyData;
        cache.set(name, d);
        return d;
      },
    };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Build step: write the table of `modelFile` (whose content is `m`, whose functions' ids are
 * `functionId`'s answers) to `table`; returns its size.
 */
export function writeModelTable(table: string, modelFile: string, m: ModelFile, functionId: (name: string) => number): number {
  const chunks: Buffer[] = [];
  const keys: Record<string, [number, number]> = {};
  let off = 0;
  for (const [k, d] of Object.entries(m.keys)) {
    const b = Buffer.from(JSON.stringify(d), 'latin1');
    keys[k] = [off, b.length];
    chunks.push(b);
    off += b.length;
  }
  const model: Header['model'] = { format: m.format, recordings: m.recordings, functions: m.functions };
  const header = Buffer.from(JSON.stringify({ format: FORMAT, source: stampOf(modelFile), model, keys,
    symtab: sourceStamp(), ids: m.functions.map(functionId) } satisfies Header), 'latin1');
  const all = Buffer.concat([Buffer.from(`${header.length}\n`, 'latin1'), header, ...chunks]);
  fs.mkdirSync(path.dirname(table), { recursive: true });
  fs.writeFileSync(table, all);
  return all.length;
}
