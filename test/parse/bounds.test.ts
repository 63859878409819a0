/**
 * Issue 18's reproducers for the front end: nesting and chain lengths that used to end in
 * "Maximum call stack size exceeded" (exit 70), and the parse cost of big machine-generated
 * scripts (~3 KB of memory per source byte, 35 s for 600 KB).  Deep or long shapes within the
 * bounds go through every pass and run; past the nesting bound they get a parse error in stap's
 * layout.  Expected outputs are what the scripts compute (stap itself segfaults on such depths:
 * checked with real-stap -p1 on 100,000 nested parentheses).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { printFile, expr } from '../../src/parse/print';
import { MAX_NESTING } from '../../src/parse/cursor';
import type * as A from '../../src/ast';
import { runScript } from '../translate/pipeline';

function parse(text: string): { file: A.StapFile | null; errors: string } {
  let errors = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, (s) => { errors += s; });
  return { file: parseFile({ name: '<input>', text, isTapset: false }, { args: [], guru: false }, diag), errors };
}

function depth(e: A.Expr): number {
  let max = 0;
  const stack: [A.Expr, number][] = [[e, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    max = Math.max(max, d);
    if (x.k === 'binary' || x.k === 'concat' || x.k === 'logical' || x.k === 'compare') stack.push([x.left, d + 1], [x.right, d + 1]);
    if (x.k === 'unary') stack.push([x.operand, d + 1]);
  }
  return max;
}

const terms = (n: number, op: string, t = '1') => Array(n).fill(t).join(` ${op} `);

describe('pass 1: bounded nesting and chains (issue 18)', function () {
  this.timeout(180000);

  it('runs the issue reproducers: 80 parentheses, 400 blocks, 800 ifs, 2,000 +, 10,000 .', async () => {
    expect((await runScript(`probe begin { x = ${'('.repeat(80)}1${')'.repeat(80)}; println(x); exit() }`)).out).to.equal('1\n');
    expect((await runScript(`probe begin { ${'{'.repeat(400)} println(2) ${'}'.repeat(400)} exit() }`)).out).to.equal('2\n');
    expect((await runScript(`probe begin { x = 1; ${'if (x) '.repeat(800)}x = 3; println(x); exit() }`)).out).to.equal('3\n');
    expect((await runScript(`probe begin { x = ${terms(2000, '+')}; println(x); exit() }`)).out).to.equal('2000\n');
    const r = await runScript(`probe begin { x = ${terms(10000, '.', '"a"')}; println(strlen(x)); exit() }`, { defines: new Map([['MAXSTRINGLEN', '20000']]) });
    expect(r.out).to.equal('10000\n');
  });

  it('runs a 3,000-deep chain of function calls (each function calling the next)', async () => {
    // the call graph is walked without recursion at pass 2 and 3 (elaborate/callgraph.ts); the
    // default MAXNESTING is the chain's depth, as the program is not recursive
    const fns = Array.from({ length: 3000 }, (_, i) => `function f${i}() { return f${i + 1}() + 1 }`).join('\n');
    expect((await runScript(`${fns}\nfunction f3000() { return 0 }\nprobe begin { println(f0()); exit() }`)).out).to.equal('3000\n');
  });

  it('matches "aaaa...!" =~ "^(a|a)*$" in linear time, with leftmost-longest matched()', async () => {
    // backtracking engines take ~2^46 steps on the first; stap's automata are linear
    const t0 = Date.now();
    const r = await runScript(`probe begin {
      s = "${'a'.repeat(46)}!"
      println(s =~ "^(a|a)*$")
      t = "${'a'.repeat(3000)}"
      if (t =~ "^(a|a)*$") printf("%d %d %s\\n", strlen(matched(0)), strlen(matched(1)), matched(1))
      if ("xabcdy" =~ "(a|ab)(c|bcd)(d*)") printf("%s|%s|%s|%s\\n", matched(0), matched(1), matched(2), matched(3))
      exit()
    }`, { defines: new Map([['MAXSTRINGLEN', '4096']]) });
    // POSIX: the longest match, then each subexpression in turn as long as it can be (JS: a|bcd|)
    expect(r.out).to.equal('0\n3000 1 a\nabcd|ab|c|d\n');
    expect(Date.now() - t0).to.be.below(20000);
  });

  it('runs 900 nested blocks, else-if chains, parentheses, function calls and foreach loops', async () => {
    expect((await runScript(`probe begin { ${'{'.repeat(900)} println(1) ${'}'.repeat(900)} exit() }`)).out).to.equal('1\n');
    const elseIf = Array.from({ length: 900 }, (_, i) => `if (x == ${i}) println(${i})`).join(' else ');
    expect((await runScript(`probe begin { x = 899; ${elseIf}; exit() }`)).out).to.equal('899\n');
    expect((await runScript(`probe begin { x = ${'('.repeat(990)}7${')'.repeat(990)}; println(x); exit() }`)).out).to.equal('7\n');
    expect((await runScript(`function f(x) { return x + 1 } probe begin { println(${'f('.repeat(700)}0${')'.repeat(700)}); exit() }`)).out).to.equal('700\n');
    const fe = Array.from({ length: 500 }, (_, i) => `foreach (k${i} in a) `).join('');
    expect((await runScript(`global a probe begin { a[1] = 1; ${fe}n++; println(n); exit() }`)).out).to.equal('1\n');
  });

  it('a non-associative chain counts as nesting: 700 `-` run, 5,000 get the bound', async () => {
    expect((await runScript(`global g probe begin { g = 1000; println(g - ${terms(700, '-')}); exit() }`)).out).to.equal('300\n');
    const r = parse(`probe begin { x = ${terms(5000, '-')} }`);
    expect(r.file).to.equal(null);
    expect(r.errors).to.match(/^parse error: statements and expressions nested too deeply \(the limit is about 800 levels\)\n {9}at: operator '-' at <input>:1:\d+\n {5}source: probe begin/);
  });

  it('past the bound: a parse error with file:line:col and caret, never a stack overflow', () => {
    for (const text of [
      `probe begin { x = ${'('.repeat(5000)}1${')'.repeat(5000)} }`,
      `probe begin { ${'{'.repeat(5000)}${'}'.repeat(5000)} }`,
      `probe begin { ${'if (x) '.repeat(3000)}x = 1 }`,
      `probe begin { x = ${'- '.repeat(100000)}1 }`,
      `probe begin { x = ${'f('.repeat(3000)}1${')'.repeat(3000)} }`,
      `probe begin { x = ${'x ? 1 : '.repeat(3000)}2 }`,
      `probe begin { ${Array.from({ length: 3000 }, (_, i) => `a${i}`).join(' = ')} = 1 }`,
    ]) {
      const r = parse(text);
      expect(r.file, text.slice(0, 40)).to.equal(null);
      expect(r.errors, text.slice(0, 40)).to.match(new RegExp(`^parse error: statements and expressions nested (more than ${MAX_NESTING} levels deep|too deeply)`));
      expect(r.errors).to.match(/\n {5}source: probe begin/).and.to.match(/\^\n/);
    }
  });

  it('builds long associative chains balanced and prints them as written', () => {
    const r = parse(`probe begin { x = ${terms(100000, '+', 'y')}; s = ${terms(5000, '.', '"a"')}; b = ${terms(3000, '&&', 'y')} }`);
    const [x, s, b] = r.file!.probes[0].body.stmts.map((st) => ((st as A.ExprStmt).expr as A.Assign).value);
    expect(depth(x)).to.be.below(20);
    expect(depth(s)).to.be.below(16);
    expect(depth(b)).to.be.below(16);
    // -p1: the left-associated form
    const small = parse(`probe begin { x = ${terms(70, '+', 'y')} - 1 }`).file!;
    const want = '(' + Array(69).fill('(').join('') + 'y) + (y' + ')) + (y'.repeat(68) + ')) - (1)';
    expect(expr(((small.probes[0].body.stmts[0] as A.ExprStmt).expr as A.Assign).value)).to.equal(want);
    expect(printFile(small)).to.contain(want);
  });

  it('parses a 1 MB generated script in seconds, keeping under 50 bytes per source byte', () => {
    // in a child with --expose-gc, so that what the tree keeps can be measured
    const probe = path.join(__dirname, 'parse-cost.js');
    const r = spawnSync(process.execPath, ['--expose-gc', probe, '1000000'], { encoding: 'utf8', timeout: 120000 });
    expect(r.status, r.stderr).to.equal(0);
    const m = JSON.parse(r.stdout) as { bytes: number; ms: number; kept: number; ok: boolean };
    expect(m.ok).to.equal(true);
    expect(m.kept / m.bytes, 'bytes kept per source byte').to.be.below(50);
    expect(m.ms, 'parse time').to.be.below(10000);
  });
});
