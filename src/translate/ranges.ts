/**
 * Static range (interval) analysis of long values for the code generator (pass 3).
 *
 *   analyzeRanges(root, init): RangeMap
 *
 * Walks a probe or function body in evaluation order with an abstract state mapping every
 * long scalar variable (locals, parameters, scalar globals) to an interval [lo, hi] of exact
 * int64 values (bigint bounds).  The result maps each long expression node to an interval
 * containing every value it can produce, whatever the run; a node absent from the map may
 * be anything (TOP).  src/translate/arith.ts uses the intervals to replace the int64 helpers
 * by plain JS operators where they are provably exact.
 *
 * Soundness rules (every rewrite relies on them):
 *  - arithmetic follows C int64 semantics: a bound that may overflow makes the result TOP
 *    (the value wraps);
 *  - loops: every variable the loop may modify (syntactically, anywhere in its condition,
 *    increment or body) is TOP at the loop head, inside and after the loop;
 *  - a call of a script function may write any global: all globals become TOP after it
 *    (builtins and target-variable reads cannot write script variables);
 *  - try: the catch handler starts with every variable the try body modifies at TOP;
 *  - operands whose evaluation order differs between code shapes (map keys and values,
 *    call arguments) are analysed order-insensitively: if one of them writes a variable,
 *    that variable is TOP for all of them and after them;
 *  - `@entry(...)` operands run in another handler and are not analysed (their nodes stay TOP).
 */
import type * as A from '../ast';

export interface Range {
  readonly lo: bigint;
  readonly hi: bigint;
}

const MIN64 = -(2n ** 63n);
const MAX64 = 2n ** 63n - 1n;
export const TOP: Range = { lo: MIN64, hi: MAX64 };
export const INT32: Range = { lo: -(2n ** 31n), hi: 2n ** 31n - 1n };
/** Non-negative 31-bit values: a mask that makes JS int32 bitwise operators exact. */
export const UINT31: Range = { lo: 0n, hi: 2n ** 31n - 1n };
/** Values held as JS numbers in the canonical Long form. */
export const SAFE: Range = { lo: -(2n ** 53n - 1n), hi: 2n ** 53n - 1n };
export const BOOL: Range = { lo: 0n, hi: 1n };

/** An interval of exact results; TOP when it leaves int64 (C arithmetic wraps). */
export function range(lo: bigint, hi: bigint): Range {
  if (lo < MIN64 || hi > MAX64) return TOP;
  return { lo, hi };
}

export function exact(v: bigint): Range {
  return { lo: v, hi: v };
}

export function within(r: Range, outer: Range): boolean {
  return r.lo >= outer.lo && r.hi <= outer.hi;
}

export function join(a: Range, b: Range): Range {
  if (a === b) return a;
  return { lo: a.lo < b.lo ? a.lo : b.lo, hi: a.hi > b.hi ? a.hi : b.hi };
}

export function hasZero(r: Range): boolean {
  return r.lo <= 0n && r.hi >= 0n;
}

export function isTop(r: Range): boolean {
  return r.lo === MIN64 && r.hi === MAX64;
}

const min = (...xs: bigint[]) => xs.reduce((a, b) => (b < a ? b : a));
const max = (...xs: bigint[]) => xs.reduce((a, b) => (b > a ? b : a));
const babs = (x: bigint) => (x < 0n ? -x : x);

/** Number of bits of a non-negative bigint (0 -> 0). */
function bitlen(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** Smallest [-2^n, 2^n-1] containing r. */
function signedHull(r: Range): Range {
  const n = Math.max(r.hi >= 0n ? bitlen(r.hi) : 0, r.lo < 0n ? bitlen(-r.lo - 1n) : 0);
  const p = 1n << BigInt(n);
  return { lo: -p, hi: p - 1n };
}

// ---------------------------------------------------------------- transfer functions

export function addR(a: Range, b: Range): Range {
  return range(a.lo + b.lo, a.hi + b.hi);
}

export function subR(a: Range, b: Range): Range {
  return range(a.lo - b.hi, a.hi - b.lo);
}

export function mulR(a: Range, b: Range): Range {
  const c = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
  return range(min(...c), max(...c));
}

/** The nonzero parts of a divisor range: [lo, -1] and [1, hi] when present. */
function nonzeroParts(b: Range): Range[] {
  const parts: Range[] = [];
  if (b.lo <= -1n) parts.push({ lo: b.lo, hi: b.hi < -1n ? b.hi : -1n });
  if (b.hi >= 1n) parts.push({ lo: b.lo > 1n ? b.lo : 1n, hi: b.hi });
  return parts;
}

/** C division (truncating); division by zero throws, so only nonzero divisors count. */
export function divR(a: Range, b: Range): Range {
  const parts = nonzeroParts(b);
  if (!parts.length) return TOP;
  // a / b is monotonic in each operand on each sign part of b: extremes are at corners
  const c: bigint[] = [];
  for (const p of parts) c.push(a.lo / p.lo, a.lo / p.hi, a.hi / p.lo, a.hi / p.hi);
  return range(min(...c), max(...c)); // INT64_MIN / -1 = 2^63 -> TOP (wraps)
}

/** C remainder: sign of the dividend, |r| < |b|, |r| <= |a|. */
export function modR(a: Range, b: Range): Range {
  if (!nonzeroParts(b).length) return TOP;
  const m = max(babs(b.lo), babs(b.hi)) - 1n;
  return { lo: a.lo >= 0n ? 0n : max(a.lo, -m), hi: a.hi <= 0n ? 0n : min(a.hi, m) };
}

export function andR(a: Range, b: Range): Range {
  if (a.lo >= 0n && b.lo >= 0n) return { lo: 0n, hi: min(a.hi, b.hi) };
  if (a.lo >= 0n) return { lo: 0n, hi: a.hi };
  if (b.lo >= 0n) return { lo: 0n, hi: b.hi };
  return join(signedHull(a), signedHull(b));
}

export function orR(a: Range, b: Range): Range {
  if (a.lo >= 0n && b.lo >= 0n) return { lo: max(a.lo, b.lo), hi: (1n << BigInt(bitlen(max(a.hi, b.hi)))) - 1n };
  return join(signedHull(a), signedHull(b));
}

export function xorR(a: Range, b: Range): Range {
  if (a.lo >= 0n && b.lo >= 0n) return { lo: 0n, hi: (1n << BigInt(bitlen(max(a.hi, b.hi)))) - 1n };
  return join(signedHull(a), signedHull(b));
}

export function notR(a: Range): Range {
  return { lo: -a.hi - 1n, hi: -a.lo - 1n };
}

export function negR(a: Range): Range {
  return range(-a.hi, -a.lo); // -INT64_MIN wraps -> TOP
}

/** Shifts as the generated code does them: a negative count leaves the value unchanged. */
function shiftR(a: Range, c: Range, f: (a: Range, k: Range) => Range): Range {
  if (c.hi > 63n || c.lo < 0n) return TOP; // the count is masked with 63
  return f(a, c);
}

export function shlR(a: Range, c: Range): Range {
  return shiftR(a, c, (x, k) => {
    const p = 1n << k.lo;
    const q = 1n << k.hi;
    return range(min(x.lo * p, x.lo * q), max(x.hi * p, x.hi * q));
  });
}

export function shrR(a: Range, c: Range): Range {
  return shiftR(a, c, (x, k) => ({ lo: min(x.lo >> k.lo, x.lo >> k.hi), hi: max(x.hi >> k.lo, x.hi >> k.hi) }));
}

export function ushrR(a: Range, c: Range): Range {
  if (a.lo < 0n) return TOP;
  return shrR(a, c);
}

export function binaryR(op: A.BinaryOp, a: Range, b: Range): Range {
  switch (op) {
    case '+': return addR(a, b);
    case '-': return subR(a, b);
    case '*': return mulR(a, b);
    case '/': return divR(a, b);
    case '%': return modR(a, b);
    case '&': return andR(a, b);
    case '|': return orR(a, b);
    case '^': return xorR(a, b);
    case '<<': return shlR(a, b);
    case '>>': return shrR(a, b);
    case '>>>': return ushrR(a, b);
  }
}

const ASSIGN_OP: Partial<Record<A.AssignOp, A.BinaryOp>> = {
  '+=': '+', '-=': '-', '*=': '*', '/=': '/', '%=': '%', '<<=': '<<', '>>=': '>>', '&=': '&', '^=': '^', '|=': '|',
};
/** The binary operator of a compound assignment (`+=` -> `+`), if it is an arithmetic one. */
export function assignBinaryOp(op: A.AssignOp): A.BinaryOp | undefined {
  return ASSIGN_OP[op];
}

// ---------------------------------------------------------------- the analysis

export type RangeMap = Map<A.Expr, Range>;

/** A long scalar variable the analysis tracks. */
export function tracked(d: A.VarDecl | undefined): d is A.VarDecl {
  return !!d && d.type === 'long' && (d.arity ?? 0) <= 0;
}

/** Sub-expressions of an expression, including target-expression index components. */
function kids(e: A.Expr): A.Expr[] {
  switch (e.k) {
    case 'binary': case 'logical': case 'compare': case 'concat': case 'regex':
      return [e.left, e.right];
    case 'unary': case 'incdec': case 'statop': case 'hist': case 'defined':
      return [e.operand];
    case 'entry':
      return []; // evaluated in the entry handler
    case 'ternary': return [e.cond, e.then, e.else];
    case 'assign': return [e.target, e.value];
    case 'index': return [e.base, ...e.indexes.filter((x): x is A.Expr => !!x)];
    case 'call': case 'atop': return e.args;
    case 'print': return e.hist ? [...e.args, e.hist] : e.args;
    case 'in': return [...e.keys.filter((x): x is A.Expr => !!x), e.array];
    case 'target': case 'atvar':
      return componentIndexes(e.components);
    case 'cast': case 'autocast':
      return [e.operand, ...componentIndexes(e.components)];
    default:
      return [];
  }
}

function componentIndexes(cs: A.TargetComponent[]): A.Expr[] {
  const out: A.Expr[] = [];
  for (const c of cs) if (c.k === 'index') out.push(c.index);
  return out;
}

/** What a statement or expression may write: variables, and whether it may write globals it doesn't name. */
interface ModSet {
  vars: Set<A.VarDecl>;
  allGlobals: boolean;
}

function modSet(nodes: (A.Stmt | A.Expr | null | undefined)[]): ModSet {
  const m: ModSet = { vars: new Set(), allGlobals: false };
  const ex = (e: A.Expr | null | undefined): void => {
    if (!e) return;
    if (e.k === 'assign' && e.target.k === 'sym' && e.target.ref) m.vars.add(e.target.ref);
    if (e.k === 'incdec' && e.operand.k === 'sym' && e.operand.ref) m.vars.add(e.operand.ref);
    if (e.k === 'call' && e.ref && e.ref.body.k === 'block') m.allGlobals = true;
    for (const k of kids(e)) ex(k);
  };
  const st = (s: A.Stmt | undefined): void => {
    if (!s) return;
    switch (s.k) {
      case 'block': s.stmts.forEach(st); return;
      case 'expr': ex(s.expr); return;
      case 'if': ex(s.cond); st(s.then); st(s.else); return;
      case 'while': ex(s.cond); st(s.body); return;
      case 'for': ex(s.init); ex(s.cond); ex(s.incr); st(s.body); return;
      case 'foreach':
        for (const k of s.keys) if (k.ref) m.vars.add(k.ref);
        if (s.value?.ref) m.vars.add(s.value.ref);
        s.slice?.forEach((x) => ex(x));
        ex(s.limit); st(s.body);
        return;
      case 'return': ex(s.value); return;
      case 'delete':
        if (s.target.k === 'sym' && s.target.ref) m.vars.add(s.target.ref);
        ex(s.target);
        return;
      case 'try':
        st(s.body);
        if (s.catchVar?.ref) m.vars.add(s.catchVar.ref);
        st(s.handler);
        return;
      default: return;
    }
  };
  for (const n of nodes) {
    if (!n) continue;
    if (isStmt(n)) st(n);
    else ex(n);
  }
  return m;
}

const STMT_KINDS = new Set(['block', 'expr', 'if', 'while', 'for', 'foreach', 'return', 'next', 'break', 'continue', 'delete', 'try', 'null']);
function isStmt(n: A.Stmt | A.Expr): n is A.Stmt {
  return STMT_KINDS.has(n.k);
}

type State = Map<A.VarDecl, Range>;

class Analyzer {
  readonly out: RangeMap = new Map();
  state: State;

  constructor(init: State) {
    this.state = new Map(init);
  }

  private get(d: A.VarDecl): Range {
    return this.state.get(d) ?? TOP;
  }

  private set(d: A.VarDecl, r: Range): void {
    if (!tracked(d)) return;
    if (isTop(r)) this.state.delete(d);
    else this.state.set(d, r);
  }

  private rec(e: A.Expr, r: Range): Range {
    const old = this.out.get(e);
    this.out.set(e, old ? join(old, r) : r);
    return r;
  }

  private havoc(m: ModSet): void {
    for (const d of m.vars) this.state.delete(d);
    if (m.allGlobals) for (const d of [...this.state.keys()]) if (d.kind === 'global') this.state.delete(d);
  }

  /** Pointwise join of two states (a variable missing from either is TOP). */
  private static joinStates(a: State, b: State): State {
    const r: State = new Map();
    for (const [d, x] of a) {
      const y = b.get(d);
      if (y) r.set(d, join(x, y));
    }
    return r;
  }

  private mergeFrom(other: State): void {
    this.state = Analyzer.joinStates(this.state, other);
  }

  /** Evaluate operands whose order may differ between code shapes. */
  private unordered(es: A.Expr[]): Range[] {
    const m = modSet(es);
    if (m.vars.size || m.allGlobals) this.havoc(m);
    const start = new Map(this.state);
    const rs = es.map((x) => {
      this.state = new Map(start);
      return this.expr(x);
    });
    this.state = start;
    if (m.allGlobals) this.havoc(m); // a call in any operand: globals unknown afterwards
    return rs;
  }

  expr(e: A.Expr): Range {
    switch (e.k) {
      case 'num':
        return this.rec(e, exact(BigInt(e.value)));
      case 'str':
        return TOP;
      case 'binary': {
        const a = this.expr(e.left);
        const b = this.expr(e.right);
        return this.rec(e, binaryR(e.op, a, b));
      }
      case 'logical': {
        this.expr(e.left);
        const before = new Map(this.state);
        this.expr(e.right);
        this.mergeFrom(before);
        return this.rec(e, BOOL);
      }
      case 'compare':
        this.expr(e.left);
        this.expr(e.right);
        return this.rec(e, BOOL);
      case 'concat':
        this.expr(e.left);
        this.expr(e.right);
        return TOP;
      case 'regex':
        this.expr(e.left);
        return this.rec(e, BOOL);
      case 'unary': {
        const a = this.expr(e.operand);
        switch (e.op) {
          case '-': return this.rec(e, negR(a));
          case '+': return this.rec(e, a);
          case '!': return this.rec(e, BOOL);
          case '~': return this.rec(e, notR(a));
        }
        return TOP;
      }
      case 'incdec': {
        const t = e.operand;
        if (t.k === 'sym' && tracked(t.ref)) {
          const old = this.rec(t, this.get(t.ref));
          const nw = e.op === '++' ? addR(old, exact(1n)) : subR(old, exact(1n));
          this.set(t.ref, nw);
          return this.rec(e, e.prefix ? nw : old);
        }
        this.unordered(kids(t));
        if (t.k === 'sym' && t.ref) this.state.delete(t.ref);
        return TOP;
      }
      case 'ternary': {
        this.expr(e.cond);
        const before = new Map(this.state);
        const a = this.expr(e.then);
        const afterThen = this.state;
        this.state = before;
        const b = this.expr(e.else);
        this.mergeFrom(afterThen);
        return this.rec(e, join(a, b));
      }
      case 'assign':
        return this.assign(e);
      case 'sym':
        if (tracked(e.ref)) return this.rec(e, this.get(e.ref));
        return TOP;
      case 'call': {
        this.unordered(e.args);
        if (e.ref && e.ref.body.k === 'block') this.havoc({ vars: new Set(), allGlobals: true });
        return TOP;
      }
      case 'in':
        this.unordered(kids(e));
        return this.rec(e, BOOL);
      case 'defined':
        return this.rec(e, exact(0n)); // compiled to 0, operand not evaluated
      case 'entry':
        return TOP;
      default:
        this.unordered(kids(e));
        return TOP;
    }
  }

  private assign(e: A.Assign): Range {
    const t = e.target;
    if (t.k === 'sym' && t.ref) {
      const d = t.ref;
      if (!tracked(d)) {
        const r = this.expr(e.value);
        this.state.delete(d);
        return e.op === '=' ? r : TOP;
      }
      if (e.op === '=') {
        const v = this.expr(e.value);
        this.set(d, v);
        return this.rec(e, v);
      }
      const op = assignBinaryOp(e.op);
      // the target may be read before or after the value (division reads it after)
      const before = this.get(d);
      const v = this.expr(e.value);
      const old = this.rec(t, join(before, this.get(d)));
      const r = op ? binaryR(op, old, v) : TOP;
      this.set(d, r);
      return this.rec(e, r);
    }
    this.unordered(kids(e));
    return TOP;
  }

  stmt(s: A.Stmt): void {
    switch (s.k) {
      case 'block':
        for (const x of s.stmts) this.stmt(x);
        return;
      case 'expr':
        this.expr(s.expr);
        return;
      case 'if': {
        this.expr(s.cond);
        const before = new Map(this.state);
        this.stmt(s.then);
        const afterThen = this.state;
        this.state = before;
        if (s.else) this.stmt(s.else);
        this.mergeFrom(afterThen);
        return;
      }
      case 'while':
        this.loop([s.cond, s.body], () => {
          this.expr(s.cond);
          this.stmt(s.body);
        });
        return;
      case 'for':
        if (s.init) this.expr(s.init);
        this.loop([s.cond, s.incr, s.body], (head) => {
          if (s.cond) this.expr(s.cond);
          this.stmt(s.body);
          // reached from the body's end or from a `continue`: the loop-head state covers both
          this.state = new Map(head);
          if (s.incr) this.expr(s.incr);
        });
        return;
      case 'foreach': {
        const pre: A.Expr[] = [];
        s.slice?.forEach((x) => x && pre.push(x));
        if (s.limit) pre.push(s.limit);
        this.unordered(pre);
        this.loop([s], () => this.stmt(s.body));
        return;
      }
      case 'return':
        if (s.value) this.expr(s.value);
        return;
      case 'delete':
        if (s.target.k === 'sym' && tracked(s.target.ref)) this.set(s.target.ref, exact(0n));
        else this.unordered(kids(s.target));
        return;
      case 'try': {
        const before = new Map(this.state);
        this.stmt(s.body);
        const afterBody = this.state;
        this.state = before;
        this.havoc(modSet([s.body]));
        if (s.catchVar?.ref) this.state.delete(s.catchVar.ref);
        this.stmt(s.handler);
        this.mergeFrom(afterBody);
        return;
      }
      default:
        return;
    }
  }

  /** A loop: everything it may modify is unknown at its head, inside and after it. */
  private loop(parts: (A.Stmt | A.Expr | null | undefined)[], body: (head: State) => void): void {
    const m = modSet(parts);
    this.havoc(m);
    const head = new Map(this.state);
    body(head);
    this.state = head;
  }
}

/**
 * Ranges of the long expressions of a handler (probe condition + body, or function body).
 * `init`: ranges of variables on entry (locals start at 0; a variable absent is TOP).
 */
export function analyzeRanges(roots: { cond?: A.Expr; body: A.Stmt }, init: Map<A.VarDecl, Range>): RangeMap {
  return analyzeHandler(roots, init).ranges;
}

/** Also the variables' ranges where the body falls off its end (TOP when absent). */
export function analyzeHandler(roots: { cond?: A.Expr; body: A.Stmt }, init: Map<A.VarDecl, Range>): { ranges: RangeMap; exit: Map<A.VarDecl, Range> } {
  const an = new Analyzer(init);
  if (roots.cond) an.expr(roots.cond);
  an.stmt(roots.body);
  return { ranges: an.out, exit: an.state };
}
