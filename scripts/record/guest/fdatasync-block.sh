#!/bin/sh
# fdatasync(2) on ext4 as the real Debian 12 kernel runs it, for the cases data/recordings/guest/sync-block.txt
# lacks: `dd conv=notrunc,fdatasync` over a file's allocated blocks (no metadata changed: no journal commit,
# ext4_sync_file flushes the disk cache itself) and `dd seek=16 conv=notrunc,fdatasync` extending it (a commit
# of the allocation). A guest script for ../shared/tools/qemu-debian-guest; block tracepoints and jbd2 events.
# Run:  WORK=/tmp/qemu-NAME qemu-debian-guest scripts/record/guest/fdatasync-block.sh | sed "/GUEST BEGIN/d;/GUEST END/d" > data/recordings/guest/fdatasync-block.txt
# The golden test/golden/seeds/fdatasync_journal's expected values are checked against its output.
T=/sys/kernel/tracing
reset() { echo 0 > $T/tracing_on; echo 0 > $T/events/enable; echo > $T/trace; }
run() {
  NAME=$1; shift
  sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
  reset
  for e in block_bio_queue block_rq_insert block_rq_issue block_rq_complete; do echo 1 > $T/events/block/$e/enable; done
  echo 1 > $T/events/jbd2/enable
  echo 1 > $T/tracing_on
  sh -c "$*"
  sleep 1
  echo 0 > $T/tracing_on
  echo "== TRACE $NAME: $*"
  grep -v '^#' $T/trace
}
echo 65536 > $T/buffer_size_kb
dd if=/dev/zero of=/root/h bs=4k count=16 conv=fsync 2>/dev/null
run fdatasync-overwrite 'dd if=/dev/zero of=/root/h bs=4k count=16 conv=notrunc,fdatasync 2>/dev/null'
run fdatasync-extend 'dd if=/dev/zero of=/root/h bs=4k count=16 seek=16 conv=notrunc,fdatasync 2>/dev/null'
