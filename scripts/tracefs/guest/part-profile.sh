# function profiler (seed 002)
echo $FILT > $T/set_ftrace_filter
cap profile 'echo 0 > function_profile_enabled; echo 1 > function_profile_enabled; cat /etc/hostname >/dev/null; ls -R /usr/share/doc/*perf* > /dev/null; echo 0 > function_profile_enabled; head -12 trace_stat/function0; grep -E " vfs_read " trace_stat/function0; ls trace_stat'
cap profile_graph_time 'echo 0 > options/graph-time; echo 1 > function_profile_enabled; ls / > /dev/null; echo 0 > function_profile_enabled; head -8 trace_stat/function0; echo 1 > options/graph-time'
cap profile_busy 'echo function_graph > current_tracer; echo 1 > function_profile_enabled; echo rc=$?; cat function_profile_enabled; echo nop > current_tracer; echo 0 > function_profile_enabled'
cap profile_seed_script 'echo 0 > function_profile_enabled; echo 1 > function_profile_enabled; echo $$ > set_ftrace_pid; echo function > current_tracer; cat /etc/hostname; ls / >/dev/null; echo 0 > function_profile_enabled; head -n8 trace_stat/function* ; echo > set_ftrace_pid'
reset_all
