/**
 * The machine's CPU speed (MachineOptions.cpuSlowdown): the simulated time of CPU work (kernel
 * functions, modelled copies, programs' compute) scales with it, timers and sleeps do not; 1 (the
 * default, what users get) is hardware speed. And the fidelity harness's derivation of the recordings'
 * slowdown (bench/fidelity_speed.ts).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { fnCost, MAX_CPU_SLOWDOWN } from '../../src/machine/paths/kexec';
import { runSimulated } from '../../bench/fidelity_run';
import { deriveSlowdown, MIN_TICKS, speedSamples, TICK_NS } from '../../bench/fidelity_speed';
import type { Recording } from '../../scripts/record/recording';

// gzip's compute in user space (u.cpu), dd's copies from /dev/zero (modelled kernel work) and the
// kernel functions of both: long enough to take many ticks when slowed down
const SETUP = 'dd if=/dev/urandom of=/root/f bs=64k count=4 2>/dev/null';
const CMD = "sh -c 'gzip -c /root/f > /dev/null; dd if=/dev/zero of=/dev/null bs=1M count=8 2>/dev/null'";
const ticks = (r: { functions: ReadonlyMap<string, number> }): number => r.functions.get('hrtimer_interrupt') ?? 0;

describe('machine: the CPU speed (cpuSlowdown)', function () {
  this.timeout(120000);

  it('costs each kernel function its hardware cost × the slowdown (rounded, at least 1 ns)', () => {
    for (const id of [1, 77, 4096, 100000]) {
      const c = fnCost(id);
      expect(c).to.be.within(18, 127);
      expect(fnCost(id, 1)).to.equal(c);
      expect(fnCost(id, 40)).to.equal(c * 40);
      expect(fnCost(id, 2.5)).to.equal(Math.round(c * 2.5));
      expect(fnCost(id, 0.001)).to.equal(1);
    }
  });

  it('takes a slowdown in (0, MAX_CPU_SLOWDOWN] only; the default is 1', () => {
    expect(new Machine({ defaultSystem: false }).cpuSlowdown).to.equal(1);
    expect(() => new Machine({ defaultSystem: false, cpuSlowdown: 0 })).to.throw(RangeError);
    expect(() => new Machine({ defaultSystem: false, cpuSlowdown: MAX_CPU_SLOWDOWN + 1 })).to.throw(RangeError);
    expect(() => new Machine({ defaultSystem: false, cpuSlowdown: NaN })).to.throw(RangeError);
  });

  it('slowdown 1 is the default machine: the same run, call for call and nanosecond for nanosecond', () => {
    const a = runSimulated(CMD, { setup: SETUP, seed: 3 });
    const b = runSimulated(CMD, { setup: SETUP, seed: 3, cpuSlowdown: 1 });
    expect(b.virtualNs).to.equal(a.virtualNs);
    expect(b.onCpuNs).to.equal(a.onCpuNs);
    expect([...b.functions]).to.deep.equal([...a.functions]);
    expect([...b.events]).to.deep.equal([...a.events]);
  });

  it('a CPU-bound workload\'s on-CPU time and its ticks scale with the slowdown; its work does not', () => {
    const fast = runSimulated(CMD, { setup: SETUP, seed: 3 });
    const slow = runSimulated(CMD, { setup: SETUP, seed: 3, cpuSlowdown: 20 });
    expect(fast.status).to.equal(0);
    expect(slow.status).to.equal(0);
    expect(slow.output).to.equal(fast.output);
    expect(fast.onCpuNs).to.be.greaterThan(1e6);
    // 20× the CPU time (the ticks' own work, run at the same speed, adds a little, and so do the RCU
    // callbacks of the workload's frees: the slow run spans their grace periods and runs them in its
    // own softirqs, the fast one ends before they are due).  The kernel work of one run is not the
    // other's call for call: the recorded variants each entry runs are drawn from the machine's path
    // stream, which the slow run's extra ticks advance differently (seed 3: exit_group's teardown
    // variants take 29.7k calls at speed 1, 44.8k at 20, a ratio of 22.8; over seeds 1..6 the ratio
    // spans 19.8..22.8), so the ratio is the median of five seeds'
    const ratios = [1, 2, 3, 4, 5].map((seed) => seed === 3 ? slow.onCpuNs / fast.onCpuNs
      : runSimulated(CMD, { setup: SETUP, seed, cpuSlowdown: 20 }).onCpuNs / runSimulated(CMD, { setup: SETUP, seed }).onCpuNs);
    expect(ratios.sort((x, y) => x - y)[2]).to.be.within(19, 23);
    // a tick per 4 ms on a busy CPU: at hardware speed the run is too short for more than a few
    expect(ticks(fast)).to.be.at.most(Math.ceil(fast.onCpuNs / 4e6) + 1);
    expect(ticks(slow)).to.be.within(Math.floor(slow.onCpuNs / 4e6) - 2, Math.ceil(slow.onCpuNs / 4e6) + 2);
    expect(ticks(slow)).to.be.at.least(10 * Math.max(1, ticks(fast)));
    // the same system calls: a slower CPU does the same work
    expect(slow.syscalls).to.deep.equal(fast.syscalls);
  });

  it('timers and sleeps keep real time: sleep 1 takes a second at any speed', () => {
    const fast = runSimulated('sleep 1', { seed: 3 });
    const slow = runSimulated('sleep 1', { seed: 3, cpuSlowdown: 40 });
    expect(fast.virtualNs).to.be.within(1e9, 1.01e9);
    // the slow CPU's exec and exit take longer, the sleep itself does not
    expect(slow.virtualNs - slow.onCpuNs).to.be.within(1e9, 1.01e9 + (slow.onCpuNs - fast.onCpuNs));
    expect(slow.virtualNs).to.be.lessThan(1.2e9);
  });
});

describe('fidelity: the recordings\' CPU speed (bench/fidelity_speed.ts)', () => {
  const rec = (name: string, hrt: number, lte: number, flags: string[] = []): Recording => ({
    name, flags, functions: ['hrtimer_interrupt', 'f'], calls: [hrt, 9], events: ['local_timer_entry'], eventCounts: [lte],
    runs: { graph: { seconds: 1 }, events: { seconds: 1 } },
  } as unknown as Recording);

  it('takes each traced run\'s ticks × 4 ms over the simulated on-CPU time at hardware speed', () => {
    const s = speedSamples(rec('w', 40, 20), 2e6);
    expect(s.map((x) => [x.run, x.ratio])).to.deep.equal([['graph', 40 * TICK_NS / 2e6], ['events', 20 * TICK_NS / 2e6]]);
  });

  it('leaves out background recordings, runs with too few ticks and runs that took no simulated CPU time', () => {
    expect(speedSamples(rec('idle', 100, 100, ['background']), 1e6)).to.deep.equal([]);
    expect(speedSamples(rec('w', 100, 100), 0)).to.deep.equal([]);
    expect(speedSamples(rec('w', 100, MIN_TICKS - 1), 1e6).map((x) => x.run)).to.deep.equal(['graph']);
  });

  it('is the median ratio over every run of every recording, one number', () => {
    const samples = [rec('a', 10, 5), rec('b', 40, 30), rec('c', 80, 60)].flatMap((r) => speedSamples(r, 1e6));
    // ratios 40, 20, 160, 120, 320, 240: the median of six is the mean of the middle two
    expect(deriveSlowdown(samples)).to.equal(140);
    expect(() => deriveSlowdown([])).to.throw();
  });
});
