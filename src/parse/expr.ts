/**
 * Expressions, by recursive descent for nesting and operator precedence (an operator stack)
 * for the binary levels, with stap's grammar and messages:
 *
 *   assignment (right-assoc) < ?: < || < && < | < ^ < & < in < comparisons and =~ !~ <
 *   << >> >>> < . < + - < * / % < unary + - ! ~ < ++ -- < & target < value and suffixes
 *
 * As in stap, `in` ends a comparison-level operand (`a == b in c` is `(a == b) in c`, and
 * nothing of higher precedence may follow it), `=~` takes a literal and may only be the first
 * operator of a comparison chain, and `[a, b] in c` starts an operand of `&` or lower.
 *
 * Long chains of one associative operator (machine-generated `a . b . c ...`, `x + y + ...`)
 * are built balanced, so no later walk of the tree recurses once per operand; their nodes carry
 * a `chain` id with which the printers give back the left-associated form.  Every nesting level
 * counts against the cursor's bound (MAX_NESTING).
 */
import type * as A from '../ast';
import { ParseError } from '../diag';
import type { Cursor } from './cursor';
import {
  parseNumber, negate, stringLiteral, signedNumber, splitPretty, targetWithComponents, guruOnly, guruOnlyOp,
} from './literals';
import { parseFormat } from '../runtime/format';
import { compatBefore } from './version';

const ASSIGN_OPS = new Set(['=', '<<<', '<<=', '>>=', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=', '.=']);

/** Binding strength of the binary operators (`in` is 8, between `&` and the comparisons). */
const PREC: Record<string, number> = {
  '||': 3, '&&': 4, '|': 5, '^': 6, '&': 7,
  '<': 9, '>': 9, '<=': 9, '>=': 9, '==': 9, '!=': 9, '=~': 9, '!~': 9,
  '<<': 10, '>>': 10, '>>>': 10, '.': 11, '+': 12, '-': 12, '*': 13, '/': 13, '%': 13,
};
const IN_PREC = 8;
const CMP_PREC = 9;

/** Operators whose chains may be regrouped (64-bit wrap-around keeps + and * associative). */
const ASSOCIATIVE = new Set(['||', '&&', '|', '^', '&', '.', '+', '*']);
/** Chains of at least this many operands are built balanced. */
export const REBALANCE_AT = 64;

const PRINT_NAMES = new Set(['print', 'println', 'sprint', 'sprintln', 'printd', 'printdln', 'sprintd', 'sprintdln', 'printf', 'sprintf']);
const STAT_OPS = new Set(['@count', '@sum', '@min', '@max', '@avg', '@variance']);
const ATOPS_4_0 = new Set(['@kderef', '@uderef', '@kregister', '@uregister']);
const OTHER_AT_OPS = new Set(['@kderef', '@uderef', '@kregister', '@uregister', '@perf', '@probewrite', '@const']);

export function parseExpression(c: Cursor): A.Expr {
  c.enter(c.last);
  let e = parseBinary(c, 0);
  let t = c.peek();
  if (t && t.kind === 'operator' && t.text === '?') e = ternaries(c, e);
  t = c.peek();
  if (t && t.kind === 'operator' && ASSIGN_OPS.has(t.text)) {
    // (any expression: stap 4.8 checks the target in pass 2, `Expecting lvalue for assignment`)
    c.next();
    e = { k: 'assign', op: t.text as A.AssignOp, target: e, value: parseExpression(c), tok: t };
  }
  c.leave();
  return e;
}

/** `a ? b : c ? d : e` nests to the right: conditions and branches are collected first. */
function ternaries(c: Cursor, first: A.Expr): A.Expr {
  const conds: A.Expr[] = [];
  const thens: A.Expr[] = [];
  const marks: A.Token[] = [];
  let e = first;
  for (let q = c.peek(); q && q.kind === 'operator' && q.text === '?'; q = c.peek()) {
    c.next();
    const then = parseExpression(c);
    if (!c.isOp(c.next(), ':')) throw c.error("expected ':'");
    conds.push(e);
    thens.push(then);
    marks.push(q);
    if (compatBefore(c.opts.compatible, '4.0')) {
      // before 4.0 the else branch was a whole expression: `c ? a : x = 1` assigned in the branch
      e = parseExpression(c);
      break;
    }
    e = parseBinary(c, 0);
  }
  for (let i = conds.length - 1; i >= 0; i--) e = { k: 'ternary', cond: conds[i], then: thens[i], else: e, tok: marks[i] };
  return e;
}

interface PendingOp { op: string; tok: A.Token; prec: number }

/**
 * Binary operators of precedence >= minPrec, left-associative.  Operands pile up with their
 * operators and are combined when a weaker operator (or the end) arrives.
 */
export function parseBinary(c: Cursor, minPrec: number): A.Expr {
  const operands: A.Expr[] = [];
  const ops: PendingOp[] = [];
  // the last operand was made at the `in` level (`x in a`, `[k] in a`): only weaker operators follow
  let tupleLevel = false;
  let regexHere = false; // the last operand is a regex match made in this chain
  let t = c.peek();
  if (minPrec <= IN_PREC && t && t.kind === 'operator' && t.text === '[') {
    operands.push(parseTuple(c, t));
    tupleLevel = true;
  } else {
    const first = parseUnary(c);
    // most expressions are one operand: no operator stack then
    const n = c.peek();
    if (!n || (n.kind === 'operator' ? PREC[n.text] === undefined : !(n.kind === 'keyword' && n.text === 'in'))) return first;
    operands.push(first);
  }
  for (t = c.peek(); t; t = c.peek()) {
    let prec: number | undefined;
    if (t.kind === 'keyword' && t.text === 'in') prec = IN_PREC;
    else if (t.kind === 'operator') prec = PREC[t.text];
    if (prec === undefined || prec < minPrec || (tupleLevel && prec >= IN_PREC)) break;
    // (a regex match ends its comparison: no comparison or stronger operator follows it, real-stap
    // -p1 `x = "abc" =~ "a" . "b"` parses `x = "abc" =~ "a"` then fails at the `.`)
    if (regexHere && prec >= CMP_PREC) break;
    const regex = t.text === '=~' || t.text === '!~';
    // left-associative: stronger operators before this one are combined now, equal ones stay
    // stacked (reduceRun takes such runs left to right); `in` and =~ also take equal ones
    while (ops.length && ops[ops.length - 1].prec > prec) reduceRun(c, operands, ops);
    if (prec === IN_PREC) {
      c.next();
      const array = parseIndexable(c);
      operands.push(inExpr([operands.pop()!], array, t));
      tupleLevel = true;
      regexHere = false;
      continue;
    }
    if (regex) {
      if (regexHere || (ops.length && ops[ops.length - 1].prec === CMP_PREC)) break;
      c.next();
      const lit = c.peek();
      if (!lit || lit.kind !== 'string') {
        c.next();
        throw c.error('expected literal string');
      }
      const right = stringLiteral(c);
      operands.push({ k: 'regex', op: t.text as '=~' | '!~', left: operands.pop()!, right, tok: t });
      regexHere = true;
      continue;
    }
    c.next();
    ops.push({ op: t.text, tok: t, prec });
    const n = c.peek();
    if (prec < IN_PREC && n && n.kind === 'operator' && n.text === '[') {
      operands.push(parseTuple(c, n));
      tupleLevel = true;
    } else {
      operands.push(parseUnary(c));
      tupleLevel = false;
    }
    regexHere = false;
  }
  while (ops.length) reduceRun(c, operands, ops);
  return operands[0];
}

/**
 * Combine the operators on top of the stack that share the top one's precedence (all left-
 * associative): a run of one associative operator long enough is built balanced.
 */
function reduceRun(c: Cursor, operands: A.Expr[], ops: PendingOp[]): void {
  const prec = ops[ops.length - 1].prec;
  let k = ops.length;
  while (k > 0 && ops[k - 1].prec === prec) k--;
  const run = ops.splice(k);
  const args = operands.splice(operands.length - run.length - 1);
  let left = args[0];
  let i = 0;
  while (i < run.length) {
    let j = i;
    while (j + 1 < run.length && run[j + 1].op === run[i].op) j++;
    const n = j - i + 1;
    if (n + 1 >= REBALANCE_AT && ASSOCIATIVE.has(run[i].op)) {
      const chain = ++c.chainIds;
      // left op (x1 op x2 op ... xn), the parenthesised part balanced
      const right = balanced(run, args, i, j, chain);
      left = makeBinary(run[i].op, run[i].tok, left, right, chain);
    } else {
      for (let m = i; m <= j; m++) left = makeBinary(run[m].op, run[m].tok, left, args[m + 1]);
    }
    i = j + 1;
  }
  operands.push(left);
}

/** Operands args[i+1..j+1] joined by the operators run[i+1..j] as a balanced tree. */
function balanced(run: PendingOp[], args: A.Expr[], i: number, j: number, chain: number): A.Expr {
  // bottom-up pairing: no recursion
  let level: A.Expr[] = args.slice(i + 1, j + 2);
  let toks: A.Token[] = run.slice(i + 1, j + 1).map((o) => o.tok);
  const op = run[i].op;
  while (level.length > 1) {
    const next: A.Expr[] = [];
    const nextToks: A.Token[] = [];
    for (let m = 0; m < level.length; m += 2) {
      if (m + 1 < level.length) {
        next.push(makeBinary(op, toks[m], level[m], level[m + 1], chain));
        if (m + 2 < level.length) nextToks.push(toks[m + 1]);
      } else next.push(level[m]);
    }
    level = next;
    toks = nextToks;
  }
  return level[0];
}

function makeBinary(o: string, tok: A.Token, l: A.Expr, r: A.Expr, chain?: number): A.Expr {
  let e: A.Expr;
  switch (o) {
    case '&&': case '||': e = { k: 'logical', op: o, left: l, right: r, tok }; break;
    case '.': e = { k: 'concat', left: l, right: r, tok }; break;
    case '<': case '>': case '<=': case '>=': case '==': case '!=': return { k: 'compare', op: o, left: l, right: r, tok };
    default: e = { k: 'binary', op: o as A.BinaryOp, left: l, right: r, tok };
  }
  if (chain !== undefined) (e as A.Binary).chain = chain;
  return e;
}

/**
 * After `in`: the array, a name or any `@word` (stap's expect_ident_or_atword: `k in @sum` is an
 * array named `@sum`, refused in pass 2 as an undeclared global), or a histogram.
 */
export function parseIndexable(c: Cursor): A.Sym | A.Hist {
  const a = c.peek();
  if (c.isOp(a, '@hist_log') || c.isOp(a, '@hist_linear')) return parseAtOperator(c) as A.Hist;
  const t = c.next();
  if (t.kind !== 'identifier' && !(t.kind === 'operator' && t.text.startsWith('@'))) throw c.error('expected identifier or statistical operation');
  return { k: 'sym', name: t.text, tok: t };
}

/**
 * `keys in array`; `k in @hist_*(s)` is `@hist_*(s)[k]`, the bucket's count (stap's translator
 * delegates it to the index: true iff the bucket is nonzero, errors on the histogram's token).
 */
function inExpr(keys: (A.Expr | null)[], array: A.Sym | A.Hist, tok: A.Token): A.Expr {
  if (array.k === 'hist') return { k: 'index', base: array, indexes: keys, tok: array.tok };
  return { k: 'in', keys, array, tok };
}

/** `[k1, k2, ...] in array` (a single `[k]` without `in` is just k, as in stap). */
function parseTuple(c: Cursor, open: A.Token): A.Expr {
  c.enter(open);
  c.next();
  const keys: (A.Expr | null)[] = [];
  for (;;) {
    if (c.peekOp('*')) {
      c.next();
      keys.push(null);
    } else keys.push(parseBinary(c, CMP_PREC));
    const t = c.next();
    if (c.isOp(t, ',')) continue;
    if (c.isOp(t, ']')) break;
    throw c.error("expected ',' or ']'");
  }
  c.leave();
  const t = c.peek();
  if (c.isKw(t, 'in')) {
    c.next();
    return inExpr(keys, parseIndexable(c), t);
  }
  if (keys.length === 1 && keys[0]) return keys[0];
  if (keys.length === 1) throw c.error('wildcard not allowed in array index');
  throw c.error('unexpected comma-separated expression list');
}

function parseUnary(c: Cursor): A.Expr {
  const prefix: A.Token[] = [];
  for (;;) {
    const t = c.peek();
    if (t && t.kind === 'operator' && (t.text === '+' || t.text === '-' || t.text === '!' || t.text === '~')) {
      c.next();
      c.enter(t);
      prefix.push(t);
    } else break;
  }
  let e: A.Expr;
  const t = c.peek();
  if (t && t.kind === 'operator' && (t.text === '++' || t.text === '--')) {
    c.next();
    // (any operand: stap 4.8's pass 3 refuses a non-lvalue, `invalid lvalue type`)
    const x = parseDwarfValue(c);
    e = { k: 'incdec', op: t.text, prefix: true, operand: x, tok: t };
  } else {
    e = parseDwarfValue(c);
    const p = c.peek();
    if (p && p.kind === 'operator' && (p.text === '++' || p.text === '--')) {
      c.next();
      e = { k: 'incdec', op: p.text, prefix: false, operand: e, tok: p };
    }
  }
  for (let i = prefix.length - 1; i >= 0; i--) {
    e = { k: 'unary', op: prefix[i].text as A.Unary['op'], operand: e, tok: prefix[i] };
    c.leave();
  }
  return e;
}

/** `&`? value suffix*: targets, @cast, @var, and `->`/`[]`/`$` after any value. */
function parseDwarfValue(c: Cursor): A.Expr {
  const amp = c.peek();
  if (c.isOp(amp, '&')) {
    c.next();
    const v = c.peek();
    const isTarget = !!v && ((v.kind === 'identifier' && v.text.startsWith('$')) || c.isOp(v, '@cast') || c.isOp(v, '@var'));
    // before 2.6 only target expressions take an address (`& &y` too: real-stap --compatible=2.5);
    // since, `&` on any value is an autocast
    if (!isTarget && compatBefore(c.opts.compatible, '2.6')) throw c.error('expected @cast, @var or $var');
    // (one `&`: stap then wants a value, `& &` fails at the second)
    if (c.isOp(v, '&')) throw c.error('expected literal string or number');
    c.enter(amp);
    let x: A.Expr;
    if (!isTarget && c.isOp(v, '-')) {
      // (stap's literal: `-` and a number)
      c.next();
      const n = c.next();
      if (!n || n.kind !== 'number') throw c.error('expected literal string or number');
      x = parseSuffixes(c, { k: 'num', value: negate(parseNumber(n.text, n)), tok: n });
    } else x = parseDwarfValue(c);
    c.leave();
    if (!isTarget && x.k !== 'autocast') x = { k: 'autocast', operand: x, components: [], tok: amp };
    else if (x.k === 'autocast') x.tok = amp;
    (x as A.Target).addressOf = true;
    return x;
  }
  // the value (inline, not a call: one stack frame less per nested parenthesis)
  let e: A.Expr;
  const t = c.peek();
  if (!t) throw c.error('expected value');
  if (t.kind === 'number') {
    c.next();
    e = { k: 'num', value: parseNumber(t.text, t), tok: t };
  } else if (t.kind === 'string') e = stringLiteral(c);
  else if (t.kind === 'identifier') e = parseSymbol(c);
  else if (t.kind === 'operator' && t.text === '(') {
    c.next();
    e = parseExpression(c);
    if (!c.isOp(c.next(), ')')) throw c.error("expected ')'");
  } else if (t.kind === 'operator' && t.text[0] === '@') e = parseAtOperator(c);
  else if (t.kind === 'embedded') {
    c.next();
    // (the parser then meets the same code at the top level: `embedded code in unprivileged script`)
    guruOnly(c, t, 'embedded expression code', c.pos - 1);
    e = { k: 'embedded', code: t.text, tok: t };
  } else if (c.isOp(t, '-')) {
    // (where a value is due directly, after `++`/`--`, stap's literal takes a `-` and a number:
    // real-stap -p1 'probe begin { ++-x }' fails at the x)
    c.next();
    const n = c.next();
    if (!n || n.kind !== 'number') throw c.error('expected literal string or number');
    e = { k: 'num', value: negate(parseNumber(n.text, n)), tok: n };
  } else {
    c.next();
    throw c.error('expected literal string or number');
  }
  return parseSuffixes(c, e);
}

/** The `->member`, `[index]` and `$`/`$$` suffixes after a value. */
function parseSuffixes(c: Cursor, e: A.Expr): A.Expr {
  // before 2.6 only target expressions take `->` and `[` (no autocast)
  const noAutocast = compatBefore(c.opts.compatible, '2.6');
  for (;;) {
    const u = c.peek();
    if (!u) break;
    if (noAutocast && e.k !== 'target' && e.k !== 'cast' && e.k !== 'atvar' && e.k !== 'hist') break;
    if (u.kind === 'operator' && u.text === '->') {
      c.next();
      const m = c.next();
      if (m.kind !== 'identifier' && m.kind !== 'keyword') throw c.error('expected identifier or keyword');
      const sp = splitPretty(m.text);
      e = targetWithComponents(e, { k: 'member', name: sp.name, tok: m }, sp.pretty, u);
    } else if (u.kind === 'operator' && u.text === '[') {
      c.next();
      const idx = parseExpression(c);
      if (!c.isOp(c.next(), ']')) throw c.error("expected ']'");
      if (e.k === 'hist') e = { k: 'index', base: e, indexes: [idx], tok: e.tok };
      else e = targetWithComponents(e, { k: 'index', index: idx, tok: u }, 0);
    } else if (u.kind === 'identifier' && (u.text === '$' || u.text === '$$')) {
      // `@cast(p, "T")$`, `$v[0]$$`: pretty-printing after `)` or `]`
      c.next();
      if (e.k !== 'target' && e.k !== 'cast' && e.k !== 'atvar') throw new ParseError('expected @cast, @var or $var', u, true);
      if (e.pretty) throw new ParseError('-> and [ are not accepted for a pretty-printing variable', u);
      e.pretty = u.text === '$$' ? 2 : 1;
    } else break;
  }
  return e;
}

/** A name: variable, target variable, array element, function call or print. */
function parseSymbol(c: Cursor): A.Expr {
  const id = c.next();
  const name = id.text;
  const t = c.peek();
  // (print functions are operators of stap's grammar: they need their arguments)
  if (PRINT_NAMES.has(name) && !c.isOp(t, '(')) throw c.error("expected '('");
  if (c.isOp(t, '(')) {
    c.next();
    if (PRINT_NAMES.has(name)) return parsePrint(c, id, name);
    const args: A.Expr[] = [];
    if (c.peekOp(')')) c.next();
    else {
      for (;;) {
        args.push(parseExpression(c));
        const s = c.next();
        if (c.isOp(s, ')')) break;
        if (!c.isOp(s, ',')) throw c.error("expected one of ') ,'");
      }
    }
    for (const a of args) if (a.k === 'hist') throw new ParseError('base histogram operator where expression expected', a.tok);
    return { k: 'call', name, args, tok: id };
  }
  if (c.isOp(t, '[')) {
    c.next();
    const items: (A.Expr | null)[] = [];
    for (;;) {
      if (c.peekOp('*')) {
        c.next();
        items.push(null);
      } else items.push(parseExpression(c));
      const s = c.next();
      if (c.isOp(s, ']')) break;
      if (!c.isOp(s, ',')) throw c.error("expected one of '] ,'");
    }
    if (name.startsWith('$') && items.length === 1) {
      // `$ptr[i]`: an index component of the target variable
      const idx = items[0];
      if (!idx) throw new ParseError('wildcard not allowed in array index', t);
      const sp = splitPretty(name);
      const base: A.Target = { k: 'target', name: sp.name, components: [], pretty: 0, addressOf: false, tok: id };
      return targetWithComponents(base, { k: 'index', index: idx, tok: t }, 0);
    }
    const base: A.Sym = { k: 'sym', name, tok: id };
    return { k: 'index', base, indexes: items, tok: id };
  }
  if (name.startsWith('$')) {
    const sp = splitPretty(name);
    return { k: 'target', name: sp.name, components: [], pretty: sp.pretty, addressOf: false, tok: id } as A.Target;
  }
  return { k: 'sym', name, tok: id };
}

/** `@name(...)`: histograms, statistics, @cast, @var, @entry, @defined and the rest. */
export function parseAtOperator(c: Cursor): A.Expr {
  const tok = c.next();
  const name = tok.text;
  // operators of 4.0 (parse.cxx: atwords known only with has_version("4.0"))
  if (ATOPS_4_0.has(name) && compatBefore(c.opts.compatible, '4.0')) throw new ParseError(`unknown operator ${name}`, tok, true);
  // stap's parser refuses raw kernel access outside guru mode (and tapsets) at the operator
  if (name === '@kregister' || name === '@kderef' || name === '@const') guruOnlyOp(c, tok, name);
  const open = c.peek();
  if (!c.isOp(open, '(')) {
    if (STAT_OPS.has(name) || name === '@entry' || name === '@defined' || name === '@cast' || name === '@task' || name === '@var'
      || name === '@hist_log' || name === '@hist_linear' || OTHER_AT_OPS.has(name)) {
      throw c.error("expected '('");
    }
    throw new ParseError(`unknown operator ${name}`, tok, true);
  }
  if (name === '@hist_log' || name === '@hist_linear') {
    c.next();
    const operand = parseExpression(c);
    const params: A.Long[] = [];
    if (name === '@hist_linear') {
      for (let i = 0; i < 3; i++) {
        if (!c.isOp(c.next(), ',')) throw c.error("expected ','");
        params.push(signedNumber(c, 'expected number').value);
      }
    }
    if (!c.isOp(c.next(), ')')) throw c.error("expected ')'");
    return { k: 'hist', kind: name === '@hist_log' ? 'log' : 'linear', operand, params, tok };
  }
  if (!STAT_OPS.has(name) && !OTHER_AT_OPS.has(name) && !['@entry', '@defined', '@cast', '@task', '@var'].includes(name)) {
    throw new ParseError(`unknown operator ${name}`, tok, true);
  }
  c.next();
  if (ATOPS_4_0.has(name)) return rawAccess(c, tok, name);
  if (name === '@probewrite') {
    // stap's parser: the name of a variable, nothing else
    const id = c.next();
    if (id.kind !== 'identifier') throw c.error('expected identifier');
    c.expectOp(')');
    return { k: 'atop', name, args: [{ k: 'sym', name: id.text, tok: id }], tok };
  }
  if (STAT_OPS.has(name)) return statOp(c, tok, name.slice(1) as A.StatOpName);
  if (name === '@entry' || name === '@defined' || name === '@task') {
    const operand = parseExpression(c);
    c.expectOp(')');
    if (name === '@task') {
      // stap's parser: @task(p) is @cast(p, "task_struct", "kernel<linux/sched.h>")
      return { k: 'cast', operand, typeName: 'task_struct', module: 'kernel<linux/sched.h>', components: [], pretty: 0, addressOf: false, tok };
    }
    return name === '@entry' ? { k: 'entry', operand, tok } : { k: 'defined', operand, tok };
  }
  if (name === '@cast') {
    const operand = parseExpression(c);
    c.expectOp(',');
    c.last = undefined; // (swallowed: `@cast(x,` ends with `saw: <input> EOF`)
    const t = expectString(c, true);
    const m = c.peekOp(',') ? (c.next(), expectString(c)) : undefined;
    c.expectOp(')');
    return { k: 'cast', operand, typeName: t.value, module: m?.value, components: [], pretty: 0, addressOf: false, tok };
  }
  if (name === '@var') {
    const t = expectString(c);
    const m = c.peekOp(',') ? (c.next(), expectString(c)) : undefined;
    c.expectOp(')');
    return { k: 'atvar', varName: t.value, module: m?.value, components: [], pretty: 0, addressOf: false, tok };
  }
  // @perf("counter") takes a literal, @const("NAME") a string token; both non-empty
  const a = expectString(c, true, name === '@perf' ? 'expected literal string' : 'expected string');
  c.expectOp(')');
  return { k: 'atop', name, args: [a], tok };
}

/**
 * A string argument of an @-operator as stap's parser takes it (expect_unknown: adjacent
 * literals joined); `nonEmpty`: refused empty once the token after it is seen.
 */
function expectString(c: Cursor, nonEmpty = false, what = 'expected string'): A.StringLit {
  // (stap takes the token: `@cast(x,` ends with "unexpected end-of-file")
  const t = c.peekQuiet();
  if (!t) throw c.error('unexpected end-of-file');
  c.peek();
  if (t.kind !== 'string') throw c.error(what);
  const s = stringLiteral(c);
  c.peek();
  if (nonEmpty && s.value === '') throw c.error('expected non-empty string');
  return s;
}

/**
 * `@count(e)` ... `@variance(e, N)` after the `(`: stap 4.8's parser takes the operand, then up
 * to `)` each `,` (counted with the operand against the operator's maximum: 2 for @variance,
 * 1 for the others; the error is at the `,`) wants a number, the parameter; any other token
 * there is passed over (`@count(a x)` is `@count(a)`).
 */
function statOp(c: Cursor, tok: A.Token, op: A.StatOpName): A.StatOp {
  const e: A.StatOp = { k: 'statop', op, operand: parseExpression(c), tok };
  const max = op === 'variance' ? 2 : 1;
  let n = 1;
  while (!c.peekOp(')')) {
    const t = c.next();
    if (!c.isOp(t, ',')) continue;
    if (++n > max) throw new ParseError(`not more than ${max} parameter${max > 1 ? 's' : ''} allowed`, t);
    e.shift = Number(signedNumber(c, 'expected number').value);
  }
  c.next();
  return e;
}

/**
 * `@kderef(SIZE, addr)`, `@uderef(SIZE, addr)`, `@kregister(N)`, `@uregister(N)` after the `(`:
 * stap's parser wants a number literal first, then (for the derefs) `,` and an expression.
 */
function rawAccess(c: Cursor, tok: A.Token, name: string): A.Expr {
  const n = c.next();
  if (n.kind !== 'number') throw c.error('expected number');
  const args: A.Expr[] = [{ k: 'num', value: parseNumber(n.text, n), tok: n }];
  if (name.endsWith('deref')) {
    if (!c.isOp(c.next(), ',')) throw c.error("expected ','");
    args.push(parseExpression(c));
  }
  if (!c.isOp(c.next(), ')')) throw c.error("expected ')'");
  return { k: 'atop', name, args, tok };
}


/**
 * The arguments of a print function, after its `(`, as stap 4.8's parser takes them: printf's
 * format (and printd's delimiter) must be a literal string (adjacent literals joined), a format
 * is checked at once (its error names the token after it); then the values, each after a `,`
 * or `)` (stap accepts either there, so `printd(",", 1)` fails at the token after its `)`
 * wanting a second value); print/sprint and printd want at least 1 and 2 values.  A leading
 * `@hist_*` of print/println/sprint/sprintln is the histogram to print, then `)`.  The 32-value
 * limit is pass 3's (src/translate/printing.ts).
 */
function parsePrint(c: Cursor, nameTok: A.Token, name: string): A.Expr {
  const n = name as A.PrintName;
  const e: A.Print = { k: 'print', name: n, args: [], tok: nameTok };
  let consumed = false;
  let minArgs = 0;
  if (n === 'printf' || n === 'sprintf' || n === 'printd' || n === 'printdln' || n === 'sprintd' || n === 'sprintdln') {
    const t = c.peek();
    if (!t || t.kind !== 'string') throw c.error('expected literal string');
    const f = stringLiteral(c, n === 'printf' || n === 'sprintf');
    e.formatRaw = f.raw;
    if (n === 'printf' || n === 'sprintf') {
      e.format = f.value;
      c.peek(); // (stap's error names the token after the format)
      const parts = parseFormat(f.value);
      if (typeof parts === 'string') throw c.error(parts);
    } else {
      e.delim = f.value;
      minArgs = 2;
    }
    consumed = true;
  } else if (n === 'print' || n === 'sprint') minArgs = 1;
  if (!consumed && (n === 'print' || n === 'println' || n === 'sprint' || n === 'sprintln')) {
    const t = c.peek();
    if (t && t.kind === 'operator' && (t.text === '@hist_log' || t.text === '@hist_linear')) {
      const h = parseExpression(c);
      if (h.k === 'hist') {
        e.hist = h;
        c.expectOp(')');
        return e;
      }
      e.args.push(h);
      consumed = true;
      if (minArgs) minArgs--;
    }
  }
  while (minArgs > 0 || !c.peekOp(')')) {
    if (consumed) {
      const s = c.next();
      if (!c.isOp(s, ',') && !c.isOp(s, ')')) throw c.error("expected one of ', )'");
    }
    const a = parseExpression(c);
    if (a.k === 'hist') throw new ParseError('base histogram operator where expression expected', a.tok);
    e.args.push(a);
    consumed = true;
    if (minArgs) minArgs--;
  }
  c.expectOp(')');
  return e;
}
