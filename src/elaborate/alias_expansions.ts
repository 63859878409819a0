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
 *
 * Most probes a use with an empty body derives are then elided by the optimiser (462 of the
 * 492 of `syscall.*`): the build also resolves and optimises each derived probe alone and
 * records, for those elided, at which iteration, the session look-ups resolving the body makes
 * and the names it and the functions it reaches resolve (RecordedElision).  Pass 2 replays
 * the look-ups instead of making the body (index.ts, Resolver.replayLookups) and the optimiser
 * elides the probe at that iteration (OptUnit.elidesAt), where the optimiser runs as at build
 * time and nothing outside the stdlib declares one of the names (Session.elisionContext).
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as A from '../ast';
import { aliasLayer, copyBody, Expansion, Lookup } from './aliases';

export const EXPANSIONS_VERSION = 'tapsim-alias-expansions-2';

/** The contexts recorded: a use that is optional (`name?`), one that is not. */
export type UseContext = 'o' | 'n';

/**
 * One recorded expansion (indices into the shard's strings): `c` the alias's own chain text;
 * `r` the alias roots it looked up, in order; `l` the alias layers [file relative to stdlib,
 * alias index, parent layer or -1 for the use's body], parents first; `x` the derived probes
 * [layer, pn, mark, chain texts innermost first, resolved point, and for a probe the optimiser
 * elides when the use's body is empty, its RecordedElision].
 */
export interface RecordedExpansion {
  c: number;
  r: number[];
  l: [number, number, number][];
  x: ([number, number, number, number[], A.ResolvedPoint] | [number, number, number, number[], A.ResolvedPoint, RecordedElision])[];
}

/**
 * A derived probe that pass 2's optimiser elides when the use's body is empty, as the build
 * found by resolving and optimising it alone (alias_expansions_make.ts): [the iteration of the
 * optimiser's loop that elides it, having changed the body in each one before; the index in
 * the shard's `names` of every name its body and the functions it reaches resolve (a
 * declaration of one by the script or a -I tapset could change the outcome); the indices in
 * the shard's `lookups` of the session look-ups resolving the body makes, in order].  Its body
 * reads no global and neither do the functions it reaches.
 */
export type RecordedElision = [number, number, number[]];

/**
 * A session look-up (strings indices; files relative to stdlib): [name, token's file] for a
 * variable that found no global, [name, token's file, argument count, [[file, line, column]
 * of each declaration found]] for a function.
 */
export type RecordedLookup = [number, number] | [number, number, number, [number, number, number][]];

/** What replaying needs of the session for the elided probes (Session.knownExpansion). */
export interface ElisionContext {
  /** Is no name declared outside the stdlib (the script, a -I tapset)? */
  stdlibOnly(names: readonly string[]): boolean;
  /** A stdlib file (relative path) as a source file of this session (undefined: not loaded). */
  file(rel: string): A.SourceFile | undefined;
  /** The path a stdlib file's tokens name (relative path). */
  path(rel: string): string;
}

/**
 * A shard: the records of one stdlib file's aliases under one root.  Each record is kept as its
 * JSON text, decoded when first used (a `syscall.*` uses ~400 of the shard's ~1,600: the others
 * never become objects for the collector to trace).
 */
export interface ExpansionShard {
  version: string;
  strings: string[];
  /** The elided probes' look-ups and name sets (string indices), each once (RecordedElision). */
  lookups: RecordedLookup[];
  names: number[][];
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
function validRecord(r: RecordedExpansion, strings: number, names: number, lookups: number): boolean {
  const str = (i: unknown): boolean => isInt(i) && (i as number) >= 0 && (i as number) < strings;
  const nat = (i: unknown): boolean => isInt(i) && (i as number) >= 0;
  const elision = (e: unknown): boolean => Array.isArray(e) && e.length === 3 && nat(e[0]) && nat(e[1]) && e[1] < names
    && Array.isArray(e[2]) && e[2].every((l) => nat(l) && l < lookups);
  return !!r && typeof r === 'object' && str(r.c) && Array.isArray(r.r) && r.r.every(str) && Array.isArray(r.l)
    && r.l.every((l, i) => Array.isArray(l) && l.length === 3 && str(l[0]) && isInt(l[1]) && l[1] >= 0 && isInt(l[2]) && l[2] < i)
    && Array.isArray(r.x) && r.x.every((x) => Array.isArray(x) && (x.length === 5 || (x.length === 6 && elision(x[5])))
      && isInt(x[0]) && x[0] >= 0 && x[0] < r.l.length
      && str(x[1]) && str(x[2]) && Array.isArray(x[3]) && x[3].every(str)
      && !!x[4] && typeof x[4].family === 'string' && typeof x[4].pp === 'string' && plainData(x[4].data) && !!x[4].data
      && typeof x[4].data === 'object' && !Array.isArray(x[4].data));
}

/** The shape of a shard's look-up and name tables. */
function validTables(d: ExpansionShard): boolean {
  const n = d.strings.length;
  const str = (i: unknown): boolean => Number.isSafeInteger(i) && (i as number) >= 0 && (i as number) < n;
  const nat = (i: unknown): boolean => Number.isSafeInteger(i) && (i as number) >= 0;
  return Array.isArray(d.names) && d.names.every((ns) => Array.isArray(ns) && ns.every(str))
    && Array.isArray(d.lookups) && d.lookups.every((l) => Array.isArray(l) && str(l[0]) && str(l[1]) && (l.length === 2
      || (l.length === 4 && nat(l[2]) && Array.isArray(l[3]) && l[3].every((c) => Array.isArray(c) && c.length === 3 && str(c[0]) && nat(c[1]) && nat(c[2])))));
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
        && d.entries && typeof d.entries === 'object' && !Array.isArray(d.entries) && validTables(d)) {
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
      if (rec && !validRecord(rec, s.strings.length, s.names.length, s.lookups.length)) rec = null;
      memo.set(k, rec);
    }
    return rec ? { shard: s, rec } : null;
  }

  replay(s: ExpansionShard, rec: RecordedExpansion, decls: A.AliasDecl[], body: A.Block, elide?: ElisionContext): Expansion[] {
    return replayExpansion(s, rec, decls, body, elide && this.elisions(s, elide));
  }

  private tables = new WeakMap<ExpansionShard, ShardElisions>();

  /** A shard's look-ups and name sets as this session sees them, each made once (elided). */
  private elisions(s: ExpansionShard, ctx: ElisionContext): ShardElisions {
    let t = this.tables.get(s);
    if (!t) this.tables.set(s, (t = { ctx, lookups: [], names: [] }));
    return t;
  }
}

/** A shard's elision tables for one session: look-ups decoded and name sets judged as first used. */
interface ShardElisions {
  ctx: ElisionContext;
  lookups: (Lookup | undefined)[];
  names: (boolean | undefined)[];
}

/**
 * The derived probes of a record around the use's body: each alias layer made as the slow path
 * makes it (aliasLayer, parents first), each probe's body copied from its layer in the order the
 * slow path copies them.  `decls` are the layers' alias declarations.  With `elide` (a run that
 * optimises as the build did) and an empty use body, a probe the build found elided gets an
 * empty body and its record (Expansion.elided) instead, unless a name it resolves is declared
 * outside the stdlib; its body, if pass 2 needs it after all, is made from the declarations
 * (which no elaboration changes).
 */
export function replayExpansion(s: ExpansionShard, rec: RecordedExpansion, decls: A.AliasDecl[], body: A.Block, elide?: ShardElisions): Expansion[] {
  const layers: A.Block[] = [];
  rec.l.forEach(([, , parent], i) => layers.push(aliasLayer(decls[i], parent < 0 ? body : layers[parent])));
  const empty = !!elide && body.stmts.length === 0;
  const made = rec.x.map((x): Expansion => {
    const [layer, pn, mark, chain, rp] = x;
    const out: Expansion = { rp: clone(rp), pn: s.strings[pn], chain: chain.map((c) => s.strings[c]), body, condition: undefined,
      mark: s.strings[mark] };
    const e = x.length === 6 ? x[5] : null;
    const lookups = empty && e ? elided(s, e, elide!) : null;
    if (e && lookups) {
      out.body = { k: 'block', stmts: [], tok: body.tok };
      out.elided = {
        at: e[0], lookups, make: () => {
          const own: A.Block[] = [];
          rec.l.forEach(([, , parent], i) => own.push(aliasLayer(decls[i], parent < 0 ? body : own[parent], true)));
          return copyBody(own[layer]);
        },
      };
    }
    return out;
  });
  // (the bodies copied before any is elaborated, in order: the first copy takes the alias bodies decoded for it)
  rec.x.forEach(([layer], i) => { if (!made[i].elided) made[i].body = copyBody(layers[layer]); });
  return made;
}

/** An elided probe's look-ups for this session (null: a name it resolves is declared outside the stdlib, its file is not loaded). */
function elided(s: ExpansionShard, [, names, lookups]: RecordedElision, t: ShardElisions): Lookup[] | null {
  let ok = t.names[names];
  if (ok === undefined) t.names[names] = ok = t.ctx.stdlibOnly(s.names[names].map((n) => s.strings[n]));
  if (!ok) return null;
  const out: Lookup[] = [];
  for (const i of lookups) {
    let l = t.lookups[i];
    if (!l) {
      const r = s.lookups[i];
      const file = t.ctx.file(s.strings[r[1]]);
      // (the alias's file: loaded by its expansion, so known the next time)
      if (!file) return null;
      l = r.length === 2 ? { fn: false, name: s.strings[r[0]], file }
        : { fn: true, name: s.strings[r[0]], file, nargs: r[2], cands: r[3].map(([cf, line, col]) => `${t.ctx.path(s.strings[cf])}:${line}:${col}`).join('\n') };
      t.lookups[i] = l;
    }
    out.push(l);
  }
  return out;
}
