#!/bin/sh
# Issue 14: the block events of O_DIRECT reads and writes of a file on sda1, as the real guest's
# `dd-direct-read` / `dd-direct-write` recordings show them for each 64 KiB bio (their events runs,
# data/recordings/dd-direct-*.json.gz, timestamps/pids left out):
#   block_bio_remap: 8,0 R 3201024 + 128 <- (8,1) 3198976   (submit_bio_noacct's blk_partition_remap:
#                                                              the disk's sector, the partition's 2048 less)
#   block_bio_queue: 8,0 R 3201024 + 128 [dd]
#   block_getrq: 8,0 R 3201024 + 128 [dd]
#   block_plug: [dd]                                          (blk_add_rq_to_plug: the plug was empty)
#   block_unplug: [dd] 1                                      (blk_finish_plug's flush of one request)
#   block_rq_insert: 8,0 R 65536 () 3201024 + 128 [dd]
#   block_rq_issue: 8,0 R 65536 () 3201024 + 128 [dd]
# (the sectors are where this machine's ext4 put the file); the writes: "WS", as the recording's.
dd if=/dev/urandom of=/root/ddfile bs=64k count=4 2>/dev/null; sync
cd /sys/kernel/tracing
for e in block_bio_remap block_bio_queue block_getrq block_plug block_unplug block_rq_insert block_rq_issue; do echo 1 > events/block/$e/enable; done
dd if=/root/ddfile of=/dev/null bs=64k count=2 iflag=direct 2>/dev/null
dd if=/dev/zero of=/root/ddfile bs=64k count=1 oflag=direct conv=notrunc 2>/dev/null
echo 0 > tracing_on
grep -v '^#' trace | sed 's/.*: block_/block_/'
