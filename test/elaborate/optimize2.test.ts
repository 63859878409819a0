/**
 * Pass 2 after type resolution, as stap 4.8 does it: constant folding (elaborate.cxx
 * const_folder) and what it leaves unused, and the listing of the locals that cache calls of
 * `stable` tapset functions.  Every expected text was checked against real SystemTap 4.8
 * (../shared/tools/real-stap -p2); the oracle table test/oracle/corners.json holds more.
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { p2 } from '../helpers/p2';

/** stap -p2 of the CLI (with the kernel's probe families), stderr. */
function kernelP2(src: string): string {
  const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  return spawnSync(process.execPath, [cli, '-p2', '-e', src], { encoding: 'latin1', timeout: 90000 }).stderr;
}

describe('elaborate: constant folding after types (stap optimize2)', () => {
  it('an if (0) body is typed, then dropped; a probe left empty is elided', () => {
    expect(p2('probe begin { x = 1; if (0) { x = "a" } println(x) }').err).to.contain('type mismatch (string)');
    const r = p2('probe begin { if (0) println(1) }');
    expect(r.err).to.contain("WARNING: Probe 'begin' has been elided");
    expect(r.err).to.contain('semantic error: no probes found');
    // a global only the dead code assigned stays, typed, without a warning
    expect(p2('global g probe begin { if (0) { g = 1 } println(g) }')).to.deep.equal({ out: '# globals\ng:long\n# probes\nbegin /* <- begin */\n', err: '' });
  });

  it('folds before asserting unresolved types: a name only dead code uses is no error, a mismatch is', () => {
    // (real-stap -p2: each passes, with the never-assigned warning, but the last two)
    for (const src of [
      'probe begin { if (0) println(y); println(2) }',
      'probe begin { if (1 == 1) println(1) else println(y) }',
      'function f() { if (0) println(y); return 1 } probe begin { println(f()) }',
      'global g; probe begin { if (0) println(g); println(1) }',
      'global a probe begin { foreach (k in a limit -1) { println(k) } println(2) }',
    ]) expect(p2(src).err, src).to.not.contain('error');
    expect(p2('probe begin { println(1 ? 2 : "a") }').err).to.contain("type mismatch: expected long but found string: string 'a'");
    expect(p2('probe begin { if (0) println(y); println(2) }', true).err).to.contain('unresolved type');
  });

  it('@defined of a plain variable folds to 0 after the first look for never-assigned variables', () => {
    // (real-stap -p2: the warning for x, no elision warnings, no locals left)
    expect(p2('probe begin { println(@defined(x)) }')).to.deep.equal({
      out: '# probes\nbegin /* <- begin */\n',
      err: "WARNING: never-assigned local variable 'x': identifier 'x' at <input>:1:32\n source: probe begin { println(@defined(x)) }\n" +
        '                                        ^\n',
    });
    expect(p2('probe begin { x = 1; println(@defined(x)) }')).to.deep.equal({ out: '# probes\nbegin /* <- begin */\n', err: '' });
  });

  it('says which probes were elided after the side-effect-free functions (real-stap -p2)', () => {
    const warnings = (src: string): string[] => p2(src).err.split('\n').filter((l) => l.startsWith('WARNING'));
    expect(warnings('function f() { } function g() {} probe begin { f() } probe end { g() }')).to.deep.equal([
      "WARNING: Eliding side-effect-free expression : identifier 'f' at <input>:1:48",
      "WARNING: side-effect-free function 'f': identifier 'f' at :1:10",
      "WARNING: side-effect-free function 'g': identifier 'g' at :1:27",
      "WARNING: Probe 'begin' has been elided: keyword at :1:34",
      "WARNING: Probe 'end' has been elided: keyword at :1:54",
    ]);
  });

  it('an unresolved foreach array is not similar to an unresolved index (real-stap -p2)', () => {
    const errors = p2('probe begin { a[1]=1; foreach ([k] in a limit 1) println(k) }').err.split('\n').filter((l) => l.startsWith('semantic error'));
    expect(errors).to.deep.equal([
      "semantic error: unresolved arity-1 global array a, missing global declaration?: identifier 'a' at <input>:1:15",
      "semantic error: unresolved arity-1 global array a, missing global declaration?: identifier 'a' at :1:39",
    ]);
  });

  it('operands an absorbing literal makes useless go, with their variables and functions', () => {
    expect(p2('function f() { return 1 } probe begin { x = 0 * f(); println(x) }').out)
      .to.equal('# probes\nbegin /* <- begin */\n  # locals\n  x:long\n');
    expect(p2('probe begin { y = 1; x = (0 ? y : 2) && 1; println(x) }').out)
      .to.equal('# probes\nbegin /* <- begin */\n  # locals\n  x:long\n');
  });

  it('the dead part is not checked: >>> and nested statistics operators', () => {
    expect(p2('probe begin { if (0) { println(3 >>> 1) } println(2) }').err).to.equal('');
    expect(p2('probe begin { x = 3 >>> 1; println(x) }').err).to.contain('unsupported binary operator >>>');
  });

  it('foreach with a literal limit <= 0 goes before types; an empty if only on a second pass', () => {
    expect(p2('global a probe begin { foreach (k in a limit 0) { println(k) } println(1) }').err).to.not.contain('error');
    expect(p2('probe begin { x = 1; if (x) {} }').out).to.equal('# probes\nbegin /* <- begin */\n  # locals\n  x:long\n');
    expect(p2('probe begin { x = 1; if (x) { 1 } }').err).to.contain('no probes found');
  });

  it('-u folds nothing', () => {
    expect(p2('probe begin { if (0) println(1) }', true).out).to.equal('# probes\nbegin /* <- begin */\n');
  });
});

describe('elaborate: stable function calls', () => {
  it('lists a __stable_ local per stable function called, after the own locals, not with -u', () => {
    expect(p2('probe begin { x = 1; println(pp(), x); print(execname(), pp(), pid()) }').out).to.equal([
      '# functions', 'execname:string ()', 'pid:long ()', 'pp:string ()', '# probes', 'begin /* <- begin */', '  # locals', '  x:long',
      '  __stable___global_pp__overload_0_value:string', '  __stable___global_execname__overload_0_value:string', '',
    ].join('\n'));
    expect(p2('function f() { return uid() } probe begin { println(f()) }').out).to.contain('f:long ()\n  # locals\n  __stable___global_uid__overload_0_value:long\n');
    expect(p2('probe begin { println(pp()) }', true).out).to.not.contain('__stable');
  });
});

describe('elaborate: the operand of delete (stap 4.8 checks it at type resolution)', () => {
  it('a plain expression is refused after the optimizer\'s warnings; a call is resolved first', () => {
    // (real-stap -p2, each line as printed; test/oracle/semantics.json body:80-83 and sweep lv:*:del hold more)
    expect(p2('probe begin { x = 1; delete 1 }').err.split('\n').filter((l) => /^(WARNING|semantic error)/.test(l))).to.deep.equal([
      "WARNING: Eliding assignment to 'x': operator '=' at <input>:1:17",
      "WARNING: Eliding side-effect-free expression : identifier 'x' at :1:15",
      "semantic error: invalid operand of delete expression: number '1' at :1:29",
    ]);
    expect(p2('probe begin { delete f() }').err).to.match(/^semantic error: unresolved function f \(similar: [^)]*\): identifier 'f' at <input>:1:22\n/);
    expect(p2('global st probe begin { st <<< 1; delete @count(st) }').err)
      .to.match(/^semantic error: invalid operand of delete expression: operator '@count' at <input>:1:42\n/);
    // an autocast too (`&x`, `ar[1][2]`), without being typed first
    expect(p2('probe begin { x = 1; y = 2; delete &x }').err.split('\n').filter((l) => /^(WARNING|semantic error)/.test(l))).to.deep.equal([
      "WARNING: Eliding assignment to 'y': operator '=' at <input>:1:24",
      "WARNING: Eliding side-effect-free expression : identifier 'y' at :1:22",
      "semantic error: invalid operand of delete expression: operator '&' at :1:36",
    ]);
    expect(p2('global ar probe begin { ar[1] = 1; delete ar[1][2] }').err)
      .to.match(/^semantic error: invalid operand of delete expression: operator '\[' at <input>:1:48\n/);
  });
});

describe('elaborate: statements that only read $vars, @cast, @var (issue 16)', function () {
  this.timeout(60000);
  it('are side-effect-free: dropped, and a pure function called on a $var with them', () => {
    // (real-stap -p2 on process("t").function("foo") of a C file built with -g, through
    // REAL_STAP_TREE: "Eliding side-effect-free expression : identifier '$cmd'", the same for
    // `$cmd->dir;`, `@cast($cmd, "cmd", "t")->dir;`, `@var("cmd");`, and `x = f($cmd)` with f
    // reading a member the type lacks elides x, then f($cmd), without reporting f's @cast)
    expect(kernelP2('probe kernel.function("vfs_read") { $file; println(1) }')).to.contain("WARNING: Eliding side-effect-free expression : identifier '$file' at <input>:1:37");
    expect(kernelP2('probe kernel.function("vfs_read") { @cast($file, "file", "kernel")->f_flags; println(1) }'))
      .to.contain("WARNING: Eliding side-effect-free expression : operator '@cast'");
    const f = kernelP2('function f:long(c:long) { return @cast(c, "file", "kernel")->no_such_member }\n'
      + 'probe kernel.function("vfs_read") { x = f($file); println(1) }');
    expect(f).to.contain("WARNING: Eliding assignment to 'x'");
    expect(f).not.to.contain('error');
    // an assignment to a $var (guru) stays
    expect(kernelP2('probe kernel.function("vfs_read") { $count = 1; println(1) }')).not.to.contain('Eliding side-effect-free');
  });
});

describe('elaborate: an alias over its own wildcard (issue 16)', () => {
  it('whose sub-aliases all resolve nothing is no match, not a loop (stap 4.8\'s scsi.ioentry = scsi.ioentry.* ? on 6.1)', () => {
    // (real-stap -p2: "semantic error: no match" at the use, nothing about a recursive loop)
    const src = 'probe foo.a = kernel.function("no_such_fn_q") !, kernel.function("no_such_fn_r") ? { }\n'
      + 'probe foo.b = kernel.function("no_such_fn_s") ? { }\nprobe foo = foo.* ? { x = 1 }\nprobe foo { println(x) }\n';
    const r = p2(src);
    expect(r.err).to.contain('semantic error: no match');
    expect(r.err).not.to.contain('recursive loop');
  });
});
