# function_graph
cap graph_vfs_read 'echo $FILT > set_ftrace_filter; echo vfs_read > set_graph_function; echo function_graph > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -60'
cap graph_opts 'echo 1 > options/funcgraph-proc; echo 1 > options/funcgraph-abstime; cat trace | head -14; echo 0 > options/funcgraph-proc; echo 0 > options/funcgraph-abstime; echo 1 > options/latency-format; cat trace | head -24; echo 0 > options/latency-format; echo 0 > options/funcgraph-cpu; echo 0 > options/funcgraph-overhead; cat trace | head -10; echo 1 > options/funcgraph-cpu; echo 1 > options/funcgraph-overhead; echo 1 > options/funcgraph-tail; cat trace | head -30; echo 0 > options/funcgraph-tail; echo 0 > options/funcgraph-duration; cat trace | head -8; echo 1 > options/funcgraph-duration'
cap graph_pipe 'echo > trace; echo 1 > tracing_on; cat /etc/hostname > /dev/null; echo 0 > tracing_on; timeout 1 cat trace_pipe | head -20'
reset_all
cap graph_depth1 'echo $FILT > set_ftrace_filter; echo 1 > max_graph_depth; echo function_graph > current_tracer; sleep 0.1; echo 0 > tracing_on; cat trace | head -20'
reset_all
cap graph_thresh 'echo $FILT > set_ftrace_filter; echo 50 > tracing_thresh; echo function_graph > current_tracer; sleep 0.2; echo 0 > tracing_on; cat trace | head -20'
reset_all
cap graph_irqs 'echo $FILT > set_ftrace_filter; echo function_graph > current_tracer; sleep 0.2; echo 0 > tracing_on; grep -m5 -B2 -A3 "==========>" trace; grep -m3 -A2 -B1 "=>" trace | head -20'
reset_all
cap graph_filter_leaf 'echo vfs_read > set_ftrace_filter; echo function_graph > current_tracer; cat /etc/hostname > /dev/null; echo 0 > tracing_on; cat trace | head -12'
reset_all
cap graph_event_comment 'echo $FILT > set_ftrace_filter; echo sched:sched_switch > set_event; echo function_graph > current_tracer; echo schedule > set_graph_function; sleep 0.1; echo 0 > tracing_on; grep -m3 -B3 -A3 "sched_switch" trace'
reset_all
