#!/bin/sh
# dbench's tbench on the real Debian 12 guest (a guest script for ../shared/tools/qemu-debian-guest).
# The guest needs dbench 4.0-2.1 and libpopt0: `apt-get download dbench libpopt0`, `dpkg-deb -x` both into
# $WORK/rootfs and `chroot $WORK/rootfs ldconfig` (or EXTRA_PACKAGES=dbench, which rebuilds the image).
# Observed (QEMU TCG, no KVM, 1 vCPU): `tbench -t 10 1 127.0.0.1` 18.56 MB/sec, `tbench -t 5 2` 19.06 MB/sec,
# per-op latencies ~0.25 ms; the client connects once (nb_setup) to an already listening tbench_srv and
# the connection ends FIN_WAIT1 -> FIN_WAIT2 -> CLOSE (client) / CLOSE_WAIT -> LAST_ACK -> CLOSE (server).
T=/sys/kernel/tracing
/usr/local/bin/busybox ip link set lo up
cd /tmp
tbench_srv > /tmp/tsrv.out 2>&1 &
sleep 1
echo 1 > $T/events/sock/inet_sock_set_state/enable
echo > $T/trace; echo 1 > $T/tracing_on
bash -c "time tbench -t 10 1 127.0.0.1" 2>&1 | tail -30
echo 0 > $T/tracing_on
grep -v '^#' $T/trace | head -40
echo 0 > $T/events/enable
bash -c "time tbench -t 5 2 127.0.0.1" 2>&1 | tail -8
