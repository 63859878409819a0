#!/bin/sh
# Seed 002 ("ftrace"): the kmalloc event through set_event, a kretprobe event on a module
# function with $retval (ath9k is not loaded on this machine: ext4's read_iter stands in, as in
# the real recording), events/kprobes/enable, and the kprobe list of debugfs.
# Expected fixed parts: test/fixtures/tracefs-real/{ev_kmalloc, kp_seed002, kp_define}.
cd /sys/kernel/tracing
echo kmalloc > set_event
cat /etc/hostname > /dev/null
echo 0 > tracing_on
head -16 trace
echo 1 > tracing_on
echo > set_event
echo > trace
echo 'r:ath_probe ext4:ext4_file_read_iter $retval' >> kprobe_events
cat kprobe_events
cat /sys/kernel/debug/kprobes/list
echo 1 > events/kprobes/enable
cat /sys/kernel/debug/kprobes/list
cat /etc/passwd > /dev/null
echo 0 > tracing_on
grep ath_probe trace | head -3
cat kprobe_profile
