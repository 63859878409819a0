/**
 * Networking call paths (loopback): socket syscalls, the TCP/UDP/ICMP transmit path down to
 * loopback_xmit and the NET_RX softirq receive path up to the socket, as Linux 6.1 runs them.
 *
 * Transmit: sock_sendmsg -> inet_sendmsg -> tcp_sendmsg -> tcp_sendmsg_locked -> tcp_push ->
 * __tcp_push_pending_frames -> tcp_write_xmit -> __tcp_transmit_skb -> ip_queue_xmit -> ... ->
 * __dev_queue_xmit -> dev_hard_start_xmit -> loopback_xmit -> __netif_rx (enqueue_to_backlog,
 * NET_RX raised); __dev_queue_xmit's rcu_read_unlock_bh() (__local_bh_enable_ip) then runs the
 * softirq right there in the sender's context: do_softirq -> __do_softirq -> net_rx_action ->
 * __napi_poll -> process_backlog -> __netif_receive_skb -> ip_rcv -> ... -> tcp_v4_rcv.
 * Packets sent from softirq context (ACKs, SYN-ACKs, ICMP replies) are only queued; the same
 * process_backlog loop delivers them.
 */

/** accept4(2) and accept(2) below their entry: __sys_accept4 */
const ACCEPT = `  __sys_accept4
    *sock_lookup
    ?sock_ok
      do_accept
        sock_alloc
        ?is_unix
          unix_accept
            %sock_accept_wait
          %sock_accept
        ?!is_unix
          inet_accept
            inet_csk_accept
              lock_sock_nested
              %sock_accept_wait
              release_sock
            %sock_accept
        ?accepted
          sock_alloc_file
            alloc_file_pseudo
      ?accepted
        fd_install
`;

export const netPaths: Record<string, string> = {
  // ---------------------------------------------------------------- socket syscalls
  sys_socket: `
__x64_sys_socket
  __sys_socket
    sock_create
      __sock_create
        sock_alloc
        ?is_unix
          *unix_create
        ?!is_unix
          inet_create
            ?is_tcp
              tcp_v4_init_sock
            ?is_udp
              udp_init_sock
            ?is_icmp
              raw_init
    %sock_new
    sock_alloc_file
      alloc_file_pseudo
`,
  sock_lookup: `
sockfd_lookup_light
  __fget_light
%sock_lookup
`,
  sys_bind: `
__x64_sys_bind
  __sys_bind
    *sock_lookup
    ?sock_ok
      ?is_unix
        *unix_bind
      ?!is_unix
        inet_bind
          __inet_bind
            ?is_tcp
              inet_csk_get_port
            ?is_udp
              udp_v4_get_port
                udp_lib_get_port
            %sock_bind
`,
  sys_listen: `
__x64_sys_listen
  __sys_listen
    *sock_lookup
    ?sock_ok
      ?is_unix
        unix_listen
          %unix_listen
      ?!is_unix
        inet_listen
          lock_sock_nested
          inet_csk_listen_start
            inet_csk_get_port
            %sock_listen
            ?state_change
              *set_state
          release_sock
`,
  sys_accept4: `
__x64_sys_accept4
${ACCEPT}`,
  // accept(2): __sys_accept4 with no flags
  sys_accept: `
__x64_sys_accept
${ACCEPT}`,
  sys_connect: `
__x64_sys_connect
  __sys_connect
    *sock_lookup
    ?sock_ok
      __sys_connect_file
        ?is_unix
          *unix_connect
        ?is_tcp
          inet_stream_connect
            lock_sock_nested
            __inet_stream_connect
              tcp_v4_connect
                ip_route_output_flow
                  ip_route_output_key_hash
                inet_hash_connect
                  secure_ipv4_port_ephemeral
                    %once_net_secret
                  __inet_hash_connect
                    inet_sk_get_local_port_range
                    %once_table_perturb
                    inet_ehash_nolisten
                      inet_ehash_insert
                        inet_ehashfn
                          %once_inet_ehash_secret
                %tcp_connect_start
                ?state_change
                  *set_state
                ?sock_ok2
                  tcp_connect
                    *tcp_xmit_one
              %tcp_connect_wait
            release_sock
        ?!is_tcp
          ?!is_unix
            inet_dgram_connect
              ?udp_unbound
                inet_autobind
                  udp_v4_get_port
                    udp_lib_get_port
              ip4_datagram_connect
                __ip4_datagram_connect
                  ip_route_output_flow
                  %dgram_connect
`,
  sys_sendto: `
__x64_sys_sendto
  __sys_sendto
    *sock_lookup
    ?sock_ok
      *sock_sendmsg
`,
  sys_sendmsg: `
__x64_sys_sendmsg
  __sys_sendmsg
    *sock_lookup
    ?sock_ok
      ___sys_sendmsg
        ____sys_sendmsg
          *sock_sendmsg
`,
  sys_recvfrom: `
__x64_sys_recvfrom
  __sys_recvfrom
    *sock_lookup
    ?sock_ok
      *sock_recvmsg
`,
  sys_recvmsg: `
__x64_sys_recvmsg
  __sys_recvmsg
    *sock_lookup
    ?sock_ok
      ___sys_recvmsg
        ____sys_recvmsg
          *sock_recvmsg
`,
  sys_shutdown: `
__x64_sys_shutdown
  __sys_shutdown
    *sock_lookup
    ?sock_ok
      ?is_unix
        unix_shutdown
          %unix_shutdown
          %wake_waiters
      ?!is_unix
        inet_shutdown
          lock_sock_nested
          ?is_tcp
            tcp_shutdown
              %tcp_shutdown
              ?state_change
                *set_state
              ?fin
                *tcp_send_fin
          ?!is_tcp
            %dgram_shutdown
          sock_def_wakeup
            %wake_waiters
          release_sock
`,
  // sendfile(out, in, off, count) to a TCP socket: do_sendfile splices the file's pages through the
  // task's internal pipe (splice_direct_to_actor) to tcp_sendpage, which queues and pushes them as
  // tcp_sendmsg does
  sys_sendfile: `
__x64_sys_sendfile64
  do_sendfile
    *fdget
    %sendfile_prep
    ?sock_ok
      rw_verify_area
      do_splice_direct
        splice_direct_to_actor
          do_splice_to
            generic_file_splice_read
              filemap_read
          direct_splice_actor
            splice_from_pipe
              __splice_from_pipe
                pipe_to_sendpage
                  sock_sendpage
                    kernel_sendpage
                      inet_sendpage
                        tcp_sendpage
                          lock_sock_nested
                          tcp_sendpage_locked
                            do_tcp_sendpages
                              tcp_send_mss
                                tcp_current_mss
                              %tcp_send
                          release_sock
      touch_atime
`,
  // read()/write() on a socket fd (from %read_dispatch / %write_dispatch)
  sock_read: `
sock_read_iter
  *sock_recvmsg
`,
  sock_write: `
sock_write_iter
  *sock_sendmsg
`,
  sock_sendmsg: `
%sock_args
sock_sendmsg
  security_socket_sendmsg
    apparmor_socket_sendmsg
  ?is_unix
    *unix_sendmsg
  ?!is_unix
    inet_sendmsg
      ?is_tcp
        tcp_sendmsg
          lock_sock_nested
          tcp_sendmsg_locked
            tcp_send_mss
              tcp_current_mss
            %tcp_send
          release_sock
      ?is_udp
        udp_sendmsg
          %udp_send
          ?sock_ok2
            ip_make_skb
              __alloc_skb
                kmalloc_reserve
              __ip_make_skb
            udp_send_skb
              ip_send_skb
                *ip_out
      ?is_icmp
        raw_sendmsg
          %raw_send
          ?sock_ok2
            ip_route_output_flow
            ip_append_data
              __alloc_skb
            ip_push_pending_frames
              __ip_make_skb
              ip_send_skb
                *ip_out
`,
  sock_recvmsg: `
%sock_args
sock_recvmsg
  security_socket_recvmsg
    apparmor_socket_recvmsg
  ?is_unix
    *unix_recvmsg
  ?!is_unix
    inet_recvmsg
      ?is_tcp
        tcp_recvmsg
          lock_sock_nested
          tcp_recvmsg_locked
            ?rx_wait
              sk_wait_data
                %sock_wait_rx
            %tcp_recv
            ?copied
              *skb_copy_iter
              tcp_rcv_space_adjust
                @tcp:tcp_rcv_space_adjust
            tcp_cleanup_rbuf
              ?ack_now
                *tcp_send_ack
          release_sock
      ?is_udp
        udp_recvmsg
          __skb_recv_udp
            *skb_recv_wait
          %dgram_recv
          ?copied
            *skb_copy_iter
            skb_consume_udp
              __consume_stateless_skb
                @skb:consume_skb
      ?is_icmp
        raw_recvmsg
          __skb_recv_datagram
            *skb_recv_wait
          %dgram_recv
          ?copied
            *skb_copy_iter
            skb_free_datagram
              consume_skb
                @skb:consume_skb
`,
  // copying queued skb data to the user's iov (tcp, udp and raw receive)
  skb_copy_iter: `
skb_copy_datagram_iter
  __skb_datagram_iter
  @skb:skb_copy_datagram_iovec
`,
  // a datagram receive that may sleep for data
  skb_recv_wait: `
__skb_try_recv_datagram
?rx_wait
  __skb_wait_for_more_packets
    %sock_wait_rx
`,
  // close of the last fd (from __fput)
  sock_close: `
sock_close
  __sock_release
    ?is_unix
      unix_release
        unix_release_sock
          %unix_close
          %wake_waiters
    ?!is_unix
      inet_release
        ?is_tcp
          tcp_close
            lock_sock_nested
            __tcp_close
              %tcp_close
              ?state_change
                *set_state
              ?fin
                *tcp_send_fin
              ?state_change2
                inet_csk_listen_stop
                  tcp_v4_send_reset
                    @tcp:tcp_send_reset
                  *set_state
            release_sock
            %wake_waiters
        ?is_udp
          udp_lib_close
            sk_common_release
              udp_destroy_sock
              %dgram_close
        ?is_icmp
          raw_close
            sk_common_release
              %dgram_close
`,
  set_state: `
%set_state
tcp_set_state
  @sock:inet_sock_set_state
%set_state_done
`,
  tcp_push_segs: `
tcp_push
  __tcp_push_pending_frames
    tcp_write_xmit
      %tcp_xmit
`,
  sock_fput: `
task_work_run
  ____fput
    __fput
      *sock_close
`,
  tcp_send_fin: `
tcp_send_fin
  __tcp_push_pending_frames
    tcp_write_xmit
      *tcp_xmit_one
`,
  tcp_send_ack: `
tcp_send_ack
  __tcp_send_ack.part.0
    __alloc_skb
      kmalloc_reserve
    %ack_pkt
    *tcp_xmit_one
`,
  // one TCP segment (data, SYN, FIN, ACK, RST); e.out is the packet
  // tcp_transmit_skb() is inlined into tcp_write_xmit (line 2722), tcp_connect (3946: the SYN) ...;
  // __tcp_send_ack calls __tcp_transmit_skb directly
  tcp_xmit_one: `
+tcp_transmit_skb:2722,3946
__tcp_transmit_skb
  skb_clone
  tcp_v4_send_check
  ip_queue_xmit
    __ip_queue_xmit
      *ip_out
`,
  tcp_xmit_data: `
*tcp_xmit_one
tcp_event_new_data_sent
  tcp_rearm_rto
    sk_reset_timer
`,
  ip_out: `
ip_local_out
  __ip_local_out
    ?nf_local_out
      nf_hook_slow
        %nf_run_local_out
        ?nf_freed
          kfree_skb_reason
            @skb:kfree_skb
  ?nf_pass
    ip_output
      ?nf_post_routing
        nf_hook_slow
          %nf_run_post_routing
          ?nf_freed
            kfree_skb_reason
              @skb:kfree_skb
      ?nf_pass
        ip_finish_output
          __ip_finish_output
            ip_finish_output2
              __dev_queue_xmit
                @net:net_dev_queue
                dev_hard_start_xmit
                  @net:net_dev_start_xmit
                  loopback_xmit
                    %lo_xmit
                    __netif_rx
                      @net:netif_rx_entry
                      netif_rx_internal
                        @net:netif_rx
                        enqueue_to_backlog
                          %enqueue_backlog
                      @net:netif_rx_exit
                  @net:net_dev_xmit
                __local_bh_enable_ip
                  %bh_enable
`,
  bh_softirq: `
do_softirq
  %bh_enter
  *softirq
  %bh_leave
`,
  // the device's events in a recorded transmit path, for the packet the machine sends there (net/core.ts xmit_next)
  xmit_queue_ev: `
@net:net_dev_queue
`,
  xmit_start_ev: `
@net:net_dev_start_xmit
`,
  xmit_done_ev: `
@net:net_dev_xmit
`,
  netif_rx_entry_ev: `
@net:netif_rx_entry
`,
  netif_rx_ev: `
@net:netif_rx
`,
  netif_rx_exit_ev: `
@net:netif_rx_exit
`,
  // what a recorded do_softirq ran (its '&'): the machine's pending softirqs (net/core.ts bh_run)
  bh_softirq_body: `
%bh_enter
*softirq
%bh_leave
`,
  // ---------------------------------------------------------------- receive (softirq)
  // after a packet's recorded receive tree: what it did not do (net/rx.ts)
  rx_rest: `
%rx_rest
`,
  // tcp_set_state in a recorded receive tree (net/rx.ts rx_set_state)
  rx_set_state_ev: `
@sock:inet_sock_set_state
`,
  // ip_rcv_finish's work: the route, then the local delivery
  ip_rcv_deliver: `
ip_rcv_finish_core.constprop.0
ip_local_deliver
  ?nf_local_in
    nf_hook_slow
      %nf_run_local_in
      ?nf_freed
        kfree_skb_reason
          @skb:kfree_skb
  ?nf_pass
    ip_local_deliver_finish
      ip_protocol_deliver_rcu
        ?pkt_icmp
          raw_local_deliver
            ?raw_match
              raw_rcv
                raw_rcv_skb
                  sock_queue_rcv_skb_reason
                    __sock_queue_rcv_skb
                      %raw_queue
                      sock_def_readable
                        %wake_waiters
          icmp_rcv
            ?icmp_echo
              icmp_echo
                icmp_reply
                  icmp_push_reply
                    ip_append_data
                    ip_push_pending_frames
                      __ip_make_skb
                      ip_send_skb
                        %icmp_reply_pkt
                        *ip_out
            ?!icmp_echo
              ping_rcv
                ping_lookup
            consume_skb
              @skb:consume_skb
        ?pkt_tcp
          tcp_v4_rcv
            __inet_lookup_established
            %tcp_rcv
        ?pkt_udp
          udp_rcv
            __udp4_lib_rcv
              __udp4_lib_lookup
              %udp_rcv
              ?udp_found
                udp_unicast_rcv_skb
                  udp_queue_rcv_skb
                    udp_queue_rcv_one_skb
                      __udp_enqueue_schedule_skb
                        sock_def_readable
                          %wake_waiters
              ?!udp_found
                kfree_skb_reason
                  @skb:kfree_skb
`,
  // process_backlog calls __netif_receive_skb itself (no netif_receive_skb_entry/exit: the recordings show none);
  // ip_rcv_finish is NF_HOOK's okfn, out of line only when a PRE_ROUTING hook ran (inlined in ip_rcv otherwise)
  netif_receive: `
__netif_receive_skb
  __netif_receive_skb_one_core
    __netif_receive_skb_core.constprop.0
      @net:netif_receive_skb
    ip_rcv
      ip_rcv_core
      ?nf_pre_routing
        nf_hook_slow
          %nf_run_pre_routing
          ?nf_freed
            kfree_skb_reason
              @skb:kfree_skb
      ?nf_pass
        ?nf_pre_ran
          ip_rcv_finish
            *ip_rcv_deliver
        ?!nf_pre_ran
          *ip_rcv_deliver
`,
  tcp_rcv_nosock: `
__inet_lookup_listener
?!pkt_rst
  tcp_v4_send_reset
    @tcp:tcp_send_reset
    ip_send_unicast_reply
      *ip_out
kfree_skb_reason
  @skb:kfree_skb
`,
  tcp_rcv_syn: `
__inet_lookup_listener
tcp_v4_do_rcv
  tcp_rcv_state_process
    tcp_v4_conn_request
      tcp_conn_request
        inet_reqsk_alloc
        inet_csk_reqsk_queue_hash_add
        tcp_v4_send_synack
          tcp_make_synack
          ip_build_and_send_pkt
            *ip_out
consume_skb
  @skb:consume_skb
`,
  tcp_rcv_synack: `
tcp_v4_do_rcv
  tcp_rcv_state_process
    tcp_ack
    tcp_finish_connect
      *set_state
      sock_def_wakeup
        %wake_waiters
    *tcp_send_ack
__kfree_skb
`,
  tcp_rcv_reqack: `
__inet_lookup_listener
tcp_check_req
  tcp_v4_syn_recv_sock
    tcp_create_openreq_child
      inet_csk_clone_lock
        inet_sk_set_state
          %set_state
          @sock:inet_sock_set_state
    inet_ehash_nolisten
  inet_csk_complete_hashdance
    inet_csk_reqsk_queue_add
tcp_child_process
  tcp_rcv_state_process
    tcp_ack
    *set_state
  sock_def_readable
    %wake_waiters
__kfree_skb
`,
  tcp_rcv_est: `
tcp_v4_do_rcv
  tcp_rcv_established
    @tcp:tcp_probe
    ?acks_new
      tcp_ack
    %wake_writers
    ?pkt_data
      tcp_data_queue
        tcp_queue_rcv
        tcp_event_data_recv
        sock_def_readable
          %wake_waiters
      __tcp_ack_snd_check
        tcp_send_delayed_ack
          sk_reset_timer
          %delack_arm
    ?!pkt_data
      __kfree_skb
`,
  // the peer's FIN on an established connection: CLOSE_WAIT, the ACK delayed
  tcp_rcv_est_fin: `
tcp_v4_do_rcv
  tcp_rcv_established
    @tcp:tcp_probe
    ?pkt_ack
      tcp_ack
        %wake_writers
    tcp_data_queue
      ?pkt_data
        tcp_queue_rcv
        tcp_event_data_recv
      tcp_fin
        *set_state
        sock_def_wakeup
          %wake_waiters
    __tcp_ack_snd_check
      tcp_send_delayed_ack
        sk_reset_timer
        %delack_arm
    __kfree_skb
`,
  // a segment for a connection in TIME_WAIT (tcp_v4_rcv's do_time_wait)
  tcp_rcv_tw: `
tcp_timewait_state_process
?tw_ack
  tcp_v4_send_ack
    ip_send_unicast_reply
      *ip_out
inet_twsk_put
kfree_skb_reason
  @skb:kfree_skb
`,
  // the delayed-ACK timer expiring: the local APIC timer interrupt raises TIMER_SOFTIRQ, whose
  // run on the way out of the interrupt calls tcp_delack_timer; NET_RX raised by the ACK's
  // loopback transmit runs next in the same __do_softirq
  tcp_timer_irq: `
asm_sysvec_apic_timer_interrupt
  sysvec_apic_timer_interrupt
    irq_enter_rcu
    __sysvec_apic_timer_interrupt
      @irq_vectors:local_timer_entry
      hrtimer_interrupt
        _raw_spin_lock_irqsave
        ktime_get_update_offsets_now
        __hrtimer_run_queues
          @timer:hrtimer_expire_entry
          tick_sched_timer
            update_process_times
              raise_softirq
                @irq:softirq_raise
          @timer:hrtimer_expire_exit
        tick_program_event
      @irq_vectors:local_timer_exit
    irq_exit_rcu
      %bh_enter
      __do_softirq
        @irq:softirq_entry
        run_timer_softirq
          _raw_spin_lock_irq
          call_timer_fn
            tcp_delack_timer
              tcp_delack_timer_handler
                %tcp_delack
                ?send_ack
                  *tcp_send_ack
        @irq:softirq_exit
        %timer_net_rx
      %bh_leave
`,
  timer_net_rx: `
@irq:softirq_entry
net_rx_action
  %skb_defer_flush
  __napi_poll
    process_backlog
      %net_rx
    @napi:napi_poll
@irq:softirq_exit
`,
  tcp_rcv_state: `
tcp_v4_do_rcv
  tcp_rcv_state_process
    ?pkt_ack
      tcp_ack
        %wake_writers
    ?state_change
      *set_state
    ?tcp_done
      tcp_done
        ?sk_destroy
          @tcp:tcp_destroy_sock
        %wake_waiters
    ?pkt_data
      tcp_data_queue
        tcp_queue_rcv
        sock_def_readable
          %wake_waiters
      __tcp_ack_snd_check
        tcp_send_delayed_ack
          sk_reset_timer
          %delack_arm
    ?pkt_fin
      tcp_data_queue
        tcp_fin
          ?send_ack
            *tcp_send_ack
          ?time_wait
            tcp_time_wait
              inet_twsk_alloc
              inet_twsk_hashdance
          ?time_wait
            tcp_done
              *set_state
              ?sk_destroy
                @tcp:tcp_destroy_sock
          sock_def_wakeup
            %wake_waiters
    __kfree_skb
`,
  tcp_rcv_reset: `
tcp_v4_do_rcv
  tcp_rcv_state_process
    tcp_reset
      @sock:inet_sk_error_report
      tcp_done
        *set_state
        %wake_waiters
kfree_skb_reason
  @skb:kfree_skb
`,
};
