/**
 * The interactive mode end to end: a person's session typed through a real pseudo-terminal
 * (python3's pty module, test/repl/pty_session.py), the transcript of a piped session, and the
 * pieces (input completeness, completion, durations, history).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isComplete, splitDecls, splitGlobals } from '../../src/repl/scan';
import { parseDuration, words } from '../../src/repl/commands';
import { History } from '../../src/repl/history';
import { benchRepl } from '../../bench/repl';
import { pty, PtyResult, STAP, ROOT } from './pty';


const PROMPT = { expect: '^stap> ' };

describe('REPL through a pseudo-terminal', function () {
  this.timeout(150000);
  let home: string;
  let r: PtyResult;

  before(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-home-'));
    r = pty([], [
      { expect: '^stap> ', timeout: 90, name: 'first prompt' },
      { send: 'global n\r' }, PROMPT,
      { send: 'probe timer.ms(100) { n++ }\r' }, { expect: '^stap> ', name: 'probe definition' },
      { send: 'run 1s\r' }, PROMPT,
      { send: 'n\r' }, { expect: '^10\\s*$', name: 'global value' }, PROMPT,
      { send: 'probe kernel.function("vfs_readl\t' }, { expect: 'vfs_readlink"\\)', name: 'completion' },
      { send: ' { n++ }\r' }, PROMPT,
      { send: 'probe timer.s(1) { n = }\r' }, { expect: 'parse error', name: 'error' }, PROMPT,
      { send: 'n + 1\r' }, { expect: '^11\\s*$', name: 'recovered' }, PROMPT,
      { send: 'probe end { printf("stopped at %d\\n", n) }\r' }, PROMPT,
      { send: 'run\r' }, { expect: 'Ctrl-C stops', name: 'run started' }, { sleep: 0.5 },
      { send: '\u0003' }, { expect: 'stopped at \\d+', name: 'Ctrl-C ran end probes' }, PROMPT,
      { send: 'probe begin {\r' }, { expect: '^stap>>> ', name: 'continuation' }, { send: 'println("hi") }\r' }, PROMPT,
      { send: 'list\r' }, { expect: '5: probe begin \\{', name: 'list' }, PROMPT,
      { send: 'nonsense' }, { send: '\u0003' }, { expect: '\\^C', name: 'Ctrl-C at the prompt' }, PROMPT,
      { send: 'frobnicate\r' }, { expect: 'Undefined command: "frobnicate". Try "help" or "\\?".', name: 'unknown command' }, PROMPT,
      { send: '\u0004' },
    ], { HOME: home, NO_COLOR: '' });
  });

  after(() => fs.rmSync(home, { recursive: true, force: true }));

  it('types a whole session: define, run 1s, print a global, complete, err and recover, Ctrl-C a run', () => {
    expect(r.failed, r.screen).to.equal(null);
    expect(r.status).to.equal(0);
    expect(r.screen).to.contain('stap> probe kernel.function("vfs_readlink") { n++ }');
    expect(r.screen).to.match(/source: probe timer\.s\(1\) \{ n = \}/);
    // the parse error left the session as it was: the list has no `timer.s(1)` probe
    expect(r.screen).not.to.match(/^\d+: probe timer\.s\(1\)/m);
    expect(r.screen).to.match(/^\d: probe kernel\.function\("vfs_readlink"\) \{ n\+\+ \}$/m);
  });

  it('prompt comes back quickly after Enter on a new probe definition', () => {
    // the figure that counts is bench/repl.ts (in-process); this one includes the terminal
    expect(r.timings['probe definition']).to.be.below(1000);
  });

  it('colours the prompt on a terminal and writes the history file in $HOME', () => {
    expect(r.raw).to.contain('\x1b[1mstap> \x1b[0m');
    const hist = fs.readFileSync(path.join(home, '.tapsim_history'), 'utf8');
    expect(hist).to.contain('probe timer.ms(100) { n++ }\n');
    expect(hist).to.contain('probe begin { println("hi") }\n');
  });
});

function piped(input: string, args: string[] = [], env: Record<string, string> = {}): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [STAP, '-i', ...args], { input, encoding: 'latin1', timeout: 60000, env: { ...process.env, ...env } });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

describe('REPL with piped input', function () {
  this.timeout(60000);

  it('prints the transcript a person would see (prompts and input echoed)', () => {
    const r = piped([
      'global count, s', 'probe timer.ms(100) { count++; s <<< count }', 'run 1s', 'count * 2', 'globals',
      'probe end {', '  printf("end: %d\\n", count)', '}', 'run 500ms', 'list', 'delete 3', 'list', 'quit', 'list',
    ].join('\n') + '\n');
    expect(r.err).to.equal('');
    expect(r.status).to.equal(0);
    const body = r.out.split('\n').slice(2).join('\n');
    expect(body).to.equal([
      'stap> global count, s',
      '(2 added)',
      'stap> probe timer.ms(100) { count++; s <<< count }',
      'stap> run 1s',
      's @count=10 @min=1 @max=10 @sum=55 @avg=5', // write-only globals print at the end of a run, as stap does
      'stap> count * 2',
      '20',
      'stap> globals',
      'count=10',
      's @count=10 @min=1 @max=10 @sum=55 @avg=5',
      'stap> probe end {',
      'stap>>>   printf("end: %d\\n", count)',
      'stap>>> }',
      'stap> run 500ms',
      'end: 15',
      's @count=15 @min=1 @max=15 @sum=120 @avg=8',
      'stap> list',
      '1: global count',
      '2: global s',
      '3: probe timer.ms(100) { count++; s <<< count }',
      '4: probe end {',
      '     printf("end: %d\\n", count)',
      '   }',
      'stap> delete 3',
      'deleted probe timer.ms(100) { count++; s <<< count }',
      'stap> list',
      '1: global count',
      '2: global s',
      '3: probe end {',
      '     printf("end: %d\\n", count)',
      '   }',
      'stap> quit',
      '',
    ].join('\n'));
  });

  it('reports errors as stap does and goes on; redefinitions replace; reset clears globals', () => {
    const r = piped(['global x', 'x = 5', 'probe begin { x = "str" }', 'x', 'nosuchfn(1)', 'x + 1', 'function f(a) { return a * 2 }',
      'function f(a) { return a * 3 }', 'f(x)', 'function g() { println("in g") }', 'g()', 'reset', 'x',
      'probe begin { printf("target %d\\n", target() > 0) }', 'run -c "echo hi"', 'zap'].join('\n') + '\n');
    expect(r.status).to.equal(0);
    expect(r.err).to.contain("semantic error: type mismatch (long): identifier 'x' at <repl>:1:15");
    expect(r.out).to.contain('stap> x\n5\n');
    expect(r.err).to.contain('semantic error: unresolved function nosuchfn');
    expect(r.out).to.contain('stap> x + 1\n6\n');
    expect(r.out).to.contain('(1 replaced)\nstap> f(x)\n15\n');
    expect(r.out).to.contain('stap> g()\nin g\n');
    expect(r.out).to.contain('stap> reset\n(fresh kernel, machine and globals; the script is kept)\nstap> x\n0\n');
    expect(r.out).to.match(/stap> run -c "echo hi"\n(target 1\nhi|hi\ntarget 1)\n/);
    expect(r.err).to.contain('Undefined command: "zap". Try "help" or "?".\n');
    expect(r.err).not.to.match(/\n\s+at .*\.js:\d+/); // no JS stack traces
  });

  it('loads samples/repl-start.stp and explores the kernel with it', () => {
    const r = piped(['run 2s', 'ticks', 'probes kernel.function("vfs_read")', 'kernel kprobes', 'kernel tasks', 'save /dev/null'].join('\n') + '\n',
      [path.join(ROOT, 'samples', 'repl-start.stp')]);
    expect(r.err).to.equal('');
    expect(r.out).to.match(/\(loaded .*repl-start\.stp: 8 items\)/);
    expect(r.out).to.match(/stap> run 2s\n2 s so far, \d+ context switches\n/);
    expect(r.out).to.contain('stap> ticks\n2\n');
    expect(r.out).to.contain('kernel.function("vfs_read@fs/read_write.c:450")');
    expect(r.out).to.match(/# during the last run[^\n]*\n# \/sys\/kernel\/debug\/kprobes\/list\n[0-9a-f]+ {2}k {2}vfs_read\+0x0/);
    expect(r.out).to.match(/\n {4}1 {5}1 {5}0 +\d S {2}systemd\n/);
  });

  it('never fails on an unwritable history file', () => {
    const h = new History('/nonexistent-dir/sub/.tapsim_history');
    h.add('global x');
    expect(h.entries).to.deep.equal(['global x']);
  });
});

describe('REPL pieces', () => {
  it('knows when input is complete', () => {
    expect(isComplete('probe begin {')).to.equal(false);
    expect(isComplete('probe begin')).to.equal(false);
    expect(isComplete('probe begin { println("}") }')).to.equal(true);
    expect(isComplete('global x')).to.equal(true);
    expect(isComplete('printf("%d\\n",')).to.equal(false);
    expect(isComplete('probes kernel.function("vfs_rea*")')).to.equal(true);
    expect(isComplete('function f() %{ /* c */')).to.equal(false);
    expect(isComplete('x = "open')).to.equal(false);
  });

  it('splits declarations into items', () => {
    expect(splitDecls('global a probe begin { a = 1 } function f() { return 2 }'))
      .to.deep.equal(['global a', 'probe begin { a = 1 }', 'function f() { return 2 }']);
    expect(splitGlobals('global a, b[10], c = 5;')).to.deep.equal(['global a', 'global b[10]', 'global c = 5']);
    expect(splitDecls('probe kernel.function("x") { }')).to.have.length(1);
  });

  it('parses durations and quoted words', () => {
    expect(parseDuration('1s')).to.equal(1e9);
    expect(parseDuration('250ms')).to.equal(250e6);
    expect(parseDuration('2')).to.equal(2e9);
    expect(parseDuration('2m')).to.equal(120e9);
    expect(parseDuration('soon')).to.equal(null);
    expect(words(`-c 'cat /etc/passwd' 5s`)).to.deep.equal(['-c', 'cat /etc/passwd', '5s']);
  });

  it('latency: Enter on a new probe definition -> prompt <= 50 ms (median, in-process)', async function () {
    this.timeout(60000);
    const b = await benchRepl();
    const median = b['Enter on a new probe definition -> prompt, median ms (session growing to 22 items)'] as number;
    expect(median).to.be.at.most(50);
  });
});
