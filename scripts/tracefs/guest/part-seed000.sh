# seed 000: swap with the function tracer
dd if=/dev/zero of=/swapfile bs=1M count=8 2>/dev/null; chmod 600 /swapfile; mkswap /swapfile >/dev/null 2>&1
echo "/swapfile none swap sw 0 0" >> /etc/fstab
head -c 300000 /dev/urandom > /root/YEYEYE.txt
cap seed000 'echo "" >/sys/kernel/tracing/trace; echo 0 >/sys/kernel/tracing/tracing_on; echo "*swap*" > /sys/kernel/tracing/set_ftrace_filter; echo function >/sys/kernel/tracing/current_tracer; echo 1 >/sys/kernel/tracing/tracing_on; swapon -a; xxd < /root/YEYEYE.txt | tail -3; echo 0 >/sys/kernel/tracing/tracing_on; cat /sys/kernel/tracing/trace | head -40'
cap seed000_enabled 'head -20 enabled_functions; wc -l < enabled_functions'
cap swapon_show 'cat /proc/swaps; swapoff -a; cat /proc/swaps'
reset_all
