/**
 * POSIX interval timers (kernel/time/posix-timers.c): timer_create(2) gives the process a timer id
 * (the first free one, 0 up, as idr_alloc does) whose expiry sends a signal (SIGEV_SIGNAL, the
 * default SIGALRM) to the process; timer_settime(2) arms it relative (flags 0) or absolute
 * (TIMER_ABSTIME) on the hrtimer `posix_timer_fn`, with an interval that re-arms it; timer_delete.
 * coreutils' timeout arms its one timer this way (strace of Debian 12's `timeout 1 sleep 3`:
 * timer_create(CLOCK_REALTIME, {sigev_signo=SIGALRM, sigev_notify=SIGEV_SIGNAL}, [0]),
 * timer_settime(0, 0, {it_value={1, 0}}, NULL)).
 *
 * The programs pass the values as numbers: timer_create's `signo` (extra, default SIGALRM),
 * timer_settime's value and interval in ns (`value`, `interval`).
 */
import type { Task, Process } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { KTimer, type TimerMachine } from './timer';
import { sendSignal } from './signal';

const EINVAL = 22;
const SIGALRM = 14, TIMER_ABSTIME = 1;

/** one struct k_itimer */
class KItimer {
  interval = 0;
  readonly timer: KTimer;
  constructor(readonly proc: Process, readonly signo: number) {
    this.timer = new KTimer('posix_timer_fn', (m, _c, e) => {
      if (this.proc.exited) return;
      const r = sendSignal(this.proc, this.signo);
      (e.wakes as Task[]).push(...r.wake);
      if (this.interval > 0) m.timers.mod(this.timer, this.timer.cpu, this.timer.expires + this.interval);
    }, true);
  }
}
const itimers = new WeakMap<Process, (KItimer | null)[]>();

export const posixTimers = new Semantics<TimerMachine>('kernel/posix_timers');

posixTimers.syscall('timer_create', (_m, _c, t, e) => {
  const clock = Number(e.a[0]);
  // CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS/THREAD_CPUTIME_ID, CLOCK_BOOTTIME, CLOCK_*_ALARM
  if (clock < 0 || clock > 9) { e.ret = -EINVAL; return H_CONT; }
  const signo = Number(e.signo ?? SIGALRM);
  if (signo < 1 || signo > 64) { e.ret = -EINVAL; return H_CONT; }
  const l = itimers.get(t.proc) ?? [];
  itimers.set(t.proc, l);
  let id = l.indexOf(null);
  if (id < 0) id = l.length;
  l[id] = new KItimer(t.proc, signo);
  e.info = { id };
  e.ret = 0;
  return H_CONT;
});

function itimerOf(t: Task, id: number): KItimer | null {
  return itimers.get(t.proc)?.[id] ?? null;
}

/** timer_settime(id, flags, value, old): arm (value 0: disarm) on this CPU */
posixTimers.syscall('timer_settime', (m, c, t, e) => {
  const it = itimerOf(t, Number(e.a[0]));
  if (!it) { e.ret = -EINVAL; return H_CONT; }
  const ns = Number(e.value ?? 0);
  it.interval = Number(e.interval ?? 0);
  if (ns > 0) m.timers.mod(it.timer, c.id, Number(e.a[1]) & TIMER_ABSTIME ? ns : m.now + ns);
  else m.timers.del(it.timer);
  e.hrfn = 'posix_timer_fn';
  e.ret = 0;
  return H_CONT;
});

posixTimers.syscall('timer_delete', (m, _c, t, e) => {
  const id = Number(e.a[0]);
  const it = itimerOf(t, id);
  if (!it) { e.ret = -EINVAL; return H_CONT; }
  m.timers.del(it.timer);
  itimers.get(t.proc)![id] = null;
  e.ret = 0;
  return H_CONT;
});
