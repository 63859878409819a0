/**
 * Name coverage of tapsim's library against SystemTap 4.8's public tapset names
 * (data/tapset-names/stap-4.8-x86_64.txt, written by gen.py):
 *
 *  - a function is defined when the library declares one of that name with the same number of
 *    parameters, and the parameter and return types stap declares (long/string) are the types
 *    tapsim declares or infers;
 *  - an alias is defined when a tapset declares it; one flagged R (stap -l resolves it on
 *    Debian 6.1) must resolve with `stap -l` here too;
 *  - a macro is defined when a .stpm file of the library has `@define NAME` with the same number
 *    of parameters.
 *
 *   node dist/scripts/tapset-names/coverage.js [--missing]
 *
 * prints the figures (and the names missing); test/elaborate/tapset_names.test.ts checks them.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { TapsetLibrary, stdlibDir, listProbes, dumpFunctions, dumpProbeAliases } from '../../src/elaborate';
import { installKernelProbes } from '../../src/probes/setup';

export interface RefFunction { name: string; type: string; params: { name: string; type: string }[]; text: string }
export interface RefAlias { name: string; flag: string }
export interface Reference { functions: RefFunction[]; aliases: RefAlias[]; macros: { name: string; arity: number }[] }

export function referencePath(): string {
  return path.join(__dirname, '..', '..', '..', 'data', 'tapset-names', 'stap-4.8-x86_64.txt');
}

/** `name:type (p:type, ...)` as --dump-functions prints it. */
export function parseSignature(text: string): RefFunction | null {
  const m = /^([^:\s]+):(\S+) \((.*)\)$/.exec(text.replace(/\s*\/\*.*?\*\//g, '').trim());
  if (!m) return null;
  const params = m[3].trim() ? m[3].split(',').map((p) => {
    const [name, type] = p.trim().split(':');
    return { name, type: type ?? 'unknown' };
  }) : [];
  return { name: m[1], type: m[2], params, text: text.trim() };
}

export function readReference(file = referencePath()): Reference {
  const ref: Reference = { functions: [], aliases: [], macros: [] };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.indexOf(' ');
    const kind = line.slice(0, sp);
    const rest = line.slice(sp + 1);
    if (kind === 'function') {
      const f = parseSignature(rest);
      if (f) ref.functions.push(f);
    } else if (kind === 'alias') {
      const [name, flag] = rest.split(' ');
      ref.aliases.push({ name, flag });
    } else if (kind === 'macro') {
      const [name, arity] = rest.split(' ');
      ref.macros.push({ name, arity: Number(arity) });
    }
  }
  return ref;
}

export interface Coverage {
  functions: { total: number; missing: string[] };
  /** resolvable: aliases stap resolves on Debian 6.1 (R); resolved: those of them `-l` resolves here */
  aliases: { total: number; missing: string[]; unresolved: string[]; resolvable: number; resolved: number };
  macros: { total: number; missing: string[] };
}

function quietDiag(): Diagnostics {
  return new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
}

function library(diag: Diagnostics): TapsetLibrary {
  return new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag });
}

function typesMatch(ref: string, ours: string): boolean {
  return ref === 'unknown' || ref === ours;
}

export function coverage(ref: Reference = readReference()): Coverage {
  installKernelProbes();
  const diag = quietDiag();
  const lib = library(diag);
  // functions: tapsim's declarations, typed as --dump-functions types them
  const ours = new Map<string, RefFunction[]>();
  for (const line of dumpFunctions(lib, [], { guru: false, library: lib }, diag, 1).split('\n')) {
    const f = parseSignature(line);
    if (!f) continue;
    let l = ours.get(f.name);
    if (!l) ours.set(f.name, (l = []));
    l.push(f);
  }
  const fnMissing = ref.functions.filter((r) => !(ours.get(r.name) ?? []).some((o) => o.params.length === r.params.length
    && typesMatch(r.type, o.type) && r.params.every((p, i) => typesMatch(p.type, o.params[i].type)))).map((r) => r.text);
  // aliases: declared names, and -l of those stap resolves on Debian 6.1
  const declared = new Set(dumpProbeAliases(lib, [], 0).split('\n').map((l) => l.split(' = ')[0]));
  const alMissing = ref.aliases.filter((a) => !declared.has(a.name)).map((a) => a.name);
  const wanted = ref.aliases.filter((a) => a.flag === 'R' && declared.has(a.name)).map((a) => a.name);
  const resolved = new Set<string>();
  const chunk = 400;
  for (let i = 0; i < wanted.length; i += chunk) {
    const names = wanted.slice(i, i + chunk);
    const d = quietDiag();
    const f = parseFile({ name: '<input>', text: `probe ${names.map((n) => `${n} ?`).join(', ')} {}`, isTapset: false }, { args: [], guru: false } as never, d);
    if (!f) continue;
    // (-l shows the `?` the batch was written with)
    for (const line of listProbes([f], { guru: false, library: library(d) }, d, false)) resolved.add(line.replace(/\?$/, ''));
  }
  const unresolved = wanted.filter((n) => !resolved.has(n));
  // macros
  const macros = lib.macros() as Map<string, { params: string[] }>;
  const maMissing = ref.macros.filter((m) => macros.get(m.name)?.params.length !== m.arity).map((m) => m.name);
  return {
    functions: { total: ref.functions.length, missing: fnMissing },
    aliases: { total: ref.aliases.length, missing: alMissing, unresolved, resolvable: ref.aliases.filter((a) => a.flag === 'R').length, resolved: resolved.size },
    macros: { total: ref.macros.length, missing: maMissing },
  };
}

export function percent(total: number, missing: number): string {
  return `${total - missing}/${total} (${(100 * (total - missing) / total).toFixed(1)}%)`;
}

if (require.main === module) {
  const c = coverage();
  const show = process.argv.includes('--missing');
  process.stdout.write(`functions ${percent(c.functions.total, c.functions.missing.length)}\n`);
  if (show) for (const n of c.functions.missing) process.stdout.write(`  ${n}\n`);
  process.stdout.write(`aliases ${percent(c.aliases.total, c.aliases.missing.length)}; of those stap resolves on Debian 6.1, -l resolves ${percent(c.aliases.resolvable, c.aliases.resolvable - c.aliases.resolved)}\n`);
  if (show) for (const n of c.aliases.missing) process.stdout.write(`  missing ${n}\n`);
  if (show) for (const n of c.aliases.unresolved) process.stdout.write(`  unresolved ${n}\n`);
  process.stdout.write(`macros ${percent(c.macros.total, c.macros.missing.length)}\n`);
  if (show) for (const n of c.macros.missing) process.stdout.write(`  ${n}\n`);
}
