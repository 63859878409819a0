/**
 * The scheduler core (kernel/sched/core.c) as the paths run it: picking the next task and
 * switching to it (`%pick`, `%switch`; sched_switch fires in the schedule path), the idle loop's
 * wait, scheduler_tick's work on the timer interrupt, try_to_wake_up (`%ttwu`, and
 * `pushWakeups` for hooks that wake tasks), the scheduler tracepoints' arguments, and the
 * arguments of type `struct task_struct *` / `struct rq *`.  The policy is fair.ts.
 */
import type { TaskRef } from '../../../kernel/current';
import type { CpuMachine, Cpu } from '../../include/cpu';
import { Task, TASK_RUNNING, TASK_DEAD } from '../../include/sched';
import { Semantics } from '../../paths/semantics';
import { H_CONT, H_SWITCHED, H_IDLE, H_PUSHED, pushPath, newEnv } from '../../paths/kexec';
import { perfSw } from '../perf_events';
import type { Sched } from './fair';

/**
 * The machine as the scheduler uses it: its run queues, and from the layers above, the process
 * table (a dead task leaving the CPU) and memory (the tick's watermark check).
 */
export interface SchedMachine extends CpuMachine {
  readonly sched: Sched;
  readonly procs: { taskDead(t: Task): void };
  readonly mm: { tick(c: Cpu): void };
}

export const schedCore = new Semantics<SchedMachine>('kernel/sched/core');

schedCore.cond('prev_sleeping', (_m, c) => c.curr.state !== TASK_RUNNING);
schedCore.cond('switching', (_m, c) => c.next !== null && c.next !== c.curr);
schedCore.cond('need_resched', (_m, c) => c.needResched);
schedCore.cond('pulled', (_m, _c, _t, e) => (e.pulledFrom as number) >= 0);
schedCore.cond('next_is_idle', (_m, c) => c.next !== null && c.next.idle);

schedCore.hook('pick', (m, c, _t, e) => {
  const prev = c.curr;
  m.sched.updateCurr(c);
  if (!prev.idle) {
    if (prev.state !== TASK_RUNNING) m.sched.dequeue(prev);
    else { prev.onRq = true; m.sched.rqs[c.id].insert(prev); }
  }
  const { next, pulledFrom } = m.sched.pick(c);
  e.pulledFrom = pulledFrom;
  c.next = next;
  c.needResched = false;
  if (next === prev && !prev.idle) m.sched.rqs[c.id].remove(prev);
  return H_CONT;
});

/** per CPU: the task the last context switch switched out (finish_task_switch's prev) */
const switchedFrom: (Task | undefined)[] = [];

schedCore.hook('switch', (m, c, _t, _e) => {
  const prev = c.curr;
  const next = c.next as Task;
  c.next = null;
  if (next === prev) return H_CONT;
  switchedFrom[c.id] = prev; // finish_task_switch(prev) runs next on this CPU, in next's context
  c.switches++;
  m.sched.rqs[c.id].nrSwitches++;
  if (perfSw.active) perfSw.switched(c.id, prev, next);
  if (prev.state === TASK_RUNNING) prev.nivcsw++; else prev.nvcsw++;
  prev.onCpu = false;
  prev.lastSwitchOut = m.now;
  if (!prev.idle && prev.state === TASK_RUNNING && !prev.onRq) {
    // woken by another CPU after %pick dequeued it, while still switching out (ttwu's on_cpu
    // wait): queue it now that it is off the CPU
    m.sched.enqueue(prev, c, true);
  }
  if (prev.state & TASK_DEAD) {
    prev.ks.frames.length = 0;
    prev.ks.sp = 0;
    m.procs.taskDead(prev);
  }
  next.onCpu = true;
  next.onRq = !next.idle;
  next.cpu = c.id;
  next.execStart = m.now;
  next.prevSumExecRuntime = next.sumExecRuntime;
  c.curr = next;
  c.ctx.task = next;
  c.ks = next.ks;
  return H_SWITCHED;
});

schedCore.hook('idle_wait', (m, c) => {
  if (m.sched.hasRunnable(c) || c.needResched) return H_CONT;
  return H_IDLE;
});

schedCore.hook('tick', (m, c) => {
  const t = c.curr;
  const d = m.sched.updateCurr(c);
  if (!t.idle) {
    if (t.ks.frames.length) t.stime += d; else t.utime += d;
  }
  m.sched.checkPreemptTick(c);
  c.softirqPending |= 1 << 1; // TIMER_SOFTIRQ
  if ((c.ticks & 3) === 0) c.softirqPending |= 1 << 7; // SCHED_SOFTIRQ: periodic rebalance
  c.softirqPending |= 1 << 9; // RCU_SOFTIRQ
  m.mm.tick(c);
  return H_CONT;
});

/** try_to_wake_up semantics for env.p (pushed as the 'ttwu' path by wakers). */
schedCore.hook('ttwu', (m, _c, _t, e) => {
  const p = e.p as Task;
  const r = m.sched.wake(p);
  e.woke = r !== null;
  e.migrated = r !== null && r.migrated;
  e.target_cpu = r ? r.target.id : p.cpu;
  e.orig_cpu = r ? r.from : p.cpu;
  e.dest_cpu = e.target_cpu;
  return H_CONT;
});
schedCore.cond('woke', (_m, _c, _t, e) => e.woke === true);
schedCore.cond('migrated', (_m, _c, _t, e) => e.migrated === true);

/**
 * Helper for hooks: wake `tasks` through the try_to_wake_up path on the current stack.  A wait
 * queue (include/wait.ts) holds the machine's Tasks, typed by what its owner knows of them.
 */
export function pushWakeups(c: Cpu, tasks: readonly TaskRef[]): number {
  let n = 0;
  for (const x of tasks) {
    const p = x as Task;
    if (p.state === TASK_RUNNING) continue;
    pushPath(c.ks, 'ttwu', newEnv('ttwu', { p }));
    n++;
  }
  return n ? H_PUSHED : H_CONT;
}

// tracepoint arguments (TP_PROTO order)
schedCore.tpArgs('sched_switch', (_m, c) => [c.curr.state === TASK_RUNNING, c.curr, c.next, c.curr.state]);
schedCore.tpArgs('sched_waking', (_m, _c, _t, e) => [e.p]);
schedCore.tpArgs('sched_wakeup', (_m, _c, _t, e) => [e.p]);
schedCore.tpArgs('sched_wakeup_new', (_m, _c, _t, e) => [e.p]);
schedCore.tpArgs('sched_migrate_task', (_m, _c, _t, e) => [e.p, e.dest_cpu]);
schedCore.tpArgs('sched_stat_runtime', (m, c) => [c.curr, Math.max(0, m.now - c.curr.execStart), c.curr.vruntime]);

/** Wakeups requested by TS code outside a path; drained by hooks through the ttwu path. */
const pendingWakes: TaskRef[] = [];
export function wakeLater(t: TaskRef): void {
  if (!pendingWakes.includes(t)) pendingWakes.push(t);
}
/** Push the wakeups TS code requested (wakeLater) onto the current stack; H_PUSHED when any. */
export function drain(c: Cpu): number {
  if (!pendingWakes.length) return H_CONT;
  const list = pendingWakes.splice(0);
  return pushWakeups(c, list);
}

// arguments of type struct task_struct * and struct rq *
schedCore.structArg('task_struct', (fn, pname) => fn.startsWith('finish_task_switch') && pname === 'prev'
  ? (_m, c, t) => switchedFrom[c.id] ?? t
  : (_m, _c, t, e) => (e.p as Task | undefined) ?? (pname === 'prev' || pname === 'curr' || pname === 'current' ? t : (e.childTask as Task | undefined) ?? t));
schedCore.structArg('rq', () => (_m, c) => ({ cpu: c.id, nr_running: 1 }));
