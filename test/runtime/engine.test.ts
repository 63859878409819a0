import { expect } from 'chai';
import type * as A from '../../src/ast';
import { translate } from '../../src/translate';
import { runProgram, RunOptions } from '../../src/runtime/engine';
import * as B from '../translate/ast-builders';

export async function run(p: A.Program, opts: RunOptions = {}, defines?: Map<string, string>): Promise<{ out: string; err: string; code: number }> {
  const tr = translate(p, { defines });
  let out = '';
  let err = '';
  const code = await runProgram(tr, { stdout: (s) => (out += s), stderr: (s) => (err += s), handleSignals: false, defines, ...opts });
  return { out, err, code };
}

const exitFn = B.builtin('exit', 'unknown', 0);
const errorFn = B.builtin('error', 'unknown', 1);

describe('engine: begin/end/exit', () => {
  it('prints from begin and exits', async () => {
    const p = B.program([B.probe('begin', B.block(B.es(B.print('println', [B.str('hello')])), B.es(B.call(exitFn, []))))], [], [exitFn]);
    const r = await run(p);
    expect(r).to.deep.equal({ out: 'hello\n', err: '', code: 0 });
  });

  it('runs begin probes in sequence order; after exit() only the same-point (combined) ones run', async () => {
    const mk = (seq: number, s: string, exit = false) => {
      const stmts: A.Stmt[] = [B.es(B.print('print', [B.str(s)]))];
      if (exit) stmts.push(B.es(B.call(exitFn, [])));
      return B.probe('begin', B.block(...stmts), { seq }, seq ? `begin(${seq})` : 'begin');
    };
    const p = B.program([mk(1, 'c'), mk(-1, 'a'), mk(0, 'b', true), mk(0, 'x'), B.probe('end', B.block(B.es(B.print('print', [B.str('E')]))))], [], [exitFn]);
    const r = await run(p);
    expect(r.out).to.equal('abxE');
  });

  it('reports a division by zero with its location and exits 1, end probes skipped', async () => {
    const p = B.program([
      B.probe('begin', B.block(B.es(B.print('println', [B.bin('/', B.num(1), B.num(0))])))),
      B.probe('end', B.block(B.es(B.print('println', [B.str('end')])))),
    ]);
    const r = await run(p);
    expect(r.code).to.equal(1);
    expect(r.out).to.equal('');
    expect(r.err).to.match(/^ERROR: division by 0 near operator '\/' at t\.stp:1:\d+ in probe begin\nWARNING: Number of errors: 1, skipped probes: 0\nWARNING: \/usr\/bin\/staprun exited with status: 1\n$/);
  });

  it('wraps 64-bit arithmetic', async () => {
    const p = B.program([B.probe('begin', B.block(
      B.es(B.print('println', [B.bin('+', B.num(9223372036854775807n), B.num(1))])),
      B.es(B.print('println', [B.bin('*', B.num(4294967296), B.num(4294967296))])),
      B.es(B.print('println', [B.bin('/', B.num(-9223372036854775808n), B.num(-1))])),
      B.es(B.call(exitFn, [])),
    ))], [], [exitFn]);
    const r = await run(p);
    expect(r.out).to.equal('-9223372036854775808\n0\n-9223372036854775808\n');
  });
});

describe('engine: functions, errors, try/catch', () => {
  it('reports errors raised in functions with the call chain', async () => {
    const bad = B.fn('bad', 'unknown', [], B.block(B.es(B.call(errorFn, [B.str('boom')]))));
    const p = B.program([B.probe('begin', B.block(B.es(B.call(bad, []))))], [], [bad, errorFn]);
    const r = await run(p);
    expect(r.err).to.match(/^ERROR: boom near identifier 'error' at t\.stp:\S+ \(called from identifier 'bad' at t\.stp:\S+\) in probe begin\n/);
  });

  it('try/catch gives the bare message', async () => {
    const msg = B.v('msg', 'string');
    const p = B.program([B.probe('begin', B.block(
      B.tryS(B.block(B.es(B.bin('/', B.num(1), B.num(0)))), B.block(B.es(B.print('println', [B.sym(msg)]))), B.sym(msg)),
      B.es(B.call(exitFn, [])),
    ))], [], [exitFn]);
    const r = await run(p);
    expect(r.out).to.equal('division by 0\n');
    expect(r.code).to.equal(0);
  });

  it('MAXNESTING: recursion r(7) needs 8 frames', async () => {
    const n = B.v('n', 'long', 'param');
    const r = B.fn('r', 'unknown', [n], B.block());
    (r.body as A.Block).stmts.push(B.ifs(B.cmp('>', B.sym(n), B.num(0)), B.es(B.call(r, [B.bin('-', B.sym(n), B.num(1))]))));
    const mk = () => B.program([B.probe('begin', B.block(B.es(B.call(r, [B.num(7)])), B.es(B.call(exitFn, []))))], [], [r, exitFn]);
    expect((await run(mk(), {}, new Map([['MAXNESTING', '5']]))).err).to.match(/ERROR: MAXNESTING exceeded/);
    expect((await run(mk(), {}, new Map([['MAXNESTING', '8']]))).err).to.equal('');
  });

  it('MAXACTION: a 498-iteration loop fails at 500 and passes at 502', async () => {
    const i = B.v('i', 'long');
    const mk = () => B.program([B.probe('begin', B.block(
      B.forS(B.assign(B.sym(i), B.num(0)), B.cmp('<', B.sym(i), B.num(498)), B.incr(B.sym(i)), B.block()),
    ))]);
    const r1 = await run(mk(), { timeoutSec: 0.001 }, new Map([['MAXACTION_INTERRUPTIBLE', '500']]));
    expect(r1.err).to.match(/^ERROR: MAXACTION exceeded/);
    const r2 = await run(mk(), { timeoutSec: 0.001 }, new Map([['MAXACTION_INTERRUPTIBLE', '502']]));
    expect(r2.err).to.equal('');
  });
});

describe('engine: arrays, stats, foreach', () => {
  it('foreach sorted with limit, auto-print of write-only globals', async () => {
    const a = B.v('a', 'long', 'global', 1, ['string']);
    const k = B.v('k', 'string');
    const w = B.v('w', 'long', 'global');
    w.read = false;
    const p = B.program([B.probe('begin', B.block(
      B.es(B.assign(B.idx(a, B.str('x')), B.num(3))),
      B.es(B.assign(B.idx(a, B.str('y')), B.num(1))),
      B.es(B.assign(B.idx(a, B.str('z')), B.num(2))),
      B.foreach([k], a, B.es(B.print('println', [B.sym(k)])), { sortColumn: 0, sortDirection: -1, limit: B.num(2) }),
      B.es(B.assign(B.sym(w), B.num(42))),
      B.es(B.call(exitFn, [])),
    ))], [a, w], [exitFn]);
    const r = await run(p);
    expect(r.out).to.equal('x\nz\nw=42\n');
  });

  it('stats and log histogram', async () => {
    const s = B.v('s', 'stats', 'global');
    const i = B.v('i', 'long');
    const p = B.program([B.probe('begin', B.block(
      B.forS(B.assign(B.sym(i), B.num(1)), B.cmp('<=', B.sym(i), B.num(10)), B.incr(B.sym(i)), B.es(B.assign(B.sym(s), B.sym(i), '<<<'))),
      B.es(B.print('println', [B.statop('count', B.sym(s)), B.str(' '), B.statop('sum', B.sym(s)), B.str(' '), B.statop('avg', B.sym(s))])),
      B.es(B.print('print', [], { hist: B.hist('log', B.sym(s)) })),
      B.es(B.call(exitFn, [])),
    ))], [s], [exitFn]);
    const r = await run(p);
    expect(r.out).to.equal('10 55 5\n' +
      'value |-------------------------------------------------- count\n' +
      '    0 |                                                   0\n' +
      '    1 |@                                                  1\n' +
      '    2 |@@                                                 2\n' +
      '    4 |@@@@                                               4\n' +
      '    8 |@@@                                                3\n' +
      '   16 |                                                   0\n' +
      '   32 |                                                   0\n\n');
  });

  it('array overflow error names the array', async () => {
    const a = B.v('arr', 'long', 'global', 1, ['long']);
    const i = B.v('i', 'long');
    const p = B.program([B.probe('begin', B.block(
      B.forS(B.assign(B.sym(i), B.num(0)), B.cmp('<', B.sym(i), B.num(5)), B.incr(B.sym(i)), B.es(B.assign(B.idx(a, B.sym(i)), B.num(1)))),
    ))], [a]);
    const r = await run(p, {}, new Map([['MAXMAPENTRIES', '3']]));
    expect(r.err).to.match(/^ERROR: Array overflow, check MAXMAPENTRIES near identifier 'arr' at t\.stp:\S+ in probe begin\n/);
  });
});

describe('engine: timers on a virtual clock', () => {
  it('timer.s(1) fires 10 times before a timer.s(10) exit', async () => {
    const n = B.v('n', 'long', 'global');
    const t0 = Date.now();
    const p = B.program([
      B.probe('timer', B.block(B.es(B.incr(B.sym(n)))), { kind: 'hrtimer', intervalNs: 1e9, randomizeNs: 0 }, 'timer.s(1)'),
      B.probe('timer', B.block(B.es(B.print('println', [B.sym(n)])), B.es(B.call(exitFn, []))), { kind: 'hrtimer', intervalNs: 10e9, randomizeNs: 0 }, 'timer.s(10)'),
    ], [n], [exitFn]);
    const r = await run(p);
    expect(r.out).to.equal('10\n');
    expect(Date.now() - t0).to.be.lessThan(1000);
  });

  it('-T stops a script without exit and runs end probes', async () => {
    const p = B.program([B.probe('end', B.block(B.es(B.print('println', [B.str('terminated')]))))]);
    const r = await run(p, { timeoutSec: 1 });
    expect(r).to.deep.equal({ out: 'terminated\n', err: '', code: 0 });
  });
});
