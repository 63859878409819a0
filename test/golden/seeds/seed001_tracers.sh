#!/bin/sh
# Seed 001 (the 2010 tracing talk), on 6.1: tracing_enabled is gone (tracing_on replaces it, the
# write fails as on the real kernel), the function and function_graph tracers, a graph limited
# to one function, event tracing of a syscall with set_event and a filter, a kprobe event with
# register and stack fetch arguments (6.1 opens through do_sys_openat2: do_sys_open exists but openat(2) does not call it).
# Expected fixed parts checked against the real guest: test/fixtures/tracefs-real/{cat:trace,
# graph_vfs_read, ev_syscalls, ev_filter, kp_seed001, err_*}.
cd /sys/kernel/debug/tracing
echo function > current_tracer
echo 1 > tracing_enabled
echo vfs_read > set_ftrace_filter
cat /etc/hostname > /dev/null
head trace

echo function_graph > current_tracer
echo ksys_read > set_graph_function
echo ksys_read vfs_read rw_verify_area security_file_permission > set_ftrace_filter
echo 1 > tracing_on
cat /etc/hostname > /dev/null
echo 0 > tracing_on
cat trace

echo nop > current_tracer
echo > set_graph_function
echo syscalls:sys_enter_openat > set_event
echo 'flags == 0' > events/syscalls/sys_enter_openat/filter
cat events/syscalls/sys_enter_openat/filter
echo 1 > tracing_on
cat /etc/hostname > /dev/null
echo 0 > tracing_on
head -14 trace
echo > set_event

echo 'p:myprobe do_sys_openat2 dfd=%ax filename=%dx flags=%cx mode=+4($stack)' > kprobe_events
cat kprobe_events
cat events/kprobes/myprobe/format
echo > trace
echo 1 > events/kprobes/enable
echo 1 > tracing_on
cat /etc/hostname > /dev/null
echo 0 > events/kprobes/enable
tail -3 trace
