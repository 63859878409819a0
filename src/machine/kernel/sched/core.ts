/**
 * The scheduler core (kernel/sched/core.c) as the paths run it: picking the next task and
 * switching to it (`%pick`, `%switch`; sched_switch fires in the schedule path), the idle loop's
 * wait, scheduler_tick's work on the timer interrupt, try_to_wake_up (`%ttwu`, and
 * `pushWakeups` for hooks that wake tasks), the scheduler tracepoints' arguments, and the
 * arguments of type `struct task_struct *` / `struct rq *`.  The policy is fair.ts.
 */
import type { TaskRef } from '../../../kernel/current';
import type { CpuMachine, Cpu } from '../../include/cpu';
import { Task, TASK_RUNNING, TASK_DEAD, RW_FPU, RW_NOTIFY } from '../../include/sched';
import { Semantics } from '../../paths/semantics';
import { H_CONT, H_SWITCHED, H_PUSHED, pushPath, newEnv } from '../../paths/kexec';
import { path } from '../../paths/dsl';
import { modelPath } from '../../paths/model';
import { symbolName } from '../../../kernel/kallsyms';
import type { Env, CompiledPath } from '../../include/kstack';
import { perfSw } from '../perf_events';
import { perfClockEvents, perfEventSwitch } from '../perf_event_open';
import { recordedVariant } from '../recorded';
import { IDLE_RECORDING } from '../timer';
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

/** __schedule disables local interrupts before it picks (Cpu.schedIrqsOff). */
function irqsOffForSchedule(c: Cpu): void {
  c.schedIrqsOff = true;
}
/**
 * ...and enables them once the switch is made (finish_task_switch, in the next task) or is not
 * needed: the hardirqs that arrived meanwhile are taken now, in the context of the task then
 * running (after a switch to the idle task: the idle task's, so a task that went to sleep waiting
 * for a device does not take the interrupt that wakes it; kernel/sched/core.c __schedule).
 */
function irqsOnAfterSchedule(m: SchedMachine, c: Cpu): void {
  c.schedIrqsOff = false;
  if (!c.deferredIrqs.length) return;
  for (const deliver of c.deferredIrqs.splice(0)) m.schedule(m.now, deliver);
}

/** __schedule's choice of the next task (and the previous one's dequeue when it sleeps). */
function pick(m: SchedMachine, c: Cpu, e: Env): void {
  irqsOffForSchedule(c);
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
}
schedCore.hook('pick', (m, c, _t, e) => { pick(m, c, e); return H_CONT; });

/**
 * __schedule from the recordings (the callees of schedule() & co., paths/model.ts key `schedule`):
 * pick the next task, then run the variant that did what this call does (switched or not, to the
 * idle task or not, with the previous task dequeued or not; by the caller), whose 'S' point switches.
 */
schedCore.hook('sched_body', (m, c, t, e) => {
  const prev = c.curr;
  const deq = !prev.idle && prev.state !== TASK_RUNNING;
  pick(m, c, e);
  const next = c.next as Task;
  const ks = c.ks;
  const caller = ks.sp > 0 ? symbolName(ks.fn[ks.sp - 1]) : 'schedule';
  const feat = `${next !== prev ? 'sw' : '-'}|${next.idle ? 'idle' : '-'}|${deq ? 'deq' : '-'}|${caller}`;
  const p = modelPath(m, c, t, e, 'schedule', feat);
  if (!p) return H_CONT;
  pushPath(ks, p, e);
  return H_PUSHED;
});
/**
 * The switch a recorded variant without one did not make (the machine's pick and the variant disagree):
 * traced as any switch (sched_switch, then __switch_to's events).
 */
schedCore.hook('switch_late', (m, c, _t, e) => {
  if (c.next !== null && c.next !== c.curr) { pushPath(c.ks, 'switch_late_to', e); return H_PUSHED; }
  if (c.next !== null) return switchTo(m, c);
  irqsOnAfterSchedule(m, c);
  return H_CONT;
});
/** A preemption point (__cond_resched): reschedule when one is due. */
schedCore.hook('cond_resched', (m, c, t, e) => {
  if (!c.needResched || c.ctx.context !== 0 || c.curr.idle || c.curr.state !== TASK_RUNNING) return H_CONT;
  pushPath(c.ks, schedBodyPath ?? (schedBodyPath = path('__schedule')), e);
  return H_PUSHED;
});
schedCore.at('__cond_resched', 'cond_resched');
let schedBodyPath: CompiledPath | null = null;

/** The context switch (the 'S' point of a recorded __schedule, `%switch` of a template). */
function switchTo(m: SchedMachine, c: Cpu): number {
  const prev = c.curr;
  const next = c.next;
  c.next = null;
  irqsOnAfterSchedule(m, c);
  // a recorded variant's switch point after the switch was made (or with nothing picked): no switch
  if (next === null || next === prev) return H_CONT;
  c.switchedFrom = prev; // finish_task_switch(prev) runs next on this CPU, in next's context
  c.switches++;
  m.sched.rqs[c.id].nrSwitches++;
  if (perfSw.active) perfSw.switched(c.id, prev, next);
  if (perfClockEvents()) perfEventSwitch(c.id, prev, next, m.now);
  if (prev.state === TASK_RUNNING) prev.nivcsw++; else prev.nvcsw++;
  prev.onCpu = false;
  prev.lastSwitchOut = m.now;
  // rseq_preempt: a user task switched out runs its rseq notify-resume work on the way back to user mode;
  // switch_fpu_prepare saved its live FPU registers here (arch/x86/fpu.ts), switch_fpu_finish marks the
  // next one's as to be reloaded (TIF_NEED_FPU_LOAD), which its return to user mode does unless this
  // CPU's registers still hold them
  if (!prev.kthread && !prev.idle) {
    if (!(prev.resumeWork & RW_FPU)) prev.fpuLastCpu = c.id;
    if (prev.rseq) prev.resumeWork |= RW_NOTIFY;
  }
  if (!next.kthread && !next.idle) next.resumeWork |= RW_FPU;
  if (!prev.idle && prev.state === TASK_RUNNING && !prev.onRq && !prev.wakePending) {
    // woken by another CPU after %pick dequeued it, while still switching out (ttwu's on_cpu
    // wait; not through this CPU's wake list, whose IPI activates it): queue it now that it is off the CPU
    m.sched.enqueue(prev, c, true);
    // ...and, this CPU going idle, it reschedules at once (the wakeup's resched IPI): else the task
    // waits on an idle CPU's queue with nothing to run it
    if (next.idle) { c.needResched = true; m.kick(c, m.now); }
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
}
/**
 * The 'S' point of a recorded __schedule (after its sched_switch): __switch_to's work in the previous
 * task's context (path `switch_to`), then the switch; no switch to make: the end of __schedule's irqs-off part.
 */
schedCore.hook('switch', (m, c, _t, e) => {
  if (c.next === null || c.next === c.curr) return switchTo(m, c);
  pushPath(c.ks, 'switch_to', e);
  return H_PUSHED;
});
schedCore.hook('switch_to_next', (m, c) => switchTo(m, c));


schedCore.hook('tick', (m, c) => {
  const t = c.curr;
  const d = m.sched.updateCurr(c);
  if (!t.idle) {
    if (t.ks.frames.length) t.stime += d; else t.utime += d;
  }
  m.sched.checkPreemptTick(c);
  m.mm.tick(c);
  return H_CONT;
});
schedCore.at('scheduler_tick', 'tick');

/** try_to_wake_up semantics for env.p: the wake itself (state, run queue, preemption). */
function ttwu(m: SchedMachine, e: Env): void {
  const p = e.p as Task;
  const r = m.sched.wake(p);
  // ttwu_runnable's tree has no ttwu_do_activate (the task was still queued): not a 'woke' variant
  e.woke = r !== null && !r.runnable;
  e.queued = r !== null && r.queued;
  e.migrated = r !== null && r.migrated;
  e.target_cpu = r ? r.target.id : p.cpu;
  e.orig_cpu = r ? r.from : p.cpu;
  e.dest_cpu = e.target_cpu;
}
schedCore.hook('ttwu', (m, _c, _t, e) => { ttwu(m, e); return H_CONT; });
schedCore.cond('woke', (_m, _c, _t, e) => e.woke === true);

/**
 * The call-function-single IPI of a wakeup queued on this CPU's wake list (kernel/smp.c
 * __flush_smp_call_function_queue -> sched_ttwu_pending -> ttwu_do_activate, where sched_wakeup fires
 * for `e.p` in this CPU's context): a tree the idle recording shows for one.
 */
schedCore.hook('ttwu_pending_body', (m, c, _t, e) => {
  m.sched.activatePending(e.p as Task, c);
  const p = recordedVariant(m.sched.rand, 'irq:__sysvec_call_function_single', IDLE_RECORDING, ['sched_ttwu_pending'], ['nohz_csd_func']);
  e.recorded = true;
  pushPath(c.ks, p ?? 'ttwu_pending_template', e);
  return H_PUSHED;
});
schedCore.cond('migrated', (_m, _c, _t, e) => e.migrated === true);

/**
 * The body of a try_to_wake_up (paths/model.ts key `ttwu`, compiled inside try_to_wake_up): wake
 * `e.p`, then run the recorded variant that did the same (activated it here, or queued it on its idle
 * CPU's wake list and sent the IPI: ttwu_queue_wakelist, sched_wakeup then fires on that CPU; found it
 * awake; moved it to another CPU or not; a kernel thread or not).
 */
function ttwuBody(m: SchedMachine, c: Cpu, t: Task, e: Env): number {
  ttwu(m, e);
  const p = e.p as Task;
  const feat = `${e.woke && !e.queued ? 'woke' : '-'}|${e.queued ? 'ipi' : '-'}|${e.migrated ? 'mig' : '-'}|${p.kthread ? 'kt' : '-'}`;
  const code = modelPath(m, c, t, e, 'ttwu', feat);
  if (!code) return H_CONT;
  pushPath(c.ks, code, e);
  return H_PUSHED;
}
schedCore.hook('ttwu_body', (m, c, t, e) => ttwuBody(m, c, t, e));

/**
 * A recorded try_to_wake_up's body ('w'): the next wakeup the path's semantics queued (`e.wakes`,
 * queueWakes); none queued: the call finds nothing to wake (as a wake of a running task does).
 */
schedCore.hook('ttwu_point', (m, c, t, e) => {
  const q = e.wakes as Task[] | undefined;
  const p = q?.shift();
  if (!p) return H_CONT;
  return ttwuBody(m, c, t, newEnv('ttwu', { p }));
});

/** The wakeups queued (queueWakes) that no recorded try_to_wake_up made: each through the ttwu path. */
export function flushWakes(c: Cpu, e: Env): number {
  const q = e.wakes as Task[] | undefined;
  if (!q || !q.length) return H_CONT;
  return pushWakeups(c, q.splice(0));
}
schedCore.hook('flush_wakes', (_m, c, _t, e) => flushWakes(c, e));

/**
 * Wake `tasks`: inside a recorded path (`e.recorded`) they are queued for the path's own
 * try_to_wake_up calls ('w'; the rest by %flush_wakes after the path), elsewhere each runs through
 * the ttwu path on the current stack now.
 */
export function wakeTasks(c: Cpu, e: Env, tasks: readonly TaskRef[]): number {
  if (e.recorded !== true) return pushWakeups(c, tasks);
  queueWakes(e, tasks);
  return H_CONT;
}
/** Queue `tasks` on the path's env for its try_to_wake_up calls (the rest at %flush_wakes). */
export function queueWakes(e: Env, tasks: readonly TaskRef[]): void {
  const q = (e.wakes as Task[] | undefined) ?? (e.wakes = []) as Task[];
  for (const x of tasks) if ((x as Task).state !== TASK_RUNNING && !q.includes(x as Task)) q.push(x as Task);
}

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
/** The wakeups TS code requested (wakeLater), made as `wakeTasks` makes them for the path of `e`. */
export function drainTo(c: Cpu, e: Env): number {
  if (!pendingWakes.length) return H_CONT;
  return wakeTasks(c, e, pendingWakes.splice(0));
}
/** Push the wakeups TS code requested (wakeLater) onto the current stack; H_PUSHED when any. */
export function drain(c: Cpu): number {
  if (!pendingWakes.length) return H_CONT;
  const list = pendingWakes.splice(0);
  return pushWakeups(c, list);
}

// arguments of type struct task_struct * and struct rq *
schedCore.structArg('task_struct', (fn, pname) => fn.startsWith('finish_task_switch') && pname === 'prev'
  ? (_m, c, t) => c.switchedFrom ?? t
  : (_m, _c, t, e) => (e.p as Task | undefined) ?? (pname === 'prev' || pname === 'curr' || pname === 'current' ? t : (e.childTask as Task | undefined) ?? t));
schedCore.structArg('rq', () => (_m, c) => ({ cpu: c.id, nr_running: 1 }));
