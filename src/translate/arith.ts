/**
 * Plain-JS forms of int64 operators, chosen from operand and result ranges
 * (src/translate/ranges.ts).  Each rule returns JS source computing exactly the C int64
 * result in canonical Long form (a number, never -0) — or null when the ranges don't prove
 * it, and the code generator calls the int64 helper instead.
 *
 * Why each form is exact (a, b are JS numbers: a Long within ±(2^53-1) is always a number):
 *  - `a + b`, `a - b`, `a * b`: exact when the true result is within ±(2^53-1); `*` gives -0
 *    for 0 * negative, normalised by `+ 0` when the ranges allow it;
 *  - `a / b` with b ≠ 0 and |a| < 2^53: trunc of the rounded quotient is the true truncated
 *    quotient (the rounding error |a/b|·2^-53 < 1/|b| cannot cross an integer);
 *    `| 0` truncates and drops -0 when the quotient fits int32, else `Math.trunc(..) + 0`;
 *  - `a % b` with b ≠ 0: fmod of safe integers is exact with C's sign rule; -0 (negative
 *    multiple) dropped with `| 0` or `+ 0`;
 *  - `&`, `|`, `^`, `~`, `<<`: JS int32 operators are exact on int32 operands; ToInt32 of a
 *    safe integer is its low 32 bits, so `x & m` with 0 <= m < 2^31 is exact for any safe x
 *    (and for any tree of `& | ^ ~` over safe integers below such a mask);
 *  - `>>` by a count known to be k in [0, 63]: `a >> k` for int32 a and k < 32, else
 *    `Math.floor(a / 2^k)` (exact: division by a power of two).
 * A division or remainder whose divisor range excludes 0 cannot fail: no error location.
 */
import type * as A from '../ast';
import { Range, SAFE, INT32, UINT31, within, hasZero } from './ranges';

export type Emit = (a: string, b: string) => string;

function constCount(r: Range): number | null {
  return r.lo === r.hi && r.lo >= 0n && r.lo <= 63n ? Number(r.lo) : null;
}

/** Plain JS for `a op b` given the ranges of a, b and the result; null: use the helper. */
export function fastBinary(op: A.BinaryOp, ra: Range, rb: Range, rr: Range): Emit | null {
  if (!within(ra, SAFE)) return null;
  if (op === '<<' || op === '>>' || op === '>>>') return fastShift(op, ra, rb, rr);
  if (!within(rb, SAFE)) return null;
  switch (op) {
    case '+':
    case '-':
      if (!within(rr, SAFE)) return null;
      return (a, b) => `(${a} ${op} ${b})`;
    case '*': {
      if (!within(rr, SAFE)) return null;
      const negZero = (hasZero(ra) && rb.lo < 0n) || (hasZero(rb) && ra.lo < 0n);
      return negZero ? (a, b) => `(${a} * ${b} + 0)` : (a, b) => `(${a} * ${b})`;
    }
    case '/': {
      if (hasZero(rb)) return null;
      if (within(rr, INT32)) return (a, b) => `((${a} / ${b}) | 0)`;
      const negZero = (ra.lo < 0n && rb.hi > 0n) || (ra.hi > 0n && rb.lo < 0n);
      return negZero ? (a, b) => `(Math.trunc(${a} / ${b}) + 0)` : (a, b) => `Math.trunc(${a} / ${b})`;
    }
    case '%':
      if (hasZero(rb)) return null;
      if (ra.lo >= 0n) return (a, b) => `(${a} % ${b})`;
      if (within(rr, INT32)) return (a, b) => `((${a} % ${b}) | 0)`;
      return (a, b) => `(${a} % ${b} + 0)`;
    case '&':
      if (within(ra, UINT31) || within(rb, UINT31) || (within(ra, INT32) && within(rb, INT32))) return (a, b) => `(${a} & ${b})`;
      return null;
    case '|':
    case '^':
      if (within(ra, INT32) && within(rb, INT32)) return (a, b) => `(${a} ${op} ${b})`;
      return null;
  }
  return null;
}

function fastShift(op: '<<' | '>>' | '>>>', ra: Range, rb: Range, rr: Range): Emit | null {
  const k = constCount(rb);
  if (k === null) return null;
  // the count's code is always evaluated (it may have effects); a literal is used as is
  const pow = (b: string) => (/^[0-9]+$/.test(b) ? `${2 ** k}` : `2 ** ${b}`);
  if (op === '<<') {
    if (within(ra, INT32) && within(rr, INT32) && k < 32) return (a, b) => `(${a} << ${b})`;
    if (within(rr, SAFE)) return (a, b) => `(${a} * ${pow(b)})`;
    return null;
  }
  if (op === '>>>' && ra.lo < 0n) return null;
  if (within(ra, INT32) && k < 32) return (a, b) => `(${a} >> ${b})`;
  return (a, b) => `Math.floor(${a} / ${pow(b)})`;
}

/** Plain JS for unary `-a` / `~a`; null: use the helper. */
export function fastUnary(op: '-' | '~', ra: Range, rr: Range): ((a: string) => string) | null {
  if (op === '-') return within(ra, SAFE) ? (a) => `(0 - ${a})` : null;
  if (within(ra, INT32)) return (a) => `(~${a})`;
  if (within(ra, SAFE) && within(rr, SAFE)) return (a) => `(-1 - ${a})`;
  return null;
}

/**
 * Can `e` be computed by JS int32 operators when only its low 32 bits matter (it sits below
 * a `& m` with 0 <= m < 2^31)?  True for safe-integer values and trees of `& | ^ ~` over them.
 */
export function low32Able(e: A.Expr, rangeOf: (e: A.Expr) => Range): boolean {
  if (within(rangeOf(e), SAFE)) return true;
  if (e.k === 'binary' && (e.op === '&' || e.op === '|' || e.op === '^')) return low32Able(e.left, rangeOf) && low32Able(e.right, rangeOf);
  if (e.k === 'unary' && e.op === '~') return low32Able(e.operand, rangeOf);
  return false;
}
