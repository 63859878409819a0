# function tracer variants
cap fn_vfs_read 'echo vfs_read > set_ftrace_filter; echo function > current_tracer; cat /etc/hostname >/dev/null; ls / > /dev/null; echo 0 > tracing_on; cat trace | head -30; cat enabled_functions; echo 1 > tracing_on'
cap fn_sym_offset 'echo 1 > options/sym-offset; cat trace | sed -n 12,14p; echo 1 > options/sym-addr; cat trace | sed -n 12,14p; echo 0 > options/sym-offset; echo 0 > options/sym-addr; echo 0 > options/irq-info; cat trace | head -14; echo 1 > options/irq-info; echo 1 > options/latency-format; cat trace | head -24; echo 0 > options/latency-format'
cap fn_raw_hex 'echo 1 > options/raw; cat trace | sed -n 1,14p; echo 0 > options/raw; echo 1 > options/hex; cat trace | sed -n 12,14p; echo 0 > options/hex'
cap fn_stack 'echo > trace; echo 1 > options/func_stack_trace; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -30; echo 0 > options/func_stack_trace; echo 1 > tracing_on'
cap fn_pipe 'echo > trace; (sleep 0.2; cat /etc/hostname >/dev/null; sleep 0.2; cat /etc/hostname > /dev/null) & timeout 1 cat trace_pipe; wait; cat trace | head -14'
reset_all
cap fn_pid 'echo $$ > set_ftrace_pid; echo "vfs_*" > set_ftrace_filter; echo function > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -20 | sed "s/-$$ /-PID /"'
reset_all
cap fn_traceoff_cmd 'echo vfs_read > set_ftrace_filter; echo "vfs_write:traceoff" >> set_ftrace_filter; echo function > current_tracer; cat /etc/hostname; cat tracing_on; cat trace | tail -3; cat set_ftrace_filter; echo 1 > tracing_on'
reset_all
cap fn_stacktrace_cmd 'echo "vfs_read:stacktrace" > set_ftrace_filter; echo vfs_read >> set_ftrace_filter; echo function > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -40; cat set_ftrace_filter'
reset_all
