#!/usr/bin/env bash
# The expected `trace-cmd report` output of the trace.dat files real trace-cmd 3.1 wrote in the
# recording guest (test/fixtures/tracefs-real/tc_*.dat, see guest/part-tracedat.sh): runs the
# host's trace-cmd (Debian 12's trace-cmd 3.1.6, `apt-get install trace-cmd`; reading a file
# needs no tracefs) with the options test/machine/trace_dat.test.ts compares, into
# tc_NAME.report[OPT]. Only a developer runs this; npm test reads the committed files.
set -euo pipefail
dir=$(cd "$(dirname "$0")/../../test/fixtures/tracefs-real" && pwd)
command -v trace-cmd >/dev/null || { echo "needs trace-cmd 3.1 (apt-get install trace-cmd)" >&2; exit 2; }
for f in tc_v6 tc_v7none tc_v7zstd; do
  trace-cmd report -i "$dir/$f.dat" > "$dir/$f.report"
  trace-cmd report -t -i "$dir/$f.dat" > "$dir/$f.report-t"
  trace-cmd report -l -i "$dir/$f.dat" > "$dir/$f.report-l"
  trace-cmd report --cpu 1 -i "$dir/$f.dat" > "$dir/$f.report-cpu1"
  trace-cmd report -F sched_switch -i "$dir/$f.dat" > "$dir/$f.report-F"
done
# and a file the simulated machine's trace-cmd wrote (needs `npm run build`): real trace-cmd reads it
root=$(cd "$dir/../../.." && pwd)
node "$root/dist/src/cli/tapsim_main.js" shell -c 'cd /root; trace-cmd record -p function_graph -g vfs_read -e sched:sched_switch -o /root/x.dat cat /etc/hostname > /dev/null; xxd /root/x.dat' 2>/dev/null \
  | grep -v '^CPU\|bytes in\|plugin' | xxd -r > "$dir/sim_graph.dat"
trace-cmd report -i "$dir/sim_graph.dat" > "$dir/sim_graph.report"
