# events
cap ev_sched_switch 'echo 1 > events/sched/sched_switch/enable; sleep 0.1; echo 0 > tracing_on; cat trace | head -20; cat set_event'
reset_all
cap ev_filter 'echo "prev_comm ~ \"sleep\" || next_comm == \"sleep\"" > events/sched/sched_switch/filter; echo 1 > events/sched/sched_switch/enable; sleep 0.1; echo 0 > tracing_on; cat trace | head -20; echo 0 > events/sched/sched_switch/filter'
reset_all
cap ev_syscalls 'echo 1 > events/syscalls/sys_enter_openat/enable; echo 1 > events/syscalls/sys_exit_openat/enable; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -20; echo 1 > options/verbose; cat trace | sed -n 12,14p; echo 0 > options/verbose'
reset_all
cap ev_kmalloc 'echo kmalloc > set_event; cat /etc/hostname >/dev/null; echo 0 > tracing_on; cat trace | head -16; echo 1 > tracing_on; echo 0 > events/enable; echo > trace'
cap ev_raw 'echo 1 > events/raw_syscalls/sys_enter/enable; echo 1 > events/raw_syscalls/sys_exit/enable; cat /etc/hostname >/dev/null; echo 0 > tracing_on; cat trace | sed -n 12,16p; cat per_cpu/cpu0/stats | sed "s/ts: .*/ts: X/"'
reset_all
cap ev_wakeup_irq 'echo 1 > events/sched/sched_wakeup/enable; echo 1 > events/irq/enable; echo 1 > events/timer/hrtimer_expire_entry/enable; echo 1 > events/block/block_rq_issue/enable; echo 1 > events/block/block_rq_complete/enable; sync; dd if=/dev/zero of=/root/zz bs=4k count=10 conv=fsync 2>/dev/null; sleep 0.1; echo 0 > tracing_on; grep -m4 sched_wakeup trace; grep -m4 irq_handler trace; grep -m4 softirq trace; grep -m3 hrtimer trace; grep -m3 block_rq trace'
reset_all
cap ev_trigger_traceoff 'echo "traceoff" > events/sched/sched_process_exec/trigger; cat events/sched/sched_process_exec/enable; echo 1 > events/sched/sched_process_exec/enable; cat events/sched/sched_process_exec/enable; echo vfs_read > set_ftrace_filter; echo function > current_tracer; /bin/true; cat tracing_on; cat events/sched/sched_process_exec/trigger; echo "!traceoff" > events/sched/sched_process_exec/trigger; echo 1 > tracing_on'
reset_all
cap ev_trigger_stack 'echo "stacktrace" > events/sched/sched_process_exec/trigger; echo 1 > events/sched/sched_process_exec/enable; /bin/true; echo 0 > tracing_on; cat trace | tail -25; echo "!stacktrace" > events/sched/sched_process_exec/trigger'
reset_all
