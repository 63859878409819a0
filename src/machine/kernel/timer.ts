/**
 * Kernel timers and the tick (kernel/time/timer.c, hrtimer.c, tick-sched.c): per-CPU timer-wheel
 * timers (`mod_timer`: process_timeout of schedule_timeout, delayed_work_timer_fn, deferrable ones
 * that never wake an idle CPU) and hrtimers (timerfd, the watchdog), their expiry (the TIMER softirq,
 * the hrtimer interrupt), and the NO_HZ idle tick: a CPU ticks at HZ while it runs tasks or while RCU
 * needs it (rcu.ts), and when it goes idle otherwise stops the tick (tick_stop) and programs the tick
 * hrtimer for its next non-deferrable timer, so an idle CPU wakes only for what is due on it.
 *
 * The interrupt and softirq bodies are the trees the real kernel ran in the `idle` recording
 * (recorded.ts), chosen by what this tick does (restarts or not, a fair task or the idle task
 * interrupted, softirqs raised or not, which callback expires); their tracepoints fire at the sites
 * paths/tpsites.ts places them.
 */
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import type { QEvent } from '../core/events';
import type { Prng } from '../core/prng';
import { Semantics } from '../paths/semantics';
import { definePaths } from '../paths/dsl';
import { H_CONT, H_PUSHED, H_AGAIN, H_IDLE, pushPath, newEnv } from '../paths/kexec';
import { recordedVariant } from './recorded';
import { TIMER_PATHS } from './timer_paths';

export const TIMER_SOFTIRQ = 1, BLOCK_SOFTIRQ = 4, SCHED_SOFTIRQ = 7, RCU_SOFTIRQ = 9;
/** the paths running TIMER, SCHED and RCU softirqs (timer_paths.ts) */
const SOFTIRQ_ACTIONS: Record<number, string> = { [TIMER_SOFTIRQ]: 'softirq_timer', [SCHED_SOFTIRQ]: 'softirq_sched', [RCU_SOFTIRQ]: 'softirq_rcu' };
/** the recording whose trees the idle system's interrupts and softirqs run */
export const IDLE_RECORDING = 'idle';
/** hrtimer callbacks other than the tick's (a tick tree calls none of them) */
const HR_CALLBACKS = ['hrtimer_wakeup', 'timerfd_tmrproc', 'watchdog_timer_fn'];

/** What a timer does when it expires (softirq context for wheel timers, hardirq for hrtimers). */
export type TimerRun = (m: TimerMachine, c: Cpu, e: Env) => void;

/** A struct timer_list or struct hrtimer. */
export class KTimer {
  cpu = 0;
  /** ns */
  expires = 0;
  armed = false;
  ev: QEvent | null = null;
  /**
   * @param fn the callback's kernel function (what timer_start/hrtimer_start print)
   * @param run its semantics (the tasks it wakes go to `e.wakes`)
   */
  constructor(readonly fn: string, readonly run: TimerRun, readonly hr = false, readonly deferrable = false) {}
}

/** Per-CPU timer base and tick state (struct timer_base, struct tick_sched). */
class Base {
  readonly wheel: KTimer[] = [];
  tickStopped = false;
  /** the idle tick / NO_HZ wakeup programmed (the tick hrtimer while the CPU idles) */
  idleEv: QEvent | null = null;
  /** RCU needs this CPU's tick until then (rcu.ts) */
  rcuHoldUntil = 0;
  /** raise RCU_SOFTIRQ at the next tick (a quiescent state to report, callbacks to run) */
  rcuPending = false;
  /** jiffy of the next periodic load balance (rq->next_balance) */
  nextBalance = 0;
  /** jiffy of the last periodic load balance (the domain's sd->last_balance) */
  lastBalance = 0;
  /** a tick ran while the CPU idled (ts->got_idle_tick) */
  gotTick = false;
  /** rq->has_blocked_load: set when the CPU enters NO_HZ idle, cleared by the nohz stats update */
  blockedLoad = false;
}

/**
 * The NO_HZ idle-balance state of kernel/sched/fair.c (struct nohz): `has_blocked` (some idle CPU's
 * blocked load still decays) and `next_blocked` (jiffies: the earliest next stats update, LOAD_AVG_PERIOD
 * = 32 ms = 8 jiffies at HZ=250 after the last).  A CPU going idle (newidle_balance found nothing to
 * pull: nohz_newidle_balance) while both allow it sets NOHZ_NEWILB_KICK, and do_idle's
 * nohz_run_idle_balance then runs _nohz_idle_balance(NOHZ_STATS_KICK) on that CPU.
 */
class Nohz {
  hasBlocked = false;
  nextBlocked = 0;
}
const LOAD_AVG_PERIOD_MS = 32;

export interface TimerMachine extends CpuMachine {
  readonly timers: Timers;
  readonly sched: { hasRunnable(c: Cpu): boolean };
}

/** The machine's timers: wheel timers per CPU, hrtimers on the event queue, the NO_HZ tick. */
export class Timers {
  readonly bases: Base[];
  readonly nohz = new Nohz();
  /** RCU's part of a tick on a CPU (rcu.ts: rcu_sched_clock_irq's quiescent state and rcu_pending) */
  rcuTick: ((c: Cpu) => boolean) | null = null;
  /**
   * @param rand the PRNG drawing the interrupts' and softirqs' recorded trees: a stream of its own,
   *   so that the background's ticks never change which variants a workload's entries draw
   */
  constructor(private readonly m: TimerMachine | CpuMachine, readonly rand: Prng) {
    this.bases = m.cpus.map(() => new Base());
  }

  jiffies(t = this.m.now): number {
    return Math.floor(t / this.m.tickNs);
  }

  /** mod_timer / hrtimer_start: arm `t` on `cpu` to expire at `expires` (ns). */
  mod(t: KTimer, cpu: number, expires: number): void {
    this.del(t);
    t.cpu = cpu;
    t.expires = expires;
    t.armed = true;
    const m = this.m as TimerMachine;
    if (t.hr) {
      t.ev = m.schedule(expires, () => { t.armed = false; t.ev = null; hrtimerInterrupt(m, m.cpus[t.cpu], t); });
      return;
    }
    const b = this.bases[cpu];
    b.wheel.push(t);
    // a CPU idling with its tick stopped is woken for an earlier timer (wake_up_nohz_cpu): its
    // next tick is programmed again
    const c = m.cpus[cpu];
    if (!t.deferrable && c.idling && b.tickStopped) this.program(c);
  }

  /** del_timer / hrtimer_cancel: true when it was armed. */
  del(t: KTimer): boolean {
    if (!t.armed) return false;
    t.armed = false;
    if (t.ev) { t.ev.cancelled = true; t.ev = null; return true; }
    const w = this.bases[t.cpu].wheel;
    const i = w.indexOf(t);
    if (i >= 0) w.splice(i, 1);
    return true;
  }

  /** A wheel timer of `c` has expired (run_local_timers raises TIMER_SOFTIRQ). */
  wheelDue(c: Cpu): boolean {
    const now = this.m.now;
    for (const t of this.bases[c.id].wheel) if (t.expires <= now) return true;
    return false;
  }

  /** The expired wheel timers of `c`, earliest first, detached (__run_timers). */
  takeDue(c: Cpu): KTimer[] {
    const w = this.bases[c.id].wheel;
    const now = this.m.now;
    const due = w.filter((t) => t.expires <= now).sort((a, b) => a.expires - b.expires);
    if (due.length) {
      for (const t of due) { t.armed = false; w.splice(w.indexOf(t), 1); }
    }
    return due;
  }

  /** The jiffy boundary at or after the earliest non-deferrable wheel timer of `c` (Infinity: none). */
  nextWake(c: Cpu): number {
    let best = Infinity;
    for (const t of this.bases[c.id].wheel) if (!t.deferrable && t.expires < best) best = t.expires;
    return best === Infinity ? best : Math.ceil(best / this.m.tickNs) * this.m.tickNs;
  }

  /**
   * newidle_balance (kernel/sched/fair.c) found nothing to pull and `c` goes idle: its next balance
   * moves forward to the domain's next one at the idle interval (update_next_balance: sd->last_balance
   * + get_sd_balance_interval(sd, 0)), so a CPU idling after a busy stretch, whose next_balance was
   * set at the busy interval, balances at its next idle tick once that is due.
   */
  newidle(c: Cpu): void {
    const b = this.bases[c.id];
    b.nextBalance = Math.min(b.nextBalance, b.lastBalance + BALANCE_IDLE_JIFFIES);
  }

  /** tick_nohz_idle_retain_tick: the CPU idles with its tick running (its next tick programmed). */
  idleRetain(c: Cpu): void {
    this.arm(c, this.nextJiffy());
  }

  /**
   * tick_nohz_idle_stop_tick (kernel/time/tick-sched.c) for idling `c`: tick_nohz_next_event keeps
   * the tick when RCU needs the CPU or its next timer is due within a tick (`near`) unless the tick is
   * stopped already; otherwise tick_nohz_stop_tick stops it (`stop`: the tick_stop event, the first
   * time only) and programs the tick hrtimer for the next event (`start`: hrtimer_start, skipped when
   * it is programmed for that expiry already), or cancels it when no timer is pending (`cancel`).
   */
  idleStop(c: Cpu): IdleStop {
    const b = this.bases[c.id];
    const nextJiffy = this.nextJiffy();
    const wake = this.nextWake(c);
    const rcu = b.rcuHoldUntil > this.m.now || b.rcuPending;
    const near = rcu || wake <= nextJiffy;
    const r: IdleStop = { rcu, near, go: false, stop: false, start: false, wasArmed: false, cancel: false };
    if (near && !b.tickStopped) { this.arm(c, nextJiffy); return r; }
    r.go = true;
    r.stop = !b.tickStopped;
    b.tickStopped = true;
    const expires = near ? nextJiffy : wake;
    const armed = b.idleEv !== null && !b.idleEv.cancelled;
    if (armed && b.idleEv!.t === expires) return r;
    if (expires === Infinity) {
      r.cancel = armed;
      if (armed) b.idleEv!.cancelled = true;
      b.idleEv = null;
      return r;
    }
    r.start = true;
    r.wasArmed = armed;
    this.arm(c, expires);
    return r;
  }

  /** The jiffy boundary after now (last_jiffies_update + TICK_NSEC). */
  private nextJiffy(): number {
    return (Math.floor(this.m.now / this.m.tickNs) + 1) * this.m.tickNs;
  }

  /** Program the stopped tick for the next timer of `c`, unless an earlier wakeup is programmed. */
  program(c: Cpu): void {
    const wake = this.nextWake(c);
    const b = this.bases[c.id];
    if (wake === Infinity || (b.idleEv && !b.idleEv.cancelled && b.idleEv.t <= wake)) return;
    this.arm(c, wake);
  }

  private arm(c: Cpu, at: number): void {
    const b = this.bases[c.id];
    if (b.idleEv && !b.idleEv.cancelled && b.idleEv.t === at) return;
    if (b.idleEv) b.idleEv.cancelled = true;
    const m = this.m as TimerMachine;
    const ev: QEvent = b.idleEv = m.schedule(at, () => {
      if (b.idleEv !== ev) return;
      b.idleEv = null;
      // the CPU left idle meanwhile: its ticks are the running CPU's (machine.ts cpuStep)
      if (!c.idling) return;
      // tick_sched_do_timer: a tick while the CPU idles (got_idle_tick, read by the idle loop)
      b.gotTick = true;
      c.ticks++;
      m.irq(c, 'timer_interrupt', newEnv('tick', { tick: true, irq: 236, vector: 236 }));
      m.kick(c, m.now);
    });
  }

  /**
   * The CPU leaves NO_HZ idle to run a task (tick_nohz_idle_exit): a stopped tick restarts
   * (tick_nohz_restart_sched_tick); `armed` when its hrtimer was still pending (hrtimer_cancel
   * removes it: the hrtimer_cancel event), not when it expired to wake the CPU.
   */
  idleExit(c: Cpu): { restart: boolean; armed: boolean } {
    const b = this.bases[c.id];
    const armed = b.idleEv !== null && !b.idleEv.cancelled;
    if (b.idleEv) { b.idleEv.cancelled = true; b.idleEv = null; }
    const restart = b.tickStopped;
    b.tickStopped = false;
    return { restart, armed: restart && armed };
  }
}

/** What tick_nohz_idle_stop_tick did (Timers.idleStop). */
export interface IdleStop {
  /** rcu_needs_cpu: callbacks wait on this CPU (the next timer is not looked up) */
  rcu: boolean;
  /** tick_nohz_next_event: the next event is within a tick (RCU needs the CPU, a timer is due) */
  near: boolean;
  /** tick_nohz_stop_tick runs (the tick is or was stopped, or nothing is near) */
  go: boolean;
  /** the tick stops now (tick_stop event) */
  stop: boolean;
  /** the tick hrtimer is programmed for a new expiry (hrtimer_start) */
  start: boolean;
  /** ... and was pending until then (__remove_hrtimer) */
  wasArmed: boolean;
  /** the tick hrtimer is cancelled: no timer pending (hrtimer_cancel) */
  cancel: boolean;
}

export const timer = new Semantics<TimerMachine>('kernel/time/timer');
timer.setup(() => definePaths(TIMER_PATHS));

/**
 * rebalance_domains' interval (get_sd_balance_interval): the domain's balance_interval (its weight in ms,
 * 4 CPUs: 1 jiffy), times busy_factor (16) while the CPU is busy; an idle CPU rebalances every other tick
 * (the interval doubled up to max_interval once a balance found nothing to move).
 */
const BALANCE_IDLE_JIFFIES = 2;
const BALANCE_BUSY_JIFFIES = 16;

/** The softirqs this tick raises: TIMER when a wheel timer is due, SCHED when a balance is due, RCU when RCU asks. */
function tickRaises(m: TimerMachine, c: Cpu): number {
  const b = m.timers.bases[c.id];
  let raise = 0;
  if (m.timers.wheelDue(c)) raise |= 1 << TIMER_SOFTIRQ;
  const j = m.timers.jiffies();
  if (j >= b.nextBalance) {
    raise |= 1 << SCHED_SOFTIRQ;
    b.lastBalance = j;
    b.nextBalance = j + (c.curr.idle ? BALANCE_IDLE_JIFFIES : BALANCE_BUSY_JIFFIES);
  }
  const rcuPending = m.timers.rcuTick !== null && m.timers.rcuTick(c);
  if (b.rcuPending || rcuPending) { raise |= 1 << RCU_SOFTIRQ; b.rcuPending = false; }
  return raise;
}

/**
 * The timer interrupt's body (`timer_interrupt`): a tick (tick_sched_timer), the tree the idle
 * recording shows for one like it; the softirqs it raises are pending for irq exit.
 */
timer.hook('tick_body', (m, c, _t, e) => {
  const raise = tickRaises(m, c);
  c.softirqPending |= raise;
  e.raised = raise;
  const b = m.timers.bases[c.id];
  const restart = !b.tickStopped;
  const has = ['tick_sched_timer', c.curr.idle ? 'task_tick_idle' : 'task_tick_fair'];
  const hasNot = [...HR_CALLBACKS, 'try_to_wake_up'];
  (restart ? has : hasNot).push('enqueue_hrtimer');
  (raise ? has : hasNot).push('raise_softirq');
  const p = recordedVariant(m.timers.rand, 'irq:__sysvec_apic_timer_interrupt', IDLE_RECORDING, has, hasNot)
    ?? recordedVariant(m.timers.rand, 'irq:__sysvec_apic_timer_interrupt', IDLE_RECORDING, has.slice(0, 2), hasNot.filter((f) => f !== 'raise_softirq' && f !== 'enqueue_hrtimer'));
  e.hrfn = 'tick_sched_timer';
  return pushTree(c, p, e, 'tick_template');
});
/** One softirq_raise event per softirq the tick raised (raise_softirq's trace_softirq_raise). */
timer.hook('tick_raised', (_m, c, _t, e) => {
  const raised = e.raised as number;
  if (!raised) return H_CONT;
  for (const v of [RCU_SOFTIRQ, SCHED_SOFTIRQ, TIMER_SOFTIRQ]) if (raised & (1 << v)) pushPath(c.ks, 'softirq_raise_event', newEnv('raise', { vec: v }));
  return H_PUSHED;
});

/** An hrtimer other than the tick expires on `c`: its callback's semantics, then its recorded interrupt. */
function hrtimerInterrupt(m: TimerMachine, c: Cpu, t: KTimer): void {
  const e = newEnv('hrtimer', { irq: 236, vector: 236, hrtimer: t, hrfn: t.fn, recorded: true, wakes: [] });
  t.run(m, c, e);
  m.irq(c, 'hrtimer_irq', e);
}
timer.hook('hrtimer_body', (m, c, _t, e) => {
  const t = e.hrtimer as KTimer;
  const has = [t.fn];
  const hasNot = ['tick_sched_timer'];
  (t.armed ? has : hasNot).push('enqueue_hrtimer');
  const p = recordedVariant(m.timers.rand, 'irq:__sysvec_apic_timer_interrupt', IDLE_RECORDING, has, hasNot)
    ?? recordedVariant(m.timers.rand, 'irq:__sysvec_apic_timer_interrupt', IDLE_RECORDING, [t.fn]);
  return pushTree(c, p, e, 'hrtimer_template');
});

/** Push a recorded tree (else the template `fallback`). */
function pushTree(c: Cpu, p: ReturnType<typeof recordedVariant>, e: Env, fallback: string): number {
  e.recorded = true;
  pushPath(c.ks, p ?? fallback, e);
  return H_PUSHED;
}

/**
 * __do_softirq: one action per pending softirq in bit order (TIMER, BLOCK, SCHED, RCU), each between
 * softirq_entry and softirq_exit: TIMER, SCHED and RCU run the trees the idle recording shows
 * (softirq_timer/_sched/_rcu), the others (BLOCK, NET_RX) their template.
 */
timer.hook('softirq_next', (m, c, _t, e) => {
  let pending = (e.pending as number) & ~((e.done as number | undefined) ?? 0);
  const raised = (e.raised as number | undefined) ?? 0;
  if (!pending && raised) {
    // raised again while they ran (rcu.ts %rcu_more): the loop restarts, at most MAX_SOFTIRQ_RESTART
    // times and while nothing needs the CPU; what is left waits for the next tick (ksoftirqd's work)
    e.raised = 0;
    const restarts = ((e.restarts as number | undefined) ?? 0) + 1;
    e.restarts = restarts;
    if (restarts >= MAX_SOFTIRQ_RESTART || c.needResched) {
      if (raised & (1 << RCU_SOFTIRQ)) m.timers.bases[c.id].rcuPending = true;
      return H_CONT;
    }
    e.pending = (e.pending as number) | raised;
    e.done = ((e.done as number | undefined) ?? 0) & ~raised;
    pending = raised;
  }
  if (!pending) return H_CONT;
  const vec = 31 - Math.clz32(pending & -pending);
  e.done = ((e.done as number | undefined) ?? 0) | (1 << vec);
  const action = SOFTIRQ_ACTIONS[vec];
  pushPath(c.ks, action ?? 'softirq', newEnv('softirq', { vec, pending: 1 << vec, recorded: true, wakes: [], softirqLoop: e }));
  return H_AGAIN;
});
/** handle_softirqs' MAX_SOFTIRQ_RESTART */
const MAX_SOFTIRQ_RESTART = 10;
/** run_rebalance_domains' tree (SCHED_SOFTIRQ). */
timer.hook('rebalance_body', (m, c, _t, e) => pushTree(c, recordedVariant(m.timers.rand, 'softirq:run_rebalance_domains', IDLE_RECORDING, []), e, 'softirq_sched_template'));

/** run_timer_softirq: the expired timers' callbacks, in the tree the recording shows for the same callbacks. */
timer.hook('run_timers', (m, c, _t, e) => {
  const due = m.timers.takeDue(c);
  const fns = [...new Set(due.map((t) => t.fn))];
  for (const t of due) { e.ktimer = t; t.run(m, c, e); }
  const key = 'softirq:run_timer_softirq';
  const p = recordedVariant(m.timers.rand, key, IDLE_RECORDING, fns, WHEEL_CALLBACKS.filter((f) => !fns.includes(f)))
    ?? recordedVariant(m.timers.rand, key, IDLE_RECORDING, fns);
  if (p || fns.length < 2) return pushTree(c, p, e, 'softirq_timer_template');
  // callbacks no recorded run expired together: each one's recorded run, in expiry order
  e.recorded = true;
  for (let i = fns.length - 1; i >= 0; i--) pushPath(c.ks, recordedVariant(m.timers.rand, key, IDLE_RECORDING, [fns[i]]) ?? 'softirq_timer_template', e);
  return H_PUSHED;
});
const WHEEL_CALLBACKS = ['process_timeout', 'delayed_work_timer_fn', 'tcp_orphan_update', 'blk_stat_timer_fn', 'writeout_period', 'blk_rq_timed_out_timer', 'commit_timeout', 'mix_interrupt_randomness'];

/**
 * The idle loop (kernel/sched/idle.c do_idle): one iteration per idle period while nothing is to
 * run; `e.gotTick` is what tick_nohz_idle_got_tick returned after the last one (false at first).
 */
timer.hook('idle_iterate', (m, c, _t, e) => {
  if (c.needResched || m.sched.hasRunnable(c)) return H_CONT;
  e.waited = false;
  e.idleExit = false;
  pushPath(c.ks, 'idle_iteration', e);
  return H_AGAIN;
});
/** cpuidle_not_available: idle_call_stop_or_retain_tick(got_tick): stop the tick after an idle tick or when stopped. */
timer.cond('idle_got_tick', (_m, _c, _t, e) => e.gotTick === true);
timer.cond('idle_stop_tick', (m, c, _t, e) => e.gotTick === true || m.timers.bases[c.id].tickStopped);
timer.hook('nohz_retain', (m, c) => { m.timers.idleRetain(c); return H_CONT; });
timer.hook('nohz_stop', (m, c, _t, e) => { e.nohz = m.timers.idleStop(c); return H_CONT; });
const nohz = (e: Env): IdleStop => e.nohz as IdleStop;
timer.cond('tick_rcu', (_m, _c, _t, e) => nohz(e).rcu);
timer.cond('tick_near', (_m, _c, _t, e) => nohz(e).near);
timer.cond('tick_go', (_m, _c, _t, e) => nohz(e).go);
timer.cond('tick_stop', (_m, _c, _t, e) => nohz(e).stop);
timer.cond('tick_start', (_m, _c, _t, e) => nohz(e).start);
timer.cond('tick_was_armed', (_m, _c, _t, e) => nohz(e).wasArmed);
timer.cond('tick_cancel', (_m, _c, _t, e) => nohz(e).cancel);
/** amd_e400_idle (HLT): the CPU waits until an interrupt or a wakeup kicks it. */
timer.hook('cpuidle_wait', (m, c, _t, e) => {
  if (e.waited || m.sched.hasRunnable(c) || c.needResched) return H_CONT;
  e.waited = true;
  return H_IDLE;
});
timer.hook('idle_got_tick', (m, c, _t, e) => {
  const b = m.timers.bases[c.id];
  e.gotTick = b.gotTick;
  b.gotTick = false;
  return H_CONT;
});
/** newidle_balance's end on a CPU going idle (Timers.newidle). */
timer.hook('newidle_next_balance', (m, c) => { m.timers.newidle(c); return H_CONT; });
/** nohz_balance_enter_idle: the CPU joins nohz.idle_cpus_mask with its load blocked (rq->has_blocked_load, nohz.has_blocked). */
timer.hook('nohz_enter_idle', (m, c) => {
  m.timers.bases[c.id].blockedLoad = true;
  m.timers.nohz.hasBlocked = true;
  return H_CONT;
});
/**
 * nohz_newidle_balance then nohz_run_idle_balance: a CPU entering idle updates the idle CPUs' blocked
 * load when some is left and the last update is LOAD_AVG_PERIOD old (the avg_idle >= 500 us test
 * holds on an idle system).
 */
timer.cond('nohz_newilb', (m) => {
  const n = m.timers.nohz;
  return n.hasBlocked && m.timers.jiffies() >= n.nextBlocked;
});
/**
 * _nohz_idle_balance(NOHZ_STATS_KICK): every CPU from the next one round to this one, an idle one's
 * blocked load updated (update_nohz_stats) and its rq clock when its next_balance is due; then
 * nohz.next_blocked moves LOAD_AVG_PERIOD on and has_blocked stays set only while a busy CPU keeps its load.
 */
timer.hook('nohz_stats', (m, c) => {
  const ts = m.timers;
  const j = ts.jiffies();
  const n = m.cpus.length;
  let left = false;
  for (let k = n; k >= 1; k--) {
    const o = m.cpus[(c.id + k) % n];
    const b = ts.bases[o.id];
    if (!o.curr.idle && o !== c) { left ||= b.blockedLoad; pushPath(c.ks, 'nohz_stats_busy', newEnv('nohz')); continue; }
    pushPath(c.ks, 'nohz_stats_cpu', newEnv('nohz', { blocked: b.blockedLoad, due: j >= b.nextBalance }));
    b.blockedLoad = false;
  }
  ts.nohz.hasBlocked = left;
  ts.nohz.nextBlocked = j + Math.ceil(LOAD_AVG_PERIOD_MS * 1e6 / m.tickNs);
  return H_PUSHED;
});
timer.cond('nohz_blocked', (_m, _c, _t, e) => e.blocked === true);
timer.cond('nohz_due', (_m, _c, _t, e) => e.due === true);
timer.hook('nohz_exit', (m, c, _t, e) => { e.nohzExit = m.timers.idleExit(c); return H_CONT; });
timer.cond('tick_restart', (_m, _c, _t, e) => (e.nohzExit as { restart: boolean }).restart);
timer.cond('tick_restart_armed', (_m, _c, _t, e) => (e.nohzExit as { armed: boolean }).armed);

// tracepoint arguments (TP_PROTO order)
const timerObj = (e: Env): { function: string } => ({ function: (e.ktimer as KTimer | undefined)?.fn ?? 'process_timeout' });
/** the hrtimer of an event: the expiring callback's, else a syscall's sleep (hrtimer_wakeup), else the tick's */
const hrObj = (e: Env): { function: string } => ({ function: (e.hrfn as string | undefined) ?? (e.nr >= 0 ? 'hrtimer_wakeup' : 'tick_sched_timer') });
timer.tpArgs('timer_init', (_m, _c, _t, e) => [timerObj(e)]);
timer.tpArgs('timer_start', (m, _c, _t, e) => [timerObj(e), m.timers.jiffies((e.ktimer as KTimer | undefined)?.expires ?? m.now), 0]);
timer.tpArgs('timer_cancel', (_m, _c, _t, e) => [timerObj(e)]);
timer.tpArgs('timer_expire_entry', (m, _c, _t, e) => [timerObj(e), m.timers.jiffies()]);
timer.tpArgs('timer_expire_exit', (_m, _c, _t, e) => [timerObj(e)]);
timer.tpArgs('hrtimer_init', (_m, _c, _t, e) => [hrObj(e), 1, 0]);
timer.tpArgs('hrtimer_start', (_m, _c, _t, e) => [hrObj(e), 0]);
timer.tpArgs('hrtimer_cancel', (_m, _c, _t, e) => [hrObj(e)]);
timer.tpArgs('hrtimer_expire_entry', (m, _c, _t, e) => [hrObj(e), m.now]);
timer.tpArgs('hrtimer_expire_exit', (_m, _c, _t, e) => [hrObj(e)]);
timer.tpArgs('tick_stop', () => [1, 0]);
timer.tpArgs('cpu_idle', (_m, c, _t, e) => [e.idleExit ? 4294967295 : 1, c.id]);
timer.hook('cpuidle_exit', (_m, _c, _t, e) => { e.idleExit = true; return H_CONT; });

/** A timer of a sleeping task (schedule_timeout's process_timeout): wakes it. */
function processTimeout(task: Task, deferrable: boolean): KTimer {
  return new KTimer('process_timeout', (_m, _c, e) => { (e.wakes as Task[]).push(task); }, false, deferrable);
}

/**
 * schedule_timeout(ns) for the current task `t` (its state already set): its on-stack timer armed
 * (`%timer_arm` of the path), deferrable for a timeout that may wait for the CPU's next wakeup.
 */
export function pushScheduleTimeout(t: Task, ns: number, deferrable = false): void {
  const k = deferrable ? 'deferrableTimeout' : 'timeoutTimer';
  const tm = (t.scratch[k] as KTimer | undefined) ?? (t.scratch[k] = processTimeout(t, deferrable)) as KTimer;
  pushPath(t.ks, 'schedule_timeout_path', newEnv('schedule_timeout', { ktimer: tm, timeout: ns }));
}
/** `%sleep_timeout`: schedule_timeout(e.timeout) of the current task. */
timer.hook('sleep_timeout', (_m, _c, t, e) => { pushScheduleTimeout(t, e.timeout as number); return H_PUSHED; });
timer.hook('timer_arm', (m, c, _t, e) => {
  m.timers.mod(e.ktimer as KTimer, c.id, m.now + (e.timeout as number));
  return H_CONT;
});
timer.hook('timer_del', (m, _c, _t, e) => { e.wasPending = m.timers.del(e.ktimer as KTimer); return H_CONT; });
timer.cond('timer_was_pending', (_m, _c, _t, e) => e.wasPending === true);
// A recorded mod_timer (kernel/time/timer.c __mod_timer, inlined) of a pending timer works out the new
// wheel index before detach_if_pending, which takes the timer off the wheel (detach_timer:
// timer_cancel); of an idle one, after (tbench's socket timers: 311 mod_timer trees with
// calc_wheel_index first, 313 timer_cancel events with __timer_delete_sync's).  The tree's order says
// which: timer_cancel fires before its detach_if_pending only when calc_wheel_index ran first.
timer.hook('mod_timer_begin', (_m, _c, _t, e) => { e.modTimerPending = false; return H_CONT; });
timer.hook('mod_timer_index', (_m, _c, _t, e) => { if (e.modTimerPending === false) e.modTimerPending = true; return H_CONT; });
timer.hook('mod_timer_end', (_m, _c, _t, e) => { e.modTimerPending = undefined; return H_CONT; });
timer.at('mod_timer', 'mod_timer_begin');
timer.at('calc_wheel_index', 'mod_timer_index');
timer.at('mod_timer', 'mod_timer_end', 'exit');
timer.cond('timer_cancel_pending', (_m, _c, _t, e) => e.modTimerPending !== false);
timer.tpIf('timer_cancel', 'timer_cancel_pending');
