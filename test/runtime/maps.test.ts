import { expect } from 'chai';
import { StapMap, autoPrintMap, scalarLine, entryLine, joinKeys } from '../../src/runtime/maps';
import { Stat, StatSpec } from '../../src/runtime/stats';
import { logHist } from '../../src/runtime/histogram';
import { StapError } from '../../src/runtime/errors';

const keysOf = (m: StapMap, spec?: Parameters<StapMap['entries']>[0]) => m.entries(spec).map((e) => e.keys);

describe('runtime/maps', () => {
  it('get of a missing key does not create it', () => {
    const m = new StapMap({ arity: 1, valueType: 'long' });
    expect(m.get('x')).to.equal(0);
    expect(m.has('x')).to.equal(false);
    const s = new StapMap({ arity: 2, valueType: 'string' });
    expect(s.getN([1, 'a'])).to.equal('');
    expect(s.size).to.equal(0);
    m.set('x', 0);
    expect(m.has('x')).to.equal(true);
  });
  it('insertion order, update keeps position, delete+re-add moves to end', () => {
    const m = new StapMap({ arity: 1, valueType: 'long' });
    m.set(3, 1); m.set(1, 2); m.set(2, 3);
    m.set(3, 10);
    expect(m.keys1()).to.deep.equal([3, 1, 2]);
    m.delete(3); m.set(3, 5);
    expect(m.keys1()).to.deep.equal([1, 2, 3]);
    expect(m.addLong(1, 5)).to.equal(7);
    expect(m.addLong(9, -1)).to.equal(-1);
    expect(m.keys1()).to.deep.equal([1, 2, 3, 9]);
  });
  it('bigint and number keys are canonical', () => {
    const m = new StapMap({ arity: 1, valueType: 'long' });
    m.set(2n ** 60n, 1);
    expect(m.get(2n ** 60n)).to.equal(1);
    expect(m.has(1152921504606846976n)).to.equal(true);
  });
  it('overflow errors and wrap eviction', () => {
    const a = new StapMap({ arity: 1, valueType: 'long', maxMapEntries: 3 });
    a.set(1, 1); a.set(2, 2); a.set(3, 3);
    a.set(2, 5); // update OK when full
    expect(() => a.set(4, 4)).to.throw(StapError, 'Array overflow, check MAXMAPENTRIES');
    expect(() => a.addLong(4, 4)).to.throw(StapError, 'Array overflow, check MAXMAPENTRIES');
    const b = new StapMap({ arity: 2, valueType: 'long', size: 2 });
    b.setN([1, 'a'], 1); b.setN([2, 'b'], 1);
    expect(() => b.setN([3, 'c'], 1)).to.throw(StapError, 'Array overflow, check size limit (2)');
    const st = new StapMap({ arity: 1, valueType: 'stats', size: 1 });
    st.stat('a', 1);
    expect(() => st.stat('b', 1)).to.throw(StapError, 'Array overflow, check size limit (1)');
    const w = new StapMap({ arity: 1, valueType: 'long', size: 3, wrap: true });
    for (let i = 1; i <= 5; i++) w.set(i, i * 10);
    expect(w.keys1()).to.deep.equal([3, 4, 5]);
    w.set(3, 0); w.set(6, 1); // oldest inserted (3) goes even though just updated
    expect(w.keys1()).to.deep.equal([4, 5, 6]);
    const ws = new StapMap({ arity: 2, valueType: 'stats', size: 2, wrap: true });
    ws.statN(['a', 1], 1); ws.statN(['b', 1], 1); ws.statN(['c', 1], 1);
    expect(keysOf(ws)).to.deep.equal([['b', 1], ['c', 1]]);
  });
  it('multi-key get/set/exists/delete and slices', () => {
    const m = new StapMap({ arity: 3, valueType: 'long' });
    m.setN([1, 'x', 5], 10);
    m.setN([2, 'y', 5], 20);
    m.setN([1, 'y', 6], 30);
    m.setN([1, 'x\x01', 5], 40);
    expect(m.getN([1, 'x', 5])).to.equal(10);
    expect(m.hasN([2, 'y', 5])).to.equal(true);
    expect(m.hasSlice([null, 'y', null])).to.equal(true);
    expect(m.hasSlice([3, null, null])).to.equal(false);
    expect(m.hasSlice([null, null, 6])).to.equal(true);
    m.deleteSlice([1, null, null]);
    expect(keysOf(m)).to.deep.equal([[2, 'y', 5]]);
    m.deleteN([9, 'q', 9]); // absent ok
    m.clear();
    expect(m.size).to.equal(0);
    expect(joinKeys([1, 'a'])).to.not.equal(joinKeys(['1a']));
  });
  it('sorted iteration: keys, values, stable, limit, slice', () => {
    const m = new StapMap({ arity: 2, valueType: 'long' });
    const data: [number, string, number][] = [[3, 'c', 5], [1, 'b', 7], [2, 'a', 5], [10, 'aa', -1], [1, 'a', 7]];
    for (const [k1, k2, v] of data) m.setN([k1, k2], v);
    expect(keysOf(m, { by: 1 })).to.deep.equal([[1, 'b'], [1, 'a'], [2, 'a'], [3, 'c'], [10, 'aa']]);
    expect(keysOf(m, { by: 2 }).map((k) => k[1])).to.deep.equal(['a', 'a', 'aa', 'b', 'c']);
    expect(keysOf(m, { by: 2, desc: true }).map((k) => k[1])).to.deep.equal(['c', 'b', 'aa', 'a', 'a']);
    expect(m.entries({ by: 0 }).map((e) => e.v)).to.deep.equal([-1, 5, 5, 7, 7]);
    expect(keysOf(m, { by: 0, desc: true })).to.deep.equal([[1, 'b'], [1, 'a'], [3, 'c'], [2, 'a'], [10, 'aa']]);
    expect(keysOf(m, { by: 0, limit: 2 })).to.deep.equal([[10, 'aa'], [3, 'c']]);
    expect(keysOf(m, { limit: 2 })).to.deep.equal([[3, 'c'], [1, 'b']]);
    expect(keysOf(m, { limit: 0 })).to.deep.equal([]);
    expect(keysOf(m, { slice: [1, null], by: 2 })).to.deep.equal([[1, 'a'], [1, 'b']]);
    // bytewise string order (latin1 bytes > 0x7f sort after ASCII)
    const s = new StapMap({ arity: 1, valueType: 'string' });
    s.set('b', '\xe9'); s.set('a', 'z'); s.set('c', 'Z');
    expect(s.keys1({ by: 0 })).to.deep.equal(['c', 'a', 'b']);
    expect(s.keys1({ by: 1, desc: true })).to.deep.equal(['c', 'b', 'a']);
  });
  it('stats arrays: per-key stats, value sort by extractor', () => {
    const m = new StapMap<Stat>({ arity: 1, valueType: 'stats', stat: new StatSpec({ hists: [logHist()] }) });
    m.stat('a', 100); m.stat('b', 1); m.stat('b', 2); m.stat('c', 50, 1); m.stat('c', 60, 2); m.stat('c', 1, 3);
    expect(m.get('b').count()).to.equal(2);
    expect(m.get('c').sum()).to.equal(111);
    expect(m.get('zz').count()).to.equal(0);
    expect(() => m.get('zz').min()).to.throw(StapError, 'empty aggregate');
    expect(m.get('a').histBucket(0, 64 + 7)).to.equal(1);
    expect(m.has('a')).to.equal(true);
    expect(m.keys1({ by: 0, desc: true })).to.deep.equal(['c', 'b', 'a']);
    expect(m.keys1({ by: 0, desc: true, statOp: 'sum' })).to.deep.equal(['c', 'a', 'b']);
    expect(m.keys1({ by: 0, statOp: 'max' })).to.deep.equal(['b', 'c', 'a']);
  });
  it('auto-print formatting', () => {
    expect(scalarLine('x', 5)).to.equal('x=5\n');
    expect(scalarLine('s', 'text')).to.equal('s="text"\n');
    expect(scalarLine('st', new Stat())).to.equal('st @count=0x0\n');
    expect(entryLine('a', [1, 'key'], 5)).to.equal('a[1,"key"]=5\n');
    const m = new StapMap({ arity: 2, valueType: 'long' });
    m.setN([1, 'p'], 2); m.setN([2, 'q'], 9); m.setN([3, 'r'], 4);
    expect(autoPrintMap('a', m)).to.equal('a[2,"q"]=9\na[3,"r"]=4\na[1,"p"]=2\n');
    const st = new StapMap({ arity: 1, valueType: 'stats' });
    st.stat('k', 1); st.stat('k', 4); st.stat('j', 3);
    expect(autoPrintMap('h', st)).to.equal('h["k"] @count=2 @min=1 @max=4 @sum=5 @avg=2\nh["j"] @count=1 @min=3 @max=3 @sum=3 @avg=3\n');
    const ss = new StapMap({ arity: 1, valueType: 'string' });
    ss.set(7, 'v');
    expect(autoPrintMap('s', ss)).to.equal('s[7]="v"\n');
  });
});
