import { expect } from 'chai';
import * as fc from 'fast-check';
import { parseFormat, compileFormat, formatArgTypes, formatParts, sprintf, printValue, sprintdValues, FormatPart, MemReader, formatInBuffer, clampInt, FormatConv } from '../../src/runtime/format';
import { Long } from '../../src/runtime/int64';
import { StapError } from '../../src/runtime/errors';

const P = (fmt: string, ...args: (Long | string)[]) => sprintf(fmt, ...args);

describe('runtime/format', () => {
  it('parse errors', () => {
    expect(parseFormat('%-+5d')).to.equal('invalid or missing conversion specifier');
    expect(parseFormat('%-#x')).to.equal('invalid or missing conversion specifier');
    expect(parseFormat('%lld')).to.equal('invalid or missing conversion specifier');
    expect(parseFormat('%q')).to.equal('invalid or missing conversion specifier');
    expect(parseFormat('abc%')).to.equal('invalid or missing conversion specifier');
    expect(parseFormat('%5')).to.equal('trailing incomplete print format conversion');
    expect(parseFormat('%-')).to.equal('trailing incomplete print format conversion');
    expect(parseFormat('%.3')).to.equal('trailing incomplete print format conversion');
    // (real-stap -p1: a bare `%.` at the end passes, after a flag or width it does not)
    expect(parseFormat('%5.')).to.equal('trailing incomplete print format conversion');
    expect(parseFormat('%-.')).to.equal('trailing incomplete print format conversion');
    expect(Array.isArray(parseFormat('a%.'))).to.equal(true);
    expect(Array.isArray(parseFormat('%ld %s %%'))).to.equal(true);
  });
  it('argument types include * args', () => {
    const p = parseFormat('%*.*d %s %.*s %c %p %m') as FormatPart[];
    expect(formatArgTypes(p)).to.deep.equal(['long', 'long', 'long', 'string', 'long', 'string', 'long', 'long', 'long']);
  });
  it('integer conversions (kernel number())', () => {
    expect(P('%d,%2d,%016d', -1, 1, -1024)).to.equal('-1, 1,-000000000001024');
    expect(P('%#o %#x %#X', 1, 2, 3)).to.equal('01 0x2 0X3');
    expect(P('%#x %#o %p', 0, 0, 0)).to.equal('0x0 00 0x0');
    expect(P('%08.5d', -42)).to.equal('-0000042');
    expect(P('%-05d|', 7)).to.equal('7    |');
    expect(P('%#08x', 1)).to.equal('     0x1');
    expect(P('%u %x %o', -1, -1, -1)).to.equal('18446744073709551615 ffffffffffffffff 1777777777777777777777');
    expect(P('%+d % d %+d % d', 5, 5, -5, -5)).to.equal('+5  5 -5 -5');
    expect(P('%+u %+x', 5, 255)).to.equal('5 ff');
    expect(P('%.0d|%.0x', 0, 0)).to.equal('0|0');
    expect(P('%.3d|%5.3d|%-6.2x|', 7, -7, 10)).to.equal('007| -007|0a    |');
    expect(P('%ld %li', -9223372036854775808n, 9223372036854775807n)).to.equal('-9223372036854775808 9223372036854775807');
    expect(P('%X', 0xabcdef)).to.equal('ABCDEF');
  });
  it('%p', () => {
    expect(P('%p', 0x12345678)).to.equal('0x12345678');
    expect(P('%20p|', 0)).to.equal(' '.repeat(17) + '0x0|');
    expect(P('%-20p|', 0)).to.equal('0x0' + ' '.repeat(17) + '|');
    expect(P('%.8p', 1)).to.equal('0x00000001');
    expect(P('%p', -1)).to.equal('0xffffffffffffffff');
  });
  it('%s and %c', () => {
    expect(P('[%5s][%-5s][%.2s][%5.1s]', 'ab', 'ab', 'abc', 'xyz')).to.equal('[   ab][ab   ][ab][    x]');
    expect(P('%0s', 'a')).to.equal('a\x00');
    expect(P('%c%c%c', 104, 105 + 256, -1)).to.equal('hi\xff');
    expect(P('[%3c][%-3c]', 65, 66)).to.equal('[  A][B  ]');
    expect(P('%#c%#c%#c%#c%#c%#c', 10, 0, 27, 127, 39, 92)).to.equal("\\n\\000\\033\\177\\'\\\\");
    expect(P('[%5#c]'.replace('5#', '#5'), 9)).to.equal('[   \\t]');
  });
  it('%b binary', () => {
    expect(P('%1b%1b', 72, 105)).to.equal('Hi');
    expect(P('%b', 0x0102030405060708n + 0n)).to.equal('\x08\x07\x06\x05\x04\x03\x02\x01');
    expect(P('%2b', 0x4142)).to.equal('BA');
    expect(P('%4b', -2)).to.equal('\xfe\xff\xff\xff');
    expect(P('%.2b', 0x4142)).to.equal('BA');
    expect(P('%4.2b', 0x4142)).to.equal('\x00\x00BA');
    expect(P('%1.4b', 0x41424344)).to.equal('DCBA');
    expect(P('%3b', 1)).to.equal('\x01' + '\x00'.repeat(7));
    const f = compileFormat('%*.*b') as (a: (Long | string)[]) => string;
    expect(f([8, 1, 0x41])).to.equal('\x00'.repeat(7) + 'A');
  });
  it('dynamic width/precision; negatives clamp to 0', () => {
    expect(P('%*d|%.*s|%*s|', 5, 42, 2, 'abcdef', -3, 'x')).to.equal('   42|ab|x|');
    expect(P('%-*d|', 4, 1)).to.equal('1   |');
  });
  it('%m and %M read memory through the callback', () => {
    const mem: MemReader = (addr, len, user) => {
      if (addr === 0) throw new StapError('kernel string copy fault at 0x0 [man error::fault]');
      return (user ? 'UVWXYZ' : 'ABCDEF\x01\xff').slice(0, len);
    };
    const run = (fmt: string, ...a: (Long | string)[]) => formatParts(parseFormat(fmt) as FormatPart[], a, mem);
    expect(run('%m', 1)).to.equal('A');
    expect(run('%.3m', 1)).to.equal('ABC');
    expect(run('%#.2m', 1)).to.equal('UV');
    expect(run('%.8M', 1)).to.equal('41424344454601ff');
    expect(run('%.*M|%5.1m', 2, 1, 1)).to.equal('4142|    A');
    expect(() => run('%.5000m', 1)).to.throw(StapError, '5000 is too many bytes for a memory dump');
    expect(() => run('%m', 0)).to.throw(StapError, 'kernel string copy fault');
  });
  it('literals and %%', () => {
    expect(P('100%% sure')).to.equal('100% sure');
    expect(P('%s=%d\n', 'x', 3)).to.equal('x=3\n');
    expect(compileFormat('%5')).to.equal('trailing incomplete print format conversion');
  });
  it('decimal/hex agree with BigInt reference', () => {
    fc.assert(fc.property(fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), fc.integer({ min: 0, max: 30 }), (b, w) => {
      const v: Long = b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
      const f = compileFormat('%*d|%x|%u') as (a: (Long | string)[]) => string;
      const u = BigInt.asUintN(64, b);
      expect(f([w, v, v, v])).to.equal(b.toString().padStart(w) + '|' + u.toString(16) + '|' + u.toString());
    }), { numRuns: 300 });
  });
  it('print helpers', () => {
    expect(printValue(-5)).to.equal('-5');
    expect(printValue(2n ** 62n)).to.equal('4611686018427387904');
    expect(printValue('s')).to.equal('s');
    expect(sprintdValues(', ', [1, 'a', 2])).to.equal('1, a, 2');
  });

  // Bounds as stap 4.8's compiled printf/sprintf apply them (the C `real-stap -p3` prints:
  // `width = clamp_t(int, W, 0, end - str + 1)`, and runtime/vsprintf.c's field writers)
  it('widths and precisions: the format number modulo 2^32, a `*` argument as a C int, clamped to [0, room]', () => {
    const conv = (f: string) => (parseFormat(f) as FormatPart[])[0] as FormatConv;
    expect(conv('%99999999999999999999d').width).to.equal(1661992959); // as -p3 prints it
    expect(conv('%4294967301d').width).to.equal(5);
    expect(conv('%.4294967301d').prec).to.equal(5);
    expect(clampInt(2147483648, 512)).to.equal(0);
    expect(clampInt(9223372036854775807n, 512)).to.equal(0);
    expect(clampInt(4294967301, 512)).to.equal(5);
    expect(clampInt(-7, 512)).to.equal(0);
    expect(clampInt(100000, 512)).to.equal(512);
  });
  it('a whole format into a buffer: fields clamped to the room left, cut at its end', () => {
    const buf = (f: string, size: number, ...a: (Long | string)[]) => formatInBuffer(parseFormat(f) as FormatPart[], a, size);
    const pad = ' '.repeat(509);
    // sprintf's 512-byte buffer: room 3 for the field; the NUL then replaces the last byte
    expect(buf('%s%5d', 512, pad, 12).slice(509)).to.equal(' 12');
    expect(buf('%s%-5d|', 512, pad, 12).slice(509)).to.equal('12 ');
    expect(buf('%s%05d|', 512, pad, 12).slice(509)).to.equal('012');
    // %b: a value that does not fit whole is left out; NUL padding stops at the end
    expect(buf('%s%b', 512, pad, 0x41)).to.equal(pad);
    expect(buf('%s%4b', 512, pad, 0x41)).to.equal(pad); // (width 3 left: the size falls back to 8)
    expect(buf('%s%4.1b', 512, pad, 0x41)).to.equal(pad + '\x00\x00A');
    // %M writes whole hex pairs while two bytes are left
    const mem: MemReader = (addr, len) => 'ABCDEF'.slice(0, len);
    expect(formatInBuffer(parseFormat('%s%.3M') as FormatPart[], [pad, 1], 512, mem)).to.equal(pad + '41');
    expect(buf('%2147483647d', 8192, 1)).to.equal(' '.repeat(8191) + '1');
    expect(buf('%.999999999d|', 8192, 1)).to.equal('0'.repeat(8191) + '1');
  });
  it('%b takes its size from a valid precision, else from the width, else 8 (vsprintf.c)', () => {
    expect(P('%4.3b', 0x41424344)).to.equal('DCBA'); // invalid precision: size from the width
    expect(P('%.3b', 0x41)).to.equal('A' + '\x00'.repeat(7));
    expect(P('%-4.2b|', 0x4142)).to.equal('BA\x00\x00|');
  });
  it('%m of precision 0 dumps one byte; %s reads at most one print buffer', () => {
    const mem: MemReader = (addr, len) => 'ABCDEF'.slice(0, len);
    expect(formatParts(parseFormat('%.0m') as FormatPart[], [1], mem)).to.equal('A');
    expect(P('%s', 'x'.repeat(9000)).length).to.equal(8192);
  });

  // Expected values: the stp_printf_N functions real-stap -p3 generates for
  // 'probe begin { printf(FMT, VALUE) ... }', compiled in user space with stap 4.8's
  // runtime/vsprintf.c (number(), _stp_vsprint_char, _stp_vsprint_memory, _stp_vsprint_binary)
  // and run: kernel number() prints "0" for %.0d of 0, `#` makes %o of 0 "00", %c escapes with
  // `#` (octal for 0 and 0xff), %b of a width that is no size writes 8 bytes.
  it('unusual values with every flag, as the stap 4.8 runtime prints them', () => {
    const rows: [string, Long | string, string][] = [
      ["%+.3d\n", -9223372036854775808n, "-9223372036854775808\n"],
      ["% 25d\n", -42, "                      -42\n"],
      ["%025d\n", -42, "-000000000000000000000042\n"],
      ["%-12o|\n", -1, "1777777777777777777777|\n"],
      ["%#.20X\n", 255, "0X000000000000000000FF\n"],
      ["%+8i|\n", 0, "      +0|\n"],
      ["%.0d|\n", 0, "0|\n"],
      ["%#x\n", 0, "0x0\n"],
      ["%#o\n", 0, "00\n"],
      ["%u\n", -1, "18446744073709551615\n"],
      ["%05c|\n", 65, "    A|\n"],
      ["%-4c|\n", 200, "\u00c8   |\n"],
      ["%#c\n", 255, "\\377\n"],
      ["%#c\n", 0, "\\000\n"],
      ["%#5c|\n", 39, "   \\'|\n"],
      ["%#6c|\n", -1, "  \\377|\n"],
      ["%.2s|\n", "\u00ff\u0080z", "\u00ff\u0080|\n"],
      ["%-6.1s|\n", "\t\n", "\t     |\n"],
      ["%.0s|\n", "abc", "|\n"],
      ["%#p\n", -1, "0xffffffffffffffff\n"],
      ["%-20p|\n", 4096, "0x1000              |\n"],
      ["%010p|\n", 255, "0x000000ff|\n"],
      ["%3b\n", 258, "\u0002\u0001\u0000\u0000\u0000\u0000\u0000\u0000\n"],
      ["%-5.2b|\n", 258, "\u0002\u0001\u0000\u0000\u0000|\n"],
      ["%.4b\n", -1, "\u00ff\u00ff\u00ff\u00ff\n"],
      ["%0b\n", 1, "\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000\n"],
    ];
    for (const [fmt, v, want] of rows) expect(P(fmt, v), fmt).to.equal(want);
  });
});
