import { expect } from 'chai';
import * as S from '../../src/runtime/strings';
import { ctime, nsToMs, nsToS, nsToUs } from '../../src/runtime/time';
import { StapError } from '../../src/runtime/errors';

describe('runtime/strings', () => {
  it('truncation and concat', () => {
    expect(S.truncStr('abcdef', 3)).to.equal('abc');
    expect(S.concat('ab', 'cd', 3)).to.equal('abc');
    expect(S.strlen(S.toBinary('é'))).to.equal(2);
    expect(S.fromBinary(S.toBinary('héllo'))).to.equal('héllo');
  });
  it('substr / stringat / isinstr / strpos', () => {
    expect(S.substr('hello', 1, 3)).to.equal('ell');
    expect(S.substr('hello', 3, 100)).to.equal('lo');
    expect(S.substr('hello', -1, 2)).to.equal('');
    expect(S.substr('hello', 5, 2)).to.equal('');
    expect(S.substr('hello', 0, -4)).to.equal('');
    expect(S.substr('hello', 0, 2n ** 62n)).to.equal('hello');
    expect(S.stringat('AB', 1)).to.equal(66);
    expect(() => S.stringat('AB', 2)).to.throw(StapError, 'Position out of bounds');
    expect(() => S.stringat('AB', -1)).to.throw(StapError, 'Position out of bounds');
    expect(S.isinstr('xyz', 'y')).to.equal(1);
    expect(S.isinstr('xyz', 'q')).to.equal(0);
    expect(S.strpos('banana', 'na')).to.equal(2);
    expect(S.strpos('', '')).to.equal(0);
    expect(S.strpos('a', 'ab')).to.equal(-1);
  });
  it('str_replace', () => {
    expect(S.strReplace('aaaa', 'aa', 'b')).to.equal('bb');
    expect(S.strReplace('abc', '', 'x')).to.equal('abc');
    expect(S.strReplace('a.b.c', '.', '--')).to.equal('a--b--c');
    expect(S.strReplace('xx', 'x', 'yyy', 4)).to.equal('yyyy');
  });
  it('strtol (simple_strtol)', () => {
    expect(S.strtol('123abc', 10)).to.equal(123);
    expect(S.strtol('-42', 10)).to.equal(-42);
    expect(S.strtol('0x1f', 0)).to.equal(31);
    expect(S.strtol('0x1f', 16)).to.equal(31);
    expect(S.strtol('017', 0)).to.equal(15);
    expect(S.strtol('0', 0)).to.equal(0);
    expect(S.strtol('0xg', 0)).to.equal(0);
    expect(S.strtol('ff', 16)).to.equal(255);
    // Linux 6.1 lib/kstrtox.c _parse_integer_limit: only 0-9 and a-f are digits, whatever the
    // base (an unsigned int: -1 is 4294967295)
    expect(S.strtol('zz', 36)).to.equal(0);
    expect(S.strtol('ff', 100)).to.equal(1515);
    expect(S.strtol('10', -1)).to.equal(4294967295);
    expect(S.strtol('1', 1)).to.equal(0);
    expect(S.strtol('  5', 10)).to.equal(0);
    expect(S.strtol('18446744073709551615', 10)).to.equal(-1);
    expect(S.strtol('-9223372036854775808', 10)).to.equal(-9223372036854775808n);
    // string.stp stringat: a C char, signed on x86_64
    expect(S.stringat('\xff', 0)).to.equal(-1);
    expect(S.stringat('A\x80', 1)).to.equal(-128);
    // string.stp substr: clamp(len + 1) wraps for LLONG_MAX
    expect(S.substr('abc', 0, 0x7fffffffffffffffn)).to.equal('');
    expect(S.substr('abc', 1, 0x7ffffffffffffffen)).to.equal('bc');
    // runtime/stp_string.c _stp_text_str: quotes out of max(len, 5); a NUL ends the text
    expect(S.textStrn('hi', 2, 1)).to.equal('"hi"');
    expect(S.textStrn('hello', 3, 1)).to.equal('""...');
    expect(S.textStrn('hello', 6, 1)).to.equal('"h"...');
    expect(S.textStrn('a\x00b', 0, 0)).to.equal('a');
    expect(S.isdigit('7a')).to.equal(1);
    expect(S.isdigit('a7')).to.equal(0);
    expect(S.isdigit('')).to.equal(0);
  });
  it('tokenize keeps per-context state and skips empty tokens', () => {
    const st = S.newTokenizeState();
    const all = (input: string, delim: string) => {
      const out: string[] = [];
      let t = S.tokenize(st, input, delim);
      while (t !== '') { out.push(t); t = S.tokenize(st, '', delim); }
      return out;
    };
    expect(all('x;;y;z;', ';')).to.deep.equal(['x', 'y', 'z']);
    expect(all('p q,r', ' ,')).to.deep.equal(['p', 'q', 'r']);
    expect(all('', ',')).to.deep.equal([]);
    expect(all('nodelim', ',')).to.deep.equal(['nodelim']);
    expect(S.tokenize(st, 'a-b', '-')).to.equal('a');
    expect(S.tokenize(st, 'c-d', '-')).to.equal('c'); // non-empty input restarts
    expect(S.tokenize(st, '', '-')).to.equal('d');
    expect(S.tokenize(st, '', '-')).to.equal('');
    expect(S.tokenize(st, '', '-')).to.equal('');
  });
  it('text_str / text_strn / string_quoted', () => {
    expect(S.textStr('a\tb"c\\\x01\x7f')).to.equal('a\\tb\\"c\\\\\\001\\177');
    expect(S.textStr(S.toBinary('é€😀'))).to.equal('\\u00E9\\u20AC\\U0001F600');
    expect(S.textStr('\xe9')).to.equal('\\351');
    expect(S.stringQuoted('hi\n')).to.equal('"hi\\n"');
    expect(S.stringQuoted('')).to.equal('""');
    expect(S.textStrn('abcdefghij', 4, 0)).to.equal('abcd');
    expect(S.textStrn('ab\ncd', 3, 0)).to.equal('ab');
    expect(S.textStrn('abcdef', 8, 1)).to.equal('"abcdef"');
    expect(S.textStrn('abcdefg', 8, 1)).to.equal('"abc"...');
    expect(S.textStrn('\n\n\n\n', 8, 1)).to.equal('"\\n"...');
    expect(S.textStrn('x'.repeat(600), 0, 0).length).to.equal(511);
  });
});

describe('runtime/time', () => {
  it('ctime', () => {
    expect(ctime(0)).to.equal('Thu Jan  1 00:00:00 1970');
    expect(ctime(1234567890)).to.equal('Fri Feb 13 23:31:30 2009');
    expect(ctime(2147483647)).to.equal('Tue Jan 19 03:14:07 2038');
    expect(ctime(-1)).to.equal('Wed Dec 31 23:59:59 1969');
    expect(ctime(951782400)).to.equal('Tue Feb 29 00:00:00 2000');
    expect(() => ctime(2147483648)).to.throw(StapError, 'Time too far in the future to be converted');
    expect(() => ctime(-2147483649)).to.throw(StapError, 'Time too far in the past to be converted');
  });
  it('ns splitting', () => {
    expect(nsToS(2999999999)).to.equal(2);
    expect(nsToMs(2999999999)).to.equal(2999);
    expect(nsToUs(-1500)).to.equal(-1);
  });
});
