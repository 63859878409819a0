/**
 * RCU (kernel/rcu/tree.c) as the idle system shows it: a CPU where call_rcu queued a callback (a
 * recorded path calling it: exit, exec, file and dentry frees; the idle system's services and
 * kthreads queue none, the idle recording's call_rcu calls are all the launcher's) has callbacks
 * waiting for a grace period, so it keeps its tick (rcu_needs_cpu) and raises RCU_SOFTIRQ; rcu_core on such a CPU asks the grace-period kthread (rcu_preempt) for a grace
 * period and wakes it; the kthread runs rcu_gp_init, waits jiffies_till_first_fqs in
 * rcu_gp_fqs_loop (schedule_timeout: a process_timeout timer), forces quiescent states, and
 * rcu_gp_cleanup ends the grace period: the CPUs whose callbacks it covered run them (RCU_SOFTIRQ)
 * and may stop their tick.
 */
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { symbolName } from '../../kernel/kallsyms';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_PUSHED, pushPath, newEnv } from '../paths/kexec';
import { recordedVariant } from './recorded';
import { pushScheduleTimeout, IDLE_RECORDING, type TimerMachine } from './timer';

/** jiffies_till_first_fqs at HZ=250 (RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV = 1; the recording's process_timeout timeouts) */
const FQS_JIFFIES = 1;

/** The grace-period machinery of one machine. */
export class Rcu {
  /** the grace-period kthread (rcu_preempt) */
  gpTask: Task | null = null;
  /** a grace period is requested or running */
  gpActive = false;
  /** the kthread waits for a request (swait, no timeout; at boot it has not run yet) */
  gpWaiting = true;
  /** per CPU: callbacks queued, waiting for the next grace period to start */
  readonly cbs: boolean[];
  /** per CPU: callbacks waiting for the running grace period */
  readonly waiting: boolean[];
  constructor(private readonly m: TimerMachine) {
    this.cbs = m.cpus.map(() => false);
    this.waiting = m.cpus.map(() => false);
  }

  /** call_rcu on CPU `c`: a callback waits there for the next grace period. */
  queued(c: Cpu): void {
    this.cbs[c.id] = true;
    const b = this.m.timers.bases[c.id];
    b.rcuPending = true;
    b.rcuHoldUntil = Infinity;
  }

  /** rcu_core on `c`: true when it starts a grace period and wakes the kthread (rcu_start_this_gp). */
  core(c: Cpu): boolean {
    if (!this.cbs[c.id]) return false;
    this.cbs[c.id] = false;
    this.waiting[c.id] = true;
    if (this.gpActive) return false;
    this.gpActive = true;
    return this.gpWaiting && this.gpTask !== null;
  }

  /** rcu_gp_cleanup: the CPUs whose callbacks waited run them at their next tick, and may then stop it. */
  gpEnd(): void {
    const m = this.m;
    for (const c of m.cpus) {
      if (!this.waiting[c.id]) continue;
      this.waiting[c.id] = false;
      const b = m.timers.bases[c.id];
      b.rcuPending = true;
      b.rcuHoldUntil = this.cbs[c.id] ? Infinity : 0;
    }
    this.gpActive = this.cbs.some((x) => x);
  }
}

export interface RcuMachine extends TimerMachine {
  readonly rcu: Rcu;
}

export const rcu = new Semantics<RcuMachine>('kernel/rcu/tree');

/** __call_rcu_common: the callback is queued on this CPU's segmented list. */
rcu.hook('rcu_call', (m, c) => { m.rcu.queued(c); return H_CONT; });
rcu.at('call_rcu', 'rcu_call');

/** rcu_core's tree (RCU_SOFTIRQ): the recorded one that wakes the grace-period kthread when this one does. */
rcu.hook('rcu_core_body', (m, c, _t, e) => {
  const wake = m.rcu.core(c);
  if (wake) (e.wakes as Task[]).push(m.rcu.gpTask as Task);
  const p = recordedVariant(m.timers.rand, 'softirq:rcu_core_si', IDLE_RECORDING, wake ? ['try_to_wake_up'] : [], wake ? [] : ['try_to_wake_up']);
  e.recorded = true;
  pushPath(c.ks, p ?? 'rcu_core_template', e);
  return H_PUSHED;
});

/** The grace-period kthread's loop (rcu_gp_kthread), one step per call of its body. */
export function rcuGpKthread(m: RcuMachine): (t: Task) => void {
  return (t) => {
    const r = m.rcu;
    r.gpTask = t;
    const step = (t.scratch.gpStep as number | undefined) ?? 0;
    switch (step) {
      case 0: // wait for a request
        if (!r.gpActive) {
          r.gpWaiting = true;
          t.state = TASK_INTERRUPTIBLE;
          t.wchan = 'rcu_gp_kthread';
          pushPath(t.ks, 'rcu_gp_wait', newEnv('rcu_gp'));
          return;
        }
        r.gpWaiting = false;
        t.scratch.gpStep = 1;
        pushPath(t.ks, 'rcu_gp_init_path', newEnv('rcu_gp'));
        return;
      case 1: // rcu_gp_fqs_loop: wait, then force quiescent states (%rcu_fqs_scan decides whether another round is due)
        pushPath(t.ks, 'rcu_gp_fqs_scan', newEnv('rcu_gp'));
        pushPath(t.ks, 'rcu_gp_fqs_sleep', newEnv('rcu_gp'));
        return;
      default:
        t.scratch.gpStep = 0;
        pushPath(t.ks, 'rcu_gp_cleanup_path', newEnv('rcu_gp'));
    }
  };
}
rcu.hook('rcu_fqs_sleep', (m, _c, t) => {
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'rcu_gp_fqs_loop';
  pushScheduleTimeout(t, FQS_JIFFIES * m.tickNs);
  return H_PUSHED;
});
rcu.hook('rcu_gp_end', (m) => { m.rcu.gpEnd(); return H_CONT; });
/**
 * force_qs_rnp's outcome: CPUs idle in dyntick-idle are reported by the scan; a CPU running (or still
 * ticking) whose tick has not yet run rcu_core keeps the grace period open for another round.
 */
rcu.hook('rcu_fqs_scan', (m, _c, t) => {
  const open = m.cpus.some((c) => m.rcu.waiting[c.id] && m.timers.bases[c.id].rcuPending && !(c.idling && m.timers.bases[c.id].tickStopped));
  t.scratch.gpStep = open ? 1 : 2;
  return H_CONT;
});

/** rcu_utilization's string: which RCU hook runs (its Start at entry, End at exit, by stack depth). */
const RCU_WHAT: Record<string, string> = { rcu_sched_clock_irq: 'scheduler-tick', rcu_core: 'RCU core', rcu_note_context_switch: 'context switch' };
const started: number[] = [];
rcu.tpArgs('rcu_utilization', (_m, c) => {
  const ks = c.ks;
  const fn = ks.sp > 0 ? ks.fn[ks.sp - 1] : -1;
  const key = c.id * 64 + ks.sp;
  const end = started[key] === fn;
  started[key] = end ? -1 : fn;
  const what = RCU_WHAT[fnName(fn)] ?? 'scheduler-tick';
  return [`${end ? 'End' : 'Start'} ${what}`];
});
const fnName = (id: number): string => (id >= 0 ? symbolName(id) : '');
