#!/bin/sh
# Seed 003 (the kprobes machinery and its debugfs view): while a stap script is loaded, its
# probes are kprobes in kprobe_table (debugfs kprobes/list: kprobes on ftrace, "k"/"r" lines),
# on the kprobe_ftrace_ops trampoline (enabled_functions); they go away when it ends
# (Ctrl-C: its end probe prints). Formats checked against test/fixtures/tracefs-real/kp_define,
# kp_run (kprobes/list, enabled_functions with the trampoline line) and ls_debug.
mount | grep -E 'debugfs|tracefs'
ls /sys/kernel/debug/kprobes
cat /sys/kernel/debug/kprobes/enabled
stap -e 'global reads, opens
probe kernel.function("vfs_read") { reads++ }
probe kernel.function("do_sys_openat2").return { opens++ }
probe begin { println("script loaded") }
probe end { printf("vfs_read %d calls, do_sys_openat2 %d returns\n", reads > 0, opens > 0) }' &
sleep 1
cat /sys/kernel/debug/kprobes/list
grep -E '^(vfs_read|do_sys_openat2) ' /sys/kernel/debug/tracing/enabled_functions
cat /etc/hostname
kill -INT %1
wait
echo "after the script:"
cat /sys/kernel/debug/kprobes/list
grep -c . /sys/kernel/debug/tracing/enabled_functions
# the seed's stap -v one-liner (without -v: its pass lines show the host's memory and times)
stap -e 'probe vfs.read {printf("read performed\n"); exit()}'
# the seed's stack tracer (checked against test/fixtures/tracefs-real/stack_tracer)
cd /sys/kernel/debug/tracing
echo vfs_write ksys_write vfs_read ksys_read > stack_trace_filter
echo 1 > /proc/sys/kernel/stack_tracer_enabled
ls -R /usr/share > /dev/null 2>&1
echo x > /tmp/x
cat stack_max_size
cat stack_trace
echo 0 > /proc/sys/kernel/stack_tracer_enabled
cat /proc/sys/kernel/stack_tracer_enabled
