/**
 * Issue 16's behaviours, run through the `stap` command as a user runs them.  Where each
 * expected value comes from is said at each test: /work/shared/tools/real-stap (stap 4.8,
 * passes 1-2), stap 4.8's tapset and runtime sources (/usr/share/systemtap/), or stap(1).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function stap(args: string[], input = ''): { out: string; err: string; code: number } {
  const r = spawnSync(process.execPath, [cli, ...args], { input, encoding: 'latin1', timeout: 60000 });
  return { out: r.stdout, err: r.stderr, code: r.status ?? -1 };
}

describe('issue 16 behaviours (stap command)', function () {
  this.timeout(120000);

  it('@probewrite(var) in an alias epilogue: whether the probe body writes var', () => {
    // stap(1) "probe aliases" / docs/stap-spec.md: 1 when the handler the alias wraps assigns,
    // increments or deletes var, else 0
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-pw-'));
    const f = path.join(dir, 'pw.stp');
    fs.writeFileSync(f, [
      'global x, y',
      'probe foo = begin { }, { printf("x %d y %d\\n", @probewrite(x), @probewrite(y)) }',
      'probe foo { x = 1 }',
      'probe foo { y++ }',
      'probe foo { println(x + y) }',
      'probe foo { delete x; exit() }',
    ].join('\n') + '\n');
    const r = stap([f]);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(r.err).to.equal('');
    expect(r.out).to.equal('x 1 y 0\nx 0 y 1\n2\nx 0 y 0\nx 1 y 0\n');
  });

  it('an elided empty probe is named by its first functor; equal names are one warning', () => {
    // real-stap -p2 -e 'probe timer.ms(5) {} probe timer.s(1) {} probe timer.jiffies(3) {} probe begin {} probe begin(2) {}'
    // (stap 4.8; its Debian wrapper's closing "Tip:" line left out)
    const src = 'probe timer.ms(5) {} probe timer.s(1) {} probe timer.jiffies(3) {} probe begin {} probe begin(2) {}';
    const r = stap(['-p2', '-e', src]);
    expect(r.code).to.equal(1);
    expect(r.err).to.equal(
      "WARNING: Probe 'timer' has been elided: keyword at <input>:1:1\n" +
      ` source: ${src}\n` +
      '         ^\n' +
      "WARNING: Probe 'begin' has been elided: keyword at :1:68\n" +
      ` source: ${src}\n` +
      ' '.repeat(76) + '^\n' +
      'semantic error: no probes found\n\n' +
      'Pass 2: analysis failed.  [man error::pass2]\n' +
      'Number of similar warning messages suppressed: 3.\n' +
      'Rerun with -v to see them.\n');
  });

  it('@probewrite outside an alias epilogue is refused as stap 4.8 does', () => {
    // real-stap -p2 -e 'global x probe begin { println(@probewrite(x)) }'
    const r = stap(['-p2', '-e', 'global x probe begin { println(@probewrite(x)) }']);
    expect(r.code).to.equal(1);
    expect(r.err).to.equal(
      "semantic error: unexpected @probewrite: operator '@probewrite' at <input>:1:32\n" +
      '        source: global x probe begin { println(@probewrite(x)) }\n' +
      '                                               ^\n\n' +
      // (stap ends there with the error's text, no Pass 2 line; in a function it is an error as others)
      'unexpected @probewrite\n');
  });

  it('input.line: stapio copies stdin to the module; lines arrive with their newline', () => {
    // stap 4.8's tapset/input.stp (procfs("__stdin").write, `line` keeps its "\n"); the alias's
    // private global lives in the tapset file, not in the user's script
    const r = stap(['-e', 'probe input.line { printf("line: %s", line); if (line == "quit\\n") exit() } probe end { println("end") }'],
      'ab\ncd\nquit\nzz\n');
    expect(r.err).to.equal('');
    expect(r.out).to.equal('line: ab\nline: cd\nline: quit\nend\n');
  });

  it('input.char: one byte per probe hit; -l lists the input aliases', () => {
    const r = stap(['-e', 'probe input.char { printf("[%s]", char); if (char == "q") exit() }'], 'a\nbq');
    expect(r.out).to.equal('[a][\n][b][q]');
    // real-stap -l 'input.*'
    expect(stap(['-l', 'input.*']).out).to.equal('input.char\ninput.line\n');
  });

  it('unspecified process probes: stap\'s -c/-x checks come before user space', () => {
    // real-stap -p2 -e 'probe process.function("foo") {}' (with and without -c 'ls || true')
    const head = "semantic error: while resolving probe point: identifier 'process' at <input>:1:7\n" +
      '        source: probe process.function("foo") {}\n' +
      '                      ^\n\n';
    let r = stap(['-p2', '-e', 'probe process.function("foo") {}']);
    expect(r.code).to.equal(1);
    expect(r.err).to.equal(head +
      'semantic error: unspecified process probe is invalid without a -c COMMAND or -x PID [man stapprobes]\n\n' +
      'Pass 2: analysis failed.  [man error::pass2]\n');
    r = stap(['-p2', '-c', 'ls || true', '-e', 'probe process.function("foo") {}']);
    expect(r.err).to.equal(head +
      'semantic error: invalid -c command for unspecified process probe [man stapprobes]\n\n' +
      'semantic error: command contains illegal characters\n\n' +
      'Pass 2: analysis failed.  [man error::pass2]\n');
  });

  it('process probes on a real target say that user space is not modelled', () => {
    const r = stap(['-p2', '-e', 'probe process("/bin/ls").function("main") {}']);
    expect(r.code).to.equal(1);
    expect(r.err).to.contain('semantic error: process probes are not available: tapsim does not model user space yet');
  });

  it('task_parent(task_current())->tgid: the parent task carries its type (stap(1) example)', () => {
    // stap 4.8's task_parent returns @task(task)->real_parent, so `->tgid` resolves; it is ppid()
    const r = stap(['-e', 'probe syscall.read { printf("%d %d\\n", task_parent(task_current())->tgid, ppid()); exit() }']);
    expect(r.err).to.equal('');
    const [a, b] = r.out.trim().split(' ');
    expect(a).to.equal(b);
  });

  it('print_ubacktrace() without unwind data: the runtime\'s warning', () => {
    // stap 4.8 runtime/unwind.c: _stp_warn("Missing unwind data for a module, rerun with 'stap -d %s'")
    const r = stap(['-e', 'probe syscall.read { print_ubacktrace(); printf("%s\\n", execname()); exit() }']);
    const m = /^WARNING: Missing unwind data for a module, rerun with 'stap -d (\/\S+)'\n$/.exec(r.err);
    expect(m, r.err).to.not.equal(null);
    expect(path.basename(m![1])).to.equal(r.out.trim());
  });

  it('kernel.data: pass 2 and -l as stap 4.8; registration fails without debug registers', () => {
    // (the local caching pp(), a stable function: real-stap -p2 lists it too)
    const STABLE_PP = '  # locals\n  __stable___global_pp__overload_0_value:string\n';
    // real-stap -p2 / -l with a kernel tree whose .config has CONFIG_PERF_EVENTS and
    // CONFIG_HAVE_HW_BREAKPOINT: the point carries .length(1) by default, addresses in hex
    let r = stap(['-p2', '-e', 'probe kernel.data("pid_max").rw, kernel.data(4660).write { println(pp()) }']);
    expect(r.out).to.equal('# functions\npp:string ()\n# probes\n' +
      'kernel.data("pid_max").length(1).rw /* <- kernel.data("pid_max").rw */\n' + STABLE_PP +
      'kernel.data(0x1234).length(1).write /* <- kernel.data(0x1234).write */\n' + STABLE_PP);
    expect(stap(['-l', 'kernel.data("pid_max").write']).out).to.equal('kernel.data("pid_max").write\n');
    r = stap(['-p2', '-e', 'probe kernel.data("pid_max").write { println($value) }']);
    expect(r.code).to.equal(1);
    expect(r.err).to.contain("semantic error: unresolved target-symbol expression: identifier '$value' at <input>:1:46");
    // the module's registration code (real-stap -p3): an unknown symbol is skipped with a
    // warning; a failed register_wide_hw_breakpoint warns, then fails the start
    r = stap(['-e', 'probe kernel.data("no_such_symbol_x").write { println(1) } probe begin { println("up"); exit() }']);
    expect(r.err).to.equal('WARNING: Probe kernel.data("no_such_symbol_x").length(1).write registration skipped: invalid symbol no_such_symbol_x \n');
    expect(r.out).to.equal('up\n');
    r = stap(['-e', 'probe kernel.data("pid_max").write { println(1) } probe begin { println("up"); exit() }']);
    expect(r.code).to.equal(1);
    expect(r.err).to.contain('WARNING: Hwbkpt probe kernel.data("pid_max").length(1).write: registration error [man warning::pass5] -19, addr 0000000000000000, name pid_max\n');
    expect(r.err).to.contain('ERROR: probe kernel.data("pid_max").length(1).write registration error [man warning::pass5] (rc -19)\n');
  });

  it('@defined of an expression without target variables is 0 (a plain local included)', () => {
    // real-stap -p3 -e 'probe begin { x = 1; println(@defined(x)) }': the generated C prints
    // ((int64_t)0LL); only target expansion ($var, @cast, @var) makes a @defined 1
    const r = stap(['-w', '-e', 'probe begin { x = 1; println(@defined(x)); println(@defined(1)); println(@defined(@cast(0, "task_struct")->pid)); exit() }']);
    expect(r.out).to.equal('0\n0\n1\n');
  });

  it('tokenize() and the last regex match are per CPU: they carry over to the next probe on the same CPU', () => {
    // stap 4.8 keeps tok_str/tok_start and last_match in each CPU's struct context
    // (runtime/common_probe_context.h), allocated zeroed and not reset at probe entry
    // (tapset/tokenize.stp, tapset/regex.stp): begin probes run one after another on one CPU;
    // a CPU that never tokenized gets "" and one that never matched has no match to read
    const r = stap(['-e', [
      'global seen',
      'probe begin { println(tokenize("a b c", " ")); if ("xay" =~ "x(a)y") println(matched(1)) }',
      'probe begin { println(tokenize(" ")) }',
      'probe timer.profile { if (seen[cpu()]++) next; if (cpu() == 0) printf("cpu0 [%s] [%s]\\n", tokenize(" "), matched_str());',
      '  else { printf("cpu%d [%s]\\n", cpu(), tokenize(" ")); exit() } }',
    ].join('\n')]);
    expect(r.out).to.match(/^a\na\nb\n/);
    expect(r.out).to.contain('cpu0 [c] [xay]\n');
    expect(r.out).to.match(/cpu[1-9]\d* \[\]\n$/);
    expect(r.err).to.equal('');
  });

  it('--compatible picks the tapset functions of that version, and their runtime behaviour', () => {
    // tapset/string.stp (stringat: 0 outside the string before 2.3, else an error) and
    // tapset/uconversions.stp (user_string_n_quoted: its runtime conversion before 3.0, with
    // "NULL"/<unknown> before 2.3; a script on user_string_n from 3.0; user_string_warn: warn_msg
    // "<unknown>" before 2.3, else "")
    const script = 'probe begin { println(user_string_n_quoted(0, 10)); println(user_string_warn(0)); println(stringat("abc", 5)); exit() }';
    const old = stap(['--compatible=2.2', '-e', script]);
    expect(old.out).to.equal('NULL\n<unknown>\n0\n');
    expect(old.err).to.equal('WARNING: user string copy fault -14 at 0x0 [man error::fault]\n');
    expect(stap(['--compatible=2.3', '-e', script.replace('stringat("abc", 5)', '1')]).out).to.equal('(null)\n\n1\n');
    const now = stap(['-e', script]);
    expect(now.out).to.equal('0x0\n\n');
    expect(now.err).to.contain("ERROR: Position out of bounds near identifier 'stringat' at <input>:1:");
    // real-stap -p2: user_string_n_quoted(a, n) reaches the 3-argument one (and what it calls)
    expect(stap(['--compatible=2.9', '-p2', '-e', 'probe begin { println(user_string_n_quoted(0, 10)) }']).out)
      .to.equal('# functions\nuser_string_n_quoted:string (addr:long, n:long)\nuser_string_n_quoted:string (addr:long, inlen:long, outlen:long)\n# probes\nbegin /* <- begin */\n');
  });

  it('@MAXSTRINGLEN is @const("MAXSTRINGLEN"): guru mode in a script, the session\'s limit', () => {
    // tapset/macros.stpm; real-stap -p1 without -g: "using @const operator not permitted"
    expect(stap(['-p1', '-e', 'probe begin { println(@MAXSTRINGLEN) }']).err)
      .to.match(/^parse error: using @const operator not permitted; need stap -g\n/);
    expect(stap(['-g', '-e', 'probe begin { println(@MAXSTRINGLEN); exit() }']).out).to.equal('512\n');
    expect(stap(['-g', '-DMAXSTRINGLEN=100', '-e', 'probe begin { println(@MAXSTRINGLEN); exit() }']).out).to.equal('100\n');
  });

  it('after an error pass 2 goes on as stap does (real-stap -v)', () => {
    const errors = (args: string[]): string[] => stap(['-p2', '-v', ...args]).err.split('\n').filter((l) => l.startsWith('semantic error'));
    // an error ends its statement, not its block; a chained error is shown the first time only
    expect(errors(['-e', 'global ar\nprobe begin { ar[1] = 2; if (1) { x = ar; y = ar } z = ar; println(x + y + z) }'])).to.deep.equal([
      "semantic error: inconsistent arity (1 vs 0): identifier 'ar' at <input>:2:39",
      "semantic error: arity 1 first inferred here: identifier 'ar' at :2:15",
      "semantic error: inconsistent arity (1 vs 0): identifier 'ar' at :2:47",
      "semantic error: inconsistent arity (1 vs 0): identifier 'ar' at :2:56",
    ]);
    expect(errors(['-e', 'probe begin { x = 1; y = 1; x = "a"; y = "b"; println(x, y) }'])).to.deep.equal([
      "semantic error: type mismatch (string): identifier 'x' at <input>:1:29",
      "semantic error: type was first inferred here (long): identifier 'x' at :1:15",
      "semantic error: type mismatch (string): identifier 'y' at :1:38",
    ]);
    // an unresolved target expression is reported by the last (asserting) pass of type
    // resolution, in the order of the body with the unresolved types; after a mismatch, the
    // mismatches alone
    expect(errors(['-e', 'probe begin { x = $ctx; y = $b; println(x, y) }'])).to.deep.equal([
      "semantic error: unresolved type : identifier 'x' at <input>:1:15",
      "semantic error: unresolved target-symbol expression: identifier '$ctx' at :1:19",
      "semantic error: unresolved type : identifier 'y' at :1:25",
      "semantic error: unresolved target-symbol expression: identifier '$b' at :1:29",
      "semantic error: unresolved type : identifier 'x' at :1:41",
      "semantic error: unresolved type : identifier 'x' at :1:41",
      "semantic error: unresolved type : identifier 'y' at :1:44",
      "semantic error: unresolved type : identifier 'y' at :1:44",
      "semantic error: unresolved type : identifier 'println' at :1:33",
      "semantic error: unresolved type : identifier 'x' at :1:15",
      "semantic error: unresolved type : identifier 'y' at :1:25",
    ]);
    expect(stap(['-p2', '-e', 'probe begin { println($ctx); println(1 + "a") }']).err.split('\n').filter((l) => l.startsWith('semantic error')))
      .to.deep.equal(["semantic error: type mismatch: expected long but found string: string 'a' at <input>:1:42"]);
  });

  it('-u still folds dead code before the types are asserted, and keeps its locals', () => {
    // real-stap -u -p2: no error for the target expression in if (0); y keeps its type
    const r = stap(['-u', '-p2', '-e', 'probe begin { if (0) { println($nosuch) } println(2) }']);
    expect([r.code, r.err, r.out]).to.deep.equal([0, '', '# probes\nbegin /* <- begin */\n']);
    expect(stap(['-u', '-p2', '-e', 'probe begin { if (0) { y = 1 } println(2) }']).out)
      .to.equal('# probes\nbegin /* <- begin */\n  # locals\n  y:long\n');
    expect(stap(['-u', '-p2', '-e', 'probe begin { if (0) { x = $nosuch } println(2) }']).err)
      .to.match(/^semantic error: unresolved type : identifier 'x' at <input>:1:24\n/);
  });

  it('stapio is the child of the stap process, both on the terminal: pexecname() is "stap", ps lists them', () => {
    // as on a real box: stap forks staprun, which execs stapio and loads the module; stapio's -c child
    const begin = stap(['-e', 'probe begin { printf("%s %s %d\\n", execname(), pexecname(), ppid() == pid() - 1); exit() }']);
    expect(begin.out).to.equal('stapio stap 1\n');
    const r = stap(['--seed', '1', '-c', 'ps -o pid,ppid,tty,args', '-e', 'global n probe kernel.function("vfs_read") { n++ } probe end { println(n > 0) }']);
    expect(r.err).to.equal('');
    const rows = r.out.split('\n').filter((l) => /stap|ps -o/.test(l)).map((l) => l.trim().split(/\s+/));
    expect(rows.map((x) => x.slice(2, 4).join(' '))).to.deep.equal(['pts/0 stap', 'pts/0 /usr/libexec/systemtap/stapio', 'pts/0 ps']);
    expect(rows[1][1]).to.equal(rows[0][0]);
    expect(rows[2][1]).to.equal(rows[1][0]);
    // (the command line as stap got it, cut at ps's 80 columns without a terminal)
    expect(r.out).to.contain(' pts/0    stap --seed 1 -c ps -o pid,ppid,tty,args -e global n pr\n');
  });

  it('a listing refuses another last pass, in either order (-p5, the default, is allowed), as stap 4.8', () => {
    // real-stap: 'stap -p1 -l begin', 'stap -L begin -p3', 'stap -p4 --dump-probe-types' (and -i -l with -p1: parseko/cmdline25)
    const msg = "Cannot specify -p with -l/-L/--dump-* switches.\nTry '--help' for more information. [man stap]\nA message like [man foo] means for more info, run % man foo\n";
    for (const args of [['-p1', '-l', 'begin'], ['-L', 'begin', '-p3'], ['-p4', '--dump-probe-types'], ['-p1', '-i', '-l', 'begin']]) {
      const r = stap(args);
      expect(r.err, args.join(' ')).to.equal(msg);
      expect(r.code).to.equal(1);
    }
    const ok = stap(['-p5', '-l', 'begin']);
    expect([ok.out, ok.code]).to.deep.equal(['begin\n', 0]);
  });
});
