#!/bin/sh
# Issue 15: `dd conv=fdatasync` rewriting an existing ext4 file, as the block layer sees it on the real
# guest (data/recordings/guest/sync-block.txt, "TRACE fdatasync", scripts/record/guest/sync-block.sh;
# timestamps and pids left out, checked line by line against it): the data as one "WS ... + 128 [dd]"
# request, then a jbd2 commit, because the O_TRUNC freed the file's blocks and writeback allocated them
# again (ext4_sync_file with datasync commits only for such metadata): 5 bios (the descriptor and 4
# metadata blocks: a rewrite logs 4, a new file 6) merged into "WSM 20480 ... + 40", the commit block
# "FWFSM" with the flush machinery's "FF", "WSM 4096", "FF" and the request's end "+ 0".
# The journal's sectors differ from the guest's (it had committed more transactions before); on the
# guest the flush steps are issued by kworker/0:1H, here by the task or interrupt that ends the previous step.
cd /sys/kernel/tracing
for e in block_bio_queue block_rq_insert block_rq_issue block_rq_complete; do echo 1 > events/block/$e/enable; done
dd if=/dev/zero of=/root/h bs=4k count=16 conv=fsync 2>/dev/null
echo > trace; echo 1 > tracing_on
dd if=/dev/zero of=/root/h bs=4k count=16 conv=fdatasync 2>/dev/null
echo 0 > tracing_on
echo == fdatasync
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
