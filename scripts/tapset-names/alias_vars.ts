/**
 * The variables of tapsim's probe aliases against SystemTap 4.8's
 * (data/tapset-names/stap-4.8-alias-vars.txt, written by alias_vars.py): for each public alias of
 * the list that the library declares, the public variables its prologue assigns (with those of
 * the aliases its points name, as the list counts them) must be the list's.
 *
 *   node dist/scripts/tapset-names/alias_vars.js [FILE]
 *
 * prints the figures and the differences (FILE: another list, e.g. alias_vars.py --syscalls);
 * test/elaborate/alias_vars.test.ts checks them.
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { walkStmt, renderComponents } from '../../src/elaborate/util';

export function aliasVarsPath(): string {
  return path.join(__dirname, '..', '..', '..', 'data', 'tapset-names', 'stap-4.8-alias-vars.txt');
}

export function readAliasVars(file = aliasVarsPath()): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [name, ...vars] = line.split(' ');
    m.set(name, vars);
  }
  return m;
}

function globRe(p: string): RegExp {
  return new RegExp('^' + p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^.]*') + '$');
}

/** The variables each alias of the library assigns (`=`), with those of the aliases it names. */
export function ourAliasVars(): Map<string, string[]> {
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
  const lib = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag });
  const own = new Map<string, Set<string>>();
  const points = new Map<string, string[]>();
  for (const p of lib.allFiles()) {
    const f = lib.load(p);
    if (!f) continue;
    for (const a of f.aliases) {
      const vars = new Set<string>();
      for (const b of [a.prologue, a.epilogue]) {
        if (b) walkStmt(b, (e: A.Expr) => {
          if (e.k === 'assign' && e.op === '=' && e.target.k === 'sym') vars.add(e.target.name);
        });
      }
      for (const n of a.names) {
        const name = renderComponents(n.components);
        let s = own.get(name);
        if (!s) own.set(name, (s = new Set()));
        vars.forEach((v) => s!.add(v));
        const ps = points.get(name) ?? [];
        ps.push(...a.points.map((pt) => renderComponents(pt.components)));
        points.set(name, ps);
      }
    }
  }
  const memo = new Map<string, Set<string>>();
  const full = (name: string, seen: string[]): Set<string> => {
    const done = memo.get(name);
    if (done) return done;
    const vs = new Set(own.get(name));
    for (const p of points.get(name) ?? []) {
      const re = p.includes('*') ? globRe(p) : null;
      for (const a of own.keys()) {
        if (a !== name && !seen.includes(a) && (a === p || (re && re.test(a)))) full(a, [...seen, name]).forEach((v) => vs.add(v));
      }
    }
    memo.set(name, vs);
    return vs;
  };
  const out = new Map<string, string[]>();
  for (const name of own.keys()) out.set(name, [...full(name, [])].filter((v) => !v.startsWith('_')).sort());
  return out;
}

export interface VarDiff { alias: string; missing: string[]; extra: string[] }

/** The aliases of the list the library declares whose variables differ. */
export function compareAliasVars(ref = readAliasVars(), ours = ourAliasVars()): { compared: number; diffs: VarDiff[] } {
  const diffs: VarDiff[] = [];
  let compared = 0;
  for (const [alias, want] of ref) {
    const have = ours.get(alias);
    if (!have) continue;
    compared++;
    const missing = want.filter((v) => !have.includes(v));
    const extra = have.filter((v) => !want.includes(v));
    if (missing.length || extra.length) diffs.push({ alias, missing, extra });
  }
  return { compared, diffs };
}

if (require.main === module) {
  const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
  const { compared, diffs } = compareAliasVars(readAliasVars(file));
  process.stdout.write(`${compared - diffs.length}/${compared} aliases define stap 4.8's variables\n`);
  for (const d of diffs) process.stdout.write(`${d.alias}: missing ${d.missing.join(' ') || '-'}; extra ${d.extra.join(' ') || '-'}\n`);
}
