/**
 * Function overloads in pass 2, as stap 4.8 has them: a call's referents are every overload of
 * its arity; each is resolved and typed (what is wrong in one no `next` reaches is reported:
 * unresolved functions, type mismatches), the optimiser drops those no `next` reaches before
 * it asserts that everything is resolved (so an unresolved name or target expression only a
 * dead overload has is no error), and -u keeps them all.  Target expressions of function
 * bodies are reported by the asserting pass, after constant folding, as a probe's are.
 * Every expected text was checked against real SystemTap 4.8 (../shared/tools/real-stap -p2).
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

const LISTING_ONE = '# functions\nf:long ()\n# probes\nbegin /* <- begin */\n';

describe('elaborate: function overloads (stap 4.8 referents)', () => {
  it('-u keeps every overload of the call, and what they call, typed', () => {
    expect(p2('function f:long() { return 1 } function f:long() { return 2 } probe begin { println(f()) }', true).out)
      .to.equal('# functions\nf:long ()\nf:long ()\n# probes\nbegin /* <- begin */\n');
    expect(p2('function g() { return 5 } function f() { return 1 } function f() { return g() } probe begin { println(f()) }', true).out)
      .to.equal('# functions\nf:long ()\nf:long ()\ng:long ()\n# probes\nbegin /* <- begin */\n');
    expect(p2('function f() { return 1 } function f() { x = 1 } probe begin { println(f()) }', true).out)
      .to.equal('# functions\nf:long ()\nf:long ()\n  # locals\n  x:long\n# probes\nbegin /* <- begin */\n');
    // (an overload no call names stays out, as any unused function)
    expect(p2('function f:long() { return 1 } function f:long() { return 2 } probe begin { println(1) }', true).out)
      .to.equal('# probes\nbegin /* <- begin */\n');
  });

  it('optimised, the overloads after one without `next` go after type resolution', () => {
    expect(p2('function f:long() { return 1 } function f:long() { return 2 } probe begin { println(f()) }')).to.deep.equal({ out: LISTING_ONE, err: '' });
    expect(p2('function g() { return 5 } function f() { return 1 } function f() { return g() } probe begin { println(f()) }').out).to.equal(LISTING_ONE);
    // a `next` reaches the following one, which has none
    expect(p2('function f() { if (1) next; return 1 } function f() { return 2 } function f() { return 3 } probe begin { println(f()) }').out)
      .to.equal('# functions\nf:long ()\nf:long ()\n# probes\nbegin /* <- begin */\n');
  });

  it('a dead overload is resolved: an unknown function in it is an error', () => {
    const r = p2('function f() { return 1 } function f() { return nosuchfn() } probe begin { println(f()) }');
    expect(r.out).to.equal('');
    expect(r.err).to.contain("semantic error: unresolved function nosuchfn (similar: f, pn, HZ, cpu, pp): identifier 'nosuchfn' at <input>:1:49");
  });

  it('a dead overload is typed with the others: its return type must agree with the call', () => {
    for (const u of [false, true]) {
      const r = p2('function f() { return 1 } function f() { return "a" } probe begin { println(f()) }', u);
      expect(r.out).to.equal('');
      expect(r.err).to.contain("semantic error: type mismatch (long): identifier 'f' at <input>:1:77");
      expect(r.err).to.contain("semantic error: type was first inferred here (string): string 'a' at :1:49");
    }
  });

  it('the optimiser warns about a dead overload as about any function, in its first pass', () => {
    const r = p2('function f() { return 1 } function f() { x = 1 } function f() { next } probe begin { println(f()) }');
    expect(r.err.split('\n').filter((l) => l.startsWith('WARNING'))).to.deep.equal([
      "WARNING: Eliding assignment to 'x': operator '=' at <input>:1:44",
      "WARNING: Eliding side-effect-free expression : identifier 'x' at :1:42",
      "WARNING: side-effect-free function 'f': identifier 'f' at :1:36",
    ]);
    expect(r.out).to.equal(LISTING_ONE);
  });

  it('what is unresolved only in a dead overload is no error, unless -u keeps it', () => {
    for (const src of [
      'global q function f() { return 1 } function f() { q = r; return 1 } probe begin { println(f()) }',
      'function f() { return 1 } function f() { return $nosuch } probe begin { println(f()) }',
      'function g() { return $nosuch } function f() { return 1 } function f() { return g() } probe begin { println(f()) }',
    ]) expect(p2(src), src).to.deep.equal({ out: LISTING_ONE, err: src.startsWith('global') ? r0Warning : '' });
    const u = p2('function f() { return 1 } function f() { return $nosuch } probe begin { println(f()) }', true);
    expect(u.err).to.contain("semantic error: unresolved target-symbol expression: identifier '$nosuch' at <input>:1:49");
  });

  it('a function body\'s target expression is reported after constant folding, and not after a mismatch', () => {
    expect(p2('function f() { if (0) return $nosuch; return 2 } probe begin { println(f()) }')).to.deep.equal({ out: LISTING_ONE, err: '' });
    const r = p2('function f() { return $nosuch + "a" } probe begin { println(f()) }');
    expect(r.err).to.equal("semantic error: type mismatch: expected long but found string: string 'a' at <input>:1:33\n" +
      '        source: function f() { return $nosuch + "a" } probe begin { println(f()) }\n' +
      '                                                ^\n\n');
    const live = p2('function f() { return $nosuch } probe begin { println(f()) }');
    expect(live.err.split('\n').filter((l) => l.startsWith('semantic error'))).to.deep.equal([
      "semantic error: unresolved target-symbol expression: identifier '$nosuch' at <input>:1:23",
      // (the call is what is left untyped)
      "semantic error: unresolved type : identifier 'f' at :1:55",
    ]);
  });

  it('a function body\'s unresolved target expression may be dropped by the optimiser, as a probe\'s', () => {
    expect(p2('function f() { x = $nosuch; return 1 } probe begin { println(f()) }')).to.deep.equal({
      out: LISTING_ONE,
      err: "WARNING: Eliding assignment to 'x': operator '=' at <input>:1:18\n" +
        ' source: function f() { x = $nosuch; return 1 } probe begin { println(f()) }\n' +
        '                          ^\n' +
        "WARNING: Eliding side-effect-free expression : identifier 'x' at :1:16\n" +
        ' source: function f() { x = $nosuch; return 1 } probe begin { println(f()) }\n' +
        '                        ^\n',
    });
    expect(p2('function f() { $nosuch; return 1 } probe begin { println(f()) }').err)
      .to.equal("WARNING: Eliding side-effect-free expression : identifier '$nosuch' at <input>:1:16\n" +
        ' source: function f() { $nosuch; return 1 } probe begin { println(f()) }\n' +
        '                        ^\n');
  });
});

describe('elaborate: a script function of a tapset function\'s name (stap 4.8)', () => {
  it('is an overload of the tapset\'s, first in the call, listed after it under -u', () => {
    expect(p2('function log(s) { } probe begin { log("a") }', true).out)
      .to.equal('# functions\nlog:unknown (msg:string)\nlog:unknown (s:string)\n# probes\nbegin /* <- begin */\n');
    expect(p2('function pid() { return 1 } probe begin { println(pid()) }', true).out)
      .to.equal('# functions\npid:long ()\npid:long ()\n# probes\nbegin /* <- begin */\n');
    // the script's is called: the tapset's is the dead overload
    expect(p2('function log(s) { println("x") } probe begin { log("a") }').out)
      .to.equal('# functions\nlog:unknown (s:string)\n# probes\nbegin /* <- begin */\n');
  });

  it('its type must agree with the tapset\'s', () => {
    const r = p2('function pid() { return "x" } probe begin { println(pid()) }');
    expect(r.out).to.equal('');
    expect(r.err).to.contain("semantic error: type mismatch: expected string but found long: identifier 'pid' at <input>:1:53");
    // (another arity is another function)
    expect(p2('function pid(a) { return "x" } probe begin { println(pid(1)) }').out)
      .to.equal('# functions\npid:string (a:long)\n# probes\nbegin /* <- begin */\n');
  });

  it('an empty one is side-effect-free once the tapset\'s is dropped: the probe goes after types', () => {
    const r = p2('function exit() { } probe begin { exit() }');
    expect(r.err.split('\n').filter((l) => /^(WARNING|semantic error)/.test(l))).to.deep.equal([
      "WARNING: side-effect-free function 'exit': identifier 'exit' at <input>:1:10",
      "WARNING: Probe 'begin' has been elided: keyword at :1:21",
      'semantic error: no probes found',
    ]);
    expect(p2('function exit() { } probe begin { exit() }', true).out)
      .to.equal('# functions\nexit:unknown ()\nexit:unknown ()\n# probes\nbegin /* <- begin */\n');
  });
});

// (real-stap: the never-assigned local of the dead overload is reported by the first optimiser pass)
const r0Warning = "WARNING: never-assigned local variable 'r' (similar: q): identifier 'r' at <input>:1:55\n" +
  ' source: global q function f() { return 1 } function f() { q = r; return 1 } probe begin { println(f()) }\n' +
  '                                                               ^\n';
