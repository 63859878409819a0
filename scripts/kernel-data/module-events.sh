#!/bin/sh
# The trace events the loaded modules define (ext4, jbd2, libata, scsi: CONFIG_EXT4_FS=m, CONFIG_JBD2=m,
# CONFIG_ATA=m, CONFIG_SCSI=m on Debian's 6.1.0-56-amd64), as the booted guest's tracefs shows them: per event its `id` and `format` file, plus
# available_events, the events/ directory listing and every event's id, so order and ids can be checked. A guest script for
# ../shared/tools/qemu-debian-guest (the guest loads the modules as Debian does: ahci, sd_mod, ext4); run:
#   WORK=/tmp/qemu-NAME SMP=4 MEM=2048 qemu-debian-guest scripts/kernel-data/module-events.sh \
#     | tail -n +2 | head -n -1 | gzip -9n > data/kernel/module_events.snapshot.gz
# then `python3 scripts/kernel-data/module_events.py` turns it into data/kernel/module_events.json.gz.
T=/sys/kernel/tracing
echo "== available_events"; cat $T/available_events
echo "== ls events"; ls -1 $T/events
for s in ext4 jbd2 libata scsi; do
  for d in $T/events/$s/*/; do
    e=$(basename $d)
    echo "== event $s $e $(cat $d/id)"
    cat $d/format
  done
done
echo "== ls events/ext4/ext4_journal_start"; ls -1 $T/events/ext4/ext4_journal_start
echo "== ls events/ext4"; ls -1 $T/events/ext4
echo "== ids"; for d in $T/events/*/*/; do [ -f $d/id ] && echo "$(cat $d/id) $(basename $(dirname $d)):$(basename $d)"; done
echo "== lsmod"; cat /proc/modules
