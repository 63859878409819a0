/**
 * Literals and small AST helpers of the parser: numbers (C strtoull rules, 64-bit wrap),
 * adjacent string literals, lvalues, `$var$` pretty-printing suffixes, target components.
 */
import type * as A from '../ast';
import { ParseError } from '../diag';
import { unescapeRaw } from './preprocess';
import type { Cursor } from './cursor';
import { compatBefore } from './version';

function canonical(b: bigint): A.Long {
  const w = BigInt.asIntN(64, b);
  return w >= -9007199254740991n && w <= 9007199254740991n ? Number(w) : w;
}

/** C strtoull(text, 0) validation; values 2^63..2^64-1 wrap negative. */
export function parseNumber(text: string, tok: A.Token): A.Long {
  let v: bigint;
  try {
    if (/^0[xX][0-9a-fA-F]+$/.test(text)) v = BigInt(text);
    else if (/^0[0-7]*$/.test(text)) v = text.length > 1 ? BigInt('0o' + text.slice(1)) : 0n;
    else if (/^[1-9][0-9]*$/.test(text)) {
      if (text.length <= 15) return Number(text);
      v = BigInt(text);
    } else throw new Error();
  } catch {
    throw new ParseError('number invalid or out of range', tok, true);
  }
  if (v > (1n << 64n) - 1n) throw new ParseError('number invalid or out of range', tok, true);
  return canonical(v);
}

export function negate(v: A.Long): A.Long {
  return canonical(-BigInt(v));
}

/**
 * One or more adjacent string literals (the cursor is on the first).  A value is a C string in
 * stap's module: an escaped NUL (`"a\\000b"`) ends it, unless `keepNul` (printf formats, which
 * the translator splits into conversions first).
 */
export function stringLiteral(c: Cursor, keepNul = false): A.StringLit {
  const first = c.next();
  let raw = first.text;
  let value = unescapeRaw(first.text);
  // (adjacent literals are joined since stap 2.0; before, the second is a token of its own)
  const glue = !compatBefore(c.opts.compatible, '2.0');
  for (let t = c.peek(); glue && t && t.kind === 'string'; t = c.peek()) {
    c.next();
    raw += t.text;
    value += unescapeRaw(t.text);
  }
  const nul = keepNul ? -1 : value.indexOf('\0');
  if (nul >= 0) value = value.slice(0, nul);
  return { k: 'str', value, raw, tok: first };
}

/** `-`? number, as in global initialisers, priorities and @hist_linear parameters. */
export function signedNumber(c: Cursor, what = 'expected literal string or number'): A.NumberLit {
  let t = c.next();
  const minus = c.isOp(t, '-') ? t : undefined;
  if (minus) {
    c.last = undefined; // (swallowed: `global x = -` ends with `saw: <input> EOF`)
    t = c.next();
  }
  if (t.kind !== 'number') throw c.error(what);
  let v = parseNumber(t.text, t);
  // (a negative literal must fit in an int64: `-9223372036854775809` is out of range)
  if (minus && BigInt.asUintN(64, BigInt(v)) > 1n << 63n) throw new ParseError('number invalid or out of range', t, true);
  if (minus) v = negate(v);
  return { k: 'num', value: v, tok: minus ?? t };
}

/** A literal: adjacent strings or a signed number. */
export function literal(c: Cursor): A.NumberLit | A.StringLit {
  const t = c.peekQuiet(); // (`global x =` ends with `saw: operator '='`)
  if (t && t.kind === 'string') return stringLiteral(c);
  return signedNumber(c);
}

export function isLvalue(e: A.Expr): boolean {
  return e.k === 'sym' || e.k === 'index' || e.k === 'target' || e.k === 'cast' || e.k === 'atvar' || e.k === 'autocast';
}

export function splitPretty(name: string): { name: string; pretty: 0 | 1 | 2 } {
  if (name.endsWith('$$') && name.length > 2 && !/^\$+$/.test(name)) return { name: name.slice(0, -2), pretty: 2 };
  if (name.endsWith('$') && name.length > 1 && !/^\$+$/.test(name)) return { name: name.slice(0, -1), pretty: 1 };
  return { name, pretty: 0 };
}

/** Add a `->member` or `[index]` component (an expression that is not a target becomes an autocast). */
export function targetWithComponents(base: A.Expr, comp: A.TargetComponent, pretty: 0 | 1 | 2, opTok?: A.Token): A.Expr {
  if (base.k === 'target' || base.k === 'cast' || base.k === 'atvar') {
    if (base.pretty) throw new ParseError('-> and [ are not accepted for a pretty-printing variable', comp.tok);
    base.components.push(comp);
    base.pretty = pretty;
    return base;
  }
  if (base.k === 'autocast') {
    base.components.push(comp);
    return base;
  }
  // stap locates an autocast at its first `->` (or `[`)
  return { k: 'autocast', operand: base, components: [comp], tok: opTok ?? comp.tok };
}

/**
 * A refusal of privileged code: stap's parser reports it without skipping ahead
 * (parse_error(..., false)) and goes on from `resume` at the top level, so what follows
 * usually gives a second error (`x = @const(1)` then `expected 'probe', ...` at the `(`).
 */
export class PrivilegeError extends ParseError {
  constructor(message: string, tok: A.Token, readonly resume: number) {
    super(message, tok, true);
  }
}

/** Embedded code `t` (already taken) needs guru mode; the parser goes on at `resume`. */
export function guruOnly(c: Cursor, t: A.Token, what: string, resume = c.pos): void {
  if (!c.opts.guru && !c.file.isTapset) throw new PrivilegeError(`${what} in unprivileged script; need stap -g`, t, resume);
}

/** The operator `t` (just taken) needs guru mode; the parser goes on after it. */
export function guruOnlyOp(c: Cursor, t: A.Token, name: string): void {
  if (!c.opts.guru && !c.file.isTapset) throw new PrivilegeError(`using ${name} operator not permitted; need stap -g`, t, c.pos);
}
