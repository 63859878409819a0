/**
 * Timers (kernel/time/hrtimer.c, tick-sched): sleeping tasks woken through the hrtimer interrupt
 * on their CPU (`timedWake`), clock_nanosleep, and the timer tracepoints' arguments.
 */
import type { CpuMachine } from '../include/cpu';
import { Semantics } from '../paths/semantics';
import { newEnv, H_CONT, H_SLEEP } from '../paths/kexec';
import { Task, TASK_INTERRUPTIBLE, TASK_RUNNING } from '../include/sched';
import { pushWakeups } from './sched/core';

const EINTR = 4;

export const time = new Semantics<CpuMachine>('kernel/time');

/** Wake `t` after `ns` through the hrtimer interrupt on its CPU. */
export function timedWake(m: CpuMachine, t: Task, ns: number): void {
  m.after(ns, () => {
    if (t.state === TASK_RUNNING) return;
    m.irq(m.cpus[t.cpu], 'hrtimer_wake_irq', newEnv('hrtimer', { p: t, irq: 236, hrfn: 'hrtimer_wakeup' }));
  });
}
time.hook('nanosleep', (m, c, t, e) => {
  if (e.slept) {
    e.ret = t.sigWoken ? -EINTR : 0;
    t.sigWoken = false;
    return H_CONT;
  }
  e.slept = true;
  const ns = Number(e.a[2]);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'hrtimer_nanosleep';
  timedWake(m, t, ns);
  return H_SLEEP;
});
time.hook('wake_sleeper', (m, c, _t, e) => pushWakeups(c, [e.p as Task]));
time.hook('timers', () => H_CONT);
time.tpArgs('local_timer_entry', () => [236]);
time.tpArgs('local_timer_exit', () => [236]);
