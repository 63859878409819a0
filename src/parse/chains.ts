/**
 * Long runs of one associative operator are parsed into balanced trees (src/parse/expr.ts); the
 * printers (-p1, -p2) show them as written, left-associated: `((a + b) + c) + d`.
 */
import type * as A from '../ast';

type ChainNode = A.Binary | A.Logical | A.Concat;

function inChain(e: A.Expr, id: number): e is ChainNode {
  return (e.k === 'binary' || e.k === 'logical' || e.k === 'concat') && e.chain === id;
}

/** The operands of the chain `e` belongs to, in source order (null: e is not a chain node). */
export function chainOperands(e: A.Expr): A.Expr[] | null {
  if ((e.k !== 'binary' && e.k !== 'logical' && e.k !== 'concat') || e.chain === undefined) return null;
  const id = e.chain;
  const out: A.Expr[] = [];
  const stack: A.Expr[] = [e];
  while (stack.length) {
    const x = stack.pop()!;
    if (inChain(x, id)) {
      stack.push(x.right, x.left);
    } else out.push(x);
  }
  return out;
}

/** `(((a) op (b)) op (c))`-style text of a chain, each operand printed by `text`. */
export function chainText(e: A.Binary | A.Logical | A.Concat, operands: A.Expr[], text: (x: A.Expr) => string): string {
  const op = e.k === 'concat' ? '.' : e.op;
  let s = text(operands[0]);
  for (let i = 1; i < operands.length; i++) s = `(${s}) ${op} (${text(operands[i])})`;
  return s;
}
