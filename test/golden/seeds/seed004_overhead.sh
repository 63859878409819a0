#!/bin/sh
# Seed 004 (LTTng vs ktrace overhead, 2009): what of it runs as written on 6.1 is tbench with and
# without the kernel's tracepoints armed (all events enabled, flight-recorder mode: the ring
# buffer overwrites) and the per-event counts of the trace ("the top high event rate events").
# The ktrace patch and LTTng are not in 6.1. Ring buffer stats format checked against
# test/fixtures/tracefs-real/buffer_sizes; event lines against ev_* captures.
cd /sys/kernel/tracing
tbench 8 -t 200
echo 1 > events/enable
tbench 8 -t 200
echo 0 > events/enable
echo 0 > tracing_on
cat per_cpu/cpu0/stats | head -3
awk '{ print $5 }' trace | grep ':$' | sort | uniq -c | sort -n | tail -12
