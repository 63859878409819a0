/**
 * Pre-order visits of the expressions below a statement or expression (pass 3's analyses:
 * locals, histograms, call depth, guard candidates).
 */
import type * as A from '../ast';

/** Visit every expression below a statement or expression (pre-order). */
export function walk(node: A.Stmt | A.Expr, fe: (e: A.Expr) => void): void {
  const se = (e: A.Expr | null | undefined) => {
    if (!e) return;
    fe(e);
    exprKids(e, se);
  };
  const ss = (s: A.Stmt | undefined) => {
    if (!s) return;
    switch (s.k) {
      case 'block': s.stmts.forEach(ss); return;
      case 'expr': se(s.expr); return;
      case 'if': se(s.cond); ss(s.then); ss(s.else); return;
      case 'while': se(s.cond); ss(s.body); return;
      case 'for': se(s.init); se(s.cond); se(s.incr); ss(s.body); return;
      case 'foreach':
        s.keys.forEach(se); se(s.value); se(s.array);
        if (s.slice) s.slice.forEach(se);
        se(s.limit); ss(s.body);
        return;
      case 'return': se(s.value); return;
      case 'delete': se(s.target); return;
      case 'try': ss(s.body); se(s.catchVar); ss(s.handler); return;
      default: return;
    }
  };
  if (isStmt(node)) ss(node);
  else se(node);
}

const STMT_KINDS = new Set(['block', 'expr', 'if', 'while', 'for', 'foreach', 'return', 'next', 'break', 'continue', 'delete', 'try', 'null']);
function isStmt(n: A.Stmt | A.Expr): n is A.Stmt {
  return STMT_KINDS.has(n.k);
}

function exprKids(e: A.Expr, f: (c: A.Expr | null) => void): void {
  switch (e.k) {
    case 'binary': case 'logical': case 'compare': case 'concat': case 'regex':
      f(e.left); f(e.right); return;
    case 'unary': case 'incdec': case 'statop': case 'hist': case 'entry': case 'defined':
      f(e.operand); return;
    case 'ternary': f(e.cond); f(e.then); f(e.else); return;
    case 'assign': f(e.target); f(e.value); return;
    case 'index': f(e.base); e.indexes.forEach(f); return;
    case 'call': case 'atop': e.args.forEach(f); return;
    case 'print': e.args.forEach(f); if (e.hist) f(e.hist); return;
    case 'in': e.keys.forEach(f); f(e.array); return;
    case 'cast': case 'autocast': f(e.operand); return;
    default: return;
  }
}
