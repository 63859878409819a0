/**
 * stap 4.8's void-statement reduction (elaborate.cxx void_statement_reducer): an expression
 * statement's value is unused, so only what computing it does remains.  stap runs it under -u
 * too (real-stap -u -p2 'function f(x) { return x } probe begin { f(1) }' lists no function):
 *
 * - `a OP b` (arithmetic, comparison, `.`) becomes `a; b;`, `-a` / `!a` becomes `a;`, `a =~ "re"`
 *   becomes `a;`;
 * - `a || b` becomes `if (!a) b;`, `a && b` becomes `if (a) b;`, `a ? b : c` becomes
 *   `if (a) b; else c;`;
 * - a call with arguments of functions without side effects (every overload it may reach)
 *   becomes its arguments (`f()` stays);
 * - `sprintf(fmt, args)` and the other string-returning prints become their arguments;
 * - `$x[i]->m`, `@cast(p, "t")[i]`, `@var("v")`, `p->m` become their operand and indexes; `@defined` goes.
 *
 * Array reads, `in`, statistics, assignments and increments stay as they are.  The parts are
 * reduced in turn.
 */
import type * as A from '../ast';

/** Does calling `fn` (or an overload the call may reach) have no effect but its value? */
export type PureCall = (fn: A.FunctionDecl) => boolean;

/** The statement `e;` reduces to, or null when it stays as it is. */
export function reduceVoid(e: A.Expr, pure: PureCall): A.Stmt | null {
  const stmt = (x: A.Expr): A.Stmt => reduceVoid(x, pure) ?? { k: 'expr', tok: x.tok, expr: x };
  const block = (tok: A.Token, parts: A.Expr[]): A.Block => ({ k: 'block', tok, stmts: parts.map(stmt) });
  const components = (cs: A.TargetComponent[]): A.Expr[] => cs.flatMap((c) => (c.k === 'index' ? [c.index] : []));
  switch (e.k) {
    case 'binary': case 'compare': case 'concat':
      return block(e.tok, [e.left, e.right]);
    case 'unary':
      return stmt(e.operand);
    case 'regex':
      return stmt(e.left);
    case 'logical': {
      const cond: A.Expr = e.op === '||' ? { k: 'unary', op: '!', operand: e.left, tok: e.tok, type: 'long' } : e.left;
      return { k: 'if', tok: e.tok, cond, then: stmt(e.right) };
    }
    case 'ternary':
      return { k: 'if', tok: e.tok, cond: e.cond, then: stmt(e.then), else: stmt(e.else) };
    case 'call':
      if (!e.args.length || !e.ref || !pure(e.ref)) return null;
      return block(e.tok, e.args);
    case 'print':
      if (!e.name.startsWith('s') || !e.args.length) return null;
      return block(e.tok, e.args);
    case 'target': case 'atvar':
      return block(e.tok, components(e.components));
    case 'cast': case 'autocast':
      return block(e.tok, [e.operand, ...components(e.components)]);
    case 'defined':
      return { k: 'block', tok: e.tok, stmts: [] };
    default:
      return null;
  }
}

/**
 * Reduces every expression statement of `body` (nested statements too; a `for`'s init and
 * increment stay expressions).  Returns whether anything changed.
 */
export function reduceVoidStatements(body: A.Block, pure: PureCall): boolean {
  let changed = false;
  const visit = (s: A.Stmt): A.Stmt => {
    switch (s.k) {
      case 'expr': {
        const r = reduceVoid(s.expr, pure);
        if (!r) return s;
        changed = true;
        return r;
      }
      case 'block':
        s.stmts = s.stmts.map(visit);
        return s;
      case 'if':
        s.then = visit(s.then);
        if (s.else) s.else = visit(s.else);
        return s;
      case 'while': case 'for': case 'foreach':
        s.body = visit(s.body);
        return s;
      case 'try':
        s.body.stmts = s.body.stmts.map(visit);
        s.handler.stmts = s.handler.stmts.map(visit);
        return s;
      default:
        return s;
    }
  };
  visit(body);
  return changed;
}
