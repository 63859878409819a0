#!/bin/sh
# Seed 004 (LTTng vs ktrace overhead, 2009): what of it runs as written on 6.1 is tbench with and
# without the kernel's tracepoints armed (all events enabled, flight-recorder mode: the ring
# buffer overwrites) and the per-event counts of the trace ("the top high event rate events").
# The ktrace patch and LTTng are not in 6.1. Ring buffer stats format checked against
# test/fixtures/tracefs-real/buffer_sizes; event lines against ev_* captures.
# tbench is Debian's (dbench 4.0): its server started first, 8 clients replaying 30 lines of the
# NetBench load file once (then asleep past the 1 s limit, as the catalogue's tbench workload does).
cd /sys/kernel/tracing
sed -n 12,41p /usr/share/dbench/client.txt > /tmp/load.txt
echo "1.5 Sleep 0 NT_STATUS_OK" >> /tmp/load.txt
tbench_srv > /dev/null &
sleep 1
tbench -t 1 -c /tmp/load.txt 8 127.0.0.1
echo 1 > events/enable
tbench -t 1 -c /tmp/load.txt 8 127.0.0.1
echo 0 > events/enable
echo 0 > tracing_on
kill $!
cat per_cpu/cpu0/stats | head -3
awk '{ print $5 }' trace | grep ':$' | sort | uniq -c | sort -n | tail -12
