/**
 * BigInt reference of stap's int64 binary operators on run-time values (C semantics; the shift
 * count is masked with 63, as stap 4.8's pass 3 emits `a << (b & 63)`: real-stap -p3).
 */
import type * as A from '../../src/ast';

const w = (x: bigint) => BigInt.asIntN(64, x);

export function int64Ref(op: A.BinaryOp, a: bigint, b: bigint): bigint | 'div0' {
  switch (op) {
    case '+': return w(a + b);
    case '-': return w(a - b);
    case '*': return w(a * b);
    case '/': return b === 0n ? 'div0' : w(a / b);
    case '%': return b === 0n ? 'div0' : w(a % b);
    case '&': return a & b;
    case '|': return a | b;
    case '^': return a ^ b;
    case '<<': return w(a << (b & 63n));
    case '>>': return a >> (b & 63n);
    case '>>>': return w(BigInt.asUintN(64, a) >> (b & 63n));
  }
}

/**
 * The same for operands that are constants, which stap's folder computes in pass 2: a shift by
 * a count outside 0..63 leaves the value unchanged (real-stap -p3: `120 << -2` is 120, `1 >> 65` is 1).
 */
export function int64Folded(op: A.BinaryOp, a: bigint, b: bigint): bigint | 'div0' {
  if ((op === '<<' || op === '>>') && (b < 0n || b > 63n)) return a;
  return int64Ref(op, a, b);
}
