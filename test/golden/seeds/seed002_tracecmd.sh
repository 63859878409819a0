#!/bin/sh
# Seed 002's trace-cmd cycle: record a function graph below pread64 while block_hasher runs
# (6.1's entry point is __x64_sys_pread64 where the seed's kernel had sys_pread64), report it; then
# return probes as kprobe events, recorded with the graph and -F (only the command's own
# records). Fixed parts (the record messages, the report's columns, graph marks and durations,
# the kprobe event's print fmt) checked against trace-cmd 3.1.6 in the recording guest:
# test/fixtures/tracefs-real/tc_record_graph, tc_record_F; trace-cmd stat/list/reset as in tc_stat_show, tc_list.
cd /root
trace-cmd record -p function_graph -o graph_pread.dat -g __x64_sys_pread64 block_hasher -d /dev/sda -b 65536 -t1 -n2
trace-cmd report -i graph_pread.dat | head -24
cd /sys/kernel/tracing
echo 'r:md_make_request_probe submit_bio $retval' >> kprobe_events
echo 'r:mwait_probe vfs_read $retval' >> kprobe_events
cd /root
echo 3 > /proc/sys/vm/drop_caches
trace-cmd record -p function_graph -o graph_md.dat -g submit_bio -e md_make_request_probe -e mwait_probe -F block_hasher -d /dev/sda -b 65536 -t1 -n2
trace-cmd report -i graph_md.dat | head -14
trace-cmd report -i graph_md.dat -F mwait_probe | head -3
trace-cmd start -p function -l vfs_read
trace-cmd stat
trace-cmd stop
trace-cmd reset
trace-cmd stat
trace-cmd list -t
# version 7 (uncompressed, real trace-cmd 3.1.6's --compression none: the writer is checked byte for
# byte against its file in test/machine/trace_dat.test.ts); the report reads it as it reads version 6
cd /tmp
trace-cmd record --compression none -p function -l vfs_read -e sched:sched_switch -o /tmp/v7.dat cat /etc/hostname
trace-cmd report -i /tmp/v7.dat | head -5
trace-cmd record --file-version 8 -o /tmp/v8.dat true; echo rc=$?
