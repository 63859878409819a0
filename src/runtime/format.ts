/**
 * stap's printf engine: the translator's format parser (staptree.cxx
 * print_format::string_to_components: ONE flag, width|*, .prec|.*, optional single `l`)
 * and the runtime's kernel-style formatting (runtime/vsprintf.c number() etc.).
 *
 * Bounds, as stap 4.8 compiles a printf/sprintf (translate.cxx stp_printf_N / stp_sprintf_N,
 * read in `stap -p3` output): a static width or precision is the format's decimal number
 * modulo 2^32, a `*` one the argument's low 32 bits; either is then a C int clamped to
 * [0, room left in the buffer].  printf's buffer is one print buffer (STP_BUFFER_SIZE bytes,
 * runtime/transport/transport.h), sprintf's the MAXSTRINGLEN-byte string.  %s reads at most
 * STP_BUFFER_SIZE bytes.  formatInBuffer() writes a whole format into such a buffer.
 */
import { Long, toStringSigned, toStringUnsigned, toHex, toOctal, toBigInt } from './int64';
import { StapError } from './errors';

export type ConvChar = 'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'p' | 'c' | 's' | 'b' | 'm' | 'M';
export type FormatFlag = '' | '-' | '+' | ' ' | '#' | '0';
export type ArgType = 'long' | 'string';

export interface FormatConv {
  conv: ConvChar;
  flag: FormatFlag;
  /** static width (the decimal number modulo 2^32, as the translator keeps it), -1 when absent or dynamic */
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

/** One print buffer: the most a single print statement writes. */
export const STP_BUFFER_SIZE = 8192;

/** `clamp_t(int, v, 0, hi)`: the C int of a width or precision (low 32 bits) clamped to [0, hi]. */
export function clampInt(v: Long, hi: number): number {
  const x = typeof v === 'number' ? v | 0 : Number(BigInt.asIntN(32, v));
  return x < 0 ? 0 : x > hi ? hi : x;
}

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
      while (i < n && isDigit(fmt[i])) width = (width * 10 + (fmt.charCodeAt(i++) - 48)) % 4294967296;
    }
    if (i >= n) return 'trailing incomplete print format conversion';
    if (fmt[i] === '.') {
      i++;
      if (i >= n) {
        // (a bare `%.` ending the format is dropped as a lone `%` is: real-stap -p1 printf("a%.")
        // passes, printf("%5.") and printf("%-.") fail)
        if (!started) break;
        return 'trailing incomplete print format conversion';
      }
      if (fmt[i] === '*') {
        precStar = true;
        started = true;
        i++;
      } else if (isDigit(fmt[i])) {
        prec = 0;
        started = true;
        while (i < n && isDigit(fmt[i])) prec = (prec * 10 + (fmt.charCodeAt(i++) - 48)) % 4294967296;
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
  // strnlen(s, clamp_t(size_t, precision, 0, STP_BUFFER_SIZE)): no precision reads 8192 bytes at most
  if (prec < 0 || prec > STP_BUFFER_SIZE) prec = STP_BUFFER_SIZE;
  if (s.length > prec) s = s.slice(0, prec);
  if (width > s.length) s = flag === '-' ? s + spaces(width - s.length) : spaces(width - s.length) + s;
  if (flag === '0') s += '\x00'; // stap quirk: %0s appends a NUL byte
  return s;
}

/** A %b precision: 1, 2, 4 or 8 bytes, else unspecified (-1) (vsprintf.c check_binary_precision). */
function binaryPrecision(p: number): number {
  return p === 1 || p === 2 || p === 4 || p === 8 ? p : -1;
}

/** %b's field: [value size in bytes, field width] (an unspecified one defaults to the other, both to 8). */
function binaryLayout(width: number, prec: number): [number, number] {
  let p = binaryPrecision(prec);
  let w = width;
  if (w === -1) {
    if (p === -1) w = p = 8;
    else w = p;
  } else if (p === -1) {
    p = binaryPrecision(w);
    if (p === -1) p = 8;
  }
  return [p, w];
}

/** The `size` low bytes of a value, little-endian. */
function leBytes(v: Long, size: number): string {
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
  return s;
}

/** `%b`: the value's little-endian bytes (size from precision, else width, else 8), padded with NULs to the width. */
export function formatBinary(v: Long, flag: FormatFlag = '', width = -1, prec = -1): string {
  return binaryInRoom(v, flag, width, prec, Infinity);
}

/**
 * %b written with `room` bytes left (vsprintf.c _stp_vsprint_binary): NUL padding stops at the
 * end of the buffer, and a value that does not fit whole is left out.
 */
function binaryInRoom(v: Long, flag: FormatFlag, width: number, prec: number, room: number): string {
  const [p, w0] = binaryLayout(width, prec);
  let w = w0;
  let out = '';
  if (flag !== '-') {
    // while (precision < width-- && str <= end) *str++ = '\0';
    if (p < w) {
      const n = Math.min(w - p, room);
      out += '\x00'.repeat(n);
      w = n === w - p ? p - 1 : w - n - 1;
    } else w--;
  }
  if (out.length + p <= room) out += leBytes(v, p);
  // while (precision >= 0 && width >= 0 && precision < width-- && str <= end) *str++ = '\0';
  if (w >= 0 && p < w) out += '\x00'.repeat(Math.min(w - p, room - out.length));
  return out;
}

/** `%m` / `%M`: dump `prec` (default 1) bytes at addr; `#` reads user memory. */
export function formatMemory(conv: 'm' | 'M', addr: Long, flag: FormatFlag, width: number, prec: number, mem: MemReader | undefined): string {
  const len = prec > 0 ? prec : 1;
  if (len > PAGE_SIZE) throw new StapError(`${len} is too many bytes for a memory dump`);
  return memoryInRoom(conv, addr, flag, width, prec, Infinity, mem);
}

/**
 * %m / %M written with `room` bytes left (vsprintf.c _stp_vsprint_memory): only the bytes that
 * fit are read; %M writes whole hex pairs.
 */
function memoryInRoom(conv: 'm' | 'M', addr: Long, flag: FormatFlag, width: number, prec: number, room: number,
  mem: MemReader | undefined): string {
  if (mem === undefined) throw new StapError('memory access not available');
  let len = prec > 0 ? prec : 1;
  let w = width;
  let out = '';
  if (flag !== '-') {
    // while (actlen < width-- && str <= end) *str++ = ' ';
    const actlen = conv === 'M' ? len * 2 : len;
    if (actlen < w) {
      const n = Math.min(w - actlen, room);
      out += spaces(n);
      w = n === w - actlen ? actlen - 1 : w - n - 1;
    } else w--;
  }
  const left = room - out.length;
  if (conv === 'M') {
    const n = Math.min(len, Math.floor(left / 2)); // (i < len && str < end): two digits a byte
    const bytes = n > 0 ? mem(addr, n, flag === '#') : '';
    for (let i = 0; i < bytes.length; i++) out += (bytes.charCodeAt(i) & 255).toString(16).padStart(2, '0');
    len *= 2;
  } else {
    const n = Math.min(len, left);
    if (n > 0) out += mem(addr, n, flag === '#');
  }
  if (len < w) out += spaces(Math.min(w - len, room - out.length));
  if (flag === '0' && out.length < room) out += '\x00';
  return out;
}

// ---------------------------------------------------------------- whole formats

/** A `*` argument as the C int the runtime receives. */
function starValue(v: Long | string | undefined): Long {
  return typeof v === 'number' || typeof v === 'bigint' ? v : 0;
}

/** One conversion with `room` bytes left (width and precision already clamped). */
function fieldInRoom(p: FormatConv, v: Long | string, width: number, prec: number, room: number, mem?: MemReader): string {
  const n = typeof v === 'string' ? 0 : v;
  let s: string;
  switch (p.conv) {
    case 's':
      s = formatString(typeof v === 'string' ? v : toStringSigned(v), p.flag, width, prec);
      break;
    case 'c':
      s = formatChar(n, p.flag, width);
      break;
    case 'b':
      return binaryInRoom(n, p.flag, width, prec, room);
    case 'm':
    case 'M':
      if (prec > PAGE_SIZE) throw new StapError(`${prec} is too many bytes for a memory dump`);
      return memoryInRoom(p.conv, n, p.flag, width, prec, room, mem);
    default:
      s = formatInteger(p.conv, n, p.flag, width, prec);
  }
  return s.length > room ? s.slice(0, room) : s;
}

/**
 * A whole format written into a buffer of `size` bytes as stap's compiled printf/sprintf
 * writes it: each width and precision clamped to the room left, fields cut at the end of the
 * buffer.  Returns the bytes written (an sprintf then keeps `size - 1` of them, up to a NUL).
 */
export function formatInBuffer(parts: readonly FormatPart[], args: ReadonlyArray<Long | string>, size: number, mem?: MemReader): string {
  let out = '';
  let ai = 0;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k];
    const room = size - out.length;
    if (room <= 0) break;
    if (typeof p === 'string') {
      out += p.length > room ? p.slice(0, room) : p;
      continue;
    }
    const width = p.widthStar ? clampInt(starValue(args[ai++]), room) : p.width < 0 ? -1 : clampInt(p.width, room);
    const prec = p.precStar ? clampInt(starValue(args[ai++]), room) : p.prec < 0 ? -1 : clampInt(p.prec, room);
    out += fieldInRoom(p, args[ai++], width, prec, room, mem);
  }
  return out;
}

/** Run a parsed format over its arguments (in formatArgTypes order), without a buffer bound. */
export function formatParts(parts: FormatPart[], args: ReadonlyArray<Long | string>, mem?: MemReader): string {
  return formatInBuffer(parts, args, Infinity, mem);
}

export type CompiledFormat = (args: ReadonlyArray<Long | string>, mem?: MemReader) => string;

/** A format as a function of its arguments, or stap's error text for an invalid format. */
export function compileFormat(fmt: string): CompiledFormat | string {
  const parts = parseFormat(fmt);
  if (typeof parts === 'string') return parts;
  return (a, mem) => formatParts(parts, a, mem);
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
