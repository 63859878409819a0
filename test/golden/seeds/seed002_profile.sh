#!/bin/sh
# Seed 002's profiler script: ftrace-me resets the profiler (0 then 1), sets set_ftrace_pid to its
# own pid and the function tracer, then execs the workload; trace_stat/functionN is read after.
# Debian's 6.1 build has no CONFIG_FUNCTION_PROFILER (the real guest refuses the file:
# test/fixtures/tracefs-real/profile), so this runs on a kernel built with it
# (--function-profiler), as the seed's own kernel was. The per-CPU files are read in a loop.
cat > /root/ftrace-me <<'SCRIPT'
#!/bin/sh

DEBUGFS=`grep debugfs /proc/mounts | awk '{ print $2; }'`

# Reset trace stat
echo 0 > $DEBUGFS/tracing/function_profile_enabled
echo 1 > $DEBUGFS/tracing/function_profile_enabled

echo $$ > $DEBUGFS/tracing/set_ftrace_pid
echo function > $DEBUGFS/tracing/current_tracer

exec $*
SCRIPT
echo vfs_read ksys_read rw_verify_area __fdget_pos > /sys/kernel/tracing/set_ftrace_filter
sh /root/ftrace-me dd if=/root/YEYEYE.txt of=/dev/null bs=64k count=16
cd /sys/kernel/tracing
echo 0 > function_profile_enabled
for f in trace_stat/function*; do echo "==> $f <=="; head -50 $f; done > ~/trace_stat
cat ~/trace_stat
grep -c 'vfs_read <-' trace
