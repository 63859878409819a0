/**
 * Pass 1 under `--compatible VERSION` and the parser's privilege refusals.  Every expected value
 * is what real SystemTap 4.8 printed for the same input (../shared/tools/real-stap -p1, recorded
 * 2026-11-26; the compatible/parse oracle tables hold more of the same).
 */
import { expect } from 'chai';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { printFile } from '../../src/parse/print';
import { compatBefore, compatibleError } from '../../src/parse/version';

function run(text: string, compatible?: string, guru = false): { out: string; errors: string } {
  let errors = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { errors += s; });
  const file: A.SourceFile = { name: '<input>', text, isTapset: false };
  const f = parseFile(file, { args: [], guru, compatible }, diag);
  return { out: f ? printFile(f) : '', errors };
}

/** The parse errors' first lines, in order. */
function errorLines(text: string, compatible?: string): string[] {
  return run(text, compatible).errors.split('\n').filter((l) => l.startsWith('parse error') || l.startsWith('bad lexical'));
}

describe('pass 1: --compatible gates (stap 4.8 oracle)', () => {
  it('refuses a version newer than 4.8, by strverscmp', () => {
    expect(compatibleError('4.9')).to.equal('ERROR: systemtap version 4.8 cannot be compatible with future version 4.9');
    expect(compatibleError('4.8.1')).to.match(/future version 4\.8\.1$/);
    expect(compatibleError('abc')).to.match(/future version abc$/);
    for (const ok of ['4.8', '4', '4.08', '0.9', '-1', '1.x', '']) expect(compatibleError(ok), ok).to.equal(undefined);
    expect(compatBefore('2.9', '3.0')).to.equal(true);
    expect(compatBefore('3.0', '3.0')).to.equal(false);
    expect(compatBefore(undefined, '3.0')).to.equal(false);
  });

  it('`private` is a keyword from 3.0', () => {
    expect(errorLines('private global g = 1 probe begin { println(g) }', '2.9'))
      .to.deep.equal(["parse error: expected 'probe', 'global', 'private', 'function', or '%{'"]);
    expect(run('private global g = 1 probe begin { println(g) }', '3.0').errors).to.equal('');
    // before 3.0 it is an ordinary name
    expect(run('probe begin { private = 1; println(private) }', '2.9').errors).to.equal('');
  });

  it('the else branch of ?: takes an assignment before 4.0', () => {
    const t = 'probe begin { x = 0; y = 1 ? 2 : x = 3; println(y) }';
    expect(run(t, '3.3').out).to.contain('(y) = ((1)?(2):((x) = (3)));');
    expect(run(t, '4.0').out).to.contain('(y) = (((1)?(2):(x)) = (3));');
  });

  it('`\\x` is an escape from 2.3; other unknown escapes lose their backslash', () => {
    const t = 'probe begin { println("\\q|\\x41|\\%|\\101|\\0101|\\a\\b\\t\\n\\v\\f\\r\\\\|\\X41") }';
    expect(run(t).out).to.contain('println("q|\\x41|%|\\101|\\0101|\\a\\b\\t\\n\\v\\f\\r\\\\|X41");');
    expect(run(t, '2.2').out).to.contain('println("q|x41|%|\\101|\\0101|\\a\\b\\t\\n\\v\\f\\r\\\\|X41");');
  });

  it('@kderef/@uderef/@kregister/@uregister are operators from 4.0', () => {
    expect(errorLines('probe begin { x = @uderef(1, 2) }', '3.9')).to.deep.equal(['parse error: unknown operator @uderef']);
    expect(errorLines('probe begin { x = @uregister(1) }', '3.9')).to.deep.equal(['parse error: unknown operator @uregister']);
  });

  it('no autocast `->` before 2.6', () => {
    expect(errorLines('probe begin { t = task_current(); println(t->pid) }', '2.3')).to.deep.equal(["parse error: expected one of ', )'"]);
    expect(run('probe begin { t = task_current(); println(t->pid) }', '2.6').errors).to.equal('');
  });
});

describe('pass 1: raw access operators and privilege refusals (stap 4.8 oracle)', () => {
  it('@uderef(NUMBER, expr) and @uregister(NUMBER)', () => {
    expect(errorLines('probe begin { x = @uderef(1) }')).to.deep.equal(["parse error: expected ','"]);
    expect(errorLines('probe begin { x = @uderef() }')).to.deep.equal(['parse error: expected number']);
    expect(errorLines('probe begin { x = @uderef(x,2) }')).to.deep.equal(['parse error: expected number']);
    expect(errorLines('probe begin { x = @uderef(1,2,3) }')).to.deep.equal(["parse error: expected ')'"]);
    expect(errorLines('probe begin { x = @uregister(1,2) }')).to.deep.equal(["parse error: expected ')'"]);
    expect(run('probe begin { x = @uderef(1,2); y = @uregister(1) }').errors).to.equal('');
  });

  it('a privilege refusal does not skip: the parser goes on right after it', () => {
    expect(errorLines('probe begin { x = @kderef(1, 2) }')).to.deep.equal([
      'parse error: using @kderef operator not permitted; need stap -g',
      "parse error: expected 'probe', 'global', 'private', 'function', or '%{'",
    ]);
    expect(run('probe begin { x = @kderef(1, 2) }').errors).to.contain("saw: operator '(' at <input>:1:26");
    expect(errorLines('probe begin { x = %{ 1 %} }')).to.deep.equal([
      'parse error: embedded expression code in unprivileged script; need stap -g',
      'parse error: embedded code in unprivileged script; need stap -g',
      "parse error: expected 'probe', 'global', 'private', 'function', or '%{'",
    ]);
    expect(errorLines('function f() %{ %} probe begin { f() }')).to.deep.equal(['parse error: embedded code in unprivileged script; need stap -g']);
  });

  it('%( N op M %) compares decimal int64s (boost::lexical_cast)', () => {
    expect(run('probe begin { println(%( 010 == 10 %? 1 %: 2 %)) }').out).to.contain('println(1);');
    expect(errorLines('probe begin { println(%( 1 < 0x2 %? 1 %: 2 %)) }')).to.deep.equal(['bad lexical cast']);
    expect(errorLines('probe begin { println(%( 99999999999999999999 < 2 %? 1 %: 2 %)) }')).to.deep.equal(['bad lexical cast']);
  });
});
