/**
 * Histogram bucket indexing and byte-exact rendering (runtime/stat-common.c).
 */
import { Long, add, sub, mul, div, fromBigInt } from './int64';
import { StapError } from './errors';

export const HIST_LOG_BUCKETS = 128;
export const STP_MAX_BUCKETS = 128;
export const HIST_LOG_BUCKET0 = 64;
export const HIST_WIDTH = 50;
export const HIST_ELISION_DEFAULT = 2;

export interface HistLogSpec {
  readonly kind: 'log';
  readonly buckets: number; // always 128
}
export interface HistLinearSpec {
  readonly kind: 'linear';
  /** the runtime's C ints (struct _Hist): the script's numbers cut to 32 bits */
  readonly start: number;
  readonly stop: number;
  readonly interval: number;
  /** (stop-start)/interval + 3 (0 = underflow, buckets-1 = overflow); 0 when refused */
  readonly buckets: number;
}
export type HistSpec = HistLogSpec | HistLinearSpec;

export const LOG_HIST: HistLogSpec = Object.freeze({ kind: 'log', buckets: HIST_LOG_BUCKETS });

export function logHist(): HistLogSpec {
  return LOG_HIST;
}

/** The C int a 64-bit value becomes when passed as an `int`. */
function cInt(v: Long): number {
  return typeof v === 'number' && v >= -2147483648 && v <= 2147483647 ? v : Number(BigInt.asIntN(32, BigInt(v)));
}

/**
 * Build a linear histogram descriptor as the runtime does (stat-common.c
 * _stp_stat_calc_buckets, on C ints): buckets = (stop - start) / interval + 3, 0 when the interval
 * is 0 or the count is outside 3..STP_MAX_BUCKETS (histSpecWarnings() gives the warnings).
 */
export function linearHist(start: Long, stop: Long, interval: Long): HistLinearSpec {
  const st = cInt(start);
  const sp = cInt(stop);
  const iv = cInt(interval);
  let buckets = 0;
  if (iv !== 0) {
    const n = Math.trunc(((sp - st) | 0) / iv) + 3;
    if (n >= 3 && n <= STP_MAX_BUCKETS) buckets = n;
  }
  return { kind: 'linear', start: st, stop: sp, interval: iv, buckets };
}

/**
 * Runtime initialisation checks of stap's _stp_stat_init: returns the warning lines
 * (without trailing newline) or [] when the descriptor is fine.  A non-empty result means
 * the module fails to initialise.
 */
export function histSpecWarnings(spec: HistSpec): string[] {
  if (spec.kind === 'log') return [];
  if (spec.interval === 0) return ['WARNING: histogram: interval cannot be zero.'];
  if (spec.buckets === 0) {
    return [`WARNING: histogram: Number of buckets must be between 1 and ${STP_MAX_BUCKETS - 2}`,
      'Number_of_buckets = (stop - start) / interval.', 'Please adjust your start, stop, and interval values.'];
  }
  return [];
}

/** Number of bits needed for a positive safe integer. */
function bitLength(n: number): number {
  if (n < 2147483648) return 32 - Math.clz32(n);
  return 64 - Math.clz32(Math.floor(n / 4294967296));
}

/** Log histogram bucket of a value: 64 for 0, 64±bitlength(|v|) otherwise (INT64_MIN -> 0). */
export function logBucket(v: Long): number {
  if (typeof v === 'number') {
    if (v === 0) return HIST_LOG_BUCKET0;
    if (v > 0) return HIST_LOG_BUCKET0 + bitLength(v);
    return HIST_LOG_BUCKET0 - bitLength(-v);
  }
  const a = v < 0n ? -v : v;
  const bl = a.toString(2).length;
  return v < 0n ? HIST_LOG_BUCKET0 - bl : HIST_LOG_BUCKET0 + bl;
}

/** Label (lower bound) of a log bucket. */
export function logBucketValue(b: number): Long {
  if (b === HIST_LOG_BUCKET0) return 0;
  if (b > HIST_LOG_BUCKET0) {
    const k = b - HIST_LOG_BUCKET0 - 1;
    return k < 53 ? 2 ** k : fromBigInt(1n << BigInt(k));
  }
  const k = HIST_LOG_BUCKET0 - b - 1;
  return k < 53 ? -(2 ** k) : fromBigInt(-(1n << BigInt(k)));
}

/**
 * Linear histogram bucket of a value (stat-common.c __stp_stat_add): the distance from start
 * divided as unsigned by the interval as a u32 (do_div), plus one; under- and overflow buckets.
 */
export function linearBucket(spec: HistLinearSpec, v: Long): number {
  const d = sub(v, spec.start);
  if (d < 0) return 0;
  const last = spec.buckets - 1;
  const base = spec.interval >>> 0;
  if (typeof d !== 'number') {
    const qb = BigInt(d) / BigInt(base);
    // `val = tmp; val++` in int64: a quotient of 2^63-1 (LLONG_MAX - start with an interval of 1)
    // wraps to LLONG_MIN, which is not >= buckets-1, and histogram[LLONG_MIN] addresses
    // histogram[0] (LLONG_MIN * 8 wraps to 0): the runtime counts it as underflow
    if (qb === 0x7fffffffffffffffn) return 0;
    return qb + 1n >= BigInt(last) ? last : Number(qb) + 1;
  }
  const q = Math.floor(d / base);
  if (q + 1 >= last) return last;
  return q + 1;
}

export function bucketOf(spec: HistSpec, v: Long): number {
  return spec.kind === 'log' ? logBucket(v) : linearBucket(spec, v);
}

/** Check an index for `@hist_*(s)[i]`. */
export function checkHistIndex(spec: HistSpec, i: Long): number {
  if (typeof i !== 'number' || i < 0 || i >= spec.buckets) throw new StapError('histogram index out of range');
  return i;
}

/** needed_space(): characters needed to print v in decimal (including '-'). */
export function neededSpace(v: Long): number {
  if (v === 0) return 1;
  const s = typeof v === 'number' ? '' + v : v.toString();
  return s.length;
}

function padLeft(s: string, w: number): string {
  return s.length >= w ? s : ' '.repeat(w - s.length) + s;
}

/**
 * Render a histogram exactly as stap's _stp_stat_print_histogram_buf.  `counts` are the
 * merged bucket counts (length spec.buckets).  The caller handles the empty-aggregate
 * error (count == 0).  `elision` is HIST_ELISION (negative disables).
 */
export function renderHistogram(spec: HistSpec, counts: ArrayLike<number>, elision: number = HIST_ELISION_DEFAULT): string {
  const nb = spec.buckets;
  let low = -1;
  let high = 0;
  let valmax = 0;
  for (let i = 0; i < nb; i++) {
    const c = counts[i];
    if (c > 0) {
      if (low === -1) low = i;
      high = i;
    }
    if (c > valmax) valmax = c;
  }
  for (let i = 0; i < 2; i++) {
    if (spec.kind === 'log') {
      if (low !== HIST_LOG_BUCKET0 && low > 0) low--;
    } else if (low > 0) low--;
    if (high < nb - 1) high++;
  }
  let under = 0;
  let over = 0;
  if (spec.kind === 'linear') {
    if (low === 0 && counts[0] === 0) low++;
    if (high === nb - 1 && counts[high] === 0) high--;
    if (low === 0) under = 1;
    if (high === nb - 1) over = 1;
  }
  const scale = valmax <= HIST_WIDTH ? 1 : Math.ceil(valmax / HIST_WIDTH);
  const cntSpace = neededSpace(valmax);
  let valSpace: number;
  let i0: number;
  if (spec.kind === 'linear') {
    i0 = neededSpace(spec.start) + under;
    // (`st->start + st->interval * high_bucket` in C int arithmetic)
    valSpace = neededSpace((spec.start + Math.imul(spec.interval, high)) | 0) + over;
  } else {
    i0 = neededSpace(logBucketValue(high));
    valSpace = neededSpace(logBucketValue(low < 0 ? 0 : low));
  }
  if (i0 > valSpace) valSpace = i0;
  if (valSpace < 5) valSpace = 5;

  let out = padLeft('value', valSpace) + ' |' + '-'.repeat(HIST_WIDTH) + ' count\n';
  let eliding = false;
  for (let i = low; i <= high; i++) {
    if (i < 0) continue;
    if (elision >= 0) {
      let elide = true;
      const lo = Math.max(low, i - elision);
      const hi = Math.min(high, i + elision);
      for (let k = lo; k <= hi; k++) {
        if (counts[k] !== 0) {
          elide = false;
          break;
        }
      }
      if (elide) {
        eliding = true;
        continue;
      }
      if (eliding) {
        out += ' '.repeat(valSpace) + ' ~\n';
        eliding = false;
      }
    }
    let val: Long;
    let prefix = '';
    if (spec.kind === 'linear') {
      if (i === 0) {
        val = spec.start;
        prefix = '<';
      } else if (i === nb - 1) {
        val = add(spec.start, mul(i - 2, spec.interval));
        prefix = '>';
      } else {
        val = add(spec.start, mul(i - 1, spec.interval));
      }
    } else {
      val = logBucketValue(i);
    }
    const vs = typeof val === 'number' ? '' + val : val.toString();
    // HIST_PRINTF("%*s%lld |", val_space - needed_space(val), prefix, val): a row value wider
    // than val_space makes the width negative, and a negative `*` width left-justifies
    const w = valSpace - vs.length;
    out += (w >= 0 ? padLeft(prefix, w) : prefix.padEnd(-w)) + vs + ' |';
    const c = counts[i];
    const bar = Math.floor(c / scale);
    out += '@'.repeat(bar) + padLeft('' + c, HIST_WIDTH - bar + 1 + cntSpace) + '\n';
  }
  out += '\n';
  return out;
}
