/** BigInt reference of stap's int64 binary operators (C semantics; shift counts: negative = unchanged, else & 63). */
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
    case '<<': return b < 0n ? a : w(a << (b & 63n));
    case '>>': return b < 0n ? a : a >> (b & 63n);
    case '>>>': return b < 0n ? a : w(BigInt.asUintN(64, a) >> (b & 63n));
  }
}
