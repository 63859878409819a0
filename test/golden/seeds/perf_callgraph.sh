#!/bin/sh
# perf record -g and perf report's call graphs inside the machine. The command of the first two
# lines is the recording guest's (test/fixtures/tracefs-real/perf_record_g): the same Children/Self
# columns, the idle tasks' chains (secondary_startup_64_no_verify, start_kernel ... or
# start_secondary, cpu_startup_entry, do_idle, schedule_idle, __schedule, where sched_switch fires)
# and the graph layout. perf 6.1's layout in general (--children caller graphs, --no-children callee
# graphs, branch order, the 0.5% threshold) is checked byte for byte against real perf in
# test/machine/perf_callchain.test.ts; -g none and -g on a file without callchains (the error, exit
# status 0) as Debian's perf 6.1.187 prints them on a real perf.data. Counts are the machine's.
cd /tmp
perf record -e sched:sched_switch -g -a -o /tmp/perf3.data sleep 0.1 2>&1
perf report -i /tmp/perf3.data --stdio 2>&1 | head -60
perf report -i /tmp/perf3.data --stdio --no-children 2>&1 | head -40
perf report -i /tmp/perf3.data --stdio -g none 2>&1 | head -18
perf record -e sched:sched_switch -a -o /tmp/nog.data sleep 0.1 2>&1
perf report -i /tmp/nog.data --stdio -g 2>&1; echo rc=$?
# perf trace without -s: one line per call as it returns (format checked byte for byte against the
# guest's `perf trace cat /etc/hostname` in test/machine/perf_trace.test.ts); a shell's wait4 is
# interrupted by its child's calls and continued; -S adds the summary
perf trace sh -c 'ls /nonexist; echo hi' 2>&1
perf trace -S true 2>&1
# perf record -a without a command: system wide until SIGINT (perf then re-raises it: status 130),
# or for the duration of `-- sleep`; syscall tracepoints are sampled in syscall_trace_enter
perf record -a -e sched:sched_switch -o /tmp/a.data & sleep 0.3; kill -INT %1; wait %1; echo status=$?
perf report -i /tmp/a.data --stdio | head -16
perf record -a -g -e syscalls:sys_enter_openat -o /tmp/b.data -- sleep 0.2 2>&1; echo rc=$?
perf report -i /tmp/b.data --stdio --no-children | head -30
