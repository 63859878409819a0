/**
 * SystemTap associative arrays.
 *
 * Insertion ordered (JS Map): updating a key keeps its position, delete + re-add moves it
 * to the end.  Single-key maps use the key value itself as the Map key (no allocation on
 * the hot path); multi-key maps join the columns with '\x00' (stap strings never contain
 * NUL) and keep the key tuple in a row object.
 *
 * Keys are canonical Longs or binary strings; values are Long, string or Stat.
 */
import { Long, add } from './int64';
import { StapError } from './errors';
import { Stat, StatSpec, EMPTY_STAT, DEFAULT_STAT_SPEC } from './stats';

export type Key = Long | string;
export type ValueType = 'long' | 'string' | 'stats';
export type MapValue = Long | string | Stat;
/** Slice pattern: null = `*` wildcard. */
export type KeyPattern = ReadonlyArray<Key | null>;

export const DEFAULT_MAXMAPENTRIES = 2048;

/**
 * The most entries an array may be given (MAXMAPENTRIES or `global a[N]`): one JS Map holds at
 * most 2^24.  A module asking for more fails to start (the engine reports stap's allocation
 * failure), so the array's own overflow error always comes before JS's limit.
 */
export const MAX_MAP_ENTRIES = 2 ** 24;

export interface MapOptions {
  /** Number of key columns, 1..9. */
  arity: number;
  valueType: ValueType;
  /** Declared size `global a[N]` (error text then names N). */
  size?: number;
  /** MAXMAPENTRIES (used when no size is declared), default 2048. */
  maxMapEntries?: number;
  /** `global a%` / `a[N]%`: evict the oldest inserted entry instead of overflowing. */
  wrap?: boolean;
  /** Statistics description for stats arrays. */
  stat?: StatSpec;
  /** Script-level name (diagnostics only). */
  name?: string;
}

/** A row of a multi-key map (also the shape of iteration entries). */
export interface MapEntry<V = MapValue> {
  keys: Key[];
  v: V;
}

export type StatOp = 'count' | 'sum' | 'min' | 'max' | 'avg';

export interface SortSpec {
  /** 0 = sort by value, 1..arity = by that key column; undefined = unsorted (insertion order). */
  by?: number;
  /** Descending (`-`). */
  desc?: boolean;
  /** For value sorts of stats arrays: which extractor (default count). */
  statOp?: StatOp;
  /** Only entries matching this slice pattern. */
  slice?: KeyPattern;
  /** At most this many entries (limit N); negative/zero = none. */
  limit?: Long;
}

/** Join key columns into a Map key for multi-key maps. */
export function joinKeys(keys: ReadonlyArray<Key>): string {
  let s = '' + keys[0];
  for (let i = 1; i < keys.length; i++) s += '\x00' + keys[i];
  return s;
}

function matches(keys: ReadonlyArray<Key>, pat: KeyPattern): boolean {
  for (let i = 0; i < pat.length; i++) {
    const p = pat[i];
    if (p !== null && p !== keys[i]) return false;
  }
  return true;
}

export function compareKeys(a: Key, b: Key): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function statValue(s: Stat, op: StatOp | undefined): Long {
  switch (op) {
    case undefined:
    case 'count':
      return s.count();
    case 'sum':
      return s.sum();
    case 'min':
      return s.isEmpty() ? 0 : s.min();
    case 'max':
      return s.isEmpty() ? 0 : s.max();
    case 'avg':
      return s.isEmpty() ? 0 : s.avg();
  }
}

export class StapMap<V extends MapValue = MapValue> {
  readonly arity: number;
  readonly valueType: ValueType;
  readonly wrap: boolean;
  readonly maxEntries: number;
  readonly declaredSize: number | undefined;
  readonly statSpec: StatSpec;
  readonly name: string;
  /** arity 1: key -> value; arity > 1: joined key -> MapEntry */
  readonly m: Map<Key, V> | Map<string, MapEntry<V>>;
  private readonly dflt: V;

  constructor(opts: MapOptions) {
    if (!(opts.arity >= 1 && opts.arity <= 9)) throw new Error('map arity must be 1..9');
    this.arity = opts.arity;
    this.valueType = opts.valueType;
    this.wrap = !!opts.wrap;
    this.declaredSize = opts.size !== undefined && opts.size > 0 ? opts.size : undefined;
    this.maxEntries = this.declaredSize ?? opts.maxMapEntries ?? DEFAULT_MAXMAPENTRIES;
    this.statSpec = opts.stat ?? DEFAULT_STAT_SPEC;
    this.name = opts.name ?? '';
    this.m = new Map();
    this.dflt = (opts.valueType === 'long' ? 0 : opts.valueType === 'string' ? '' : EMPTY_STAT) as V;
  }

  get size(): number {
    return this.m.size;
  }

  /** Called before inserting a new key when the map is full. */
  private makeRoom(): void {
    if (this.wrap) {
      const first = this.m.keys().next();
      if (!first.done) (this.m as Map<unknown, unknown>).delete(first.value);
      return;
    }
    throw new StapError(
      this.declaredSize !== undefined ? `Array overflow, check size limit (${this.declaredSize})` : 'Array overflow, check MAXMAPENTRIES',
    );
  }

  // ---------------------------------------------------------------- single key (arity 1)

  /** a[k] (missing -> 0 / "" / empty stat; does not create). */
  get(k: Key): V {
    const v = (this.m as Map<Key, V>).get(k);
    return v === undefined ? this.dflt : v;
  }

  /** a[k] = v */
  set(k: Key, v: V): V {
    const m = this.m as Map<Key, V>;
    if (m.size >= this.maxEntries && !m.has(k)) this.makeRoom();
    m.set(k, v);
    return v;
  }

  /** a[k] += d (also ++/--): returns the new value. */
  addLong(k: Key, d: Long): Long {
    const m = this.m as unknown as Map<Key, Long>;
    const old = m.get(k);
    const r = add(old === undefined ? 0 : old, d);
    if (old === undefined && m.size >= this.maxEntries) this.makeRoom();
    m.set(k, r);
    return r;
  }

  /** a[k] <<< v on CPU cpu. */
  stat(k: Key, v: Long, cpu = 0): void {
    const m = this.m as unknown as Map<Key, Stat>;
    let s = m.get(k);
    if (s === undefined) {
      if (m.size >= this.maxEntries) this.makeRoom();
      s = new Stat(this.statSpec);
      s.inMap = true;
      m.set(k, s);
    }
    s.add(v, cpu);
  }

  /** k in a */
  has(k: Key): boolean {
    return (this.m as Map<Key, V>).has(k);
  }

  /** delete a[k] */
  delete(k: Key): void {
    (this.m as Map<Key, V>).delete(k);
  }

  // ---------------------------------------------------------------- multi key (any arity)

  /** Key tuple access; works for arity 1 too. */
  getN(keys: ReadonlyArray<Key>): V {
    if (this.arity === 1) return this.get(keys[0]);
    const e = (this.m as Map<string, MapEntry<V>>).get(joinKeys(keys));
    return e === undefined ? this.dflt : e.v;
  }

  /** Set by key tuple.  The keys array is retained (pass a fresh array). */
  setN(keys: Key[], v: V): V {
    if (this.arity === 1) return this.set(keys[0], v);
    const m = this.m as Map<string, MapEntry<V>>;
    const j = joinKeys(keys);
    const e = m.get(j);
    if (e !== undefined) e.v = v;
    else {
      if (m.size >= this.maxEntries) this.makeRoom();
      m.set(j, { keys, v });
    }
    return v;
  }

  addLongN(keys: Key[], d: Long): Long {
    if (this.arity === 1) return this.addLong(keys[0], d);
    const m = this.m as unknown as Map<string, MapEntry<Long>>;
    const j = joinKeys(keys);
    const e = m.get(j);
    if (e !== undefined) return (e.v = add(e.v, d));
    if (m.size >= this.maxEntries) this.makeRoom();
    const r = add(0, d);
    m.set(j, { keys, v: r });
    return r;
  }

  statN(keys: Key[], v: Long, cpu = 0): void {
    if (this.arity === 1) return this.stat(keys[0], v, cpu);
    const m = this.m as unknown as Map<string, MapEntry<Stat>>;
    const j = joinKeys(keys);
    let e = m.get(j);
    if (e === undefined) {
      if (m.size >= this.maxEntries) this.makeRoom();
      e = { keys, v: new Stat(this.statSpec) };
      (e.v as Stat).inMap = true;
      m.set(j, e);
    }
    e.v.add(v, cpu);
  }

  hasN(keys: ReadonlyArray<Key>): boolean {
    if (this.arity === 1) return this.has(keys[0]);
    return (this.m as Map<string, MapEntry<V>>).has(joinKeys(keys));
  }

  deleteN(keys: ReadonlyArray<Key>): void {
    if (this.arity === 1) return this.delete(keys[0]);
    (this.m as Map<string, MapEntry<V>>).delete(joinKeys(keys));
  }

  // ---------------------------------------------------------------- slices / whole map

  /** `[k1, *] in a` — any entry matching the pattern (null = wildcard). */
  hasSlice(pat: KeyPattern): boolean {
    if (this.arity === 1) return pat[0] === null ? this.m.size > 0 : this.has(pat[0]);
    if (!pat.includes(null)) return this.hasN(pat as Key[]);
    for (const e of (this.m as Map<string, MapEntry<V>>).values()) if (matches(e.keys, pat)) return true;
    return false;
  }

  /** `delete a[k1, *]` */
  deleteSlice(pat: KeyPattern): void {
    if (this.arity === 1) {
      if (pat[0] === null) this.clear();
      else this.delete(pat[0]);
      return;
    }
    if (!pat.includes(null)) return this.deleteN(pat as Key[]);
    const m = this.m as Map<string, MapEntry<V>>;
    for (const [j, e] of m) if (matches(e.keys, pat)) m.delete(j);
  }

  /** `delete a` */
  clear(): void {
    this.m.clear();
  }

  // ---------------------------------------------------------------- iteration

  /** All rows in insertion order (a snapshot; fresh objects for arity 1). */
  rows(): MapEntry<V>[] {
    const out: MapEntry<V>[] = [];
    if (this.arity === 1) {
      for (const [k, v] of this.m as Map<Key, V>) out.push({ keys: [k], v });
    } else {
      for (const e of (this.m as Map<string, MapEntry<V>>).values()) out.push(e);
    }
    return out;
  }

  /**
   * Entries for foreach: filtered by slice, sorted (stable) by key column or value,
   * truncated to limit.  Rows are a snapshot; the compiler forbids modifying the map in
   * the loop body.
   */
  entries(spec?: SortSpec): MapEntry<V>[] {
    let rows = this.rows();
    if (spec === undefined) return rows;
    if (spec.slice !== undefined) {
      const pat = spec.slice;
      rows = rows.filter((e) => matches(e.keys, pat));
    }
    const by = spec.by;
    const lim = spec.limit;
    if (by !== undefined) {
      const dir = spec.desc ? -1 : 1;
      if (by === 0) {
        if (this.valueType === 'stats') {
          const op = spec.statOp;
          const vals = new Map<MapEntry<V>, Long>();
          for (const e of rows) vals.set(e, statValue(e.v as Stat, op));
          rows.sort((a, b) => dir * compareKeys(vals.get(a) as Long, vals.get(b) as Long));
        } else {
          rows.sort((a, b) => dir * compareKeys(a.v as Key, b.v as Key));
        }
      } else {
        const c = by - 1;
        rows.sort((a, b) => dir * compareKeys(a.keys[c], b.keys[c]));
      }
    }
    if (lim !== undefined && lim < rows.length) rows.length = lim <= 0 ? 0 : Number(lim);
    return rows;
  }

  /** Keys only, for single-key foreach (unsorted or sorted). */
  keys1(spec?: SortSpec): Key[] {
    if (spec === undefined || (spec.by === undefined && spec.slice === undefined && spec.limit === undefined)) {
      return Array.from((this.m as Map<Key, V>).keys());
    }
    const rows = this.entries(spec);
    const out = new Array<Key>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = rows[i].keys[0];
    return out;
  }
}

// ---------------------------------------------------------------- auto-print helpers

/** Render a key column for auto-print: strings in double quotes, numbers plain. */
export function keyText(k: Key): string {
  return typeof k === 'string' ? '"' + k + '"' : '' + k;
}

/** `[1,"key"]` */
export function keysText(keys: ReadonlyArray<Key>): string {
  let s = '[';
  for (let i = 0; i < keys.length; i++) s += (i ? ',' : '') + keyText(keys[i]);
  return s + ']';
}

/** Render a value: strings quoted, longs decimal, stats summary. */
export function valueText(v: MapValue): string {
  if (v instanceof Stat) {
    if (v.isEmpty()) return ' @count=0x0';
    return ` @count=${v.count()} @min=${v.min()} @max=${v.max()} @sum=${v.sum()} @avg=${v.avg()}`;
  }
  return typeof v === 'string' ? '="' + v + '"' : '=' + v;
}

/** One auto-print line for a scalar global (`x=5`, `s="text"`, `s @count=...`), with "\n". */
export function scalarLine(name: string, v: MapValue): string {
  return name + valueText(v) + '\n';
}

/** One auto-print line for an array entry (`a[1,"key"]=5`), with "\n". */
export function entryLine(name: string, keys: ReadonlyArray<Key>, v: MapValue): string {
  return name + keysText(keys) + valueText(v) + '\n';
}

/** Auto-print order: value descending (stats: @count descending). */
export function autoPrintEntries<V extends MapValue>(map: StapMap<V>): MapEntry<V>[] {
  return map.entries({ by: 0, desc: true });
}

/** Full auto-print text of an array global. */
export function autoPrintMap(name: string, map: StapMap): string {
  let s = '';
  for (const e of autoPrintEntries(map)) s += entryLine(name, e.keys, e.v);
  return s;
}
