import { expect } from 'chai';
import { translate, defaultMaxNesting } from '../../src/translate';
import { SemanticError } from '../../src/diag';
import * as B from './ast-builders';

describe('translate: pass-3 errors and output', () => {
  it("reports `cannot 'break' outside loop`", () => {
    const p = B.program([B.probe('begin', B.block(B.brk()))]);
    expect(() => translate(p)).to.throw(SemanticError, "cannot 'break' outside loop");
  });

  it('reports printing a raw stats object', () => {
    const s = B.v('s', 'stats', 'global');
    const p = B.program([B.probe('begin', B.block(B.es(B.assign(B.sym(s), B.num(1), '<<<')), B.es(B.print('println', [B.sym(s)]))))], [s]);
    expect(() => translate(p)).to.throw(SemanticError, 'print format actual argument evaluation type unsupported');
  });

  it('emits readable source with .stp line references', () => {
    const p = B.program([B.probe('begin', B.block(B.es(B.print('println', [B.str('hi')]))))]);
    const tr = translate(p);
    expect(tr.source).to.contain('// probe begin');
    expect(tr.source).to.contain('(out("hi" + "\\n"), 0); // t.stp:1');
    expect(tr.probes[0]).to.include({ family: 'begin', pp: 'begin', fn: 'p_0' });
  });

  it('computes the default MAXNESTING from the call graph', () => {
    const g = B.fn('g', 'long', [], B.block(B.ret(B.num(1))));
    const f = B.fn('f', 'long', [], B.block(B.ret(B.call(g, []))));
    expect(defaultMaxNesting(B.program([B.probe('begin', B.block(B.es(B.call(f, []))))], [], [f, g]))).to.equal(3);
    const n = B.v('n', 'long', 'param');
    const r = B.fn('r', 'long', [n], B.block());
    (r.body as any).stmts.push(B.ret(B.call(r, [B.sym(n)])));
    expect(defaultMaxNesting(B.program([B.probe('begin', B.block(B.es(B.call(r, [B.num(1)]))))], [], [r]))).to.equal(12);
  });

  it('applies MAXSTRINGLEN to literals and limits from -D', () => {
    const p = B.program([B.probe('begin', B.block(B.es(B.print('print', [B.str('x'.repeat(100))]))))]);
    const tr = translate(p, { defines: new Map([['MAXSTRINGLEN', '50'], ['MAXACTION', '40'], ['MAXMAPENTRIES', '7']]) });
    expect(tr.source).to.contain('"' + 'x'.repeat(49) + '"');
    expect(tr.limits).to.include({ maxStringLen: 50, maxAction: 400, maxMapEntries: 7 });
  });
});
