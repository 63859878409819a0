/**
 * Kernel threads' work (kernel/workqueue.c, kernel/kthread.c): a work item's function runs as a hook;
 * kthread parking; and the periodic delayed works of an idle system: each a timer
 * (delayed_work_timer_fn) that queues the work on its CPU's worker (or an unbound one) and wakes it,
 * the worker runs it (process_one_work) and the work arms its timer again.
 */
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { definePaths } from '../paths/dsl';
import { H_CONT, H_PUSHED, pushPath, newEnv } from '../paths/kexec';
import type { Env } from '../include/kstack';
import { KTimer, IDLE_RECORDING, type TimerMachine } from './timer';
import { recordedVariant } from './recorded';

export const workqueue = new Semantics<TimerMachine>('kernel/workqueue');

workqueue.hook('kthread_park', () => H_CONT);
workqueue.hook('work', (m, c, t, e) => {
  const fn = e.work as ((m: CpuMachine, c: Cpu, t: Task, e: Env) => number) | undefined;
  return fn ? fn(m, c, t, e) : H_CONT;
});

/** A struct delayed_work run every `period` ns (its function re-queues it). */
export class DelayedWork {
  readonly timer: KTimer;
  worker: Task | null = null;
  /**
   * @param fn the work function (workqueue_execute_start's function)
   * @param period ns between runs
   * @param cpu the CPU it is queued on
   * @param deferrable INIT_DEFERRABLE_WORK: its timer never wakes an idle CPU
   */
  constructor(readonly fn: string, readonly period: number, readonly cpu: number, deferrable: boolean) {
    this.timer = new KTimer('delayed_work_timer_fn', (_m, _c, e) => {
      const w = this.worker;
      if (!w) return;
      const q = (w.scratch.works as DelayedWork[] | undefined) ?? (w.scratch.works = []) as DelayedWork[];
      if (!q.includes(this)) q.push(this);
      e.dwork = this;
      (e.wakes as Task[]).push(w);
    }, false, deferrable);
  }
}

/** queue_delayed_work: arm the work's timer `delay` ns from now. */
export function queueDelayed(m: TimerMachine, w: DelayedWork, delay: number): void {
  m.timers.mod(w.timer, w.cpu, m.now + delay);
}

/** A worker (kworker/N:M): runs the works queued on it, else sleeps until one is queued. */
export function workerThread(): (t: Task) => void {
  return (t) => {
    const q = (t.scratch.works as DelayedWork[] | undefined) ?? (t.scratch.works = []) as DelayedWork[];
    const w = q.shift();
    if (w) {
      // wq_worker_comm: /proc/PID/comm and ps show the workqueue of the worker's last work after its name
      t.wqDesc = WORK_QUEUES[w.fn] ?? t.wqDesc;
      pushPath(t.ks, 'process_work', newEnv('work', { dwork: w }));
      return;
    }
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'worker_thread';
    pushPath(t.ks, 'worker_sleep', newEnv('worker'));
  };
}
/**
 * The work function: the tree the idle recording shows for it when it queued itself again
 * (queue_delayed_work_on inside it, its timer armed here: `%timer_arm` of the template), else its
 * template (the call, then the re-queue).
 */
workqueue.hook('work_fn', (m, c, _t, e) => {
  const w = e.dwork as DelayedWork;
  const env = newEnv('work', { ktimer: w.timer, timeout: w.period, dwork: w });
  const p = recordedVariant(m.timers.rand, `work:${w.fn}`, IDLE_RECORDING, ['queue_delayed_work_on']);
  if (p) {
    m.timers.mod(w.timer, c.id, m.now + w.period);
    env.recorded = true;
  }
  pushPath(c.ks, p ?? `work:${w.fn}`, env);
  return H_PUSHED;
});
/**
 * The workqueue each periodic work is queued on (its workqueue_struct's name): psi_avgs_work and
 * vmstat_shepherd by schedule_delayed_work (system_wq, "events"), vmstat_update on mm_percpu_wq,
 * flush_memcg_stats_dwork on system_unbound_wq, neigh_managed_work on system_power_efficient_wq.
 */
const WORK_QUEUES: Record<string, string> = {
  psi_avgs_work: 'events', vmstat_shepherd: 'events', vmstat_update: 'mm_percpu_wq',
  flush_memcg_stats_dwork: 'events_unbound', neigh_managed_work: 'events_power_efficient',
};
/** The works an idle system runs, by function: their paths (the function, then the re-queue). */
export const WORK_FUNCTIONS = ['psi_avgs_work', 'vmstat_update', 'vmstat_shepherd', 'flush_memcg_stats_dwork', 'neigh_managed_work'];
function workPaths(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of WORK_FUNCTIONS) out[`work:${f}`] = `\n${f}\n  __cond_resched\n  *requeue_delayed_work\n`;
  return out;
}
workqueue.setup(() => definePaths(workPaths()));
const workObj = (e: Env): { function: string } => ({ function: (e.dwork as DelayedWork | undefined)?.fn ?? '' });
workqueue.tpArgs('workqueue_queue_work', (_m, c, _t, e) => [c.id, {}, workObj(e)]);
workqueue.tpArgs('workqueue_activate_work', (_m, _c, _t, e) => [workObj(e)]);
workqueue.tpArgs('workqueue_execute_start', (_m, _c, _t, e) => [workObj(e)]);
workqueue.tpArgs('workqueue_execute_end', (_m, _c, _t, e) => [workObj(e), workObj(e).function]);
