/**
 * An error found while the types are being inferred (a print with the wrong number of arguments,
 * like a mismatch) ends pass 2 without the asserting pass: nothing is said of what is left
 * unresolved, in that probe or another (real-stap -v -p2 on each; oracle formats misc:25).
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

const errors = (src: string): string[] => p2(src).err.split('\n').filter((l) => l.startsWith('semantic error')).map((l) => l.split(': ')[1]);

describe('elaborate: an error while inferring types leaves the unresolved unsaid', () => {
  it('in the same probe, another probe, or a function', () => {
    for (const src of [
      'probe begin { x = sprintf("%d"); println(x) }',
      'probe begin { println(x); x = sprintf("%d") }',
      'probe begin { println(y) } probe end { z = sprintf("%d"); println(z) }',
      'function f() { x = sprintf("%d"); return x } probe begin { println(f()) }',
      'probe begin { if (1) { x = sprintf("%d") } println(x) }',
    ]) expect(errors(src), src).to.deep.equal(['Wrong number of args to formatted print operator']);
  });
  it('without one, the unresolved are said', () => {
    expect(errors('probe begin { x = sprintf("%d", 1); println(y) }')).to.include('unresolved type ');
  });
});
