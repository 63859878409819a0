/**
 * __schedule runs with local interrupts off (kernel/sched/core.c: local_irq_disable before
 * rcu_note_context_switch, back on in finish_task_switch or at its end when nothing switched): a
 * device's hardirq arriving meanwhile is taken once they are on, in the context of the task then
 * running (Cpu.schedIrqsOff, Machine.irq; the local APIC timer's are not held back). And the timer events of recorded trees (paths/tpsites.ts):
 * init_timer_key's and schedule_timeout's timer_init, __timer_delete_sync's timer_cancel.
 * Checked against data/recordings/dd-direct-read.json.gz (its events run: dd sleeps in
 * blk_io_schedule for each 64 KiB read, the disk interrupt and the request's completion are never
 * in dd's context; 128 timer_init, 65 timer_cancel).
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { newEnv } from '../../src/machine/paths/kexec';
import { SERIAL_IRQ } from '../../src/machine/drivers/serial8250';
import { compileShape } from '../../src/machine/paths/compile';
import { OP_TP, tpIndex } from '../../src/machine/paths/dsl';
import { functionId } from '../../src/kernel/ftrace';
import { runSimulated } from '../../bench/fidelity_run';
import { recordedSide } from '../../bench/fidelity';
import { findRecording, loadRecording } from '../../scripts/record/recording';

installKernelSemantics();

describe('machine: interrupts off in __schedule', function () {
  this.timeout(120000);

  it('keeps a device hardirq pending while the CPU is in __schedule, and takes it after the switch', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    const c = m.cpus[0];
    m.runFor(10e6);
    c.schedIrqsOff = true;
    const before = c.irqs;
    m.irq(c, 'serial_irq', newEnv('serial_irq', { irq: SERIAL_IRQ, bytes: 0 }));
    expect(c.irqs).to.equal(before);
    expect(c.deferredIrqs.length).to.equal(1);
    // the next schedule on the CPU (a command's tasks come and go) turns interrupts back on
    const p = m.procs.spawnCommand('echo hi', () => undefined, () => undefined);
    m.runUntil(() => p.finished, 10e9);
    expect(p.finished).to.equal(true);
    // (the CPU may be inside the next __schedule when the command finishes: once it runs its idle task
    // that switch is over and interrupts are on)
    m.runUntil(() => m.current(c.id).idle, 1e9);
    expect(c.schedIrqsOff).to.equal(false);
    expect(c.deferredIrqs.length).to.equal(0);
    expect(c.irqs).to.be.greaterThan(before);
  });

  it('fires timer_init for init_timer_key and a timer-arming schedule_timeout, timer_cancel for its delete', () => {
    const names = ['io_schedule_timeout', 'schedule_timeout', 'lock_timer_base', 'schedule', '__timer_delete_sync', 'detach_if_pending', 'init_timer_key', 'enqueue_timer'];
    const ids = names.map((n) => functionId(n));
    const ix = (n: string): number => names.indexOf(n);
    const tps = (shape: string, ev: string): number => {
      const code = [...compileShape('t', shape, 0, shape.length, -1, (f) => ids[f], false).code];
      const tp = tpIndex(ev);
      return code.filter((op, i) => op === tp && code[i - 1] === OP_TP).length;
    };
    // io_schedule_timeout(schedule_timeout(lock_timer_base enqueue_timer schedule __timer_delete_sync(lock_timer_base detach_if_pending)))
    const armed = `${ix('io_schedule_timeout')}(${ix('schedule_timeout')}(${ix('lock_timer_base')} ${ix('enqueue_timer')} ${ix('schedule')} ${ix('__timer_delete_sync')}(${ix('lock_timer_base')} ${ix('detach_if_pending')})))`;
    expect(tps(armed, 'timer:timer_init')).to.equal(1);
    expect(tps(armed, 'timer:timer_start')).to.equal(1);
    expect(tps(armed, 'timer:timer_cancel')).to.equal(1);
    // MAX_SCHEDULE_TIMEOUT: schedule_timeout only calls schedule, no timer
    expect(tps(`${ix('schedule_timeout')}(${ix('schedule')})`, 'timer:timer_init')).to.equal(0);
    expect(tps(`${ix('init_timer_key')}`, 'timer:timer_init')).to.equal(1);
  });

  it('dd iflag=direct: dd sleeps for each read, the disk interrupt is not in its context; the timer events as recorded', () => {
    const rec = loadRecording(findRecording('dd-direct-read')!);
    const real = recordedSide(rec).events;
    // at a recording speed (23x: the events runs' median when this was written) where dd's submit path is
    // shorter than the disk's service time, so that dd sleeps for each read as recorded: the test is of
    // where the completions then land, not of the derived speed (bench/recording_speed.json moves with each
    // full fidelity run; from ~24x the disk completes before dd sleeps for some of the reads)
    const sim = runSimulated(rec.command, { setup: rec.setup, warmUp: true, seed: 1, cpuSlowdown: 23 }).events;
    const issued = sim.get('block_rq_issue') ?? 0;
    expect(issued).to.equal(real.get('block_rq_issue'));
    // the recording: 0 block_rq_complete / irq_handler_entry / sched_wakeup in dd's context, 68 sched_switch
    expect(real.get('block_rq_complete') ?? 0).to.equal(0);
    expect(sim.get('block_rq_complete') ?? 0).to.be.below(issued / 8);
    expect(sim.get('irq_handler_entry') ?? 0).to.be.below(issued / 8);
    expect(sim.get('sched_switch') ?? 0).to.be.at.least(Math.floor(issued * 0.9));
    for (const ev of ['timer_init', 'timer_cancel']) {
      const r = real.get(ev) ?? 0;
      expect(r, ev).to.be.greaterThan(60);
      expect(sim.get(ev) ?? 0, ev).to.be.within(Math.floor(r * 0.9), Math.ceil(r * 1.1));
    }
  });

  it('dd iflag=direct on CPU0, as recorded: the reads complete on CPU2, and dd is woken through CPU0\'s wake list in the idle task', () => {
    const rec = loadRecording(findRecording('dd-direct-read')!);
    const real = recordedSide(rec).events;
    // the events run's dd issued every request on CPU0 (its eventRecords); the recording has no
    // block_rq_complete, call_function_single_entry or sched_wakeup in dd's context
    for (const ev of ['block_rq_complete', 'call_function_single_entry', 'sched_wakeup']) expect(real.get(ev) ?? 0, ev).to.equal(0);
    const sim = runSimulated(rec.command, { setup: rec.setup, warmUp: true, seed: 1, cpuSlowdown: 23, cpu: 0 }).events;
    expect(sim.get('block_rq_issue')).to.equal(real.get('block_rq_issue'));
    for (const ev of ['block_rq_complete', 'call_function_single_entry', 'sched_wakeup']) expect(sim.get(ev) ?? 0, ev).to.equal(0);
  });
});
