#!/bin/sh
# Runs INSIDE the Debian 12 guest (see snapshot.sh): what the loaded modules look like on the real
# 6.1.0-56-amd64 kernel. Output sections start with "=== ".
echo "=== modules"; cat /proc/modules
for m in $(cut -d' ' -f1 /proc/modules); do
  echo "=== sections $m"
  for s in /sys/module/$m/sections/.* /sys/module/$m/sections/*; do [ -f "$s" ] && echo "$(basename "$s") $(cat "$s")"; done
  echo "=== attrs $m"
  for a in coresize initsize initstate refcnt taint srcversion version; do [ -f /sys/module/$m/$a ] && echo "$a $(cat /sys/module/$m/$a)"; done
  echo "holders $(ls /sys/module/$m/holders | tr '\n' ' ')"
  echo "parameters $(ls /sys/module/$m/parameters 2>/dev/null | tr '\n' ' ')"
done
echo "=== sys_module"; ls /sys/module
echo "=== kallsyms"; grep '\[' /proc/kallsyms
