/**
 * Runtime micro-benchmarks: map+stats handler body and small-number arithmetic through
 * the runtime vs hand-written JS (ratios measured in one run), and bytes per entry of a
 * 1M-key long map.
 */
import { Long, add, mul, mod, shr, bitXor, bitAnd, sub } from '../src/runtime/int64';
import { StapMap } from '../src/runtime/maps';
import { StatSpec } from '../src/runtime/stats';

const N = 10_000_000;
const NAMES = ['init', 'kworker/0:1', 'sshd', 'bash', 'node', 'systemd-journal', 'rsyslogd', 'cron', 'ls', 'cat', 'grep', 'sed', 'awk', 'vim', 'less', 'top'];

function timeIt(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}


// ---------------------------------------------------------------- (a) map + stats body

function runtimeMapStats(variance: boolean): () => void {
  return () => {
    const counts = new StapMap({ arity: 1, valueType: 'stats', stat: new StatSpec({ variance }) });
    let total: Long = 0;
    // the generated handler: counts[name] <<< bytes; total += bytes * 2
    const handler = (name: string, bytes: Long, cpu: number): void => {
      counts.stat(name, bytes, cpu);
      total = add(total, mul(bytes, 2));
    };
    for (let i = 0; i < N; i++) handler(NAMES[i & 15], (i * 7) & 4095, 0);
    if (total === -1 || counts.size !== 16) throw new Error('bad');
  };
}

interface HandStat { count: number; sum: number; min: number; max: number }
function handMapStats(): () => void {
  return () => {
    const counts = new Map<string, HandStat>();
    let total = 0;
    const handler = (name: string, bytes: number): void => {
      let s = counts.get(name);
      if (s === undefined) {
        s = { count: 0, sum: 0, min: bytes, max: bytes };
        counts.set(name, s);
      }
      s.count++;
      s.sum += bytes;
      if (bytes < s.min) s.min = bytes;
      if (bytes > s.max) s.max = bytes;
      total += bytes * 2;
    };
    for (let i = 0; i < N; i++) handler(NAMES[i & 15], (i * 7) & 4095);
    if (total === -1 || counts.size !== 16) throw new Error('bad');
  };
}

// ---------------------------------------------------------------- (b) arithmetic

function runtimeArith(): () => void {
  return () => {
    let x: Long = 1;
    let y: Long = 0;
    for (let i = 0; i < N; i++) {
      x = mod(add(mul(x, 31), i), 1000003);
      y = add(y, bitXor(shr(x, 2), bitAnd(i, 255)));
      y = sub(y, 3);
    }
    if (y === 0.5) throw new Error('bad');
  };
}

function handArith(): () => void {
  return () => {
    let x = 1;
    let y = 0;
    for (let i = 0; i < N; i++) {
      x = (x * 31 + i) % 1000003;
      y += (x >> 2) ^ (i & 255);
      y -= 3;
    }
    if (y === 0.5) throw new Error('bad');
  };
}

// ---------------------------------------------------------------- (d) memory

function heapUsed(): number {
  const g = (global as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
  return process.memoryUsage().heapUsed;
}

function mapMemory(): { bytesPerEntry: number; exact: boolean } {
  const M = 1_000_000;
  const before = heapUsed();
  const m = new StapMap({ arity: 1, valueType: 'long', maxMapEntries: M });
  for (let i = 0; i < M; i++) m.set(i * 3, i);
  const after = heapUsed();
  if (m.size !== M) throw new Error('bad');
  return { bytesPerEntry: Math.round((after - before) / M), exact: typeof (global as { gc?: unknown }).gc === 'function' };
}

export async function benchRuntime(): Promise<Record<string, string | number>> {
  const rt = runtimeMapStats(false);
  const rtv = runtimeMapStats(true);
  const hand = handMapStats();
  const ra = runtimeArith();
  const ha = handArith();
  // warm up
  rt(); hand(); ra(); ha(); rtv();
  // interleave the contenders so machine load affects both alike; keep the best of each
  const reps = 5;
  let tHand = Infinity, tRt = Infinity, tRtv = Infinity, tHa = Infinity, tRa = Infinity;
  for (let r = 0; r < reps; r++) {
    tHand = Math.min(tHand, timeIt(hand));
    tRt = Math.min(tRt, timeIt(rt));
    tRtv = Math.min(tRtv, timeIt(rtv));
    tHa = Math.min(tHa, timeIt(ha));
    tRa = Math.min(tRa, timeIt(ra));
  }
  const mem = mapMemory();
  return {
    'map+stats hand-written JS (ms, 10M)': +tHand.toFixed(1),
    'map+stats runtime (ms, 10M)': +tRt.toFixed(1),
    'map+stats ratio': +(tRt / tHand).toFixed(2),
    'map+stats runtime with variance tracking (ms)': +tRtv.toFixed(1),
    'map+stats ratio with variance tracking': +(tRtv / tHand).toFixed(2),
    'arith hand-written JS (ms, 10M)': +tHa.toFixed(1),
    'arith runtime int64 (ms, 10M)': +tRa.toFixed(1),
    'arith ratio': +(tRa / tHa).toFixed(2),
    'long map bytes/entry (1M keys)': mem.bytesPerEntry,
    'long map memory measured with gc': mem.exact ? 'yes' : 'no (approximate)',
  };
}

if (require.main === module) {
  benchRuntime().then((r) => {
    for (const [k, v] of Object.entries(r)) console.log(`${k}: ${v}`);
  });
}
