#!/bin/sh
# The CPU identity of the recorded guest (linux-image-6.1.0-56-amd64 under QEMU without KVM, 4 CPUs as
# scripts/record/record.sh boots it): /proc/cpuinfo whole, lscpu, /sys/devices/system/cpu (online,
# possible, present, kernel_max, cpuN/topology, cpuidle), and the boot messages naming the CPU, its
# features and the idle routine. A guest script for ../shared/tools/qemu-debian-guest; run:
#   WORK=/tmp/qemu-NAME SMP=4 MEM=2048 qemu-debian-guest scripts/record/guest/cpu.sh | tail -n +2 | head -n -1 > data/kernel/cpu.txt
# What follows it: /proc/cpuinfo and /sys/devices/system/cpu (src/machine/kernel/cpu.ts), and the
# kernel functions chosen by the CPU's features as 6.1's alternatives patch them (flags rep_good, no
# erms, no fsrm: clear_user_rep_good, copy_user_generic_string, memcpy/memset's rep movsq/stosq
# bodies, clear_page_rep; amd_e400_idle, no cpuidle driver).
S=/sys/devices/system/cpu
echo "== /proc/cpuinfo"; cat /proc/cpuinfo
echo "== lscpu"; lscpu
echo "== lscpu -e"; lscpu -e
echo "== ls $S"; ls $S
for f in online possible present offline kernel_max isolated nohz_full modalias; do
  [ -e $S/$f ] && echo "== $S/$f" && cat $S/$f
done
echo "== ls $S/cpu0"; ls $S/cpu0
for c in $S/cpu[0-9]*; do
  for f in $c/topology/*; do echo "== $f"; cat $f; done
  [ -e $c/online ] && echo "== $c/online" && cat $c/online
done
echo "== ls $S/cpu0/cpuidle"; ls $S/cpu0/cpuidle 2>&1
echo "== ls $S/cpuidle"; ls $S/cpuidle
for f in $S/cpuidle/*; do echo "== $f"; cat $f; done
echo "== ls $S/vulnerabilities"; ls $S/vulnerabilities
for f in $S/vulnerabilities/*; do echo "== $f"; cat $f; done
echo "== dmesg"; dmesg | sed 's/^\[[ 0-9.]*\] //' | grep -iE 'cpu|idle|smp|x86|e400|apic|alternatives|tsc|bogomips' | head -80
