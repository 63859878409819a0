/**
 * Writes through @cast and @var without -g end pass 2 before the optimiser, as stap 4.8's
 * expanders refuse them: one error a probe body (its first @cast write before its first @var
 * write), dead code included, then the functions the other probes reach; no warning before and
 * no unresolved type after (every expected text checked with real-stap -p2; oracle sweep lve:*).
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

const errors = (src: string): string[] => p2(src).err.split('\n').filter((l) => l.startsWith('semantic error') || l.startsWith('WARNING'));
const VAR = 'semantic error: write to @var variable not permitted; need stap -g: operator \'@var\' at ';
const CAST = 'semantic error: write to @cast context variable not permitted; need stap -g: operator \'@cast\' at ';

describe('elaborate: writes through @cast and @var need -g', () => {
  it('refuses every form of write, before the optimiser says anything', () => {
    expect(errors('probe begin {  z = (@var("x") = 2); println(z) }')).to.deep.equal([VAR + '<input>:1:21']);
    expect(errors('probe begin { @var("x")++; println(w) }')).to.deep.equal([VAR + '<input>:1:15']);
    expect(errors('probe begin { delete @var("x"); println(w) }')).to.deep.equal([VAR + '<input>:1:22']);
    expect(errors('probe begin { @var("x")->a = 1 }')).to.deep.equal([VAR + '<input>:1:15']);
    expect(errors('probe begin { if (@var("x") = 1) println(1) }')).to.deep.equal([VAR + '<input>:1:19']);
    expect(errors('probe begin { @cast(0, "task_struct")->pid <<< 1 }')).to.deep.equal([CAST + '<input>:1:15']);
    expect(errors('probe begin { println(w); @cast(0, "task_struct")->pid += 2 }')).to.deep.equal([CAST + '<input>:1:27']);
    expect(errors('probe begin { if (0) @var("x") = 2; println(1) }')).to.deep.equal([VAR + '<input>:1:22']);
  });
  it('one error a body, @cast first; functions after, only those the other probes reach', () => {
    expect(errors('probe begin { @var("x") = 1; @cast(0, "task_struct")->pid += 2 }')).to.deep.equal([CAST + '<input>:1:30']);
    expect(errors('probe begin { @var("x") = 1; @var("y") = 1 }')).to.deep.equal([VAR + '<input>:1:15']);
    expect(errors('function f() { @var("x") = 1 } probe begin { f(); @var("y") = 1 }')).to.deep.equal([VAR + '<input>:1:51']);
    expect(errors('function f() { @var("x") = 1 } probe begin { if (0) f(); println(1) }')).to.deep.equal([VAR + '<input>:1:16']);
    expect(errors('function f() { @var("x") = 1 } probe begin { println(1) }')).to.deep.equal([]);
    // (a body two probes share: one error, said once)
    expect(errors('probe begin, end { @var("x") = 1 }')).to.deep.equal([VAR + '<input>:1:20']);
  });
  it('reads and addresses are no writes', () => {
    expect(errors('probe begin { x = &@var("x"); x = 1; println(x) }')).to.not.include(VAR + '<input>:1:20');
  });
});
