/**
 * The CFS-like scheduling class (kernel/sched/fair.c): per-CPU run queues in vruntime order,
 * load weights, sched_latency / min_granularity slices, wakeup preemption granularity, CPU
 * selection for wakeups (select_task_rq_fair) and forks, newidle balancing, check_preempt_tick.
 * The switch itself, wakeups and the tick as the paths run them are core.ts.
 */
import type { CpuMachine, Cpu } from '../../include/cpu';
import { Task, TASK_RUNNING, TASK_DEAD, EXIT_ZOMBIE, PRIO_TO_WEIGHT, RW_NOTIFY } from '../../include/sched';
import { newEnv, pushPath } from '../../paths/kexec';
import { Prng } from '../../core/prng';

/**
 * set_task_cpu to another CPU (kernel/sched/core.c): one more migration, and rseq_migrate: a task with
 * an rseq area updates its cpu_id on the way back to user mode (TIF_NOTIFY_RESUME: the rseq_update event)
 */
function migrate(t: Task): void {
  t.nrMigrations++;
  if (t.rseq) t.resumeWork |= RW_NOTIFY;
}

export const SCHED_LATENCY_BASE = 6e6;
export const SCHED_MIN_GRAN_BASE = 0.75e6;
export const SCHED_WAKEUP_GRAN_BASE = 1e6;
/** sysctl_sched_migration_cost: a task that ran less than this ago is cache hot (task_hot) */
export const SCHED_MIGRATION_COST_NS = 500000;
/** an IPI's latency: from its sending to the target CPU's handler */
const IPI_NS = 700;
/** arch/x86/include/asm/irq_vectors.h CALL_FUNCTION_SINGLE_VECTOR */
const CALL_FUNCTION_SINGLE_VECTOR = 0xfb;

export class RunQueue {
  /** runnable tasks other than curr, kept sorted by vruntime */
  readonly q: Task[] = [];
  minVruntime = 0;
  nrSwitches = 0;
  constructor(readonly cpu: number) {}
  insert(t: Task): void {
    const q = this.q;
    let i = q.length;
    while (i > 0 && q[i - 1].vruntime > t.vruntime) i--;
    q.splice(i, 0, t);
  }
  remove(t: Task): boolean {
    const i = this.q.indexOf(t);
    if (i < 0) return false;
    this.q.splice(i, 1);
    return true;
  }
}

export class Sched {
  readonly rqs: RunQueue[];
  readonly latency: number;
  readonly minGran: number;
  readonly wakeupGran: number;
  /**
   * @param rand the scheduler's own PRNG stream (which recorded tree an IPI's handler runs: wakeups of
   * other CPUs never change which variants the workload's entries draw from the machine's path stream)
   */
  constructor(private m: CpuMachine, readonly rand: Prng = new Prng(1)) {
    this.rqs = m.cpus.map((c) => new RunQueue(c.id));
    const factor = 1 + Math.floor(Math.log2(Math.min(m.ncpus, 8)));
    this.latency = SCHED_LATENCY_BASE * factor;
    this.minGran = SCHED_MIN_GRAN_BASE * factor;
    this.wakeupGran = SCHED_WAKEUP_GRAN_BASE * factor;
  }

  nrRunning(c: Cpu): number {
    return this.rqs[c.id].q.length + (c.curr && !c.curr.idle ? 1 : 0);
  }

  hasRunnable(c: Cpu): boolean {
    return this.rqs[c.id].q.length > 0;
  }

  setNice(t: Task, nice: number): void {
    t.nice = Math.max(-20, Math.min(19, nice));
    t.prio = 120 + t.nice;
    t.weight = PRIO_TO_WEIGHT[t.nice + 20];
  }

  /** update_curr(): charge the running task for the time since execStart. */
  updateCurr(c: Cpu): number {
    const t = c.curr;
    const now = this.m.now;
    const d = now - t.execStart;
    if (d <= 0 || t.idle) { t.execStart = now; return 0; }
    t.execStart = now;
    t.sumExecRuntime += d;
    t.vruntime += (d * 1024) / t.weight;
    const rq = this.rqs[c.id];
    const leftmost = rq.q.length ? rq.q[0].vruntime : t.vruntime;
    rq.minVruntime = Math.max(rq.minVruntime, Math.min(t.vruntime, leftmost));
    return d;
  }

  /** sched_slice(): the wall-time share of the period for task t on c. */
  slice(c: Cpu, t: Task): number {
    const rq = this.rqs[c.id];
    const n = rq.q.length + 1;
    const period = n > this.latency / this.minGran ? n * this.minGran : this.latency;
    let total = t.weight;
    for (const x of rq.q) total += x.weight;
    return (period * t.weight) / total;
  }

  /** Put a new/woken task on CPU c's queue. */
  enqueue(t: Task, c: Cpu, wakeup: boolean): void {
    const rq = this.rqs[c.id];
    if (wakeup) t.vruntime = Math.max(t.vruntime, rq.minVruntime - this.latency / 2);
    t.cpu = c.id;
    t.onRq = true;
    rq.insert(t);
  }

  /** CPU `c` is idle with nothing queued (available_idle_cpu). */
  private idle(c: Cpu): boolean {
    return c.curr.idle && this.rqs[c.id].q.length === 0;
  }

  /**
   * select_task_rq_fair() for a wakeup (want_affine in the LLC domain; the guest's 4 CPUs share it):
   * wake_affine chooses between the waking CPU and the task's previous one (wake_affine_idle: an idle
   * waking CPU, the previous one if it is idle too; the previous CPU if idle; else wake_affine_weight:
   * the waking CPU unless it is the busier, the wakee's own load being small), then select_idle_sibling
   * looks for an idle CPU: the target, the previous CPU, else select_idle_cpu's scan of the LLC, which
   * SIS_UTIL bounds by the LLC's utilization (nr_idle_scan: 3 CPUs with 1 of 4 busy, 2 with 2, none
   * with 3 or more; busy CPUs stand for PELT's util_avg).  So a wakee whose CPU is busy, woken from
   * another busy CPU, runs on the waker's (the recordings: rcu_preempt woken from the softirq of a
   * busy workload task migrates to its CPU and preempts it, pipe: 5 of 7 remote wakings).
   */
  selectWakeCpu(t: Task): Cpu {
    const cpus = this.m.cpus;
    if (t.boundCpu >= 0) return cpus[t.boundCpu];
    const prev = cpus[t.cpu] ?? cpus[0];
    const here = this.m.executing;
    let target = prev;
    if (here && here !== prev) {
      if (this.idle(here)) target = this.idle(prev) ? prev : here;
      else if (!this.idle(prev) && this.nrRunning(here) <= this.nrRunning(prev)) target = here;
    }
    if (this.idle(target)) return target;
    if (target !== prev && this.idle(prev)) return prev;
    let nr = this.idleScan() + 1;
    for (let i = 1; i < cpus.length; i++) {
      if (!--nr) break;
      const c = cpus[(target.id + i) % cpus.length];
      if (this.idle(c)) return c;
    }
    return target;
  }

  /** update_idle_cpu_scan(): SIS_UTIL's nr_idle_scan for the LLC (all CPUs), from how many are busy. */
  private idleScan(): number {
    const cpus = this.m.cpus;
    let busy = 0;
    for (const c of cpus) if (!c.curr.idle) busy++;
    const x = (busy * 1024) / cpus.length;
    const pct = 117; // the LLC (MC) domain's imbalance_pct
    const tmp = Math.min(1024, (x * x * pct * pct) / (10000 * 1024));
    return Math.floor(((1024 - tmp) * cpus.length) / 1024);
  }

  /** select_task_rq_fair() for a fork (find_idlest_cpu): previous CPU if idle, else an idle CPU, else the least loaded. */
  selectCpu(t: Task): Cpu {
    const cpus = this.m.cpus;
    if (t.boundCpu >= 0) return cpus[t.boundCpu];
    const prev = cpus[t.cpu] ?? cpus[0];
    const isIdle = (c: Cpu) => c.curr.idle && this.rqs[c.id].q.length === 0;
    if (isIdle(prev)) return prev;
    for (let i = 1; i < cpus.length; i++) {
      const c = cpus[(prev.id + i) % cpus.length];
      if (isIdle(c)) return c;
    }
    let best = prev;
    let bestN = this.nrRunning(prev);
    for (const c of cpus) {
      const n = this.nrRunning(c);
      if (n + 1 < bestN) { best = c; bestN = n; }
    }
    return best;
  }

  /**
   * Wake a sleeping task (semantics of try_to_wake_up): choose a CPU, enqueue, preempt or kick.
   * Returns the target CPU and whether the wakeup went through the target's wake list (`queued`: the
   * target's IPI activates it, activatePending) or found the task still on its runqueue (`runnable`),
   * or null when the task was not sleeping.
   */
  wake(t: Task): { target: Cpu; migrated: boolean; from: number; queued: boolean; runnable: boolean } | null {
    if (t.state === TASK_RUNNING || t.state & (TASK_DEAD | EXIT_ZOMBIE)) return null;
    t.state = TASK_RUNNING;
    t.wchan = '';
    if (t.onCpu) {
      const target = this.m.cpus[t.cpu];
      // ttwu_runnable(): still on its runqueue (its __schedule has not dequeued it): it is only made
      // TASK_RUNNING again and keeps its CPU (no wake list, no IPI)
      if (t.onRq) return { target, migrated: false, from: t.cpu, queued: false, runnable: true };
      // dequeued but still switching out (p->on_cpu): queued on its CPU's wake list when that CPU has
      // nothing else to run (the IPI, taken once the switch is made, activates it); else switchTo queues it
      const queued = this.wakeList(target, t);
      if (queued) this.queueWake(target, t);
      return { target, migrated: false, from: t.cpu, queued, runnable: false };
    }
    const from = t.cpu;
    const target = this.selectWakeCpu(t);
    const migrated = target.id !== from;
    if (migrated) migrate(t);
    if (this.wakeList(target, t)) {
      // ttwu_queue_wakelist(): the target CPU activates it (sched_ttwu_pending in its IPI)
      t.cpu = target.id;
      this.queueWake(target, t);
      return { target, migrated, from, queued: true, runnable: false };
    }
    this.enqueue(t, target, true);
    this.checkPreempt(target, t);
    return { target, migrated, from, queued: false, runnable: false };
  }

  /** check_preempt_curr() after `t` was queued on `target`: an idle CPU reschedules, a busy one when `t` is due first. */
  private checkPreempt(target: Cpu, t: Task): void {
    const curr = target.curr;
    if (curr.idle) {
      target.needResched = true;
      this.m.kick(target, this.m.now + IPI_NS); // IPI latency
    } else if (this.wakeupPreempts(curr, t)) {
      target.needResched = true;
      this.m.kick(target, this.m.now + IPI_NS);
    }
  }

  /** check_preempt_wakeup(): the woken `t` is due before `curr` by more than the wakeup granularity. */
  private wakeupPreempts(curr: Task, t: Task): boolean {
    return t.vruntime + this.wakeupGran * 1024 / t.weight < curr.vruntime;
  }

  /**
   * sched_ttwu_pending() on `c` (its call-function-single IPI): activate `t` queued on c's wake list
   * (ttwu_do_activate), in the context of what c runs now (the idle task, or the task `t` was switching out
   * to). Nothing when it is already running or queued.
   */
  activatePending(t: Task, c: Cpu): void {
    if (!t.wakePending) return;
    t.wakePending = false;
    if (t.onRq || t.onCpu || t.state !== TASK_RUNNING) return;
    this.enqueue(t, c, true);
    const curr = c.curr;
    if (curr.idle || this.wakeupPreempts(curr, t)) c.needResched = true;
  }

  /**
   * ttwu_queue_cond(): the wakeup of `t` onto `target` is left to the target CPU (its wake list, activated
   * by sched_ttwu_pending there, where sched_wakeup fires in that CPU's context) when the waking code runs
   * on another CPU (the guest's CPUs share their cache) and the target has nothing to run (nr_running 0:
   * idle, or only `t` still switching out).  Else the waker activates it itself.
   */
  wakeList(target: Cpu, t: Task): boolean {
    const waker = this.m.executing;
    if (waker === null || waker === target) return false;
    const curr = target.curr;
    return this.rqs[target.id].q.length === 0 && (curr.idle || curr === t);
  }

  /**
   * __smp_call_single_queue's IPI: the target CPU runs its wake list (sched_ttwu_pending) for `t`, which
   * activates it there (activatePending), then leaves the idle loop for it.
   */
  private queueWake(target: Cpu, t: Task): void {
    t.wakePending = true;
    const at = this.m.now + IPI_NS;
    this.m.schedule(at, () => this.m.irq(target, 'call_function_single_irq',
      newEnv('csd', { p: t, irq: CALL_FUNCTION_SINGLE_VECTOR, vector: CALL_FUNCTION_SINGLE_VECTOR })));
  }

  /** wake_up_new_task(): place a forked task. */
  wakeNew(t: Task, parentCpu: Cpu): Cpu {
    t.cpu = parentCpu.id;
    const rq = this.rqs[parentCpu.id];
    t.vruntime = Math.max(rq.minVruntime, parentCpu.curr.idle ? 0 : parentCpu.curr.vruntime) + this.slice(parentCpu, t) * 1024 / t.weight;
    t.state = TASK_RUNNING;
    const target = this.selectCpu(t);
    if (target.id !== parentCpu.id) migrate(t);
    this.enqueue(t, target, false);
    if (target.curr.idle) { target.needResched = true; this.m.kick(target, this.m.now + IPI_NS); }
    return target;
  }

  /** Remove a task from its queue (sleeping tasks, exit). */
  dequeue(t: Task): void {
    if (!t.onRq) return;
    this.rqs[t.cpu].remove(t);
    t.onRq = false;
  }

  /** pick_next_task: leftmost of this CPU, else pull from the busiest CPU (newidle balance), else idle. */
  pick(c: Cpu): { next: Task; pulledFrom: number } {
    const rq = this.rqs[c.id];
    let pulledFrom = -1;
    if (rq.q.length === 0) {
      let busiest: Cpu | null = null;
      let most = 1;
      for (const o of this.m.cpus) {
        if (o === c) continue;
        const n = this.rqs[o.id].q.length;
        if (n >= most) { most = n; busiest = o; }
      }
      // can_migrate_task: never a task still running on its CPU (a prev put back by a __schedule
      // that has not switched yet), nor one bound to its CPU, nor a cache-hot one (task_hot: it ran
      // less than sysctl_sched_migration_cost ago, as a task just preempted there did; a newidle
      // balance has had no failures, so cache_nice_tries does not override it)
      const orq = busiest ? this.rqs[busiest.id] : null;
      let k = orq ? orq.q.length - 1 : -1;
      const hotAfter = this.m.now - SCHED_MIGRATION_COST_NS;
      while (k >= 0 && (orq!.q[k].onCpu || orq!.q[k].boundCpu >= 0 || (orq!.q[k].execStart > 0 && orq!.q[k].execStart > hotAfter))) k--;
      if (busiest && orq && k >= 0 && this.nrRunning(busiest) >= 2) {
        const t = orq.q[k];
        orq.q.splice(k, 1);
        t.vruntime = t.vruntime - orq.minVruntime + rq.minVruntime;
        t.cpu = c.id;
        migrate(t);
        rq.insert(t);
        pulledFrom = busiest.id;
      }
    }
    const next = rq.q.length ? rq.q.shift() as Task : c.idleTask;
    if (!next.idle) next.onRq = true;
    return { next, pulledFrom };
  }

  /** scheduler_tick semantics: account, decide preemption. Runs the timer interrupt path. */
  tick(c: Cpu): void {
    c.ticks++;
    this.m.irq(c, 'timer_interrupt', newEnv('tick', { tick: true, irq: 236, vector: 236 }));
    // a tick that interrupted user mode returns through irqentry_exit_to_user_mode (noinstr):
    // exit_to_user_mode_prepare, where a reschedule the tick asked for happens (the recordings'
    // interrupt-of-user entries: `@S exit_to_user_mode_prepare(fpregs_assert_state_consistent)`)
    const t = c.curr;
    if (!t.idle && !t.kthread && t.state === TASK_RUNNING && t.ks.frames.length === 0) pushPath(t.ks, 'irq_exit_user', newEnv('irq_exit'));
  }

  /** check_preempt_tick(). */
  checkPreemptTick(c: Cpu): void {
    const t = c.curr;
    if (t.idle) { if (this.rqs[c.id].q.length) c.needResched = true; return; }
    const rq = this.rqs[c.id];
    if (rq.q.length === 0) return;
    const ran = t.sumExecRuntime - t.prevSumExecRuntime;
    if (ran > this.slice(c, t)) { c.needResched = true; return; }
    if (ran < this.minGran) return;
    if (t.vruntime - rq.q[0].vruntime > this.slice(c, t) * 1024 / t.weight) c.needResched = true;
  }
}
