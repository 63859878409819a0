/**
 * Checks on a parsed probe or function body, in one walk with an explicit stack (no recursion):
 * histograms only where a histogram may stand (print arguments, indexed, foreach), and the
 * depth of the tree within what every later pass can take.  The parser bounds its own nesting
 * (MAX_NESTING); chains it builds without nesting (`a - b - c ...`, `x ? y : z ? ...`) still
 * make deep trees, and the JavaScript the translator makes of a tree nests deeper than the tree
 * (an expression level up to two parentheses, a foreach three blocks): V8 compiles at most
 * about 2000 levels.  So the depth is weighed in those units (MAX_WEIGHT).
 */
import type * as A from '../ast';
import { ParseError } from '../diag';
import type { Cursor } from './cursor';

/** The weighed depth of tree the passes after parsing may meet (see above). */
export const MAX_WEIGHT = 1600;

/** How much deeper the JavaScript of statement s nests (a block that is a body adds nothing). */
function weight(s: A.Stmt, body = false): number {
  if (s.k === 'block') return body ? 0 : 1;
  return s.k === 'foreach' ? 3 : s.k === 'while' || s.k === 'for' ? 2 : 1;
}

type Node = A.Stmt | A.Expr | null | undefined;

const STMT_KINDS = new Set(['block', 'expr', 'if', 'while', 'for', 'foreach', 'return', 'next', 'break', 'continue', 'delete', 'try', 'null']);

/** Walk a body: nodes and their weighed depths on two stacks, children pushed in reverse. */
export function checkBody(c: Cursor, body: A.Stmt): void {
  void c;
  const nodes: Node[] = [body];
  const depths: number[] = [weight(body)];
  // pushes in reverse source order, so that the walk meets nodes (and errors) in source order
  let mark = 0;
  const begin = (): void => {
    mark = nodes.length;
  };
  const end = (): void => {
    for (let i = mark, j = nodes.length - 1; i < j; i++, j--) {
      const n = nodes[i];
      nodes[i] = nodes[j];
      nodes[j] = n;
      const d = depths[i];
      depths[i] = depths[j];
      depths[j] = d;
    }
  };
  let exprDepth = 0;
  let stmtDepth = 0;
  let inBody = false;
  const ex = (x: A.Expr | null | undefined): void => {
    nodes.push(x);
    depths.push(exprDepth);
  };
  const st = (x: A.Stmt | undefined): void => {
    if (!x) return;
    nodes.push(x);
    depths.push(stmtDepth + weight(x, inBody));
  };
  while (nodes.length) {
    const node = nodes.pop();
    const at = depths.pop()!;
    if (!node) continue;
    if (at > MAX_WEIGHT) {
      throw new ParseError(`statements and expressions nested too deeply (the limit is about ${MAX_WEIGHT / 2} levels)`, node.tok);
    }
    exprDepth = at + 2; // an expression below
    if (STMT_KINDS.has(node.k)) {
      const s = node as A.Stmt;
      stmtDepth = at;
      inBody = s.k !== 'block';
      begin();
      switch (s.k) {
        case 'block': for (const x of s.stmts) st(x); break;
        case 'expr': ex(s.expr); break;
        case 'if': ex(s.cond); st(s.then); st(s.else); break;
        case 'while': ex(s.cond); st(s.body); break;
        case 'for': ex(s.init); ex(s.cond); ex(s.incr); st(s.body); break;
        case 'foreach':
          if (s.array.k === 'hist') ex(s.array.operand);
          for (const x of s.slice ?? []) ex(x);
          ex(s.limit);
          st(s.body);
          break;
        case 'return': ex(s.value); break;
        case 'delete': ex(s.target); break;
        case 'try': st(s.body); st(s.handler); break;
        default: break;
      }
      end();
      continue;
    }
    const e = node as A.Expr;
    begin();
    switch (e.k) {
      case 'hist': throw new ParseError('base histogram operator where expression expected', e.tok);
      case 'index':
        if (e.base.k === 'hist') ex(e.base.operand);
        for (const x of e.indexes) ex(x);
        break;
      case 'print':
        if (e.hist) ex(e.hist.operand);
        for (const x of e.args) ex(x);
        break;
      case 'binary': case 'logical': case 'compare': case 'concat': ex(e.left); ex(e.right); break;
      case 'regex': ex(e.left); break;
      case 'unary': case 'incdec': case 'entry': case 'defined': case 'statop': ex(e.operand); break;
      case 'ternary': ex(e.cond); ex(e.then); ex(e.else); break;
      case 'assign': ex(e.target); ex(e.value); break;
      case 'call': case 'atop': for (const x of e.args) ex(x); break;
      case 'in': for (const x of e.keys) ex(x); break;
      case 'cast': case 'autocast':
        ex(e.operand);
        for (const x of e.components) if (x.k === 'index') ex(x.index);
        break;
      case 'target': case 'atvar':
        for (const x of e.components) if (x.k === 'index') ex(x.index);
        break;
      default: break;
    }
    end();
  }
}
