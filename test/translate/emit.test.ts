/**
 * Pass 3 never carries user text as code (issue 18): names, file names, literals and tree
 * fields reach the generated JavaScript only escaped, as identifiers of [A-Za-z0-9_] or as
 * checked numbers; a tree no parse can make stops translation.
 */
import { expect } from 'chai';
import * as fc from 'fast-check';
import * as A from '../../src/ast';
import { translate } from '../../src/translate';
import { jsStr, jsComment, jsIdent } from '../../src/translate/emit';
import { SemanticError } from '../../src/diag';
import * as B from './ast-builders';
import { compile, runScript } from './pipeline';

/** Every line terminator JS knows. */
const TERMINATORS = /[\n\r\u2028\u2029]/;
const HOSTILE = 'a\nprocess.exit(9);//\r\u2028\u2029*/ "\'`${x}\\';

describe('translate/emit: the one path of user text into generated code', () => {
  it('jsStr is a JS literal of exactly the string, on one line', () => {
    fc.assert(fc.property(fc.fullUnicodeString(), (s) => {
      const lit = jsStr(s);
      expect(lit).to.not.match(TERMINATORS);
      expect(new Function(`return ${lit};`)()).to.equal(s);
    }), { numRuns: 500 });
  });

  it('jsComment keeps printable ASCII only: no line terminator, no end of comment', () => {
    fc.assert(fc.property(fc.fullUnicodeString(), (s) => {
      const c = jsComment(s);
      expect(c).to.match(/^[\x20-\x7e]*$/);
      expect(c).to.not.contain('*/');
      // the comment ends where the line ends: nothing after it runs
      expect(new Function(`let r = 1; // ${c}\nreturn r;`)()).to.equal(1);
    }), { numRuns: 500 });
    expect(jsComment(HOSTILE)).to.equal('a\\x0aprocess.exit(9);//\\x0d\\u2028\\u2029*\\/ "\'`${x}\\\\');
  });

  it('jsIdent makes an identifier of any name', () => {
    fc.assert(fc.property(fc.fullUnicodeString(), (s) => {
      expect(jsIdent('g_', s)).to.match(/^g_[A-Za-z0-9_]*$/);
    }));
  });

  it('file names and comments with JS in them stay comments (script path with a newline)', async () => {
    const c = compile('global x probe begin { x = 1; println(x) }', { name: HOSTILE });
    expect(c.tr, c.err).to.not.equal(undefined);
    for (const line of c.tr!.source.split('\n')) {
      const i = line.indexOf('//');
      if (i >= 0) expect(line.slice(i)).to.match(/^[\x20-\x7e]*$/);
    }
    const r = await runScript('probe begin { println("ok") }', { name: HOSTILE });
    expect(r.out).to.equal('ok\n');
  });

  it('names of JS built-ins and Object.prototype members are ordinary stap names', async () => {
    const r = await runScript(`
      global constructor, __proto__, hasOwnProperty[3], toString
      function valueOf(x) { return x + 1 }
      function eval:string (s:string) { return s . "!" }
      probe begin {
        constructor = 5; __proto__ = "p"; hasOwnProperty["k"] = 2; toString <<< 7
        arguments = valueOf(constructor); Function = eval(__proto__)
        println(constructor, __proto__, hasOwnProperty["k"], @count(toString), arguments, Function)
        exit()
      }`);
    expect(r.err).to.equal('');
    expect(r.out).to.equal('5p216p!\n');
  });

  it('a tree field no parse produces stops translation instead of being pasted', () => {
    const bad = (e: A.Expr) => B.program([B.probe('begin', B.block(B.es(B.print('println', [e]))))]);
    const num = { ...B.num(1), value: 'process.exit(9)' as unknown as number };
    expect(() => translate(bad(num))).to.throw(SemanticError, 'malformed syntax tree');
    const x = B.v('x', 'long', 'global');
    const cmp = { k: 'compare', op: ');process.exit(9);(', left: B.sym(x), right: B.num(1), tok: B.tok('<', 'operator'), type: 'long' } as unknown as A.Expr;
    expect(() => translate(B.program([B.probe('begin', B.block(B.es(B.print('println', [cmp]))))], [x]))).to.throw(SemanticError, 'malformed syntax tree');
    // a name is an identifier, whatever it holds
    const evil = B.v('x; process.exit(9); //', 'long', 'global');
    const tr = translate(B.program([B.probe('begin', B.block(B.es(B.assign(B.sym(evil), B.num(1)))))], [evil]));
    expect(tr.source).to.contain('let g_x__process_exit_9_____ = 0;');
  });
});
