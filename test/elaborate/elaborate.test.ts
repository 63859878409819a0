import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import type * as A from '../../src/ast';
import { elaborate, printProgram, TapsetLibrary, dumpProbeTypes, listProbes } from '../../src/elaborate';

const FIX = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'tapset-elab');

interface Run { prog: A.Program | null; out: string; err: string; }

function run(text: string, opts: { u?: boolean; dirs?: string[]; cacheDir?: string | null; compatible?: string; guru?: boolean } = {}): Run {
  let err = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { err += s; });
  const guru = opts.guru ?? false;
  const library = new TapsetLibrary({ dirs: opts.dirs ?? [], parse: { args: [], guru, compatible: opts.compatible }, diag, cacheDir: opts.cacheDir ?? null, builtCacheDir: null });
  const f = parseFile({ name: '<input>', text, isTapset: false }, { args: [], guru, compatible: opts.compatible, libraryMacros: library.macros() as never }, diag);
  if (!f) return { prog: null, out: '', err };
  const prog = elaborate([f], { guru: false, unoptimized: opts.u, library }, diag);
  return { prog, out: prog ? printProgram(prog) : '', err };
}

describe('elaborate: -p2 output', () => {
  it('prints globals, functions and probes like stap', () => {
    const r = run('global g, arr[10], s; function f(a,b) { return a . b } probe begin { x = 1; g = x; arr["a"] <<< 1; s = f("a","b"); println(s, @count(arr["a"])) } probe timer.ms(100), end(2) { println(g) }');
    expect(r.err).to.equal('');
    expect(r.out).to.equal([
      '# globals', 'g:long', 'arr[10]:stats [string]', 's:string',
      '# functions', 'f:string (a:string, b:string)',
      '# probes', 'begin /* <- begin */', '  # locals', '  x:long',
      'timer.ms(100) /* <- timer.ms(100),end(2) */', 'end(2) /* <- timer.ms(100),end(2) */', '',
    ].join('\n'));
  });

  it('expands aliases with prologue/epilogue chains', () => {
    const r = run('probe foo = begin, end(1) { x = 1 } probe bar += foo { y = 2 } probe bar { println(x, y) }');
    expect(r.out).to.equal([
      '# probes',
      'begin /* <- foo = begin, end(1) <- bar += foo <- bar */', '  # locals', '  x:long', '  y:long',
      'end(1) /* <- foo = begin, end(1) <- bar += foo <- bar */', '  # locals', '  x:long', '  y:long', '',
    ].join('\n'));
    const p = r.prog!.probes[0];
    expect(p.point.data).to.deep.equal({ seq: 0 });
    expect(r.prog!.probes[1].point.data).to.deep.equal({ seq: 1 });
    expect(p.pn).to.equal('bar');
  });

  it('ANDs alias and user conditions', () => {
    const r = run('global g; probe foo = begin if (g > 1) { x = 1 } probe foo if (g < 5) { println(x); g++ }');
    expect(r.out).to.contain('begin if (((__global_g) > (1)) && ((__global_g) < (5))) /* <- foo = begin if ((g) > (1)) <- foo if ((g) < (5)) */');
  });

  it('suffix propagation and wildcards', () => {
    const r = run('probe foo = timer.s(1) { } probe foo.randomize(1) { println(1) } probe b* { println(2) }');
    expect(r.prog!.probes.map((p) => p.point.pp)).to.deep.equal(['timer.s(1).randomize(1)', 'begin']);
    expect(r.prog!.probes[0].point.data).to.deep.equal({ kind: 'hrtimer', intervalNs: 1e9, randomizeNs: 1e9 });
  });
});

describe('elaborate: errors', () => {
  const fails = (src: string, ...msgs: string[]) => {
    const r = run(src);
    expect(r.prog, r.out).to.equal(null);
    for (const m of msgs) expect(r.err).to.contain(m);
  };
  it('type mismatch with chain', () => fails('probe begin { x = 1; x = "s"; println(x) }',
    "semantic error: type mismatch (string): identifier 'x' at <input>:1:22", "semantic error: type was first inferred here (long): identifier 'x' at :1:15"));
  it('index type mismatch', () => fails('global a; probe begin { a[1] = 1; a["x"] = 2 ; println(a[1])}',
    "index 0 type mismatch (string): string 'x'", 'type of index 0 was first inferred here (long)'));
  // (real-stap -p2: the chained message names the array's value type, not the index's)
  it('index type mismatch names the value type where the index was first inferred', () => fails(
    'global a; probe begin { a["s"] = 1; a[2] = 1 }',
    "index 0 type mismatch (long): number '2'", "type of index 0 was first inferred here (long): string 's'"));
  it('an array only deleted from is unresolved at the delete', () => fails(
    'global a\nprobe begin { delete a[1]; println(1) }', "semantic error: unresolved type : identifier 'a' at <input>:2:22"));
  it('index type mismatch of a string array', () => fails(
    'global a; probe begin { a[2] = "x"; a["s"] = "y" }',
    "index 0 type mismatch (string): string 's'", "type of index 0 was first inferred here (string): number '2'"));
  it('inconsistent arity', () => fails('global a; probe begin { a[1] = 1; a[1,2] = 2 ; println(a[1])}', 'inconsistent arity (1 vs 2)', 'arity 1 first inferred here'));
  it('unresolved function', () => fails('probe begin { foo(1) }', 'unresolved function foo'));
  it('arity mismatch', () => fails('function foo(a) {return 1} probe begin { foo(1,2) }', "arity mismatch found (function 'foo' takes 1 args)"));
  it('target symbols in begin', () => fails('probe begin { println($foo) }', "unresolved target-symbol expression: identifier '$foo'"));
  it('foreach modification', () => fails('global a; probe begin { a[1]=1; foreach (k in a) a[k] = 2 }', "variable 'a' modified during 'foreach' iteration"));
  it('foreach modification through a call', () => fails('global a; function f() { a[2] = 1 } probe begin { a[1]=1; foreach (k in a) f() }', "function call modifies var 'a' during 'foreach' iteration"));
  it('@entry outside .return', () => fails('probe begin { println(@entry(1)) }', 'semantic error: while processing probe begin', 'internal error: @entry is only valid in .return probes'));
  it('array locals', () => fails('probe begin { a[1] = 1 }', 'unresolved arity-1 global array a, missing global declaration?'));
  it('wildcard index', () => fails('global a; probe begin { a[1] = 2; println(a[*]) }', 'wildcard not allowed in array index'));
  it('delete of unknown', () => fails('probe begin { delete x }', 'unresolved array in delete statement'));
  it('no probes found', () => fails('probe begin {}', "WARNING: Probe 'begin' has been elided", 'semantic error: no probes found'));
  it('timer ranges', () => {
    fails('probe timer.s(0) { println(1) }', 'while resolving probe point', 'interval value out of range (1, 86400)');
    fails('probe timer.us(1) { println(1) }', 'interval value out of range (100, 86400000000)');
    fails('probe timer.s(1).randomize(2) { println(1) }', 'randomization value out of range');
    fails('probe timer.jiffies(0) { println(1) }', 'invalid interval for jiffies timer');
    fails('probe timer.hz(0) { println(1) }', 'frequency must be greater than 0');
    fails('probe timer.hz(1).randomize(2) { println(1) }', "invalid suffix for probe: identifier 'randomize'");
    fails('probe timer { println(1) }', 'probe point truncated (follow:  hz(number) jiffies(number) ms(number)');
  });
  it('a wildcard last component never matches an inner node of the alias tree', () => {
    // gen is only the first component of gen.fop (as generic of generic.fop.*): no wildcard match
    fails('probe gen.fop = begin { } probe ge* { println(1) }', "probe point mismatch: didn't find any wildcard matches");
    // the component is quoted whole, as stap glues it into one token
    fails('probe sys**xyz { println(1) }', "while resolving probe point: identifier 'sys**xyz' at <input>:1:7", "didn't find any wildcard matches", "identifier 'sys**xyz' at :1:7");
    fails('probe *xyz { println(1) }', "operator '*xyz' at <input>:1:7");
    const r = run('probe abc = begin { } probe xc.fop = begin { } probe *c { println(1) }');
    expect(r.err).to.not.contain('truncated');
    expect(r.out).to.contain('begin /* <- abc = begin <- *c */');
  });
  it('probe point mismatch and no match', () => {
    fails('probe timerx.s(1) { println(1) }', 'probe point mismatch (similar: timer');
    fails('probe foo = begin.bar { } probe foo { println(1) }', 'invalid suffix for probe', 'no match');
    fails('probe foo = foo.bar { } probe foo.bar = foo { } probe foo { println(1) }', 'recursive loop in alias expansion of foo.bar at <input>:1:13');
  });
  it('unresolved type for never-assigned locals', () => fails('probe begin { println(y) }', "WARNING: never-assigned local variable 'y'", 'unresolved type '));
});

describe('elaborate: optimisation', () => {
  it('elides dead assignments and empty probes with stap warnings', () => {
    const r = run('probe begin { x = 1 } probe end { println(2) }');
    expect(r.err).to.contain("WARNING: Eliding assignment to 'x': operator '=' at <input>:1:17");
    expect(r.err).to.contain("WARNING: Eliding side-effect-free expression : identifier 'x' at :1:15");
    expect(r.err).to.contain("WARNING: Probe 'begin' has been elided: keyword at :1:1");
    expect(r.out).to.equal('# probes\nend /* <- end */\n');
  });
  it('-u keeps everything', () => {
    const r = run('probe begin { x = 1 } probe end { println(2) }', { u: true });
    expect(r.err).to.equal('');
    expect(r.prog!.probes.length).to.equal(2);
  });
  it('keeps only reachable overloads; links next chains', () => {
    const r = run('function f(x) { if (x) next; return 1 } function f(x) { return 2 } function f(x, y) { return 3 } probe begin { println(f(1)) }');
    expect(r.prog!.functions.length).to.equal(2);
    expect(r.prog!.functions[0].nextOverload).to.equal(r.prog!.functions[1]);
  });
  it('infers mutually dependent function and global types', () => {
    const r = run('global g; function a(n) { return b(n) } function b(m) { g = m; return a(m) . "" } probe begin { println(a("x")); println(g) }');
    expect(r.out).to.contain('g:string');
    expect(r.out).to.contain('a:string (n:string)');
    expect(r.out).to.contain('b:string (m:string)');
  });
});

describe('elaborate: double globs', () => {
  it('`**` spans components, in tapset alias roots too', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'elab-'));
    fs.writeFileSync(path.join(tmp, 'a.stp'), 'probe mysys.open = begin {}\nprobe mysys.creat = end {}\nprobe nd_mysys.mq_open = timer.ms(5) {}\n');
    const r = run('probe *sys**pen {} probe ti**es(3) {}', { dirs: [tmp], u: true });
    expect(r.err).to.equal('');
    expect(r.out).to.equal([
      '# probes',
      'begin /* <- mysys.open = begin <- *sys**pen */',
      'timer.ms(5) /* <- nd_mysys.mq_open = timer.ms(5) <- *sys**pen */',
      'timer.jiffies(3) /* <- ti**es(3) */', '',
    ].join('\n'));
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});

describe('elaborate: tapsets', () => {
  it('loads only the tapset files a script needs, through a cache that tracks content', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'elab-'));
    const lib = path.join(tmp, 'lib');
    fs.mkdirSync(lib);
    fs.copyFileSync(path.join(FIX, 'mylib.stp'), path.join(lib, 'mylib.stp'));
    fs.writeFileSync(path.join(lib, 'other.stp'), 'function other_fn() { return 1 }\n');
    const cache = path.join(tmp, 'cache');
    const r1 = run('probe begin { println(mylib_twice(2)) }', { dirs: [lib], cacheDir: cache });
    expect(r1.err).to.equal('');
    expect(r1.prog!.libraryFileCount).to.equal(1);
    expect(r1.out).to.contain('mylib_counter:long');
    expect(r1.out).to.contain('mylib_twice:long (x:long)');
    // warm cache
    const r2 = run('probe mylib.tick { println(tick_no) }', { dirs: [lib], cacheDir: cache });
    expect(r2.out).to.contain('timer.ms(100) /* <- mylib.tick = timer.ms(100) <- mylib.tick */');
    // content change must be seen
    fs.writeFileSync(path.join(lib, 'other.stp'), 'function other_fn2() { return 1 }\n');
    const r3 = run('probe begin { println(other_fn2()) }', { dirs: [lib], cacheDir: cache });
    expect(r3.err).to.equal('');
    const r4 = run('probe begin { println(other_fn()) }', { dirs: [lib], cacheDir: cache });
    expect(r4.err).to.contain('unresolved function other_fn');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('keys a cached tapset on --compatible/-g only when its conditions test them', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'elab-'));
    const lib = path.join(tmp, 'lib');
    fs.mkdirSync(lib);
    fs.writeFileSync(path.join(lib, 'plain.stp'), 'function plain_fn() { return 1 }\n');
    fs.writeFileSync(path.join(lib, 'versioned.stp'),
      '%( systemtap_v >= "4.0" %? function new_fn() { return 4 } %: function old_fn() { return 3 } %)\n');
    const cache = path.join(tmp, 'cache');
    const astFiles = () => fs.readdirSync(path.join(cache, 'ast')).length;
    const r1 = run('probe begin { println(new_fn() + plain_fn()) }', { dirs: [lib], cacheDir: cache });
    expect(r1.err).to.equal('');
    expect(astFiles()).to.equal(2);
    // another version: only the file whose condition tests it gets an entry of its own
    const r2 = run('probe begin { println(old_fn() + plain_fn()) }', { dirs: [lib], cacheDir: cache, compatible: '3.0' });
    expect(r2.err).to.equal('');
    expect(astFiles()).to.equal(3);
    const r3 = run('probe begin { println(new_fn()) }', { dirs: [lib], cacheDir: cache, compatible: '3.0' });
    expect(r3.err).to.contain('unresolved function new_fn');
    // guru mode is tested by no condition: no new entry
    const r4 = run('probe begin { println(new_fn() + plain_fn()) }', { dirs: [lib], cacheDir: cache, guru: true });
    expect(r4.err).to.equal('');
    expect(astFiles()).to.equal(3);
    // the default run still sees its own variant
    const r5 = run('probe begin { println(old_fn()) }', { dirs: [lib], cacheDir: cache });
    expect(r5.err).to.contain('unresolved function old_fn');
    // content changes are seen under both option sets, and a file that starts testing an option is keyed on it
    fs.writeFileSync(path.join(lib, 'plain.stp'),
      '%( guru_mode == 1 %? function guru_fn() { return 1 } %: function plain_fn2() { return 2 } %)\n');
    const r6 = run('probe begin { println(plain_fn2() + old_fn()) }', { dirs: [lib], cacheDir: cache, compatible: '3.0' });
    expect(r6.err).to.equal('');
    const r7 = run('probe begin { println(guru_fn() + new_fn()) }', { dirs: [lib], cacheDir: cache, guru: true });
    expect(r7.err).to.equal('');
    const r8 = run('probe begin { println(guru_fn()) }', { dirs: [lib], cacheDir: cache });
    expect(r8.err).to.contain('unresolved function guru_fn');
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});

describe('elaborate: listings', () => {
  it('--dump-probe-types lists the kernel-free families', () => {
    const t = dumpProbeTypes();
    expect(t).to.contain('begin\nbegin(number)\n');
    expect(t).to.contain('timer.jiffies(number).randomize(number)\n');
    expect(t).to.contain('timer.profile.tick\n');
  });
  it('-l expands wildcards', () => {
    let err = '';
    const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { err += s; });
    const f = parseFile({ name: '<input>', text: 'probe timer.s(1), b*, e* {}', isTapset: false }, { args: [], guru: false }, diag)!;
    expect(listProbes([f], { guru: false }, diag, false)).to.deep.equal(['begin', 'end', 'error', 'timer.s(1)']);
    expect(err).to.equal('');
  });
});

describe('elaborate: optimiser on loops', () => {
  it('drops side-effect-free for init/increment silently, and empty loops with pure conditions', () => {
    // $i is unresolvable at begin: its error goes with the dropped init (stap's optimize.stp)
    const r = run('function zoo(x) { return x } probe begin { for (2<$i; zoo(333); poo) ; } probe begin { while (24) ; } probe begin { for (;;) ; println(1) }');
    expect(r.prog).to.not.equal(null);
    expect(r.err).to.not.contain('unresolved target-symbol');
    expect(r.err).to.not.contain('Eliding side-effect-free');
    expect(r.out.match(/^begin /gm)).to.have.length(1);
    expect(r.out).to.not.contain('zoo');
  });
  it('keeps loops whose condition or body has effects', () => {
    const r = run('global g probe begin { while (g++ < 3) ; for (i = 0; i < 2; i++) ; println(g) }');
    expect(r.err).to.not.contain('elided');
    expect(r.out).to.contain('i:long');
  });
});

describe('elaborate: optimiser warnings as stap prints them', () => {
  it('never-assigned first (suggesting live names at any distance), then dead assignments; one warning per text', () => {
    const r = run([
      'global unused_g',
      'function foo:long () { dead3 = 1 }',
      'function bar() { print(elide) }',
      'probe begin { dead4 = 1; print(elide); bar(); print(foo()) }',
      'function funca(a:long) { a = b; dead7 = 1; return a }',
      'probe end { println(funca(1), var) }',
    ].join('\n'));
    const warnings = r.err.split('\n').filter((l) => l.startsWith('WARNING')).map((l) => l.replace(/: (identifier|operator|number) .*/, ''));
    expect(warnings).to.deep.equal([
      // (checked against stap 4.8 -p2)
      "WARNING: never-assigned local variable 'elide' (similar: dead4)",
      "WARNING: never-assigned local variable 'var'",
      "WARNING: never-assigned local variable 'elide'",
      "WARNING: never-assigned local variable 'b' (similar: a, dead7)",
      "WARNING: Eliding assignment to 'dead4'",
      "WARNING: Eliding assignment to 'dead3'",
      "WARNING: Eliding assignment to 'dead7'",
      'WARNING: Eliding side-effect-free expression ',
      "WARNING: side-effect-free function 'foo'",
    ]);
  });
});

describe('elaborate: @defined pruning and alias variables', () => {
  it('drops the branch an @defined condition rules out before typing target expressions', () => {
    // begin has no context variables: $nosuch would be an unresolved target-symbol expression
    const r = run('probe begin { if (@defined($nosuch)) println($nosuch) else println(1); x = @defined($nosuch) ? $nosuch : 2; println(x) }');
    expect(r.err).to.equal('');
    expect(r.out).to.contain('x:long');
  });
  it('keeps reporting target expressions in live code', () => {
    const r = run('probe begin { if (!@defined($nosuch)) println($nosuch) }');
    expect(r.prog).to.equal(null);
    expect(r.err).to.contain('unresolved target-symbol expression');
  });
  it('-L lists the variables an alias sets, typed, in order of assignment', () => {
    let err = '';
    const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { err += s; });
    const src = 'probe myalias = timer.s(1) { name = "x"; n = 2 } probe myalias {}';
    const f = parseFile({ name: '<input>', text: src, isTapset: false }, { args: [], guru: false }, diag)!;
    const lines = listProbes([f], { guru: false }, diag, true);
    expect(lines).to.include('myalias name:string n:long');
    expect(err).to.equal('');
  });
});
