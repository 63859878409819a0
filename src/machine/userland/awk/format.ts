/**
 * awk's numbers and strings as mawk 1.3.4 (Debian 12's awk) converts them: number to string (an
 * integral value within ±(2^31-1) as %d, otherwise CONVFMT/OFMT), string to number (strtod's
 * prefix, hex included), the "looks numeric" test of input fields, and printf/sprintf's C formats.
 */

import { expForm, fixedForm, gForm, nonFinite } from '../libc_printf';

/** An awk value: a number, a string, a strnum (input that looks numeric: compares as a number), or uninitialized. */
export type V = number | string | StrNum | undefined;
export class StrNum { constructor(readonly s: string, readonly n: number) {} }

const MAX_INT = 2147483647;

/** strtod's prefix of `s` (leading blanks, sign, decimal or hex digits, exponent); 0 when none */
export function strToNum(s: string): number {
  const m = /^[ \t\n\r\f\v]*([+-]?)(0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)/i.exec(s);
  if (!m) return 0;
  const body = m[2].toLowerCase();
  let v: number;
  if (body.startsWith('0x')) v = parseInt(body.slice(2), 16);
  else if (body.startsWith('inf')) v = Infinity;
  else if (body === 'nan') v = NaN;
  else v = Number(body);
  return m[1] === '-' ? -v : v;
}

/** an input field, array element from split() or -v value: a strnum when the whole text is a number */
export function fieldValue(s: string): V {
  return /^[ \t\n]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n]*$/.test(s) ? new StrNum(s, Number(s.trim())) : s;
}

export function toNum(v: V): number {
  if (typeof v === 'number') return v;
  if (v === undefined) return 0;
  if (v instanceof StrNum) return v.n;
  return strToNum(v);
}

/** number to string: integers within range exactly, others through `fmt` (CONVFMT or OFMT) */
export function numToStr(n: number, fmt: string): string {
  if (Number.isInteger(n) && n >= -MAX_INT && n <= MAX_INT) return Object.is(n, -0) ? '-0' : String(n);
  return sprintf(fmt, [n]);
}

export function toStr(v: V, fmt: string): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  if (v instanceof StrNum) return v.s;
  return numToStr(v, fmt);
}

export function isNumeric(v: V): boolean {
  return typeof v === 'number' || v === undefined || v instanceof StrNum;
}

export function toBool(v: V): boolean {
  if (typeof v === 'number') return v !== 0;
  if (v === undefined) return false;
  if (v instanceof StrNum) return v.n !== 0;
  return v !== '';
}

/** printf/sprintf: C's conversions (c d i o x X u e E f F g G s %) with flags, width and precision, `*` included */
export function sprintf(fmt: string, args: readonly (V | number)[], convfmt = '%.6g'): string {
  let out = '';
  let ai = 0;
  const nextArg = (): V => {
    if (ai >= args.length) throw new AwkRuntimeError(`not enough arguments passed to sprintf("${fmt}")`);
    return args[ai++] as V;
  };
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== '%') { out += c; continue; }
    const m = /^%([-+ #0]*)(\*|[0-9]+)?(?:\.(\*|[0-9]*))?(hh|h|ll|l|L|q|j|z|t)?([a-zA-Z%])?/.exec(fmt.slice(i))!;
    i += m[0].length - 1;
    const conv = m[5];
    if (conv === '%') { out += '%'; continue; }
    if (conv === undefined || !'cdiouxXeEfFgGs'.includes(conv)) { out += m[0]; continue; }
    const flags = m[1];
    let width = m[2] === '*' ? Math.trunc(toNum(nextArg())) : m[2] ? Number(m[2]) : 0;
    let left = flags.includes('-');
    if (width < 0) { left = true; width = -width; }
    let prec: number | undefined = m[3] === undefined ? undefined : m[3] === '*' ? Math.trunc(toNum(nextArg())) : Number(m[3] || '0');
    if (prec !== undefined && prec < 0) prec = undefined;
    const v = nextArg();
    let body: string;
    let sign = '';
    let numeric = true;
    switch (conv) {
      case 'c': {
        numeric = false;
        if (typeof v === 'number') body = String.fromCharCode(Math.trunc(v) & 0xff);
        else body = toStr(v, convfmt).slice(0, 1);
        break;
      }
      case 's': {
        numeric = false;
        body = toStr(v, convfmt);
        if (prec !== undefined) body = body.slice(0, prec);
        break;
      }
      case 'd': case 'i': case 'u': {
        let n = toNum(v);
        if (!Number.isFinite(n)) { body = nonFinite(n, false); if (body.startsWith('-')) { sign = '-'; body = body.slice(1); } break; }
        n = Math.trunc(n);
        // mawk clamps to a C long
        const big = n >= 9223372036854775807 ? 9223372036854775807n : n <= -9223372036854775808 ? -9223372036854775808n : BigInt(n);
        if (big < 0n) { sign = '-'; body = (-big).toString(); } else body = big.toString();
        if (prec !== undefined) { body = body.padStart(prec, '0'); if (prec === 0 && big === 0n) body = ''; }
        break;
      }
      case 'o': case 'x': case 'X': {
        const n = Math.trunc(toNum(v));
        let big = BigInt(Number.isFinite(n) ? n : 0);
        if (big < 0n) big += 1n << 64n;
        body = big.toString(conv === 'o' ? 8 : 16);
        if (conv === 'X') body = body.toUpperCase();
        if (prec !== undefined) { body = body.padStart(prec, '0'); if (prec === 0 && big === 0n) body = ''; }
        if (flags.includes('#') && big !== 0n) body = conv === 'o' ? (body.startsWith('0') ? body : '0' + body) : (conv === 'x' ? '0x' : '0X') + body;
        break;
      }
      default: {
        const n = toNum(v);
        const upper = conv === 'E' || conv === 'G' || conv === 'F';
        const p = prec ?? 6;
        if (!Number.isFinite(n)) body = nonFinite(n, upper);
        else if (conv === 'e' || conv === 'E') body = expForm(n, p, upper);
        else if (conv === 'f' || conv === 'F') body = fixedForm(n, p);
        else body = gForm(n, p, upper, flags.includes('#'));
        if (body.startsWith('-')) { sign = '-'; body = body.slice(1); }
        if (flags.includes('#') && (conv === 'f' || conv === 'e') && p === 0 && !body.includes('.')) body = body.replace(/^([0-9]+)/, '$1.');
        if (!Number.isFinite(n)) numeric = false;
      }
    }
    if (numeric && !sign && (conv === 'd' || conv === 'i' || 'eEfFgG'.includes(conv))) {
      if (flags.includes('+')) sign = '+'; else if (flags.includes(' ')) sign = ' ';
    }
    const zeroPad = numeric && flags.includes('0') && !left && !((conv === 'd' || conv === 'i' || 'ouxX'.includes(conv)) && prec !== undefined);
    const len = sign.length + body.length;
    if (len >= width) out += sign + body;
    else if (left) out += sign + body + ' '.repeat(width - len);
    else if (zeroPad) {
      const pre = body.startsWith('0x') || body.startsWith('0X') ? body.slice(0, 2) : '';
      out += sign + pre + '0'.repeat(width - len) + body.slice(pre.length);
    } else out += ' '.repeat(width - len) + sign + body;
  }
  return out;
}

export class AwkRuntimeError extends Error {}
