/**
 * Statistics aggregates (`<<<`, @count/@sum/@min/@max/@avg/@variance, histograms).
 * Data is kept per CPU (a cpu index is passed on add) and merged on every read, exactly as
 * stap's runtime/stat.c does, including the truncating integer Welford variance.
 */
import { Long, add, sub, mul, div, shl, shr, toInt32 } from './int64';

const POW2: number[] = [];
for (let i = 0; i < 64; i++) POW2.push(2 ** i);
import { StapError } from './errors';
import { HistSpec, bucketOf, checkHistIndex, renderHistogram, HIST_ELISION_DEFAULT } from './histogram';

export interface StatOptions {
  /** Histogram descriptors used on this stat (one @hist_log and/or several @hist_linear). */
  hists?: HistSpec[];
  /** Track variance (true when @variance is used on the stat). Default true. */
  variance?: boolean;
  /** @variance bit shift (the literal second argument of @variance), default 0. */
  varianceShift?: number;
}

/** Shared, immutable per-global description of a stat (all keys of a stats array share it). */
export class StatSpec {
  readonly hists: HistSpec[];
  readonly variance: boolean;
  readonly shift: number;
  constructor(opts: StatOptions = {}) {
    this.hists = opts.hists ?? [];
    this.variance = opts.variance ?? true;
    this.shift = opts.varianceShift ?? 0;
  }
  /** Index of a histogram descriptor in `hists` equal to the given one (-1 if absent). */
  histIndex(h: HistSpec): number {
    for (let i = 0; i < this.hists.length; i++) {
      const x = this.hists[i];
      if (x === h) return i;
      if (x.kind === h.kind && (x.kind === 'log' || (h.kind === 'linear' && x.start === h.start && x.stop === h.stop && x.interval === h.interval))) return i;
    }
    return -1;
  }
}

export const DEFAULT_STAT_SPEC = new StatSpec();

/** One CPU's partial aggregate (stat_data). */
export class StatPart {
  n = 0;
  s: Long = 0;
  lo: Long = 0;
  hi: Long = 0;
  avgS: Long = 0;
  m2: Long = 0;
  hist: Float64Array[] | null;
  constructor(spec: StatSpec) {
    const h = spec.hists;
    if (h.length === 0) this.hist = null;
    else {
      this.hist = [];
      for (let i = 0; i < h.length; i++) this.hist.push(new Float64Array(h[i].buckets));
    }
  }
}

/** Merged view of a stat (what extractors see). */
export interface StatAgg {
  count: number;
  sum: Long;
  min: Long;
  max: Long;
  hist: Float64Array[] | null;
}

function emptyAggregate(): never {
  throw new StapError('empty aggregate');
}

/**
 * A statistics value.  The Stat object itself holds CPU 0's partial aggregate (the common
 * case needs no indirection); other CPUs' partials live in `others`.
 */
export class Stat extends StatPart {
  /** Element of a stats array (aggregated as stap's pmaps are, see variance()). */
  inMap = false;
  readonly spec: StatSpec;
  private readonly trackVariance: boolean;
  private readonly shift: number;
  /** Partials of CPUs other than 0 (index = cpu), or null. */
  others: (StatPart | undefined)[] | null = null;

  constructor(spec: StatSpec = DEFAULT_STAT_SPEC) {
    super(spec);
    this.spec = spec;
    this.trackVariance = spec.variance;
    this.shift = spec.shift;
  }

  /** `s <<< v` on CPU `cpu`. */
  add(v: Long, cpu = 0): void {
    const p: StatPart = cpu === 0 ? this : this.part(cpu);
    const c = p.n;
    if (c === 0) {
      p.n = 1;
      p.s = v;
      p.lo = v;
      p.hi = v;
      if (this.trackVariance) {
        p.avgS = shl(v, this.shift);
        p.m2 = 0;
      }
    } else {
      p.n = c + 1;
      const sum = p.s;
      if (typeof v === 'number' && typeof sum === 'number') {
        const r = sum + v;
        p.s = r <= 9007199254740991 && r >= -9007199254740991 ? r : add(sum, v);
      } else p.s = add(sum, v);
      if (v > p.hi) p.hi = v;
      else if (v < p.lo) p.lo = v;
      if (this.trackVariance) this.welford(p, v);
    }
    if (p.hist !== null) this.addHist(p.hist, v);
  }

  /** One Welford step (stat-common.h __stp_stat_add), number fast path + exact slow path. */
  private welford(p: StatPart, v: Long): void {
    const avgS = p.avgS;
    const m2 = p.m2;
    if (typeof v === 'number' && typeof avgS === 'number' && typeof m2 === 'number') {
      const vs = v * POW2[this.shift];
      const d = vs - avgS;
      if (vs <= 9007199254740991 && vs >= -9007199254740991 && d <= 9007199254740991 && d >= -9007199254740991) {
        const delta = d | 0; // (int32) cast
        const avg = avgS + Math.trunc(delta / p.n);
        const e = vs - avg;
        const m = m2 + delta * e;
        if (avg <= 9007199254740991 && avg >= -9007199254740991 && e <= 9007199254740991 && e >= -9007199254740991 &&
            m <= 9007199254740991 && m >= -9007199254740991) {
          p.avgS = avg + 0;
          p.m2 = m + 0;
          return;
        }
      }
    }
    const vsL = shl(v, this.shift);
    const delta = toInt32(sub(vsL, avgS));
    const avg = add(avgS, div(delta, p.n));
    p.avgS = avg;
    p.m2 = add(m2, mul(delta, sub(vsL, avg)));
  }

  private addHist(hist: Float64Array[], v: Long): void {
    const hs = this.spec.hists;
    for (let i = 0; i < hs.length; i++) hist[i][bucketOf(hs[i], v)]++;
  }

  private part(cpu: number): StatPart {
    let o = this.others;
    if (o === null) o = this.others = [];
    let p = o[cpu];
    if (p === undefined) p = o[cpu] = new StatPart(this.spec);
    return p;
  }

  /** All non-empty partials, CPU 0 first. */
  parts(): StatPart[] {
    const r: StatPart[] = [];
    if (this.n > 0) r.push(this);
    if (this.others !== null) for (const p of this.others) if (p !== undefined && p.n > 0) r.push(p);
    return r;
  }

  /** Reset (delete s). */
  clear(): void {
    this.n = 0;
    this.s = 0;
    this.lo = 0;
    this.hi = 0;
    this.avgS = 0;
    this.m2 = 0;
    if (this.hist !== null) for (const h of this.hist) h.fill(0);
    this.others = null;
  }

  isEmpty(): boolean {
    return this.n === 0 && this.count() === 0;
  }

  /** Merge the per-CPU data (a fresh object). */
  aggregate(): StatAgg {
    const agg: StatAgg = { count: 0, sum: 0, min: 0, max: 0, hist: null };
    const nh = this.spec.hists.length;
    if (nh > 0) {
      agg.hist = [];
      for (let i = 0; i < nh; i++) agg.hist.push(new Float64Array(this.spec.hists[i].buckets));
    }
    for (const p of this.parts()) {
      if (agg.count === 0) {
        agg.min = p.lo;
        agg.max = p.hi;
      }
      agg.count += p.n;
      agg.sum = add(agg.sum, p.s);
      if (p.hi > agg.max) agg.max = p.hi;
      if (p.lo < agg.min) agg.min = p.lo;
      if (agg.hist !== null && p.hist !== null) {
        for (let i = 0; i < nh; i++) {
          const a = agg.hist[i];
          const b = p.hist[i];
          for (let j = 0; j < a.length; j++) a[j] += b[j];
        }
      }
    }
    return agg;
  }

  // ---------------------------------------------------------------- extractors

  count(): number {
    if (this.others === null) return this.n;
    let c = this.n;
    for (const p of this.others) if (p !== undefined) c += p.n;
    return c;
  }

  sum(): Long {
    if (this.others === null) return this.s;
    let s: Long = this.s;
    for (const p of this.others) if (p !== undefined && p.n > 0) s = add(s, p.s);
    return s;
  }

  /** @sum under --compatible < 1.5: an empty aggregate is an error. */
  sumNonEmpty(): Long {
    if (this.count() === 0) emptyAggregate();
    return this.sum();
  }

  min(): Long {
    if (this.others === null) {
      if (this.n === 0) emptyAggregate();
      return this.lo;
    }
    const ps = this.parts();
    if (ps.length === 0) emptyAggregate();
    let m = ps[0].lo;
    for (const p of ps) if (p.lo < m) m = p.lo;
    return m;
  }

  max(): Long {
    if (this.others === null) {
      if (this.n === 0) emptyAggregate();
      return this.hi;
    }
    const ps = this.parts();
    if (ps.length === 0) emptyAggregate();
    let m = ps[0].hi;
    for (const p of ps) if (p.hi > m) m = p.hi;
    return m;
  }

  avg(): Long {
    const c = this.count();
    if (c === 0) emptyAggregate();
    return div(this.sum(), c);
  }

  /** @variance(s): merge of the per-CPU Welford partials (runtime/stat.c). */
  variance(): Long {
    const count = this.count();
    if (count === 0) emptyAggregate();
    const shift = this.shift;
    const parts = this.parts();
    let filled = 0;
    let only: StatPart | null = null;
    for (const p of parts) if (p.n > 0) { filled++; only = p; }
    if (filled === 1 && only && this.inMap) {
      // An array element with one CPU's data: stap's pmap aggregation copies that CPU's
      // running variance (M2/(n-1)) unmerged (4.8 prints 216 where the merge formula gives
      // 217); scalar stats always go through the merge formula.
      return only.n >= 2 ? shr(div(only.m2, only.n - 1), 2 * shift) : 0;
    }
    const aggAvg = div(shl(this.sum(), shift), count);
    let s1: Long = 0;
    let s2: Long = 0;
    for (const p of parts) {
      const d = sub(p.avgS, aggAvg);
      s1 = add(s1, mul(mul(p.n, d), d));
      // variance_s = M2/(count-1) as of the last update (unset when count < 2)
      if (p.n >= 2) s2 = add(s2, mul(p.n - 1, div(p.m2, p.n - 1)));
    }
    if (count - 1 === 0) return 0; // _stp_div64 by zero yields 0
    return shr(div(add(s1, s2), count - 1), 2 * shift);
  }

  /** Merged bucket counts of histogram `h` (index into spec.hists). */
  histCounts(h: number): Float64Array {
    if (this.others === null && this.hist !== null) return this.hist[h];
    const agg = this.aggregate();
    if (agg.hist === null) throw new Error('stat has no histogram ' + h);
    return agg.hist[h];
  }

  /** `@hist_*(s)[i]` */
  histBucket(h: number, i: Long): Long {
    if (this.count() === 0) emptyAggregate();
    const spec = this.spec.hists[h];
    return this.histCounts(h)[checkHistIndex(spec, i)];
  }

  /** Text of `print(@hist_*(s))` (errors on empty aggregate). */
  histText(h: number, elision: number = HIST_ELISION_DEFAULT): string {
    if (this.count() === 0) emptyAggregate();
    return renderHistogram(this.spec.hists[h], this.histCounts(h), elision);
  }

  /** Bucket indices for `foreach (i in @hist_*(s))` (all buckets, 0..n-1). */
  histIndices(h: number): number[] {
    if (this.count() === 0) emptyAggregate();
    const n = this.spec.hists[h].buckets;
    const r = new Array<number>(n);
    for (let i = 0; i < n; i++) r[i] = i;
    return r;
  }
}

/** Shared empty stat returned for reads of absent stats-array keys (never mutate). */
export const EMPTY_STAT: Stat = new Stat(DEFAULT_STAT_SPEC);

/** Auto-print / @prints text (without name): ` @count=.. @min=.. @max=.. @sum=.. @avg=..`. */
export function statSummary(s: Stat): string {
  if (s.isEmpty()) return ' @count=0x0';
  return ` @count=${s.count()} @min=${s.min()} @max=${s.max()} @sum=${s.sum()} @avg=${s.avg()}`;
}
