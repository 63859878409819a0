/**
 * stap's pass-2 optimiser (semantic_pass_optimize1, skipped with -u): variable use analysis,
 * dead-assignment removal (`Eliding assignment to 'x'`), unused-variable elision (`Eliding unused
 * variable 'x'`), side-effect-free statement removal (`Eliding side-effect-free expression `),
 * empty-probe elision (`Probe 'begin' has been elided`), unused functions, and the
 * never-assigned warnings.  Warnings are printed only for user files, as stap does.
 */
import type * as A from '../ast';
import { ConstFolder } from './const_fold';
import { Diagnostics, SemanticError } from '../diag';
import { exprChildren, stmtChildren, walkStmt, walkExpr, suggest, withSimilar, containsNext, notLvalue, invalidEntry } from './util';
import { preorder } from './callgraph';
import { reduceVoidStatements } from './void_reduce';
import { isLvalue } from '../parse/literals';

export interface OptUnit {
  body: A.Block;
  locals: A.VarDecl[];
  condition?: A.Expr;
  /** For the elision warning. */
  name: string;
  /** The names of the other probes that share this body (a wildcard's points: aliases.ts Expansion.more). */
  also?: string[];
  tok: A.Token;
  elided?: boolean;
  /** The iteration of the relaxation loop that elided it (the build's records: alias_expansions_make.ts). */
  elidedAt?: number;
  /**
   * A probe the build found this loop elides at this iteration, changing in each one before
   * (alias_expansions.ts): its body is not made; the loop elides it then, as the body would.
   */
  elidesAt?: number;
  isUser: boolean;
}

export interface VarUse {
  read: Set<A.VarDecl>;
  written: Set<A.VarDecl>;
  /**
   * Optional: the reads whose value is used, as stap's varuse counts them for the end-of-run
   * global display: every read except the read half of an increment or compound assignment
   * whose value is discarded (an expression statement, a `for` init/increment).
   */
  valueRead?: Set<A.VarDecl>;
}

/** Collect reads and writes of variables in a statement/expression. */
export function collectUse(root: A.Stmt | A.Expr, use: VarUse): void {
  const valueRead = use.valueRead;
  const read = (v: A.VarDecl, valueUsed: boolean): void => {
    use.read.add(v);
    if (valueUsed && valueRead) valueRead.add(v);
  };
  const discarded = (e: A.Expr): void => {
    if (e.k === 'incdec') lvalue(e.operand, true, false);
    else if (e.k === 'assign' && e.op !== '=' && e.op !== '<<<') {
      lvalue(e.target, true, false);
      expr(e.value);
    } else expr(e);
  };
  const lvalue = (t: A.Expr, alsoRead: boolean, valueUsed = true): void => {
    if (t.k === 'sym' && t.ref) {
      use.written.add(t.ref);
      if (alsoRead) read(t.ref, valueUsed);
    } else if (t.k === 'index') {
      if (t.base.k === 'sym') {
        if (t.base.ref) {
          use.written.add(t.base.ref);
          if (alsoRead) read(t.base.ref, valueUsed);
        }
      } else if (t.base.operand.k === 'sym' && t.base.operand.ref) {
        if (alsoRead) read(t.base.operand.ref, valueUsed);
      } else expr(t.base);
      // (a histogram's bucket deleted, or incremented for its value, reads the statistics:
      // real-stap -p2 'global s probe begin { s <<< 1; delete @hist_log(s)[1] }' shows no s at
      // the end, nor with `x = (@hist_log(s)[1] -= 1)`; -u -p2 with `@hist_log(s)[1] -= 1;`,
      // `= 1;` or a discarded `++` does)
      for (const i of t.indexes) if (i) expr(i);
    } else expr(t);
  };
  const expr = (e: A.Expr): void => {
    switch (e.k) {
      case 'sym':
        if (e.ref) read(e.ref, true);
        return;
      case 'assign':
        lvalue(e.target, e.op !== '=' && e.op !== '<<<');
        expr(e.value);
        return;
      case 'incdec':
        lvalue(e.operand, true);
        return;
      case 'index':
        if (e.base.k === 'sym') {
          if (e.base.ref) read(e.base.ref, true);
        } else expr(e.base);
        for (const i of e.indexes) if (i) expr(i);
        return;
      default:
        exprChildren(e, expr);
    }
  };
  const stmt = (s: A.Stmt): void => {
    switch (s.k) {
      case 'foreach':
        for (const k of s.keys) if (k.ref) use.written.add(k.ref);
        if (s.value?.ref) use.written.add(s.value.ref);
        expr(s.array);
        if (s.slice) for (const x of s.slice) if (x) expr(x);
        if (s.limit) expr(s.limit);
        stmt(s.body);
        return;
      case 'delete':
        // stap's varuse visitor takes `delete` as a read-modify-write (elaborate.cxx
        // visit_delete_statement), so `lv = 7; delete lv` elides nothing, and a global that
        // is deleted is not shown at the end of the run (`a[1] = 1; delete a` or `delete a[1]`
        // adds no display probe: real-stap -p2)
        lvalue(s.target, true, true);
        return;
      case 'try':
        stmt(s.body);
        if (s.catchVar?.ref) use.written.add(s.catchVar.ref);
        stmt(s.handler);
        return;
      case 'expr':
        discarded(s.expr);
        return;
      case 'for':
        if (s.init) discarded(s.init);
        if (s.cond) expr(s.cond);
        if (s.incr) discarded(s.incr);
        stmt(s.body);
        return;
      default:
        stmtChildren(s, expr, stmt);
    }
  };
  if ('stmts' in root || isStmt(root)) stmt(root as A.Stmt);
  else expr(root as A.Expr);
}

function isStmt(n: A.Stmt | A.Expr): n is A.Stmt {
  return ['block', 'expr', 'if', 'while', 'for', 'foreach', 'return', 'next', 'break', 'continue', 'delete', 'try', 'null'].includes(n.k);
}

/** Side-effect analysis of functions (memoised; call chains walked without recursion). */
export class Effects {
  private memo = new Map<A.FunctionDecl, boolean>();
  /**
   * A call may reach every overload of its arity (until type resolution is done), else only
   * those a `next` goes on to: then the call of a script's empty `exit()` has no effects, the
   * tapset's exit() being a dead overload (real-stap -p2 -e 'function exit() { } probe begin {
   * exit() }': the probe is elided, without the warning of the first pass's elisions).
   */
  allOverloads = true;
  /** While working out a function's own effects: the functions it calls (not followed). */
  private callees: A.FunctionDecl[] | null = null;

  /** Does the function, or anything it calls (or the overload after it), have effects? */
  functionHasEffects(fn: A.FunctionDecl): boolean {
    const m = this.memo.get(fn);
    if (m !== undefined) return m;
    let eff = false;
    const reached: A.FunctionDecl[] = [];
    preorder([fn], (f) => {
      const own = this.ownEffects(f);
      if (own.eff) eff = true;
      return eff ? [] : own.callees;
    }, (f) => reached.push(f));
    this.memo.set(fn, eff);
    if (!eff) for (const f of reached) this.memo.set(f, false);
    return eff;
  }

  private ownEffects(fn: A.FunctionDecl): { eff: boolean; callees: A.FunctionDecl[] } {
    const m = this.memo.get(fn);
    if (m !== undefined) return { eff: m, callees: [] };
    const outer = this.callees;
    const callees: A.FunctionDecl[] = (this.callees = []);
    let eff: boolean;
    try {
      if (fn.body.k === 'embedded') eff = !(fn.pragmas ?? []).includes('pure');
      else {
        const own = new Set<A.VarDecl>([...(fn.locals ?? []), ...(fn.paramDecls ?? [])]);
        eff = this.stmtHasEffects(fn.body, own);
      }
    } finally {
      this.callees = outer;
    }
    if (fn.nextOverload && (this.allOverloads || containsNext(fn))) callees.push(fn.nextOverload);
    return { eff, callees };
  }

  /** Does the statement write anything outside `own`, print, call impure code...? */
  stmtHasEffects(s: A.Stmt, own: Set<A.VarDecl>): boolean {
    let eff = false;
    walkStmt(s, (e) => {
      if (!eff && this.exprNodeEffect(e, own)) eff = true;
    }, (st) => {
      if (st.k === 'next' || st.k === 'return' || st.k === 'break' || st.k === 'continue') return;
      if (st.k === 'delete' && !this.ownTarget(st.target, own)) eff = true;
      if (st.k === 'foreach') {
        for (const k of st.keys) if (k.ref && !own.has(k.ref)) eff = true;
        if (st.value?.ref && !own.has(st.value.ref)) eff = true;
      }
    });
    return eff;
  }

  exprHasEffects(e: A.Expr, own: Set<A.VarDecl> | null): boolean {
    let eff = false;
    walkExpr(e, (x) => {
      if (!eff && this.exprNodeEffect(x, own)) eff = true;
    });
    return eff;
  }

  private ownTarget(t: A.Expr, own: Set<A.VarDecl> | null): boolean {
    if (!own) return false;
    if (t.k === 'sym') return !!t.ref && own.has(t.ref);
    if (t.k === 'index' && t.base.k === 'sym') return !!t.base.ref && own.has(t.base.ref);
    return false;
  }

  /** Effect of one node itself (children are visited by the walker). */
  private exprNodeEffect(e: A.Expr, own: Set<A.VarDecl> | null): boolean {
    switch (e.k) {
      case 'assign': return !this.ownTarget(e.target, own);
      // (`3++` writes nothing: stap 4.8 elides it as side-effect-free, pass 3 would refuse it)
      case 'incdec': return isLvalue(e.operand) && !this.ownTarget(e.operand, own);
      case 'call':
        if (!e.ref) return true;
        if (this.callees) {
          this.callees.push(e.ref);
          return false;
        }
        return this.functionHasEffects(e.ref);
      case 'print': return !e.name.startsWith('s');
      case 'embedded': return !/\/\*\s*pure\s*\*\//.test(e.code);
      case 'atop': return true;
      default: return false;
    }
  }
}

/** The bodies of the probes not elided, then of the functions (not embedded C). */
export function liveBodies(units: { body: A.Block; elided?: boolean }[], functions: A.FunctionDecl[]): A.Block[] {
  const r = units.filter((u) => !u.elided).map((u) => u.body);
  for (const f of functions) if (f.body.k !== 'embedded') r.push(f.body);
  return r;
}

export class Optimizer {
  effects = new Effects();

  /** `definedReads`: variables read by a `@defined` folded away before (Resolver.definedReads). */
  constructor(private diag: Diagnostics, private globals: A.VarDecl[], private userFiles: Set<A.SourceFile>,
    private definedReads: ReadonlySet<A.VarDecl> = new Set()) {}

  private isUser(tok: A.Token): boolean {
    return this.userFiles.has(tok.file);
  }

  /** After type resolution (stap's optimize2): the only message is an elided probe's. */
  private quiet = false;

  private warn(msg: string, tok: A.Token, always = false): void {
    if (this.isUser(tok) && (!this.quiet || always)) this.diag.warning(msg, tok);
  }

  /**
   * Constant folding alone (no warnings): stap 4.8 folds constants and drops the dead branches
   * they leave before it asserts that every type is resolved, so a dead branch is typed (its
   * mismatches are errors) but an unresolved name only it uses is not (`if (0) println(y)`).
   * Returns whether anything changed.
   */
  foldConstants(bodies: A.Block[]): boolean {
    const folder = new ConstFolder((e) => !this.effects.exprHasEffects(e, null) && !hasTargets(e), replaceNode);
    for (const b of bodies) folder.block(b);
    return folder.changed;
  }

  /**
   * One relaxation loop over all probes and functions.  `units` are probes; `functions` the reachable
   * functions (re-computed by the caller).  Returns after convergence.
   */
  run(units: OptUnit[], functions: () => A.FunctionDecl[], liveGlobals: Set<A.VarDecl>, stop?: () => boolean, afterTypes = false): void {
    this.quiet = afterTypes;
    this.effects.allOverloads = !afterTypes;
    // (a body shared by a wildcard's probes speaks for all of them: Diagnostics.asCopies)
    const copies = (sc: { also?: string[] }): number => 1 + (sc.also?.length ?? 0);
    for (const u of units) this.recordStatementTokens(u.body);
    for (const f of functions()) if (f.body.k !== 'embedded') this.recordStatementTokens(f.body);
    for (let iter = 0; iter < 100; iter++) {
      let changed = false;
      const first = iter === 0 && !afterTypes;
      this.first = first;
      this.pass0 = iter === 0;
      if (afterTypes) {
        // constant folding, after type resolution as in stap 4.8 (the dead code of `if (0)` is
        // typed, its globals count as assigned; it goes now, and what only it used with it);
        // the folder also makes the checks stap's makes
        if (this.foldConstants(liveBodies(units, functions()))) changed = true;
      }
      const fns = functions();
      const use: VarUse = { read: new Set(), written: new Set() };
      for (const u of units) if (!u.elided) {
        collectUse(u.body, use);
        if (u.condition) collectUse(u.condition, use);
      }
      for (const f of fns) if (f.body.k !== 'embedded') collectUse(f.body, use);
      // (stap folds those `@defined`s after its first look)
      if (first) for (const v of this.definedReads) use.read.add(v);

      // globals
      // (suggested from: the globals still used, whatever their order; stap elides the others first)
      const globalNames = this.globals.filter((g) => liveGlobals.has(g) && (use.read.has(g) || use.written.has(g))).map((g) => g.name);
      for (const g of this.globals) {
        if (!liveGlobals.has(g)) continue;
        const r = use.read.has(g);
        const w = use.written.has(g) || !!g.init;
        if (!use.read.has(g) && !use.written.has(g)) {
          // stap elides unused globals silently
          liveGlobals.delete(g);
          changed = true;
        } else if (r && !w && first) {
          this.warn(withSimilar(`never-assigned global variable '${g.name}'`, suggest(g.name, globalNames)), g.tok);
          changed = true;
        }
      }
      // locals of probes and functions
      const scopes: { locals: A.VarDecl[]; body: A.Block; also?: string[] }[] = [
        ...units.filter((u) => !u.elided),
        ...fns.filter((f) => f.body.k !== 'embedded').map((f) => ({ locals: f.locals ?? [], body: f.body as A.Block, paramDecls: f.paramDecls })),
      ];
      // as stap: unused and never-assigned variables of every scope first (semantic_pass_opt2),
      // then dead assignments (opt4); suggestions come from the scope's variables and the
      // globals still live, however distant
      const liveNames = this.globals.filter((g) => liveGlobals.has(g)).map((g) => g.name);
      for (const sc of scopes) this.diag.asCopies(copies(sc), () => {
        const params = 'paramDecls' in sc ? ((sc as { paramDecls?: A.VarDecl[] }).paramDecls ?? []) : [];
        for (let i = 0; i < sc.locals.length; i++) {
          const l = sc.locals[i];
          const r = use.read.has(l);
          const w = use.written.has(l);
          if (!r && !w) {
            // (silently, as stap 4.8 even with -vv)
            sc.locals.splice(i--, 1);
            changed = true;
          } else if (r && !w && first) {
            // reported on the first iteration only (later ones would suggest from fewer names)
            const cands = [...sc.locals.filter((o) => o !== l).map((o) => o.name), ...params.map((p) => p.name), ...liveNames];
            this.warn(withSimilar(`never-assigned local variable '${l.name}'`, suggest(l.name, cands, 5, Infinity)), l.tok);
            // (stap then goes over the code once more: `if (x) {}` on a never-assigned x goes)
            changed = true;
          }
        }
      });
      for (const sc of scopes) this.diag.asCopies(copies(sc), () => {
        // (a function's parameters too: real-stap -p2 'function f(a) { a = 1 } probe begin { f(1) }'
        // elides the assignment to a)
        const params = 'paramDecls' in sc ? ((sc as { paramDecls?: A.VarDecl[] }).paramDecls ?? []) : [];
        const dead = [...params, ...sc.locals].filter((l) => use.written.has(l) && !use.read.has(l));
        // (the first time, every body is walked: its assignments' left sides are checked)
        if ((dead.length || first) && this.removeDeadAssignments(sc.body, dead)) changed = true;
        // as stap's dead-assignment remover, a `catch (v)` whose v is never read loses v, without
        // starting another iteration: `catch (e) {}` alone leaves e declared and untyped
        // ("unresolved type" at e), unless something else changes (checked with real-stap)
        dropUnreadCatchVars(sc.body, use.read);
      });
      // side-effect-free statements and empty probes
      const emptied: OptUnit[] = [];
      for (const u of units) if (!u.elided) {
        if (u.elidesAt !== undefined) {
          changed = true;
          if (iter >= u.elidesAt) {
            u.elided = true;
            u.elidedAt = iter;
            emptied.push(u);
          }
          continue;
        }
        const own = new Set(u.locals);
        const names = [u.name, ...(u.also ?? [])];
        if (this.diag.asCopies(names.length, () => this.reduceBlock(u.body, own))) changed = true;
        if (u.body.stmts.length === 0) {
          u.elided = true;
          u.elidedAt = iter;
          emptied.push(u);
          changed = true;
        }
      }
      // (the elision notices after the functions' warnings, each point of a shared body in
      // turn: real-stap -v -p2 -e 'function f() { } probe begin, end { f() }')
      const noteElided = (): void => {
        for (const u of emptied) for (const name of [u.name, ...(u.also ?? [])]) this.warn(`Probe '${name}' has been elided`, u.tok, true);
      };
      for (const f of fns) if (f.body.k !== 'embedded') {
        const own = new Set([...(f.locals ?? []), ...(f.paramDecls ?? [])]);
        const had = f.body.stmts.length > 0;
        if (this.reduceBlock(f.body, own)) changed = true;
        // a function whose body reduces to nothing (or was empty)
        if (f.body.stmts.length === 0 && !this.sideEffectFree.has(f) && (had || first)) {
          this.sideEffectFree.add(f);
          this.warn(`side-effect-free function '${f.name}'`, f.tok);
        }
      }
      noteElided();
      // stap's void-statement reduction (void_reduce.ts), after the side-effect-free statements
      // went: what is left of a statement's parts goes on the next iteration, silently
      const pure = (fn: A.FunctionDecl): boolean => !this.effects.functionHasEffects(fn);
      for (const u of units) if (!u.elided && reduceVoidStatements(u.body, pure)) changed = true;
      for (const f of fns) if (f.body.k !== 'embedded' && reduceVoidStatements(f.body, pure)) changed = true;
      // statements after next/return/break/continue (stap's dead_control_remover, last in the
      // iteration and silent: what dead code assigned or printed was reported above)
      for (const u of units) if (!u.elided && removeDeadControl(u.body)) changed = true;
      for (const f of fns) if (f.body.k !== 'embedded' && removeDeadControl(f.body)) changed = true;
      // (-W: stap counts the warnings as errors and does not start another iteration)
      if (!changed || stop?.()) return;
    }
  }

  /**
   * In the first iteration of the loop?  stap 4.8 reports dead assignments and side-effect-free
   * expressions only then (`lv = 7; lv + lv;` warns about `lv + lv` only: the assignment it
   * then finds dead, and what is left of it, go silently; checked against real-stap -v).
   */
  private first = true;

  /** In the first iteration of this loop (before types, or after them)? */
  private pass0 = true;

  /** Functions already reported as side-effect-free. */
  private sideEffectFree = new WeakSet<A.FunctionDecl>();

  /** The first token of each expression statement, before rewriting changes it. */
  private stmtTok = new WeakMap<A.Stmt, A.Token>();

  private recordStatementTokens(b: A.Stmt): void {
    // (the first token is in the file of the expression's own token: one outside the user's
    // files is never said, so the expression is not walked for it)
    const visit = (st: A.Stmt): void => {
      if (st.k === 'expr' && !this.stmtTok.has(st)) this.stmtTok.set(st, st.first ?? (this.isUser(st.expr.tok) ? firstToken(st.expr) : st.expr.tok));
      stmtChildren(st, noExpr, visit);
    };
    visit(b);
  }

  /**
   * `x = e` with x one of the never-read locals `dead` becomes `e`: one walk of the body for all
   * of them (children before their parent), the warnings in the walk's order as stap's
   * dead_assignment_remover says them (real-stap -v -p2 'function f() { b = 1; c = 2; b = 3 }
   * probe begin { f() }': b, c, b).
   */
  private removeDeadAssignments(body: A.Block, dead: A.VarDecl[]): boolean {
    const which = new Map(dead.map((l, i) => [l, i]));
    const said: { i: number; tok: A.Token }[] = [];
    let changed = false;
    const say = (): void => {
      for (const w of said) this.warn(`Eliding assignment to '${dead[w.i].name}'`, w.tok);
    };
    const visitExpr = (e: A.Expr): void => {
      exprChildren(e, visitExpr);
      // stap's dead_assignment_remover asks every assignment for the symbol it writes: one
      // with none throws, which ends pass 2 (real-stap -p2 'probe begin { z = 2; 1 = 3; w = 3;
      // 2 = 4 }': z's elision, then the one error)
      const bad = e.k === 'assign' && this.first ? notLvalue.get(e) : undefined;
      if (bad) {
        say();
        throw bad;
      }
      const i = e.k === 'assign' && e.target.k === 'sym' && e.target.ref ? which.get(e.target.ref) : undefined;
      if (i !== undefined && e.k === 'assign') {
        if (this.first) said.push({ i, tok: e.tok });
        replaceNode(e, e.value);
        changed = true;
      }
    };
    walkStmtTop(body, visitExpr);
    say();
    return changed;
  }

  /** Remove side-effect-free statements; returns whether anything changed. */
  private reduceBlock(b: A.Block, own: Set<A.VarDecl>): boolean {
    let changed = false;
    const out: A.Stmt[] = [];
    for (const s of b.stmts) {
      const r = this.reduceStmt(s, own);
      if (r.changed) changed = true;
      if (r.keep) out.push(s);
      else changed = true;
    }
    b.stmts = out;
    return changed;
  }

  private reduceStmt(s: A.Stmt, own: Set<A.VarDecl>): { keep: boolean; changed: boolean } {
    switch (s.k) {
      case 'expr':
        // (a statement reading $vars, @cast or @var goes too: real-stap on a process probe with
        // debuginfo elides `$cmd;`, `@cast(...)->dir;`, `@var("cmd");` and `f($cmd);` with f pure)
        if (!this.effects.exprHasEffects(s.expr, null)) {
          if (this.first) this.warn('Eliding side-effect-free expression ', this.stmtTok.get(s) ?? firstToken(s.expr));
          return { keep: false, changed: true };
        }
        return { keep: true, changed: false };
      case 'null':
        return { keep: false, changed: false };
      case 'block': {
        const changed = this.reduceBlock(s, own);
        return { keep: s.stmts.length > 0, changed };
      }
      case 'if': {
        let changed = false;
        const t = this.reduceStmt(s.then, own);
        changed ||= t.changed;
        if (!t.keep) s.then = { k: 'null', tok: s.then.tok };
        if (s.else) {
          const e = this.reduceStmt(s.else, own);
          changed ||= e.changed;
          if (!e.keep) s.else = undefined;
        }
        // (stap drops an empty `if` on the optimiser's second pass over the code: `x = 1; if (x) {}`
        // stays when nothing else changes, `if (x) { 1 }` goes; checked against real-stap)
        const empty = s.then.k === 'null' && !s.else;
        if (empty && !this.pass0 && !this.effects.exprHasEffects(s.cond, null) && !hasTargets(s.cond)) return { keep: false, changed: true };
        return { keep: true, changed };
      }
      case 'foreach': case 'while': case 'for': {
        let loopChanged = false;
        if (s.k === 'for') {
          // side-effect-free init and increment expressions are dropped (silently, as stap does)
          for (const part of ['init', 'incr'] as const) {
            const x = s[part];
            if (x && !this.effects.exprHasEffects(x, null) && !hasTargets(x)) {
              s[part] = undefined;
              loopChanged = true;
            }
          }
        }
        const r = this.reduceStmt(s.body, own);
        // a foreach with a literal limit <= 0 never runs its body (stap drops it before typing,
        // once its body's side-effect-free statements were said: real-stap -p2 'global a probe
        // begin { foreach (k in a limit 0) { y = "s" + 1 } println(2) }')
        if (s.k === 'foreach' && s.limit?.k === 'num' && BigInt(s.limit.value) <= 0n) return { keep: false, changed: true };
        if (!r.keep) s.body = { k: 'null', tok: s.body.tok };
        if (s.k !== 'foreach' && !r.keep && !(s.k === 'for' && (s.init || s.incr))) {
          // an empty loop whose condition has no effects is dropped (stap: void_statement_reducer)
          const cond = s.cond;
          if (!cond || (!this.effects.exprHasEffects(cond, null) && !hasTargets(cond))) return { keep: false, changed: true };
        }
        if (loopChanged) r.changed = true;
        if (s.k === 'foreach' && !r.keep) {
          // an empty foreach over locals' keys has no effect
          const ownVars = s.keys.every((k) => k.ref && own.has(k.ref)) && (!s.value || (!!s.value.ref && own.has(s.value.ref)));
          const pure = (!s.limit || !this.effects.exprHasEffects(s.limit, null)) && !(s.slice ?? []).some((x) => x && this.effects.exprHasEffects(x, null));
          if (ownVars && pure) return { keep: false, changed: true };
        }
        return { keep: true, changed: r.changed };
      }
      case 'try': {
        const r = this.reduceBlock(s.body, own);
        const h = this.reduceBlock(s.handler, own);
        return { keep: s.body.stmts.length > 0, changed: r || h };
      }
      default:
        return { keep: true, changed: false };
    }
  }
}

/**
 * stap's dead_control_remover: in a block, the statements after one that always leaves it
 * (`next`, `return`, `break`, `continue`, or a nested block ending in one) go, in every block of
 * the body.  An `if` whose branches both leave, or a `try`, does not count (stap 4.8 keeps
 * what follows them; checked with real-stap -v -p2).  Returns whether anything was removed.
 */
export function removeDeadControl(s: A.Stmt): boolean {
  if (!holds(s).jumps) return false;
  let changed = false;
  const leaves = (st: A.Stmt): boolean =>
    isJump(st) || (st.k === 'block' && st.stmts.length > 0 && leaves(st.stmts[st.stmts.length - 1]));
  const visit = (st: A.Stmt): void => {
    stmtChildren(st, noExpr, visit);
    if (st.k !== 'block') return;
    const i = st.stmts.findIndex(leaves);
    if (i >= 0 && i < st.stmts.length - 1) {
      st.stmts.length = i + 1;
      changed = true;
    }
  };
  visit(s);
  return changed;
}

function dropUnreadCatchVars(body: A.Stmt, read: Set<A.VarDecl>): void {
  if (!holds(body).tries) return;
  walkStmt(body, () => {}, (st) => {
    if (st.k === 'try' && st.catchVar?.ref && !read.has(st.catchVar.ref)) {
      if (st.catchVar.ref.kind === 'global') caughtOnly.add(st.catchVar.ref);
      st.catchVar = undefined;
    }
  });
}

/**
 * Does a body hold a `try`, or a `next`/`return`/`break`/`continue` (what dropUnreadCatchVars and
 * removeDeadControl act on)?  Found by one walk of its statements; the optimiser only removes
 * statements, so a body found without them stays without them (one found with them is walked
 * again, as it may have lost them).
 */
const bodyHolds = new WeakMap<A.Stmt, { tries: boolean; jumps: boolean }>();
function holds(body: A.Stmt): { tries: boolean; jumps: boolean } {
  const known = bodyHolds.get(body);
  if (known && !known.tries && !known.jumps) return known;
  const r = { tries: false, jumps: false };
  const visit = (st: A.Stmt): void => {
    if (st.k === 'try') r.tries = true;
    else if (isJump(st)) r.jumps = true;
    stmtChildren(st, noExpr, visit);
  };
  visit(body);
  bodyHolds.set(body, r);
  return r;
}
const noExpr = (): void => {};
/** `next`, `return`, `break`, `continue`: a statement that leaves its block */
const isJump = (st: A.Stmt): boolean => st.k === 'next' || st.k === 'return' || st.k === 'break' || st.k === 'continue';

/**
 * Globals a dropped `catch (g)` named: stap keeps them declared (and untyped, an error) until
 * another iteration of the optimiser finds them unused.
 */
export const caughtOnly = new WeakSet<A.VarDecl>();

/**
 * `$var`s that do not resolve at their probe point (marked before optimisation): stap keeps the
 * error with the node and reports it only if the node survives, so they do not pin a statement.
 */
export const unresolvedTargets = new WeakSet<A.Expr>();

function hasTargets(e: A.Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if ((x.k === 'target' && !unresolvedTargets.has(x)) || x.k === 'cast' || x.k === 'atvar' || (x.k === 'entry' && !invalidEntry.has(x))) found = true;
  });
  return found;
}

function walkStmtTop(s: A.Stmt, fe: (e: A.Expr) => void): void {
  const fs = (st: A.Stmt): void => stmtChildren(st, fe, fs);
  fs(s);
}

/** Replace `node` in place with the contents of `by`. */
export function replaceNode(node: A.Expr, by: A.Expr): void {
  const n = node as unknown as Record<string, unknown>;
  const src = { ...(by as unknown as Record<string, unknown>) };
  for (const k of Object.keys(n)) delete n[k];
  Object.assign(n, src);
  if (unresolvedTargets.has(by)) unresolvedTargets.add(node);
  if (invalidEntry.has(by)) invalidEntry.add(node);
}

/** The leftmost token of an expression (what stap's statement token is). */
/** Is e a long constant stap's folder reduces (literals, unary and binary operators of them)? */
export function foldable(e: A.Expr): boolean {
  if (e.k === 'num') return true;
  if (e.k === 'unary') return foldable(e.operand);
  if (e.k === 'binary') return e.op !== '>>>' && foldable(e.left) && foldable(e.right);
  return false;
}

export function firstToken(e: A.Expr): A.Token {
  let best = e.tok;
  walkExpr(e, (x) => {
    const t = x.tok;
    if (t.file === best.file && (t.line < best.line || (t.line === best.line && t.col < best.col))) best = t;
  });
  return best;
}
