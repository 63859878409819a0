#!/bin/sh
# What SystemTap's I/O, network, page-fault and profiling examples observe (disktop, iotop, traceio2,
# inodewatch, ioblktime, nettop, netdev, pfaults, the Beginners Guide's timer.profile profiler), on
# the real Debian 12 kernel (linux-image-6.1.0-56-amd64): a guest script for
# ../shared/tools/qemu-debian-guest, which has no stap, so kprobe events and tracepoints record the
# same fields the tapsets read. Run (needs perf and ip in the guest):
#   WORK=/tmp/qemu-NAME EXTRA_PACKAGES=linux-perf,iproute2 qemu-debian-guest scripts/record/guest/examples-io.sh
# Offsets are 6.1's BTF (file.f_inode 32, inode.i_sb 40, inode.i_ino 64, super_block.s_dev 16,
# s_id 968; bio.bi_bdev 8, bi_opf 16, bi_iter.bi_sector 32, bi_size 40; block_device.bd_dev 36;
# sk_buff.dev 16, len 112, protocol 180, truesize 216).
# What the goldens follow: vfs_read/vfs_write of cat/dd/ls on sda1 (dev 0x800001, s_id "sda1");
# submit_bio_noacct (partition sector, readahead opf 0x80000, dd oflag=direct 0x8801, the flusher's
# comm kworker/uN:1) and bio_endio (whole-disk sector = +2048, bi_size 0); ping -c 2 127.0.0.1:
# 4 __dev_queue_xmit len 98 proto 8 truesize 768, 4 netif_receive_skb len 84, no netif_rx();
# handle_mm_fault's flags and vm_fault_t during ls /; perf cpu-clock of an idle box and of dd.
ip link set lo up 2>&1
echo "== DEVICES"
cat /proc/partitions; cat /proc/self/mountinfo; ls -l /dev/sda /dev/sda1
stat -c '%d %D %i %s %n' / /etc/passwd /usr/bin/ls /tmp /root
for n in /sys/class/net/*; do echo "$n mtu=$(cat $n/mtu) ifindex=$(cat $n/ifindex) flags=$(cat $n/flags) addr=$(cat $n/address) type=$(cat $n/type)"; done
cat /proc/modules | cut -d' ' -f1 | tr '\n' ' '; echo
reset() { echo 0 > $T/tracing_on; for e in $T/events/*/enable; do echo 0 > $e; done 2>/dev/null; echo > $T/trace; echo > $T/kprobe_events; }
dump() { echo 0 > $T/tracing_on; echo "== TRACE $1"; cat $T/trace | grep -v '^#'; reset; }
reset; echo 65536 > $T/buffer_size_kb
echo "== VFS"
echo 'p:vr vfs_read dev=+16(+40(+32(%di))):u32 ino=+64(+32(%di)):u64 cnt=%dx:u64 sid=+968(+40(+32(%di))):string' >> $T/kprobe_events
echo 'r:vrr vfs_read ret=$retval:s64' >> $T/kprobe_events
echo 'p:vw vfs_write dev=+16(+40(+32(%di))):u32 ino=+64(+32(%di)):u64 cnt=%dx:u64 sid=+968(+40(+32(%di))):string' >> $T/kprobe_events
echo 'r:vwr vfs_write ret=$retval:s64' >> $T/kprobe_events
echo 1 > $T/events/kprobes/enable; echo 1 > $T/tracing_on
cat /etc/passwd > /dev/null; dd if=/dev/zero of=/root/ddf bs=4096 count=16 2>&1; ls / > /dev/null; sleep 1
dump vfs
echo "== BLOCK"
sync; echo 3 > /proc/sys/vm/drop_caches
echo 'p:sb submit_bio_noacct dev=+36(+8(%di)):u32 opf=+16(%di):u32 sector=+32(%di):u64 size=+40(%di):u32' >> $T/kprobe_events
echo 'p:be bio_endio dev=+36(+8(%di)):u32 opf=+16(%di):u32 sector=+32(%di):u64 size=+40(%di):u32' >> $T/kprobe_events
echo 1 > $T/events/kprobes/enable
echo 1 > $T/events/block/block_rq_issue/enable; echo 1 > $T/events/block/block_rq_complete/enable; echo 1 > $T/events/block/block_bio_queue/enable
echo 1 > $T/tracing_on
dd if=/dev/zero of=/root/ddd bs=4096 count=32 oflag=direct 2>&1; cat /usr/bin/ls > /dev/null; dd if=/dev/zero of=/root/dde bs=4096 count=32 2>&1; sync; sleep 1
dump block
echo "== NET"
for e in net_dev_queue net_dev_xmit netif_receive_skb netif_rx netif_receive_skb_entry netif_rx_entry; do echo 1 > $T/events/net/$e/enable; done
echo 'p:nrx netif_rx len=+112(%di):u32' >> $T/kprobe_events
echo 'p:n_rx __netif_rx len=+112(%di):u32' >> $T/kprobe_events
echo 'p:dqx __dev_queue_xmit dev=+0(+16(%di)):string len=+112(%di):u32 proto=+180(%di):u16 truesize=+216(%di):u32' >> $T/kprobe_events
echo 'p:hsx dev_hard_start_xmit dev=+0(%si):string len=+112(%di):u32' >> $T/kprobe_events
echo 1 > $T/events/kprobes/enable; echo 1 > $T/tracing_on
ping -c 2 127.0.0.1; sleep 1
dump net
echo "== PFAULT"
echo 'p:pf handle_mm_fault addr=%si:x64 flags=%dx:x32' >> $T/kprobe_events
echo 'r:pfr handle_mm_fault ret=$retval:x32' >> $T/kprobe_events
echo 1 > $T/events/kprobes/enable; echo 1 > $T/tracing_on
ls / > /dev/null
dump pf
echo "== PROFILE"
if command -v perf >/dev/null; then
perf record -e cpu-clock -c 1000000 -a -o /tmp/perf.data sleep 4 2>&1 | tail -2
perf report -i /tmp/perf.data --sort sym --stdio 2>/dev/null | grep -v '^#' | head -25
perf report -i /tmp/perf.data --sort comm,sym --stdio 2>/dev/null | grep -v '^#' | head -25
perf record -e cpu-clock -c 1000000 -a -o /tmp/perf2.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; ls -lR /usr > /dev/null' 2>&1 | tail -2
perf report -i /tmp/perf2.data --sort comm,dso,sym --stdio 2>/dev/null | grep -v '^#' | head -30
fi
echo "== PERF dd"
perf record -e cpu-clock -c 1000000 -a -o /tmp/p3.data -- dd if=/dev/zero of=/dev/null bs=1M count=300 2>&1 | tail -3
perf report -i /tmp/p3.data --sort comm,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
echo "== FGRAPH dd"
echo 'read_iter_zero write_null vfs_read vfs_write iov_iter_zero clear_user_erms clear_user_rep_good clear_user_original new_sync_read' > $T/set_ftrace_filter 2>&1
echo function > $T/current_tracer; echo 1 > $T/tracing_on
dd if=/dev/zero of=/dev/null bs=1M count=1 2>/dev/null
echo 0 > $T/tracing_on; grep ' dd-' $T/trace | awk '{print $NF, $(NF-1)}' | sort | uniq -c | sort -rn | head; echo nop > $T/current_tracer
echo "== FGRAPH2"
echo 'vfs_read' > $T/set_graph_function; echo function_graph > $T/current_tracer; echo 1 > $T/tracing_on
dd if=/dev/zero of=/dev/null bs=64k count=1 2>/dev/null
echo 0 > $T/tracing_on; grep -A40 'vfs_read' $T/trace | head -60; echo nop > $T/current_tracer
