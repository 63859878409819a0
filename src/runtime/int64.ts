/**
 * 64-bit signed integer arithmetic with C (x86_64) semantics on the canonical `Long`
 * representation: a value in [-(2^53-1), 2^53-1] is always a JS number (never -0),
 * anything else is a bigint in int64 range.  Because the form is canonical, `===`,
 * Map keys and mixed `<`/`>` comparisons work directly on Longs.
 *
 * Every operation has a tiny number-only fast path (so V8 inlines it) and a BigInt slow
 * path that wraps with BigInt.asIntN(64).
 */
import { StapError } from './errors';

export type Long = number | bigint;

export const MAX_SAFE = 9007199254740991;
export const INT64_MAX: Long = 9223372036854775807n;
export const INT64_MIN: Long = -9223372036854775808n;
const B64 = 64;
const TWO32 = 4294967296;

/** Canonicalise a bigint (wrapping to int64) into a Long. */
export function fromBigInt(b: bigint): Long {
  b = BigInt.asIntN(B64, b);
  if (b <= 9007199254740991n && b >= -9007199254740991n) return Number(b);
  return b;
}

export function toBigInt(a: Long): bigint {
  return typeof a === 'bigint' ? a : BigInt(a);
}

/**
 * Convert an arbitrary JS number (e.g. from kernel simulation) to a Long: truncates toward
 * zero and wraps modulo 2^64 like a C cast of an integral double; NaN -> 0.
 */
export function fromNumber(n: number): Long {
  if (n <= MAX_SAFE && n >= -MAX_SAFE) {
    const t = Math.trunc(n);
    return t === t ? t + 0 : 0;
  }
  if (n !== n || n === Infinity || n === -Infinity) return 0;
  return fromBigInt(BigInt(Math.trunc(n)));
}

/** Is this a canonical Long? (for assertions / tests) */
export function isCanonical(a: unknown): a is Long {
  if (typeof a === 'number') return Number.isSafeInteger(a) && !Object.is(a, -0);
  if (typeof a === 'bigint') return BigInt.asIntN(64, a) === a && (a > 9007199254740991n || a < -9007199254740991n);
  return false;
}

function divZero(): never {
  throw new StapError('division by 0');
}

// ---------------------------------------------------------------- + - *

export function add(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= 9007199254740991 && r >= -9007199254740991) return r;
  }
  return addSlow(a, b);
}
function addSlow(a: Long, b: Long): Long {
  return fromBigInt(toBigInt(a) + toBigInt(b));
}

export function sub(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (r <= 9007199254740991 && r >= -9007199254740991) return r;
  }
  return subSlow(a, b);
}
function subSlow(a: Long, b: Long): Long {
  return fromBigInt(toBigInt(a) - toBigInt(b));
}

export function mul(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    // -0 (e.g. 0 * -5) is normalised by `+ 0`
    if (r <= 9007199254740991 && r >= -9007199254740991) return r + 0;
  }
  return mulSlow(a, b);
}
function mulSlow(a: Long, b: Long): Long {
  return fromBigInt(toBigInt(a) * toBigInt(b));
}

export function neg(a: Long): Long {
  if (typeof a === 'number') return 0 - a;
  return fromBigInt(-a);
}

// ---------------------------------------------------------------- / %

/** C division: truncates toward zero; INT64_MIN / -1 = INT64_MIN; x / 0 throws. */
export function div(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0 && a <= 2147483647 && a >= -2147483648) {
    return Math.trunc(a / b) + 0;
  }
  return divSlow(a, b);
}
function divSlow(a: Long, b: Long): Long {
  if (b === 0) divZero();
  return fromBigInt(toBigInt(a) / toBigInt(b));
}

/** C remainder: sign of the dividend; x % -1 = 0; x % 0 throws. */
export function mod(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) {
    return (a % b) + 0; // fmod is exact for safe integers
  }
  return modSlow(a, b);
}
function modSlow(a: Long, b: Long): Long {
  if (b === 0) divZero();
  return fromBigInt(toBigInt(a) % toBigInt(b));
}

// ---------------------------------------------------------------- bitwise

export function bitAnd(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) return a & b;
  return fromBigInt(toBigInt(a) & toBigInt(b));
}

export function bitOr(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) return a | b;
  return fromBigInt(toBigInt(a) | toBigInt(b));
}

export function bitXor(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) return a ^ b;
  return fromBigInt(toBigInt(a) ^ toBigInt(b));
}

export function bitNot(a: Long): Long {
  if (typeof a === 'number') {
    const r = -a - 1;
    if (r >= -9007199254740991) return r;
  }
  return fromBigInt(~toBigInt(a));
}

function shiftCount(b: Long): number {
  return typeof b === 'number' ? b & 63 : Number(b & 63n);
}

const POW2: number[] = [];
for (let i = 0; i < 64; i++) POW2.push(2 ** i);

/** `<<`: count masked with 63; wraps on the 64-bit pattern. */
export function shl(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * POW2[b & 63];
    if (r <= 9007199254740991 && r >= -9007199254740991) return r;
  }
  return shlSlow(a, b);
}
function shlSlow(a: Long, b: Long): Long {
  return fromBigInt(toBigInt(a) << BigInt(shiftCount(b)));
}

/** `>>`: arithmetic shift, count masked with 63. */
export function shr(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const c = b & 63;
    if ((a | 0) === a && c < 32) return a >> c;
    return Math.floor(a / POW2[c]) + 0;
  }
  return shrSlow(a, b);
}
function shrSlow(a: Long, b: Long): Long {
  const c = shiftCount(b);
  if (typeof a === 'number') return Math.floor(a / POW2[c]) + 0;
  return fromBigInt(a >> BigInt(c));
}

/** `>>>`: logical shift on the 64-bit pattern, count masked with 63. */
export function ushr(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && a >= 0) {
    const c = b & 63;
    if (a <= 2147483647 && c < 32) return a >> c;
    return Math.floor(a / POW2[c]);
  }
  return ushrSlow(a, b);
}
function ushrSlow(a: Long, b: Long): Long {
  const c = shiftCount(b);
  if (c === 0) return a;
  return fromBigInt(BigInt.asUintN(64, toBigInt(a)) >> BigInt(c));
}

// ---------------------------------------------------------------- comparisons / misc

/** -1, 0, 1 */
export function cmp(a: Long, b: Long): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function abs(a: Long): Long {
  return a < 0 ? neg(a) : a;
}

/** Truthiness of a Long (canonical form: bigint is never 0). */
export function truthy(a: Long): boolean {
  return a !== 0;
}

/** Low 32 bits as a signed int32 (C `(int32_t)` cast). */
export function toInt32(a: Long): number {
  if (typeof a === 'number') {
    if ((a | 0) === a) return a;
    // ToInt32 is exact modular reduction for integral doubles
    return a | 0;
  }
  return Number(BigInt.asIntN(32, a));
}

/** Value as a JS number (may lose precision for bigints). */
export function toNumber(a: Long): number {
  return typeof a === 'number' ? a : Number(a);
}

// ---------------------------------------------------------------- text conversions

export function toStringSigned(a: Long): string {
  return typeof a === 'number' ? '' + a : a.toString();
}

export function toUnsignedBigInt(a: Long): bigint {
  return BigInt.asUintN(64, toBigInt(a));
}

export function toStringUnsigned(a: Long): string {
  if (typeof a === 'number' && a >= 0) return '' + a;
  return toUnsignedBigInt(a).toString();
}

/** Hex digits of the unsigned 64-bit pattern (no prefix). */
export function toHex(a: Long, upper = false): string {
  let s: string;
  if (typeof a === 'number' && a >= 0) s = a.toString(16);
  else s = toUnsignedBigInt(a).toString(16);
  return upper ? s.toUpperCase() : s;
}

/** Octal digits of the unsigned 64-bit pattern (no prefix). */
export function toOctal(a: Long): string {
  if (typeof a === 'number' && a >= 0) return a.toString(8);
  return toUnsignedBigInt(a).toString(8);
}

/**
 * Parse a number literal as stap's lexer does (C strtoull(s, 0) over the whole token):
 * decimal, 0x/0X hex, leading-0 octal.  Values 2^63..2^64-1 wrap negative.
 * Returns null when the text is not entirely a valid number or exceeds 2^64-1.
 */
export function parseLiteral(text: string): Long | null {
  let re: RegExp;
  let body = text;
  let prefix = '';
  if (/^0[xX]/.test(text)) {
    body = text.slice(2);
    re = /^[0-9a-fA-F]+$/;
    prefix = '0x';
  } else if (text.length > 1 && text[0] === '0') {
    body = text.slice(1);
    re = /^[0-7]+$/;
    prefix = '0o';
  } else {
    re = /^[0-9]+$/;
  }
  if (!re.test(body)) return null;
  const v = BigInt(prefix + body);
  if (v > 18446744073709551615n) return null;
  return fromBigInt(v);
}

/** Parse a decimal (optionally signed) integer string exactly, wrapping to int64. */
export function parseDecimal(text: string): Long {
  return fromBigInt(BigInt(text));
}
