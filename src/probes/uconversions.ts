/**
 * Memory conversions of stdlib/uconversions.stp and stdlib/conversions.stp beyond the basic ones
 * of context.ts: the `*_error` reads of every integer width (a fault is an error), the `*_warn`
 * string reads (a fault is a warning and the given message), UTF-16 / UTF-32 strings converted
 * to UTF-8 as stap's runtime does (_stp_convert_utf32: surrogates and values past U+10FFFF are
 * errors, the output stops before a character that does not fit MAXSTRINGLEN), the
 * `*_buffer_quoted_error` forms and the guru-mode stores into user memory (set_user_*).
 * User memory is the current process' (src/kernel/memory.ts userSpace).
 */
import { StapError } from '../runtime/errors';
import type { Builtin } from '../runtime/builtins';
import type { ProbeContext } from '../runtime/context';
import type { Long } from '../runtime/int64';
import { kmem, KernelFault, AddressSpace } from '../kernel/memory';
import { num, hexU, uread, ustring, uspace } from './context';
import { bufferQuoted } from './tapset_builtins';

/** UTF-8 bytes (as a byte string) of code point c; null when c is not a scalar value. */
function utf8(c: number): string | null {
  if (c <= 0x7f) return String.fromCharCode(c);
  if (c >= 0xd800 && c <= 0xdfff) return null;
  if (c > 0x10ffff) return null;
  const n = c <= 0x7ff ? 2 : c <= 0xffff ? 3 : 4;
  const bytes: number[] = [];
  let v = c;
  for (let i = n - 1; i > 0; i--) {
    bytes[i] = 0x80 | (v & 0x3f);
    v >>= 6;
  }
  bytes[0] = ((0xff << (8 - n)) & 0xff) | v;
  return String.fromCharCode(...bytes);
}

/**
 * A NUL-terminated UTF-16 or UTF-32 string at addr as UTF-8, at most MAXSTRINGLEN-1 bytes.
 * Faults and invalid characters are errors (`user string copy fault at 0x...`,
 * `invalid UTF-16 character U+D800 at 0x...`).
 */
function wideString(c: ProbeContext, space: AddressSpace, addr: Long, unit: 2 | 4, who: 'user' | 'kernel'): string {
  let p = num(addr);
  let left = c.engine.maxStringLen;
  let out = '';
  const read = (at: number): number => {
    try {
      if (at === 0) throw new KernelFault(0, who === 'user');
      return Number(space.readUnsigned(at, unit));
    } catch (e) {
      if (e instanceof KernelFault) throw new StapError(`${who} string copy fault at 0x${hexU(at)} [man error::fault]`);
      throw e;
    }
  };
  while (left > 1) {
    let ch = read(p);
    if (ch === 0) break;
    if (unit === 2 && ch >= 0xd800 && ch <= 0xdbff) {
      const low = read(p + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        ch = 0x10000 + ((ch & 0x3ff) << 10) + (low & 0x3ff);
        p += 2;
      }
    }
    const bytes = utf8(ch);
    if (bytes === null) throw new StapError(`invalid UTF-${unit * 8} character U+${ch.toString(16).toUpperCase()} at 0x${hexU(p)}`);
    if (left < bytes.length + 1) break;
    out += bytes;
    left -= bytes.length;
    p += unit;
  }
  return out;
}

/** user_string_n_warn: a fault warns (stap's message) and gives warn_msg. */
function stringWarn(c: ProbeContext, addr: Long, n: Long, msg: string): string {
  const max = Math.max(0, Math.min(num(n), c.engine.maxStringLen - 1));
  try {
    return ustring(c, addr, max);
  } catch (e) {
    if (!(e instanceof StapError)) throw e;
    c.engine.warn(e.message);
    return msg;
  }
}

/** A guru-mode store into the current process' memory: a fault is an error. */
function uwrite(c: ProbeContext, addr: Long, what: string, store: (space: AddressSpace, a: number) => void): undefined {
  const a = num(addr);
  try {
    if (a === 0) throw new KernelFault(0, true);
    store(uspace(c), a);
  } catch (e) {
    if (e instanceof KernelFault) throw new StapError(`user ${what} copy fault at 0x${hexU(a)} [man error::fault]`);
    throw e;
  }
  return undefined;
}

function quotedError(space: AddressSpace, who: string, c: ProbeContext, addr: Long, inlen: Long, outlen: Long): string {
  const out = Math.max(0, Math.min(num(outlen), c.engine.maxStringLen));
  const s = out === 0 ? null : bufferQuoted(space, addr, inlen, out, c.engine.maxStringLen);
  if (s === null || /^0x[0-9a-f]+$/.test(s)) throw new StapError(`Unable to access ${who} space data at 0x${hexU(num(addr))}`);
  return s;
}

export const uconversionBuiltins: Record<string, Builtin> = {
  user_int8_error: (c, a: Long) => uread(c, a, 1, true, 'char'),
  user_uint8_error: (c, a: Long) => uread(c, a, 1, false, 'char'),
  user_int16_error: (c, a: Long) => uread(c, a, 2, true, 'short'),
  user_uint16_error: (c, a: Long) => uread(c, a, 2, false, 'short'),
  user_ushort_error: (c, a: Long) => uread(c, a, 2, false, 'short'),
  user_int32_error: (c, a: Long) => uread(c, a, 4, true, 'int'),
  user_uint32_error: (c, a: Long) => uread(c, a, 4, false, 'int'),
  user_int64_error: (c, a: Long) => uread(c, a, 8, true, 'long'),
  user_uint64_error: (c, a: Long) => uread(c, a, 8, false, 'long'),
  user_ulong_error: (c, a: Long) => uread(c, a, 8, false, 'long'),
  user_string_n_warn: (c, a: Long, n: Long, msg: string) => stringWarn(c, a, n, msg),
  user_string_utf16: (c, a: Long) => wideString(c, uspace(c), a, 2, 'user'),
  user_string_utf32: (c, a: Long) => wideString(c, uspace(c), a, 4, 'user'),
  kernel_string_utf16: (c, a: Long) => wideString(c, kmem, a, 2, 'kernel'),
  kernel_string_utf32: (c, a: Long) => wideString(c, kmem, a, 4, 'kernel'),
  user_buffer_quoted_error: (c, a: Long, inlen: Long, outlen: Long) => quotedError(uspace(c), 'user', c, a, inlen, outlen),
  kernel_buffer_quoted_error: (c, a: Long, inlen: Long, outlen: Long) => quotedError(kmem, 'kernel', c, a, inlen, outlen),
  set_user_char: (c, a: Long, v: Long) => uwrite(c, a, 'char', (s, p) => s.writeUnsigned(p, 1, v)),
  set_user_short: (c, a: Long, v: Long) => uwrite(c, a, 'short', (s, p) => s.writeUnsigned(p, 2, v)),
  set_user_int: (c, a: Long, v: Long) => uwrite(c, a, 'int', (s, p) => s.writeUnsigned(p, 4, v)),
  set_user_long: (c, a: Long, v: Long) => uwrite(c, a, 'long', (s, p) => s.writeUnsigned(p, 8, v)),
  set_user_pointer: (c, a: Long, v: Long) => uwrite(c, a, 'pointer', (s, p) => s.writeUnsigned(p, 8, v)),
  set_user_string: (c, a: Long, v: string) => uwrite(c, a, 'string', (s, p) => s.writeBytes(p, v)),
  set_user_string_n: (c, a: Long, n: Long, v: string) => uwrite(c, a, 'string', (s, p) => {
    const k = Math.max(0, num(n));
    s.writeBytes(p, v.slice(0, k));
  }),
};
