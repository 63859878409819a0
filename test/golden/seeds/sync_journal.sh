#!/bin/sh
# Issue 15: what the block layer sees for `dd ...; sync`, `dd conv=fsync` and an idle `sync` on ext4,
# as on the real guest (data/recordings/guest/sync-block.txt, scripts/record/guest/sync-block.sh;
# the expected lines were checked against it, timestamps/pids left out):
# - sync: the flusher writes the data ("W ... [kworker/uN:1]"), then jbd2/sda1-8 commits the
#   transaction: 7 bios of one descriptor + 6 metadata blocks at the journal head (fs block
#   196608 + 19: sector 1575064 of sda) merged into one "WSM 28672 ... + 56" request, then the
#   commit block as an "FWFSM" bio: the flush machinery's pre-flush "FF" (sector -1 at completion),
#   the block as "WSM 4096", the post-flush "FF" (the disk has no FUA) and the request's end "+ 0";
#   then sync writes the 6 committed metadata blocks in place (sectors 2056 ... 71632, "WSM 4096";
#   the second new file's inode block is the next one, 12504, as in the guest's run "sync2");
# - fsync: the data as "WS [dd]", then the same commit, 8 journal blocks further on;
# - sync with nothing to commit: ext4_sync_fs's cache flush "FWS 0 + 0 [sync]" (an empty bio is not
#   remapped) and "FF", then sync_bdevs' checkpoint of the fsync's blocks (fs/sync.c ksys_sync: the
#   sync_fs pass before sync_bdevs; the guest's "syncidle" had nothing to checkpoint).
# Left as differences: on the guest the flush steps are issued by kworker/0:1H (the flush
# machinery's requeue work), here by the task or interrupt that ends the previous step; the
# guest's "sync again" case was recorded on its own (runs "fsync" then "syncidle").
cd /sys/kernel/tracing
for e in block_bio_queue block_rq_insert block_rq_issue block_rq_complete; do echo 1 > events/block/$e/enable; done
dd if=/dev/zero of=/root/f bs=4k count=16 2>/dev/null; sync
echo 0 > tracing_on
echo == sync
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
echo > trace; echo 1 > tracing_on
dd if=/dev/zero of=/root/h bs=4k count=16 conv=fsync 2>/dev/null
echo 0 > tracing_on
echo == fsync
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
echo > trace; echo 1 > tracing_on
sync
echo 0 > tracing_on
echo == sync again
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
