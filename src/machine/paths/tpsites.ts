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
