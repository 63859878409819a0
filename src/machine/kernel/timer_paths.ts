/**
 * The paths of the idle system's kernel mechanisms (paths/dsl.ts format), installed with the timer
 * semantics (timer.ts): the idle loop with the NO_HZ tick, the timer interrupt and softirqs around
 * their recorded bodies, schedule_timeout, and the kernel threads' loops (rcu.ts, workqueue.ts,
 * userland/workload.ts).  Function order and names are those of the `idle` recording's trees of
 * these threads (data/recordings/idle.json.gz: rcu_preempt, kcompactd0, migration/N, kworker/N:M).
 */
export const TIMER_PATHS: Record<string, string> = {
  // kernel/sched/idle.c do_idle, as the idle recording's swapper/N trees show it (no cpuidle driver:
  // default_idle_call, amd_e400_idle's HLT): one idle_iteration per idle period until a task is to
  // run, then the tick restarts (tick_nohz_idle_exit) and schedule_idle switches to it; first, what the
  // newidle_balance before the switch to idle left (%newidle_next_balance: rq->next_balance)
  idle_loop: `
%newidle_next_balance
do_idle
  nohz_run_idle_balance
    ?nohz_newilb
      _nohz_idle_balance.isra.0
        %nohz_stats
  tick_nohz_idle_enter
    ktime_get
  %idle_iterate
  %nohz_exit
  tick_nohz_idle_exit
    ?tick_restart
      ktime_get
      tick_nohz_restart_sched_tick
        tick_do_update_jiffies64
        timer_clear_idle
        calc_load_nohz_stop
        hrtimer_cancel
          hrtimer_try_to_cancel
            hrtimer_active
            ?tick_restart_armed
              _raw_spin_lock_irqsave
              __remove_hrtimer
                *hrtimer_next_event_program
              @timer:hrtimer_cancel
              _raw_spin_unlock_irqrestore
        hrtimer_forward
        hrtimer_start_range_ns
          _raw_spin_lock_irqsave
          enqueue_hrtimer
            @timer:hrtimer_start
          hrtimer_reprogram
            tick_program_event
              clockevents_program_event
                ktime_get
                lapic_next_event
          _raw_spin_unlock_irqrestore
      tick_nohz_account_idle_time
        account_idle_ticks
  flush_smp_call_function_queue
  schedule_idle
    *__schedule
`,
  // kernel/sched/fair.c _nohz_idle_balance(NOHZ_STATS_KICK), one CPU of nohz.idle_cpus_mask (as the
  // idle recording's do_idle trees show it): idle_cpu, then update_nohz_stats (update_blocked_averages
  // while the CPU has blocked load) and, when the CPU's next_balance is due, its rq clock update
  nohz_stats_busy: `
idle_cpu
`,
  nohz_stats_cpu: `
idle_cpu
idle_cpu
?nohz_blocked
  update_blocked_averages
    raw_spin_rq_lock_nested
      _raw_spin_lock
    update_rq_clock
    update_rt_rq_load_avg
    update_dl_rq_load_avg
    __update_load_avg_cfs_rq
    raw_spin_rq_unlock
      _raw_spin_unlock
?nohz_due
  raw_spin_rq_lock_nested
    _raw_spin_lock
  update_rq_clock
  raw_spin_rq_unlock
    _raw_spin_unlock
`,
  // kernel/time/hrtimer.c: the first expiring hrtimer changed, the clock event device is programmed for it
  hrtimer_next_event_program: `
hrtimer_update_next_event
  __hrtimer_next_event_base
  __hrtimer_next_event_base
tick_program_event
  clockevents_program_event
    ktime_get
    lapic_next_event
`,
  // one pass of do_idle's loop: cpuidle_idle_call without a cpuidle driver
  // (idle_call_stop_or_retain_tick(got_tick): the first idle period after a task keeps the tick, one
  // after an idle tick stops it), the HLT, then tick_nohz_idle_got_tick for the next pass
  idle_iteration: `
arch_cpu_idle_enter
  tsc_verify_tsc_adjust
  local_touch_nmi
rcu_nocb_flush_deferred_wakeup
tick_check_broadcast_expired
cpuidle_get_cpu_driver
cpuidle_not_available
?!idle_got_tick
  tick_nohz_tick_stopped
?!idle_stop_tick
  %nohz_retain
  tick_nohz_idle_retain_tick
    timer_clear_idle
?idle_stop_tick
  %nohz_stop
  tick_nohz_idle_stop_tick
    can_stop_idle_tick
    tick_nohz_next_event
      rcu_needs_cpu
      ?!tick_rcu
        get_next_timer_interrupt
          _raw_spin_lock
          _raw_spin_unlock
          hrtimer_get_next_event
            _raw_spin_lock_irqsave
            _raw_spin_unlock_irqrestore
      ?tick_near
        timer_clear_idle
      ?tick_go
        timekeeping_max_deferment
    ?tick_go
      tick_nohz_stop_tick
        ?tick_stop
          calc_load_nohz_start
          quiet_vmstat
          @timer:tick_stop
        ?tick_start
          hrtimer_start_range_ns
            _raw_spin_lock_irqsave
            ?tick_was_armed
              __remove_hrtimer
            enqueue_hrtimer
              @timer:hrtimer_start
            *hrtimer_next_event_program
            _raw_spin_unlock_irqrestore
        ?tick_cancel
          hrtimer_cancel
            hrtimer_try_to_cancel
              hrtimer_active
              _raw_spin_lock_irqsave
              __remove_hrtimer
              @timer:hrtimer_cancel
              _raw_spin_unlock_irqrestore
      ?tick_stop
        %nohz_enter_idle
        nohz_balance_enter_idle
default_idle_call
  @power:cpu_idle
  arch_cpu_idle
    amd_e400_idle
      %cpuidle_wait
  %cpuidle_exit
  @power:cpu_idle
tick_nohz_idle_got_tick
  %idle_got_tick
arch_cpu_idle_exit
`,
  // the local timer interrupt: a tick, or another hrtimer (their recorded trees, timer.ts)
  timer_interrupt: `
%tick_body
%tick_raised
`,
  hrtimer_irq: `
%hrtimer_body
%flush_wakes
`,
  softirq_raise_event: `
@irq:softirq_raise
`,
  // kernel/softirq.c: irq_exit_rcu's invoke_softirq runs handle_softirqs (6.1.192's __do_softirq body,
  // the function the recordings show under irq_exit_rcu): one action per pending vector (timer.ts %softirq_next)
  do_softirq: `
handle_softirqs
  %softirq_next
`,
  // an interrupt of user mode: the return to user mode (sched/fair.ts tick)
  irq_exit_user: `
*exit_to_user
`,
  softirq_timer: `
@irq:softirq_entry
%run_timers
%flush_wakes
@irq:softirq_exit
`,
  softirq_sched: `
@irq:softirq_entry
%rebalance_body
@irq:softirq_exit
`,
  softirq_rcu: `
@irq:softirq_entry
%rcu_core_body
%rcu_more
%flush_wakes
@irq:softirq_exit
`,
  // when no recording has a tree for the case (a model without the idle recording)
  tick_template: `
*timer_irq
`,
  softirq_timer_template: `
run_timer_softirq
  _raw_spin_lock_irq
  _raw_spin_unlock_irq
`,
  softirq_sched_template: `
run_rebalance_domains
  update_blocked_averages
  rebalance_domains
`,
  rcu_core_template: `
rcu_core_si
  rcu_core
    note_gp_changes
`,
  hrtimer_template: `
__sysvec_apic_timer_interrupt
  @irq_vectors:local_timer_entry
  hrtimer_interrupt
    __hrtimer_run_queues
      @timer:hrtimer_expire_entry
      @timer:hrtimer_expire_exit
  @irq_vectors:local_timer_exit
`,
  // kernel/time/timer.c __mod_timer of a timer not pending (e.ktimer, for e.timeout ns): its base locked,
  // the CPU it goes to, its wheel slot, enqueue_timer (timer_start)
  timer_enqueue: `
lock_timer_base
  _raw_spin_lock_irqsave
detach_if_pending
get_nohz_timer_target
calc_wheel_index
enqueue_timer
  %timer_arm
  @timer:timer_start
_raw_spin_unlock_irqrestore
`,
  // kernel/time/timer.c schedule_timeout: the on-stack timer (timer_init), armed (enqueue_timer:
  // timer_start), schedule, then __timer_delete_sync (timer_cancel when it had not expired)
  schedule_timeout_path: `
schedule_timeout
  @timer:timer_init
  *timer_enqueue
  schedule
    *__schedule
  __timer_delete_sync
    lock_timer_base
      _raw_spin_lock_irqsave
    detach_if_pending
      %timer_del
      ?timer_was_pending
        @timer:timer_cancel
    _raw_spin_unlock_irqrestore
`,
  // kernel/rcu/tree.c rcu_gp_kthread: wait for a grace-period request, then rcu_gp_init,
  // rcu_gp_fqs_loop (schedule_timeout of jiffies_till_first_fqs, force_qs_rnp), rcu_gp_cleanup
  rcu_gp_wait: `
prepare_to_swait_event
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
schedule
  *__schedule
finish_swait
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
`,
  rcu_gp_init_path: `
rcu_gp_init
  _raw_spin_lock_irq
  _raw_spin_unlock_irq
  _raw_spin_lock
  _raw_spin_unlock
  rcu_gp_slow
  rcu_gp_slow
  _raw_spin_lock_irqsave
  __note_gp_changes
    rcu_accelerate_cbs
      rcu_segcblist_pend_cbs
  _raw_spin_unlock_irq
  __cond_resched
`,
  rcu_gp_fqs_sleep: `
rcu_gp_fqs_loop
  prepare_to_swait_event
    _raw_spin_lock_irqsave
    _raw_spin_unlock_irqrestore
  %rcu_fqs_sleep
`,
  rcu_gp_fqs_scan: `
prepare_to_swait_event
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
finish_swait
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
force_qs_rnp
  __cond_resched
  _raw_spin_lock_irqsave
  dyntick_save_progress_counter
  rcu_disable_urgency_upon_qs
  dyntick_save_progress_counter
  rcu_disable_urgency_upon_qs
  dyntick_save_progress_counter
  rcu_report_qs_rnp
    _raw_spin_unlock_irqrestore
  %rcu_fqs_scan
__cond_resched
`,
  rcu_gp_cleanup_path: `
rcu_gp_cleanup
  _raw_spin_lock_irq
  _raw_spin_unlock_irq
  _raw_spin_lock_irq
  __note_gp_changes
    rcu_segcblist_pend_cbs
  _raw_spin_unlock_irq
  swake_up_all
    _raw_spin_lock_irq
    _raw_spin_unlock_irq
  __cond_resched
  rcu_gp_slow
  _raw_spin_lock_irq
  rcu_accelerate_cbs
    rcu_segcblist_pend_cbs
  _raw_spin_unlock_irq
  %rcu_gp_end
`,
  // mm/compaction.c kcompactd: kcompactd_sleep event, wait_event_freezable_timeout(HPAGE_FRAG_CHECK_INTERVAL_MSEC),
  // then the proactive-compaction check (fragmentation score per order)
  kcompactd_wait: `
@compaction:mm_compaction_kcompactd_sleep
prepare_to_wait_event
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
%sleep_timeout
finish_wait
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
kthread_should_stop
mutex_lock
  __cond_resched
extfrag_for_order
extfrag_for_order
extfrag_for_order
extfrag_for_order
extfrag_for_order
mutex_unlock
kthread_should_stop
kthread_should_stop
kthread_should_stop
`,
  // kernel/stop_machine.c cpu_stopper_thread running the watchdog's softlockup_fn (kernel/watchdog.c)
  cpu_stopper_run: `
kthread_should_stop
kthread_should_park
cpu_stop_should_run
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
cpu_stopper_thread
  _raw_spin_lock_irq
  _raw_spin_unlock_irq
  softlockup_fn
  _raw_spin_lock_irq
  _raw_spin_unlock_irq
`,
  smpboot_sleep: `
kthread_should_stop
kthread_should_park
cpu_stop_should_run
  _raw_spin_lock_irqsave
  _raw_spin_unlock_irqrestore
schedule
  *__schedule
`,
  // kernel/workqueue.c worker_thread: process_one_work for each pending work, then idle until woken
  process_work: `
process_one_work
  _raw_spin_unlock_irq
  @workqueue:workqueue_execute_start
  %work_fn
  @workqueue:workqueue_execute_end
  __cond_resched
  _raw_spin_lock_irq
  pwq_dec_nr_in_flight
`,
  worker_sleep: `
worker_enter_idle
_raw_spin_unlock_irq
schedule
  wq_worker_sleeping
  *__schedule
  wq_worker_running
_raw_spin_lock_irq
`,
  // a delayed work arming its timer again (queue_delayed_work_on: __queue_delayed_work, add_timer_on)
  requeue_delayed_work: `
queue_delayed_work_on
  __queue_delayed_work
    add_timer_on
      _raw_spin_lock_irqsave
      %timer_arm
      @timer:timer_start
      _raw_spin_unlock_irqrestore
`,
};
