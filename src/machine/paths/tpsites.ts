/**
 * Where tracepoints fire in the kernel's functions (the `trace_X()` calls of Linux 6.1's source), so
 * that recorded call trees (paths/model.ts), which show only traced functions, fire them at the right
 * place: at a function's entry (before its first traced callee), at its exit (after its last), or right
 * after one of its callees returns (`after:CALLEE`).  The site is the function the trace_X() call is
 * compiled into: where the C function holding it is inlined, the function it is inlined in (e.g.
 * trace_sched_switch in __schedule, notrace, whose callees show under schedule(); compiled with
 * `parent: '__schedule'`).  The arguments come from the subsystems (`Semantics.tpArgs`) or the path
 * environment, as for the templates.
 */
import { functionId } from '../../kernel/ftrace';

export interface TpSite {
  /** 'system:event' */
  readonly event: string;
  /** 'entry', 'exit', or 'after:CALLEE' */
  readonly where: string;
}

/** function -> [event, where] (mm/slub.c, mm/page_alloc.c, kernel/fork.c, kernel/exit.c, fs/exec.c, kernel/signal.c ...) */
const SITES: Record<string, [string, string][]> = {
  // mm/slub.c: slab_alloc_node's callers trace after the allocation, kmem_cache_free/kfree first
  kmem_cache_alloc: [['kmem:kmem_cache_alloc', 'exit']],
  kmem_cache_alloc_lru: [['kmem:kmem_cache_alloc', 'exit']],
  kmem_cache_alloc_node: [['kmem:kmem_cache_alloc', 'exit']],
  kmem_cache_free: [['kmem:kmem_cache_free', 'entry']],
  __kmalloc: [['kmem:kmalloc', 'exit']],
  __kmalloc_node: [['kmem:kmalloc', 'exit']],
  __kmalloc_node_track_caller: [['kmem:kmalloc', 'exit']],
  kmalloc_trace: [['kmem:kmalloc', 'exit']],
  kmalloc_node_trace: [['kmem:kmalloc', 'exit']],
  kmalloc_large: [['kmem:kmalloc', 'exit']],
  kmalloc_large_node: [['kmem:kmalloc', 'exit']],
  kfree: [['kmem:kfree', 'entry']],
  // mm/page_alloc.c
  __alloc_pages: [['kmem:mm_page_alloc', 'exit']],
  free_unref_page: [['kmem:mm_page_free', 'entry']],
  __free_pages_ok: [['kmem:mm_page_free', 'entry']],
  // kernel/sched/core.c: try_to_wake_up (ttwu_state_match under p->pi_lock, then trace_sched_waking),
  // ttwu_do_activate (ttwu_do_wakeup inlined: check_preempt_curr, then trace_sched_wakeup),
  // wake_up_new_task (activate_task, then trace_sched_wakeup_new)
  try_to_wake_up: [['sched:sched_waking', 'after:_raw_spin_lock_irqsave']],
  ttwu_do_activate: [['sched:sched_wakeup', 'exit']],
  wake_up_new_task: [['sched:sched_wakeup_new', 'after:enqueue_task_fair']],
  // kernel/fork.c, kernel/exit.c, fs/exec.c
  __set_task_comm: [['task:task_rename', 'entry']],
  copy_process: [['task:task_newtask', 'exit']],
  // kernel/signal.c: __send_signal_locked traces the signal it queued (or not) last
  __send_signal_locked: [['signal:signal_generate', 'exit']],
  delayed_put_task_struct: [['sched:sched_process_free', 'entry']],
  // kernel/time (the idle system's ticks and timers, kernel/timer.ts): the local timer interrupt
  // (arch/x86/kernel/apic/apic.c), __run_hrtimer inlined in __hrtimer_run_queues (the callback runs
  // right after the base lock is dropped), enqueue_hrtimer's debug_activate, call_timer_fn (the
  // timer was detached just before: timer_cancel), hrtimer_init's debug_init
  __sysvec_apic_timer_interrupt: [['irq_vectors:local_timer_entry', 'entry'], ['irq_vectors:local_timer_exit', 'exit']],
  __hrtimer_run_queues: [['timer:hrtimer_expire_entry', 'after:_raw_spin_unlock_irqrestore'], ['timer:hrtimer_expire_exit', 'after:tick_sched_timer'],
    ['timer:hrtimer_expire_exit', 'after:timerfd_tmrproc'], ['timer:hrtimer_expire_exit', 'after:watchdog_timer_fn'], ['timer:hrtimer_expire_exit', 'after:hrtimer_wakeup']],
  enqueue_hrtimer: [['timer:hrtimer_start', 'entry']],
  hrtimer_init: [['timer:hrtimer_init', 'entry']],
  call_timer_fn: [['timer:timer_cancel', 'entry'], ['timer:timer_expire_entry', 'entry'], ['timer:timer_expire_exit', 'exit']],
  // kernel/rcu/tree.c: trace_rcu_utilization around the scheduler-tick, RCU-core and context-switch hooks
  rcu_sched_clock_irq: [['rcu:rcu_utilization', 'entry'], ['rcu:rcu_utilization', 'exit']],
  rcu_core: [['rcu:rcu_utilization', 'entry'], ['rcu:rcu_utilization', 'exit']],
  rcu_note_context_switch: [['rcu:rcu_utilization', 'entry'], ['rcu:rcu_utilization', 'exit']],
  // kernel/sched/fair.c update_curr (inlined trace_sched_stat_runtime, for a task entity): where a
  // task's own entity is charged: dequeued (it sleeps), put back (preempted), ticked
  dequeue_entity: [['sched:sched_stat_runtime', 'after:update_curr']],
  put_prev_entity: [['sched:sched_stat_runtime', 'after:update_curr']],
  task_tick_fair: [['sched:sched_stat_runtime', 'after:update_curr']],
  // kernel/time/timer.c enqueue_timer (mod_timer, add_timer_on ...): trace_timer_start
  enqueue_timer: [['timer:timer_start', 'entry']],
  // kernel/workqueue.c __queue_work: queued and activated under the pool lock, then insert_work
  __queue_work: [['workqueue:workqueue_queue_work', 'after:_raw_spin_lock'], ['workqueue:workqueue_activate_work', 'after:_raw_spin_lock']],
};

const NONE: readonly TpSite[] = [];
let byId: Map<number, TpSite[]> | null = null;

/** The tracepoint sites in kernel function `fn` (kallsyms id). */
export function tracepointSitesOf(fn: number): readonly TpSite[] {
  if (!byId) {
    byId = new Map();
    for (const [name, l] of Object.entries(SITES)) {
      const id = functionId(name);
      if (id >= 0) byId.set(id, l.map(([event, where]) => ({ event, where })));
    }
  }
  return byId.get(fn) ?? NONE;
}

/** Every function with a site (for the check that each is a kernel symbol and each event exists). */
export function tracepointSiteTable(): Readonly<Record<string, readonly [string, string][]>> {
  return SITES;
}
