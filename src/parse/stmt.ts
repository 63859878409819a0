/**
 * Statements, with stap's grammar and messages: blocks, `if`/`else`, `while`, `for`,
 * `foreach` (value and key variables, sort markers, slices, `limit`), `try`/`catch`, `return`,
 * `next`, `break`, `continue`, `delete`, and expression statements.  A `;` after a simple
 * statement belongs to it; elsewhere it is an empty statement.
 */
import type * as A from '../ast';
import { ParseError } from '../diag';
import type { Cursor } from './cursor';
import { parseExpression, parseIndexable } from './expr';

const STAT_SORT = new Set(['@count', '@sum', '@min', '@max', '@avg', '@variance']);

export function parseBlock(c: Cursor): A.Block {
  const t = c.next();
  if (!c.isOp(t, '{')) throw c.error("expected '{'");
  c.enter(t);
  const stmts: A.Stmt[] = [];
  for (;;) {
    if (c.peekOp('}')) {
      c.swallow(); // (`try { }` ends with `saw: <input> EOF`)
      break;
    }
    stmts.push(parseStatement(c));
  }
  c.leave();
  return { k: 'block', stmts, tok: t };
}

export function parseStatement(c: Cursor): A.Stmt {
  const t = c.peek();
  if (!t) throw c.error('expected statement');
  if (t.kind === 'operator') {
    if (t.text === ';') {
      c.next();
      return { k: 'null', tok: t };
    }
    if (t.text === '{') return parseBlock(c);
  }
  let s: A.Stmt;
  if (t.kind === 'keyword') {
    switch (t.text) {
      case 'if': return parseIf(c);
      case 'while': return parseWhile(c);
      case 'for': return parseFor(c);
      case 'foreach': return parseForeach(c);
      case 'try': return parseTry(c);
      case 'return': s = parseReturn(c); break;
      case 'delete':
        c.next();
        s = { k: 'delete', target: parseExpression(c), tok: t };
        break;
      case 'next': case 'break': case 'continue':
        c.next();
        s = { k: t.text, tok: t };
        break;
      default:
        throw c.error('expected statement');
    }
  } else if (t.kind === 'operator' || t.kind === 'identifier' || t.kind === 'number' || t.kind === 'string' || t.kind === 'embedded') {
    const e = parseExpression(c);
    s = { k: 'expr', expr: e, tok: e.tok };
    if (t !== e.tok) s.first = t;
  } else throw c.error('expected statement');
  if (c.peekOp(';')) c.next();
  return s;
}

function open(c: Cursor): void {
  if (!c.isOp(c.next(), '(')) throw c.error("expected '('");
}

function close(c: Cursor): void {
  if (!c.isOp(c.next(), ')')) throw c.error("expected ')'");
}

/** A statement nested in a compound one (one level deeper; a block counts itself). */
function nested(c: Cursor, t: A.Token): A.Stmt {
  if (c.peekOp('{')) return parseBlock(c);
  c.enter(t);
  const s = parseStatement(c);
  c.leave();
  return s;
}

function parseIf(c: Cursor): A.If {
  const kw = c.next();
  open(c);
  const cond = parseExpression(c);
  close(c);
  const st: A.If = { k: 'if', cond, then: nested(c, kw), tok: kw };
  if (c.peekKw('else')) {
    const e = c.next();
    st.else = nested(c, e);
  }
  return st;
}

function parseWhile(c: Cursor): A.While {
  const kw = c.next();
  open(c);
  const cond = parseExpression(c);
  close(c);
  return { k: 'while', cond, body: nested(c, kw), tok: kw };
}

/** The init and increment of a `for` (stap's parse_expr_statement: nothing there is its own error). */
function exprStatement(c: Cursor): A.Expr {
  if (!c.peek()) throw c.error('expression statement expected');
  return parseExpression(c);
}

function parseFor(c: Cursor): A.For {
  const kw = c.next();
  open(c);
  const st = { k: 'for', tok: kw } as A.For;
  if (!c.peekOp(';')) st.init = exprStatement(c);
  if (!c.isOp(c.next(), ';')) throw c.error("expected ';'");
  if (!c.peekOp(';')) st.cond = parseExpression(c);
  if (!c.isOp(c.next(), ';')) throw c.error("expected ';'");
  if (!c.peekOp(')')) st.incr = exprStatement(c);
  close(c);
  st.body = nested(c, kw);
  return st;
}

function sortMark(c: Cursor): 1 | -1 | 0 {
  const t = c.peek();
  if (c.isOp(t, '+') || c.isOp(t, '-')) {
    c.next();
    return t.text === '+' ? 1 : -1;
  }
  return 0;
}

function parseForeach(c: Cursor): A.Foreach {
  const kw = c.next();
  open(c);
  const keys: A.Sym[] = [];
  let value: A.Sym | undefined;
  let sortColumn: number | undefined;
  let sortDirection: 1 | -1 | undefined;
  const mark = (col: number, dir: 1 | -1): void => {
    if (sortDirection) throw c.error('multiple sort directives');
    sortColumn = col;
    sortDirection = dir;
  };
  const ident = (): A.Sym => {
    const t = c.next();
    if (t.kind !== 'identifier') throw c.error('expected identifier');
    return { k: 'sym', name: t.text, tok: t };
  };
  // `v = [k1, k2]`, `v = k`, `[k1, k2]` or `k`; each may carry a sort marker
  let single: A.Sym | undefined;
  let singleSort: 1 | -1 | 0 = 0;
  const p = c.peek();
  if (p && p.kind === 'identifier') {
    single = ident();
    singleSort = sortMark(c);
    if (c.peekOp('=')) {
      c.next();
      value = single;
      if (singleSort) mark(0, singleSort);
      single = undefined;
    }
  }
  if (single) {
    keys.push(single);
    if (singleSort) mark(1, singleSort);
  } else if (c.peekOp('[')) {
    c.next();
    for (;;) {
      keys.push(ident());
      const s = sortMark(c);
      if (s) mark(keys.length, s);
      const t = c.next();
      if (c.isOp(t, ',')) {
        c.last = undefined; // (swallowed: `foreach ([a,` ends with `saw: <input> EOF`)
        continue;
      }
      if (c.isOp(t, ']')) break;
      throw c.error("expected ',' or ']'");
    }
  } else {
    keys.push(ident());
    const s = sortMark(c);
    if (s) mark(1, s);
  }
  if (!c.isKw(c.next(), 'in')) throw c.error("expected 'in'");
  const st = { k: 'foreach', keys, tok: kw } as A.Foreach;
  if (value) st.value = value;
  st.array = parseIndexable(c);
  if (st.array.k === 'sym') {
    if (c.peekOp('[')) {
      c.next();
      const slice: (A.Expr | null)[] = [];
      for (;;) {
        if (c.peekOp('*')) {
          c.next();
          slice.push(null);
        } else slice.push(parseExpression(c));
        const s = c.next();
        if (c.isOp(s, ',')) continue;
        if (c.isOp(s, ']')) break;
        throw c.error("expected ',' or ']'");
      }
      st.slice = slice;
    }
  }
  const agg = c.peek();
  if (agg && agg.kind === 'operator' && STAT_SORT.has(agg.text)) {
    c.next();
    const s = sortMark(c);
    if (!s) throw c.error('expected sort directive');
    mark(0, s);
    st.sortAggregate = agg.text.slice(1) as A.StatOpName;
  } else {
    const s = sortMark(c);
    if (s) mark(0, s);
  }
  if (sortDirection) {
    st.sortColumn = sortColumn;
    st.sortDirection = sortDirection;
  }
  if (c.peekKw('limit')) {
    c.next();
    st.limit = parseExpression(c);
  }
  close(c);
  st.body = nested(c, kw);
  return st;
}

function parseTry(c: Cursor): A.Try {
  const kw = c.next();
  const body = parseBlock(c);
  if (!c.isKw(c.next(), 'catch')) throw c.error("expected 'catch'");
  const st = { k: 'try', body, tok: kw } as A.Try;
  if (c.peekOp('(')) {
    c.swallow();
    const id = c.next();
    if (id.kind !== 'identifier') throw c.error('expected identifier');
    st.catchVar = { k: 'sym', name: id.text, tok: id };
    close(c);
    c.last = undefined; // (swallowed: `catch (e)` ends with `saw: <input> EOF`)
  }
  st.handler = parseBlock(c);
  return st;
}

function parseReturn(c: Cursor): A.Return {
  const kw = c.next();
  if (!c.inFunction) throw new ParseError("found 'return' not in function context", kw, true);
  const t = c.peek();
  if (!t || c.isOp(t, ';') || c.isOp(t, '}')) return { k: 'return', tok: kw };
  return { k: 'return', value: parseExpression(c), tok: kw };
}
