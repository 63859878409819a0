/**
 * Pass-2 printing: the `-p2` listing (`# globals`, `# functions`, `# probes`), and the listing
 * modes `-l`/`-L`, `--dump-probe-types`, `--dump-probe-aliases`, `--dump-functions`.
 */
import type * as A from '../ast';
import { chainOperands, chainText } from '../parse/chains';
import { Diagnostics } from '../diag';
import { ProbeRegistry, defaultRegistry } from './probes';
import { setConditionPrinter, aliasChainText, Deriver, Expansion, eachPoint, writtenMark } from './aliases';
import { Session, ElabOptions } from './session';
import { Resolver } from './symbols';
import { TypeResolver } from './types';
import { quoteString, renderPoint, cmpBytes, walkStmt } from './util';
import type { TapsetLibrary } from './tapsets';
import { programInfo } from './program_info';

// ---------------------------------------------------------------------------------------------
// Expressions as stap's -p1/-p2 printer writes them (binary operands parenthesised)

/**
 * `mangleGlobals`: print globals as `__global_NAME` (as -p2 does), by their declaration, or for
 * an unresolved tree (the user's probe point as written) by the names in the set.
 */
export function exprText(e: A.Expr, mangleGlobals: boolean | Set<string> = false): string {
  const p = (x: A.Expr): string => `(${exprText(x, mangleGlobals)})`;
  switch (e.k) {
    case 'num': return String(e.value);
    case 'str': return quoteString(e.value);
    case 'sym': {
      const global = e.ref ? e.ref.kind === 'global' : mangleGlobals instanceof Set && mangleGlobals.has(e.name);
      return mangleGlobals && global ? `__global_${e.name}` : e.name;
    }
    case 'binary': case 'logical': case 'concat': {
      const chain = chainOperands(e);
      if (chain) return chainText(e, chain, (x) => exprText(x, mangleGlobals));
      return `${p(e.left)} ${e.k === 'concat' ? '.' : e.op} ${p(e.right)}`;
    }
    case 'compare': return `${p(e.left)} ${e.op} ${p(e.right)}`;
    case 'regex': return `${p(e.left)} ${e.op} ${p(e.right)}`;
    case 'unary': return `${e.op}${p(e.operand)}`;
    case 'incdec': return e.prefix ? `${e.op}${p(e.operand)}` : `${p(e.operand)}${e.op}`;
    case 'ternary': return `${p(e.cond)} ? ${p(e.then)} : ${p(e.else)}`;
    case 'assign': return `${p(e.target)} ${e.op} ${p(e.value)}`;
    case 'index': return `${exprText(e.base, mangleGlobals)}[${e.indexes.map((i) => (i ? exprText(i, mangleGlobals) : '*')).join(', ')}]`;
    case 'call': return `${e.name}(${e.args.map((a) => exprText(a, mangleGlobals)).join(', ')})`;
    case 'in': return `[${e.keys.map((k) => (k ? exprText(k, mangleGlobals) : '*')).join(', ')}] in ${exprText(e.array, mangleGlobals)}`;
    case 'statop': return `@${e.op}(${exprText(e.operand, mangleGlobals)})`;
    case 'hist': return e.kind === 'log' ? `@hist_log(${exprText(e.operand, mangleGlobals)})`
      : `@hist_linear(${exprText(e.operand, mangleGlobals)}, ${e.params.join(', ')})`;
    case 'print': {
      const args = e.args.map((a) => exprText(a, mangleGlobals));
      if (e.format !== undefined) args.unshift(quoteString(e.format));
      if (e.delim !== undefined) args.unshift(quoteString(e.delim));
      return `${e.name}(${args.join(', ')})`;
    }
    case 'target': return e.name;
    case 'entry': return `@entry(${exprText(e.operand, mangleGlobals)})`;
    case 'defined': return `@defined(${exprText(e.operand, mangleGlobals)})`;
    default: return e.tok.text;
  }
}

setConditionPrinter((e) => exprText(e));

// ---------------------------------------------------------------------------------------------
// -p2

function typeName(t: A.Type | undefined): string {
  return t ?? 'unknown';
}

function globalLine(g: A.VarDecl): string {
  let s = g.name;
  if (g.wrap) s += '%';
  if (g.maxSize !== undefined) s += `[${g.maxSize}]`;
  s += `:${typeName(g.type)}`;
  if ((g.arity ?? 0) > 0) s += ` [${(g.indexTypes ?? []).map(typeName).join(', ')}]`;
  return s;
}

/**
 * stap 4.8's optimiser caches each call of a `/* stable *\/` function without arguments (pp(),
 * execname(), uid(), ...) in a local of the probe or function that calls it: the listing shows
 * `__stable_<mangled name>_value` after the body's own locals, in order of first call.
 */
function stableLocals(body: A.Stmt | { k: 'embedded' }): A.VarDecl[] {
  if (body.k === 'embedded') return [];
  const out = new Map<string, A.VarDecl>();
  walkStmt(body, (e) => {
    if (e.k !== 'call' || e.args.length || !e.ref?.pragmas?.includes('stable')) return;
    const name = `__stable___global_${e.name}__overload_0_value`;
    if (!out.has(name)) out.set(name, { name, type: e.type ?? e.ref.type, tok: e.tok, kind: 'local' });
  });
  return [...out.values()];
}

function localsBlock(locals: A.VarDecl[]): string {
  if (!locals.length) return '';
  return '  # locals\n' + locals.map((l) => `  ${l.name}:${typeName(l.type)}\n`).join('');
}

/** The `-p2` text for an elaborated program. */
export function printProgram(prog: A.Program, opts: { globalDisplay?: boolean } = {}): string {
  const info = programInfo.get(prog);
  let out = '';
  if (prog.embeds.length) {
    out += '# global embedded code\n';
    for (const e of prog.embeds) out += `%{${e.code}%}\n`;
  }
  if (prog.globals.length) {
    out += '# globals\n';
    for (const g of prog.globals) out += globalLine(g) + '\n';
  }
  if (prog.functions.length) {
    out += '# functions\n';
    // (in stap's order of their mangled names, NAME__overload_N: a tapset's overloads, parsed
    // first, before a script's of the same name)
    // (a private function's mangled name, __private_FILE_NAME, sorts after the others' __global_NAME:
    // real-stap -p2 lists indent's private _generic_indent after indent)
    const rank = (f: A.FunctionDecl): number => (f.file?.isTapset ? 0 : 1);
    const priv = (f: A.FunctionDecl): number => (f.isPrivate ? 1 : 0);
    const fns = [...prog.functions].sort((a, b) => priv(a) - priv(b) || cmpBytes(a.name, b.name) || rank(a) - rank(b));
    for (const f of fns) {
      out += `${f.name}:${typeName(f.type)} (${(f.paramDecls ?? []).map((p) => `${p.name}:${typeName(p.type)}`).join(', ')})\n`;
      out += localsBlock([...(f.locals ?? []), ...(info?.optimized ? stableLocals(f.body) : [])]);
    }
  }
  const extra: string[] = [];
  if (info?.hasConditions) extra.push('begin /* <- begin */\n');
  if (info && info.displayGlobals.length && opts.globalDisplay !== false) {
    // stap's global-var display: one end probe per global, in the globals' order (arrays with
    // their loop locals)
    for (const g of info.displayGlobals) {
      if ((g.arity ?? 0) === 0) {
        extra.push('end /* <- end */\n');
        continue;
      }
      const locals: A.VarDecl[] = (g.indexTypes ?? []).map((t, i) => ({ name: `__idx${i}`, type: t, tok: g.tok, kind: 'local' as const }));
      if (g.type !== 'stats') locals.push({ name: '__val', type: g.type, tok: g.tok, kind: 'local' });
      extra.push('end /* <- end */\n' + localsBlock(locals));
    }
  }
  if (prog.probes.length || extra.length) {
    out += '# probes\n';
    const globalNames = new Set(prog.globals.map((g) => g.name));
    for (const p of prog.probes) {
      let pp = p.point.pp + (p.mark ?? '');
      if (p.condition) pp += ` if (${exprText(p.condition, true)})`;
      // a family may name its own origin (perf: the alias-expanded point as written, as stap 4.8
      // prints perf derived probes)
      // (the user's points as stap prints them once resolved: a condition's globals mangled)
      const userEntry = p.decl.points.map((pt) => renderPoint(pt) + (pt.condition ? ` if (${exprText(pt.condition, globalNames)})` : '')).join(',');
      // (not through an alias: `a if (g > 1)` stays as written)
      const chain = p.chain.length === 1 && p.decl.points.some((pt) => pt.condition) ? [userEntry] : p.chain;
      const origin = p.point.data && typeof p.point.data.dumpOrigin === 'string' ? p.point.data.dumpOrigin : chain.join(' <- ');
      out += `${pp} /* <- ${origin} */\n`;
      out += localsBlock([...p.locals, ...(info?.optimized ? stableLocals(p.body) : [])]);
    }
    out += extra.join('');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// --dump-probe-types

export function dumpProbeTypes(registry: ProbeRegistry = defaultRegistry()): string {
  return [...new Set(registry.patterns)].sort(cmpBytes).map((p) => p + '\n').join('');
}

// ---------------------------------------------------------------------------------------------
// --dump-probe-aliases

export function dumpProbeAliases(library: TapsetLibrary | null, userFiles: A.StapFile[], verbose = 0): string {
  const lines = new Set<string>();
  const add = (f: A.StapFile): void => {
    for (const a of f.aliases) {
      a.names.forEach((n, i) => {
        const name = n.components.map((c) => c.name).join('.');
        if (name.startsWith('_') && verbose < 1) return;
        lines.add(aliasChainText({ decl: a, nameIndex: i }));
      });
    }
  };
  for (const f of userFiles) add(f);
  if (library) for (const p of library.allFiles()) {
    const f = library.load(p);
    if (f) add(f);
  }
  return [...lines].sort(cmpBytes).map((l) => l + '\n').join('');
}

// ---------------------------------------------------------------------------------------------
// --dump-functions

export function dumpFunctions(library: TapsetLibrary | null, userFiles: A.StapFile[], opts: ElabOptions, diag: Diagnostics, verbose = 0): string {
  const quiet = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => {});
  const s = new Session({ ...opts, registry: opts.registry ?? defaultRegistry(), library }, quiet);
  for (const f of userFiles) s.include(f);
  if (library) for (const p of library.allFiles()) s.includePath(p);
  void diag;
  const r = new Resolver(s);
  const fns = s.allFunctions;
  resolveAll(r, fns);
  const tr = new TypeResolver(quiet);
  tr.run(fns.filter((f) => f.paramDecls), [], []);
  const lines: string[] = [];
  for (const f of fns) {
    if (f.name.startsWith('_') && verbose < 1) continue;
    let line = `${f.name}:${typeName(f.type)} (${(f.paramDecls ?? f.params).map((p) => `${p.name}:${typeName((p as A.VarDecl).type ?? p.declaredType)}`).join(', ')})`;
    const tags = (f.pragmas ?? []).filter((t) => t === 'unprivileged' || t === 'myproc-unprivileged' || t === 'guru');
    for (const t of tags) line += ` /* ${t} */`;
    lines.push(line);
  }
  return [...new Set(lines)].sort(cmpBytes).map((l) => l + '\n').join('');
}

function resolveAll(r: Resolver, fns: A.FunctionDecl[]): void {
  for (const f of fns) r.use(f);
  r.resolvePendingFunctions();
}

// ---------------------------------------------------------------------------------------------
// -l / -L

/**
 * Expand one probe point (the parsed `probe PP {}` of `stap -l PP`) and list the script-level
 * points, sorted and unique.  `withVars` adds the -L variable list where the family provides one.
 */
/** Pass 2 as a function (index.ts's elaborate; passed in so that this module does not import index.ts). */
export type ElaborateFn = (files: A.StapFile[], opts: ElabOptions, diag: Diagnostics) => A.Program | null;

export function listProbes(files: A.StapFile[], opts: ElabOptions, diag: Diagnostics, withVars: boolean, elaborate: ElaborateFn): string[] {
  const s = new Session({ ...opts, registry: opts.registry ?? defaultRegistry(), listing: true }, diag);
  for (const f of files) s.include(f);
  const roots = { [Symbol.iterator]: () => s.aliasRootNames()[Symbol.iterator]() };
  const d = new Deriver(s.tree, diag, {
    ensureAliases: (r) => s.ensureAliases(r), guru: opts.guru, suggestionRoots: roots, target: opts.target, failsSilently: (a) => s.failsSilently(a), knownExpansion: (e, c) => s.knownExpansion(e, c),
    similarNames: (k, n) => s.similarProbeNames(k, n),
  });
  const pending: { x: Expansion; line: string }[] = [];
  for (const f of files) for (const p of f.probes) {
    const exps: Expansion[] = [];
    d.derive(p.points, p.body, false, false, exps);
    // (the script-level point with the mark the user wrote: `-l 'be*?'` lists `begin?`)
    for (const x of eachPoint(exps)) pending.push({ x, line: x.pn + (x.loc ? writtenMark(x.loc) : '') });
  }
  // -L on aliases: the alias's variables (locals its prologue/epilogue set), typed by a full
  // (unoptimised) elaboration of the same probes, in order of first assignment
  const aliasVars = withVars && pending.some((e) => e.x.chain.length > 0) ? aliasVariables(files, opts, elaborate) : null;
  // one line per name: stap prints a point once, with the variables every probe it derived has
  // (4.8's -L nfsd.proc.read: nfsd.proc4.read's and nfsd.proc3.read's common ones, in the first's order)
  const byName = new Map<string, string[][]>();
  const addVars = (pn: string, vars: string[]): void => {
    const seen = byName.get(pn);
    if (seen) seen.push(vars);
    else byName.set(pn, [vars]);
  };
  for (const { x, line: pn } of pending) {
    const vars: string[] = [];
    if (withVars) {
      const av = x.chain.length > 0 ? aliasVars?.get(`${x.pn}\0${x.rp.pp}`) : undefined;
      if (av) vars.push(...av.locals);
      const prov = s.providerFor(x.rp.family);
      const ctx = (prov?.vars?.(x.rp) ?? []).map((v) => `${v.name}:${v.type}`);
      vars.push(...ctx);
      if (av?.entry) {
        // a .return reading @entry values: stap adds an entry probe that saves them by thread
        // (_entry_tvar_tid), listed under the same name with the entry's context variables
        const entryProbe = [ENTRY_TID, ...ctx.filter((v) => !v.startsWith('$return:'))];
        vars.unshift(ENTRY_TID);
        addVars(pn, entryProbe);
      }
    }
    addVars(pn, vars);
  }
  const out: string[] = [];
  for (const [pn, all] of byName) {
    const common = all[0].filter((v) => all.every((vs) => vs.includes(v)));
    out.push(common.length ? `${pn} ${common.join(' ')}` : pn);
  }
  return out.sort(cmpBytes);
}

const ENTRY_TID = '_entry_tvar_tid:long';

/**
 * `name:type` of the locals of each derived probe (key: pn NUL pp), and whether it reads @entry
 * values; null when elaboration fails.
 */
function aliasVariables(files: A.StapFile[], opts: ElabOptions, elaborate: ElaborateFn): Map<string, { locals: string[]; entry: boolean }> | null {
  const quiet = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => {});
  let prog: A.Program | null = null;
  try {
    prog = elaborate(files, { ...opts, listing: true }, quiet);
  } catch {
    prog = null;
  }
  if (!prog) return null;
  const m = new Map<string, { locals: string[]; entry: boolean }>();
  for (const dp of prog.probes) {
    const key = `${dp.pn}\0${dp.point.pp}`;
    if (m.has(key)) continue;
    let entry = false;
    walkStmt(dp.body, (e) => { if (e.k === 'entry') entry = true; });
    m.set(key, {
      locals: dp.locals.filter((l) => l.type === 'long' || l.type === 'string' || !l.type || l.type === 'unknown').map((l) => `${l.name}:${l.type ?? 'unknown'}`),
      entry,
    });
  }
  return m;
}

export { renderPoint };
