/**
 * Symbol answers the build works out in advance: firstAliasOf() (the function id the machine's
 * call paths use) of every function name in the path templates, for the symbol table of the
 * current data.  A machine's boot compiles a few dozen paths and so resolved ~300 names, each a
 * hash probe of the symbol table plus a name compare, reading the table's name index, name blob
 * and addresses (4 MB) for that alone; with this table it reads one small JSON file.  The file
 * records the symbol table's source stamp (ksymtab.ts sourceStamp()): a stale or missing one is
 * unused and every name is looked up as before.  It also lists the directories of /sys/module (the
 * symbol table's module data), which every boot makes: a start that reads no symbol then opens no
 * symbol table.  `npm run build` writes it to
 * dist/kernel-tables/known-symbols.json (scripts/build-kernel-tables.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { sourceStamp } from './ksymtab';

const FORMAT = 'tapsim-known-symbols-3';

interface KnownFile {
  format: string;
  stamp: string;
  /** name -> firstAliasOf(name) */
  firstAlias: Record<string, number>;
  /** kallsyms sysModuleNames() */
  sysModules: string[];
  /** [id, symbolName(id)] of every id in firstAlias (an alias's id may name another symbol) */
  idNames: [number, string][];
}

/** the table as parsed (a Map of its ~1,000 names made at every start cost more than the lookups); {} when none is current */
let known: KnownFile | Record<string, never> | null = null;

/** The table `npm run build` writes. */
export function builtKnownSymbolsFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'known-symbols.json');
}

/** The table's name -> answer object in `file` if it is current for the symbol table's data, else null. */
function readKnownFile(file: string, stamp: string): KnownFile | null {
  let k: KnownFile;
  try {
    k = JSON.parse(fs.readFileSync(file, 'latin1')) as KnownFile;
  } catch {
    return null;
  }
  return k.format === FORMAT && k.stamp === stamp ? k : null;
}

/** The table in `file` if it is current for the symbol table's data, else null. */
export function readKnownSymbols(file: string, stamp: string): Map<string, number> | null {
  const k = readKnownFile(file, stamp);
  return k && new Map(Object.entries(k.firstAlias));
}

/** firstAliasOf(name) as the build computed it, or undefined (not a precomputed name, or no current table). */
export function knownFirstAlias(name: string): number | undefined {
  const a = current().firstAlias;
  return a && Object.prototype.hasOwnProperty.call(a, name) ? a[name] : undefined;
}

/** sysModuleNames() as the build listed them, or undefined (no current table). */
export function knownSysModules(): readonly string[] | undefined {
  return current().sysModules;
}

let byId: Map<number, string> | null = null;
/** symbolName(id) as the build worked it out for the ids of firstAlias's answers, or undefined. */
export function knownSymbolName(id: number): string | undefined {
  return (byId ??= new Map(current().idNames ?? [])).get(id);
}

function current(): Partial<KnownFile> {
  return (known ??= readKnownFile(builtKnownSymbolsFile(), sourceStamp()) ?? {});
}

/** Build step: write the table for `names` (answers from `firstAliasOf`, their names from `nameOf`) and /sys/module's `sysModules`; returns its size. */
export function writeKnownSymbols(file: string, names: Iterable<string>, firstAliasOf: (name: string) => number, sysModules: readonly string[],
  nameOf: (id: number) => string): number {
  const firstAlias: Record<string, number> = {};
  for (const n of [...new Set(names)].sort()) firstAlias[n] = firstAliasOf(n);
  const idNames = [...new Set(Object.values(firstAlias))].filter((id) => id >= 0).sort((a, b) => a - b).map((id): [number, string] => [id, nameOf(id)]);
  const text = JSON.stringify({ format: FORMAT, stamp: sourceStamp(), firstAlias, sysModules: [...sysModules], idNames } satisfies KnownFile);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, 'latin1');
  return text.length;
}
