/**
 * The build's table of what stdlib probe aliases derive on the simulated kernel.
 *
 * Expanding `syscall.*` walks some 400 `syscall.NAME` aliases, each through its flavours
 * (`dw_syscall.NAME!`, `nd_syscall.NAME?` = `nd1_syscall.NAME!, nd2_syscall.NAME!,
 * tp_syscall.NAME`), decoding every alias's name and points from the tapset cache and asking
 * the kernel.function / kprobe / tracepoint providers about each point.  What an alias derives
 * is a fact of the library and the kernel data, both fixed at build time, so `npm run build`
 * (scripts/alias-table.ts, alias_expansions_make.ts) expands every stdlib alias the slow way,
 * for a use of its own name that is optional (`name?`) and one that is not, and records for
 * each outcome that printed nothing: the resolved points, each derived probe's chain texts and
 * mark, which alias bodies wrap the use's body (innermost first) and the alias roots whose
 * files the expansion loaded, in order.  Pass 2 replays such a record (aliases.ts, expandAlias)
 * without decoding the alias or any alias below it or asking a provider: the derived probes
 * are those the slow path makes, their bodies built from the same alias bodies in the same way
 * (aliasLayer), the same files loaded in the same order.
 *
 * A record is used only for a use with no suffix and no condition, outside any optional use
 * but its own, and only while the table describes the run (Session.knownExpansion): not guru,
 * the default privilege, every stdlib file with the stamp it had at build time and parsed as
 * the build parsed it (options, arguments), the kernel data unchanged and no alias of the
 * script or a -I directory under the roots the expansions tried (AliasTable.holds).  An
 * expansion that printed anything, failed, met a condition, a wildcard or `process` root, or
 * a point resolving to several (whose body the slow path would read) is not recorded.  The
 * table comes with the build (dist/, as trusted as the code, never from the user's cache) and
 * is still checked before use.
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as A from '../ast';
import { aliasLayer, copyBody, Expansion } from './aliases';

export const EXPANSIONS_VERSION = 'tapsim-alias-expansions-1';

/** The contexts recorded: a use that is optional (`name?`), one that is not. */
export type UseContext = 'o' | 'n';

/**
 * One recorded expansion (indices into the shard's strings): `c` the alias's own chain text;
 * `r` the alias roots it looked up, in order; `l` the alias layers [file relative to stdlib,
 * alias index, parent layer or -1 for the use's body], parents first; `x` the derived probes
 * [layer, pn, mark, chain texts innermost first, resolved point].
 */
export interface RecordedExpansion {
  c: number;
  r: number[];
  l: [number, number, number][];
  x: [number, number, number, number[], A.ResolvedPoint][];
}

/**
 * A shard: the records of one stdlib file's aliases under one root.  Each record is kept as its
 * JSON text, decoded when first used (a `syscall.*` uses ~400 of the shard's ~1,600: the others
 * never become objects for the collector to trace).
 */
export interface ExpansionShard {
  version: string;
  strings: string[];
  /** `aliasIndex:nameIndex:context` -> the record's JSON text, or the key of the same record */
  entries: Record<string, string>;
}

/** Where the table's shards are: dist/alias-expansions/. */
export function builtExpansionsDir(): string {
  return path.join(__dirname, '..', '..', 'alias-expansions');
}

export function entryKey(aliasIndex: number, nameIndex: number, context: UseContext): string {
  return `${aliasIndex}:${nameIndex}:${context}`;
}

const isInt = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= -1;

/** Is this JSON value plain data (what a record's resolved point may hold)? */
export function plainData(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(plainData);
  if (typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
  return Object.entries(v as object).every(([k, x]) => k !== '__proto__' && x !== undefined && plainData(x));
}

/** The shape of a record (the shard comes from the build, still checked before use). */
function validRecord(r: RecordedExpansion, strings: number): boolean {
  const str = (i: unknown): boolean => isInt(i) && (i as number) >= 0 && (i as number) < strings;
  return !!r && typeof r === 'object' && str(r.c) && Array.isArray(r.r) && r.r.every(str) && Array.isArray(r.l)
    && r.l.every((l, i) => Array.isArray(l) && l.length === 3 && str(l[0]) && isInt(l[1]) && l[1] >= 0 && isInt(l[2]) && l[2] < i)
    && Array.isArray(r.x) && r.x.every((x) => Array.isArray(x) && x.length === 5 && isInt(x[0]) && x[0] >= 0 && x[0] < r.l.length
      && str(x[1]) && str(x[2]) && Array.isArray(x[3]) && x[3].every(str)
      && !!x[4] && typeof x[4].family === 'string' && typeof x[4].pp === 'string' && plainData(x[4].data) && !!x[4].data
      && typeof x[4].data === 'object' && !Array.isArray(x[4].data));
}

function clone<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const o: Record<string, unknown> = {};
  for (const k in v) o[k] = clone((v as Record<string, unknown>)[k]);
  return o as T;
}

/** The shard files, read on first use (null: missing, damaged or of another version). */
export class ExpansionShards {
  private shards = new Map<string, ExpansionShard | null>();
  private decoded = new WeakMap<ExpansionShard, Map<string, RecordedExpansion | null>>();

  constructor(private dir = builtExpansionsDir()) {}

  shard(name: string): ExpansionShard | null {
    let s = this.shards.get(name);
    if (s !== undefined) return s;
    s = null;
    try {
      const d = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as ExpansionShard;
      if (d && d.version === EXPANSIONS_VERSION && Array.isArray(d.strings) && d.strings.every((x) => typeof x === 'string')
        && d.entries && typeof d.entries === 'object' && !Array.isArray(d.entries)) {
        s = d;
        this.decoded.set(d, new Map());
      }
    } catch {
      s = null;
    }
    this.shards.set(name, s);
    return s;
  }

  /** The record of an alias (null: none, or not valid). */
  record(shard: string, aliasIndex: number, nameIndex: number, context: UseContext): { shard: ExpansionShard; rec: RecordedExpansion } | null {
    const s = this.shard(shard);
    if (!s) return null;
    const get = (k: string): string | undefined => (Object.prototype.hasOwnProperty.call(s.entries, k) ? s.entries[k] : undefined);
    let k = entryKey(aliasIndex, nameIndex, context);
    let text = get(k);
    if (typeof text === 'string' && !text.startsWith('{')) text = get((k = text));
    if (typeof text !== 'string') return null;
    const memo = this.decoded.get(s)!;
    let rec = memo.get(k);
    if (rec === undefined) {
      try {
        rec = JSON.parse(text) as RecordedExpansion;
      } catch {
        rec = null;
      }
      if (rec && !validRecord(rec, s.strings.length)) rec = null;
      memo.set(k, rec);
    }
    return rec ? { shard: s, rec } : null;
  }

  replay(s: ExpansionShard, rec: RecordedExpansion, decls: A.AliasDecl[], body: A.Block): Expansion[] {
    return replayExpansion(s, rec, decls, body);
  }
}

/**
 * The derived probes of a record around the use's body: each alias layer made as the slow path
 * makes it (aliasLayer, parents first), each probe's body copied from its layer in the order the
 * slow path copies them.  `decls` are the layers' alias declarations.
 */
export function replayExpansion(s: ExpansionShard, rec: RecordedExpansion, decls: A.AliasDecl[], body: A.Block): Expansion[] {
  const layers: A.Block[] = [];
  rec.l.forEach(([, , parent], i) => layers.push(aliasLayer(decls[i], parent < 0 ? body : layers[parent])));
  return rec.x.map(([layer, pn, mark, chain, rp]): Expansion => {
    return { rp: clone(rp), pn: s.strings[pn], chain: chain.map((c) => s.strings[c]), body: copyBody(layers[layer]), condition: undefined,
      mark: s.strings[mark] };
  });
}
