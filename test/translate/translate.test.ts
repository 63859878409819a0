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

describe('translate: range-specialised arithmetic', () => {
  const x = B.v('x', 'long', 'global');
  const acc = B.v('acc', 'long', 'global');
  const a = B.v('a', 'long');
  const c = B.v('c', 'long');
  // a = x + 3; c = (a ^ x) & 1023; acc = (acc + c / 5) % 1000003
  const body = B.block(
    B.es(B.assign(B.sym(a), B.bin('+', B.sym(x), B.num(3)))),
    B.es(B.assign(B.sym(c), B.bin('&', B.bin('^', B.sym(a), B.sym(x)), B.num(1023)))),
    B.es(B.assign(B.sym(acc), B.bin('%', B.bin('+', B.sym(acc), B.bin('/', B.sym(c), B.num(5))), B.num(1000003)))),
  );
  const tr = translate(B.program([B.probe('never', body)], [x, acc]));

  it('emits a fast version guarded by int32 checks of the globals read, and a generic one', () => {
    expect(tr.source).to.contain('// fast version: when on entry x is int32, acc is int32');
    expect(tr.source).to.contain('if (!(typeof g_x === "number" && g_x >= -2147483648 && g_x <= 2147483647 && typeof g_acc === "number" && g_acc >= -2147483648 && g_acc <= 2147483647)) return p_0$generic(c);');
    expect(tr.source).to.contain('(l_a = (g_x + 3));');
    expect(tr.source).to.contain('(l_c = ((l_a ^ g_x) & 1023));');
    expect(tr.source).to.contain('(g_acc = (((g_acc + ((l_c / 5) | 0)) % 1000003) | 0));');
    expect(tr.source).to.contain('// generic version of p_0 (any int64 values)\nfunction p_0$generic(c) {');
    expect(tr.source).to.contain('(l_a = add(g_x, 3));');
    // the mask bounds c in both versions: no helper and no error location for `/ 5`
    expect(tr.source).to.contain('(l_c = bitAnd(bitXor(l_a, g_x), 1023));');
    expect(tr.source).to.contain('(g_acc = mod(add(g_acc, ((l_c / 5) | 0)), 1000003));');
  });

  it('widens the guard of a global the body moves out of int32 (a growing total)', () => {
    const total = B.v('total', 'long', 'global');
    const bytes = B.v('bytes', 'long', 'global');
    const p = B.probe('never', B.block(B.es(B.assign(B.sym(total), B.bin('*', B.sym(bytes), B.num(2)), '+='))));
    const t = translate(B.program([p], [total, bytes]));
    expect(t.source).to.contain('// fast version: when on entry total is within +-2^50, bytes is int32');
    expect(t.source).to.contain('(g_total = (g_total + (g_bytes * 2)));');
  });

  it('keeps a single version when ranges change nothing, and the helpers for unknown values', () => {
    const y = B.v('y', 'long', 'global');
    const m = B.v('m', 'long', 'global', 1, ['long']);
    const p = B.probe('never', B.block(B.es(B.assign(B.sym(y), B.bin('*', B.idx(m, B.num(1)), B.num(2))))));
    const t = translate(B.program([p], [y, m]));
    expect(t.source).not.to.contain('fast version');
    expect(t.source).to.contain('(g_y = mul(g_m.get(1), 2));');
  });
});
