/** Core kernel paths: syscall entry/exit, scheduling, wakeups, idle, timer interrupt, softirqs, fork/exit. */

export const corePaths: Record<string, string> = {
  // arch/x86/entry/common.c do_syscall_64 (noinstr), x64_sys_call, kernel/entry/common.c
  // syscall_exit_to_user_mode: syscall_exit_to_user_mode_prepare (syscall_exit_work -> sys_exit),
  // exit_to_user_mode_prepare (exit_to_user_mode_loop: schedule, signals)
  syscall: `
entry_SYSCALL_64
  do_syscall_64
    syscall_enter_from_user_mode
      @raw_syscalls:sys_enter
    x64_sys_call
      %sys
    syscall_exit_to_user_mode
      syscall_exit_to_user_mode_prepare
        @raw_syscalls:sys_exit
      *exit_to_user
    %sysret
`,
  // kernel/entry/common.c exit_to_user_mode_prepare: exit_to_user_mode_loop (schedule, signals,
  // resume_user_mode_work: task_work, memcg/blkcg throttling, rseq), then the FPU registers (rseq_update
  // once the rseq area is written; TIF_NEED_FPU_LOAD: switch_fpu_return's fpregs_restore_userregs, which
  // reloads the registers and traces x86_fpu_regs_activated only when this CPU's registers do not hold
  // the task's state already: the recordings' tail of switch_fpu_return, empty or restore_fpregs_from_fpstate)
  exit_to_user: `
exit_to_user_mode_prepare
  ?need_resched
    schedule
      *__schedule
  ?sigpending
    *deliver_signal
  ?notify_resume
    ?task_work
      task_work_run
        &tail:task_work_run
    mem_cgroup_handle_over_high
    blkcg_maybe_throttle_current
    ?rseq
      __rseq_handle_notify_resume
        &tail:__rseq_handle_notify_resume
        @rseq:rseq_update
  fpregs_assert_state_consistent
  ?fpu_load
    switch_fpu_return
      ?fpregs_stale
        restore_fpregs_from_fpstate
        @x86_fpu:x86_fpu_regs_activated
      %fpregs_restored
  %user_resume
`,
  // kernel/signal.c get_signal and arch/x86/kernel/signal.c handle_signal, as the recordings run them
  // (the sh of cow, fork-wait, pipe, signal, swap ... taking SIGCHLD with dash's handler; signal's
  // child killed): a fatal signal has made the group exit (complete_signal's SIGKILL to each thread),
  // so get_signal only clears it and exits; any other is dequeued with its sigqueue freed (collect_signal
  // -> __sigqueue_free: the sender's __sigqueue_alloc), then traced; a handler's frame is set up on the
  // user stack (rseq_signal_deliver, whose update the recordings show without a fault in 18 of 20 of
  // cow's; get_sigframe with the FPU state, fpu__clear_user_states, signal_setup_done's blocked mask)
  deliver_signal: `
arch_do_signal_or_restart
  get_signal
    uprobe_deny_signal
    __cond_resched
    _raw_spin_lock_irq
    %signal_pick
    ?sig_group_exit
      recalc_sigpending
    ?!sig_group_exit
      dequeue_signal
        collect_signal
          ?sig_queued
            dec_rlimit_put_ucounts
              do_dec_rlimit_put_ucounts
                put_ucounts
            kmem_cache_free
              @kmem:kmem_cache_free
              __slab_free
        recalc_sigpending
    _raw_spin_unlock_irq
    %signal
  ?sig_handled
    ?rseq
      __rseq_handle_notify_resume
        @rseq:rseq_update
    get_sigframe.constprop.0.isra.0
      fpu__alloc_mathframe
      copy_fpstate_to_sigframe
        __local_bh_enable_ip
    fpu__clear_user_states
      fpregs_mark_activate
        @x86_fpu:x86_fpu_regs_activated
      __local_bh_enable_ip
    signal_setup_done
      _raw_spin_lock_irq
      __set_task_blocked
        recalc_sigpending
      _raw_spin_unlock_irq
`,
  preempt_user: `
asm_sysvec_reschedule_ipi
  irqentry_exit_to_user_mode
    *exit_to_user
`,
  schedule: `
schedule
  *__schedule
`,
  // __schedule (notrace: its callees show under its caller) from the recordings: kernel/sched/core.ts %sched_body
  __schedule: `
%sched_body
%switch_late
`,
  // arch/x86/kernel/process_64.c __switch_to (notrace), in the previous task's context: switch_fpu_prepare
  // saves a user task's live FPU registers (x86_fpu_regs_deactivated; not when TIF_NEED_FPU_LOAD says they
  // are not its own), x86_fsgsbase_load writes MSR_FS_BASE for a next task with an FS base (wrmsrl:
  // write_msr, no FSGSBASE instructions on the guest's CPU); then the stack switch (arch/x86/fpu.ts,
  // arch/x86/process_64.ts)
  switch_to: `
?fpu_save
  @x86_fpu:x86_fpu_regs_deactivated
?fsbase_load
  @msr:write_msr
%switch_to_next
`,
  // a switch the recorded __schedule variant did not make (%switch_late): __schedule's trace_sched_switch first
  switch_late_to: `
@sched:sched_switch
*switch_to
`,
  // kernel/smp.c: a call-function-single IPI whose queue holds a wakeup (sched_ttwu_pending), when no
  // recording has one (kernel/sched/core.ts %ttwu_pending_body)
  ttwu_pending_template: `
__sysvec_call_function_single
  @irq_vectors:call_function_single_entry
  generic_smp_call_function_single_interrupt
    __flush_smp_call_function_queue
      sched_ttwu_pending
        ttwu_do_activate
          @sched:sched_wakeup
  @irq_vectors:call_function_single_exit
`,
  call_function_single_irq: `
%ttwu_pending_body
`,
  // the idle loop (do_idle with the NO_HZ tick): kernel/timer_paths.ts idle_loop
  // a wakeup (kernel/sched/core.c try_to_wake_up): its body from the recordings (%ttwu_body)
  ttwu: `
try_to_wake_up
  %ttwu_body
`,
  timer_irq: `
asm_sysvec_apic_timer_interrupt
  sysvec_apic_timer_interrupt
    irq_enter_rcu
    __sysvec_apic_timer_interrupt
      @irq_vectors:local_timer_entry
      hrtimer_interrupt
        _raw_spin_lock_irqsave
        ktime_get_update_offsets_now
        __hrtimer_run_queues
          @timer:hrtimer_expire_entry
          tick_sched_timer
            ktime_get
            tick_sched_do_timer
              tick_do_update_jiffies64
                calc_global_load
                update_wall_time
                  timekeeping_advance
            update_process_times
              account_process_tick
                account_user_time
              hrtimer_run_queues
              raise_softirq
                @irq:softirq_raise
              rcu_sched_clock_irq
              scheduler_tick
                _raw_spin_lock
                update_rq_clock
                task_tick_fair
                  update_curr
                    @sched:sched_stat_runtime
                  %tick
                  ?need_resched
                    resched_curr
                calc_global_load_tick
                perf_event_task_tick
                trigger_load_balance
              run_posix_cpu_timers
            profile_tick
            hrtimer_forward
          @timer:hrtimer_expire_exit
        hrtimer_update_next_event
        tick_program_event
          clockevents_program_event
            lapic_next_deadline
      @irq_vectors:local_timer_exit
    irq_exit_rcu
`,
  softirq: `
__do_softirq
  ?softirq_timer
    @irq:softirq_entry
    run_timer_softirq
      _raw_spin_lock_irq
      %timers
    @irq:softirq_exit
  ?softirq_block
    @irq:softirq_entry
    blk_done_softirq
      blk_complete_reqs
        %blk_done
    @irq:softirq_exit
  ?softirq_net_rx
    @irq:softirq_entry
    net_rx_action
      %skb_defer_flush
      __napi_poll
        process_backlog
          %net_rx
        @napi:napi_poll
    @irq:softirq_exit
  ?softirq_sched
    @irq:softirq_entry
    run_rebalance_domains
      update_blocked_averages
      rebalance_domains
        load_balance
          find_busiest_group
            update_sd_lb_stats.constprop.0
          %balance
    @irq:softirq_exit
  ?softirq_rcu
    @irq:softirq_entry
    rcu_core_si
      rcu_core
        note_gp_changes
    @irq:softirq_exit
`,
  hrtimer_wake_irq: `
asm_sysvec_apic_timer_interrupt
  sysvec_apic_timer_interrupt
    irq_enter_rcu
    __sysvec_apic_timer_interrupt
      @irq_vectors:local_timer_entry
      hrtimer_interrupt
        _raw_spin_lock_irqsave
        ktime_get_update_offsets_now
        __hrtimer_run_queues
          @timer:hrtimer_expire_entry
          hrtimer_wakeup
            wake_up_process
              %wake_sleeper
          @timer:hrtimer_expire_exit
        hrtimer_update_next_event
        tick_program_event
          clockevents_program_event
            lapic_next_deadline
      @irq_vectors:local_timer_exit
    irq_exit_rcu
`,
  resched_ipi: `
asm_sysvec_reschedule_ipi
  sysvec_reschedule_ipi
    @irq_vectors:reschedule_entry
    sched_ttwu_pending
    @irq_vectors:reschedule_exit
`,
  kthread_start: `
ret_from_fork
  schedule_tail
    finish_task_switch.isra.0
      _raw_spin_unlock
  kthread
    %kthread_park
`,
  // a new task's first return to user mode: schedule_tail (the end of the switch to it) from the recordings
  ret_from_fork_user: `
ret_from_fork
  &fork_return
  syscall_exit_to_user_mode
    syscall_exit_to_user_mode_prepare
      @raw_syscalls:sys_exit
    *exit_to_user
`,
  kthread_sleep: `
schedule
  *__schedule
`,
};
