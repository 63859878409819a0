/**
 * The speed of the recordings' CPU: how many times slower than the simulated machine at hardware speed
 * (MachineOptions.cpuSlowdown 1) the QEMU guest of data/recordings/ executed (TCG, no KVM: 30-60x slower
 * than hardware, scripts/record/FORMAT.md "Timestamps"). bench/fidelity.ts runs the machine at that
 * slowdown, so that the timer interrupts and what they run (the tick's softirqs, RCU, timers, the
 * scheduler's) land in a workload as often as in its recordings.
 *
 * The derivation (reproducible from the recordings alone, one number for the whole catalogue):
 * - The tick is the recordings' yardstick of on-CPU time (FORMAT.md: the guest clock can be off by a
 *   constant factor per boot, and under a loaded host missed ticks are coalesced, so recorded durations
 *   and sched_stat_runtime sums are not comparable across recordings, tick counts are): a CPU running a
 *   workload task takes its LAPIC timer interrupt every TICK_NS of guest time, so the workload's timer
 *   interrupts × TICK_NS is the guest CPU time it took. Counted in each traced run: the graph run's
 *   hrtimer_interrupt calls (what fn J compares) and the events run's local_timer_entry events (what
 *   ev J compares).
 * - The simulated side: the on-CPU time of the workload's tasks (Σ sum_exec_runtime,
 *   fidelity_run.ts SimResult.onCpuNs) at hardware speed, slowdown 1.
 * - Per recorded run, the ratio recorded CPU time / simulated CPU time; the slowdown is the median of
 *   the ratios of every traced run (graph and events) of every recording, except `background`
 *   recordings (the idle system: its ticks are not the workload's CPU time) and runs with fewer than
 *   MIN_TICKS ticks (a ratio of 1-2 ticks is mostly sampling noise).
 * The full `npm run fidelity` derives it afresh (its first pass, at hardware speed, gives both the
 * simulated CPU times and FIDELITY.md's hardware-speed summary) and stores it in
 * bench/recording_speed.json, which single-workload runs read.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Recording } from '../scripts/record/recording';

/** the guest's tick period: CONFIG_HZ 250 (Debian's 6.1) */
export const TICK_NS = 4e6;
/** runs with fewer ticks than this do not vote */
export const MIN_TICKS = 5;

/** A recording's timer interrupts per traced run: graph (hrtimer_interrupt calls), events (local_timer_entry events). */
export function recordedTicks(rec: Recording): { graph: number; events: number } {
  const fi = rec.functions.indexOf('hrtimer_interrupt');
  const ei = rec.events.indexOf('local_timer_entry');
  return { graph: fi >= 0 ? rec.calls[fi] : 0, events: ei >= 0 ? rec.eventCounts[ei] : 0 };
}

export interface SpeedSample { workload: string; run: 'graph' | 'events'; ticks: number; simOnCpuNs: number; ratio: number }

/** The samples of one recording (none for a `background` one or one whose simulated run took no CPU time). */
export function speedSamples(rec: Recording, simOnCpuNs: number): SpeedSample[] {
  if (rec.flags.includes('background') || !(simOnCpuNs > 0)) return [];
  const t = recordedTicks(rec);
  const out: SpeedSample[] = [];
  for (const run of ['graph', 'events'] as const) {
    if (!rec.runs[run] || t[run] < MIN_TICKS) continue;
    out.push({ workload: rec.name, run, ticks: t[run], simOnCpuNs, ratio: (t[run] * TICK_NS) / simOnCpuNs });
  }
  return out;
}

/** The median ratio, rounded to 0.1 (the slowdown of the recordings' CPU). */
export function deriveSlowdown(samples: readonly SpeedSample[]): number {
  if (!samples.length) throw new Error('fidelity: no recording to derive the recordings\' CPU speed from');
  const r = samples.map((s) => s.ratio).sort((a, b) => a - b);
  const mid = r.length >> 1;
  const med = r.length % 2 ? r[mid] : (r[mid - 1] + r[mid]) / 2;
  return Math.round(med * 10) / 10;
}

export interface StoredSpeed { slowdown: number; samples: number; graphMedian: number; eventsMedian: number; seed: number }

const STORE = path.join(__dirname, '..', '..', 'bench', 'recording_speed.json');

/** The slowdown the last full fidelity run derived (bench/recording_speed.json). */
export function storedSlowdown(): StoredSpeed {
  return JSON.parse(fs.readFileSync(STORE, 'utf8')) as StoredSpeed;
}

/** Store a derived slowdown with what it came from. */
export function storeSlowdown(samples: readonly SpeedSample[], seed: number): StoredSpeed {
  const of = (run: string): number => { const s = samples.filter((x) => x.run === run); return s.length ? deriveSlowdown(s) : NaN; };
  const v: StoredSpeed = { slowdown: deriveSlowdown(samples), samples: samples.length, graphMedian: of('graph'), eventsMedian: of('events'), seed };
  fs.writeFileSync(STORE, JSON.stringify(v, null, 2) + '\n');
  return v;
}
