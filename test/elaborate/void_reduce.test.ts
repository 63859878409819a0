/**
 * stap 4.8's void-statement reduction (src/elaborate/void_reduce.ts), under -u as well: a
 * statement's unused value is not computed, so a call of a side-effect-free function with
 * arguments leaves only its arguments, and the function goes from the -p2 listing.  Every
 * expected listing was checked against real SystemTap 4.8 (../shared/tools/real-stap -u -p2 and
 * -p2); the oracle tables (corners dead:*:u, stable:1:u, sweep warn:7:u*, lv:cat:*) hold more.
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

const fns = (out: string): string[] => {
  const lines = out.split('\n');
  const i = lines.indexOf('# functions');
  if (i < 0) return [];
  const r: string[] = [];
  for (const l of lines.slice(i + 1)) {
    if (l.startsWith('#')) break;
    if (!l.startsWith(' ')) r.push(l.split(':')[0]);
  }
  return r;
};

describe('elaborate: void-statement reduction (stap void_statement_reducer)', () => {
  const cases: [string, string[]][] = [
    // a side-effect-free call with arguments leaves its arguments
    ['function f(x) { return x } probe begin { f(1) }', []],
    ['function f(x) { y = x } probe begin { f(1) }', []],
    ['function f(x) { return 1 } probe begin { f(randint(3)) }', ['randint']],
    ['function f(x) { return 1 } function g(x) { return f(x) } probe begin { g(1) }', []],
    // without arguments, with effects, or with its value used, it stays
    ['function f() { return 1 } probe begin { f() }', ['f']],
    ['function f(x) { println(x) } probe begin { f(1) }', ['f']],
    ['function f(x) { return 1 } probe begin { x = f(1) }', ['f']],
    ['function f(x) { return 1 } probe begin { while (f(1)) f(2) }', ['f']],
    // in every statement, through unary, binary, ternary, logical operators and sprintf
    ['function f(x) { return 1 } probe begin { if (randint(2)) f(1) else f(2) }', ['randint']],
    ['function f(x) { return 1 } probe begin { try { f(1) } catch { f(2) } }', []],
    ['function f(x) { return 1 } probe begin { -f(1) }', []],
    ['function f(x) { return 1 } probe begin { f(randint(2)) + 1; println(1) }', ['randint']],
    ['function f(x) { return 1 } probe begin { 1 ? f(1) : 2 }', []],
    ['function f(x) { return 1 } probe begin { f(1) || f(2) }', ['f']],
    ['function f(x) { return 1 } probe begin { sprintf("%d", f(1)) }', []],
    ['function f(x) { return 1 } probe begin { printf("%d", f(1)) }', ['f']],
  ];
  for (const [src, want] of cases) {
    it(`-u and -p2: ${src}`, () => {
      expect(fns(p2(src, true).out), '-u').to.deep.equal(want);
      const opt = p2(src);
      if (opt.out) expect(fns(opt.out), 'optimized').to.deep.equal(want);
    });
  }

  it('-u: before the types (a dropped call is not typed), then the constant folding drops what dead code called', () => {
    expect(p2('function f(x) { return x + 1 } probe begin { f("a") }', true)).to.deep.equal({ out: '# probes\nbegin /* <- begin */\n', err: '' });
    expect(p2('function f(x) { return x + 1 } probe begin { if (0) f("a") }', true).err).to.equal('');
    expect(p2('probe begin { $nosuch; println(1) }', true).err).to.equal('');
    expect(fns(p2('probe begin { if (0 && randint(2)) println(1); println(2) }', true).out)).to.deep.equal([]);
    expect(fns(p2('function f() { return pid() } probe end { if (1) println(pid()) else println(tid()) ; f() }', true).out)).to.deep.equal(['f', 'pid']);
    // (dead code is still typed: its mismatches are errors)
    expect(p2('function f(x) { return x + 1 } probe begin { if (0) { println(f("a")) } }', true).err).to.contain('type mismatch');
  });

  it('-u: a function no call reaches any more is typed (its globals typed, its mismatches said), its unresolved not', () => {
    expect(p2('global g function f(x) { return g . "" } probe begin { f(1) }', true)).to.deep.equal({ out: '# globals\ng:string\n# probes\nbegin /* <- begin */\n', err: '' });
    expect(p2('function f(x) { return 1 + "a" } probe begin { f(1) }', true).err).to.contain("type mismatch: expected long but found string: string 'a'");
    expect(p2('function f(x) { return zz } probe begin { f(1) }', true)).to.deep.equal({ out: '# probes\nbegin /* <- begin */\n', err: '' });
  });

  it('-u: a global only a dropped function read stays, untyped; one never named goes', () => {
    expect(p2('global g function f(x) { return g } probe begin { f(1) }', true).err)
      .to.contain("semantic error: unresolved type : identifier 'g' at <input>:1:8");
    expect(p2('global g probe begin { println(1) }', true)).to.deep.equal({ out: '# probes\nbegin /* <- begin */\n', err: '' });
    // (the dropped read does not count for the display of globals written but never read)
    expect(p2('global g function f(x) { return g } probe begin { f(1); g = 2 }', true).out)
      .to.equal('# globals\ng:long\n# probes\nbegin /* <- begin */\nend /* <- end */\n');
  });
});
