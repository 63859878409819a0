#!/bin/sh
# A kernel "build tree" that lets Debian's real stap (../shared/tools/real-stap, passes 1-2) resolve
# probes against the same kernel data/kernel/ models: the -dbg vmlinux with its DWARF, System.map,
# the real .config, and the -dbg .ko of the modules the guest loads (module("M").function, -L locals,
# @var of globals, DWARF types all answered as on the real box).
# Usage: scripts/kernel-data/stap-oracle-tree.sh [WORKDIR [TREE]]   (WORKDIR: fetch.sh's, unpacked)
#        REAL_STAP_TREE=TREE ../shared/tools/real-stap -L 'module("ext4").function("ext4_file_read_iter")'
set -eu
WORK=${1:-/tmp/kernel-data-work}
TREE=${2:-/tmp/stap-oracle-tree}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$HERE/../.." && pwd)/data/kernel
REL=6.1.0-56-amd64
mkdir -p "$TREE/include/generated" "$TREE/include/config"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n' > "$TREE/Makefile"
: > "$TREE/Module.symvers"
cp "$WORK/config" "$TREE/.config"
echo "#define UTS_RELEASE \"$REL\"" > "$TREE/include/generated/utsrelease.h"
echo "$REL" > "$TREE/include/config/kernel.release"
ln -sf "$(readlink -f "$WORK/vmlinux")" "$TREE/vmlinux"
ln -sf "$(readlink -f "$WORK/System.map")" "$TREE/System.map"
D=$(readlink -f "$WORK/dbgmod")/usr/lib/debug/lib/modules/$REL/kernel
for m in $(python3 -c "import gzip,json;print(' '.join(l.split()[0] for l in json.load(gzip.open('$OUT/../recordings/system.json.gz'))['modules'].splitlines() if l.strip()))"); do
  f=$(cd "$D" && find . -name "$(echo "$m" | sed 's/_/[-_]/g').ko" | head -1)
  [ -n "$f" ] || { echo "no -dbg module for $m" >&2; continue; }
  mkdir -p "$TREE/$(dirname "$f")" && ln -sf "$D/$f" "$TREE/$f"
done
echo "$TREE"
