/**
 * newidle_balance's next_balance (src/machine/kernel/timer.ts Timers.newidle): a CPU going idle after
 * a busy stretch, whose next balance was set at the busy interval (busy_factor 16), balances at its
 * next idle tick once the domain's idle interval since its last balance has passed
 * (update_next_balance), so the ticks of CPUs that just went idle raise SCHED_SOFTIRQ, as the idle
 * recording's do: its events run (every task counted, the launcher's sh and sleep starting on a
 * settled system) has 74 SCHED softirqs for 146 ticks, 69 of them raised by the tick of an idle CPU.
 */
import { expect } from 'chai';
import { runSimulated } from '../../bench/fidelity_run';
import { storedSlowdown } from '../../bench/fidelity_speed';
import { recordedCpu } from '../../bench/fidelity';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { SCHED_SOFTIRQ } from '../../src/machine/kernel/timer';

describe('newidle balance: next_balance at the idle interval', () => {
  it('pulls a busy CPU\'s next balance in to its last balance plus the idle interval, never later', () => {
    const m = new Machine({ seed: 1 });
    const c = m.cpus[0];
    const b = m.timers.bases[0];
    b.lastBalance = 100;
    b.nextBalance = 116;
    m.timers.newidle(c);
    expect(b.nextBalance).to.equal(102);
    // an earlier next balance stays
    b.nextBalance = 101;
    m.timers.newidle(c);
    expect(b.nextBalance).to.equal(101);
  });

  it('idle: the events run\'s SCHED softirqs within 20% of the recording\'s (74)', function () {
    this.timeout(120000);
    const rec = loadRecording(findRecording('idle')!);
    const E = rec.eventRecords;
    let real = 0;
    for (let i = 0; i < E.length; i += 6) if (rec.events[E[i + 3] as number] === 'softirq_entry' && /action=SCHED/.test(E[i + 5] as string)) real++;
    expect(real).to.equal(74);
    let n = 0;
    let on = true;
    const probe = (_d: unknown, vec: unknown): void => { if (on && Number(vec) === SCHED_SOFTIRQ) n++; };
    // counted as the fidelity measure counts a background workload: every task, from the recorder's
    // open of the launcher's fifo (the probe counts from the start: reset at that open)
    const open = (_d: unknown, regs: unknown, nr: unknown): void => {
      const a = (regs as { args?: unknown[] } | null)?.args?.[1];
      if (Number(nr) === 257 && a === '/tmp/rec-go') n = 0;
    };
    tracepointProbeRegister('softirq_entry', probe as never, null);
    tracepointProbeRegister('sys_enter', open as never, null);
    try {
      const sim = runSimulated(rec.command, { seed: 1, allTasks: true, cpu: recordedCpu(rec), cpuSlowdown: storedSlowdown().eventsMedian });
      on = false;
      // (the last open of the fifo is the recorder's, where the measure's counting starts too)
      expect(sim.events.get('softirq_entry') ?? 0).to.be.at.least(n);
    } finally {
      tracepointProbeUnregister('softirq_entry', probe as never, null);
      tracepointProbeUnregister('sys_enter', open as never, null);
    }
    expect(n).to.be.within(Math.floor(real * 0.8), Math.ceil(real * 1.2));
  });
});
