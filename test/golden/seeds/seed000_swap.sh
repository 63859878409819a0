#!/bin/bash
# Seed 000 ("Using ftrace to understand linux kernel API"): swap tracing through debugfs, as
# written except the 200 MB file is read through dd for its first 2 MB (xxd over the whole
# file would print 12.5 million lines) and the trace is shown to its first 60 lines (every exit
# runs free_swap_cache once per page it frees, as the recorded exit_group trees show: ~11k lines).
# Expected values: the fixed parts (the 6.1 header, the column layout, "TASK-PID [CPU] flags
# TIMESTAMP: func <-parent") match the real 6.1.0-56 guest (test/fixtures/tracefs-real/seed000).

mkdir /debug
mount -t debugfs nodev /debug

echo "" >/debug/tracing/trace
echo 0 >/debug/tracing/tracing_on

echo "*swap*" > /debug/tracing/set_ftrace_filter
echo function >/debug/tracing/current_tracer
echo 1 >/debug/tracing/tracing_on

swapon -a
dd if=YEYEYE.txt bs=64k count=32 2>/dev/null | xxd | tail -100

echo 0 >/debug/tracing/tracing_on
cat /debug/tracing/trace | head -n 60
