/**
 * The idle system's event rates against the recording of the real Debian 12 guest idling for 5.3 s
 * (data/recordings/system.json.gz `idle`, scripts/record/FORMAT.md).  The recorder's own `sh`, its
 * `sleep 5` and two `date` calls ran inside that window: the expected rate of each event leaves out
 * what happened in their context (byComm), and for sched_switch the switches out of them and the
 * as many switches into them (byKey prev_comm), for sched_wakeup their wakeups (byKey comm).
 *
 * Tolerances: ±25% for the events the idle system's own mechanisms make (ticks, softirqs, timers,
 * switches, wakeups, RCU, workqueues, systemd's syscalls); ±45% for the per-thread switch rates
 * (rcu_preempt's grace periods run longer under the recording's emulated CPUs).  Events the
 * recording shows only from the launcher's work (page faults, exec, block I/O of its files) are not
 * compared.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import type { Task } from '../../src/machine/include/sched';

interface IdleRecording {
  seconds: number;
  counts: Record<string, number>;
  byComm: Record<string, Record<string, number>>;
  byKey: Record<string, Record<string, number>>;
}

const LAUNCHER = ['sh', 'sleep', 'date'];

function recording(): IdleRecording {
  let d = __dirname;
  for (let i = 0; i < 5 && !fs.existsSync(path.join(d, 'data', 'recordings', 'system.json.gz')); i++) d = path.dirname(d);
  const f = path.join(d, 'data', 'recordings', 'system.json.gz');
  return (JSON.parse(zlib.gunzipSync(fs.readFileSync(f)).toString('latin1')) as { idle: IdleRecording }).idle;
}

/** The idle system's rate of `ev` in the recording, the launcher's share left out (per second). */
function systemRate(r: IdleRecording, ev: string): number {
  const n = r.counts[ev] ?? 0;
  const sum = (o: Record<string, number> | undefined): number => LAUNCHER.reduce((a, c) => a + (o?.[c] ?? 0), 0);
  let sub = sum(r.byComm[ev]);
  if (ev === 'sched_switch') sub = 2 * sum(r.byKey.sched_switch);
  if (ev === 'sched_wakeup') sub = sum(r.byKey.sched_wakeup);
  return (n - sub) / r.seconds;
}

const EVENTS: [string, number][] = [
  ['sched_switch', 0.25], ['sched_wakeup', 0.25], ['local_timer_entry', 0.25], ['softirq_entry', 0.25],
  ['hrtimer_start', 0.25], ['hrtimer_expire_entry', 0.25], ['cpu_idle', 0.25], ['rcu_utilization', 0.25],
  ['timer_start', 0.25], ['timer_expire_entry', 0.25], ['sched_stat_runtime', 0.25], ['sys_enter', 0.25],
  ['workqueue_execute_start', 0.25], ['workqueue_queue_work', 0.25], ['mm_compaction_kcompactd_sleep', 0.25],
];
const THREADS: [string, number][] = [['rcu_preempt', 0.45], ['systemd', 0.25], ['kcompactd0', 0.25]];

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

describe('machine: the idle system at the recorded rates (data/recordings/system.json.gz idle)', function () {
  this.timeout(120000);
  const r = recording();
  const sim = simulate(1, 20);
  for (const [ev, tol] of EVENTS) {
    it(`${ev} within ${tol * 100}% of the recording`, () => {
      const want = systemRate(r, ev);
      const got = sim.rates.get(ev) ?? 0;
      expect(got, `${ev}: simulated ${got.toFixed(1)}/s, recorded ${want.toFixed(1)}/s`).to.be.within(want * (1 - tol), want * (1 + tol));
    });
  }
  for (const [comm, tol] of THREADS) {
    it(`${comm} switches out within ${tol * 100}% of the recording`, () => {
      const want = (r.byKey.sched_switch[comm] ?? 0) / r.seconds;
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
