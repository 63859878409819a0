/**
 * RCU (kernel/rcu/tree.c): a call_rcu in a recorded path (exit, exec, file, dentry and inode frees,
 * the maple tree's node frees; the idle system's services and kthreads queue none, the idle
 * recording's call_rcu calls are all the launcher's) queues its callback on the CPU's list, which
 * then keeps its tick (rcu_needs_cpu).  The tick raises RCU_SOFTIRQ as rcu_pending says (callbacks
 * to run; callbacks needing a grace period while none runs; a grace period started or ended since
 * the CPU's rcu_core last looked; a quiescent state to report).  rcu_core asks the grace-period
 * kthread (rcu_preempt) for a grace period and wakes it; the kthread runs rcu_gp_init, waits
 * jiffies_till_first_fqs in rcu_gp_fqs_loop (schedule_timeout: a process_timeout timer), forces
 * quiescent states (CPUs idle with the tick stopped; the others report theirs in rcu_core after a
 * tick or a context switch), and rcu_gp_cleanup ends the grace period: the CPUs whose callbacks it
 * covered run them in rcu_do_batch at their next tick (rcu_batch.ts: the callbacks' recorded trees)
 * and may stop their tick.
 */
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { symbolName } from '../../kernel/kallsyms';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_PUSHED, pushPath, newEnv } from '../paths/kexec';
import type { CompiledPath, Env } from '../include/kstack';
import { recordedVariant, recordedModelVariant } from './recorded';
import { RCU_BLIMIT, RCU_CORE_KEY, RCU_DIVISOR, batchTree, callbackOf } from './rcu_batch';
import { pushScheduleTimeout, IDLE_RECORDING, RCU_SOFTIRQ, type TimerMachine } from './timer';

/** jiffies_till_first_fqs at HZ=250 (RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV = 1; the recording's process_timeout timeouts) */
const FQS_JIFFIES = 1;

/** What rcu_core does on a CPU (Rcu.core). */
export interface RcuCore {
  /** it starts a grace period and wakes the grace-period kthread (rcu_start_this_gp) */
  wake: boolean;
  /** it reports this CPU's quiescent state for the running grace period (rcu_report_qs_rdp) */
  report: boolean;
  /** the callbacks rcu_do_batch invokes (their traced functions, rcu_batch.ts callbackOf), in queue order */
  batch: string[];
  /** the batch limit stopped the loop with callbacks left: invoke_rcu_core raises RCU_SOFTIRQ again */
  more: boolean;
}

/**
 * The grace-period machinery of one machine (rcu_state.gp_seq: odd while a grace period runs) and per
 * CPU its callback list (struct rcu_segcblist) and what it knows of the grace periods (struct rcu_data).
 */
export class Rcu {
  /** the grace-period kthread (rcu_preempt) */
  gpTask: Task | null = null;
  /** a grace period is requested or running */
  gpActive = false;
  /** the kthread waits for a request (swait, no timeout; at boot it has not run yet) */
  gpWaiting = true;
  /** rcu_state.gp_seq: incremented when a grace period starts (rcu_gp_init) and when it ends (rcu_gp_cleanup) */
  gpSeq = 0;
  /** per CPU: callbacks queued, waiting for the next grace period to start (RCU_NEXT_TAIL) */
  readonly next: string[][];
  /** per CPU: callbacks waiting for the running grace period (RCU_WAIT_TAIL) */
  readonly wait: string[][];
  /** per CPU: callbacks whose grace period ended, to invoke (RCU_DONE_TAIL) */
  readonly done: string[][];
  /** per CPU: the gp_seq its rcu_core last noted (rdp->gp_seq) */
  readonly seen: number[];
  /** per CPU: the running grace period waits for its quiescent state (its bit in rnp->qsmask) */
  readonly owes: boolean[];
  /** per CPU: it passed a quiescent state since it noted the grace period (!rdp->cpu_no_qs.b.norm) */
  readonly passed: boolean[];
  constructor(private readonly m: TimerMachine) {
    this.next = m.cpus.map(() => []);
    this.wait = m.cpus.map(() => []);
    this.done = m.cpus.map(() => []);
    this.seen = m.cpus.map(() => 0);
    this.owes = m.cpus.map(() => false);
    this.passed = m.cpus.map(() => false);
    m.timers.rcuTick = (c) => this.tick(c);
  }

  /** call_rcu on CPU `c` of callback `cb`: it waits there for the next grace period; the CPU keeps its tick. */
  queued(c: Cpu, cb: string): void {
    this.next[c.id].push(cb);
    this.hold(c);
  }

  /** rcu_qs: CPU `c` passed a quiescent state (a context switch; a tick outside read-side critical sections). */
  qs(c: Cpu): void {
    if (this.owes[c.id] && this.seen[c.id] === this.gpSeq) this.passed[c.id] = true;
  }

  /**
   * rcu_sched_clock_irq on `c`: the tick is a quiescent state, then rcu_pending: whether RCU_SOFTIRQ
   * is raised (callbacks to run; callbacks needing a grace period while none runs; a grace period
   * started or ended since rcu_core last looked; a quiescent state to report).
   */
  tick(c: Cpu): boolean {
    const id = c.id;
    this.qs(c);
    return this.done[id].length > 0 || (!this.gpActive && this.next[id].length > 0) || this.seen[id] !== this.gpSeq
      || (this.owes[id] && this.passed[id]);
  }

  /** rcu_gp_init: a grace period starts, waiting for every CPU's quiescent state. */
  gpStart(): void {
    this.gpSeq++;
    for (const c of this.m.cpus) { this.owes[c.id] = true; this.passed[c.id] = false; }
  }

  /**
   * rcu_core on `c`: note_gp_changes (a new grace period: this CPU's quiescent state is wanted from
   * now on), the quiescent state reported when one passed since; the callbacks whose grace period
   * ended run (while a task other than the idle task is current at most bl = max(blimit, pending >>
   * rcu_divisor): rcu_do_batch's `count >= bl && !is_idle_task(current)`); new callbacks wait for a grace period, which starts
   * now when none runs.
   */
  core(c: Cpu): RcuCore {
    const id = c.id;
    let report = false;
    if (this.seen[id] !== this.gpSeq) {
      this.seen[id] = this.gpSeq;
      this.passed[id] = false;
    } else if (this.owes[id] && this.passed[id]) {
      this.owes[id] = false;
      report = true;
    }
    const done = this.done[id];
    const pending = this.next[id].length + this.wait[id].length + done.length;
    const batch = done.splice(0, c.curr.idle ? done.length : Math.max(RCU_BLIMIT, pending >> RCU_DIVISOR));
    const r: RcuCore = { wake: false, report, batch, more: done.length > 0 };
    if (this.next[id].length && !this.gpActive) {
      this.wait[id].push(...this.next[id]);
      this.next[id].length = 0;
      this.gpActive = true;
      r.wake = this.gpWaiting && this.gpTask !== null;
    }
    this.hold(c);
    return r;
  }

  /**
   * force_qs_rnp: CPUs idle in dyntick-idle are reported for the grace period; whether one still owes
   * its quiescent state (the grace period needs another round).
   */
  forceQs(): boolean {
    let open = false;
    for (const c of this.m.cpus) {
      if (!this.owes[c.id]) continue;
      if (c.idling && this.m.timers.bases[c.id].tickStopped) this.owes[c.id] = false;
      else open = true;
    }
    return open;
  }

  /**
   * rcu_gp_cleanup: the callbacks each CPU had waiting are done, and that CPU runs them at its next
   * tick; callbacks queued meanwhile wait for the next grace period, which starts at once (needgp).
   */
  gpEnd(): void {
    const m = this.m;
    this.gpSeq++;
    for (const c of m.cpus) {
      const id = c.id;
      this.owes[id] = false;
      if (!this.wait[id].length && !this.next[id].length) continue;
      this.done[id].push(...this.wait[id]);
      this.wait[id] = this.next[id].splice(0);
      this.hold(c);
    }
    this.gpActive = this.wait.some((x) => x.length > 0);
  }

  /** rcu_needs_cpu: a CPU with callbacks keeps its tick. */
  private hold(c: Cpu): void {
    const id = c.id;
    this.m.timers.bases[id].rcuHoldUntil = this.next[id].length || this.wait[id].length || this.done[id].length ? Infinity : 0;
  }
}

export interface RcuMachine extends TimerMachine {
  readonly rcu: Rcu;
}

export const rcu = new Semantics<RcuMachine>('kernel/rcu/tree');

/** __call_rcu_common: the callback (by call_rcu's caller) is queued on this CPU's segmented list. */
rcu.hook('rcu_call', (m, c) => {
  const ks = c.ks;
  m.rcu.queued(c, ks.sp > 1 ? callbackOfCaller(ks.fn[ks.sp - 2]) : callbackOf(''));
  return H_CONT;
});
/** callbackOf by call_rcu's caller (kallsyms id), its name looked up once per function (a few dozen call call_rcu) */
const callbacks = new Map<number, string>();
function callbackOfCaller(id: number): string {
  let cb = callbacks.get(id);
  if (cb === undefined) callbacks.set(id, (cb = callbackOf(fnName(id))));
  return cb;
}
rcu.at('call_rcu', 'rcu_call');

/** rcu_note_context_switch: a context switch is a quiescent state (rcu_qs). */
rcu.hook('rcu_qs', (m, c) => { m.rcu.qs(c); return H_CONT; });
rcu.at('rcu_note_context_switch', 'rcu_qs');

/**
 * rcu_core's tree (RCU_SOFTIRQ): one the recordings show doing what this one does (starting a grace
 * period: try_to_wake_up of the kthread; invoking callbacks: rcu_do_batch, with invoke_rcu_core when
 * the limit stopped it), the batch running this CPU's callbacks (rcu_batch.ts).
 */
rcu.hook('rcu_core_body', (m, c, _t, e) => {
  const r = m.rcu.core(c);
  if (r.wake) (e.wakes as Task[]).push(m.rcu.gpTask as Task);
  e.recorded = true;
  e.rcuMore = r.more;
  pushPath(c.ks, rcuCoreTree(m, r) ?? 'rcu_core_template', e);
  return H_PUSHED;
});

/**
 * invoke_rcu_core after a batch the limit stopped: RCU_SOFTIRQ raised again (softirq_raise), so
 * handle_softirqs runs rcu_core once more before it returns (Env `restart` of the softirq loop).
 */
rcu.hook('rcu_more', (_m, c, _t, e) => {
  if (!e.rcuMore) return H_CONT;
  const loop = e.softirqLoop as Env | undefined;
  if (loop) loop.raised = ((loop.raised as number | undefined) ?? 0) | (1 << RCU_SOFTIRQ);
  pushPath(c.ks, 'softirq_raise_event', newEnv('raise', { vec: RCU_SOFTIRQ }));
  return H_PUSHED;
});

function rcuCoreTree(m: RcuMachine, r: RcuCore): CompiledPath | null {
  const rand = m.timers.rand;
  const has: string[] = [], hasNot: string[] = [];
  (r.wake ? has : hasNot).push('try_to_wake_up');
  (r.report ? has : hasNot).push('rcu_report_qs_rnp');
  if (!r.batch.length) {
    hasNot.push('rcu_do_batch');
    return recordedVariant(rand, RCU_CORE_KEY, IDLE_RECORDING, has, hasNot) ?? recordedVariant(rand, RCU_CORE_KEY, null, has, hasNot)
      ?? recordedVariant(rand, RCU_CORE_KEY, null, [], ['rcu_do_batch']);
  }
  has.push('rcu_do_batch');
  (r.more ? has : hasNot).push('invoke_rcu_core');
  const v = recordedModelVariant(rand, RCU_CORE_KEY, IDLE_RECORDING, has, hasNot)
    ?? recordedModelVariant(rand, RCU_CORE_KEY, null, has, hasNot)
    ?? recordedModelVariant(rand, RCU_CORE_KEY, null, has.filter((f) => f !== 'try_to_wake_up' && f !== 'rcu_report_qs_rnp'), hasNot);
  return v && batchTree(v.v, r.batch, r.more, rand);
}

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
        r.gpStart();
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
  t.scratch.gpStep = m.rcu.forceQs() ? 1 : 2;
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
