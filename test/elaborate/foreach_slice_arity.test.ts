/**
 * `foreach ([k...] in a[slice])` with a slice of another length than the keys: stap 4.8 looks
 * the array up again with the slice's length, by the name it resolved to (a global's mangled
 * `__global_NAME`), and fails; an array it could not resolve at all was said already, alone
 * (real-stap -p2 on each; oracle semantics body:47).
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

const errors = (src: string): string[] => p2(src).err.split('\n').filter((l) => l.startsWith('semantic error')).map((l) => l.replace('semantic error: ', ''));

describe('elaborate: a foreach slice of the wrong length', () => {
  it('names the global by its mangled name and the slice\'s arity', () => {
    expect(errors('global m2 probe begin { m2[1, "a"] = 1; foreach ([a, b] in m2[1, 2, 3]) println(a, b) }'))
      .to.deep.equal(["unresolved arity-3 global array __global_m2, missing global declaration?: identifier 'm2' at <input>:1:60"]);
    expect(errors('global m2 probe begin { m2[1, "a"] = 1; foreach ([a, b] in m2[1]) println(a, b) }'))
      .to.deep.equal(["unresolved arity-1 global array __global_m2, missing global declaration?: identifier 'm2' at <input>:1:60"]);
  });
  it('an undeclared array: the keys\' arity, once', () => {
    expect(errors('probe begin { foreach ([a, b] in m2[1, 2, 3]) println(a, b) }'))
      .to.deep.equal(["unresolved arity-2 global array m2, missing global declaration?: identifier 'm2' at <input>:1:34"]);
  });
});
