/**
 * The floating point set of stdlib/floatingpoint.stp (fp_add, fp_to_string, string_to_fp, ...):
 * IEEE 754 binary64 values carried in stap's 64-bit longs, computed as stap 4.8's runtime does
 * with Berkeley SoftFloat 3e (specialised for 8086-SSE, rounding to nearest even):
 *
 *  - arithmetic, sqrt and comparisons are IEEE operations: JavaScript numbers give the same
 *    correctly rounded results; NaN operands propagate as softfloat_propagateNaNF64UI (a signaling
 *    NaN operand is quieted and wins, else the first NaN), invalid operations give the default
 *    NaN 0x7FF8000000000000; fp_rem is the IEEE remainder (quotient rounded to nearest even);
 *  - fp_to_long is f64_to_i64 with the rounding modes 0..6 (near_even, minMag, min, max,
 *    near_maxMag, -, odd), INT64_MAX / INT64_MIN on overflow and 0 for NaN;
 *  - fp_to_string and string_to_fp follow the runtime's f64_to_str and str_to_f64 step by step
 *    (their quirks included: the last digit is rounded from the next one without carrying, so
 *    fp_to_string(0.96, 1) is "0.10"; a precision below 1 still prints one digit).
 */
import { StapError } from '../runtime/errors';
import type { Builtin } from '../runtime/builtins';
import type { Long } from '../runtime/int64';

const buf = new DataView(new ArrayBuffer(8));
const QUIET = 0x0008000000000000n;
const DEFAULT_NAN = 0x7ff8000000000000n;

function bits(v: Long): bigint {
  return BigInt.asUintN(64, typeof v === 'bigint' ? v : BigInt(v));
}

/** A stap long of the unsigned 64-bit pattern (numbers when they are exact). */
function long(u: bigint): Long {
  const s = BigInt.asIntN(64, u);
  return s >= BigInt(Number.MIN_SAFE_INTEGER) && s <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(s) : s;
}

function toDouble(u: bigint): number {
  buf.setBigUint64(0, u);
  return buf.getFloat64(0);
}

function fromDouble(d: number): bigint {
  if (Number.isNaN(d)) return DEFAULT_NAN;
  buf.setFloat64(0, d);
  return buf.getBigUint64(0);
}

function isNaN64(u: bigint): boolean {
  return (u & 0x7ff0000000000000n) === 0x7ff0000000000000n && (u & 0x000fffffffffffffn) !== 0n;
}

function isSigNaN64(u: bigint): boolean {
  return (u & 0x7ff8000000000000n) === 0x7ff0000000000000n && (u & 0x0007ffffffffffffn) !== 0n;
}

/** softfloat_propagateNaNF64UI: at least one operand is a NaN. */
function propagateNaN(a: bigint, b: bigint): bigint {
  const sigA = isSigNaN64(a);
  if (sigA || isSigNaN64(b)) return (sigA ? a : b) | QUIET;
  return isNaN64(a) ? a : b;
}

/** An IEEE binary operation on two patterns. */
function binop(x: Long, y: Long, op: (a: number, b: number) => number): Long {
  const a = bits(x);
  const b = bits(y);
  if (isNaN64(a) || isNaN64(b)) return long(propagateNaN(a, b));
  return long(fromDouble(op(toDouble(a), toDouble(b))));
}

/** IEEE remainder: x - n*y with n = x/y rounded to the nearest integer, ties to even. */
function ieeeRemainder(x: number, y: number): number {
  if (!Number.isFinite(x) || y === 0 || Number.isNaN(y)) return NaN;
  if (!Number.isFinite(y)) return x;
  let r = x % y; // exact (fmod)
  const ay = Math.abs(y);
  const ar = Math.abs(r);
  // ties go to the even quotient: the truncated quotient is odd when |x| mod 2|y| >= |y|
  const twice = 2 * ay;
  const qOdd = Number.isFinite(twice) ? Math.abs(x % twice) >= ay : Math.abs(x) >= ay;
  if (ar > ay / 2 || (ar === ay / 2 && qOdd)) r = r > 0 ? r - ay : r + ay;
  if (r === 0) return x < 0 || Object.is(x, -0) ? -0 : 0;
  return r;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** f64_to_i64(a, roundingMode, exact). */
function toI64(u: bigint, mode: number): bigint {
  const sign = (u >> 63n) === 1n;
  const exp = Number((u >> 52n) & 0x7ffn);
  let sig = u & 0x000fffffffffffffn;
  if (exp) sig |= 0x0010000000000000n;
  const shift = 0x433 - exp;
  const invalid = (): bigint => (exp === 0x7ff && (u & 0x000fffffffffffffn) !== 0n ? 0n : sign ? INT64_MIN : INT64_MAX);
  let int: bigint;
  let frac: bigint; // fraction in units of 2^-shift, compared with half
  let half: bigint;
  if (shift <= 0) {
    if (shift < -11) return invalid();
    int = sig << BigInt(-shift);
    frac = 0n;
    half = 1n;
  } else if (shift >= 64 + 53) {
    int = 0n;
    frac = sig ? 1n : 0n; // jammed: nonzero, below half
    half = 2n;
  } else {
    const s = BigInt(shift);
    int = sig >> s;
    frac = sig & ((1n << s) - 1n);
    half = 1n << (s - 1n);
  }
  const inexact = frac !== 0n;
  let inc = false;
  if (mode === 4 || mode === 0) {
    if (frac >= half && inexact) inc = true;
  } else if (inexact && (sign ? mode === 2 || mode === 6 : mode === 3 || mode === 6)) {
    inc = true;
  }
  if (inc) {
    int += 1n;
    if (frac === half && mode === 0) int &= ~1n;
  }
  let z = sign ? -int : int;
  if (z > INT64_MAX || z < INT64_MIN || (z !== 0n && (z < 0n) !== sign)) return sign ? INT64_MIN : INT64_MAX;
  if (inexact && mode === 6) z |= 1n;
  return z;
}

/** The runtime's f64_to_str: integer part, '.', precision digits (the last one rounded, no carry). */
function toStr(u: bigint, precision: number, max: number): string {
  const M = (1n << 64n) - 1n;
  const sign = (u >> 63n) === 1n;
  let exp = (u >> 52n) & 0x7ffn;
  let sig = u & 0x000fffffffffffffn;
  if (exp) sig |= 0x0010000000000000n;
  exp = (exp - 1023n) & M;
  const dist = ((52n - exp) & M) & 63n; // x86 shifts use the count mod 64
  let out = sign ? '-' : '';
  out += (sig >> dist).toString();
  out += '.';
  let fPart = sig & (((1n << dist) - 1n) & M);
  const base = (1n << dist) & M;
  const digit = (v: bigint): string => (base === 0n ? '0' : (v / base).toString());
  for (let i = 0; i < precision - 1; i++) {
    fPart = (fPart * 10n) & M;
    out += digit(fPart);
    if (base !== 0n) fPart %= base;
  }
  fPart = (fPart * 10n) & M;
  let last = base === 0n ? 0n : fPart / base;
  if (base !== 0n) fPart %= base;
  let after = 0n;
  if (fPart !== 0n) {
    fPart = (fPart * 10n) & M;
    after = base === 0n ? 0n : fPart / base;
  }
  if (after >= 5n) last += 1n;
  out += last.toString();
  return out.length > max ? out.slice(0, max) : out;
}

/** The runtime's str_to_f64, with softfloat operations in the same order; null: not a number. */
function fromStr(s: string): number | null {
  let i = 0;
  const sign = s[i] === '-' ? -1 : 1;
  if (s[i] === '-' || s[i] === '+') i++;
  const isDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= '0' && ch <= '9';
  let value = 0;
  for (; isDigit(s[i]); i++) value = value * 10 + (s.charCodeAt(i) - 48);
  if (s[i] === '.') i++;
  let power = 1;
  for (; isDigit(s[i]); i++) {
    value = value * 10 + (s.charCodeAt(i) - 48);
    power = power * 10;
  }
  if (s[i] === 'e' || s[i] === 'E') {
    i++;
    const neg = s[i] === '-';
    if (s[i] === '-' || s[i] === '+') i++;
    let p2 = 0;
    for (; isDigit(s[i]); i++) p2 = p2 * 10 + (s.charCodeAt(i) - 48);
    // (counting down a double: huge exponents end at infinity or zero like the runtime's loop)
    for (let k = 0; p2 !== 0 && k < 4000; k++, p2 -= 1) power = neg ? power * 10 : power / 10;
  }
  if (i !== s.length) return null;
  return sign * (value / power);
}

export const softfloatBuiltins: Record<string, Builtin> = {
  fp_add: (c, a: Long, b: Long) => binop(a, b, (x, y) => x + y),
  fp_sub: (c, a: Long, b: Long) => binop(a, b, (x, y) => x - y),
  fp_mul: (c, a: Long, b: Long) => binop(a, b, (x, y) => x * y),
  fp_div: (c, a: Long, b: Long) => binop(a, b, (x, y) => x / y),
  fp_rem: (c, a: Long, b: Long) => binop(a, b, ieeeRemainder),
  fp_sqrt: (c, a: Long) => {
    const u = bits(a);
    if (isNaN64(u)) return long(propagateNaN(u, 0n));
    return long(fromDouble(Math.sqrt(toDouble(u))));
  },
  fp_eq: (c, a: Long, b: Long) => (toDouble(bits(a)) === toDouble(bits(b)) ? 1 : 0),
  fp_le: (c, a: Long, b: Long) => (toDouble(bits(a)) <= toDouble(bits(b)) ? 1 : 0),
  fp_lt: (c, a: Long, b: Long) => (toDouble(bits(a)) < toDouble(bits(b)) ? 1 : 0),
  long_to_fp: (c, a: Long) => long(fromDouble(Number(BigInt.asIntN(64, bits(a))))),
  fp32_to_fp64: (c, a: Long) => {
    const u = Number(bits(a) & 0xffffffffn);
    if ((u & 0x7f800000) === 0x7f800000 && (u & 0x007fffff) !== 0) {
      // softfloat_f32UIToCommonNaN + commonNaNToF64UI: sign, quiet bit, payload moved up
      const v64 = BigInt(u) << 41n;
      return long((BigInt(u >>> 31) << 63n) | DEFAULT_NAN | ((v64 & ((1n << 64n) - 1n)) >> 12n));
    }
    buf.setUint32(0, u);
    return long(fromDouble(buf.getFloat32(0)));
  },
  fp_to_long: (c, a: Long, mode: Long) => long(BigInt.asUintN(64, toI64(bits(a), Number(mode)))),
  fp_to_string: (c, a: Long, precision: Long) => toStr(bits(a), Number(precision), c.engine.maxStringLen - 1),
  string_to_fp: (c, s: string) => {
    const d = fromStr(s);
    const u = d === null ? DEFAULT_NAN : fromDouble(d);
    if (u === DEFAULT_NAN) throw new StapError('invalid format');
    return long(u);
  },
};
