#!/bin/sh
# Records the reference for perf report's call graphs (test/machine/perf_callchain.test.ts) with the
# host's real perf (Debian 12's linux-perf 6.1; run as root): kernel-mode samples of a directory
# walk with kernel callchains, then
#   callchain.script      perf script's samples (comm, tid, period, each frame's ip, symbol+offset)
#   callchain.children    perf report --stdio            (children, caller graphs: the default)
#   callchain.nochildren  perf report --stdio --no-children   (self, callee graphs)
# The test rebuilds both reports from the samples and compares them byte for byte.
# Usage: sh scripts/perf/record-host-callchains.sh [OUTDIR]   (default test/fixtures/perf-host)
set -e
out=${1:-test/fixtures/perf-host}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -e cpu-clock:k -g --kernel-callchains -F 500 -o "$tmp/perf.data" -- ls -lR /usr/share/doc /usr/include > /dev/null 2> "$tmp/err"
perf --version > "$out/callchain.version"
perf script -i "$tmp/perf.data" -F comm,tid,period,ip,sym,symoff,dso > "$out/callchain.script"
# the tip line at the end is chosen at random by perf: the report is kept without it
perf report -i "$tmp/perf.data" --stdio 2>/dev/null | sed '$d' | sed '$d' | sed '$d' > "$out/callchain.children"
perf report -i "$tmp/perf.data" --stdio --no-children 2>/dev/null | sed '$d' | sed '$d' | sed '$d' > "$out/callchain.nochildren"
