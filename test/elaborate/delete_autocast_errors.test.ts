/**
 * Two pass-2 messages as stap 4.8 words and orders them (real-stap -p2 on each; oracle sweep
 * lv:defined:del, lvf:defined:del, corners addr:7, addr:16):
 * - `delete EXPR` walks EXPR's names first: one it cannot find is an unresolved array;
 * - an autocast (`->`, `[]`, `&`) of a mistyped operand cannot be dereferenced, said before the mismatch.
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

const errors = (src: string): string[] => p2(src).err.split('\n').filter((l) => l.startsWith('semantic error')).map((l) => l.replace('semantic error: ', ''));

describe('elaborate: delete operands and autocasts of mistyped operands', () => {
  it('delete: a name not found in the operand is an unresolved array', () => {
    expect(errors('probe begin {  delete @defined(x); println(1) }')).to.deep.equal(["unresolved array in delete statement: identifier 'x' at <input>:1:32"]);
    expect(errors('function h() {  delete @defined(x); println(1) } probe begin { h() }')).to.deep.equal(["unresolved array in delete statement: identifier 'x' at <input>:1:33"]);
    expect(errors('global a probe begin { delete a[1]+x; println(1) }')).to.deep.equal(["unresolved array in delete statement: identifier 'x' at <input>:1:36"]);
    expect(errors('probe begin { delete x . y; println(1) }')).to.deep.equal(["unresolved array in delete statement: identifier 'x' at <input>:1:22"]);
    expect(errors('probe begin { delete -x; println(1) }')).to.deep.equal(["unresolved array in delete statement: identifier 'x' at <input>:1:23"]);
    // (an operand with no unknown name is refused as before)
    expect(errors('probe begin { delete @defined($x); println(1) }')).to.deep.equal(["invalid operand of delete expression: operator '@defined' at <input>:1:22"]);
    expect(errors('probe begin { delete 1; println(1) }')).to.deep.equal(["invalid operand of delete expression: number '1' at <input>:1:22"]);
  });
  it('an autocast of a string: unknown type in dereference, then the mismatch', () => {
    expect(errors('probe begin { x = &"s"; println(x) }')).to.deep.equal([
      "unknown type in dereference: operator '&' at <input>:1:19", "type mismatch: expected long but found string: string 's' at :1:20"]);
    expect(errors('probe begin { x = "s"->a; println(x) }')).to.deep.equal([
      "unknown type in dereference: operator '->' at <input>:1:22", "type mismatch: expected long but found string: string 's' at :1:19"]);
    expect(errors('probe begin { x = "s"[1]; println(x) }')[0]).to.equal("unknown type in dereference: operator '[' at <input>:1:22");
    expect(errors('probe begin { s = "a"; x = s->a; println(x) }')).to.deep.equal([
      "unknown type in dereference: operator '->' at <input>:1:29", "type mismatch (long): identifier 's' at :1:28",
      "type was first inferred here (string): identifier 's' at :1:15"]);
  });
});
