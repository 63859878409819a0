#!/bin/sh
# Runs inside the Debian 12 guest as root (started by systemd's recorder.service once the services are
# up): records every workload of CATALOGUE into OUT, then powers the guest off. See ../README.md.
# Usage: recorder.sh CATALOGUE OUT [IDLE_SECONDS [RING_BUFFER_KB_PER_CPU]] (run with a clean environment).
# CATALOGUE lines: NAME<TAB>FLAGS<TAB>SETUP<TAB>COMMAND ('-' for an empty field; FLAGS: comma list,
# 'nograph' skips the function_graph run, 'nostrace' the strace run).
# Per workload, three runs of COMMAND (after SETUP, untraced, each time):
#   graph/   function_graph following the launcher and its descendants (set_ftrace_pid, function-fork;
#            system-wide for 'background' workloads), funcgraph-proc/-abstime/-tail/-irqs, with only the
#            sched_process_fork/exec/exit events (to know the workload's task tree); no other events,
#            so the counted functions are not inflated by tracepoint machinery (__traceiter_*, ...)
#   events/  every tracepoint event (events/enable) system-wide with its fields, /proc/vmstat
#            before/after (Debian's kernel has no CONFIG_FUNCTION_PROFILER: no trace_stat/function*;
#            exact per-function counts come from the graph run)
#   strace/  strace -f -tt -v -s 256 -X raw; exit_group is delayed 1 s so a poller copies
#            /proc/<pid>/maps and cmdline of every process of the workload just before it exits
CAT=$1; OUT=$2; IDLE_S=${3:-5}; BUF_KB=${4:-40960}
T=/sys/kernel/tracing
mkdir -p "$OUT"
log() { echo "== rec $(date +%T) $*" > /dev/ttyS0; }
logrun() { echo "== rec $(date +%T)   $NAME: $1 run done" > /dev/ttyS0; }
now() { date +%s.%N; }

tr_reset() {
  echo 0 > $T/tracing_on
  echo nop > $T/current_tracer
  echo 0 > $T/events/enable
  echo > $T/set_ftrace_pid; echo > $T/set_event_pid; echo > $T/set_ftrace_filter
  echo 0 > $T/options/overwrite
  echo 0 > $T/options/function-fork; echo 0 > $T/options/event-fork; PIDFILTER=
  echo > $T/trace
}

# the descendants of a process, from /proc/PID/task/*/children (cheap under TCG, unlike ps)
descendants() {
  for c in $(cat /proc/$1/task/*/children 2>/dev/null); do echo $c; descendants $c; done
}

# the workload runs with stdin /dev/null, stdout/stderr the serial console (a tty, as a user at a
# terminal), cwd /root; a command with shell syntax runs as `sh -c CMD`, otherwise it is exec'd
# directly (as stap -c and tapsim's spawnCommand do)
has_shell_syntax() { case "$1" in *[\;\&\|\<\>\(\)\$\`\\\"\'\*\?\[\]\{\}~=]*) return 0;; esac; return 1; }

# launch: fork a child that waits on a fifo, then execs the workload; tracing is switched on between
launch() {
  rm -f /tmp/rec-go; mkfifo /tmp/rec-go
  cd /root
  if has_shell_syntax "$CMD"; then
    sh -c 'read x < /tmp/rec-go; exec "$@"' rec sh -c "$CMD" < /dev/null > /dev/ttyS0 2>&1 &
  else
    set -f; sh -c 'read x < /tmp/rec-go; exec "$@"' rec $CMD < /dev/null > /dev/ttyS0 2>&1 & set +f
  fi
  PID=$!
  cd /
  # tracing starts once the launcher waits in the fifo's open (its own exec of sh is over): the
  # first execve the traces show is the workload's
  n=0; until grep -q fifo_open /proc/$PID/wchan 2>/dev/null || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done
  # the graph run follows the launcher and its descendants only (function-fork, event-fork): far less
  # to trace and read back under TCG than the whole system
  [ -n "$PIDFILTER" ] && { echo $PID > $T/set_ftrace_pid; echo $PID > $T/set_event_pid; }
  echo 1 > $T/tracing_on
  T0=$(now)
  echo go > /tmp/rec-go
  wait $PID; STATUS=$?
  T1=$(now)
  echo 0 > $T/tracing_on
}

save_stats() {  # $1 dir: per-CPU ring buffer statistics (overruns, dropped events)
  for c in $T/per_cpu/cpu*; do echo "== $(basename $c)"; cat $c/stats; done > "$1/buffer_stats"
}

meta() {  # $1 dir
  printf 'name\t%s\ncommand\t%s\nsetup\t%s\nflags\t%s\npid\t%s\nstatus\t%s\nt0\t%s\nt1\t%s\n' \
    "$NAME" "$CMD" "$SETUP" "$FLAGS" "$PID" "$STATUS" "$T0" "$T1" > "$1/meta"
}

run_setup() { cleanup; [ -n "$SETUP" ] && (cd /root && sh -c "$SETUP") < /dev/null > /dev/null 2>&1; sync; sleep 0.5; }
# what a setup may leave behind (the swap workload's memory filler) is undone before the next run
cleanup() { umount /mnt/fill 2>/dev/null; true; }

run_graph() {
  d=$OUT/$NAME/graph; mkdir -p "$d"
  run_setup; tr_reset
  echo $BUF_KB > $T/buffer_size_kb
  echo function_graph > $T/current_tracer
  for o in funcgraph-proc funcgraph-abstime funcgraph-tail funcgraph-irqs funcgraph-cpu funcgraph-duration; do echo 1 > $T/options/$o; done
  for e in sched_process_fork sched_process_exec sched_process_exit; do echo 1 > $T/events/sched/$e/enable; done
  case ",$FLAGS," in *,background,*) PIDFILTER=;; *) PIDFILTER=1; echo 1 > $T/options/function-fork; echo 1 > $T/options/event-fork;; esac
  launch
  save_stats "$d"; meta "$d"
  cat $T/trace | gzip -1 > "$d/trace.gz"
  tr_reset; logrun graph
}

run_events() {
  d=$OUT/$NAME/events; mkdir -p "$d"
  run_setup; tr_reset
  echo $BUF_KB > $T/buffer_size_kb
  echo 1 > $T/events/enable
  cat /proc/vmstat > "$d/vmstat.before"
  launch
  cat /proc/vmstat > "$d/vmstat.after"
  echo 0 > $T/events/enable
  save_stats "$d"; meta "$d"
  cat $T/trace | gzip -1 > "$d/trace.gz"
  tr_reset; logrun events
}

run_strace() {
  d=$OUT/$NAME/strace; mkdir -p "$d/maps"
  run_setup
  cd /root
  if has_shell_syntax "$CMD"; then set -- sh -c "$CMD"; else set -f; set -- $CMD; set +f; fi
  T0=$(now)
  strace -f -tt -v -s 256 -X raw -e inject=exit_group:delay_enter=1000000 -o "$d/strace.txt" "$@" < /dev/null > /dev/ttyS0 2>&1 &
  PID=$!
  cd /
  while kill -0 $PID 2>/dev/null; do
    for p in $(descendants $PID); do
      cat /proc/$p/maps > "$d/maps/$p.tmp" 2>/dev/null && [ -s "$d/maps/$p.tmp" ] && mv "$d/maps/$p.tmp" "$d/maps/$p"
      tr '\0' ' ' < /proc/$p/cmdline > "$d/maps/$p.cmdline.tmp" 2>/dev/null && [ -s "$d/maps/$p.cmdline.tmp" ] && mv "$d/maps/$p.cmdline.tmp" "$d/maps/$p.cmdline"
    done
    sleep 0.2
  done
  wait $PID; STATUS=$?
  T1=$(now)
  rm -f "$d"/maps/*.tmp
  meta "$d"; logrun strace
}

snapshot_system() {
  d=$OUT/system; mkdir -p "$d/maps"
  uname -a > "$d/uname"; dmesg > "$d/dmesg"; cat /sys/devices/system/clocksource/clocksource0/current_clocksource > "$d/clocksource"; cat /proc/cmdline > "$d/cmdline"; cat /proc/version > "$d/version"
  cat /proc/kallsyms > "$d/kallsyms"; cat /proc/modules > "$d/modules"
  cat /proc/mounts > "$d/mounts"; cat /proc/self/mountinfo > "$d/mountinfo"; cat /proc/partitions > "$d/partitions"
  cat /proc/swaps > "$d/swaps"; cat /proc/meminfo > "$d/meminfo"; cat /proc/cpuinfo > "$d/cpuinfo"
  cat /proc/interrupts > "$d/interrupts"; cat /proc/softirqs > "$d/softirqs"; cat /proc/stat > "$d/stat"; cat /proc/vmstat > "$d/vmstat"
  for i in /sys/class/net/*; do n=${i##*/}
    for a in ifindex type mtu flags address broadcast operstate carrier tx_queue_len addr_len; do printf '%s\t%s\t%s\n' "$n" "$a" "$(cat $i/$a 2>/dev/null)"; done
  done > "$d/net"
  ls -l /sys/class/net > "$d/net.ls"
  ls -la / > "$d/rootdir"
  ps -e -o pid=,ppid=,uid=,stat=,tty=,comm=,args= > "$d/ps"
  for p in $(ps -e -o pid=); do [ -s /proc/$p/maps ] && cat /proc/$p/maps > "$d/maps/$p" 2>/dev/null; done
  systemctl list-units --type=service --state=running --no-pager --plain > "$d/services" 2>&1
  ls /sys/module > "$d/sys_module"
}

# the idle system: system-wide event rates over IDLE_S seconds, per-IRQ and softirq counters
snapshot_idle() {
  d=$OUT/system/idle; mkdir -p "$d"
  tr_reset; echo $BUF_KB > $T/buffer_size_kb
  echo 1 > $T/events/enable
  cat /proc/interrupts > "$d/interrupts.before"; cat /proc/softirqs > "$d/softirqs.before"; cat /proc/stat > "$d/stat.before"
  echo 1 > $T/tracing_on; T0=$(now); sleep "$IDLE_S"; T1=$(now); echo 0 > $T/tracing_on
  cat /proc/interrupts > "$d/interrupts.after"; cat /proc/softirqs > "$d/softirqs.after"; cat /proc/stat > "$d/stat.after"
  printf 't0\t%s\nt1\t%s\n' "$T0" "$T1" > "$d/meta"; save_stats "$d"
  cat $T/trace | gzip -1 > "$d/trace.gz"
  tr_reset
}

log "recorder start: $(nproc) CPUs, $(uname -r)"
sleep 3
if [ ! -e /root/rec/nosystem ]; then snapshot_system; snapshot_idle; log "system snapshot done"; fi
tab=$(printf '\t')
while IFS="$tab" read -r NAME FLAGS SETUP CMD; do
  case "$NAME" in ''|\#*) continue;; esac
  [ "$FLAGS" = - ] && FLAGS=
  [ "$SETUP" = - ] && SETUP=
  log "workload $NAME: $CMD"
  t=$(now)
  case ",$FLAGS," in *,nograph,*) ;; *) run_graph;; esac
  run_events
  case ",$FLAGS," in *,nostrace,*) ;; *) run_strace;; esac
  cleanup
  echo "$(now) $t" | awk '{printf "%.1f\n", $1-$2}' > "$OUT/$NAME/seconds"
  log "workload $NAME done in $(cat "$OUT/$NAME/seconds") s"
done < "$CAT"
log "recorder end"
