/**
 * Symbol resolution (stap's symresolution_info): links every Sym to a local, parameter or global
 * VarDecl (creating handler locals for undeclared scalars), every Call to a FunctionDecl (user
 * functions first, then tapset files found through the library index), builds same-arity `next`
 * overload chains, checks array arity, and folds `@defined`.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { Session, pragmasOf } from './session';
import { suggest, withSimilar, stmtChildren, exprChildren, walkExpr, fold, notLvalue, invalidEntry } from './util';
import { defaultRegistry, type Provider } from './probes';
import { declarationsKey, type Lookup } from './aliases';

/** The site of an error that ends stap at once (Diagnostics.fatal). */
export const FATAL_SITE = 'probewrite';

export interface Scope {
  file: A.SourceFile;
  locals: A.VarDecl[];
  localMap: Map<string, A.VarDecl>;
  params?: Map<string, A.VarDecl>;
  fn?: A.FunctionDecl;
  /** The probe's resolved point and its provider (probe bodies only). */
  point?: A.ResolvedPoint;
  provider?: Provider;
  /** The probe's pn() (alias name or wildcard expansion). */
  pn?: string;
}

/** Arity bookkeeping the AST has no room for: where the arity was first inferred. */
const arityTok = new WeakMap<A.VarDecl, A.Token>();

export function setArity(d: A.VarDecl, a: number, tok: A.Token): void {
  if (a < 0) return;
  // (an initialised global is a scalar from its `=`)
  const cur = d.arity ?? (d.init ? 0 : -1);
  if (a === 0 && d.maxSize !== undefined && d.maxSize > 0 && cur < 0) {
    // `global a[10]` used as a scalar
    throw new SemanticError('inconsistent arity', d.tok, [], 'inconsistent-arity0');
  }
  if (cur >= 0 && cur !== a) {
    const first = arityTok.get(d) ?? (d.kind === 'global' ? d.initTok : d.tok);
    const chain = first ? [new SemanticError(`arity ${cur} first inferred here`, first, [], 'arity-first')] : [];
    throw new SemanticError(`inconsistent arity (${cur} vs ${a})`, tok, chain, 'inconsistent-arity');
  }
  if (d.arity !== a) {
    if (cur !== a) arityTok.set(d, tok);
    d.arity = a;
    d.indexTypes = new Array<A.Type>(a).fill('unknown');
  }
}

function newLocal(name: string, tok: A.Token, file: A.SourceFile): A.VarDecl {
  return { name, tok, kind: 'local', type: 'unknown', arity: 0, file };
}

/** Same-arity overload chains, computed once per name group. */
const chainDone = new WeakSet<A.FunctionDecl>();

/** Operands of `delete` that are neither arrays nor target expressions, refused at type resolution. */
const DELETE_LATER = new Set<A.Expr['k']>(['num', 'str', 'binary', 'logical', 'compare', 'concat', 'regex', 'unary', 'incdec',
  'ternary', 'assign', 'call', 'statop', 'in', 'print', 'autocast']);
export class Resolver {
  /** Functions reachable so far, in discovery order. */
  usedFunctions: A.FunctionDecl[] = [];
  private usedSet = new Set<A.FunctionDecl>();
  private pending: A.FunctionDecl[] = [];

  /**
   * Variables a folded `@defined(x)` of a plain variable read: stap folds it after its first
   * look for never-assigned variables, so such an x still draws the warning (real-stap -p2
   * 'probe begin { println(@defined(x)) }').
   */
  definedReads = new Set<A.VarDecl>();

  constructor(private s: Session) {}

  /** Errors reported without ending the body's resolution. */
  private softErrors = 0;

  private softError(e: SemanticError): void {
    this.softErrors++;
    this.say(e);
  }

  /** The errors said while resolving function bodies (resolvePendingFunctions), in order. */
  private functionErrors: SemanticError[] | null = null;

  private say(e: SemanticError): void {
    this.functionErrors?.push(e);
    this.s.diag.semanticError(e);
  }

  /** Resolve a probe body; returns false (after reporting) on error. */
  resolveProbe(body: A.Block, scope: Scope, condition?: A.Expr): boolean {
    const before = this.softErrors;
    try {
      this.stmt(body, scope);
      if (condition) this.condition(condition, scope);
      return this.softErrors === before;
    } catch (e) {
      if (!(e instanceof SemanticError) || e.site === FATAL_SITE) throw e;
      this.s.diag.semanticError(e);
      return false;
    }
  }

  /** Resolve every queued function (and those they pull in). */
  resolvePendingFunctions(): boolean {
    let ok = true;
    const said: SemanticError[] = (this.functionErrors = []);
    try {
      while (this.pending.length) {
        const fn = this.pending.shift()!;
        if (!this.resolveFunction(fn)) ok = false;
      }
    } finally {
      this.functionErrors = null;
    }
    // (a call refused without -g in a function body makes stap resolve the function bodies
    // once more, saying their errors again: real-stap -v -p2 'function f() { printk(1, "a");
    // nosuch() } probe begin { f() }' says both twice, 'function f() { nosuch() } ...' once)
    if (said.some((e) => e.site === 'guru-function')) for (const e of said) this.s.diag.semanticError(e);
    return ok;
  }

  private resolveFunction(fn: A.FunctionDecl): boolean {
    const params = new Map<string, A.VarDecl>();
    fn.paramDecls = fn.params.map((p) => {
      const d: A.VarDecl = {
        name: p.name, tok: p.tok, kind: 'param', declaredType: p.declaredType,
        type: p.declaredType ?? 'unknown', arity: 0, file: fn.file,
      };
      params.set(p.name, d);
      return d;
    });
    fn.locals = [];
    if (fn.type === undefined || fn.type === 'unknown') fn.type = fn.returnType ?? 'unknown';
    if (fn.body.k === 'embedded') {
      if (fn.pragmas?.includes('string') && fn.type === 'unknown') fn.type = 'string';
      return true;
    }
    const scope: Scope = { file: fn.file, locals: fn.locals, localMap: new Map(), params, fn };
    const before = this.softErrors;
    try {
      this.stmt(fn.body, scope);
      return this.softErrors === before;
    } catch (e) {
      // (in a function, @probewrite is an error as others: real-stap -p2 'function f() { return
      // @probewrite(x) } probe begin { println(f()) }' ends with the Pass 2 line)
      if (!(e instanceof SemanticError)) throw e;
      this.say(e);
      return false;
    }
  }

  /**
   * The session look-ups resolving an elided probe's body would make (aliases.ts ElidedBody), in
   * its order, with their effects (tapset files loaded, functions queued); false at the first
   * whose result is not the recorded one: the body must then be made and resolved, which makes
   * the same look-ups again (finding what these loaded) and goes on as this did not.
   */
  replayLookups(lookups: readonly Lookup[], scope: Scope): boolean {
    for (const l of lookups) {
      const at: A.Token = { kind: 'identifier', text: l.name, file: l.file, line: 0, col: 0 };
      if (!l.fn) {
        if (this.s.findGlobal(l.name, scope.file, at)) return false;
        continue;
      }
      const cands = this.s.findFunctionsAgain(l.name, scope.file, at);
      let known = this.replayed.get(cands);
      if (!known) this.replayed.set(cands, (known = { key: declarationsKey(cands), heads: new Map() }));
      if (known.key !== l.cands) return false;
      let head = known.heads.get(l.nargs);
      if (head === undefined) {
        const same = cands.filter((f) => f.params.length === l.nargs);
        head = same.length === 0 || (!this.s.opts.guru && !scope.file.isTapset && same.some(isGuruOnly)) ? null : linkChain(same);
        known.heads.set(l.nargs, head);
      }
      if (!head) return false;
      this.use(head);
    }
    return true;
  }

  /** replayLookups: each answer of findFunctionsAgain, named as Lookup.cands does, and its chain's head per argument count. */
  private replayed = new WeakMap<readonly A.FunctionDecl[], { key: string; heads: Map<number, A.FunctionDecl | null> }>();

  /**
   * Mark a function and the overloads after it reachable and queue them for resolution: a call's
   * referents are all the overloads of its arity (stap 4.8 resolves each, `symbol resolution for
   * function __global_f__overload_1`, and reports what is unresolved in one no `next` reaches:
   * real-stap -p2 -e 'function f() { return 1 } function f() { return g() } probe begin {
   * println(f()) }' fails on g); those no `next` reaches go after type resolution (index.ts).
   */
  use(fn: A.FunctionDecl): void {
    if (this.usedSet.has(fn)) return;
    this.usedSet.add(fn);
    this.usedFunctions.push(fn);
    this.pending.push(fn);
    if (fn.nextOverload) this.use(fn.nextOverload);
  }

  // -------------------------------------------------------------------------------------------

  private condition(e: A.Expr, scope: Scope): void {
    // probe conditions may only reference globals and no functions
    const check = (x: A.Expr): void => {
      if (x.k === 'call') throw new SemanticError('probe condition must not reference function', x.tok, [], 'cond-func');
      if (x.k === 'assign' || x.k === 'incdec') throw new SemanticError('probe condition must not modify any variables', x.tok, [], 'cond-modify');
      if (x.k === 'sym') {
        const g = this.s.findGlobal(x.name, scope.file, x.tok);
        if (!g) throw new SemanticError('probe condition must not reference undeclared global', x.tok, [], 'cond-global');
      }
    };
    const walk = (x: A.Expr): void => {
      check(x);
      if (x.k === 'index') x.indexes.forEach((i) => i && walk(i));
      else this.children(x, walk);
    };
    walk(e);
    this.expr(e, scope);
  }

  private children(e: A.Expr, f: (c: A.Expr) => void): void {
    exprChildren(e, f);
  }

  private stmt(s: A.Stmt, scope: Scope): void {
    switch (s.k) {
      case 'foreach': {
        // (stap reports an unresolved foreach array from a place of its own: not similar to an index's)
        if (s.array.k === 'sym') this.arraySym(s.array, s.keys.length, scope, 'unresolved-array-foreach');
        else this.expr(s.array, scope);
        for (const k of s.keys) this.localSym(k, scope);
        if (s.value) this.localSym(s.value, scope);
        if (s.slice) {
          if (s.slice.length !== s.keys.length && s.array.k === 'sym') {
            // (stap looks the array up again with the slice's arity, by the name it resolved to:
            // a global's is mangled; real-stap -p2 'global m2 probe begin { m2[1, "a"] = 1;
            // foreach ([a, b] in m2[1, 2, 3]) println(a, b) }'; one it could not resolve was said)
            const d = s.array.ref;
            if (!d) return;
            const name = d.kind === 'global' && !d.isPrivate ? `__global_${d.name}` : d.name;
            throw new SemanticError(`unresolved arity-${s.slice.length} global array ${name}, missing global declaration?`, s.array.tok, [], 'unresolved-array-foreach');
          }
          if (s.slice.length !== s.keys.length) {
            // arity of the slice must match the keys
            throw new SemanticError(`inconsistent arity (${s.keys.length} vs ${s.slice.length})`, s.tok, [], 'inconsistent-arity');
          }
          for (const x of s.slice) if (x) this.expr(x, scope);
        }
        if (s.limit) this.expr(s.limit, scope);
        this.stmt(s.body, scope);
        return;
      }
      case 'delete': {
        const t = s.target;
        if (t.k === 'sym') {
          const d = this.lookup(t.name, scope, t.tok);
          if (!d) throw new SemanticError('unresolved array in delete statement', t.tok, [], 'delete-unresolved');
          t.ref = d;
          return;
        }
        if (t.k === 'index' && t.base.k === 'hist') {
          // a histogram bucket is read-only; stap refuses deleting one in a function body
          // only (real-stap -p2: `delete @hist_log(s)[1]` passes in a probe)
          if (scope.fn) throw new SemanticError('Assignment to read-only histogram bucket', t.base.tok, [], 'hist-bucket-write');
          this.expr(t, scope);
          return;
        }
        if (t.k === 'index' && t.base.k === 'sym') {
          this.arraySym(t.base, t.indexes.length, scope);
          for (const i of t.indexes) if (i) this.expr(i, scope);
          return;
        }
        // (`$x`, `$$vars` and `&x` are refused before they are resolved; @cast and @var reach the
        // guru-mode write check first: real-stap -p2)
        // a plain expression (literal, operator, call, stat op) or an autocast (`&x`, `ar[1][2]`,
        // `f()->m`: typed later) is only resolved here: stap's
        // delete_statement_symresolution_info traverses it (`delete f()` reports the unresolved
        // function), and type resolution refuses it after the optimizer's warnings (types.ts
        // deleteTarget; real-stap -p2)
        // (stap's delete_statement_symresolution_info walks the operand first: a name it cannot
        // find is an unresolved array: real-stap -p2 'probe begin { delete 1 + x }', 'delete
        // @defined(x)', 'delete -x')
        const arrays = new Set<A.Expr>();
        let unknown: A.Sym | undefined;
        walkExpr(t, (x) => {
          if (x.k === 'index') arrays.add(x.base);
          else if (x.k === 'in') arrays.add(x.array);
          else if (x.k === 'sym' && !unknown && !arrays.has(x) && !this.lookup(x.name, scope, x.tok)) unknown = x;
        });
        if (unknown) throw new SemanticError('unresolved array in delete statement', unknown.tok, [], 'delete-unresolved');
        if (DELETE_LATER.has(t.k)) {
          this.expr(t, scope);
          return;
        }
        if (t.k !== 'cast' && t.k !== 'atvar') {
          throw new SemanticError('invalid operand of delete expression', t.tok, [], 'delete-operand');
        }
        this.expr(t, scope);
        return;
      }
      case 'if': {
        // `if (@defined($x)) ... $x ...`: the dead branch is dropped before target expressions are
        // typed (stap folds @defined and prunes constant conditions before reporting them)
        const v = this.branchCondition(s.cond, scope);
        if (v === undefined) {
          this.stmt(s.then, scope);
          if (s.else) this.stmt(s.else, scope);
          return;
        }
        const live = v ? s.then : s.else;
        if (live) this.stmt(live, scope);
        replaceNode(s, { k: 'block', stmts: live ? [live] : [], tok: s.tok });
        return;
      }
      case 'block':
        // an error ends the resolution of its statement, not of the block (stap's visit_block
        // goes on with the next statement: `x = ar + ar; ar = 3` reports the first ar and the
        // third; checked against real-stap -v)
        for (const x of s.stmts) {
          try {
            this.stmt(x, scope);
          } catch (e) {
            if (!(e instanceof SemanticError) || e.site === FATAL_SITE) throw e;
            this.softError(e);
          }
        }
        return;
      case 'try':
        this.stmt(s.body, scope);
        if (s.catchVar) this.localSym(s.catchVar, scope);
        this.stmt(s.handler, scope);
        return;
      default:
        stmtChildren(s, (e) => this.expr(e, scope), (c) => this.stmt(c, scope));
    }
  }

  private lookup(name: string, scope: Scope, at?: A.Token): A.VarDecl | undefined {
    return scope.localMap.get(name) ?? scope.params?.get(name) ?? this.s.findGlobal(name, scope.file, at);
  }

  /** A scalar use (creates a local when nothing else matches). */
  private scalarSym(e: A.Sym, scope: Scope): void {
    let d = this.lookup(e.name, scope, e.tok);
    if (!d) {
      d = newLocal(e.name, e.tok, scope.file);
      scope.localMap.set(e.name, d);
      scope.locals.push(d);
    }
    if (d.kind === 'global') setArity(d, 0, e.tok);
    e.ref = d;
  }

  /** foreach key/value and catch variables: locals unless a global/param of that name exists. */
  private localSym(e: A.Sym, scope: Scope): void {
    this.scalarSym(e, scope);
  }

  private arraySym(e: A.Sym, arity: number, scope: Scope, site = 'unresolved-array'): void {
    const local = scope.localMap.get(e.name) ?? scope.params?.get(e.name);
    const d = local ?? this.s.findGlobal(e.name, scope.file, e.tok);
    // (stap's find_var: a local of that name takes the arity, so a scalar one is inconsistent;
    // parameters count for scalars only)
    if (d && d.kind === 'local' && arity > 0) setArity(d, arity, e.tok);
    if (!d || d.kind !== 'global') {
      if (arity > 0 || !d) {
        // reported and resolution goes on (stap's symresolution_info prints it and continues, so
        // a second unresolved array in the body counts as a similar, suppressed error)
        this.softError(new SemanticError(`unresolved arity-${arity} global array ${e.name}, missing global declaration?`, e.tok, [], site));
        return;
      }
    }
    if (d.kind === 'global') setArity(d, arity, e.tok);
    e.ref = d;
  }

  /**
   * Resolve an `if`/`?:` condition; its constant truth when it involves `@defined` and folds
   * (the dead branch is then dropped before its target expressions are typed), else undefined.
   */
  private branchCondition(cond: A.Expr, scope: Scope): boolean | undefined {
    const withDefined = containsDefined(cond);
    this.expr(cond, scope);
    return withDefined ? constTruth(cond) : undefined;
  }

  private expr(e: A.Expr, scope: Scope): void {
    switch (e.k) {
      case 'sym':
        this.scalarSym(e, scope);
        return;
      case 'index': {
        if (e.base.k === 'sym') this.arraySym(e.base, e.indexes.length, scope);
        else this.expr(e.base, scope);
        for (const i of e.indexes) {
          if (!i) throw new SemanticError('wildcard not allowed in array index', e.base.tok, [], 'wildcard-index');
          this.expr(i, scope);
        }
        return;
      }
      case 'in': {
        this.arraySym(e.array, e.keys.length, scope);
        for (const k of e.keys) if (k) this.expr(k, scope);
        return;
      }
      case 'call':
        for (const a of e.args) this.expr(a, scope);
        this.call(e, scope);
        return;
      case 'ternary': {
        const v = this.branchCondition(e.cond, scope);
        if (v === undefined) {
          this.expr(e.then, scope);
          this.expr(e.else, scope);
          return;
        }
        const live = v ? e.then : e.else;
        this.expr(live, scope);
        replaceNode(e, live);
        return;
      }
      case 'defined': {
        if (containsAutocast(e.operand)) {
          // `x->f` needs x's DWARF type, known only when pass 2 types the program: decided there
          this.expr(e.operand, scope);
          return;
        }
        // nested @defined (@choose_defined of @choose_defined) fold first
        const nested = containsDefined(e.operand);
        if (nested) this.expr(e.operand, scope);
        const v = this.definedValue(e.operand, scope);
        // an operand without target expressions (`@defined(x)` of a plain local) is resolved
        // as any expression (x is read: no never-assigned warning is lost) and folds to 0: only
        // target expansion makes a @defined 1 (real-stap -p2/-p3 -e 'probe begin { x = 1;
        // println(@defined(x)) }': prints 0)
        if (!nested && v !== false) {
          this.expr(e.operand, scope);
          const reads = (x: A.Expr): void => {
            if (x.k === 'sym' && x.ref) this.definedReads.add(x.ref);
            exprChildren(x, reads);
          };
          reads(e.operand);
        }
        fold(e, v === true ? 1 : 0);
        return;
      }
      case 'atop':
        // (outside an alias epilogue: stap reports it and ends with its text, no `Pass 2` line;
        // real-stap -p2 'probe begin { println(@probewrite(x)) }')
        if (e.name === '@probewrite') throw new SemanticError('unexpected @probewrite', e.tok, [], FATAL_SITE);
        exprChildren(e, (c) => this.expr(c, scope));
        return;
      case 'assign': {
        // stap checks in pass 2 what the parser let through (`1 = x`, `f() = 2`), in its
        // optimiser (util.ts notLvalue): the chained line names what stands on the left
        const t = e.target;
        if (!(t.k === 'sym' || t.k === 'index' && t.base.k === 'sym' || t.k === 'target' || t.k === 'cast' || t.k === 'atvar' || t.k === 'autocast')) {
          // (`a . b = 1` reads as a member access typed with '.': stap suggests `->`)
          const hint = t.k === 'concat' ? ', try -> instead' : '';
          const at = t.k === 'index' ? t.base.tok : t.tok;
          notLvalue.set(e, new SemanticError(`Expecting lvalue for assignment${hint}`, e.tok, [new SemanticError('', at)], 'lvalue'));
        }
        exprChildren(e, (c) => this.expr(c, scope));
        return;
      }
      case 'incdec':
        if (scope.fn && e.operand.k === 'index' && e.operand.base.k === 'hist') {
          throw new SemanticError('Assignment to read-only histogram bucket', e.operand.base.tok, [], 'hist-bucket-write');
        }
        exprChildren(e, (c) => this.expr(c, scope));
        return;
      case 'entry':
        // (what stays of an invalid one is an error of the type resolution, after the optimiser)
        if (!scope.point || !(/\.return\b/.test(scope.point.pp) || scope.provider?.entryValid?.(scope.point, scope.pn ?? ''))) invalidEntry.add(e);
        this.expr(e.operand, scope);
        return;
      default: {
        exprChildren(e, (c) => this.expr(c, scope));
      }
    }
  }

  /** `@defined(x)`: is a target expression resolvable here? Plain expressions are defined. */
  /** true: every target expression of `e` resolves; false: one does not; null: there are none. */
  private definedValue(e: A.Expr, scope: Scope): boolean | null {
    let ok = true;
    let targets = false;
    const check = (x: A.Expr): void => {
      if (x.k === 'target' || x.k === 'atvar' || x.k === 'cast' || x.k === 'autocast') {
        targets = true;
        let p = scope.provider;
        let point = scope.point;
        if ((!point || !p?.targetDefined) && (x.k === 'cast' || x.k === 'atvar')) {
          // context-free: resolved as in a `begin` probe (see TypeResolver.targetExpr)
          p = defaultRegistry().root.children.get('begin')?.provider;
          point = { family: 'begin', pp: 'begin', data: { seq: 0, contextFree: !point } };
        }
        if (!p?.targetDefined || !point || !p.targetDefined(point, x)) ok = false;
      }
      exprChildren(x, check);
    };
    check(e);
    return targets ? ok : null;
  }

  /** Told of each call's look-up as it is made (the build's records: alias_expansions_make.ts). */
  onCall?: (e: A.Call, found: readonly A.FunctionDecl[]) => void;

  private call(e: A.Call, scope: Scope): void {
    const cands = this.s.findFunctions(e.name, scope.file, e.tok);
    this.onCall?.(e, cands);
    if (cands.length === 0) {
      const sugg = suggest(e.name, this.s.functionNames(this.usedFunctions));
      throw new SemanticError(withSimilar(`unresolved function ${e.name}`, sugg), e.tok, [], 'unresolved-function');
    }
    const same = cands.filter((f) => f.params.length === e.args.length);
    if (same.length === 0) {
      // (then where the function is declared, as stap chains it)
      throw new SemanticError(`arity mismatch found (function '${e.name}' takes ${cands[cands.length - 1].params.length} args)`, e.tok,
        [new SemanticError('', cands[cands.length - 1].tok)], 'arity-mismatch');
    }
    const head = linkChain(same);
    e.ref = head;
    // stap 4.8: a tapset function whose embedded C says /* guru */ may be called from the tapsets
    // (nd2_syscall.* call __set_syscall_pt_regs) but, without -g, not from a user's script;
    // reported at the call and resolution goes on (checked against real-stap)
    if (!this.s.opts.guru && !scope.file.isTapset && same.some(isGuruOnly)) {
      this.say(new SemanticError('function may not be used unless -g is specified', e.tok, [], 'guru-function'));
    }
    this.use(head);
  }
}

function isGuruOnly(f: A.FunctionDecl): boolean {
  return f.body.k === 'embedded' && (f.pragmas ?? pragmasOf(f.body.code)).includes('guru');
}

/** Order same-arity overloads by priority then declaration order; link `nextOverload`. */
function linkChain(same: A.FunctionDecl[]): A.FunctionDecl {
  const order = same.map((f, i) => ({ f, i })).sort((a, b) => a.f.priority - b.f.priority || a.i - b.i).map((x) => x.f);
  if (!chainDone.has(order[0])) {
    for (let i = 0; i < order.length; i++) {
      order[i].nextOverload = order[i + 1];
      chainDone.add(order[i]);
    }
  }
  return order[0];
}

/** Does `e` contain `@defined`? */
export function containsDefined(e: A.Expr): boolean {
  let found = false;
  const walk = (x: A.Expr): void => {
    if (x.k === 'defined') found = true;
    else exprChildren(x, walk);
  };
  walk(e);
  return found;
}

function containsAutocast(e: A.Expr): boolean {
  let found = false;
  const walk = (x: A.Expr): void => {
    if (x.k === 'autocast') found = true;
    else exprChildren(x, walk);
  };
  walk(e);
  return found;
}

/** Truth of a condition made of literals, `!`, `&&` and `||` (after @defined folding); undefined if not constant. */
export function constTruth(e: A.Expr): boolean | undefined {
  switch (e.k) {
    case 'num': return BigInt(e.value as unknown as bigint | number) !== 0n;
    case 'unary': {
      if (e.op !== '!') return undefined;
      const v = constTruth(e.operand);
      return v === undefined ? undefined : !v;
    }
    case 'logical': {
      const l = constTruth(e.left);
      const r = constTruth(e.right);
      if (e.op === '&&') return l === false || r === false ? false : l && r ? true : undefined;
      return l === true || r === true ? true : l === false && r === false ? false : undefined;
    }
    default: return undefined;
  }
}

/** Make `node` become `by` in place (parents keep their reference). */
export function replaceNode(node: object, by: object): void {
  if (node === by) return;
  const n = node as Record<string, unknown>;
  const copy = { ...(by as Record<string, unknown>) };
  for (const k of Object.keys(n)) delete n[k];
  Object.assign(n, copy);
}

export { fold };
