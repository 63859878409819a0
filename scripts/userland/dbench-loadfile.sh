#!/bin/sh
# The simulated machine's /usr/share/dbench/client.txt (data/userland/dbench-client.txt.gz): the first
# lines (about 1 MB, cut at a line end) of Debian 12's dbench 4.0-2.1 load file, the NetBench trace
# dbench's clients replay (the whole file is 25 MB; a run reaches its end only after minutes, and dbench
# rewinds it there, as it does the whole file).  Needs the dbench package: apt-get install dbench.
set -e
src=/usr/share/dbench/client.txt
out="$(dirname "$0")/../../data/userland/dbench-client.txt.gz"
head -c 1000000 "$src" | sed '$d' | gzip -9n > "$out"
ls -l "$out"
