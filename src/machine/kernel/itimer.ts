/**
 * The real-time interval timer (kernel/time/itimer.c): alarm(2) (alarm_setitimer) arms ITIMER_REAL,
 * the hrtimer `it_real_fn`, which sends SIGALRM to the process when it expires; it returns the seconds
 * left of the previous alarm (rounded up, 0 if none), alarm(0) disarms.  setitimer(ITIMER_REAL, ...)
 * arms the same timer with an interval; the programs pass its value and interval in ns (`value`,
 * `interval`).  dbench 4.0 reports its progress this way (alarm(1) re-armed by its SIGALRM handler).
 */
import type { Task, Process } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { KTimer, type TimerMachine } from './timer';
import { sendSignal } from './signal';

const SIGALRM = 14, EINVAL = 22, ITIMER_REAL = 0;

/** signal_struct's it_real timer of a process */
class RealTimer {
  interval = 0;
  readonly timer: KTimer;
  constructor(readonly proc: Process) {
    this.timer = new KTimer('it_real_fn', (m, _c, e) => {
      if (this.proc.exited) return;
      const r = sendSignal(this.proc, SIGALRM);
      (e.wakes as Task[]).push(...r.wake);
      if (this.interval > 0) m.timers.mod(this.timer, this.timer.cpu, this.timer.expires + this.interval);
    }, true);
  }
}
const realTimers = new WeakMap<Process, RealTimer>();

export const itimer = new Semantics<TimerMachine>('kernel/itimer');

/** arm (ns 0: disarm) the process's ITIMER_REAL; the ns that were left of the previous one */
function setReal(m: TimerMachine, cpu: number, p: Process, ns: number, interval: number): number {
  let rt = realTimers.get(p);
  if (!rt) realTimers.set(p, rt = new RealTimer(p));
  const left = rt.timer.armed ? Math.max(0, rt.timer.expires - m.now) : 0;
  rt.interval = interval;
  if (ns > 0) m.timers.mod(rt.timer, cpu, m.now + ns); else m.timers.del(rt.timer);
  return left;
}

itimer.syscall('alarm', (m, c, t, e) => {
  const left = setReal(m, c.id, t.proc, Number(e.a[0]) * 1e9, 0);
  e.hrfn = 'it_real_fn';
  // alarm_setitimer: a remainder under a second still reports 1 (and rounds half a second up)
  e.ret = left > 0 ? Math.max(1, Math.round(left / 1e9)) : 0;
  return H_CONT;
});

itimer.syscall('setitimer', (m, c, t, e) => {
  if (Number(e.a[0]) !== ITIMER_REAL) { e.ret = -EINVAL; return H_CONT; }
  setReal(m, c.id, t.proc, Number(e.value ?? 0), Number(e.interval ?? 0));
  e.hrfn = 'it_real_fn';
  e.ret = 0;
  return H_CONT;
});
