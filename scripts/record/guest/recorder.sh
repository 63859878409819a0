#!/bin/sh
# Runs inside the Debian 12 guest as root (started by systemd's recorder.service once the services are
# up): records every workload of CATALOGUE into OUT, then powers the guest off. See ../README.md.
# Usage: recorder.sh CATALOGUE OUT [IDLE_SECONDS [RING_BUFFER_KB_PER_CPU [RUN_TIMEOUT]]] (run with a clean
# environment).
# CATALOGUE lines: NAME<TAB>FLAGS<TAB>SETUP<TAB>COMMAND ('-' for an empty field; FLAGS: comma list,
# 'nograph' skips the function_graph run, 'nostrace' the strace run, 'background' traces every task,
# 'cold' skips the untraced warm-up run before each traced run (see run_setup),
# 'buf=KB' sets the ring buffer per CPU for this workload, 'memcg=SIZE' runs it in a memory cgroup
# limited to SIZE (memory.max: reclaim and swap-out inside the workload), 'timeout=S' kills a run after
# S guest seconds (default RUN_TIMEOUT, 300)).
# Per workload, three runs of COMMAND (after SETUP, untraced, each time). The runs go in three phases
# over the whole catalogue (every graph run, then every events run, then every strace run): switching
# the function_graph tracer on patches ~48,000 call sites and every tracepoint another ~1,500 jump
# labels, each batch synchronised across the CPUs, which costs minutes under TCG; once per boot is enough.
#   graph/   function_graph following the launcher and its descendants (set_ftrace_pid, function-fork;
#            system-wide for 'background' workloads), funcgraph-proc/-abstime/-tail/-irqs, with only the
#            sched_process_fork/exec/exit events (to know the workload's task tree); no other events,
#            so the counted functions are not inflated by tracepoint machinery (__traceiter_*, ...)
#   events/  every tracepoint event (events/enable) system-wide with its fields, /proc/vmstat
#            before/after (Debian's kernel has no CONFIG_FUNCTION_PROFILER: no trace_stat/function*;
#            exact per-function counts come from the graph run)
#   strace/  strace -f -tt -v -s 256 -X raw; exit_group is delayed 1 s so a poller copies
#            /proc/<pid>/maps and cmdline of every process of the workload just before it exits
CAT=$1; OUT=$2; IDLE_S=${3:-10}; BUF_KB=${4:-40960}; RUN_TIMEOUT=${5:-300}
T=/sys/kernel/tracing
mkdir -p "$OUT"
log() { echo "== rec $(date +%T) $*" > /dev/ttyS0; }
logrun() { echo "== rec $(date +%T)   $NAME: $1 run done" > /dev/ttyS0; }
now() { date +%s.%N; }
# guest seconds of a fixed amount of shell work: the same in every run of an unloaded host, larger when
# the host's other processes take CPU from QEMU's vCPU threads (TCG runs the guest at whatever speed
# the host gives it, while the guest's clock and timer ticks follow the host's wall clock: a loaded
# host makes a run longer and its tick and RCU events more numerous for the same work). Measured just
# before and after each traced run (meta calib0/calib1); the converter warns when a run was slowed
calib() { c0=$(now); i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done; echo "$(now) $c0" | awk '{printf "%.4f\n", $1-$2}'; }

tr_reset() {
  echo 0 > $T/tracing_on
  echo nop > $T/current_tracer
  echo 0 > $T/events/enable
  echo > $T/set_ftrace_pid; echo > $T/set_event_pid; echo > $T/set_ftrace_filter
  echo 0 > $T/options/overwrite
  echo 0 > $T/options/function-fork; echo 0 > $T/options/event-fork; PIDFILTER=
  echo > $T/trace
}

# between runs the tracers stay on with tracing_on 0, following only kthreadd (pid 2, asleep), so the
# setups and the trace read-out pay little for them (the buffer is kept: a run reads it out after parking)
tr_park() {
  echo 0 > $T/tracing_on
  echo 2 > $T/set_ftrace_pid; echo 2 > $T/set_event_pid
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
  in_memcg $PID
  # tracing starts once the launcher waits in the fifo's open (its own exec of sh is over): the
  # first execve the traces show is the workload's
  n=0; until grep -q fifo_open /proc/$PID/wchan 2>/dev/null || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done
  # the graph run follows the launcher and its descendants only (function-fork, event-fork): far less
  # to trace and read back under TCG than the whole system
  [ -n "$PIDFILTER" ] && { echo $PID > $T/set_ftrace_pid; echo $PID > $T/set_event_pid; }
  # (the recorder's own forks, the time-limit watcher and date, happen outside the traced window: a
  # 'background' workload traces every task)
  CALIB0=$(calib)
  watch_start $PID
  T0=$(now)
  echo 1 > $T/tracing_on
  echo go > /tmp/rec-go
  wait $PID; STATUS=$?
  echo 0 > $T/tracing_on
  T1=$(now)
  watch_stop
  CALIB1=$(calib)
}

flag() {  # the value of FLAGS entry $1=VALUE (empty when absent)
  echo ",$FLAGS," | tr ',' '\n' | sed -n "s/^$1=//p" | head -1
}

# memcg=SIZE: a memory cgroup limited to SIZE for the workload (cgroup v2; swap unlimited)
MEMCG=/sys/fs/cgroup/rec
in_memcg() {
  m=$(flag memcg); [ -n "$m" ] || return 0
  grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p $MEMCG; echo "$m" > $MEMCG/memory.max; echo max > $MEMCG/memory.swap.max
  [ -z "${1:-}" ] || echo "$1" > $MEMCG/cgroup.procs
}

# a run that outlives its time limit (a hung workload) is killed with its descendants
watch_start() {
  lim=$(flag timeout); lim=${lim:-$RUN_TIMEOUT}
  ( sleep "$lim"; echo "== rec $(date +%T)   $NAME: killed after $lim s" > /dev/ttyS0; kill -9 $(descendants $1) $1 2>/dev/null ) &
  WATCH=$!
}
watch_stop() {
  for c in $(cat /proc/$WATCH/task/*/children 2>/dev/null); do kill $c 2>/dev/null; done
  kill $WATCH 2>/dev/null; wait $WATCH 2>/dev/null; true
}

save_stats() {  # $1 dir: per-CPU ring buffer statistics (overruns, dropped events)
  for c in $T/per_cpu/cpu*; do echo "== $(basename $c)"; cat $c/stats; done > "$1/buffer_stats"
}

meta() {  # $1 dir
  printf 'name\t%s\ncommand\t%s\nsetup\t%s\nflags\t%s\npid\t%s\nstatus\t%s\nt0\t%s\nt1\t%s\ncalib0\t%s\ncalib1\t%s\n' \
    "$NAME" "$CMD" "$SETUP" "$FLAGS" "$PID" "$STATUS" "$T0" "$T1" "$CALIB0" "$CALIB1" > "$1/meta"
}

# Before each traced run: SETUP, then (unless the workload is flagged 'cold' or 'background') one untraced
# run of COMMAND and SETUP again, so the traced run finds its programs, libraries and files in the page
# cache as on a running system, whatever ran before it in this boot (a fresh boot, pagecache-miss's
# drop_caches): without it a graph run read its program from disk (ext4_readahead, submit_bio) while
# the events and strace runs of the same workload did not
run_setup() {
  cleanup; setup_only
  if ! has cold && ! has background; then
    # (in the traced run's form: `echo hello` runs /usr/bin/echo, not the shell's builtin)
    if has_shell_syntax "$CMD"; then (cd /root && timeout "$RUN_TIMEOUT" sh -c "$CMD") < /dev/null > /dev/null 2>&1
    else (set -f; cd /root && timeout "$RUN_TIMEOUT" $CMD) < /dev/null > /dev/null 2>&1; fi
    cleanup; setup_only
  fi
  sync; sleep 0.5
}
setup_only() { [ -n "$SETUP" ] && (cd /root && sh -c "$SETUP") < /dev/null > /dev/null 2>&1; true; }
# what a setup may leave behind (the swap workload's memory filler) is undone before the next run
cleanup() { umount /mnt/fill 2>/dev/null; true; }

buf_size() { b=$(flag buf); echo ${b:-$BUF_KB} > $T/buffer_size_kb; }

graph_begin() {
  tr_reset; tr_park
  echo function_graph > $T/current_tracer
  for o in funcgraph-proc funcgraph-abstime funcgraph-tail funcgraph-irqs funcgraph-cpu funcgraph-duration; do echo 1 > $T/options/$o; done
  for e in sched_process_fork sched_process_exec sched_process_exit; do echo 1 > $T/events/sched/$e/enable; done
}

run_graph() {
  d=$OUT/$NAME/graph; rm -rf "$d"; mkdir -p "$d"
  run_setup; tr_park; buf_size; echo > $T/trace
  case ",$FLAGS," in
    *,background,*) PIDFILTER=; echo 0 > $T/options/function-fork; echo 0 > $T/options/event-fork
                    echo > $T/set_ftrace_pid; echo > $T/set_event_pid;;
    *) PIDFILTER=1; echo 1 > $T/options/function-fork; echo 1 > $T/options/event-fork;;
  esac
  launch
  save_stats "$d"; meta "$d"
  tr_park
  cat $T/trace | gzip -1 > "$d/trace.gz"
  echo > $T/trace; sync; logrun graph
}

events_begin() { tr_reset; tr_park; echo 1 > $T/events/enable; }

run_events() {
  d=$OUT/$NAME/events; rm -rf "$d"; mkdir -p "$d"
  run_setup; tr_park; buf_size; echo > $T/trace
  PIDFILTER=; echo > $T/set_event_pid   # every task
  cat /proc/vmstat > "$d/vmstat.before"
  launch
  cat /proc/vmstat > "$d/vmstat.after"
  save_stats "$d"; meta "$d"
  tr_park
  cat $T/trace | gzip -1 > "$d/trace.gz"
  echo > $T/trace; sync; logrun events
}

run_strace() {
  d=$OUT/$NAME/strace; rm -rf "$d"; mkdir -p "$d/maps"
  run_setup
  cd /root
  if has_shell_syntax "$CMD"; then set -- sh -c "$CMD"; else set -f; set -- $CMD; set +f; fi
  CALIB0=$(calib)
  T0=$(now)
  # (in the memory cgroup before strace starts the workload)
  cg=/dev/null; [ -n "$(flag memcg)" ] && { in_memcg; cg=$MEMCG/cgroup.procs; }
  sh -c 'echo $$ > "$0"; exec "$@"' "$cg" strace -f -tt -v -s 256 -X raw -e inject=exit_group:delay_enter=1000000 -o "$d/strace.txt" "$@" < /dev/null > /dev/ttyS0 2>&1 &
  PID=$!
  watch_start $PID
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
  watch_stop
  CALIB1=$(calib)
  rm -f "$d"/maps/*.tmp
  meta "$d"; sync; logrun strace
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
  # (procfs files have size 0 in stat: `[ -s /proc/$p/maps ]` is never true; test the copy). The
  # services' address spaces and counters: smaps (each VMA's Rss, Anonymous), stat and status
  for p in $(ps -e -o pid=); do
    for f in maps smaps stat status; do
      cat /proc/$p/$f > "$d/maps/$p.$f.tmp" 2>/dev/null && [ -s "$d/maps/$p.$f.tmp" ] && mv "$d/maps/$p.$f.tmp" "$d/maps/$p.$f"
      rm -f "$d/maps/$p.$f.tmp"
    done
    [ -e "$d/maps/$p.maps" ] && mv "$d/maps/$p.maps" "$d/maps/$p"
  done
  systemctl list-units --type=service --state=running --no-pager --plain > "$d/services" 2>&1
  ls /sys/module > "$d/sys_module"
}

# the idle system: system-wide event rates over IDLE_S seconds, per-IRQ and softirq counters
snapshot_idle() {  # (in the events phase: every event enabled, tracing off)
  d=$OUT/system/idle; rm -rf "$d"; mkdir -p "$d"
  tr_park; echo $BUF_KB > $T/buffer_size_kb; echo > $T/trace; echo > $T/set_event_pid
  cat /proc/interrupts > "$d/interrupts.before"; cat /proc/softirqs > "$d/softirqs.before"; cat /proc/stat > "$d/stat.before"
  T0=$(now); echo 1 > $T/tracing_on; sleep "$IDLE_S"; echo 0 > $T/tracing_on; T1=$(now)
  cat /proc/interrupts > "$d/interrupts.after"; cat /proc/softirqs > "$d/softirqs.after"; cat /proc/stat > "$d/stat.after"
  printf 't0\t%s\nt1\t%s\n' "$T0" "$T1" > "$d/meta"; save_stats "$d"
  tr_park
  cat $T/trace | gzip -1 > "$d/trace.gz"
  echo > $T/trace
}

# each phase runs over the catalogue: NAME FLAGS SETUP CMD per line; $1 the function to call
each() {
  while IFS="$tab" read -r NAME FLAGS SETUP CMD; do
    case "$NAME" in ''|\#*) continue;; esac
    [ "$FLAGS" = - ] && FLAGS=
    [ "$SETUP" = - ] && SETUP=
    "$@" < /dev/null
  done < "$CAT"
}
# the workload's last run is done: it is complete (the host keeps it even if the guest is stopped later)
finish() {
  awk '{s += $1} END {printf "%.1f\n", s}' "$OUT/$NAME/.took" > "$OUT/$NAME/seconds"; rm -f "$OUT/$NAME/.took"
  sync; log "workload $NAME done: $(cat "$OUT/$NAME/seconds") s in the guest"
}
took() { echo "$(now) $1" | awk '{printf "%.1f\n", $1-$2}' >> "$OUT/$NAME/.took"; }
has() { case ",$FLAGS," in *,$1,*) return 0;; esac; return 1; }
fresh() { mkdir -p "$OUT/$NAME"; rm -f "$OUT/$NAME/.took" "$OUT/$NAME/seconds"; }
phase_graph() { has nograph && return 0; fresh; t=$(now); run_graph; took $t; }
phase_events() { has nograph && fresh; t=$(now); run_events; cleanup; took $t; has nostrace && finish; true; }
phase_strace() { has nostrace && return 0; t=$(now); run_strace; cleanup; took $t; finish; }

log "recorder start: $(nproc) CPUs, $(uname -r)"
sleep 3
if [ ! -e /root/rec/nosystem ]; then snapshot_system; sync; log "system snapshot done"; fi
tab=$(printf '\t')
log "graph runs (function_graph on: $(cut -f1 "$CAT" | grep -v '^#' | tr '\n' ' '))"
graph_begin; log "function_graph on"
each phase_graph
tr_reset; log "function_graph off; events runs"
events_begin; log "every event on"
[ -e /root/rec/nosystem ] || { snapshot_idle; sync; log "idle system rates done"; }
each phase_events
tr_reset; log "events off; strace runs"
each phase_strace
log "recorder end"
