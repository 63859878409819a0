/**
 * stap's printf engine: the translator's format parser (staptree.cxx
 * print_format::string_to_components: ONE flag, width|*, .prec|.*, optional single `l`)
 * and the runtime's kernel-style formatting (runtime/vsprintf.c number() etc.).
 */
import { Long, toStringSigned, toStringUnsigned, toHex, toOctal, toBigInt } from './int64';
import { StapError } from './errors';

export type ConvChar = 'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'p' | 'c' | 's' | 'b' | 'm' | 'M';
export type FormatFlag = '' | '-' | '+' | ' ' | '#' | '0';
export type ArgType = 'long' | 'string';

export interface FormatConv {
  conv: ConvChar;
  flag: FormatFlag;
  /** static width, -1 when absent or dynamic */
  width: number;
  widthStar: boolean;
  /** static precision, -1 when absent or dynamic */
  prec: number;
  precStar: boolean;
  /** type of the value argument */
  argType: ArgType;
}

/** Literal text or a conversion. */
export type FormatPart = string | FormatConv;

/** Reads `len` bytes at `addr` (kernel memory, or user memory when `user`); may throw a fault StapError. */
export type MemReader = (addr: Long, len: number, user: boolean) => string;

export const PAGE_SIZE = 4096;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Parse a format string.  Returns the parts, or stap's error text
 * (`invalid or missing conversion specifier`, `trailing incomplete print format conversion`).
 */
export function parseFormat(fmt: string): FormatPart[] | string {
  const parts: FormatPart[] = [];
  let lit = '';
  let i = 0;
  const n = fmt.length;
  while (i < n) {
    const ch = fmt[i];
    if (ch !== '%') {
      lit += ch;
      i++;
      continue;
    }
    i++;
    if (i >= n) return 'invalid or missing conversion specifier';
    if (fmt[i] === '%') {
      lit += '%';
      i++;
      continue;
    }
    let flag: FormatFlag = '';
    let width = -1;
    let widthStar = false;
    let prec = -1;
    let precStar = false;
    let started = false; // something other than the conversion was parsed
    const f = fmt[i];
    if (f === '-' || f === '+' || f === ' ' || f === '#' || f === '0') {
      flag = f;
      started = true;
      i++;
    }
    if (i >= n) return 'trailing incomplete print format conversion';
    if (fmt[i] === '*') {
      widthStar = true;
      started = true;
      i++;
    } else if (isDigit(fmt[i])) {
      width = 0;
      started = true;
      while (i < n && isDigit(fmt[i])) width = width * 10 + (fmt.charCodeAt(i++) - 48);
    }
    if (i >= n) return 'trailing incomplete print format conversion';
    if (fmt[i] === '.') {
      i++;
      if (i >= n) return 'trailing incomplete print format conversion';
      if (fmt[i] === '*') {
        precStar = true;
        started = true;
        i++;
      } else if (isDigit(fmt[i])) {
        prec = 0;
        started = true;
        while (i < n && isDigit(fmt[i])) prec = prec * 10 + (fmt.charCodeAt(i++) - 48);
      }
    }
    if (i >= n) {
      if (!started) break;
      return 'trailing incomplete print format conversion';
    }
    if (fmt[i] === 'l') {
      i++;
      if (i >= n) {
        if (!started) break;
        return 'trailing incomplete print format conversion';
      }
    }
    const c = fmt[i];
    switch (c) {
      case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'p':
      case 'c': case 's': case 'b': case 'm': case 'M':
        break;
      default:
        return 'invalid or missing conversion specifier';
    }
    i++;
    if (lit !== '') {
      parts.push(lit);
      lit = '';
    }
    parts.push({ conv: c, flag, width, widthStar, prec, precStar, argType: c === 's' ? 'string' : 'long' });
  }
  if (lit !== '') parts.push(lit);
  return parts;
}

/** Argument types expected by a parsed format, in order (`*` args are longs). */
export function formatArgTypes(parts: FormatPart[]): ArgType[] {
  const r: ArgType[] = [];
  for (const p of parts) {
    if (typeof p === 'string') continue;
    if (p.widthStar) r.push('long');
    if (p.precStar) r.push('long');
    r.push(p.argType);
  }
  return r;
}

// ---------------------------------------------------------------- number()

function spaces(n: number): string {
  return n > 0 ? ' '.repeat(n) : '';
}

/**
 * Kernel-style number(): `digits` are the magnitude digits, `sign` '' or one char,
 * `prefix` '', '0', '0x' or '0X'.
 */
function numberLayout(sign: string, prefix: string, digits: string, flag: FormatFlag, width: number, prec: number): string {
  let size = width - sign.length - prefix.length;
  if (digits.length > prec) prec = digits.length;
  size -= prec;
  const left = flag === '-';
  const zero = flag === '0';
  let out = '';
  if (!zero && !left) {
    out += spaces(size);
    size = 0;
  }
  out += sign + prefix;
  if (!left) {
    if (size > 0) out += (zero ? '0' : ' ').repeat(size);
    size = 0;
  }
  if (prec > digits.length) out += '0'.repeat(prec - digits.length);
  out += digits;
  out += spaces(size);
  return out;
}

/** Format one integer conversion (d i u o x X p) of a Long. */
export function formatInteger(conv: ConvChar, v: Long, flag: FormatFlag = '', width = -1, prec = -1): string {
  let sign = '';
  let prefix = '';
  let digits: string;
  switch (conv) {
    case 'd':
    case 'i':
      if (v < 0) {
        sign = '-';
        digits = toStringSigned(v).slice(1);
      } else {
        digits = toStringSigned(v);
        if (flag === '+') sign = '+';
        else if (flag === ' ') sign = ' ';
      }
      break;
    case 'u':
      digits = toStringUnsigned(v);
      break;
    case 'o':
      digits = toOctal(v);
      if (flag === '#') prefix = '0';
      break;
    case 'x':
      digits = toHex(v);
      if (flag === '#') prefix = '0x';
      break;
    case 'X':
      digits = toHex(v, true);
      if (flag === '#') prefix = '0X';
      break;
    case 'p':
      digits = toHex(v);
      prefix = '0x';
      break;
    default:
      throw new Error('formatInteger: bad conversion ' + conv);
  }
  if (width < 0 && prec < 0 && flag !== '0') return sign + prefix + digits;
  return numberLayout(sign, prefix, digits, flag, width, prec);
}

// ---------------------------------------------------------------- chars, strings, binary, memory

function lowByte(v: Long): number {
  return typeof v === 'number' ? v & 255 : Number(v & 255n);
}

const CHAR_ESC: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 39: "\\'", 92: '\\\\' };

/** `%#c` escaping of one byte. */
export function escapeChar(c: number): string {
  const e = CHAR_ESC[c];
  if (e !== undefined) return e;
  if (c >= 32 && c < 127) return String.fromCharCode(c);
  return '\\' + c.toString(8).padStart(3, '0');
}

export function formatChar(v: Long, flag: FormatFlag = '', width = -1): string {
  const c = lowByte(v);
  const s = flag === '#' ? escapeChar(c) : String.fromCharCode(c);
  if (width <= s.length) return s;
  return flag === '-' ? s + spaces(width - s.length) : spaces(width - s.length) + s;
}

export function formatString(s: string, flag: FormatFlag = '', width = -1, prec = -1): string {
  if (prec >= 0 && s.length > prec) s = s.slice(0, prec);
  if (width > s.length) s = flag === '-' ? s + spaces(width - s.length) : spaces(width - s.length) + s;
  if (flag === '0') s += '\x00'; // stap quirk: %0s appends a NUL byte
  return s;
}

/** `%b`: little-endian bytes of the value; size from precision, else width, else 8. */
export function formatBinary(v: Long, flag: FormatFlag = '', width = -1, prec = -1): string {
  let size = prec >= 0 ? prec : width >= 0 ? width : 8;
  if (size !== 1 && size !== 2 && size !== 4 && size !== 8) size = 8;
  let s = '';
  if (typeof v === 'number' && v >= 0 && v <= 0xffffffff) {
    let x = v;
    for (let i = 0; i < size; i++) {
      s += String.fromCharCode(i < 4 ? x & 255 : 0);
      x = x >>> 8;
    }
  } else {
    let x = BigInt.asUintN(64, toBigInt(v));
    for (let i = 0; i < size; i++) {
      s += String.fromCharCode(Number(x & 255n));
      x >>= 8n;
    }
  }
  if (width > size) {
    const pad = '\x00'.repeat(width - size);
    s = flag === '-' ? s + pad : pad + s;
  }
  return s;
}

/** `%m` / `%M`: dump `prec` (default 1) bytes at addr; `#` reads user memory. */
export function formatMemory(conv: 'm' | 'M', addr: Long, flag: FormatFlag, width: number, prec: number, mem: MemReader | undefined): string {
  const len = prec < 0 ? 1 : prec;
  if (len > PAGE_SIZE) throw new StapError(`${len} is too many bytes for a memory dump`);
  if (mem === undefined) throw new StapError('memory access not available');
  const bytes = mem(addr, len, flag === '#');
  let s: string;
  if (conv === 'M') {
    s = '';
    for (let i = 0; i < bytes.length; i++) s += (bytes.charCodeAt(i) & 255).toString(16).padStart(2, '0');
  } else s = bytes;
  if (width > s.length) s = flag === '-' ? s + spaces(width - s.length) : spaces(width - s.length) + s;
  return s;
}

// ---------------------------------------------------------------- whole formats

function starArg(v: Long | string): number {
  if (typeof v === 'string') return 0;
  if (typeof v === 'bigint') return v < 0n ? 0 : 0x7fffffff;
  return v < 0 ? 0 : v > 0x7fffffff ? 0x7fffffff : v;
}

/** Format one conversion with its (already resolved) width/prec. */
export function formatConv(p: FormatConv, v: Long | string, width: number, prec: number, mem?: MemReader): string {
  switch (p.conv) {
    case 's':
      return formatString(typeof v === 'string' ? v : toStringSigned(v), p.flag, width, prec);
    case 'c':
      return formatChar(typeof v === 'string' ? 0 : v, p.flag, width);
    case 'b':
      return formatBinary(typeof v === 'string' ? 0 : v, p.flag, width, prec);
    case 'm':
    case 'M':
      return formatMemory(p.conv, typeof v === 'string' ? 0 : v, p.flag, width, prec, mem);
    default:
      return formatInteger(p.conv, typeof v === 'string' ? 0 : v, p.flag, width, prec);
  }
}

/** Run a parsed format over its arguments (in formatArgTypes order). */
export function formatParts(parts: FormatPart[], args: ReadonlyArray<Long | string>, mem?: MemReader): string {
  let out = '';
  let ai = 0;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k];
    if (typeof p === 'string') {
      out += p;
      continue;
    }
    const width = p.widthStar ? starArg(args[ai++]) : p.width;
    const prec = p.precStar ? starArg(args[ai++]) : p.prec;
    out += formatConv(p, args[ai++], width, prec, mem);
  }
  return out;
}

export type CompiledFormat = (args: ReadonlyArray<Long | string>, mem?: MemReader) => string;

const compileCache = new Map<string, CompiledFormat | string>();

/**
 * Compile a format into a specialised function (cached by format text).
 * Returns the stap error text for an invalid format.
 */
export function compileFormat(fmt: string): CompiledFormat | string {
  const hit = compileCache.get(fmt);
  if (hit !== undefined) return hit;
  const parts = parseFormat(fmt);
  let r: CompiledFormat | string;
  if (typeof parts === 'string') r = parts;
  else r = compileParts(parts);
  compileCache.set(fmt, r);
  return r;
}

type Piece = (args: ReadonlyArray<Long | string>, mem: MemReader | undefined) => string;

function compileParts(parts: FormatPart[]): CompiledFormat {
  const pieces: Piece[] = [];
  let ai = 0;
  for (const p of parts) {
    if (typeof p === 'string') {
      const s = p;
      pieces.push(() => s);
      continue;
    }
    const wi = p.widthStar ? ai++ : -1;
    const pi = p.precStar ? ai++ : -1;
    const vi = ai++;
    const plain = !p.widthStar && !p.precStar && p.width < 0 && p.prec < 0 && p.flag === '';
    if (plain && (p.conv === 'd' || p.conv === 'i')) {
      pieces.push((a) => {
        const v = a[vi];
        return typeof v === 'number' ? '' + v : toStringSigned(v as Long);
      });
    } else if (plain && p.conv === 's') {
      pieces.push((a) => a[vi] as string);
    } else {
      const conv = p;
      pieces.push((a, mem) =>
        formatConv(conv, a[vi], wi >= 0 ? starArg(a[wi]) : conv.width, pi >= 0 ? starArg(a[pi]) : conv.prec, mem),
      );
    }
  }
  if (pieces.length === 1) {
    const p0 = pieces[0];
    return (a, mem) => p0(a, mem);
  }
  return (a, mem) => {
    let out = '';
    for (let i = 0; i < pieces.length; i++) out += pieces[i](a, mem);
    return out;
  };
}

/** sprintf(fmt, ...) convenience (throws a plain Error on an invalid format). */
export function sprintf(fmt: string, ...args: (Long | string)[]): string {
  const f = compileFormat(fmt);
  if (typeof f === 'string') throw new Error(f);
  return f(args);
}

// ---------------------------------------------------------------- print family helpers

/** print()/sprint() rendering of one value: long as %d, string as-is. */
export function printValue(v: Long | string): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? '' + v : v.toString();
}

/** sprint(a, b, ...) */
export function sprintValues(args: ReadonlyArray<Long | string>): string {
  let s = '';
  for (let i = 0; i < args.length; i++) s += printValue(args[i]);
  return s;
}

/** sprintd(delim, a, b, ...) */
export function sprintdValues(delim: string, args: ReadonlyArray<Long | string>): string {
  let s = '';
  for (let i = 0; i < args.length; i++) s += (i ? delim : '') + printValue(args[i]);
  return s;
}
