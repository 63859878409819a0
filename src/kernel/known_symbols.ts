/**
 * Symbol answers the build works out in advance: firstAliasOf() (the function id the machine's
 * call paths use) of every function name in the path templates, for the symbol table of the
 * current data.  A machine's boot compiles a few dozen paths and so resolved ~300 names, each a
 * hash probe of the symbol table plus a name compare, reading the table's name index, name blob
 * and addresses (4 MB) for that alone; with this table it reads one small JSON file.  The file
 * records the symbol table's source stamp (ksymtab.ts sourceStamp()): a stale or missing one is
 * unused and every name is looked up as before.  `npm run build` writes it to
 * dist/kernel-tables/known-symbols.json (scripts/build-kernel-tables.ts).
 *
 * Beside it, dist/kernel-tables/boot-symbols.json holds what every boot asks of the symbol table:
 * the directories of /sys/module and the names of those ids (symbolName, of the call paths' function
 * ids: the caller of `schedule` a start names is one), so that a start opens no symbol table.  Its
 * ids and names are two lists (a name list is one string): it is parsed at every start.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sourceStamp } from './ksymtab';

const FORMAT = 'tapsim-known-symbols-2';
const BOOT_FORMAT = 'tapsim-boot-symbols-1';

interface KnownFile {
  format: string;
  stamp: string;
  /** the names, sorted and '\n'-separated, and firstAliasOf(name) of each, in that order (two lists parse faster than an object of ~1,000 keys) */
  names: string;
  firstAlias: number[];
}

interface BootFile {
  format: string;
  stamp: string;
  /** kallsyms sysModuleNames() */
  sysModules: string[];
  /** ids (ascending) and their symbolName()s, '\n'-separated: the ids firstAlias answers (an alias's id may name another symbol) */
  ids: number[];
  names: string;
}

/** the table's answers as parsed: sorted names and their answers (a Map of ~1,000 entries made at every start cost more than the lookups) */
let known: { names: string[]; ids: number[] } | null = null;

/** The table `npm run build` writes. */
export function builtKnownSymbolsFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'known-symbols.json');
}

/** The boot's answers `npm run build` writes. */
export function builtBootSymbolsFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'boot-symbols.json');
}

/** The JSON in `file` if it has `format` and is current for the symbol table's data (`stamp`), else null. */
function readCurrent<T extends { format: string; stamp: string }>(file: string, format: string, stamp: string): T | null {
  let k: T;
  try {
    k = JSON.parse(fs.readFileSync(file, 'latin1')) as T;
  } catch {
    return null;
  }
  return k.format === format && k.stamp === stamp ? k : null;
}

/** The table in `file` if it is current for the symbol table's data, else null. */
export function readKnownSymbols(file: string, stamp: string): Map<string, number> | null {
  const k = readCurrent<KnownFile>(file, FORMAT, stamp);
  if (!k) return null;
  const names = k.names.split('\n');
  return new Map(names.map((n, i) => [n, k.firstAlias[i]]));
}

/** firstAliasOf(name) as the build computed it, or undefined (not a precomputed name, or no current table). */
export function knownFirstAlias(name: string): number | undefined {
  if (!known) {
    const k = readCurrent<KnownFile>(builtKnownSymbolsFile(), FORMAT, sourceStamp());
    known = k ? { names: k.names.split('\n'), ids: k.firstAlias } : { names: [], ids: [] };
  }
  // (binary search: the names are sorted as JavaScript compares strings)
  const names = known.names;
  let lo = 0, hi = names.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const n = names[mid];
    if (n === name) return known.ids[mid];
    if (n < name) lo = mid + 1; else hi = mid - 1;
  }
  return undefined;
}

let boot: { sysModules?: string[]; ids?: number[]; names?: string[] } | null = null;
function bootAnswers(): NonNullable<typeof boot> {
  if (boot) return boot;
  const b = readCurrent<BootFile>(builtBootSymbolsFile(), BOOT_FORMAT, sourceStamp());
  boot = b ? { sysModules: b.sysModules, ids: b.ids, names: b.names.split('\n') } : {};
  return boot;
}

/** sysModuleNames() as the build listed them, or undefined (no current table). */
export function knownSysModules(): readonly string[] | undefined {
  return bootAnswers().sysModules;
}

/** symbolName(id) as the build worked it out for the ids of firstAlias's answers, or undefined. */
export function knownSymbolName(id: number): string | undefined {
  const b = bootAnswers();
  const i = b.ids ? b.ids.indexOf(id) : -1;
  return i >= 0 ? b.names![i] : undefined;
}

/**
 * Build step: write the table for `names` (answers from `firstAliasOf`) and the boot's answers (the
 * answers' names from `nameOf`, /sys/module's `sysModules`); returns their size.
 */
export function writeKnownSymbols(file: string, names: Iterable<string>, firstAliasOf: (name: string) => number, sysModules: readonly string[],
  nameOf: (id: number) => string, bootFile = builtBootSymbolsFile()): number {
  const sorted = [...new Set(names)].sort();
  const firstAlias = sorted.map((n) => firstAliasOf(n));
  const stamp = sourceStamp();
  const text = JSON.stringify({ format: FORMAT, stamp, names: sorted.join('\n'), firstAlias } satisfies KnownFile);
  const ids = [...new Set(firstAlias)].filter((id) => id >= 0).sort((a, b) => a - b);
  const bootText = JSON.stringify({ format: BOOT_FORMAT, stamp, sysModules: [...sysModules], ids, names: ids.map(nameOf).join('\n') } satisfies BootFile);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, 'latin1');
  fs.writeFileSync(bootFile, bootText, 'latin1');
  return text.length + bootText.length;
}
