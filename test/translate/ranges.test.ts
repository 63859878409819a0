/**
 * The range analysis (src/translate/ranges.ts) and the plain-JS arithmetic it enables
 * (src/translate/arith.ts):
 *  - every transfer function contains every C int64 result of operands from its input ranges;
 *  - random handlers (expressions over globals, locals, literals at int32/2^53/int64
 *    boundaries, compound assignments, ++/--, if, for loops, a called function) compiled by
 *    the translator — fast and generic versions — give the BigInt reference results, and the
 *    same errors (division by 0) at the same location.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type * as A from '../../src/ast';
import { translate } from '../../src/translate';
import { renderTokenFull } from '../../src/translate/tokens';
import { binaryR, negR, notR, Range, TOP, analyzeRanges, within, INT32 } from '../../src/translate/ranges';
import { Engine } from '../../src/runtime/engine';
import { fromBigInt } from '../../src/runtime/int64';
import * as B from './ast-builders';
import { int64Ref, int64Folded } from './int64-ref';
import { foldable } from '../../src/elaborate/optimize';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const w = (x: bigint) => BigInt.asIntN(64, x);
const OPS: A.BinaryOp[] = ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>', '>>>'];

const cOp = int64Ref;

const EDGES = [0n, 1n, -1n, 2n, 3n, 5n, 7n, -7n, 13n, 31n, 32n, 63n, 64n, 255n, 1023n, 65535n,
  2n ** 31n - 1n, 2n ** 31n, -(2n ** 31n), -(2n ** 31n) - 1n, 2n ** 32n, 2n ** 52n, 2n ** 53n - 1n, 2n ** 53n,
  -(2n ** 53n - 1n), -(2n ** 53n), 2n ** 62n, MIN, MAX, MIN + 1n, MAX - 1n];
const int64 = fc.oneof(
  fc.constantFrom(...EDGES),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: -(2n ** 31n), max: 2n ** 31n - 1n }),
  fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
  fc.bigInt({ min: MIN, max: MAX }),
);

describe('translate/ranges: transfer functions contain every C result', () => {
  const rangeAndPoints = fc.tuple(int64, int64, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }))
    .map(([a, b, fr]) => {
      const r: Range = a <= b ? { lo: a, hi: b } : { lo: b, hi: a };
      const span = r.hi - r.lo;
      const pts = [r.lo, r.hi, ...fr.map((f) => r.lo + (span * BigInt(Math.floor(f * 1e6))) / 1000000n)];
      return { r, pts };
    });
  for (const op of OPS) {
    it(`a ${op} b`, () => {
      fc.assert(fc.property(rangeAndPoints, rangeAndPoints, (A1, B1) => {
        const rr = binaryR(op, A1.r, B1.r);
        for (const a of A1.pts) {
          for (const b of B1.pts) {
            const v = cOp(op, a, b);
            if (v === 'div0') continue;
            if (v < rr.lo || v > rr.hi) throw new Error(`${a} ${op} ${b} = ${v} outside [${rr.lo}, ${rr.hi}] from [${A1.r.lo}, ${A1.r.hi}] ${op} [${B1.r.lo}, ${B1.r.hi}]`);
          }
        }
      }), { numRuns: 3000 });
    });
  }
  it('-a and ~a', () => {
    fc.assert(fc.property(rangeAndPoints, ({ r, pts }) => {
      for (const a of pts) {
        const n = w(-a);
        const m = ~a;
        const rn = negR(r);
        const rm = notR(r);
        expect(n >= rn.lo && n <= rn.hi, `-${a}`).to.equal(true);
        expect(m >= rm.lo && m <= rm.hi, `~${a}`).to.equal(true);
      }
    }), { numRuns: 3000 });
  });
  it('masks, remainders and quotients by constants give small ranges whatever the operand', () => {
    expect(binaryR('&', TOP, { lo: 1023n, hi: 1023n })).to.deep.equal({ lo: 0n, hi: 1023n });
    expect(binaryR('%', TOP, { lo: -13n, hi: -13n })).to.deep.equal({ lo: -12n, hi: 12n });
    expect(binaryR('/', { lo: -(2n ** 40n), hi: 2n ** 40n }, { lo: 1024n, hi: 1024n })).to.deep.equal({ lo: -(2n ** 30n), hi: 2n ** 30n });
    expect(binaryR('/', TOP, { lo: -1n, hi: -1n })).to.deep.equal(TOP); // INT64_MIN / -1 wraps
    expect(binaryR('+', { lo: MAX, hi: MAX }, { lo: 1n, hi: 1n })).to.deep.equal(TOP);
  });
  it('the analysis: locals start at 0, loops make what they modify unknown, calls make globals unknown', () => {
    const g = B.v('g', 'long', 'global');
    const a = B.v('a', 'long');
    const i = B.v('i', 'long');
    const f = B.fn('f', 'long', [], B.block(B.ret(B.num(1))));
    const readA1 = B.sym(a);
    const readA2 = B.sym(a);
    const readG1 = B.sym(g);
    const readG2 = B.sym(g);
    const readI = B.sym(i);
    const body = B.block(
      B.es(B.assign(B.sym(a), B.bin('&', B.sym(g), B.num(255)))),
      B.es(B.bin('+', readA1, readG1)),
      B.es(B.assign(B.sym(i), B.num(5))),
      B.es(B.call(f, [])),
      B.es(B.bin('+', readA2, readG2)),
      B.forS(undefined, B.cmp('<', B.sym(i), B.num(10)), B.incr(B.sym(i)), B.block()),
      B.es(readI),
    );
    const rm = analyzeRanges({ body }, new Map([[a, { lo: 0n, hi: 0n }], [i, { lo: 0n, hi: 0n }], [g, INT32]]));
    expect(rm.get(readA1)).to.deep.equal({ lo: 0n, hi: 255n });
    expect(rm.get(readG1)).to.deep.equal(INT32);
    expect(rm.get(readA2)).to.deep.equal({ lo: 0n, hi: 255n });
    expect(rm.get(readG2) ?? TOP).to.deep.equal(TOP); // after a call of a script function
    expect(rm.get(readI) ?? TOP).to.deep.equal(TOP); // modified in the loop
    expect(within({ lo: 0n, hi: 255n }, INT32)).to.equal(true);
  });
});

// ---------------------------------------------------------------------------------------------
// random handlers vs a BigInt interpreter

const X = B.v('x', 'long', 'global');
const Y = B.v('y', 'long', 'global');
const Z = B.v('z', 'long', 'global');
const GLOBAL_INPUTS = [X, Y, Z];

interface Gen {
  locals: A.VarDecl[];
  params: A.VarDecl[];
}

const LITERALS = [0n, 1n, -1n, 2n, 3n, 5n, 7n, -5n, 13n, 31n, 32n, 63n, 64n, 255n, 1023n, 1000003n, 2147483647n, 2147483648n,
  -2147483648n, 4294967295n, 2n ** 52n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 62n, MIN, MAX];

function exprArb(vars: A.VarDecl[], fnDecl?: A.FunctionDecl): fc.Arbitrary<A.Expr> {
  const { e } = fc.letrec((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...vars).map((d) => B.sym(d) as A.Expr),
      fc.constantFrom(...LITERALS).map((v) => B.num(fromBigInt(v)) as A.Expr),
      fc.tuple(fc.constantFrom(...OPS), tie('e'), tie('e')).map(([op, l, r]) => B.bin(op, l as A.Expr, r as A.Expr) as A.Expr),
      fc.tuple(fc.constantFrom('+', '-', '*', '&', '/', '%'), tie('e'), fc.constantFrom(...LITERALS))
        .map(([op, l, c]) => B.bin(op as A.BinaryOp, l as A.Expr, B.num(fromBigInt(c))) as A.Expr),
      fc.tuple(fc.constantFrom('-', '~'), tie('e')).map(([op, x]) => ({ k: 'unary', op, operand: x as A.Expr, tok: B.tok(op), type: 'long' }) as A.Expr),
      fc.tuple(fc.constantFrom('<', '>', '==', '!='), tie('e'), tie('e'), tie('e'), tie('e'))
        .map(([op, a, b, t, f]) => ({ k: 'ternary', cond: B.cmp(op as A.CompareOp, a as A.Expr, b as A.Expr), then: t as A.Expr, else: f as A.Expr, tok: B.tok('?'), type: 'long' }) as A.Expr),
      ...(fnDecl ? [fc.tuple(tie('e'), tie('e')).map(([a, b]) => B.call(fnDecl, [a as A.Expr, b as A.Expr]) as A.Expr)] : []),
    ),
  }));
  return e;
}

const ASSIGN_OPS: A.AssignOp[] = ['=', '=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>='];

function stmtsArb(targets: A.VarDecl[], reads: A.VarDecl[], loopVar: A.VarDecl, fnDecl?: A.FunctionDecl): fc.Arbitrary<A.Stmt[]> {
  const ex = exprArb(reads, fnDecl);
  const simple: fc.Arbitrary<A.Stmt> = fc.oneof(
    fc.tuple(fc.constantFrom(...targets), fc.constantFrom(...ASSIGN_OPS), ex).map(([t, op, v]) => B.es(B.assign(B.sym(t), v, op))),
    fc.tuple(fc.constantFrom(...targets), fc.constantFrom('++', '--'), fc.boolean()).map(([t, op, pre]) => B.es(B.incr(B.sym(t), op as '++' | '--', pre))),
  );
  const stmt: fc.Arbitrary<A.Stmt> = fc.oneof(
    { weight: 4, arbitrary: simple },
    { weight: 1, arbitrary: fc.tuple(ex, ex, simple, simple).map(([a, b, t, f]) => B.ifs(B.cmp('<', a, b), t, f)) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 0, max: 3 }), simple).map(([n, s]) =>
        B.forS(B.assign(B.sym(loopVar), B.num(0)), B.cmp('<', B.sym(loopVar), B.num(n)), B.incr(B.sym(loopVar)), B.block(s))),
    },
  );
  return fc.array(stmt, { minLength: 1, maxLength: 6 });
}

/** The BigInt reference: runs statements over an environment; throws Div0 with the token. */
class Div0 {
  constructor(public tok: A.Token) {}
}

function evalE(e: A.Expr, env: Map<A.VarDecl, bigint>): bigint {
  switch (e.k) {
    case 'num': return BigInt(e.value);
    case 'sym': return env.get(e.ref!) ?? 0n;
    case 'binary': {
      const a = evalE(e.left, env);
      const b = evalE(e.right, env);
      const r = foldable(e) ? int64Folded(e.op, a, b) : cOp(e.op, a, b);
      if (r === 'div0') throw new Div0(e.tok);
      return r;
    }
    case 'unary': {
      const a = evalE(e.operand, env);
      return e.op === '-' ? w(-a) : e.op === '~' ? ~a : a;
    }
    case 'compare': {
      const a = evalE(e.left, env);
      const b = evalE(e.right, env);
      const r = e.op === '<' ? a < b : e.op === '>' ? a > b : e.op === '==' ? a === b : e.op === '!=' ? a !== b : e.op === '<=' ? a <= b : a >= b;
      return r ? 1n : 0n;
    }
    case 'ternary':
      return evalE(e.cond, env) !== 0n ? evalE(e.then, env) : evalE(e.else, env);
    case 'call': {
      const fn = e.ref!;
      const args = e.args.map((x) => evalE(x, env));
      const local = new Map(env);
      fn.paramDecls!.forEach((p, i) => local.set(p, args[i]));
      for (const d of fn.locals ?? []) local.set(d, 0n);
      const body = (fn.body as A.Block).stmts;
      for (const s of body.slice(0, -1)) execS(s, local);
      const r = evalE((body[body.length - 1] as A.Return).value!, local);
      for (const g of GLOBAL_INPUTS) env.set(g, local.get(g)!); // the function may write globals
      return r;
    }
    case 'assign': {
      const d = (e.target as A.Sym).ref!;
      let v: bigint;
      if (e.op === '=') v = evalE(e.value, env);
      else {
        // the generated code reads the target of `/=` `%=` after the value (before it for the others)
        let old = env.get(d) ?? 0n;
        const rhs = evalE(e.value, env);
        if (e.op === '/=' || e.op === '%=') old = env.get(d) ?? 0n;
        const r = cOp(e.op.slice(0, -1) as A.BinaryOp, old, rhs);
        if (r === 'div0') throw new Div0(e.tok);
        v = r;
      }
      env.set(d, v);
      return v;
    }
    case 'incdec': {
      const d = (e.operand as A.Sym).ref!;
      const old = env.get(d) ?? 0n;
      const nw = w(e.op === '++' ? old + 1n : old - 1n);
      env.set(d, nw);
      return e.prefix ? nw : old;
    }
    default:
      throw new Error(`reference: unexpected ${e.k}`);
  }
}

function execS(s: A.Stmt, env: Map<A.VarDecl, bigint>): void {
  switch (s.k) {
    case 'expr': evalE(s.expr, env); return;
    case 'block': s.stmts.forEach((x) => execS(x, env)); return;
    case 'if':
      if (evalE(s.cond, env) !== 0n) execS(s.then, env);
      else if (s.else) execS(s.else, env);
      return;
    case 'for':
      if (s.init) evalE(s.init, env);
      while (evalE(s.cond!, env) !== 0n) {
        execS(s.body, env);
        evalE(s.incr!, env);
      }
      return;
    default:
      throw new Error(`reference: unexpected ${s.k}`);
  }
}

describe('translate/ranges: generated handlers vs BigInt (property-based)', function () {
  this.timeout(120000);
  const inputs = fc.array(fc.tuple(int64, int64, int64, fc.boolean()), { minLength: 4, maxLength: 12 })
    .map((xs) => xs.map(([a, b, c, small]) => (small ? [BigInt.asIntN(16, a), BigInt.asIntN(12, b), BigInt.asIntN(31, c)] : [a, b, c])));

  function check(withFunction: boolean): void {
    const a = B.v('a', 'long');
    const b = B.v('b', 'long');
    const i = B.v('i', 'long');
    const ra = B.v('ra', 'long', 'global');
    const rb = B.v('rb', 'long', 'global');
    const p = B.v('p', 'long', 'param');
    const q = B.v('q', 'long', 'param');
    const fl = B.v('fl', 'long');
    const fi = B.v('fi', 'long');
    const fnArb = withFunction
      ? fc.tuple(stmtsArb([fl, p, Z], [p, q, fl, Z], fi), exprArb([p, q, fl, X])).map(([ss, r]) =>
        B.fn('f', 'long', [p, q], B.block(...ss, B.ret(r)), { locals: [fl, fi] }))
      : fc.constant(undefined);
    const prog = fnArb.chain((f) => fc.tuple(fc.constant(f), stmtsArb([a, b, X, Z], [a, b, X, Y, Z], i, f)));
    let fastSeen = 0;
    fc.assert(fc.property(prog, inputs, ([f, stmts], vals) => {
      const body = B.block(...stmts, B.es(B.assign(B.sym(ra), B.sym(a))), B.es(B.assign(B.sym(rb), B.sym(b))));
      const pr = B.probe('never', body);
      pr.locals = [a, b, i];
      const tr = translate(B.program([pr], [X, Y, Z, ra, rb], f ? [f] : []));
      if (tr.source.includes('// fast version')) fastSeen++;
      const engine = new Engine(tr, { stdout: () => undefined, stderr: () => undefined, handleSignals: false });
      const mod = engine.load();
      const ctx = engine.newContext(tr.probes[0], { task: engine.stapioTask });
      for (const [vx, vy, vz] of vals) {
        const env = new Map<A.VarDecl, bigint>([[X, vx], [Y, vy], [Z, vz], [a, 0n], [b, 0n], [i, 0n]]);
        let want: string;
        try {
          execS(body, env);
          want = [env.get(X), env.get(Z), env.get(ra), env.get(rb)].join(' ');
        } catch (e) {
          if (!(e instanceof Div0)) throw e;
          want = `division by 0 near ${renderTokenFull(e.tok)}`;
        }
        mod.globals.get('x')!.set!(fromBigInt(vx));
        mod.globals.get('y')!.set!(fromBigInt(vy));
        mod.globals.get('z')!.set!(fromBigInt(vz));
        let got: string;
        try {
          mod.probes[0](ctx);
          got = ['x', 'z', 'ra', 'rb'].map((n) => {
            const v = mod.globals.get(n)!.get();
            if (typeof v === 'number' ? !Number.isSafeInteger(v) || Object.is(v, -0) : (v as bigint) >= -(2n ** 53n) + 1n && (v as bigint) <= 2n ** 53n - 1n) {
              throw new Error(`non-canonical long ${String(v)} in ${n}`);
            }
            return BigInt(v as number | bigint).toString();
          }).join(' ');
        } catch (e) {
          if (!(e instanceof Error) || e.message !== 'division by 0') throw e;
          const loc = (e as { loc?: { near: number } }).loc;
          got = `division by 0 near ${tr.locs[loc ? loc.near : mod.loc()]}`;
        }
        if (got !== want) throw new Error(`inputs ${vx} ${vy} ${vz}: got ${got}, want ${want}\n${tr.source}`);
      }
    }), { numRuns: 400 });
    expect(fastSeen, 'programs with a fast version').to.be.greaterThan(50);
  }

  it('probe bodies', () => check(false));
  it('probe bodies calling a function with parameters', () => check(true));
});
