#!/bin/sh
# Issue 15: fdatasync(2) (dd conv=fdatasync) on ext4, as the block layer sees it on the real guest
# (timestamps and pids left out, checked line by line against the recordings).
# 1. Rewriting an existing file (data/recordings/guest/sync-block.txt, "TRACE fdatasync",
#    scripts/record/guest/sync-block.sh): the data as one "WS ... + 128 [dd]" request, then a jbd2
#    commit, because the O_TRUNC freed the file's blocks and writeback allocated them again
#    (ext4_sync_file with datasync commits only for such metadata): 5 bios (the descriptor and 4
#    metadata blocks: a rewrite logs 4, a new file 6) merged into "WSM 20480 ... + 40", the commit
#    block "FWFSM" with the flush machinery's "FF", "WSM 4096", "FF" and the request's end "+ 0".
# 2. conv=notrunc over the allocated blocks (data/recordings/guest/fdatasync-block.txt,
#    "fdatasync-overwrite", scripts/record/guest/fdatasync-block.sh): the data, no commit, the disk
#    cache flush "FWS 0 + 0 [dd]" with its "FF" and the empty request's end "WS () 0 + 0".
# 3. seek=16 conv=notrunc, extending the file ("fdatasync-extend"): the data 128 sectors further on,
#    a commit of 4 bios (descriptor + 3 metadata blocks) merged into "WSM 16384 ... + 32".
# The journal's sectors differ from the guest's (it had committed other transactions before); on the
# guest the flush steps are issued by kworker/0:1H, here by the task or interrupt that ends the previous step.
cd /sys/kernel/tracing
for e in block_bio_queue block_rq_insert block_rq_issue block_rq_complete; do echo 1 > events/block/$e/enable; done
dd if=/dev/zero of=/root/h bs=4k count=16 conv=fsync 2>/dev/null
echo > trace; echo 1 > tracing_on
dd if=/dev/zero of=/root/h bs=4k count=16 conv=fdatasync 2>/dev/null
echo 0 > tracing_on
echo == fdatasync
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
echo > trace; echo 1 > tracing_on
dd if=/dev/zero of=/root/h bs=4k count=16 conv=notrunc,fdatasync 2>/dev/null
echo 0 > tracing_on
echo == fdatasync overwrite
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
echo > trace; echo 1 > tracing_on
dd if=/dev/zero of=/root/h bs=4k count=16 seek=16 conv=notrunc,fdatasync 2>/dev/null
echo 0 > tracing_on
echo == fdatasync extend
grep -v '^#' trace | grep -v ' R[AM]* ' | sed 's/.*: block_/block_/'
