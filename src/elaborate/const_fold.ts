/**
 * stap 4.8's constant folder (elaborate.cxx const_folder), one step of the optimiser's loop:
 * operators on literals become literals, identities drop a side-effect-free operand (`x * 0`,
 * `1 || x`), and control flow on a literal condition keeps only the live
 * part (`if (0) S` is gone, `while (0)`, `foreach ... limit 0`, `c ? a : b`).  The dead part is
 * not visited: what it holds is neither checked nor typed (`if (0) { println(3 >>> 1) }` passes,
 * as in stap).  A folded literal takes the operator's token, as stap's.
 *
 * What stap's folder refuses while it visits is checked here too: `>>>` on two literals (it has
 * no rule for it) and a statistics operator applied to another one.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import * as I from '../runtime/int64';
import { cmpBytes } from './util';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export class ConstFolder {
  /** something was folded (the optimiser then runs another iteration) */
  changed = false;

  /**
   * `pure(e)`: e may be dropped (no side effects, no target expressions); `replaceNode(e, by)`:
   * make e become by in place (the optimiser's, which keeps its marks).
   */
  constructor(private pure: (e: A.Expr) => boolean, private replaceNode: (e: A.Expr, by: A.Expr) => void) {}

  block(b: A.Block): void {
    for (let i = 0; i < b.stmts.length; i++) b.stmts[i] = this.stmt(b.stmts[i]);
  }

  /** The statement that replaces `s`. */
  stmt(s: A.Stmt): A.Stmt {
    switch (s.k) {
      case 'block': this.block(s); return s;
      case 'expr': this.expr(s.expr); return s;
      case 'if': {
        const c = this.num(s.cond);
        if (c === undefined) {
          s.then = this.stmt(s.then);
          if (s.else) s.else = this.stmt(s.else);
          return s;
        }
        this.changed = true;
        if (c !== 0n) return this.stmt(s.then);
        return s.else ? this.stmt(s.else) : { k: 'null', tok: s.tok };
      }
      case 'while': {
        const c = this.num(s.cond);
        if (c === 0n) {
          this.changed = true;
          return { k: 'null', tok: s.tok };
        }
        s.body = this.stmt(s.body);
        return s;
      }
      case 'for': {
        const c = s.cond ? this.num(s.cond) : undefined;
        if (c === 0n) {
          this.changed = true;
          if (!s.init) return { k: 'null', tok: s.tok };
          this.expr(s.init);
          return { k: 'expr', expr: s.init, tok: s.tok };
        }
        if (s.init) this.expr(s.init);
        if (s.incr) this.expr(s.incr);
        s.body = this.stmt(s.body);
        return s;
      }
      case 'foreach': {
        const l = s.limit ? this.num(s.limit) : undefined;
        if (l !== undefined && l <= 0n) {
          this.changed = true;
          return { k: 'null', tok: s.tok };
        }
        if (s.array.k === 'hist') this.expr(s.array);
        for (const x of s.slice ?? []) if (x) this.expr(x);
        s.body = this.stmt(s.body);
        return s;
      }
      case 'return': if (s.value) this.expr(s.value); return s;
      case 'delete': this.expr(s.target); return s;
      case 'try': this.block(s.body); this.block(s.handler); return s;
      default: return s;
    }
  }

  /** Fold `e` (in place); its value when it is (now) a number literal. */
  private num(e: A.Expr): bigint | undefined {
    this.expr(e);
    return e.k === 'num' ? BigInt(e.value) : undefined;
  }

  private str(e: A.Expr): string | undefined {
    this.expr(e);
    return e.k === 'str' ? e.value : undefined;
  }

  /** Fold an expression in place. */
  expr(e: A.Expr): void {
    switch (e.k) {
      case 'binary': return this.binary(e);
      case 'logical': return this.logical(e);
      case 'compare': return this.compare(e);
      case 'concat': return this.concat(e);
      case 'unary': {
        const v = this.num(e.operand);
        if (v === undefined) return;
        const x = I.fromBigInt(v);
        this.toNum(e, e.op === '+' ? x : e.op === '-' ? I.neg(x) : e.op === '!' ? (v === 0n ? 1 : 0) : I.bitNot(x));
        return;
      }
      case 'ternary': {
        const c = this.num(e.cond);
        if (c === undefined) {
          this.expr(e.then);
          this.expr(e.else);
          return;
        }
        const live = c !== 0n ? e.then : e.else;
        this.expr(live);
        this.replace(e, live);
        return;
      }
      case 'statop': case 'hist': {
        const o = e.operand;
        const inner = o.k === 'index' && o.base.k === 'hist' ? o.base : o;
        if (inner.k === 'statop' || inner.k === 'hist') {
          throw new SemanticError('Expecting symbol or array index expression', inner.tok, [], 'stat-operand');
        }
        this.children(e);
        return;
      }
      default:
        this.children(e);
    }
  }

  private children(e: A.Expr): void {
    const visit = (c: A.Expr): void => this.expr(c);
    switch (e.k) {
      case 'num': case 'str': case 'sym': case 'embedded': return;
      case 'regex': visit(e.left); return;
      case 'incdec': visit(e.operand); return;
      case 'assign': visit(e.target); visit(e.value); return;
      case 'index': visit(e.base); for (const i of e.indexes) if (i) visit(i); return;
      case 'call': case 'atop': for (const a of e.args) visit(a); return;
      case 'print': for (const a of e.args) visit(a); if (e.hist) visit(e.hist); return;
      case 'statop': case 'hist': visit(e.operand); return;
      case 'in': for (const k of e.keys) if (k) visit(k); visit(e.array); return;
      case 'target': case 'atvar': for (const c of e.components) if (c.k === 'index') visit(c.index); return;
      case 'cast': case 'autocast':
        visit(e.operand);
        for (const c of e.components) if (c.k === 'index') visit(c.index);
        return;
      case 'entry': case 'defined': visit(e.operand); return;
      default: return;
    }
  }

  private binary(e: A.Binary): void {
    const l = this.num(e.left);
    const r = this.num(e.right);
    const op = e.op;
    if (r === 0n && (op === '/' || op === '%')) return; // (a run-time error, if it survives)
    if (l !== undefined && r !== undefined) {
      if (op === '>>>') throw new SemanticError('unsupported binary operator >>>', undefined, [], 'fold->>>');
      // (stap's own division would trap on this one: left to run time)
      if ((op === '/' || op === '%') && l === INT64_MIN && r === -1n) return;
      // (a shift count outside 0..63 leaves the value as it is: stap's folded `120 << -2` is 120)
      if ((op === '<<' || op === '>>') && (r < 0n || r > 63n)) this.toNum(e, I.fromBigInt(l));
      else this.toNum(e, arith(op, I.fromBigInt(l), I.fromBigInt(r)));
      return;
    }
    const absorbing = (l !== undefined && ((l === 0n && (op === '*' || op === '&' || op === '>>' || op === '<<')) ||
        (l === -1n && (op === '|' || op === '>>')))) ||
      (r !== undefined && ((r === 0n && (op === '*' || op === '&')) || (r === 1n && op === '%') ||
        (r === -1n && (op === '%' || op === '|'))));
    if (absorbing) {
      const other = l !== undefined ? e.right : e.left;
      if (!this.pure(other)) return;
      this.toNum(e, I.fromBigInt(l !== undefined ? l : op === '%' ? 0n : r!));
      return;
    }
    // (stap also drops the literal of `x + 0`, `x * 1`, `"" . s`...; nothing observable changes
    // with it, as the operand keeps the type the operator gave it: not done here)
  }

  private logical(e: A.Logical): void {
    const l = this.num(e.left);
    const r = this.num(e.right);
    const and = e.op === '&&';
    let v: boolean;
    if (l !== undefined && r !== undefined) v = and ? l !== 0n && r !== 0n : l !== 0n || r !== 0n;
    else {
      // the deciding literal: on the left it short-circuits the right; on the right the left
      // can only go when it is pure
      const decides = (x: bigint | undefined): boolean => x !== undefined && (and ? x === 0n : x !== 0n);
      if (!decides(l) && !decides(r)) return;
      if (l === undefined && !this.pure(e.left)) return;
      v = !and;
    }
    this.toNum(e, v ? 1 : 0);
  }

  private compare(e: A.Compare): void {
    this.expr(e.left);
    this.expr(e.right);
    const L = e.left;
    const R = e.right;
    let c: number;
    if (L.k === 'str' && R.k === 'str') c = cmpBytes(L.value, R.value);
    else if (L.k === 'num' && R.k === 'num') c = I.cmp(BigInt(L.value), BigInt(R.value));
    else {
      // a comparison with INT64_MIN or INT64_MAX that is decided whatever the other side is
      const op = e.op;
      const lv = L.k === 'num' ? BigInt(L.value) : undefined;
      const rv = R.k === 'num' ? BigInt(R.value) : undefined;
      let v: boolean | undefined;
      if (lv === INT64_MIN && (op === '<=' || op === '>')) v = op === '<=';
      else if (lv === INT64_MAX && (op === '>=' || op === '<')) v = op === '>=';
      else if (rv === INT64_MIN && (op === '>=' || op === '<')) v = op === '>=';
      else if (rv === INT64_MAX && (op === '<=' || op === '>')) v = op === '<=';
      if (v === undefined || !this.pure(lv !== undefined ? R : L)) return;
      this.toNum(e, v ? 1 : 0);
      return;
    }
    const op = e.op;
    const v = op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : op === '>=' ? c >= 0 : op === '==' ? c === 0 : c !== 0;
    this.toNum(e, v ? 1 : 0);
  }

  private concat(e: A.Concat): void {
    const l = this.str(e.left);
    const r = this.str(e.right);
    if (l !== undefined && r !== undefined) {
      const n = e as unknown as Record<string, unknown>;
      const tok = e.tok;
      for (const k of Object.keys(n)) delete n[k];
      Object.assign(n, { k: 'str', value: l + r, tok, type: 'string' });
      this.changed = true;
    }
  }

  private toNum(e: A.Expr, v: A.Long): void {
    const n = e as unknown as Record<string, unknown>;
    const tok = e.tok;
    for (const k of Object.keys(n)) delete n[k];
    Object.assign(n, { k: 'num', value: v, tok, type: 'long' });
    this.changed = true;
  }

  private replace(e: A.Expr, by: A.Expr): void {
    this.replaceNode(e, by);
    this.changed = true;
  }
}

function arith(op: A.Binary['op'], a: A.Long, b: A.Long): A.Long {
  switch (op) {
    case '+': return I.add(a, b);
    case '-': return I.sub(a, b);
    case '*': return I.mul(a, b);
    case '/': return I.div(a, b);
    case '%': return I.mod(a, b);
    case '&': return I.bitAnd(a, b);
    case '|': return I.bitOr(a, b);
    case '^': return I.bitXor(a, b);
    case '<<': return I.shl(a, b);
    case '>>': return I.shr(a, b);
    default: return I.ushr(a, b);
  }
}
