import { expect } from 'chai';
import { Stat, StatSpec, statSummary } from '../../src/runtime/stats';
import { linearHist, logHist, logBucket, logBucketValue, renderHistogram, histSpecWarnings, linearBucket } from '../../src/runtime/histogram';
import { StapError } from '../../src/runtime/errors';

const H = (s: string) => s; // readability

describe('runtime/stats', () => {
  it('count/sum/min/max/avg', () => {
    const s = new Stat();
    expect(s.count()).to.equal(0);
    expect(s.sum()).to.equal(0);
    for (const v of [3, -7, 10, 1]) s.add(v);
    expect(s.count()).to.equal(4);
    expect(s.sum()).to.equal(7);
    expect(s.min()).to.equal(-7);
    expect(s.max()).to.equal(10);
    expect(s.avg()).to.equal(1); // 7/4 truncated
    s.add(-20);
    expect(s.avg()).to.equal(-2); // -13/5 truncates toward zero
  });
  it('empty aggregate errors', () => {
    const s = new Stat(new StatSpec({ hists: [logHist()] }));
    for (const f of [() => s.min(), () => s.max(), () => s.avg(), () => s.variance(), () => s.histText(0), () => s.histBucket(0, 5)]) {
      expect(f).to.throw(StapError, 'empty aggregate');
    }
  });
  it('variance uses stap integer Welford and the merge formula (1..5 -> 12 / shift 1 -> 2)', () => {
    const a = new Stat();
    const b = new Stat(new StatSpec({ varianceShift: 1 }));
    for (let i = 1; i <= 5; i++) a.add(i), b.add(i);
    expect(a.variance()).to.equal(12);
    // an array element with one CPU's data reports that CPU's running M2/(n-1)
    a.inMap = true;
    expect(a.variance()).to.equal(7);
    expect(b.variance()).to.equal(2);
    const one = new Stat();
    one.add(42);
    expect(one.variance()).to.equal(0);
  });
  it('variance merges per-CPU partials', () => {
    const s = new Stat();
    const ref = new Stat();
    const vals = [10, 20, 30, 40, 50, 60, 70, 80];
    vals.forEach((v, i) => { s.add(v, i % 3); ref.add(v); });
    expect(s.count()).to.equal(8);
    expect(s.sum()).to.equal(360);
    expect(s.min()).to.equal(10);
    expect(s.max()).to.equal(80);
    // exact per the merge formula; must be close to the true sample variance (600)
    const v = s.variance() as number;
    expect(v).to.be.within(550, 650);
    expect(ref.variance()).to.be.within(550, 650);
  });
  it('clear resets', () => {
    const s = new Stat();
    s.add(5);
    s.clear();
    expect(s.isEmpty()).to.equal(true);
    expect(statSummary(s)).to.equal(' @count=0x0');
    s.add(4); s.add(1); s.add(4); s.add(1);
    expect(statSummary(s)).to.equal(' @count=4 @min=1 @max=4 @sum=10 @avg=2');
  });
  it('histogram buckets and indexing', () => {
    const spec = new StatSpec({ hists: [logHist(), linearHist(0, 100, 10)] });
    const s = new Stat(spec);
    for (const v of [0, 1, 2, 3, 4, -1, -5, 250]) s.add(v);
    expect(s.histBucket(0, 64)).to.equal(1);
    expect(s.histBucket(0, 65)).to.equal(1);
    expect(s.histBucket(0, 66)).to.equal(2);
    expect(s.histBucket(0, 67)).to.equal(1);
    expect(s.histBucket(0, 63)).to.equal(1);
    expect(s.histBucket(0, 61)).to.equal(1);
    expect(s.histBucket(1, 0)).to.equal(2);
    expect(s.histBucket(1, 12)).to.equal(1);
    expect(() => s.histBucket(0, 128)).to.throw(StapError, 'histogram index out of range');
    expect(() => s.histBucket(1, 13)).to.throw(StapError, 'histogram index out of range');
    expect(() => s.histBucket(1, -1)).to.throw(StapError, 'histogram index out of range');
    expect(s.histIndices(1).length).to.equal(13);
  });
});

describe('runtime/histogram', () => {
  it('log bucket mapping', () => {
    expect(logBucket(0)).to.equal(64);
    expect(logBucket(1)).to.equal(65);
    expect(logBucket(3)).to.equal(66);
    expect(logBucket(4)).to.equal(67);
    expect(logBucket(-1)).to.equal(63);
    expect(logBucket(-4)).to.equal(61);
    expect(logBucket(2 ** 40)).to.equal(64 + 41);
    expect(logBucket(2 ** 40 - 1)).to.equal(64 + 40);
    expect(logBucket(9223372036854775807n)).to.equal(127);
    expect(logBucket(-9223372036854775808n)).to.equal(0);
    expect(logBucketValue(127)).to.equal(4611686018427387904n);
    expect(logBucketValue(0)).to.equal(-9223372036854775808n);
    expect(logBucketValue(62)).to.equal(-2);
  });
  it('linear bucket mapping', () => {
    const h = linearHist(0, 100, 10);
    expect(h.buckets).to.equal(13);
    expect(linearBucket(h, -1)).to.equal(0);
    expect(linearBucket(h, 0)).to.equal(1);
    expect(linearBucket(h, 99)).to.equal(10);
    expect(linearBucket(h, 109)).to.equal(11);
    expect(linearBucket(h, 110)).to.equal(12);
    expect(linearBucket(h, 9223372036854775807n)).to.equal(12);
  });
  it('warnings for bad linear descriptors', () => {
    expect(histSpecWarnings(linearHist(0, 10, 0))).to.deep.equal(['WARNING: histogram: interval cannot be zero.']);
    expect(histSpecWarnings(linearHist(0, 1000, 1))[0]).to.match(/Number of buckets must be between 1 and 126/);
    expect(histSpecWarnings(linearHist(0, 100, 10))).to.deep.equal([]);
  });
  it('linear descriptors on C ints, as stat-common.c computes them', () => {
    // _stp_stat_calc_buckets(int stop, int start, int interval): 3..STP_MAX_BUCKETS (128) buckets
    expect(linearHist(0, 125, 1).buckets).to.equal(128);
    expect(histSpecWarnings(linearHist(0, 126, 1))).to.deep.equal([
      'WARNING: histogram: Number of buckets must be between 1 and 126',
      'Number_of_buckets = (stop - start) / interval.',
      'Please adjust your start, stop, and interval values.',
    ]);
    expect(histSpecWarnings(linearHist(10, 0, 1))).to.have.length(3); // (negative count: refused, no fault)
    expect(histSpecWarnings(linearHist(0, 10, -1))).to.have.length(3);
    // a decreasing range with a negative interval is accepted: 13 buckets
    const down = linearHist(10, 0, -1);
    expect(down.buckets).to.equal(13);
    // do_div by the interval as a u32: 20 / 4294967295 is 0
    expect(linearBucket(down, 30)).to.equal(1);
    expect(linearBucket(down, 9)).to.equal(0);
    // the runtime's ints: 2^32 is 0
    expect(linearHist(0, 4294967296, 1).buckets).to.equal(3);
  });
  const row = (label: string, count: number, bar: number, cnt = 1, vs = 5) =>
    label.padStart(vs) + ' |' + '@'.repeat(bar) + String(count).padStart(50 - bar + 1 + cnt) + '\n';
  const head = (vs = 5) => 'value'.padStart(vs) + ' |' + '-'.repeat(50) + ' count\n';

  it('log example (1..10)', () => {
    const s = new Stat(new StatSpec({ hists: [logHist()] }));
    for (let i = 1; i <= 10; i++) s.add(i);
    expect(s.histText(0)).to.equal(H(head() + row('0', 0, 0) + row('1', 1, 1) + row('2', 2, 2) + row('4', 4, 4) + row('8', 3, 3) + row('16', 0, 0) + row('32', 0, 0) + '\n'));
  });
  it('linear example with under/overflow', () => {
    const s = new Stat(new StatSpec({ hists: [linearHist(0, 100, 10)] }));
    for (const v of [-5, 0, 1, 9, 10, 15, 25, 25, 47, 99, 100, 105, 110, 200]) s.add(v);
    const exp = head() + row('<0', 1, 1) + row('0', 3, 3) + row('10', 2, 2) + row('20', 2, 2) + row('30', 0, 0) + row('40', 1, 1) +
      row('50', 0, 0) + row('60', 0, 0) + row('70', 0, 0) + row('80', 0, 0) + row('90', 1, 1) + row('100', 2, 2) + row('>100', 2, 2) + '\n';
    expect(s.histText(0)).to.equal(exp);
  });
  it('elision and scaling', () => {
    const s = new Stat(new StatSpec({ hists: [linearHist(0, 10240, 200)] }));
    for (let i = 0; i < 100; i++) s.add(50);
    s.add(250); s.add(1450);
    const r = (l: string, c: number, b: number) => row(l, c, b, 3);
    const exp = head() + r('0', 100, 50) + r('200', 1, 0) + r('400', 0, 0) + r('600', 0, 0) + '      ~\n' + r('1000', 0, 0) + r('1200', 0, 0) +
      r('1400', 1, 0) + r('1600', 0, 0) + r('1800', 0, 0) + '\n';
    expect(s.histText(0)).to.equal(exp);
    // elision disabled shows every row
    const all = s.histText(0, -1);
    expect(all.split('\n').length).to.equal(1 + 10 + 2);
    expect(all).to.not.contain('~');
  });
  it('negative log data and wide labels', () => {
    const s = new Stat(new StatSpec({ hists: [logHist()] }));
    s.add(-3); s.add(2);
    expect(s.histText(0)).to.equal(head() + row('-8', 0, 0) + row('-4', 0, 0) + row('-2', 1, 1) + row('-1', 0, 0) + row('0', 0, 0) +
      row('1', 0, 0) + row('2', 1, 1) + row('4', 0, 0) + row('8', 0, 0) + '\n');
    const t = new Stat(new StatSpec({ hists: [linearHist(-1000000, 0, 250000)] }));
    t.add(-5000000); t.add(-1);
    const txt = t.histText(0);
    const lines = txt.split('\n');
    expect(lines[0]).to.equal('    value |' + '-'.repeat(50) + ' count');
    expect(lines[1].startsWith('<-1000000 |@')).to.equal(true);
  });
  // Expected values: runtime/stat-common.c of stap 4.8 (__stp_stat_add and
  // _stp_stat_print_histogram_buf, with vsprintf.c's _stp_vsnprintf), compiled in user space and
  // fed the same values (`linear START STOP INTERVAL`, values, print).
  it('a row value wider than val_space: the negative %*s width left-justifies the prefix', () => {
    const h = linearHist(-3, 2147483644, 2147483647);
    const st = new Stat(new StatSpec({ hists: [h] }));
    for (const v of [-5, -3, -3, -3, 2147483644]) st.add(v);
    expect(st.histText(0)).to.equal(
      'value |-------------------------------------------------- count\n' +
      '  <-3 |@                                                  1\n' +
      '   -3 |@@@                                                3\n' +
      '     2147483644 |@                                                  1\n\n');
  });
  it('LLONG_MAX - start = 2^63-1 with interval 1: val++ wraps and histogram[LLONG_MIN] is the underflow bucket', () => {
    const h = linearHist(0, 8, 1);
    expect(linearBucket(h, 9223372036854775807n)).to.equal(0);
    expect(linearBucket(h, 9223372036854775806n)).to.equal(h.buckets - 1);
    expect(linearBucket(linearHist(1, 8, 1), 9223372036854775807n)).to.equal(9); // (2^63-2)+1: overflow
    // LLONG_MAX - (-5) wraps negative in int64: underflow as well
    expect(linearBucket(linearHist(-5, 8, 1), 9223372036854775807n)).to.equal(0);
    const st = new Stat(new StatSpec({ hists: [h] }));
    for (const v of [9223372036854775807n, -1, 5]) st.add(v);
    expect(st.histText(0)).to.equal(
      'value |-------------------------------------------------- count\n' +
      '   <0 |@@                                                 2\n' +
      '    0 |                                                   0\n' +
      '    1 |                                                   0\n' +
      '      ~\n' +
      '    3 |                                                   0\n' +
      '    4 |                                                   0\n' +
      '    5 |@                                                  1\n' +
      '    6 |                                                   0\n' +
      '    7 |                                                   0\n\n');
  });
  it('renderHistogram with direct counts', () => {
    const h = linearHist(0, 4, 1);
    const counts = new Float64Array(h.buckets);
    counts[1] = 120; // scale = ceil(120/50) = 3 -> 40 @
    const txt = renderHistogram(h, counts);
    expect(txt.split('\n')[1]).to.equal('    0 |' + '@'.repeat(40) + '120'.padStart(50 - 40 + 1 + 3));
  });
});
