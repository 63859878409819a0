/**
 * Symbol answers the build works out in advance: firstAliasOf() (the function id the machine's
 * call paths use) of every function name in the path templates, for the symbol table of the
 * current data.  A machine's boot compiles a few dozen paths and so resolved ~300 names, each a
 * hash probe of the symbol table plus a name compare, reading the table's name index, name blob
 * and addresses (4 MB) for that alone; with this table it reads one small JSON file.  The file
 * records the symbol table's source stamp (ksymtab.ts sourceStamp()): a stale or missing one is
 * unused and every name is looked up as before.  `npm run build` writes it to
 * dist/kernel-tables/known-symbols.json (scripts/build-kernel-tables.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { sourceStamp } from './ksymtab';

const FORMAT = 'tapsim-known-symbols-1';

interface KnownFile {
  format: string;
  stamp: string;
  /** name -> firstAliasOf(name) */
  firstAlias: Record<string, number>;
}

/** the table's answers as parsed (a Map of ~1,000 entries made at every start cost more than the lookups) */
let known: Record<string, number> | null = null;

/** The table `npm run build` writes. */
export function builtKnownSymbolsFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'known-symbols.json');
}

/** The table's name -> answer object in `file` if it is current for the symbol table's data, else null. */
function readKnownFile(file: string, stamp: string): Record<string, number> | null {
  let k: KnownFile;
  try {
    k = JSON.parse(fs.readFileSync(file, 'latin1')) as KnownFile;
  } catch {
    return null;
  }
  return k.format === FORMAT && k.stamp === stamp ? k.firstAlias : null;
}

/** The table in `file` if it is current for the symbol table's data, else null. */
export function readKnownSymbols(file: string, stamp: string): Map<string, number> | null {
  const k = readKnownFile(file, stamp);
  return k && new Map(Object.entries(k));
}

/** firstAliasOf(name) as the build computed it, or undefined (not a precomputed name, or no current table). */
export function knownFirstAlias(name: string): number | undefined {
  if (!known) known = readKnownFile(builtKnownSymbolsFile(), sourceStamp()) ?? {};
  return Object.prototype.hasOwnProperty.call(known, name) ? known[name] : undefined;
}

/** Build step: write the table for `names` (answers from `firstAliasOf`); returns its size. */
export function writeKnownSymbols(file: string, names: Iterable<string>, firstAliasOf: (name: string) => number): number {
  const firstAlias: Record<string, number> = {};
  for (const n of [...new Set(names)].sort()) firstAlias[n] = firstAliasOf(n);
  const text = JSON.stringify({ format: FORMAT, stamp: sourceStamp(), firstAlias } satisfies KnownFile);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, 'latin1');
  return text.length;
}
