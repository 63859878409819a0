#!/usr/bin/env bash
# Copy the recording guest's /etc, byte for byte, out of its disk (the ext4 image record.sh boots:
# $REC_WORK/disk.img, the file system `tar cf /root/etc.tar /etc` read in data/recordings/tar.json.gz)
# into OUT/etc with debugfs (read-only: no guest may be running on that REC_WORK). Then
#   node dist/scripts/userland/etc_tree.js OUT
# checks each file against the tar recording (size, the bytes strace showed) and writes
# data/userland/etc.json and data/userland/etc-files.json.gz.
# Usage: REC_WORK=/tmp/tapsim-record bash scripts/record/pull_etc.sh OUT
set -euo pipefail
WORK=${REC_WORK:-/tmp/tapsim-record}
out=${1:?usage: pull_etc.sh OUT}
[ -f "$WORK/disk.img" ] || { echo "pull_etc: no $WORK/disk.img (run npm run record first)" >&2; exit 1; }
command -v debugfs >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs >/dev/null; }
rm -rf "$out/etc" && mkdir -p "$out"
debugfs -R "rdump /etc $out" "$WORK/disk.img?offset=1048576" >/dev/null 2>&1
[ -d "$out/etc" ] || { echo "pull_etc: debugfs found no /etc in $WORK/disk.img" >&2; exit 1; }
echo "pull_etc: $(find "$out/etc" | wc -l) entries in $out/etc"
