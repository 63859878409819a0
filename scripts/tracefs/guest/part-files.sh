# the file set, pristine
cap uname 'uname -a; nproc; cat /proc/cmdline'
cap ls_top 'ls -1 .'
cap ls_l_top 'ls -l . | sed "s/ [A-Z][a-z][a-z] .[0-9] [0-9:]* / DATE /"'
cap ls_options 'ls -1 options'
cap options_values 'for f in options/*; do echo "$f $(cat $f)"; done'
cap ls_per_cpu 'ls -1 per_cpu; ls -1 per_cpu/cpu0'
cap ls_trace_stat 'ls -1 trace_stat'
cap ls_events_top 'ls -1 events | head -30; ls -1 events | wc -l'
cap ls_events_sched 'ls -1 events/sched'
cap ls_event_dir 'ls -1 events/sched/sched_switch'
cap ls_events_ftrace 'ls -1 events/ftrace; ls -1 events/ftrace/function'
for f in available_tracers current_tracer tracing_on buffer_size_kb buffer_total_size_kb buffer_percent \
  set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid \
  set_event_pid set_event set_event_notrace_pid trace_options trace_clock tracing_max_latency tracing_thresh max_graph_depth \
  function_profile_enabled stack_max_size stack_trace stack_trace_filter tracing_cpumask saved_cmdlines_size \
  saved_tgids kprobe_events uprobe_events dynamic_events kprobe_profile uprobe_profile dyn_ftrace_total_info snapshot \
  error_log README timestamp_mode enabled_functions touched_functions trace trace_marker_raw printk_formats \
  events/enable events/header_page events/header_event events/sched/enable events/sched/filter \
  events/sched/sched_switch/enable events/sched/sched_switch/filter events/sched/sched_switch/format \
  events/sched/sched_switch/id events/sched/sched_switch/trigger events/sched/sched_wakeup/format \
  events/kmem/kmalloc/format events/syscalls/sys_enter_openat/format events/syscalls/sys_exit_openat/format \
  events/raw_syscalls/sys_enter/format events/ftrace/function/format events/ftrace/funcgraph_entry/format \
  events/ftrace/funcgraph_exit/format events/ftrace/print/format events/ftrace/kernel_stack/format \
  events/ftrace/function/id events/ftrace/print/id \
  events/irq/irq_handler_entry/format events/block/block_rq_issue/format events/writeback/writeback_dirty_page/format \
  per_cpu/cpu0/stats per_cpu/cpu0/buffer_size_kb per_cpu/cpu0/trace trace_stat/function0 \
  /proc/sys/kernel/stack_tracer_enabled /proc/sys/kernel/ftrace_enabled \
  /sys/kernel/debug/kprobes/list /sys/kernel/debug/kprobes/enabled; do
  cap "cat:$f" "cat $f"
done
cap blacklist_head 'head -20 /sys/kernel/debug/kprobes/blacklist; wc -l < /sys/kernel/debug/kprobes/blacklist'
cap ls_debug 'ls -1 /sys/kernel/debug | head -50; ls -l /sys/kernel/debug/tracing | cut -c1-10'
cap debug_tracing_same 'cat /sys/kernel/debug/tracing/current_tracer; ls /sys/kernel/debug/tracing | wc -l'
cap aff_head 'head -20 available_filter_functions; wc -l < available_filter_functions'
cap aff_swap 'grep swap available_filter_functions'
cap aff_mod 'grep "\[" available_filter_functions | head -5'
cap avail_events_head 'head -20 available_events; wc -l < available_events'
cap mounts 'cat /proc/mounts'
cap mount_debugfs_seed 'mount -t debugfs nodev /debug && ls /debug | head; ls /debug/tracing | head -3; cat /debug/tracing/current_tracer'
