/**
 * Limits fixed at translation, as stap fixes them when it compiles the module: MAXACTION,
 * MAXNESTING, MAXSTRINGLEN, MAXMAPENTRIES ... from `-D NAME=VALUE` (spec §9.2).
 *
 * stap pastes a `-D` value into the module's C source, so a value that is not a C integer
 * constant (`-D MAXACTION=abc`) fails to compile: pass 4 fails.  limitDefineErrors() finds
 * those among the limits tapsim reads; the CLI reports them at pass 4.
 */
import type * as A from '../ast';
import type { Limits } from './meta';
import { walk } from './walk';
import { longestChain } from '../elaborate/callgraph';

/** The `-D` names read as numbers (limits of the generated module and of the runtime). */
export const NUMERIC_DEFINES = ['MAXACTION', 'MAXACTION_INTERRUPTIBLE', 'INTERRUPTIBLE', 'MAXNESTING', 'MAXSTRINGLEN',
  'MAXMAPENTRIES', 'MAXERRORS', 'MAXSKIPPED', 'HIST_ELISION'];

/** The value of a C integer constant (`100`, `-1`, `0x1f`, `017`, `10UL`), or null. */
export function cInteger(text: string): bigint | null {
  const m = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?:[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?$/.exec(text);
  if (!m) return null;
  const digits = m[2];
  const v = /^0[0-7]+$/.test(digits) ? BigInt('0o' + digits.slice(1)) : BigInt(digits);
  return m[1] ? -v : v;
}

/** `-D` definitions of limits whose value is not a C integer constant, as `NAME=VALUE`. */
export function limitDefineErrors(defines: Map<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const name of NUMERIC_DEFINES) {
    const v = defines?.get(name);
    if (v !== undefined && v !== '' && cInteger(v) === null) out.push(`${name}=${v}`);
  }
  return out;
}

function defineNum(defines: Map<string, string> | undefined, name: string): number | undefined {
  if (!defines || !defines.has(name)) return undefined;
  const v = defines.get(name) ?? '';
  if (v === '') return 1;
  const n = cInteger(v);
  if (n === null) return undefined;
  // (a C int: values past int64 would not compile; clamp instead of wrapping)
  return Number(n > 2n ** 63n - 1n ? 2n ** 63n - 1n : n < -(2n ** 63n) ? -(2n ** 63n) : n);
}

export function computeLimits(program: A.Program, defines?: Map<string, string>): Limits {
  const maxActionBase = defineNum(defines, 'MAXACTION') ?? 1000;
  const interruptible = defineNum(defines, 'INTERRUPTIBLE') ?? 1;
  const maxActionInt = defineNum(defines, 'MAXACTION_INTERRUPTIBLE') ?? maxActionBase * 10;
  return {
    maxAction: interruptible ? maxActionInt : maxActionBase,
    maxNesting: defineNum(defines, 'MAXNESTING') ?? defaultMaxNesting(program),
    maxStringLen: Math.max(2, defineNum(defines, 'MAXSTRINGLEN') ?? 512),
    maxMapEntries: defineNum(defines, 'MAXMAPENTRIES') ?? 2048,
    maxErrors: defineNum(defines, 'MAXERRORS') ?? 0,
    maxSkipped: defineNum(defines, 'MAXSKIPPED') ?? 100,
    histElision: defineNum(defines, 'HIST_ELISION') ?? 2,
  };
}

/** Deepest static call depth + 1, plus 10 if any recursion (spec §9.2). */
export function defaultMaxNesting(program: A.Program): number {
  const callees = new Map<A.FunctionDecl, Set<A.FunctionDecl>>();
  const collect = (root: A.Stmt | A.Expr, into: Set<A.FunctionDecl>) => {
    walk(root, (e) => {
      if (e.k === 'call' && e.ref) {
        for (let f: A.FunctionDecl | undefined = e.ref; f; f = f.nextOverload) into.add(f);
      }
    });
  };
  const fnsOf = (f: A.FunctionDecl): Set<A.FunctionDecl> => {
    let s = callees.get(f);
    if (!s) {
      s = new Set();
      callees.set(f, s);
      if (f.body.k === 'block') collect(f.body, s);
    }
    return s;
  };
  // the call graph may be deeper than the JavaScript stack: walked without recursion
  const memo = new Map<A.FunctionDecl, number>();
  let recursive = false;
  let deepest = 0;
  const seen = new Set<A.Stmt>();
  for (const p of program.probes) {
    // (a body a wildcard's probes share is walked once)
    if (seen.has(p.body) && !p.condition) continue;
    seen.add(p.body);
    const s = new Set<A.FunctionDecl>();
    collect(p.body, s);
    if (p.condition) collect(p.condition, s);
    const r = longestChain(s, fnsOf, memo);
    deepest = Math.max(deepest, r.depth);
    recursive ||= r.recursive;
  }
  return deepest + 1 + (recursive ? 10 : 0);
}
