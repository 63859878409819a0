/**
 * Where tracepoints fire in the kernel's functions (the `trace_X()` calls of Linux 6.1's source), so
 * that recorded call trees (paths/model.ts), which show only traced functions, fire them at the right
 * place: at a function's entry (before its first traced callee), at its exit (after its last), right
 * before one of its callees is called (`before:CALLEE`) or right after it returns (`after:CALLEE`).
 * Which function holds which trace_X() call comes from the disassembly of Debian's 6.1.0-56 vmlinux and
 * (-dbg package: the calls of `__SCT__tp_func_X`); where that function is notrace (the
 * maple tree's mt_find, mas_store_prealloc ...), the traced functions calling it.  Each site's count was
 * checked against the recordings (events of the events run vs calls of the graph run, same workload).  The site is the function the trace_X() call is
 * compiled into: where the C function holding it is inlined, the function it is inlined in (e.g.
 * trace_sched_switch in __schedule, notrace, whose callees show under schedule(); compiled with
 * `parent: '__schedule'`).  The arguments come from the subsystems (`Semantics.tpArgs`) or the path
 * environment, as for the templates.
 */
import { functionId } from '../../kernel/ftrace';

export interface TpSite {
  /** 'system:event' */
  readonly event: string;
  /** 'entry', 'exit', 'before:CALLEE' or 'after:CALLEE' */
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
  // free_pages_prepare (inlined in free_pcp_prepare, the order-0 frees of free_unref_page and
  // free_unref_page_list, and in __free_pages_ok) traces each page freed: the recordings show one
  // mm_page_free per free_pcp_prepare call (ls /: 91 calls, 94 events; cat 77/81; files 298/299)
  free_pcp_prepare: [['kmem:mm_page_free', 'entry']],
  __free_pages_ok: [['kmem:mm_page_free', 'entry']],
  // mm/swap.c lru_add_fn: a folio put on an LRU list (ls /: 38 calls, 39 events)
  lru_add_fn: [['pagemap:mm_lru_insertion', 'exit']],
  // mm/mmap.c: vma_mas_store (the maple tree store of a VMA: 59 calls, 59 events for ls /), the end of
  // vm_unmapped_area (7/7) and of exit_mmap (2/2)
  vm_unmapped_area: [['mmap:vm_unmapped_area', 'exit']],
  // include/linux/mmap_lock.h: mmap_read_trylock / mmap_write_lock_killable / mmap_*_unlock (inline)
  // trace around the rwsem calls of the functions they are inlined in: a page fault's
  // lock_mm_and_find_vma (its up_read is the fault's last call: templates/mm.ts page_fault), the mmap,
  // mprotect, brk and munmap syscalls; mmap_write_downgrade traces acquire_returned (read)
  lock_mm_and_find_vma: [['mmap_lock:mmap_lock_start_locking', 'entry'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_read_trylock']],
  vm_mmap_pgoff: [['mmap_lock:mmap_lock_start_locking', 'after:security_mmap_file'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_write_killable'],
    ['mmap_lock:mmap_lock_released', 'after:up_write']],
  do_mprotect_pkey: [['mmap_lock:mmap_lock_start_locking', 'entry'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_write_killable'],
    ['mmap_lock:mmap_lock_released', 'after:up_write']],
  __x64_sys_brk: [['mmap_lock:mmap_lock_start_locking', 'entry'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_write_killable'],
    ['mmap_lock:mmap_lock_released', 'after:up_write'], ['mmap_lock:mmap_lock_released', 'after:up_read']],
  __vm_munmap: [['mmap_lock:mmap_lock_start_locking', 'entry'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_write_killable'],
    ['mmap_lock:mmap_lock_released', 'after:up_write'], ['mmap_lock:mmap_lock_released', 'after:up_read']],
  // arch/x86/mm/tlb.c flush_tlb_func: trace_tlb_flush once the flush is done (ls /: 23 calls, 24 events)
  flush_tlb_func: [['tlb:tlb_flush', 'exit']],
  // switch_mm_irqs_off traces its own (TLB_FLUSH_ON_TASK_SWITCH) once the new mm's CR3 is loaded: exec's
  // activate_mm (switch_mm), a new mm, flushes all (cat: 1 per exec); flush_tlb_func's call of it (a
  // lazy CPU at exit switches to init_mm) returns before flush_tlb_func's own trace, one event either way
  switch_mm: [['tlb:tlb_flush', 'after:switch_mm_irqs_off']],
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
  // kernel/irq/handle.c __handle_irq_event_percpu: trace_irq_handler_entry / _exit around each action's
  // handler, its only traced callee (ls /: 20 calls in the graph run, 20 irq_handler_entry in the events
  // run, all the serial port's; templates/sys.ts blk_irq, the disk's, fires them in its own tree)
  __handle_irq_event_percpu: [['irq:irq_handler_entry', 'entry'], ['irq:irq_handler_exit', 'exit']],
  // arch/x86/kernel/smp.c: the call-function-single IPI (a wakeup queued on this CPU's wake list)
  __sysvec_call_function_single: [['irq_vectors:call_function_single_entry', 'entry'], ['irq_vectors:call_function_single_exit', 'exit']],
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
  // init_timer_key's debug_init first (scsi_initialize_rq's, INIT_DELAYED_WORK's ...: cp 1 call / 1 event,
  // ls-l 8 / 8, stat 8 / 8, dd-write 32 / 32, pagecache-miss 35 / 35); schedule_timeout's on-stack timer
  // (init_timer_key inlined: timer_init before __mod_timer's lock_timer_base; none for MAX_SCHEDULE_TIMEOUT,
  // which only calls schedule) and its __timer_delete_sync's detach_if_pending (detach_timer's
  // timer_cancel: the sleeper was woken before the timeout; dd-direct-read: 64 init_timer_key + 64
  // schedule_timeout calls / 128 timer_init events, 63 __timer_delete_sync / 65 timer_cancel)
  init_timer_key: [['timer:timer_init', 'entry']],
  schedule_timeout: [['timer:timer_init', 'before:lock_timer_base']],
  __timer_delete_sync: [['timer:timer_cancel', 'before:detach_if_pending']],
  // mod_timer's __mod_timer (inlined) -> detach_if_pending -> detach_timer of a pending timer (the
  // recorded tree's order says whether it was: kernel/timer.ts mod_timer_begin)
  mod_timer: [['timer:timer_cancel', 'before:detach_if_pending']],
  // lib/maple_tree.c is notrace: mt_find's and mtree_load's trace_ma_read fire in their traced callers
  // (find_vma: 59 calls, find_vma_intersection, __vma_adjust 13, vma_merge 4, insert_vm_struct 3 ...:
  // 83 for cat's 86 events, 701 for ps' 704); mas_store_prealloc's/mas_store_gfp's trace_ma_write in
  // vma_mas_store and vma_mas_remove, do_brk_flags, do_mas_align_munmap (mas_store_gfp of the detached
  // VMAs, then mas_store_prealloc: two before unmap_region, as cat's munmap shows), __vma_adjust (its
  // inlined stores; a node store traces a second ma_write: cat 88 for 89 events, fork-wait 390/388)
  find_vma: [['maple_tree:ma_read', 'entry']],
  find_vma_intersection: [['maple_tree:ma_read', 'entry']],
  vma_merge: [['maple_tree:ma_read', 'entry']],
  insert_vm_struct: [['maple_tree:ma_read', 'entry']],
  find_extend_vma_locked: [['maple_tree:ma_read', 'entry']],
  __get_user_pages: [['maple_tree:ma_read', 'entry']],
  __vma_adjust: [['maple_tree:ma_read', 'entry'], ['maple_tree:ma_write', 'exit'], ['maple_tree:ma_write', 'exit']],
  vma_mas_store: [['mmap:vma_store', 'entry'], ['maple_tree:ma_write', 'entry']],
  vma_mas_remove: [['maple_tree:ma_write', 'entry']],
  do_brk_flags: [['maple_tree:ma_write', 'entry']],
  // mmap_write_downgrade (inline: downgrade_write) traces acquire_returned (read) after the stores
  do_mas_align_munmap: [['maple_tree:ma_write', 'before:unmap_region'], ['maple_tree:ma_write', 'before:unmap_region'],
    ['mmap_lock:mmap_lock_acquire_returned', 'after:downgrade_write']],
  // kernel/fork.c dup_mmap: mmap_write_lock_killable(oldmm), uprobe_dup_mmap, mmap_write_lock_nested(mm)
  // (a down_write: so are the i_mmap locks of the file VMAs after it), dup_mm_exe_file; at the end
  // mmap_write_unlock(mm), flush_tlb_mm(oldmm), mmap_write_unlock(oldmm), dup_userfaultfd_complete
  // (fork-wait's two forks: 4 mmap_lock_start_locking in clone)
  dup_mmap: [['maple_tree:ma_write', 'after:vm_area_dup'],
    ['mmap_lock:mmap_lock_start_locking', 'before:down_write_killable'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_write_killable'],
    ['mmap_lock:mmap_lock_start_locking', 'after:uprobe_dup_mmap'], ['mmap_lock:mmap_lock_acquire_returned', 'before:get_mm_exe_file'],
    ['mmap_lock:mmap_lock_released', 'before:flush_tlb_mm_range'], ['mmap_lock:mmap_lock_released', 'before:dup_userfaultfd_complete']],
  // mm/page_alloc.c free_unref_page_list: one mm_page_free_batched per page, before its commit
  free_unref_page_list: [['kmem:mm_page_free_batched', 'before:free_unref_page_commit']],
  // include/linux/mm.h add_mm_counter -> mm_trace_rss_stat (out of line), inlined in mm/memory.c as
  // add_mm_rss_vec at the end of a zap (unmap_page_range) and in sync_mm_rss (cat: 2 + 53 + 9 for 60)
  mm_trace_rss_stat: [['kmem:rss_stat', 'entry']],
  unmap_page_range: [['kmem:rss_stat', 'exit']],
  sync_mm_rss: [['kmem:rss_stat', 'entry']],
  // include/linux/mmap_lock.h around the rwsem calls of the functions holding the mmap lock
  get_arg_page: mmapLock('down_read', 'up_read'),
  alloc_bprm: mmapLock('down_write_killable', 'up_write'),
  load_elf_binary: mmapLock('down_write_killable', 'up_write'),
  begin_new_exec: mmapLock('down_read_killable', 'up_read'),
  setup_arg_pages: mmapLock('down_write_killable', 'up_write'),
  map_vdso: mmapLock('down_write_killable', 'up_write'),
  vm_brk_flags: mmapLock('down_write_killable', 'up_write'),
  do_exit: mmapLock('down_read', 'up_read'),
  acct_collect: mmapLock('down_read', 'up_read'),
  // mm/memory.c __access_remote_vm (/proc/PID/cmdline and environ: ps aux 62 in read), mm/gup.c
  // get_user_pages_unlocked (a direct I/O's pages), fs/proc/task_mmu.c m_start .. m_stop (/proc/PID/maps)
  __access_remote_vm: [['maple_tree:ma_read', 'entry'], ...mmapLock('down_read_killable', 'up_read')],
  get_user_pages_unlocked: mmapLock('down_read', 'up_read'),
  m_start: [['mmap_lock:mmap_lock_start_locking', 'before:down_read_killable'], ['mmap_lock:mmap_lock_acquire_returned', 'after:down_read_killable']],
  m_stop: [['mmap_lock:mmap_lock_released', 'after:up_read']],
  // exit_mmap: the read lock around unmap_vmas, then the write lock to the end (trace_exit_mmap before the unlock)
  exit_mmap: [...mmapLock('down_read', 'up_read'), ['mmap_lock:mmap_lock_start_locking', 'before:down_write'],
    ['mmap_lock:mmap_lock_acquire_returned', 'after:down_write'], ['mmap:exit_mmap', 'exit'], ['mmap_lock:mmap_lock_released', 'exit']],
  // arch/x86/kernel/fpu/core.c, kernel/rseq.c: fpu__drop's fpregs_deactivate; fpregs_restore_userregs
  // (inlined in switch_fpu_return) activates after reloading the registers (only when they are stale:
  // arch/x86/fpu.ts); fpregs_mark_activate (signal delivery, sigreturn) first (fork-wait: 6 calls, 6 'b' events)
  fpu__drop: [['x86_fpu:x86_fpu_regs_deactivated', 'entry'], ['x86_fpu:x86_fpu_dropped', 'exit']],
  switch_fpu_return: [['x86_fpu:x86_fpu_regs_activated', 'after:restore_fpregs_from_fpstate']],
  fpregs_mark_activate: [['x86_fpu:x86_fpu_regs_activated', 'entry']],
  fpu_clone: [['x86_fpu:x86_fpu_copy_src', 'entry'], ['x86_fpu:x86_fpu_copy_dst', 'exit']],
  __rseq_handle_notify_resume: [['rseq:rseq_update', 'exit']],
  // kernel/exit.c do_wait
  do_wait: [['sched:sched_process_wait', 'entry']],
  // fs/buffer.c, fs/fs-writeback.c, mm/page-writeback.c: touch_buffer (inlined in __find_get_block) of a
  // buffer found in the per-CPU bh LRU traces, then calls mark_page_accessed (a miss goes to
  // __find_get_block_slow, which marks the page through the page cache lookup: no event); __mark_inode_dirty
  // around ->dirty_inode (only for I_DIRTY_INODE: ext4_dirty_inode is then its callee); folio_account_dirtied
  __find_get_block: [['block:block_touch_buffer', 'before:mark_page_accessed']],
  mark_buffer_dirty: [['block:block_dirty_buffer', 'entry']],
  __mark_inode_dirty: [['writeback:writeback_mark_inode_dirty', 'entry'], ['writeback:writeback_dirty_inode_start', 'before:ext4_dirty_inode'],
    ['writeback:writeback_dirty_inode', 'after:ext4_dirty_inode']],
  __folio_mark_dirty: [['writeback:writeback_dirty_folio', 'entry']],
  domain_dirty_limits: [['writeback:global_dirty_state', 'exit']],
  // mm/swap.c folio_activate_fn, block/blk-merge.c, fs/iomap/iter.c, net/core/dev.c __napi_poll, fib
  folio_activate_fn: [['pagemap:mm_lru_activate', 'entry']],
  bio_attempt_back_merge: [['block:block_bio_backmerge', 'entry']],
  // block/blk-core.c submit_bio_noacct_nocheck (after blkcg_bio_issue_init's ktime_get, before
  // __submit_bio), blk-mq.c blk_mq_submit_bio (the request allocated, then rq_qos_track) and
  // blk_mq_start_request (first), mq-deadline.c dd_insert_request inlined in dd_insert_requests
  // (before deadline_add_rq_rb's elv_rb_add, traced by block/core.ts rq_insert_each for each request the
  // machine plugged): a recorded read's or direct I/O's request
  submit_bio_noacct_nocheck: [['block:block_bio_queue', 'before:__submit_bio']],
  blk_mq_submit_bio: [['block:block_getrq', 'after:__blk_mq_alloc_requests']],
  blk_mq_start_request: [['block:block_rq_issue', 'entry']],
  // (not sites of this table: blk-mq.c blk_mq_dispatch_plug_list, inlined in
  // blk_mq_flush_plug_list.part.0, which blk_mq_flush_plug_list and, for a full plug, blk_add_rq_to_plug
  // call, traces block_unplug before blk_mq_sched_insert_requests, and blk_add_rq_to_plug traces
  // block_plug on entry to an empty plug and after flushing a full one: block/core.ts's unplug and
  // plug_add hooks fire them, the machine's plug deciding. swap: 242 events each)
  // mm/vmscan.c pageout: ->writepage (swap_writepage for an anon folio), then trace_mm_vmscan_write_folio
  pageout: [['vmscan:mm_vmscan_write_folio', 'after:swap_writepage']],
  // mm/vmscan.c (mm/vmscan.ts): try_to_free_mem_cgroup_pages around do_try_to_free_pages; isolate_lru_folios
  // last; shrink_inactive_list (inlined in shrink_lruvec) last, after its free_unref_page_list (shrink_lruvec's
  // only direct call of it); shrink_active_list last.  swap: 39 reclaims, 364 isolate_lru_folios, 324
  // shrink_folio_list, 40 shrink_active_list calls in the graph run; 43, 374, 355, 19 events in the events run
  try_to_free_mem_cgroup_pages: [['vmscan:mm_vmscan_memcg_reclaim_begin', 'before:do_try_to_free_pages'],
    ['vmscan:mm_vmscan_memcg_reclaim_end', 'after:do_try_to_free_pages']],
  isolate_lru_folios: [['vmscan:mm_vmscan_lru_isolate', 'exit']],
  shrink_lruvec: [['vmscan:mm_vmscan_lru_shrink_inactive', 'after:free_unref_page_list']],
  shrink_active_list: [['vmscan:mm_vmscan_lru_shrink_active', 'exit']],
  // block/blk-mq.c blk_update_request (first): a recorded BLOCK softirq's completion (block/core.ts swapCompletion)
  blk_update_request: [['block:block_rq_complete', 'entry']],
  // net/core/dev.c enqueue_to_backlog: napi_schedule_rps (inlined) raises NET_RX for a backlog whose NAPI
  // was not scheduled, before the queue's unlock (net/core.ts backlog_tx decides; tbench: 235 NET_RX raises)
  enqueue_to_backlog: [['irq:softirq_raise', 'before:_raw_spin_unlock_irqrestore']],
  // fs/iomap/iter.c iomap_iter: iomap_iter_done (inlined) traces the mapping ->iomap_begin returned
  // (dd oflag=direct: 128 iomap_iter calls, 64 of them mapping, 64 iomap_iter_dstmap events)
  iomap_iter: [['iomap:iomap_iter', 'entry'], ['iomap:iomap_iter_dstmap', 'after:ext4_iomap_begin']],
  __napi_poll: [['napi:napi_poll', 'exit']],
  fib_table_lookup: [['fib:fib_table_lookup', 'exit']],
  // mm/page_alloc.c: __rmqueue_smallest (inlined in rmqueue_bulk's __rmqueue) traces each page it takes
  // off the buddy lists under the zone lock; rmqueue_bulk then checks it (check_pcp_refill's
  // check_new_pages): one event per check_new_pages (dd-write: 16 refills of 63 pages, 819 events in its events run)
  rmqueue_bulk: [['kmem:mm_page_alloc_zone_locked', 'before:check_new_pages']],
  // mm/filemap.c __filemap_add_folio: the folio is in the page cache (pagecache-miss: 1,024 calls, 1,024 events)
  __filemap_add_folio: [['filemap:mm_filemap_add_to_page_cache', 'exit']],
  // mm/filemap.c: a folio leaves the page cache: __filemap_remove_folio first (reclaim, filemap_remove_folio);
  // delete_from_page_cache_batch (truncate_inode_pages_range's batches) once per folio, right before
  // its filemap_unaccount_folio, all of them before the batch is freed (dbench: 79 batches, 1,120 folios,
  // 1,121 events with __filemap_remove_folio's 1)
  __filemap_remove_folio: [['filemap:mm_filemap_delete_from_page_cache', 'entry']],
  delete_from_page_cache_batch: [['filemap:mm_filemap_delete_from_page_cache', 'before:filemap_unaccount_folio']],
  // fs/ext4 (module ext4): extents_status.c traces a lookup on entry and its result on return, an
  // insert or cache of an extent and a delayed block before taking i_es_lock; inode.c's
  // ext4_da_write_begin after ext4_nonda_switch, ext4_da_write_end first, ext4_da_reserve_space
  // under i_block_reservation_lock, __ext4_mark_inode_dirty and ext4_jbd2.c's __ext4_journal_start_sb
  // first; extents.c ext4_ext_map_blocks on entry and return; ialloc.c __ext4_new_inode on entry
  // (request) and once the inode is set up (allocate). Counts checked against the events runs (dd-write:
  // ext4_es_lookup_extent 2,061 calls / 2,053 events; ext4_da_write_begin 1,024 / 1,024; __ext4_journal_start_sb
  // 1,093 / 1,049; cp -r: __ext4_new_inode 331 / 331)
  ext4_es_lookup_extent: [['ext4:ext4_es_lookup_extent_enter', 'entry'], ['ext4:ext4_es_lookup_extent_exit', 'exit']],
  ext4_es_find_extent_range: [['ext4:ext4_es_find_extent_range_enter', 'entry'], ['ext4:ext4_es_find_extent_range_exit', 'exit']],
  ext4_es_insert_extent: [['ext4:ext4_es_insert_extent', 'entry']],
  ext4_es_cache_extent: [['ext4:ext4_es_cache_extent', 'entry']],
  ext4_es_insert_delayed_block: [['ext4:ext4_es_insert_delayed_block', 'entry']],
  ext4_da_write_begin: [['ext4:ext4_da_write_begin', 'after:ext4_nonda_switch']],
  ext4_da_write_end: [['ext4:ext4_da_write_end', 'entry']],
  ext4_da_reserve_space: [['ext4:ext4_da_reserve_space', 'before:ext4_claim_free_clusters']],
  __ext4_mark_inode_dirty: [['ext4:ext4_mark_inode_dirty', 'entry']],
  __ext4_journal_start_sb: [['ext4:ext4_journal_start', 'entry']],
  // (and the extent ext4_find_extent found, when the file has one: trace_ext4_ext_show_extent; dd
  // oflag=direct: 65 calls, 63 events, none for the empty file's first block; pagecache-miss 3 / 3)
  ext4_ext_map_blocks: [['ext4:ext4_ext_map_blocks_enter', 'entry'], ['ext4:ext4_ext_show_extent', 'after:ext4_find_extent'],
    ['ext4:ext4_ext_map_blocks_exit', 'exit']],
  // fs/ext4/mballoc.c ext4_mb_new_blocks: the request first, the result last; its
  // ext4_mb_release_context (inlined) ends with ext4_mb_collect_stats, which traces
  // ext4_mballoc_alloc for blocks the regular allocator found (ac_op EXT4_MB_HISTORY_ALLOC, set right
  // before ext4_mb_normalize_request) and ext4_mballoc_prealloc for blocks a preallocation gave, before
  // the context is freed; ext4_mb_new_inode_pa traces the preallocation it made last (dd oflag=direct:
  // 64 calls, 64 request/allocate events, 6 regular allocations / 6 mballoc_alloc, 58 mballoc_prealloc,
  // 5 ext4_mb_new_inode_pa calls / 5 events; cp -r 85 / 85 regular)
  ext4_mb_new_blocks: [['ext4:ext4_request_blocks', 'entry'], ['ext4:ext4_mballoc_alloc', 'before:kmem_cache_free'],
    ['ext4:ext4_mballoc_prealloc', 'before:kmem_cache_free'], ['ext4:ext4_allocate_blocks', 'exit']],
  ext4_mb_new_inode_pa: [['ext4:ext4_mb_new_inode_pa', 'before:ext4_mb_use_inode_pa']],
  __ext4_new_inode: [['ext4:ext4_request_inode', 'entry'], ['ext4:ext4_allocate_inode', 'exit']],
  // fs/ext4/inode.c: the address space operations a truncate runs on each folio with buffers
  // (truncate_cleanup_folio -> folio_invalidate -> ext4_invalidate_folio, then filemap_release_folio ->
  // ext4_release_folio) trace first (dbench: 1,120 calls / 1,120 events each)
  ext4_invalidate_folio: [['ext4:ext4_invalidate_folio', 'entry']],
  ext4_release_folio: [['ext4:ext4_releasepage', 'entry']],
  // fs/ext4/inode.c ext4_alloc_da_blocks (a release's auto_da_alloc flush: fs/ext4.ts) traces first (cp: 1 / 1)
  ext4_alloc_da_blocks: [['ext4:ext4_alloc_da_blocks', 'entry']],
  // fs/jbd2/transaction.c: a handle started (after start_this_handle) and its statistics when the
  // outermost stop drops it (before stop_this_handle; a nested stop returns before: dd-write's 2)
  jbd2__journal_start: [['jbd2:jbd2_handle_start', 'after:start_this_handle']],
  jbd2_journal_stop: [['jbd2:jbd2_handle_stats', 'before:stop_this_handle']],
  // drivers/scsi/scsi_lib.c scsi_dispatch_cmd (inlined in scsi_queue_rq) right before ->queuecommand;
  // drivers/ata/libata-core.c ata_qc_issue around ->qc_prep and before ->qc_issue
  scsi_queue_rq: [['scsi:scsi_dispatch_cmd_start', 'before:ata_scsi_queuecmd']],
  // scsi_done's scsi_done_internal (inlined): the command is done, before the request is completed
  scsi_done: [['scsi:scsi_dispatch_cmd_done', 'entry']],
  ata_qc_issue: [['libata:ata_qc_prep', 'before:ahci_qc_prep'], ['libata:ata_qc_issue', 'before:ahci_qc_issue']],
  // drivers/ata/libata-core.c ata_qc_complete: the command done (its result taskfile read), before __ata_qc_complete
  ata_qc_complete: [['libata:ata_qc_complete_done', 'before:__ata_qc_complete']],
  // net/core/dev.c, net/core/skbuff.c, net/core/datagram.c, net/ipv4/tcp*.c (net/tcp.ts's recorded send and
  // receive trees; the transmit side's events fire from net/core.ts's hooks, only for a packet the
  // machine sends): __netif_receive_skb_core on entry; napi_consume_skb traces consume_skb;
  // consume_skb and kfree_skb_reason (net/core/skbuff.c) trace consume_skb / kfree_skb once skb_unref
  // says the last reference went, before the inlined __kfree_skb's skb_release_head_state (a call that
  // freed nothing, kfree_skb(NULL) included, has no callees and no event: ping's inet6_destroy_sock);
  // skb_copy_datagram_iter, tcp_rcv_space_adjust and tcp_rcv_established first (tbench: 200
  // napi_consume_skb calls / 201 consume_skb events, 272 skb_copy_datagram_iter / 271
  // skb_copy_datagram_iovec, 343 / 342 tcp_rcv_space_adjust, 263 tcp_rcv_established / 264 tcp_probe)
  '__netif_receive_skb_core.constprop.0': [['net:netif_receive_skb', 'entry']],
  napi_consume_skb: [['skb:consume_skb', 'entry']],
  consume_skb: [['skb:consume_skb', 'before:skb_release_head_state']],
  kfree_skb_reason: [['skb:kfree_skb', 'before:skb_release_head_state']],
  skb_copy_datagram_iter: [['skb:skb_copy_datagram_iovec', 'entry']],
  tcp_rcv_space_adjust: [['tcp:tcp_rcv_space_adjust', 'entry']],
  tcp_rcv_established: [['tcp:tcp_probe', 'entry']],
  // kernel/workqueue.c __queue_work: queued and activated under the pool lock, then insert_work
  __queue_work: [['workqueue:workqueue_queue_work', 'after:_raw_spin_lock'], ['workqueue:workqueue_activate_work', 'after:_raw_spin_lock']],
};

/** The mmap lock taken with rwsem call `down` and dropped with `up` (mmap_lock.h's trace around them). */
function mmapLock(down: string, up: string): [string, string][] {
  return [['mmap_lock:mmap_lock_start_locking', `before:${down}`], ['mmap_lock:mmap_lock_acquire_returned', `after:${down}`],
    ['mmap_lock:mmap_lock_released', `after:${up}`]];
}

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
