import { expect } from 'chai';
import * as fc from 'fast-check';
import * as I from '../../src/runtime/int64';
import { StapError } from '../../src/runtime/errors';

const W = (b: bigint) => BigInt.asIntN(64, b);
const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

// values: full int64 range, plus a heavy weight around 0, int32 and the 2^53 boundary
const edge = fc.constantFrom(0n, 1n, -1n, 2n, -2n, 63n, 64n, MIN, MAX, MIN + 1n, 2n ** 31n, -(2n ** 31n), 2n ** 31n - 1n,
  2n ** 53n, 2n ** 53n - 1n, 2n ** 53n + 1n, -(2n ** 53n), -(2n ** 53n) + 1n, -(2n ** 53n) - 1n, 2n ** 32n, 2n ** 62n);
const near53 = fc.bigInt(-(2n ** 54n), 2n ** 54n);
const small = fc.bigInt(-(2n ** 33n), 2n ** 33n);
const big = fc.bigInt(MIN, MAX);
const arbB = fc.oneof(edge, near53, small, big);
const L = (b: bigint): I.Long => I.fromBigInt(b);

function check(x: I.Long, expected: bigint): void {
  expect(I.isCanonical(x), `canonical ${String(x)}`).to.equal(true);
  expect(I.toBigInt(x)).to.equal(expected);
}

describe('runtime/int64', () => {
  const N = { numRuns: 1500 };
  it('add/sub/mul wrap like C', () => {
    fc.assert(fc.property(arbB, arbB, (a, b) => {
      check(I.add(L(a), L(b)), W(a + b));
      check(I.sub(L(a), L(b)), W(a - b));
      check(I.mul(L(a), L(b)), W(a * b));
    }), N);
  });
  it('div/mod truncate, dividend sign, MIN/-1', () => {
    fc.assert(fc.property(arbB, arbB, (a, b) => {
      if (b === 0n) return;
      check(I.div(L(a), L(b)), W(a / b));
      check(I.mod(L(a), L(b)), W(a % b));
    }), N);
    check(I.div(L(MIN), -1), MIN);
    check(I.mod(L(MIN), -1), 0n);
    check(I.mod(-4, 2), 0n);
    check(I.div(-1, 2), 0n);
    check(I.mod(-7, 3), -1n);
    check(I.div(-7, 2), -3n);
  });
  it('division by zero throws StapError', () => {
    expect(() => I.div(5, 0)).to.throw(StapError, 'division by 0');
    expect(() => I.mod(L(MAX), 0)).to.throw(StapError, 'division by 0');
    try { I.div(1, 0); } catch (e) { expect((e as StapError).message).to.equal('division by 0'); expect((e as StapError).catchable).to.equal(true); }
  });
  it('bitwise ops on the 64-bit pattern', () => {
    fc.assert(fc.property(arbB, arbB, (a, b) => {
      check(I.bitAnd(L(a), L(b)), W(a & b));
      check(I.bitOr(L(a), L(b)), W(a | b));
      check(I.bitXor(L(a), L(b)), W(a ^ b));
      check(I.bitNot(L(a)), W(~a));
      check(I.neg(L(a)), W(-a));
    }), N);
  });
  it('shifts mask the count with 63', () => {
    fc.assert(fc.property(arbB, fc.oneof(fc.bigInt(-70n, 140n), big), (a, b) => {
      const c = BigInt.asUintN(6, b);
      check(I.shl(L(a), L(b)), W(a << c));
      check(I.shr(L(a), L(b)), W(a >> c));
      check(I.ushr(L(a), L(b)), W(BigInt.asUintN(64, a) >> c));
    }), N);
    check(I.shl(1, 64), 1n);
    check(I.shl(1, 63), MIN);
    check(I.ushr(-1, 1), MAX);
    check(I.shr(-1, 63), -1n);
  });
  it('never produces -0', () => {
    expect(Object.is(I.mul(0, -5), 0)).to.equal(true);
    expect(Object.is(I.neg(0), 0)).to.equal(true);
    expect(Object.is(I.div(-1, 3), 0)).to.equal(true);
    expect(Object.is(I.mod(-3, 3), 0)).to.equal(true);
    expect(Object.is(I.shr(-0.0 + 0, 3), 0)).to.equal(true);
  });
  it('wraps at the int64 limits', () => {
    check(I.add(L(MAX), 1), MIN);
    check(I.mul(L(MIN), -1), MIN);
    check(I.sub(L(MIN), 1), MAX);
    check(I.add(9007199254740991, 1), 2n ** 53n);
    check(I.sub(I.add(9007199254740991, 1), 1), 2n ** 53n - 1n);
    expect(I.sub(I.add(9007199254740991, 1), 1)).to.equal(9007199254740991);
  });
  it('parseLiteral follows strtoull(s, 0)', () => {
    expect(I.parseLiteral('0')).to.equal(0);
    expect(I.parseLiteral('42')).to.equal(42);
    expect(I.parseLiteral('0x1F')).to.equal(31);
    expect(I.parseLiteral('0X1f')).to.equal(31);
    expect(I.parseLiteral('017')).to.equal(15);
    expect(I.parseLiteral('09')).to.equal(null);
    expect(I.parseLiteral('0x1g')).to.equal(null);
    expect(I.parseLiteral('0x')).to.equal(null);
    expect(I.parseLiteral('12abc')).to.equal(null);
    expect(I.parseLiteral('18446744073709551615')).to.equal(-1);
    expect(I.parseLiteral('18446744073709551616')).to.equal(null);
    expect(I.parseLiteral('9223372036854775808')).to.equal(MIN);
    expect(I.parseLiteral('9223372036854775807')).to.equal(MAX);
    expect(I.parseLiteral('0xffffffffffffffff')).to.equal(-1);
    expect(I.parseLiteral('01777777777777777777777')).to.equal(-1);
  });
  it('text conversions', () => {
    expect(I.toStringSigned(L(MIN))).to.equal('-9223372036854775808');
    expect(I.toStringUnsigned(-1)).to.equal('18446744073709551615');
    expect(I.toHex(-1)).to.equal('ffffffffffffffff');
    expect(I.toHex(255, true)).to.equal('FF');
    expect(I.toOctal(-1)).to.equal('1777777777777777777777');
    fc.assert(fc.property(big, (a) => {
      expect(I.toStringSigned(L(a))).to.equal(a.toString());
      expect(I.toHex(L(a))).to.equal(BigInt.asUintN(64, a).toString(16));
    }), { numRuns: 300 });
  });
  it('fromNumber truncates and wraps', () => {
    expect(I.fromNumber(3.7)).to.equal(3);
    expect(I.fromNumber(-3.7)).to.equal(-3);
    expect(Object.is(I.fromNumber(-0.5), 0)).to.equal(true);
    expect(I.fromNumber(2 ** 64)).to.equal(0);
    expect(I.fromNumber(2 ** 63)).to.equal(MIN);
    expect(I.fromNumber(NaN)).to.equal(0);
    expect(I.toInt32(2 ** 32 + 5)).to.equal(5);
    expect(I.toInt32(L(2n ** 62n + 2n ** 31n))).to.equal(-(2 ** 31));
  });
});
