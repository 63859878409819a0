/**
 * The one path by which text and values from the script reach the generated JavaScript.
 *
 * Nothing a user supplies is ever code in the generated module: file and directory names,
 * identifiers, probe points, string literals, `-D` values and script arguments reach it only
 *  - as JS string literals (jsStr: every character outside printable ASCII escaped),
 *  - inside `//` comments (jsComment: printable ASCII only, so no line terminator of any kind
 *    — \n, \r, U+2028, U+2029 — and no `*\/` can end the comment),
 *  - as identifiers made of [A-Za-z0-9_] behind a fixed prefix (jsIdent: `g_`, `f_`, `l_`, `b_`),
 *  - as numbers checked to be integers (jsLong, jsInt), or
 *  - in side tables the module indexes by number (the "near" locations, target-expression plans).
 * Values that should be one of a fixed set (operators, aggregate names) are looked up in tables
 * (oneOf).  A syntax tree whose fields are not what the parser makes — only possible for a
 * tampered cache entry — stops translation with MalformedTree instead of being pasted.
 */
import type * as A from '../ast';

/** A syntax-tree field that no parse produces (a damaged or forged cache entry). */
export class MalformedTree extends Error {
  constructor(what: string) {
    super(`malformed syntax tree (${what}); remove the tapsim cache directory and run again`);
  }
}

/** Text that needs no escaping (the common case: no per-character work, no rope of pieces). */
const NEEDS_ESCAPE_STR = /[^\x20-\x7e]|["\\]/;
const NEEDS_ESCAPE_COMMENT = /[^\x20-\x7e]|\*\/|\\/;

/** A JS string literal for a string (characters outside printable ASCII escaped). */
export function jsStr(s: string): string {
  if (typeof s !== 'string') throw new MalformedTree('string expected');
  if (!NEEDS_ESCAPE_STR.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += '\\\\';
    else if (c === 10) out += '\\n';
    else if (c === 9) out += '\\t';
    else if (c === 13) out += '\\r';
    else if (c >= 32 && c < 127) out += s[i];
    else if (c < 256) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += '\\u' + c.toString(16).padStart(4, '0');
  }
  return out + '"';
}

/**
 * Text made safe to follow `//` on one line: printable ASCII is kept (with `\` doubled and `*\/`
 * broken up), anything else is written as `\xNN` / `\uNNNN`.
 */
export function jsComment(s: string): string {
  const t = String(s);
  if (!NEEDS_ESCAPE_COMMENT.test(t)) return t;
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 92) out += '\\\\';
    else if (c === 42 && t.charCodeAt(i + 1) === 47) out += '*\\';
    else if (c >= 32 && c < 127) out += t[i];
    else if (c < 256) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += '\\u' + c.toString(16).padStart(4, '0');
  }
  return out;
}

/** `FILE:LINE` of a token, as a comment text. */
export function whereComment(tok: A.Token): string {
  return jsComment(`${tok.file.name}:${tok.line}`);
}

/** A JS expression for a stap long (a safe-integer number or an int64 bigint). */
export function jsLong(v: A.Long): string {
  if (typeof v === 'bigint') {
    if (v < -(2n ** 63n) || v >= 2n ** 64n) throw new MalformedTree('integer out of range');
    return `${v}n`;
  }
  return v < 0 ? `(${jsInt(v)})` : jsInt(v);
}

/** A safe integer as JS source. */
export function jsInt(v: unknown): string {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new MalformedTree('integer expected');
  return `${v}`;
}

/** `prefix` + the name with every character outside [A-Za-z0-9_] replaced by `_`. */
export function jsIdent(prefix: string, name: string): string {
  if (typeof name !== 'string') throw new MalformedTree('name expected');
  return prefix + name.replace(/[^A-Za-z0-9_]/g, '_');
}

/** The entry of `key` in a fixed table (never an inherited property). */
export function oneOf<T>(table: ReadonlyMap<string, T>, key: unknown, what: string): T {
  const v = typeof key === 'string' ? table.get(key) : undefined;
  if (v === undefined) throw new MalformedTree(`unknown ${what}`);
  return v;
}

const OPS: Record<string, ReadonlySet<string>> = {
  binary: new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>', '>>>']),
  compare: new Set(['<', '>', '<=', '>=', '==', '!=']),
  logical: new Set(['&&', '||']),
  unary: new Set(['-', '+', '!', '~']),
  incdec: new Set(['++', '--']),
  assign: new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|=', '.=', '<<<']),
  statop: new Set(['count', 'sum', 'min', 'max', 'avg', 'variance']),
  regex: new Set(['=~', '!~']),
};

/**
 * Check the fields of an expression that code generation and range analysis read as numbers or
 * operators: literals of the right JS type, operators from the grammar (the translator calls it
 * on every expression it will generate code for).
 */
export function checkNode(e: A.Expr): void {
  if (e.k === 'num') {
    if (!(typeof e.value === 'bigint' || (typeof e.value === 'number' && Number.isSafeInteger(e.value)))) throw new MalformedTree('number literal');
  } else if (e.k === 'str') {
    if (typeof e.value !== 'string') throw new MalformedTree('string literal');
  } else {
    const ops = Object.prototype.hasOwnProperty.call(OPS, e.k) ? OPS[e.k] : undefined;
    if (ops && !ops.has((e as { op?: unknown }).op as string)) throw new MalformedTree(`${e.k} operator`);
  }
}
