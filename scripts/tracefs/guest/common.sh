#!/bin/sh
# The common part of the guest scripts: record.sh appends one part (guest/part-*.sh) and runs the
# result INSIDE the real Debian 12 guest (Linux 6.1.0-56-amd64) as root through
# /work/shared/tools/qemu-debian-guest. Prints every capture as
#   @@ NAME rc=N
#   <base64 of the command's stdout+stderr, 76 columns>
#   @@ end
# so the bytes (tabs, missing final newlines) survive the serial console; record.sh splits them
# into test/fixtures/tracefs-real/NAME. NAME says what was run; the command is in this file.
T=/sys/kernel/tracing
cd $T || exit 1
cap() { # cap NAME CMD...  (CMD run by sh -c in $T)
  name=$1; shift
  out=$(sh -c "$*" 2>&1; echo "@rc=$?")
  rc=${out##*@rc=}
  printf '%s' "${out%@rc=*}" > /tmp/cap.out
  echo "@@ $name rc=$rc"
  base64 -w 76 /tmp/cap.out
  echo "@@ end"
}
capf() { # capf NAME FILE: the file's bytes (binary safe)
  echo "@@ $1 rc=0"; base64 -w 76 "$2"; echo "@@ end"
}
# Tracing every kernel function under QEMU's emulation (no KVM) slows the guest a hundredfold:
# the function and function_graph tracers, the profiler and the stack tracer run on this set.
FILT="vfs_read vfs_write ksys_read ksys_write __x64_sys_read __x64_sys_write __x64_sys_openat do_sys_openat2 do_syscall_64 rw_verify_area __fdget_pos fput security_file_permission new_sync_read ext4_file_read_iter ext4_file_write_iter filemap_read touch_atime __cond_resched schedule __schedule hrtimer_interrupt __sysvec_apic_timer_interrupt irq_enter_rcu irq_exit_rcu tick_sched_timer update_process_times scheduler_tick do_nanosleep"
export FILT T
reset_all() {
  echo 0 > $T/tracing_on; echo nop > $T/current_tracer; echo > $T/set_ftrace_filter; echo > $T/set_ftrace_notrace
  echo > $T/set_graph_function; echo > $T/set_ftrace_pid; echo > $T/set_event; echo 0 > $T/events/enable
  echo 0 > $T/function_profile_enabled; echo 0 > $T/max_graph_depth; echo 0 > $T/tracing_thresh
  echo > $T/kprobe_events 2>/dev/null; echo > $T/trace; echo 1 > $T/tracing_on
}
mkdir -p /debug
mount -t debugfs nodev /sys/kernel/debug

