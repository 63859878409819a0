/**
 * An @var that cannot be resolved, in a context that gives it no type (a print's or a
 * function's argument, an assignment's value), is said once more before the asserting pass, as
 * stap 4.8 does; in a typed context (`@var("x") + 1`, a condition, printf's %d) once (real-stap -v -p2
 * on each; oracle sweep compat:9, compat:10).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

function errors(src: string): string[] {
  const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  const err = spawnSync(process.execPath, [cli, '-v', '-p2', '-e', src], { encoding: 'latin1', timeout: 90000 }).stderr;
  return err.split('\n').filter((l) => l.startsWith('semantic error')).map((l) => l.replace(/^semantic error: /, '').replace(/: (operator|identifier) '[^']*' at (<input>)?/, ' '));
}

const AT = 'unresolved @var() expression';

describe('elaborate: an untyped unresolved @var is said again before the asserting pass', () => {
  it('in a print, a call, an assignment', () => {
    expect(errors('probe begin { println(@var("x")) }')).to.deep.equal([`${AT} :1:23`, `${AT} :1:23`, 'unresolved type  :1:23', 'unresolved type  :1:15']);
    expect(errors('probe begin { println(@var("x")); println(@var("y")) }').slice(0, 3)).to.deep.equal([`${AT} :1:23`, `${AT} :1:43`, `${AT} :1:23`]);
    expect(errors('function f(a) { return a } probe begin { println(f(@var("x"))) }').slice(0, 3)).to.deep.equal([`${AT} :1:52`, 'unresolved type  :1:24', `${AT} :1:52`]);
    expect(errors('probe begin { x = @var("x"); println(x) }').slice(0, 3)).to.deep.equal([`${AT} :1:19`, 'unresolved type  :1:15', `${AT} :1:19`]);
  });
  it('once where the context types it', () => {
    expect(errors('probe begin { y = @var("x") + 1; println(y) }')).to.deep.equal([`${AT} :1:19`]);
    expect(errors('probe begin { printf("%d", @var("x")) }')).to.deep.equal([`${AT} :1:28`]);
    expect(errors('probe begin { if (@var("x")) println(1) }')).to.deep.equal([`${AT} :1:19`]);
  });
});
