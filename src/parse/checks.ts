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

type Item = { s: A.Stmt; d: number } | { e: A.Expr | null | undefined; d: number; hist?: boolean };

export function checkBody(c: Cursor, body: A.Stmt): void {
  void c;
  const stack: Item[] = [{ s: body, d: weight(body) }];
  const push = (items: Item[]): void => {
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
  };
  while (stack.length) {
    const it = stack.pop()!;
    if (it.d > MAX_WEIGHT) {
      const tok = 's' in it ? it.s.tok : it.e?.tok;
      throw new ParseError(`statements and expressions nested too deeply (the limit is about ${MAX_WEIGHT / 2} levels)`, tok);
    }
    if ('s' in it) {
      const s = it.s;
      const d = it.d + 2; // an expression
      const st = (x: A.Stmt): Item => ({ s: x, d: it.d + weight(x, s.k !== 'block') });
      switch (s.k) {
        case 'block': push(s.stmts.map(st)); break;
        case 'expr': stack.push({ e: s.expr, d }); break;
        case 'if': push([{ e: s.cond, d }, st(s.then), ...(s.else ? [st(s.else)] : [])]); break;
        case 'while': push([{ e: s.cond, d }, st(s.body)]); break;
        case 'for': push([{ e: s.init, d }, { e: s.cond, d }, { e: s.incr, d }, st(s.body)]); break;
        case 'foreach': {
          const items: Item[] = [];
          if (s.array.k === 'hist') items.push({ e: s.array.operand, d });
          for (const x of s.slice ?? []) items.push({ e: x, d });
          items.push({ e: s.limit, d }, st(s.body));
          push(items);
          break;
        }
        case 'return': stack.push({ e: s.value, d }); break;
        case 'delete': stack.push({ e: s.target, d }); break;
        case 'try': push([st(s.body), st(s.handler)]); break;
        default: break;
      }
      continue;
    }
    const d = it.d + 2;
    const e = it.e;
    if (!e) continue;
    const sub = (first: (A.Expr | null | undefined)[], rest: (A.Expr | null | undefined)[] = []): void => {
      for (let i = rest.length - 1; i >= 0; i--) stack.push({ e: rest[i], d });
      for (let i = first.length - 1; i >= 0; i--) stack.push({ e: first[i], d });
    };
    const comps = (cs: A.TargetComponent[]): (A.Expr | null)[] => cs.map((x) => (x.k === 'index' ? x.index : null));
    switch (e.k) {
      case 'hist': throw new ParseError('base histogram operator where expression expected', e.tok);
      case 'index': sub(e.base.k === 'hist' ? [e.base.operand] : [], e.indexes); break;
      case 'print': sub(e.hist ? [e.hist.operand] : [], e.args); break;
      case 'binary': case 'logical': case 'compare': case 'concat': sub([e.left, e.right]); break;
      case 'regex': sub([e.left]); break;
      case 'unary': case 'incdec': case 'entry': case 'defined': case 'statop': sub([e.operand]); break;
      case 'ternary': sub([e.cond, e.then, e.else]); break;
      case 'assign': sub([e.target, e.value]); break;
      case 'call': case 'atop': sub(e.args); break;
      case 'in': sub(e.keys); break;
      case 'cast': case 'autocast': sub([e.operand], comps(e.components)); break;
      case 'target': case 'atvar': sub(comps(e.components)); break;
      default: break;
    }
  }
}
