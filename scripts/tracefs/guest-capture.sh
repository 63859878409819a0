#!/bin/sh
# Runs INSIDE the real Debian 12 guest (Linux 6.1.0-56-amd64) as root, started by record.sh through
# /work/shared/tools/qemu-debian-guest. Prints every capture as
#   @@ NAME rc=N
#   <base64 of the command's stdout+stderr, 76 columns>
#   @@ end
# so the bytes (tabs, missing final newlines) survive the serial console; record.sh splits them
# into test/fixtures/tracefs-real/NAME. NAME says what was run; the command is in this file.
T=/sys/kernel/tracing
cd $T || exit 1
cap() { # cap NAME CMD...  (CMD run by sh -c in $T)
  name=$1; shift
  out=$(sh -c "$*" 2>&1; echo "@rc=$?")
  rc=${out##*@rc=}
  printf '%s' "${out%@rc=*}" > /tmp/cap.out
  echo "@@ $name rc=$rc"
  base64 -w 76 /tmp/cap.out
  echo "@@ end"
}
capf() { # capf NAME FILE: the file's bytes (binary safe)
  echo "@@ $1 rc=0"; base64 -w 76 "$2"; echo "@@ end"
}
# Tracing every kernel function under QEMU's emulation (no KVM) slows the guest a hundredfold:
# the function and function_graph tracers, the profiler and the stack tracer run on this set.
FILT="vfs_read vfs_write ksys_read ksys_write __x64_sys_read __x64_sys_write __x64_sys_openat do_sys_openat2 do_syscall_64 rw_verify_area __fdget_pos fput security_file_permission new_sync_read ext4_file_read_iter ext4_file_write_iter filemap_read touch_atime __cond_resched schedule __schedule hrtimer_interrupt __sysvec_apic_timer_interrupt irq_enter_rcu irq_exit_rcu tick_sched_timer update_process_times scheduler_tick do_nanosleep"
export FILT T
reset_all() {
  echo 0 > $T/tracing_on; echo nop > $T/current_tracer; echo > $T/set_ftrace_filter; echo > $T/set_ftrace_notrace
  echo > $T/set_graph_function; echo > $T/set_ftrace_pid; echo > $T/set_event; echo 0 > $T/events/enable
  echo 0 > $T/function_profile_enabled; echo 0 > $T/max_graph_depth; echo 0 > $T/tracing_thresh
  echo > $T/kprobe_events 2>/dev/null; echo > $T/trace; echo 1 > $T/tracing_on
}
mkdir -p /debug
mount -t debugfs nodev /sys/kernel/debug
cap uname 'uname -a; nproc; cat /proc/cmdline'

# ---------------------------------------------------------------- the file set, pristine
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

# ---------------------------------------------------------------- errors of control files
cap err_tracer 'echo foo > current_tracer; echo rc=$?; cat current_tracer'
cap err_filter_nomatch 'echo nosuchfunc_xyz > set_ftrace_filter; echo rc=$?; cat set_ftrace_filter'
cap err_buffer0 'echo 0 > buffer_size_kb; echo rc=$?; cat buffer_size_kb'
cap err_tracing_on 'echo 2 > tracing_on; echo rc=$?; cat tracing_on; echo abc > tracing_on; echo rc=$?'
cap err_event_enable 'echo 2 > events/sched/sched_switch/enable; echo rc=$?'
cap err_set_event 'echo nosuch:event > set_event; echo rc=$?'
cap err_trace_options 'echo nosuchopt > trace_options; echo rc=$?'
cap err_event_filter 'echo "prev_pid >< 1" > events/sched/sched_switch/filter; echo rc=$?; cat events/sched/sched_switch/filter; echo "nosuchfield == 1" > events/sched/sched_switch/filter; echo rc=$?; cat events/sched/sched_switch/filter; echo "(prev_pid == 1" > events/sched/sched_switch/filter; echo rc=$?; cat events/sched/sched_switch/filter; echo "prev_comm < 3" > events/sched/sched_switch/filter; echo rc=$?; cat events/sched/sched_switch/filter; cat error_log; echo 0 > events/sched/sched_switch/filter; cat events/sched/sched_switch/filter'
cap filter_ok_read 'echo "prev_pid != 0 && next_comm ~ \"ksoft*\"" > events/sched/sched_switch/filter; echo rc=$?; cat events/sched/sched_switch/filter; echo "prev_pid > 0" > events/sched/filter; cat events/sched/filter; cat events/sched/sched_wakeup/filter; echo 0 > events/sched/filter; cat events/sched/sched_switch/filter'
cap err_kprobe 'echo > error_log; echo "p:myp nosuch_function_xyz" > kprobe_events; echo rc=$?; echo "x:bad vfs_read" >> kprobe_events; echo rc=$?; echo "p:myp vfs_read foo=%zz" >> kprobe_events; echo rc=$?; echo "r:myr vfs_read+4" >> kprobe_events; echo rc=$?; echo "p:myp vfs_read \$retval" >> kprobe_events; echo rc=$?; cat error_log'
cap err_pid 'echo abc > set_ftrace_pid; echo rc=$?; cat set_ftrace_pid'
cap marker 'echo hello marker > trace_marker; echo rc=$?; cat trace | tail -2; echo > trace'

# ---------------------------------------------------------------- filter grammar
cap ftrace_filter_forms 'echo "vfs_read*" > set_ftrace_filter; cat set_ftrace_filter; echo "*_swap_*" >> set_ftrace_filter; wc -l < set_ftrace_filter; echo "!vfs_readv" >> set_ftrace_filter; grep vfs_ set_ftrace_filter; echo ":mod:ext4" > set_ftrace_filter; wc -l < set_ftrace_filter; head -3 set_ftrace_filter; echo "ext4_file*:mod:ext4" > set_ftrace_filter; cat set_ftrace_filter; echo "vfs_read:traceoff" >> set_ftrace_filter; echo "vfs_write:traceoff:5" >> set_ftrace_filter; echo "do_sys_openat2:stacktrace" >> set_ftrace_filter; cat set_ftrace_filter; echo "!vfs_read:traceoff" >> set_ftrace_filter; echo "!vfs_write:traceoff:0" >> set_ftrace_filter; echo "!do_sys_openat2:stacktrace" >> set_ftrace_filter; cat set_ftrace_filter; echo > set_ftrace_filter; cat set_ftrace_filter'
cap notrace_forms 'echo "*spin*" > set_ftrace_notrace; wc -l < set_ftrace_notrace; head -3 set_ftrace_notrace; echo > set_ftrace_notrace; cat set_ftrace_notrace'
cap graph_fn_forms 'echo vfs_read > set_graph_function; cat set_graph_function; echo "vfs_write*" >> set_graph_function; cat set_graph_function; echo > set_graph_function; cat set_graph_function'
cap pid_forms 'echo $$ > set_ftrace_pid; cat set_ftrace_pid | sed "s/$$/PID/"; echo 0 >> set_ftrace_pid; cat set_ftrace_pid | sed "s/$$/PID/"; echo > set_ftrace_pid; cat set_ftrace_pid'
cap set_event_forms 'echo sched:sched_switch > set_event; cat set_event; echo "irq:*" >> set_event; cat set_event; echo "!irq:softirq_entry" >> set_event; cat set_event; cat events/irq/enable; cat events/enable; echo kmalloc > set_event; cat set_event; echo > set_event; cat set_event; cat events/enable'
cap trigger_forms 'cat events/sched/sched_switch/trigger; echo "traceoff:3 if prev_pid == 1" > events/sched/sched_switch/trigger; echo "stacktrace" >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable; echo "!traceoff:3 if prev_pid == 1" > events/sched/sched_switch/trigger; echo "!stacktrace" > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger'
cap options_toggle 'echo vfs_read > set_ftrace_filter; echo nosym-offset > trace_options; echo sym-offset > trace_options; cat options/sym-offset; echo 0 > options/sym-offset; cat options/sym-offset; echo function > current_tracer; ls options | wc -l; cat trace_options; echo function_graph > current_tracer; cat trace_options; echo nop > current_tracer'
cap buffer_sizes 'cat buffer_size_kb; echo 2048 > buffer_size_kb; cat buffer_size_kb; cat buffer_total_size_kb; echo 1000 > per_cpu/cpu0/buffer_size_kb; cat buffer_size_kb; cat per_cpu/cpu0/buffer_size_kb; echo 1408 > buffer_size_kb; cat buffer_total_size_kb'
cap trace_clock 'cat trace_clock; echo global > trace_clock; cat trace_clock; echo local > trace_clock'
cap max_graph_thresh 'echo 3 > max_graph_depth; cat max_graph_depth; echo 0 > max_graph_depth; echo 100 > tracing_thresh; cat tracing_thresh; echo 0 > tracing_thresh'
reset_all

# ---------------------------------------------------------------- seed 000: swap with the function tracer
dd if=/dev/zero of=/swapfile bs=1M count=32 2>/dev/null; chmod 600 /swapfile; mkswap /swapfile >/dev/null 2>&1
echo "/swapfile none swap sw 0 0" >> /etc/fstab
head -c 2000000 /dev/urandom > /root/YEYEYE.txt
cap seed000 'echo "" >/sys/kernel/tracing/trace; echo 0 >/sys/kernel/tracing/tracing_on; echo "*swap*" > /sys/kernel/tracing/set_ftrace_filter; echo function >/sys/kernel/tracing/current_tracer; echo 1 >/sys/kernel/tracing/tracing_on; swapon -a; xxd < /root/YEYEYE.txt | tail -3; echo 0 >/sys/kernel/tracing/tracing_on; cat /sys/kernel/tracing/trace | head -40'
cap seed000_enabled 'head -20 enabled_functions; wc -l < enabled_functions'
cap swapon_show 'cat /proc/swaps; swapoff -a; cat /proc/swaps'
reset_all

# ---------------------------------------------------------------- function tracer variants
cap fn_vfs_read 'echo vfs_read > set_ftrace_filter; echo function > current_tracer; cat /etc/hostname >/dev/null; ls / > /dev/null; echo 0 > tracing_on; cat trace | head -30; cat enabled_functions; echo 1 > tracing_on'
cap fn_sym_offset 'echo 1 > options/sym-offset; cat trace | sed -n 12,14p; echo 1 > options/sym-addr; cat trace | sed -n 12,14p; echo 0 > options/sym-offset; echo 0 > options/sym-addr; echo 0 > options/irq-info; cat trace | head -14; echo 1 > options/irq-info; echo 1 > options/latency-format; cat trace | head -24; echo 0 > options/latency-format'
cap fn_raw_hex 'echo 1 > options/raw; cat trace | sed -n 1,14p; echo 0 > options/raw; echo 1 > options/hex; cat trace | sed -n 12,14p; echo 0 > options/hex'
cap fn_stack 'echo > trace; echo 1 > options/func_stack_trace; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -30; echo 0 > options/func_stack_trace; echo 1 > tracing_on'
cap fn_pipe 'echo > trace; (sleep 0.2; cat /etc/hostname >/dev/null; sleep 0.2; cat /etc/hostname > /dev/null) & timeout 1 cat trace_pipe; wait; cat trace | head -14'
reset_all
cap fn_pid 'echo $$ > set_ftrace_pid; echo "vfs_*" > set_ftrace_filter; echo function > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -20 | sed "s/-$$ /-PID /"'
reset_all
cap fn_traceoff_cmd 'echo vfs_read > set_ftrace_filter; echo "vfs_write:traceoff" >> set_ftrace_filter; echo function > current_tracer; cat /etc/hostname; cat tracing_on; cat trace | tail -3; cat set_ftrace_filter; echo 1 > tracing_on'
reset_all
cap fn_stacktrace_cmd 'echo "vfs_read:stacktrace" > set_ftrace_filter; echo vfs_read >> set_ftrace_filter; echo function > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -40; cat set_ftrace_filter'
reset_all

# ---------------------------------------------------------------- function_graph
cap graph_vfs_read 'echo $FILT > set_ftrace_filter; echo vfs_read > set_graph_function; echo function_graph > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -60'
cap graph_opts 'echo 1 > options/funcgraph-proc; echo 1 > options/funcgraph-abstime; cat trace | head -14; echo 0 > options/funcgraph-proc; echo 0 > options/funcgraph-abstime; echo 1 > options/latency-format; cat trace | head -24; echo 0 > options/latency-format; echo 0 > options/funcgraph-cpu; echo 0 > options/funcgraph-overhead; cat trace | head -10; echo 1 > options/funcgraph-cpu; echo 1 > options/funcgraph-overhead; echo 1 > options/funcgraph-tail; cat trace | head -30; echo 0 > options/funcgraph-tail; echo 0 > options/funcgraph-duration; cat trace | head -8; echo 1 > options/funcgraph-duration'
cap graph_pipe 'echo > trace; echo 1 > tracing_on; cat /etc/hostname > /dev/null; echo 0 > tracing_on; timeout 1 cat trace_pipe | head -20'
reset_all
cap graph_depth1 'echo $FILT > set_ftrace_filter; echo 1 > max_graph_depth; echo function_graph > current_tracer; sleep 0.1; echo 0 > tracing_on; cat trace | head -20'
reset_all
cap graph_thresh 'echo $FILT > set_ftrace_filter; echo 50 > tracing_thresh; echo function_graph > current_tracer; sleep 0.2; echo 0 > tracing_on; cat trace | head -20'
reset_all
cap graph_irqs 'echo $FILT > set_ftrace_filter; echo function_graph > current_tracer; sleep 0.2; echo 0 > tracing_on; grep -m5 -B2 -A3 "==========>" trace; grep -m3 -A2 -B1 "=>" trace | head -20'
reset_all
cap graph_filter_leaf 'echo vfs_read > set_ftrace_filter; echo function_graph > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -12'
reset_all
cap graph_event_comment 'echo $FILT > set_ftrace_filter; echo sched:sched_switch > set_event; echo function_graph > current_tracer; echo schedule > set_graph_function; sleep 0.1; echo 0 > tracing_on; grep -m3 -B3 -A3 "sched_switch" trace'
reset_all

# ---------------------------------------------------------------- events
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

# ---------------------------------------------------------------- kprobe_events (seeds 001, 002)
cap kp_define 'echo "p:myprobe do_sys_openat2 dfd=%di filename=+0(%si):string flags=+16(%dx):x32" > kprobe_events; echo "r:myretprobe do_sys_openat2 \$retval" >> kprobe_events; echo "p:vfsr vfs_read \$arg1 \$arg3 +8(%sp) cnt=%dx:u32 sz=%dx:s16 \$comm" >> kprobe_events; echo "p vfs_write" >> kprobe_events; echo "r:kprobes/wret vfs_write ret=\$retval:s64" >> kprobe_events; echo rc=$?; cat kprobe_events; cat dynamic_events; ls events/kprobes; cat events/kprobes/myprobe/format; cat events/kprobes/myretprobe/format; cat events/kprobes/vfsr/format; cat events/kprobes/enable; cat /sys/kernel/debug/kprobes/list'
cap kp_run 'echo 1 > events/kprobes/enable; cat events/kprobes/enable; cat /sys/kernel/debug/kprobes/list; grep -E "do_sys_openat2|vfs_read|vfs_write" enabled_functions; cat /etc/hostname > /dev/null; echo x > /tmp/x; echo 0 > tracing_on; grep -m3 myprobe trace; grep -m3 myretprobe trace; grep -m3 vfsr trace; grep -m2 p_vfs_write trace; grep -m2 wret trace; cat kprobe_profile; echo 1 > tracing_on'
cap kp_busy 'echo > kprobe_events; echo rc=$?; echo "-:myprobe" >> kprobe_events; echo rc=$?; echo 0 > events/kprobes/enable; echo "-:myprobe" >> kprobe_events; echo rc=$?; cat kprobe_events; echo > kprobe_events; cat kprobe_events; cat /sys/kernel/debug/kprobes/list'
cap kp_dynamic_events 'echo "p:kprobes/dp vfs_open" > dynamic_events; cat dynamic_events; cat kprobe_events; echo "-:kprobes/dp" >> dynamic_events; cat dynamic_events'
cap kp_seed001 'echo "p:myprobe do_sys_open dfd=%ax filename=%dx flags=%cx mode=+4(\$stack)" > kprobe_events; echo rc=$?; cat kprobe_events; echo "p:myprobe do_sys_openat2 dfd=%ax filename=%dx flags=%cx mode=+4(\$stack)" > kprobe_events; echo rc=$?; cat kprobe_events; echo 1 > events/kprobes/myprobe/enable; cat /etc/hostname >/dev/null; echo 0 > tracing_on; grep -m3 myprobe trace; echo 0 > events/kprobes/myprobe/enable; echo > kprobe_events'
reset_all
cap kp_seed002 'echo "r:ath_probe ext4:ext4_file_read_iter \$retval" >> kprobe_events; echo rc=$?; cat kprobe_events; echo 1 > events/kprobes/enable; cat /etc/hostname >/dev/null; echo 0 > tracing_on; grep -m3 ath_probe trace; echo 0 > events/kprobes/enable; echo > kprobe_events'
reset_all
cap uprobe 'echo "p:uprobes/ubash /bin/bash:0x31000 %ip %ax" > uprobe_events; echo rc=$?; cat uprobe_events; cat events/uprobes/ubash/format; echo > uprobe_events'

# ---------------------------------------------------------------- function profiler (seed 002)
echo $FILT > $T/set_ftrace_filter
cap profile 'echo 0 > function_profile_enabled; echo 1 > function_profile_enabled; cat /etc/hostname >/dev/null; ls -R /usr/share/doc/*perf* > /dev/null; echo 0 > function_profile_enabled; head -12 trace_stat/function0; grep -E " vfs_read " trace_stat/function0; ls trace_stat'
cap profile_graph_time 'echo 0 > options/graph-time; echo 1 > function_profile_enabled; ls / > /dev/null; echo 0 > function_profile_enabled; head -8 trace_stat/function0; echo 1 > options/graph-time'
cap profile_busy 'echo function_graph > current_tracer; echo 1 > function_profile_enabled; echo rc=$?; cat function_profile_enabled; echo nop > current_tracer; echo 0 > function_profile_enabled'
cap profile_seed_script 'echo 0 > function_profile_enabled; echo 1 > function_profile_enabled; echo $$ > set_ftrace_pid; echo function > current_tracer; cat /etc/hostname; ls / >/dev/null; echo 0 > function_profile_enabled; head -n8 trace_stat/function* ; echo > set_ftrace_pid'
reset_all

# ---------------------------------------------------------------- stack tracer
cap stack_tracer 'echo $FILT > stack_trace_filter; cat stack_trace; echo 1 > /proc/sys/kernel/stack_tracer_enabled; ls -R /usr/share/doc > /dev/null 2>&1; cat stack_max_size; cat stack_trace | head -20; echo 0 > /proc/sys/kernel/stack_tracer_enabled; cat /proc/sys/kernel/stack_tracer_enabled'

# ---------------------------------------------------------------- instances
cap instances 'mkdir instances/foo; echo rc=$?; ls -1 instances/foo; ls -1 instances/foo/options | wc -l; cat instances/foo/available_tracers 2>&1; cat instances/foo/current_tracer; echo 1 > instances/foo/events/sched/sched_process_exec/enable; /bin/true; cat instances/foo/trace | tail -3; cat trace | wc -l; cat instances/foo/set_event; mkdir instances/foo; echo rc=$?; rmdir instances/foo; echo rc=$?; ls instances'

# ---------------------------------------------------------------- saved_cmdlines
cap saved_cmdlines 'echo 1 > events/sched/sched_switch/enable; sleep 0.1; echo 0 > events/sched/sched_switch/enable; head -5 saved_cmdlines; cat saved_cmdlines_size'
reset_all

# ---------------------------------------------------------------- trace-cmd 3.1
cap tc_version 'trace-cmd --version 2>&1 | head -3; trace-cmd 2>&1 | head -60'
cap tc_list 'trace-cmd list -t; trace-cmd list -e | head -5; trace-cmd list -e sched_switch; trace-cmd list -o | head -5; trace-cmd list -f | head -3; trace-cmd list -e "sched:sched_sw*"'
cap tc_record_fn 'cd /tmp && trace-cmd record -p function -l vfs_read -o /tmp/fn.dat cat /etc/hostname; echo rc=$?; trace-cmd report -i /tmp/fn.dat | head -20; ls -l /tmp/fn.dat | cut -d" " -f5'
capf tc_fn_dat /tmp/fn.dat
cap tc_record_ev 'cd /tmp && trace-cmd record -e sched:sched_switch -e sched_process_exec -o /tmp/ev.dat sleep 0.1; echo rc=$?; trace-cmd report -i /tmp/ev.dat | head -20; trace-cmd report --cpu 0 -i /tmp/ev.dat | head -3'
capf tc_ev_dat /tmp/ev.dat
cap tc_record_graph 'cd /tmp && trace-cmd record -p function_graph -g vfs_read -l vfs_read -l rw_verify_area -l ksys_read -l security_file_permission -l __fsnotify_parent -l touch_atime -l ext4_file_read_iter -l filemap_read -o /tmp/gr.dat cat /etc/hostname; echo rc=$?; trace-cmd report -i /tmp/gr.dat | head -40'
capf tc_gr_dat /tmp/gr.dat
cap tc_record_F 'cd /tmp && echo "r:mwait_probe vfs_read \$retval" >> /sys/kernel/tracing/kprobe_events; trace-cmd record -p function_graph -o /tmp/gf.dat -g vfs_read -l vfs_read -l rw_verify_area -l ksys_read -l security_file_permission -l ext4_file_read_iter -e mwait_probe -F cat /etc/hostname; echo rc=$?; trace-cmd report -i /tmp/gf.dat | head -40; echo > /sys/kernel/tracing/kprobe_events'
cap tc_record_P 'cd /tmp && sleep 1 & trace-cmd record -p function -l "do_nanosleep" -P $! -o /tmp/p.dat sleep 0.3; echo rc=$?; trace-cmd report -i /tmp/p.dat | head -8'
cap tc_stat_show 'trace-cmd start -p function -l vfs_read; trace-cmd stat; trace-cmd show | head -15; cat /etc/hostname > /dev/null; trace-cmd stop; trace-cmd extract -o /tmp/ex.dat; echo rc=$?; trace-cmd report -i /tmp/ex.dat | head -8; trace-cmd reset; trace-cmd stat; cat /sys/kernel/tracing/current_tracer; cat /sys/kernel/tracing/buffer_size_kb'
cap tc_report_opts 'trace-cmd report -i /tmp/ev.dat --stat 2>&1 | head -30; trace-cmd report -i /tmp/ev.dat -l | head -5; trace-cmd report -i /tmp/ev.dat -t | head -5; trace-cmd report -i /tmp/ev.dat --events | head -30; trace-cmd report -i /tmp/ev.dat -F sched_switch | head -3'
cap tc_errors 'trace-cmd record -p nosuch true; echo rc=$?; trace-cmd report -i /nonexist; echo rc=$?; trace-cmd record -e nosuch:ev true; echo rc=$?; trace-cmd frob; echo rc=$?'

# ---------------------------------------------------------------- perf (linux-perf 6.1)
cap perf_version 'perf --version; perf 2>&1 | head -40'
cap perf_list 'perf list sw 2>&1; perf list tracepoint 2>&1 | head -20; perf list 2>&1 | head -40; perf list "sched:*" 2>&1 | head -10'
cap perf_stat_sw 'perf stat -e task-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults ls / 2>&1 >/dev/null'
cap perf_stat_default 'perf stat ls / 2>&1 >/dev/null'
cap perf_stat_tp 'perf stat -e sched:sched_switch,syscalls:sys_enter_openat,raw_syscalls:sys_enter -a sleep 0.2 2>&1'
cap perf_stat_misc 'perf stat -e cycles ls 2>&1 >/dev/null; perf stat -x, -e task-clock,page-faults ls / 2>&1 >/dev/null; perf stat -r 3 -e page-faults true 2>&1; perf stat -e nosuch true 2>&1; echo rc=$?'
cap perf_record 'cd /tmp && perf record -e sched:sched_switch -a -o /tmp/perf.data sleep 0.2 2>&1; echo rc=$?; perf report -i /tmp/perf.data --stdio 2>&1 | head -40; perf report -i /tmp/perf.data --stdio --sort comm,dso,symbol 2>&1 | head -30'
cap perf_record_c1 'cd /tmp && perf record -e kmem:kmalloc -c 1 -a -o /tmp/perf2.data sleep 0.1 2>&1; perf report -i /tmp/perf2.data --sort comm,dso,symbol --stdio 2>&1 | head -30; perf script -i /tmp/perf2.data 2>&1 | head -10'
cap perf_record_g 'cd /tmp && perf record -e sched:sched_switch -g -a -o /tmp/perf3.data sleep 0.1 2>&1; perf report -i /tmp/perf3.data --stdio 2>&1 | head -60'
cap perf_record_sw 'cd /tmp && perf record -e cpu-clock -F 1000 -o /tmp/perf4.data ls -R /usr > /dev/null 2>/tmp/err; cat /tmp/err; perf report -i /tmp/perf4.data --stdio 2>&1 | head -30'
cap perf_trace_s 'perf trace -s ls / 2>&1 | tail -40'
cap perf_trace 'perf trace cat /etc/hostname 2>&1 | tail -20'
echo "@@ DONE rc=0"; echo "@@ end"
