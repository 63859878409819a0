/**
 * String built-ins and tapset string functions on binary (latin1, one byte per char)
 * strings (`=~` and matched() are in regex/).
 */
import { Long, fromBigInt, toBigInt } from './int64';
import { StapError } from './errors';

export const DEFAULT_MAXSTRINGLEN = 512;

/** Truncate to at most `max` bytes (callers pass MAXSTRINGLEN-1). */
export function truncStr(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

/** a . b with truncation. */
export function concat(a: string, b: string, max: number): string {
  const r = a + b;
  return r.length > max ? r.slice(0, max) : r;
}

/** Convert a JS (UTF-16) string to the binary representation (UTF-8 bytes). */
export function toBinary(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

/** Convert a binary string (UTF-8 bytes) back to a JS string. */
export function fromBinary(s: string): string {
  return Buffer.from(s, 'latin1').toString('utf8');
}

/** Bytewise strcmp: -1, 0, 1. */
export function strcmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function strlen(s: string): number {
  return s.length;
}

function toIndex(v: Long): number {
  return typeof v === 'number' ? v : v < 0n ? -Infinity : Infinity;
}

/**
 * substr(str, start, len): start 0-based; out of range -> ""; len clamped to [0, max].  (string.stp
 * clamps `len + 1` in int64 arithmetic, which wraps for LLONG_MAX: that length copies nothing.)
 */
export function substr(s: string, start: Long, len: Long, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  const st = toIndex(start);
  if (st < 0 || st >= s.length) return '';
  if (len === 0x7fffffffffffffffn) return '';
  let l = toIndex(len);
  if (l < 0) l = 0;
  if (l > max) l = max;
  return s.substr(st, l);
}

/**
 * stringat(str, pos): the byte as a C `char`, signed on x86_64 (string.stp returns
 * `STAP_ARG_str[pos]`), so bytes 0x80-0xff are negative; error `Position out of bounds`.
 */
export function stringat(s: string, pos: Long): number {
  const p = toIndex(pos);
  if (p < 0 || p >= s.length) throw new StapError('Position out of bounds');
  const b = s.charCodeAt(p) & 255;
  return b >= 128 ? b - 256 : b;
}

export function isinstr(s1: string, s2: string): number {
  return s1.indexOf(s2) >= 0 ? 1 : 0;
}

export function strpos(s1: string, s2: string): number {
  return s1.indexOf(s2);
}

/** All non-overlapping occurrences, left to right; empty `find` returns str. */
export function strReplace(str: string, find: string, repl: string, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  if (find === '') return str;
  return truncStr(str.split(find).join(repl), max);
}

/** isdigit(str): first byte is 0-9. */
export function isdigit(s: string): number {
  const c = s.charCodeAt(0);
  return c >= 48 && c <= 57 ? 1 : 0;
}

/** A digit as lib/kstrtox.c _parse_integer_limit reads it: 0-9 and a-f/A-F only (else >= 16). */
function digitVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return 99;
}

function isXdigit(c: number): boolean {
  return digitVal(c) < 16;
}

/**
 * Kernel simple_strtoull (wrapping); base 0 auto-detects 0x / 0.  `base` is the C unsigned int
 * the kernel gets: digits stop at the first one >= base, and only 0-9a-f are digits at all.
 */
function strtoull(s: string, i: number, base: number): bigint {
  if (base === 0) {
    if (s.charCodeAt(i) === 48) {
      if ((s.charCodeAt(i + 1) | 32) === 120 && isXdigit(s.charCodeAt(i + 2))) base = 16;
      else base = 8;
    } else base = 10;
  }
  if (base === 16 && s.charCodeAt(i) === 48 && (s.charCodeAt(i + 1) | 32) === 120) i += 2;
  let r = 0n;
  const b = BigInt(base);
  for (; i < s.length; i++) {
    const d = digitVal(s.charCodeAt(i));
    if (d >= base) break;
    r = BigInt.asUintN(64, r * b + BigInt(d));
  }
  return r;
}

/** strtol(str, base): kernel simple_strtol (stops at first invalid char, no error). */
export function strtol(s: string, base: Long): Long {
  // (the tapset passes the int64 to an unsigned int parameter: its low 32 bits)
  const b = Number(BigInt.asUintN(32, BigInt(base)));
  if (s.charCodeAt(0) === 45) return fromBigInt(BigInt.asIntN(64, -strtoull(s, 1, b)));
  return fromBigInt(BigInt.asIntN(64, strtoull(s, 0, b)));
}

// ---------------------------------------------------------------- tokenize

/** Per probe-context state of tokenize(). */
export interface TokenizeState {
  str: string;
  /** next scan position; -1 when exhausted */
  pos: number;
}

export function newTokenizeState(): TokenizeState {
  return { str: '', pos: -1 };
}

/**
 * tokenize(input, delim): strsep-style over the delimiter set, skipping empty tokens.
 * Non-empty input restarts; "" continues; returns "" when exhausted.
 */
export function tokenize(state: TokenizeState, input: string, delim: string, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  if (input !== '') {
    state.str = truncStr(input, max);
    state.pos = 0;
  }
  const s = state.str;
  for (;;) {
    if (state.pos < 0) return '';
    const start = state.pos;
    let i = start;
    while (i < s.length && delim.indexOf(s[i]) < 0) i++;
    state.pos = i < s.length ? i + 1 : -1;
    if (i > start) return s.slice(start, i);
  }
}

// ---------------------------------------------------------------- text_str / quoting

const TEXT_ESC: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 34: '\\"', 92: '\\\\' };

function hex(n: number, w: number): string {
  return n.toString(16).padStart(w, '0');
}

/** Escaped pieces of a binary string, one per source character / UTF-8 sequence. */
function escapePieces(s: string): string[] {
  const out: string[] = [];
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) break; // (a C string ends there)
    const e = TEXT_ESC[c];
    if (e !== undefined) {
      out.push(e);
      continue;
    }
    if (c >= 32 && c < 127) {
      out.push(s[i]);
      continue;
    }
    if (c >= 0xc2 && c <= 0xf4) {
      const cp = utf8At(s, i);
      if (cp !== null) {
        out.push(cp.cp > 0xffff ? '\\U' + hex(cp.cp, 8).toUpperCase() : '\\u' + hex(cp.cp, 4).toUpperCase());
        i += cp.len - 1;
        continue;
      }
    }
    out.push('\\' + c.toString(8).padStart(3, '0'));
  }
  return out;
}

function utf8At(s: string, i: number): { cp: number; len: number } | null {
  const c = s.charCodeAt(i);
  let len: number;
  let cp: number;
  let min: number;
  if (c >= 0xc2 && c <= 0xdf) (len = 2), (cp = c & 0x1f), (min = 0x80);
  else if (c >= 0xe0 && c <= 0xef) (len = 3), (cp = c & 0x0f), (min = 0x800);
  else if (c >= 0xf0 && c <= 0xf4) (len = 4), (cp = c & 0x07), (min = 0x10000);
  else return null;
  if (i + len > s.length) return null;
  for (let k = 1; k < len; k++) {
    const d = s.charCodeAt(i + k);
    if ((d & 0xc0) !== 0x80) return null;
    cp = (cp << 6) | (d & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
  return { cp, len };
}

/**
 * text_strn(s, len, quoted): escape non-printables; `len` bounds the output (0 = max);
 * quoted adds `"..."` and `...` after the closing quote when truncated.
 */
export function textStrn(s: string, len: Long, quoted: Long | boolean, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  let limit = toIndex(len);
  if (limit <= 0 || limit > max) limit = max;
  const pieces = escapePieces(s);
  const q = quoted === true || (quoted !== false && quoted !== 0);
  if (q) {
    // runtime/stp_string.c _stp_text_str: the quotes come out of max(len, 5), and a cut text
    // loses 3 more bytes (at a whole escape) for `"...`
    const budget = Math.max(limit, 5) - 2;
    let total = 0;
    for (const p of pieces) total += p.length;
    if (total <= budget) return '"' + pieces.join('') + '"';
    return '"' + take(pieces, budget - 3) + '"...';
  }
  return take(pieces, limit);
}

function take(pieces: string[], budget: number): string {
  let out = '';
  for (const p of pieces) {
    if (out.length + p.length > budget) break;
    out += p;
  }
  return out;
}

/** text_str(s) */
export function textStr(s: string, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  return textStrn(s, 0, 0, max);
}

/** string_quoted(s) = quoted text_str. */
export function stringQuoted(s: string, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  return textStrn(s, 0, 1, max);
}

/** Quoting of raw bytes read from memory (kernel_string_quoted and friends). */
export function quoteBytes(bytes: string, max: number = DEFAULT_MAXSTRINGLEN - 1): string {
  return textStrn(bytes, 0, 1, max);
}

// ---------------------------------------------------------------- misc conversions

/** Exact decimal conversion of a Long (no allocation for numbers). */
export function longToString(v: Long): string {
  return typeof v === 'number' ? '' + v : v.toString();
}

/** Hex text `0x...` of the unsigned pattern (like `%#x`). */
export function longToHex(v: Long): string {
  return '0x' + (typeof v === 'number' && v >= 0 ? v.toString(16) : BigInt.asUintN(64, toBigInt(v)).toString(16));
}
