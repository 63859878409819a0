#!/bin/sh
# perf (linux-perf 6.1) inside the machine: stat with software events and tracepoints, -a, list,
# record/report, trace -s, over perf_event_open(2). Fixed parts (the "Performance counter stats
# for" block, column layout, units, perf list lines, report header and columns, the trace summary
# table) checked against the recording guest: test/fixtures/tracefs-real/perf_stat_sw,
# perf_stat_tp, perf_stat_default, perf_stat_misc, perf_list, perf_record, perf_record_sw,
# perf_trace_s. Counts are the machine's. The stap scripts below count the same events: for cat
# (one process) stap's and perf's openat counts agree; tar czf forks gzip, and perf stat counts
# the command's children too (inherited counters, its default), while stap's `pid() == target()`
# counts tar alone, so perf's read and write counts exceed stap's by gzip's (its reads of the
# pipe from tar, its writes of the compressed archive).
cd /tmp
perf --version
perf list sw
perf list 'sched:sched_switch'
perf stat -e task-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults tar czf /tmp/u.tgz /usr/sbin 2>&1 >/dev/null
perf stat -e sched:sched_switch,syscalls:sys_enter_openat,raw_syscalls:sys_enter -a sleep 0.2 2>&1
perf stat ls / 2>&1 >/dev/null
perf stat -x, -e task-clock,page-faults ls / 2>&1 >/dev/null
perf stat -e nosuch true 2>&1; echo rc=$?
# the same events counted by stap and by perf: openat of cat; read and write of tar (stap: tar
# only; perf: tar and its gzip child)
stap -c 'cat /etc/hostname' -e 'global n; probe syscall.openat { if (pid() == target()) n++ } probe end { printf("stap: openat %d\n", n) }'
perf stat -e 'syscalls:sys_enter_openat' cat /etc/hostname 2>&1
stap -c 'tar czf /tmp/v.tgz /usr/sbin' -e 'global r, w; probe syscall.read { if (pid() == target()) r++ } probe syscall.write { if (pid() == target()) w++ } probe end { printf("stap: read %d write %d\n", r, w) }' 2>/dev/null
perf stat -e 'syscalls:sys_enter_read,syscalls:sys_enter_write' tar czf /tmp/v.tgz /usr/sbin 2>&1 >/dev/null
# perf itself, seen by a stap probe on the system call
stap -e 'probe syscall.perf_event_open { printf("%s: %s(%s)\n", execname(), name, argstr) }' -c 'perf stat -e page-faults,sched:sched_switch true' 2>&1
perf record -e sched:sched_switch -a -o /tmp/perf.data sleep 0.2 2>&1
perf report -i /tmp/perf.data --stdio
perf record -e cpu-clock -F 1000 tar czf /tmp/u.tgz /usr/sbin 2>&1 >/dev/null
perf report --stdio | head -16
perf trace -s ls / 2>&1 >/dev/null
