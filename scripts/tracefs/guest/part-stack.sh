# stack tracer
cap stack_tracer 'echo $FILT > stack_trace_filter; cat stack_trace; echo 1 > /proc/sys/kernel/stack_tracer_enabled; ls -R /usr/share/doc > /dev/null 2>&1; cat stack_max_size; cat stack_trace | head -20; echo 0 > /proc/sys/kernel/stack_tracer_enabled; cat /proc/sys/kernel/stack_tracer_enabled'
