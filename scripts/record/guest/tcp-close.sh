#!/bin/sh
# TCP teardown on the real Debian 12 kernel (linux-image-6.1.0-56-amd64), a guest script for
# ../shared/tools/qemu-debian-guest (run: WORK=/tmp/qemu-NAME qemu-debian-guest scripts/record/guest/tcp-close.sh).
# A perl client on 127.0.0.1 sends 100 bytes, reads the reply and closes first (the active closer);
# the perl server reads the request, replies, reads EOF and closes. Traced: sock:inet_sock_set_state,
# tcp:*, skb:kfree_skb, net:net_dev_xmit and the function tracer on the TCP teardown and IP output
# functions. What test/machine/net.test.ts ('TCP close ...') and the net model (src/machine/net/tcp.ts)
# follow: the passive side goes ESTABLISHED -> CLOSE_WAIT with tcp_send_delayed_ack (its FIN carries
# the ACK), the active closer FIN_WAIT1 -> FIN_WAIT2, then tcp_fin -> tcp_send_ack, tcp_time_wait
# (inet_twsk_alloc, inet_twsk_hashdance), tcp_done (FIN_WAIT2 -> CLOSE); no tcp_v4_send_reset;
# net_dev_xmit len 74 for SYN and SYN-ACK, 66 for ACK/FIN, 54 for a reset.
# The minbase guest has lo down: busybox (copied into the guest's /usr/local/bin) brings it up.
T=/sys/kernel/tracing
/usr/local/bin/busybox ip link set lo up
cat > /tmp/srv.pl <<'P'
use IO::Socket::INET;
my $l = IO::Socket::INET->new(LocalAddr=>'127.0.0.1', LocalPort=>7100, Listen=>5, ReuseAddr=>1) or die "listen $!";
print STDOUT "ready\n"; $|=1;
my $c = $l->accept; my $buf; sysread($c, $buf, 100); syswrite($c, "pong" x 25);
my $n = sysread($c, $buf, 100); print "srv got eof n=$n\n"; close($c); close($l);
P
cat > /tmp/cli.pl <<'P'
use IO::Socket::INET;
my $c = IO::Socket::INET->new(PeerAddr=>'127.0.0.1', PeerPort=>7100) or die "conn $!";
syswrite($c, "ping" x 25); my $buf; sysread($c, $buf, 100); close($c);
select(undef,undef,undef,0.3);
P
echo 0 > $T/tracing_on
echo > $T/trace
echo 20000 > $T/buffer_size_kb
for e in tcp sock; do echo 1 > $T/events/$e/enable; done
echo 1 > $T/events/skb/kfree_skb/enable
echo 1 > $T/events/net/net_dev_xmit/enable
echo 'tcp_v4_send_reset tcp_send_fin tcp_fin tcp_time_wait inet_twsk_* tcp_send_ack tcp_send_active_reset tcp_close tcp_done tcp_rcv_state_process tcp_v4_rcv tcp_v4_do_rcv tcp_timewait_state_process nf_hook_slow ip_local_out ip_output ip_rcv ip_local_deliver tcp_v4_connect inet_csk_accept tcp_conn_request tcp_v4_syn_recv_sock tcp_rcv_established tcp_data_queue tcp_sendmsg tcp_recvmsg tcp_shutdown __tcp_transmit_skb tcp_delack_timer tcp_send_delayed_ack' > $T/set_ftrace_filter 2>/dev/null
cat $T/set_ftrace_filter | wc -l
echo function > $T/current_tracer
perl /tmp/srv.pl > /tmp/srv.out &
sleep 3
echo 1 > $T/tracing_on
perl /tmp/cli.pl
sleep 0.3
echo 0 > $T/tracing_on
cat /tmp/srv.out
cat $T/trace | grep -v '^#' 
