/**
 * Pass 2: elaboration.  `elaborate(files, opts, diag)` takes the parsed user files and returns the
 * resolved, typed Program (or null after reporting errors), following stap's semantic_pass:
 * derive probes (aliases, families) -> resolve symbols (pulling tapsets in on demand) -> checks ->
 * optimise (unless -u) -> infer types -> final checks.
 */
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { Session, ElabOptions } from './session';
import { Resolver, Scope, FATAL_SITE } from './symbols';
import { Deriver, Expansion, pointWithCondition } from './aliases';
import { defaultRegistry, ProbeRegistry } from './probes';
import { reduceVoidStatements } from './void_reduce';
import { checkTargetWrites } from './target_writes';
import { Optimizer, liveBodies, OptUnit, collectUse, VarUse, unresolvedTargets, caughtOnly, replaceNode } from './optimize';
import { TypeResolver, TypedUnit } from './types';
import { walkStmt, walkExpr, renderComponents, exprChildren, stmtChildren, cmpBytes, containsNext } from './util';
import { preorder } from './callgraph';
import { checkPrivilege } from './privilege';
import { programInfo } from './program_info';

export type { ElabOptions } from './session';
export { TapsetLibrary, stdlibDir, builtCacheDir } from './tapsets';
export { defaultRegistry, ProbeRegistry, addProviderSetup } from './probes';
export type { Provider, ProbeBuilder, BuildRequest } from './probes';
export { printProgram, dumpProbeTypes, dumpProbeAliases, dumpFunctions } from './dump';
import { listProbes as listDerived } from './dump';

/** Extra facts about a derived probe the AST has no field for. */
export interface ProbeInfo {
  /** Token stap names in `Probe '...' has been elided` (the user's alias point, or the `probe` keyword). */
  elisionTok: A.Token;
}
export const probeInfo = new WeakMap<A.DerivedProbe, ProbeInfo>();

export { programInfo } from './program_info';

/**
 * The name stap gives a derived probe in `Probe '...' has been elided`: the first component's functor
 * of its point (real-stap -p2: `timer.s(1)` -> 'timer', `procfs("x").read` -> 'procfs', `begin(1)` ->
 * 'begin'), so equal names are one message and the rest count as similar warnings suppressed.
 */
function functorOf(pp: string): string {
  const m = /^[^.(]+/.exec(pp);
  return m ? m[0] : pp;
}

/** -l / -L: the probe points (and with `withVars` their variables) the scripts' probes derive. */
export function listProbes(files: A.StapFile[], opts: ElabOptions, diag: Diagnostics, withVars: boolean): string[] {
  return listDerived(files, opts, diag, withVars, elaborate);
}

export function elaborate(files: A.StapFile[], opts: ElabOptions, diag: Diagnostics): A.Program | null {
  try {
    return elaborateInner(files, opts, diag);
  } catch (e) {
    if (e instanceof SemanticError) {
      diag.semanticError(e);
      if (e.site === FATAL_SITE) diag.fatal = e.message;
      return null;
    }
    throw e;
  }
}

interface Pending {
  exp: Expansion;
  decl: A.ProbeDecl;
  scope: Scope;
  dp: A.DerivedProbe;
  /** The optimiser iteration at which a probe left unmade is elided (Expansion.elided). */
  elidesAt?: number;
}

function elaborateInner(files: A.StapFile[], opts: ElabOptions, diag: Diagnostics): A.Program | null {
  const registry: ProbeRegistry = opts.registry ?? defaultRegistry();
  const s = new Session({ ...opts, registry }, diag);
  const errors0 = diag.errorCount;
  const userFiles = new Set(files.map((f) => f.file));
  for (const f of files) s.include(f);

  // ---- derive probes and resolve symbols
  const resolver = new Resolver(s);
  const roots = { [Symbol.iterator]: () => s.aliasRootNames()[Symbol.iterator]() };
  const deriver = new Deriver(s.tree, diag, {
    ensureAliases: (r) => s.ensureAliases(r), guru: opts.guru, suggestionRoots: roots, target: opts.target, privilege: opts.privilege,
    listing: opts.listing, failsSilently: (d) => s.failsSilently(d), knownExpansion: (e, c) => s.knownExpansion(e, c),
    similarNames: (k, n) => s.similarProbeNames(k, n),
  });
  const derived: Pending[] = [];
  while (s.pendingProbes.length) {
    while (s.pendingProbes.length) {
      const pd = s.pendingProbes.shift()!;
      const exps: Expansion[] = [];
      deriver.derive(pd.points, pd.body, false, false, exps);
      const userEntry = pd.points.map(pointWithCondition).join(',');
      for (const x of exps) {
        x.chain.push(userEntry);
        const locals: A.VarDecl[] = [];
        const provider = s.providerFor(x.rp.family);
        const scope: Scope = { file: pd.file, locals, localMap: new Map(), point: x.rp, provider, pn: x.pn };
        const dp: A.DerivedProbe = {
          index: -1, point: x.rp, pn: x.pn, chain: x.chain, mark: x.mark, body: x.body, locals,
          condition: x.condition, tok: pd.tok, decl: pd,
        };
        probeInfo.set(dp, { elisionTok: x.chain.length > 1 && x.loc ? x.loc.components[0].tok : pd.tok });
        // (a probe the build found elided: its body's look-ups replayed, the body unmade: alias_expansions.ts)
        const el = x.elided;
        if (el && resolver.replayLookups(el.lookups, scope)) {
          derived.push({ exp: x, decl: pd, scope, dp, elidesAt: el.at });
          continue;
        }
        if (el) {
          x.body = dp.body = el.make();
          x.elided = undefined;
        }
        // (a body a wildcard's points share speaks for all of them: Diagnostics.copies)
        diag.asCopies(1 + (x.more?.length ?? 0), () => {
          resolver.resolveProbe(x.body, scope, x.condition);
          // (after `if (@defined($x))` has dropped its dead branch)
          if (opts.skipBadvars) skipBadvars(x.body, scope, diag);
        });
        derived.push({ exp: x, decl: pd, scope, dp });
      }
    }
    resolver.resolvePendingFunctions();
  }
  if (diag.errorCount > errors0) return null;

  // -W: stap checks its error count (warnings included) after each step of pass 2 and stops
  // at the first step that warned, before the next one reports anything
  const warnings0 = diag.warningCount;
  const stopForWarnings = (): boolean => !!diag.opts.warningsAreErrors && diag.warningCount > warnings0;

  // ---- checks that need resolved symbols
  if (!opts.guru && !opts.listing && checkTargetWrites(derived.map((d) => counted(d.dp.body, d.exp)), (b) => reachableFunctions(b), diag)) return null;
  checkStats(derived.map((d) => counted(d.dp.body, d.exp)), resolver.usedFunctions, diag);
  if (diag.errorCount > errors0 || stopForWarnings()) return null;

  // ---- optimise
  const liveGlobals = new Set<A.VarDecl>(s.allGlobals);
  /** -u: the functions typed (those calls reached before the void-statement reduction). */
  let typedFunctions: A.FunctionDecl[] | undefined;
  const units: (OptUnit & { p: Pending })[] = derived.map((d) => ({
    body: d.dp.body, locals: d.dp.locals, condition: d.dp.condition, name: functorOf(d.dp.point.pp), also: d.exp.more?.map((m) => functorOf(m.rp.pp)),
    tok: probeInfo.get(d.dp)!.elisionTok, isUser: userFiles.has(d.decl.file), p: d, elidesAt: d.elidesAt,
  }));
  // (every overload of a call's arity until type resolution is done: index.ts reachableFunctions)
  let allOverloads = true;
  const reachable = (): A.FunctionDecl[] => reachableFunctions(units.filter((u) => !u.elided).map((u) => u.body), allOverloads);
  if (!opts.unoptimized && !opts.listing) {
    for (const d of derived) markUnresolvedTargets(d.dp.body, d.scope);
    // (a function body has no probe context: its `$x` is unresolved, an expression the optimiser
    // may drop as a probe's: real-stap -p2 passes 'function f() { x = $nosuch; return 1 } probe
    // begin { println(f()) }', eliding the assignment)
    for (const f of reachable()) if (f.body.k !== 'embedded') markUnresolvedTargets(f.body, {});
    new Optimizer(diag, s.allGlobals, userFiles, resolver.definedReads).run(units, reachable, liveGlobals, stopForWarnings);
  } else if (opts.unoptimized && !opts.listing) {
    // (-u still reduces the statements whose value is unused, before the types: real-stap -u -p2
    // 'function f(x) { return x + 1 } probe begin { f("a") }' lists no function and no mismatch)
    const effects = new Optimizer(diag, s.allGlobals, userFiles).effects;
    const pure = (fn: A.FunctionDecl): boolean => !effects.functionHasEffects(fn);
    // (the functions no call reaches any more are still typed, their mismatches said, and go
    // before the types are asserted (fold, below): real-stap -u -p2 'global g function f(x) {
    // return g . "" } probe begin { f(1) }' lists g:string and no function; 'return zz' passes)
    typedFunctions = reachable();
    for (const b of liveBodies(units, typedFunctions)) reduceVoidStatements(b, pure);
  }
  let live = units.filter((u) => !u.elided);
  if (stopForWarnings()) return null;
  if (live.length === 0 && !opts.listing) {
    diag.semanticError(new SemanticError('no probes found', undefined, [], 'no-probes'));
    return null;
  }

  // ---- types
  let functions = typedFunctions ?? reachable();
  // (after the optimiser: code it elided modifies nothing; its warnings come first, as in stap)
  checkForeachModifications(live.map((u) => counted(u.body, u.p.exp)), functions, diag);
  if (diag.errorCount > errors0) return null;
  // valueRead: stap's display of globals written but never read counts `n++;` and `n += x;` as writes only
  const valueRead = new Set<A.VarDecl>();
  const use: VarUse = { read: new Set(), written: new Set(), valueRead };
  for (const u of live) {
    collectUse(u.body, use);
    if (u.condition) collectUse(u.condition, use);
  }
  for (const f of functions) if (f.body.k !== 'embedded') collectUse(f.body, use);
  let usedGlobals = stapGlobalOrder(
    s.allGlobals.filter((g) => liveGlobals.has(g) && (use.read.has(g) || use.written.has(g) || caughtOnly.has(g))),
    live, functions);
  for (const g of usedGlobals) {
    if (g.init && (g.type ?? 'unknown') === 'unknown') g.type = g.init.k === 'num' ? 'long' : 'string';
    if (g.type === undefined) g.type = 'unknown';
    if (g.arity === undefined) g.arity = -1;
  }
  const typeUnits: TypedUnit[] = live.map((u) => ({
    body: u.body, locals: u.locals, condition: u.condition, point: u.p.dp.point, provider: u.p.scope.provider,
    copies: 1 + (u.p.exp.more?.length ?? 0),
  }));
  const tr = new TypeResolver(diag, !!opts.guru);
  // (stap folds constants before it asserts the types: an unresolved name in dead code is no error)
  // (what only the dead code used goes with it: its locals and globals are not typed)
  // (under -u too, which keeps the locals and globals: real-stap -u -p2 'probe begin { if (0)
  // { println($nosuch) } }' passes)
  const fold = opts.listing ? undefined : (): boolean => {
    let changed = new Optimizer(diag, s.allGlobals, userFiles).foldConstants(liveBodies(live, functions));
    // (and the overloads no `next` reaches go, with what only they called: their mismatches were
    // seen, nothing unresolved in them is reported: real-stap -p2 passes 'global q function f() {
    // return 1 } function f() { q = r; return 1 } probe begin { println(f()) }', not under -u)
    if (!opts.unoptimized && allOverloads) {
      allOverloads = false;
      const kept = reachable();
      if (kept.length !== functions.length) {
        functions.splice(0, functions.length, ...kept);
        changed = true;
      }
    }
    if (opts.unoptimized) {
      // (-u keeps the locals and globals, but the functions only the dropped code called go,
      // typed: real-stap -u -p2 'probe begin { if (0 && randint(2)) println(1); println(2) }'
      // lists no randint)
      const kept = reachable();
      if (kept.length !== functions.length) {
        functions.splice(0, functions.length, ...kept);
        changed = true;
      }
      return changed;
    }
    if (!changed) return false;
    const still: VarUse = { read: new Set(), written: new Set() };
    for (const u of live) {
      collectUse(u.body, still);
      if (u.condition) collectUse(u.condition, still);
    }
    for (const f of functions) if (f.body.k !== 'embedded') collectUse(f.body, still);
    const used = (v: A.VarDecl): boolean => still.read.has(v) || still.written.has(v);
    const keep = (vs: A.VarDecl[], also = (_v: A.VarDecl): boolean => false): void => {
      const kept = vs.filter((v) => used(v) || also(v));
      vs.splice(0, vs.length, ...kept);
    };
    for (const u of live) keep(u.locals);
    for (const f of functions) if (f.locals) keep(f.locals);
    keep(usedGlobals, (g) => !!g.init || caughtOnly.has(g));
    return true;
  };
  // (-L lists what typed and the rest as unknown: stap 4.8's -L nfsd.proc3.read on 6.1 says
  // vlen:unknown for a member the kernel lacks; -L's own elaboration is quiet)
  if (!tr.run(functions, typeUnits, usedGlobals, fold) && !opts.listing) return null;
  if ((diag.errorCount > errors0 && !opts.listing) || stopForWarnings()) return null;
  // (what the bodies read and write now: for the globals' display)
  const recollect = (): void => {
    const use2: VarUse = { read: new Set(), written: new Set(), valueRead };
    valueRead.clear();
    for (const u of live) {
      collectUse(u.body, use2);
      if (u.condition) collectUse(u.condition, use2);
    }
    for (const f of functions) if (f.body.k !== 'embedded') collectUse(f.body, use2);
    use.read = use2.read;
    use.written = use2.written;
  };
  if (!opts.unoptimized && !opts.listing) {
    // stap's optimize2: constant folding and what it leaves unused; an overload after one without
    // `next` is never reached, and goes silently with what only it used (real-stap -vvv: 'Eliding
    // unused function', after the type errors of its body)
    allOverloads = false;
    new Optimizer(diag, s.allGlobals, userFiles).run(units, reachable, liveGlobals, stopForWarnings, true);
    if (stopForWarnings()) return null;
    live = units.filter((u) => !u.elided);
    if (live.length === 0) {
      diag.semanticError(new SemanticError('no probes found', undefined, [], 'no-probes'));
      return null;
    }
    functions = reachable();
    recollect();
    usedGlobals = usedGlobals.filter((g) => liveGlobals.has(g) && (use.read.has(g) || use.written.has(g)));
  } else if (opts.unoptimized) {
    // (-u keeps the globals, but what the constant folding dropped writes nothing: real-stap -u
    // -p2 'global a probe begin { if (0) a[1] = 1; println(1) }' lists a, with no end probe to
    // display it; 'if (0) println(a[1]); a[1] = 2' does display a): stap folds them before
    new Optimizer(diag, s.allGlobals, userFiles).foldConstants(liveBodies(live, functions));
    functions = reachable();
    recollect();
  }

  checkEmbeddedGlobals(live.map((u) => u.body), functions, s.allGlobals, diag);
  checkPrivilege(live.map((u) => u.body), functions, opts.privilege, diag);
  if (diag.errorCount > errors0 && !opts.listing) return null;

  // ---- fill the program
  for (const g of usedGlobals) {
    g.read = valueRead.has(g);
    g.written = use.written.has(g) || !!g.init;
    if ((g.arity ?? -1) < 0) g.arity = 0;
  }
  collectHistograms(live.map((u) => counted(u.body, u.p.exp)), functions, diag);
  if (diag.errorCount > errors0 && !opts.listing) return null;
  // (the points that share a body elaborated once: a probe each, in the order they resolved)
  const probes: A.DerivedProbe[] = [];
  for (const u of live) {
    const dp = u.p.dp;
    dp.index = probes.length;
    probes.push(dp);
    for (const m of u.p.exp.more ?? []) {
      const c: A.DerivedProbe = { ...dp, index: probes.length, point: m.rp, pn: m.pn };
      probeInfo.set(c, probeInfo.get(dp)!);
      probes.push(c);
    }
  }
  const embeds: A.EmbeddedCode[] = [];
  for (const f of s.files) embeds.push(...f.embeds);
  const prog: A.Program = {
    globals: usedGlobals,
    functions,
    probes,
    embeds,
    userFiles: files.map((f) => f.file),
    libraryFileCount: s.libraryFileCount,
  };
  // stap warns about unused command-line arguments once pass 2 is over (-W does not fail on it)
  unusedArgWarnings(s, opts, diag);
  programInfo.set(prog, {
    // (stap's begin probe that arms conditional probes: only for conditions on globals)
    hasConditions: probes.some((p) => p.condition && readsGlobal(p.condition)),
    displayGlobals: usedGlobals.filter((g) => g.written && !g.read && !g.synthetic && userFiles.has(g.file!)),
    optimized: !opts.unoptimized && !opts.listing,
  });
  return prog;
}

// ---------------------------------------------------------------------------------------------

/**
 * The order stap lists globals in (-p2) and displays them at the end of a run: the order its
 * symbol resolution meets them, walking the probes in order (each body, then its condition;
 * array indexes before the array) and then the functions by name (stap keeps them in a map).
 * Globals no walk reaches (-u) keep their declaration order at the end.
 */
function stapGlobalOrder(globals: A.VarDecl[], units: { body: A.Block; condition?: A.Expr }[], functions: A.FunctionDecl[]): A.VarDecl[] {
  const want = new Set(globals);
  const out: A.VarDecl[] = [];
  const fe = (e: A.Expr): void => {
    if (e.k === 'index') {
      for (const i of e.indexes) if (i) fe(i);
      fe(e.base);
      return;
    }
    if (e.k === 'sym' && e.ref && want.has(e.ref)) {
      want.delete(e.ref);
      out.push(e.ref);
    }
    exprChildren(e, fe);
  };
  const fs = (st: A.Stmt): void => stmtChildren(st, fe, fs);
  for (const u of units) {
    fs(u.body);
    if (u.condition) fe(u.condition);
  }
  const byName = [...functions].sort((a, b) => cmpBytes(a.name, b.name));
  for (const f of byName) if (f.body.k !== 'embedded') fs(f.body);
  for (const g of globals) if (want.has(g)) out.push(g);
  return out;
}

/** Embedded C names globals with `/* pragma:read:NAME *\/` (or write): aggregates are not available there. */
function checkEmbeddedGlobals(bodies: A.Block[], functions: A.FunctionDecl[], globals: A.VarDecl[], diag: Diagnostics): void {
  const reported = new Set<A.VarDecl>();
  const check = (code: string): void => {
    for (const m of code.matchAll(/\/\*\s*pragma:(?:read|write):(\w+)\s*\*\//g)) {
      const g = globals.find((x) => x.name === m[1]);
      if (g && g.type === 'stats' && !reported.has(g)) {
        reported.add(g);
        diag.semanticError(new SemanticError('Aggregates not available in embedded-C', g.tok, [], 'embedded-aggregate'));
      }
    }
  };
  for (const b of bodies) walkStmt(b, (e) => { if (e.k === 'embedded') check(e.code); });
  for (const f of functions) {
    if (f.body.k === 'embedded') check(f.body.code);
    else walkStmt(f.body, (e) => { if (e.k === 'embedded') check(e.code); });
  }
}

/**
 * --skip-badvars: a `$var` (with what follows it, `$p->f`) its point cannot resolve becomes the
 * literal 0, with stap's warning; not inside `@defined`, which asks, and not `@var`, which stays
 * an error (real-stap -p2).
 */
function skipBadvars(body: A.Block, scope: Scope, diag: Diagnostics): void {
  const p = scope.provider;
  const bad = (e: A.Expr): boolean => e.k === 'target' && !(p?.targetDefined && scope.point && p.targetDefined(scope.point, e));
  const visit = (e: A.Expr): void => {
    if (e.k === 'defined') return;
    if (bad(e)) {
      diag.warning('Bad $context variable being substituted with literal 0', e.tok);
      replaceNode(e, { k: 'num', value: 0, tok: e.tok });
      return;
    }
    const lost = e.k === 'assign' && bad(e.target) ? e.target : undefined;
    exprChildren(e, visit);
    // `$nosuch = 1` is then `0 = 1` (the resolver's check, made again)
    if (lost) diag.semanticError(new SemanticError('Expecting lvalue for assignment', e.tok, [new SemanticError('', lost.tok)], 'lvalue'));
  };
  const stmt = (st: A.Stmt): void => stmtChildren(st, visit, stmt);
  stmt(body);
}

/** Mark the `$var`s of a probe body that its point cannot resolve, every one of a function body (`{}`; see optimize.ts). */
export function markUnresolvedTargets(body: A.Block, scope: Pick<Scope, 'provider' | 'point'>): void {
  const p = scope.provider;
  walkStmt(body, (e) => {
    if (e.k === 'target' && !(p?.targetDefined && scope.point && p.targetDefined(scope.point, e))) unresolvedTargets.add(e);
  });
}

/**
 * Functions reachable from the bodies: their calls, with every overload of a call's arity
 * (`allOverloads`, as stap 4.8 has them until its optimiser drops the dead ones, and keeps under
 * -u: real-stap -u -p2 lists both `f:long ()` of 'function f() { return 1 } function f() { return
 * 2 } probe begin { println(f()) }'), else only the overloads a `next` goes on to.
 */
export function reachableFunctions(bodies: A.Stmt[], allOverloads = true): A.FunctionDecl[] {
  const order: A.FunctionDecl[] = [];
  const calls = (root: A.Stmt): A.FunctionDecl[] => {
    const out: A.FunctionDecl[] = [];
    walkStmt(root, (e) => {
      if (e.k === 'call' && e.ref) out.push(e.ref);
    });
    return out;
  };
  // what a function reaches: its calls in order, then the overload after it
  const succ = (f: A.FunctionDecl): A.FunctionDecl[] => {
    const out = f.body.k === 'embedded' ? [] : calls(f.body);
    if (f.nextOverload && (allOverloads || containsNext(f))) out.push(f.nextOverload);
    return out;
  };
  const seen = new Set<A.FunctionDecl>();
  for (const b of bodies) preorder(calls(b), succ, (f) => order.push(f), seen);
  return order;
}

function targetDecl(t: A.Expr): { decl?: A.VarDecl; tok: A.Token } {
  if (t.k === 'sym') return { decl: t.ref, tok: t.tok };
  if (t.k === 'index' && t.base.k === 'sym') return { decl: t.base.ref, tok: t.base.tok };
  return { tok: t.tok };
}

/** Globals a function writes, transitively (through the functions it calls). */
function functionWrites(f: A.FunctionDecl, memo: Map<A.FunctionDecl, Set<A.VarDecl>>): Set<A.VarDecl> {
  const m = memo.get(f);
  if (m) return m;
  const out = new Set<A.VarDecl>();
  const succ = (g: A.FunctionDecl): A.FunctionDecl[] => {
    const next: A.FunctionDecl[] = [];
    if (g.body.k === 'embedded') return next;
    walkStmt(g.body, (e) => {
      if (e.k === 'assign') { const d = targetDecl(e.target).decl; if (d?.kind === 'global') out.add(d); }
      if (e.k === 'incdec') { const d = targetDecl(e.operand).decl; if (d?.kind === 'global') out.add(d); }
      if (e.k === 'call' && e.ref) for (let h = e.ref as A.FunctionDecl | undefined; h; h = h.nextOverload) next.push(h);
    }, (st) => {
      if (st.k === 'delete') { const d = targetDecl(st.target).decl; if (d?.kind === 'global') out.add(d); }
    });
    return next;
  };
  preorder([f], succ, () => {});
  memo.set(f, out);
  return out;
}

function checkForeachModifications(bodies: Counted[], functions: A.FunctionDecl[], diag: Diagnostics): void {
  const memo = new Map<A.FunctionDecl, Set<A.VarDecl>>();
  const check = (root: A.Stmt): void => {
    walkStmt(root, () => {}, (st) => {
      if (st.k !== 'foreach' || st.array.k !== 'sym' || !st.array.ref) return;
      const arr = st.array.ref;
      const report = (msg: string, tok: A.Token, site: string): void => {
        diag.semanticError(new SemanticError(msg, tok, [], site));
      };
      walkStmt(st.body, (e) => {
        if (e.k === 'assign' || e.k === 'incdec') {
          const t = targetDecl(e.k === 'assign' ? e.target : e.operand);
          if (t.decl === arr) report(`variable '${arr.name}' modified during 'foreach' iteration`, t.tok, 'foreach-modify');
        }
        if (e.k === 'call' && e.ref) {
          for (let g = e.ref as A.FunctionDecl | undefined; g; g = g.nextOverload) {
            if (functionWrites(g, memo).has(arr)) {
              report(`function call modifies var '${arr.name}' during 'foreach' iteration`, e.tok, 'foreach-call-modify');
              break;
            }
          }
        }
      }, (s2) => {
        // (stap 4.8 lets `delete ARRAY` through; deleting an element is a modification)
        if (s2.k === 'delete' && s2.target.k === 'index') {
          const t = targetDecl(s2.target);
          if (t.decl === arr) report(`variable '${arr.name}' modified during 'foreach' iteration`, t.tok, 'foreach-modify');
        }
      });
    });
  };
  for (const b of withFunctions(bodies, functions)) diag.asCopies(b.copies, () => check(b.body));
}

/** `@variance` shift ranges and conflicts. */
function checkStats(bodies: Counted[], functions: A.FunctionDecl[], diag: Diagnostics): void {
  for (const b of withFunctions(bodies, functions)) {
    diag.asCopies(b.copies, () => walkStmt(b.body, (e) => {
      if (e.k === 'statop' && e.op === 'variance' && e.shift !== undefined && (e.shift < 0 || e.shift > 62)) {
        diag.semanticError(new SemanticError(`bit shift (${e.shift}) out of range <0..62>`, e.tok, [], 'variance-range'));
      }
    }));
  }
}

/** A probe body and the number of probes it is the body of (a wildcard's points share one). */
interface Counted {
  body: A.Block;
  copies: number;
}

function counted(body: A.Block, exp: Expansion): Counted {
  return { body, copies: 1 + (exp.more?.length ?? 0) };
}

/** The probe bodies, then the (non-embedded) function bodies. */
function withFunctions(bodies: Counted[], functions: A.FunctionDecl[]): Counted[] {
  return [...bodies, ...functions.filter((f) => f.body.k !== 'embedded').map((f) => ({ body: f.body as A.Block, copies: 1 }))];
}

/** VarDecl.histograms / varianceShift of stats globals, and `conflicting bit shifts declared`. */
function collectHistograms(bodies: Counted[], functions: A.FunctionDecl[], diag: Diagnostics): void {
  const declOf = (x: A.Expr): A.VarDecl | undefined => (x.k === 'sym' ? x.ref : x.k === 'index' && x.base.k === 'sym' ? x.base.ref : undefined);
  const onExpr = (e: A.Expr): void => {
    if (e.k === 'hist') {
      const d = declOf(e.operand);
      if (d) {
        d.histograms ??= [];
        const key = `${e.kind}:${e.params.join(',')}`;
        // stap 4.8 gives a statistic one histogram (stat_decl_collector): another kind or
        // other linear parameters on the same global are an error
        if (d.histograms.length && `${d.histograms[0].kind}:${d.histograms[0].params.join(',')}` !== key) {
          diag.semanticError(new SemanticError(`multiple histogram types declared on '__global_${d.name}'`, e.tok, [], 'hist-multiple'));
        } else if (!d.histograms.length) d.histograms.push({ kind: e.kind, params: e.params });
      }
    }
    if (e.k === 'statop' && e.op === 'variance') {
      const d = declOf(e.operand);
      const shift = e.shift ?? 0;
      if (d) {
        if (d.varianceShift !== undefined && d.varianceShift !== shift) {
          diag.semanticError(new SemanticError(`conflicting bit shifts declared (previously ${d.varianceShift})`, e.tok, [], 'variance-conflict'));
        } else d.varianceShift = shift;
      }
    }
  };
  for (const b of withFunctions(bodies, functions)) diag.asCopies(b.copies, () => walkStmt(b.body, onExpr));
}

function unusedArgWarnings(s: Session, opts: ElabOptions, diag: Diagnostics): void {
  if (!opts.usedArgs || !opts.args) return;
  if (s.globals.has('argv') || s.globals.has('argc')) return;
  for (let i = 1; i <= opts.args.length; i++) {
    if (!opts.usedArgs.has(i)) diag.warning(`unused command line option $${i}/@${i}`, undefined, false);
  }
}

export { renderComponents, walkExpr };

function readsGlobal(e: A.Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.k === 'sym' && x.ref?.kind === 'global') found = true;
  });
  return found;
}
