/**
 * stap's dead_assignment_remover: an assignment to a local or a function parameter that is
 * never read is elided, the warnings in the order one walk of the body meets them (real-stap
 * -v -p2 on each; oracle semantics whole:12).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { p2 } from '../helpers/p2';

/** The elision warnings of the CLI's -v -p2 (no message suppressed). */
function verboseWarnings(src: string): string[] {
  const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  const err = spawnSync(process.execPath, [cli, '-v', '-p2', '-e', src], { encoding: 'latin1', timeout: 90000 }).stderr;
  return err.split('\n').filter((l) => l.startsWith('WARNING: Eliding assignment')).map((w) => w.split("'")[1]);
}

const warnings = (src: string): string[] => p2(src).err.split('\n').filter((l) => l.startsWith('WARNING: Eliding assignment'));

describe('elaborate: dead assignments', () => {
  it('to a parameter never read, with any assignment operator', () => {
    expect(warnings('function f(a) { a <<< 1 } probe begin { f(1) }')).to.deep.equal(["WARNING: Eliding assignment to 'a': operator '<<<' at <input>:1:19"]);
    expect(warnings('function f(a) { a = 1 } probe begin { f(1) }')).to.deep.equal(["WARNING: Eliding assignment to 'a': operator '=' at <input>:1:19"]);
    expect(p2('function f(a) { a <<< 1; println(2) } probe begin { f(1) }').out).to.equal('# functions\nf:unknown (a:long)\n# probes\nbegin /* <- begin */\n');
    // (one that is read stays)
    expect(warnings('function f(a) { a = 2; return a } probe begin { println(f(1)) }')).to.deep.equal([]);
  });
  it('in the order of the body, not grouped by variable', () => {
    expect(verboseWarnings('function f(a) { b = 1; a = 2; b = 3 } probe begin { f(1) }')).to.deep.equal(['b', 'a', 'b']);
    expect(verboseWarnings('probe begin { b = 1; c = 2; b = 3; println(1) }')).to.deep.equal(['b', 'c', 'b']);
  });
});

describe('elaborate: a foreach with a limit of 0 or less', () => {
  it('goes after its body\'s dead code was said (real-stap -p2)', () => {
    const w = p2('global a probe begin { foreach (k in a limit 0) { y = "s" + 1 } println(2) }').err.split('\n').filter((l) => l.startsWith('WARNING'));
    expect(w).to.deep.equal([
      "WARNING: never-assigned global variable 'a' (similar: a): identifier 'a' at <input>:1:8",
      "WARNING: Eliding assignment to 'y': operator '=' at :1:53",
      "WARNING: Eliding side-effect-free expression : identifier 'y' at :1:51",
    ]);
    expect(p2('global a probe begin { foreach (k in a limit 0) { 1 + 2 } println(2) }').err).to.contain("Eliding side-effect-free expression : number '1' at :1:51");
  });
});
