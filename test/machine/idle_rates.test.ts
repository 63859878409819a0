/**
 * The idle system's event rates against the recording of the real Debian 12 guest idling
 * (data/recordings/idle.json.gz, the `idle` workload: `sleep 5` with every tracepoint enabled, its
 * events run's eventRecords, scripts/record/FORMAT.md).  The reference window is the quiet system:
 * from 1 s after the start (the launcher's `sh` exec'ing `sleep` queues RCU callbacks whose grace
 * period runs in the first ~60 ms, with the ticks it keeps) to the wakeup of the `sleep` (then the
 * launcher runs again), so no launcher task runs inside it: every event is the services' and the
 * kernel's own.  (system.json's `idle` rates are not used: the recorder's `date` calls ran inside
 * that window, and their RCU grace periods, ticks and kworkers cannot be told apart from the
 * system's; it shows twice the quiet system's ticks.)
 *
 * Tolerances: ±25% for the events of the idle system's own mechanisms (ticks, softirqs, timers,
 * switches, wakeups, RCU, workqueues, systemd's syscalls), ±20% for the NO_HZ tick (tick_stop,
 * hrtimer_cancel); the window holds ~4 s of events, so rarer events carry more counting noise.
 * softirq_entry ±30%: the machine has no block I/O while idle, so neither the BLOCK softirq nor
 * blk-wbt's stat window timer (blk_stat_timer_fn, 1.5/s of the recording's TIMER softirqs, armed
 * by the journal's writes) runs.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import type { Task } from '../../src/machine/include/sched';

interface IdleWorkload {
  events: string[];
  /** flat [tUs, pid, cpu, event, flags, fields, ...] */
  eventRecords: (number | string)[];
}

/** The quiet idle system of the recording: per-second rates of each event and of each thread's switches out. */
function recordedRates(): { rates: Map<string, number>; switches: Map<string, number> } {
  let d = __dirname;
  for (let i = 0; i < 5 && !fs.existsSync(path.join(d, 'data', 'recordings', 'idle.json.gz')); i++) d = path.dirname(d);
  const w = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(d, 'data', 'recordings', 'idle.json.gz'))).toString('latin1')) as IdleWorkload;
  const rec = w.eventRecords;
  const START_US = 1e6;
  let end = Infinity;
  for (let i = 0; i < rec.length; i += 6) {
    if (w.events[rec[i + 3] as number] === 'sched_wakeup' && / ?comm=sleep /.test(rec[i + 5] as string)) { end = rec[i] as number; break; }
  }
  const counts = new Map<string, number>();
  const switches = new Map<string, number>();
  for (let i = 0; i < rec.length; i += 6) {
    const t = rec[i] as number;
    if (t < START_US || t >= end) continue;
    const ev = w.events[rec[i + 3] as number];
    counts.set(ev, (counts.get(ev) ?? 0) + 1);
    if (ev === 'sched_switch') {
      const prev = /prev_comm=(\S+)/.exec(rec[i + 5] as string)![1];
      switches.set(prev, (switches.get(prev) ?? 0) + 1);
    }
  }
  const secs = (end - START_US) / 1e6;
  const per = (x: Map<string, number>) => new Map([...x].map(([k, v]) => [k, v / secs]));
  return { rates: per(counts), switches: per(switches) };
}

const EVENTS: [string, number][] = [
  ['sched_switch', 0.25], ['sched_wakeup', 0.25], ['local_timer_entry', 0.25], ['softirq_entry', 0.3],
  ['hrtimer_start', 0.25], ['hrtimer_expire_entry', 0.25], ['cpu_idle', 0.25], ['rcu_utilization', 0.25],
  ['timer_start', 0.25], ['timer_expire_entry', 0.25], ['sched_stat_runtime', 0.25], ['sys_enter', 0.25],
  ['workqueue_execute_start', 0.25], ['workqueue_queue_work', 0.25], ['mm_compaction_kcompactd_sleep', 0.25],
  ['tick_stop', 0.2], ['hrtimer_cancel', 0.2],
];
/** switches out per second; rcu_preempt none: the quiet system queues no RCU callbacks, so it runs no grace period */
const THREADS: [string, number][] = [['rcu_preempt', 0], ['systemd', 0.25], ['kcompactd0', 0.25]];

/** Simulated rates over `secs` of an idle default machine. */
function simulate(seed: number, secs: number): { rates: Map<string, number>; switches: Map<string, number> } {
  const m = new Machine({ seed });
  m.runFor(1e9); // boot settles (the kthreads' first timers)
  const counts = new Map<string, number>();
  const switches = new Map<string, number>();
  const probes: [string, (...a: unknown[]) => void][] = EVENTS.map(([ev]) => [ev, () => { counts.set(ev, (counts.get(ev) ?? 0) + 1); }]);
  probes.push(['sched_switch', (_d, _p, prev) => { const c = (prev as Task).comm; switches.set(c, (switches.get(c) ?? 0) + 1); }]);
  for (const [ev, f] of probes) tracepointProbeRegister(ev, f, null);
  try {
    m.runFor(secs * 1e9);
  } finally {
    for (const [ev, f] of probes) tracepointProbeUnregister(ev, f, null);
  }
  const per = (x: Map<string, number>) => new Map([...x].map(([k, v]) => [k, v / secs]));
  return { rates: per(counts), switches: per(switches) };
}

describe('machine: the idle system at the recorded rates (data/recordings/idle.json.gz, the quiet system)', function () {
  this.timeout(120000);
  const real = recordedRates();
  const sim = simulate(1, 20);
  for (const [ev, tol] of EVENTS) {
    it(`${ev} within ${tol * 100}% of the recording`, () => {
      const want = real.rates.get(ev) ?? 0;
      const got = sim.rates.get(ev) ?? 0;
      expect(got, `${ev}: simulated ${got.toFixed(1)}/s, recorded ${want.toFixed(1)}/s`).to.be.within(want * (1 - tol), want * (1 + tol));
    });
  }
  for (const [comm, tol] of THREADS) {
    it(`${comm} switches out within ${tol * 100}% of the recording`, () => {
      const want = real.switches.get(comm) ?? 0;
      const got = sim.switches.get(comm) ?? 0;
      expect(got, `${comm}: simulated ${got.toFixed(1)}/s, recorded ${want.toFixed(1)}/s`).to.be.within(want * (1 - tol), want * (1 + tol));
    });
  }
  it('the services are quiet: only systemd enters the kernel', () => {
    for (const c of ['systemd-journal', 'rsyslogd', 'sshd', 'nginx', 'cron']) expect(sim.switches.get(c) ?? 0, c).to.equal(0);
  });
  it('is deterministic under --seed', () => {
    const again = simulate(1, 3);
    const other = simulate(1, 3);
    expect([...again.rates]).to.deep.equal([...other.rates]);
    expect([...again.switches]).to.deep.equal([...other.switches]);
  });
});
