import { expect } from 'chai';
import type * as A from '../../src/ast';
import { translate } from '../../src/translate';
import { runProgram, RunOptions } from '../../src/runtime/engine';
import * as B from '../translate/ast-builders';

async function run(p: A.Program, opts: RunOptions = {}): Promise<{ out: string; err: string; code: number }> {
  const tr = translate(p, {});
  let out = '';
  let err = '';
  const code = await runProgram(tr, { stdout: (s) => (out += s), stderr: (s) => (err += s), handleSignals: false, ...opts });
  return { out, err, code };
}

const exitFn = B.builtin('exit', 'unknown', 0);
const errorFn = B.builtin('error', 'unknown', 1);

describe('engine: probe hits with -t timing', () => {
  it('counts hits in the probe hit report', async () => {
    const p = B.program([
      B.probe('begin', B.block(B.es(B.print('println', [B.str('a')])), B.es(B.call(exitFn, [])))),
      B.probe('end', B.block(B.es(B.print('println', [B.str('b')])))),
    ], [], [exitFn]);
    const r = await run(p, { timing: true, stdoutIsTty: true });
    expect(r.out).to.match(/^a\nb\n----- probe hit report: \n/);
    const lines = r.out.split('\n').filter((l) => l.startsWith('begin') || l.startsWith('end'));
    expect(lines).to.have.length(2);
    for (const l of lines) expect(l).to.match(/, hits: 1, cycles: \d+min\/\d+avg\/\d+max, /);
    expect(r.code).to.equal(0);
  });

  it('reports a handler error of a timed hit and counts the hit', async () => {
    const p = B.program([B.probe('begin', B.block(B.es(B.call(errorFn, [B.str('boom')]))))], [], [exitFn, errorFn]);
    const r = await run(p, { timing: true, stdoutIsTty: true });
    expect(r.err).to.match(/^ERROR: boom near identifier 'error' at t\.stp:\S+ in probe begin\n/);
    expect(r.out).to.match(/^----- probe hit report: \nbegin, .*, hits: 1, /);
    expect(r.code).to.equal(1);
  });
});
