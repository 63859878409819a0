/**
 * Property-based checks: arithmetic compiled by the translator (one generated handler per
 * operator) against BigInt reference arithmetic with C int64 semantics.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type * as A from '../../src/ast';
import { translate } from '../../src/translate';
import { Engine } from '../../src/runtime/engine';
import * as B from './ast-builders';
import { fromBigInt } from '../../src/runtime/int64';
import { int64Ref } from './int64-ref';

const OPS: A.BinaryOp[] = ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>', '>>>'];

const ref = (op: A.BinaryOp, a: bigint, b: bigint): bigint | 'error' => {
  const r = int64Ref(op, a, b);
  return r === 'div0' ? 'error' : r;
};

describe('generated int64 arithmetic vs BigInt (property-based)', () => {
  const x = B.v('x', 'long', 'global');
  const y = B.v('y', 'long', 'global');
  const r = B.v('r', 'long', 'global');
  const probes = OPS.map((op) => B.probe('never', B.block(B.es(B.assign(B.sym(r), B.bin(op, B.sym(x), B.sym(y)))))));
  const tr = translate(B.program(probes, [x, y, r]));
  const engine = new Engine(tr, { stdout: () => undefined, stderr: () => undefined, handleSignals: false });
  const mod = engine.load();
  const ctx = engine.newContext(tr.probes[0], { task: engine.stapioTask });
  const int64 = fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.bigInt({ min: -1000n, max: 1000n }),
    fc.constantFrom(0n, 1n, -1n, 63n, 64n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n, -(2n ** 53n), 2n ** 31n),
  );
  OPS.forEach((op, i) => {
    it(`x ${op} y`, () => {
      fc.assert(fc.property(int64, int64, (a, b) => {
        mod.globals.get('x')!.set!(fromBigInt(a));
        mod.globals.get('y')!.set!(fromBigInt(b));
        const want = ref(op, a, b);
        let got: bigint | 'error';
        try {
          mod.probes[i](ctx);
          got = BigInt(mod.globals.get('r')!.get() as number | bigint);
        } catch {
          got = 'error';
        }
        expect(got).to.equal(want);
      }), { numRuns: 2000 });
    });
  });
});
