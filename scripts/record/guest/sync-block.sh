#!/bin/sh
# What the block layer sees for `dd ...; sync`, `dd ... conv=fsync` and `dd ... conv=fdatasync` on the
# real Debian 12 kernel (linux-image-6.1.0-56-amd64, ext4 on /dev/sda1 at sector 2048): a guest script
# for ../shared/tools/qemu-debian-guest. tracefs block tracepoints (bio_queue, rq_insert, rq_issue,
# rq_complete) with task, dev, sector, size and rwbs, plus the journal's place (dumpe2fs).
# Run:  WORK=/tmp/qemu-NAME qemu-debian-guest scripts/record/guest/sync-block.sh | sed "/GUEST BEGIN/d;/GUEST END/d" > data/recordings/guest/sync-block.txt
# The output is the data test/golden/sync-block*.stp's expected values are checked against.
T=/sys/kernel/tracing
echo "== LAYOUT"
dumpe2fs -h /dev/sda1 2>/dev/null | grep -E 'Journal (inode|size|length|start|sequence)|Block size|Inode size|First block|Blocks per group|Inodes per group'
debugfs -R 'stat <8>' /dev/sda1 2>/dev/null | grep -A3 -E '^(EXTENTS|BLOCKS)'
reset() { echo 0 > $T/tracing_on; echo 0 > $T/events/enable; echo > $T/trace; }
run() {
  NAME=$1; shift
  sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
  reset
  for e in block_bio_queue block_rq_insert block_rq_issue block_rq_complete block_dirty_buffer block_touch_buffer; do echo 1 > $T/events/block/$e/enable; done
  echo 1 > $T/events/jbd2/enable
  echo 1 > $T/tracing_on
  sh -c "$*"
  sleep 1
  echo 0 > $T/tracing_on
  echo "== TRACE $NAME: $*"
  grep -v '^#' $T/trace | grep -v -E 'block_(dirty|touch)_buffer'
  echo "== JBD2-DIRTY $NAME"; grep -c -E 'block_dirty_buffer' $T/trace
}
echo 65536 > $T/buffer_size_kb
run sync 'dd if=/dev/zero of=/root/f bs=4k count=16 2>/dev/null; sync'
run sync2 'dd if=/dev/zero of=/root/g bs=4k count=16 2>/dev/null; sync'
run fsync 'dd if=/dev/zero of=/root/h bs=4k count=16 conv=fsync 2>/dev/null'
run fdatasync 'dd if=/dev/zero of=/root/h bs=4k count=16 conv=fdatasync 2>/dev/null'
run syncidle 'sync'
