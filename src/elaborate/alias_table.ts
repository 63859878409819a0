/**
 * The build's table of stdlib probe aliases that resolve to nothing on this kernel.
 *
 * stap tries a syscall alias's flavours in order (`syscall.NAME = dw_syscall.NAME !,
 * nd_syscall.NAME`, `nd_syscall.NAME = nd1_syscall.NAME !, nd2_syscall.NAME !, tp_syscall.NAME`):
 * on Debian's 6.1 the DWARF and nd1 flavours find no `sys_NAME` function, so a `syscall.*`
 * elaboration reads and resolves some 800 alias definitions only to drop them.  Which alias of
 * the library finds nothing is a fact of the library and the kernel data, both fixed at build
 * time: `npm run build` (scripts/alias-table.ts) expands every stdlib alias whose points are
 * every alias the way pass 2 expands a `?`/`!` use of it, and records those that derive no
 * probe and say nothing.
 * Pass 2 then skips such an alias where its failure would be swallowed anyway (an optional use,
 * no suffix: src/elaborate/aliases.ts), without decoding its definition or resolving its points.
 *
 * The table is only used while it describes this run: the library files it names with the
 * stamps (time and size) they had, the parser build (the library key, which fixes each file's
 * alias order), the kernel data files with theirs, no guru mode, and no alias (-I directory or
 * script) under the roots its aliases' expansions tried but the stdlib's.  Otherwise pass 2 takes the full path.
 */
import * as fs from 'fs';
import * as path from 'path';
import { hasWildcard, globMatch } from './probes';

export const ALIAS_TABLE_VERSION = 'tapsim-alias-table-2';

export interface AliasTableData {
  version: string;
  /** The tapset library key (parser build, macro files) the alias indices belong to. */
  base: string;
  /** data/kernel file -> stamp (kernel/data.ts dataFileStamp) when the table was made. */
  kernel: Record<string, string>;
  /** stdlib file (relative to stdlib/) -> its stamp and the indices of its aliases that resolve to nothing. */
  files: Record<string, { stamp: string; fails: number[] }>;
  /**
   * First components of the points those aliases' expansions tried (`kernel`, `kprobe`,
   * `__syscall` ...), each with the stdlib files defining aliases under it: no other alias may.
   */
  roots: Record<string, string[]>;
  /** Every stdlib file -> its stamp: the recorded expansions (alias_expansions.ts) assume all of them as they were. */
  stamps: Record<string, string>;
  /**
   * stdlib file -> the shards (files of dist/alias-expansions) holding its aliases' recorded
   * expansions, and for each of its aliases which one (`of`: the character '0' + shard index, ' ' none).
   */
  layout: Record<string, { shards: string[]; of: string }>;
  /** The stdlib files the records depend on, which must be parsed as the build parsed them. */
  parsed: string[];
}

/** Where `npm run build` writes the table: dist/alias-table.json. */
export function builtAliasTableFile(): string {
  return path.join(__dirname, '..', '..', 'alias-table.json');
}

/** The stamps of the kernel data files (the top level of data/kernel), as the table records them. */
export function kernelDataStamps(): Record<string, string> {
  const out: Record<string, string> = {};
  // (required here: the kernel data module comes with the machine's bundle, which a run that
  // names no library alias never loads)
  const data = require('../kernel/data') as typeof import('../kernel/data');
  let names: string[];
  try {
    names = fs.readdirSync(data.kernelDataDir()).sort();
  } catch {
    return out;
  }
  for (const n of names) {
    const st = data.dataFileStamp(n);
    if (st !== null) out[n] = st;
  }
  return out;
}

function sameStamps(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/** The shape of a table file (it comes from the build, still checked before use). */
function validTable(t: AliasTableData): boolean {
  const strings = (l: unknown): boolean => Array.isArray(l) && l.every((x) => typeof x === 'string');
  const isRecord = (o: unknown): o is Record<string, unknown> => !!o && typeof o === 'object' && !Array.isArray(o);
  return t.version === ALIAS_TABLE_VERSION && typeof t.base === 'string' && isRecord(t.roots) && Object.values(t.roots).every(strings)
    && isRecord(t.stamps) && Object.values(t.stamps).every((x) => typeof x === 'string') && strings(t.parsed) && isRecord(t.layout)
    && Object.values(t.layout).every((l) => isRecord(l) && strings(l.shards) && typeof l.of === 'string'
      && [...l.of].every((c) => c === ' ' || (c.charCodeAt(0) >= 48 && c.charCodeAt(0) - 48 < l.shards.length)))
    && isRecord(t.kernel)
    && Object.values(t.kernel).every((s) => typeof s === 'string') && isRecord(t.files)
    && Object.values(t.files).every((f) => isRecord(f) && typeof f.stamp === 'string' && Array.isArray(f.fails)
      && f.fails.every((i) => Number.isSafeInteger(i) && i >= 0));
}

/** This process's kernel data stamps (the files do not change under a run). */
let currentKernel: Record<string, string> | undefined;

/**
 * The table of the build (null: missing, damaged, or made for another parser build).  `base`
 * is the library key, `stdlib` the stdlib directory; files are checked one by one (failures),
 * the kernel data and the session's aliases by holds().
 */
export class AliasTable {
  private constructor(private data: AliasTableData, private stdlib: string) {}

  static load(base: string, stdlib: string, file = builtAliasTableFile()): AliasTable | null {
    let data: AliasTableData;
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8')) as AliasTableData;
    } catch {
      return null;
    }
    if (!data || typeof data !== 'object' || !validTable(data) || data.base !== base) return null;
    return new AliasTable(data, path.resolve(stdlib));
  }

  /**
   * Is the kernel data the table was made from this run's (checked here, when an alias of the
   * table is first met, not when the table is read: the kernel data module comes with the
   * machine, which a begin-only run never loads), do the aliases under the roots the table's
   * expansions tried come from the same stdlib files as at build time (`definers(root)`: the library files defining aliases under it), and does
   * `own` (the roots of the script's aliases) name none of them?
   */
  holds(definers: (root: string) => readonly string[], own: Iterable<string>): boolean {
    if (!sameStamps(this.data.kernel, (currentKernel ??= kernelDataStamps()))) return false;
    const ownRoots = [...own];
    for (const [r, files] of Object.entries(this.data.roots)) {
      const now = definers(r).map((f) => path.relative(this.stdlib, path.resolve(f)));
      if (now.length !== files.length || !now.every((f) => files.includes(f))) return false;
      if (ownRoots.some((o) => o === r || (hasWildcard(o) && globMatch(o, r)))) return false;
    }
    return true;
  }

  /**
   * Do the recorded expansions describe this library: every stdlib file there with the stamp it
   * had at build time and no other, and those the records depend on parsed as the build did?
   * (With holds(), for the kernel data and the roots.)
   */
  expansionsHold(files: readonly string[], stampOf: (f: string) => string | undefined, parsedAsBuilt: (f: string) => boolean): boolean {
    const mine = files.filter((f) => this.relative(f) !== null);
    const stamps = this.data.stamps;
    if (mine.length !== Object.keys(stamps).length) return false;
    for (const f of mine) {
      const rel = this.relative(f)!;
      if (!Object.prototype.hasOwnProperty.call(stamps, rel) || stamps[rel] !== stampOf(f)) return false;
    }
    return this.data.parsed.every((rel) => parsedAsBuilt(path.join(this.stdlib, rel)));
  }

  /** Where the records of a stdlib file's aliases are (null: none). */
  layout(file: string): { shards: string[]; of: string } | null {
    const rel = this.relative(file);
    return rel !== null && Object.prototype.hasOwnProperty.call(this.data.layout, rel) ? this.data.layout[rel] : null;
  }

  /** A file's path relative to the stdlib directory (null: not under it). */
  relative(file: string): string | null {
    const rel = path.relative(this.stdlib, path.resolve(file));
    return rel.startsWith('..') || path.isAbsolute(rel) ? null : rel;
  }

  /** The absolute path of a stdlib file named relative to the stdlib directory. */
  absolute(rel: string): string {
    return path.join(this.stdlib, rel);
  }

  /** Indices of the aliases of library file `file` (with stamp `stamp`) that resolve to nothing; null: not known. */
  failures(file: string, stamp: string | undefined): readonly number[] | null {
    const rel = path.relative(this.stdlib, path.resolve(file));
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
    const e = Object.prototype.hasOwnProperty.call(this.data.files, rel) ? this.data.files[rel] : undefined;
    return e && stamp !== undefined && e.stamp === stamp ? e.fails : null;
  }
}
