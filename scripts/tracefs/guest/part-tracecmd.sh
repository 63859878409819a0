# trace-cmd 3.1
cap tc_version 'trace-cmd --version 2>&1 | head -3; trace-cmd 2>&1 | head -60'
cap tc_list 'trace-cmd list -t; trace-cmd list -e | head -5; trace-cmd list -e sched_switch; trace-cmd list -o | head -5; trace-cmd list -f | head -3; trace-cmd list -e "sched:sched_sw*"'
cap tc_record_fn 'cd /tmp && trace-cmd record -p function -l vfs_read -o /tmp/fn.dat cat /etc/hostname; echo rc=$?; trace-cmd report -i /tmp/fn.dat | head -20; ls -l /tmp/fn.dat | cut -d" " -f5'
capf tc_fn_dat /tmp/fn.dat
cap tc_record_ev 'cd /tmp && trace-cmd record -e sched:sched_switch -e sched_process_exec -o /tmp/ev.dat sleep 0.1; echo rc=$?; trace-cmd report -i /tmp/ev.dat | head -20; trace-cmd report --cpu 0 -i /tmp/ev.dat | head -3'
capf tc_ev_dat /tmp/ev.dat
cap tc_record_graph 'cd /tmp && trace-cmd record -p function_graph -g vfs_read -l vfs_read -l rw_verify_area -l ksys_read -l security_file_permission -l __fsnotify_parent -l touch_atime -l ext4_file_read_iter -l filemap_read -o /tmp/gr.dat cat /etc/hostname; echo rc=$?; trace-cmd report -i /tmp/gr.dat | head -40'
capf tc_gr_dat /tmp/gr.dat
cap tc_record_F 'cd /tmp && echo "r:mwait_probe vfs_read \$retval" >> /sys/kernel/tracing/kprobe_events; trace-cmd record -p function_graph -o /tmp/gf.dat -g vfs_read -l vfs_read -l rw_verify_area -l ksys_read -l security_file_permission -l ext4_file_read_iter -e mwait_probe -F cat /etc/hostname; echo rc=$?; trace-cmd report -i /tmp/gf.dat | head -40; echo > /sys/kernel/tracing/kprobe_events'
cap tc_record_P 'cd /tmp && sleep 1 & trace-cmd record -p function -l "do_nanosleep" -P $! -o /tmp/p.dat sleep 0.3; echo rc=$?; trace-cmd report -i /tmp/p.dat | head -8'
cap tc_stat_show 'trace-cmd start -p function -l vfs_read; trace-cmd stat; trace-cmd show | head -15; cat /etc/hostname > /dev/null; trace-cmd stop; trace-cmd extract -o /tmp/ex.dat; echo rc=$?; trace-cmd report -i /tmp/ex.dat | head -8; trace-cmd reset; trace-cmd stat; cat /sys/kernel/tracing/current_tracer; cat /sys/kernel/tracing/buffer_size_kb'
cap tc_report_opts 'trace-cmd report -i /tmp/ev.dat --stat 2>&1 | head -30; trace-cmd report -i /tmp/ev.dat -l | head -5; trace-cmd report -i /tmp/ev.dat -t | head -5; trace-cmd report -i /tmp/ev.dat --events | head -30; trace-cmd report -i /tmp/ev.dat -F sched_switch | head -3'
cap tc_errors 'trace-cmd record -p nosuch true; echo rc=$?; trace-cmd report -i /nonexist; echo rc=$?; trace-cmd record -e nosuch:ev true; echo rc=$?; trace-cmd frob; echo rc=$?'
