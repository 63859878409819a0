/**
 * AF_UNIX call paths (net/unix/af_unix.c as Linux 6.1 runs it; the semantics are net/unix.ts): the
 * sock made by unix_create, bind to a path or autobind, stream and datagram connect (the stream one
 * allocating the server-side sock and its skb before looking the listener up), send and receive.
 * net.ts's socket syscalls branch here on `?is_unix`.
 */

export const unixPaths: Record<string, string> = {
  unix_create: `
unix_create
  unix_create1
    sk_alloc
      sk_prot_alloc
    sock_init_data
  %unix_new
`,
  // bind(2): a socket inode made at the path (unix_bind_bsd: kern_path_create, vfs_mknod), or autobind
  unix_bind: `
unix_bind
  ?unix_named
    kern_path_create
      filename_create
    security_path_mknod
    %unix_bind
    ?sock_ok2
      vfs_mknod
    done_path_create
  ?!unix_named
    unix_autobind
      %unix_bind
`,
  // connect(2): stream connect allocates the server-side sock and the skb that carries it before
  // looking the listener up (unix_stream_connect); on failure both are freed again
  unix_connect: `
?is_stream
  unix_stream_connect
    unix_create1
      sk_alloc
        sk_prot_alloc
      sock_init_data
    sock_wmalloc
      __alloc_skb
    unix_find_other
      kern_path
        filename_lookup
          path_lookupat
      %unix_find
    %unix_stream_connect
    ?sock_ok2
      skb_queue_tail
      sock_def_readable
        %wake_waiters
    ?!sock_ok2
      kfree_skb_reason
        @skb:kfree_skb
      unix_release_sock
      sk_free
?!is_stream
  unix_dgram_connect
    unix_find_other
      kern_path
        filename_lookup
          path_lookupat
      %unix_find
    %unix_dgram_connect
`,
  // the data in an skb queued on the receiver, who is woken (stream and datagram sends alike)
  unix_queue_skb: `
sock_alloc_send_pskb
  __alloc_skb
%unix_send
?sock_ok2
  skb_queue_tail
  sock_def_readable
    %wake_waiters
`,
  unix_sendmsg: `
?is_stream
  unix_stream_sendmsg
    *unix_queue_skb
?!is_stream
  unix_dgram_sendmsg
    *unix_queue_skb
`,
  unix_recvmsg: `
?is_stream
  unix_stream_recvmsg
    unix_stream_read_generic
      %unix_recv_check
      ?rx_wait
        unix_wait_for_peer
          %sock_wait_rx
      %unix_recv
      ?copied
        unix_stream_read_actor
          skb_copy_datagram_iter
        consume_skb
      sock_def_readable
        %wake_waiters
?!is_stream
  unix_dgram_recvmsg
    __unix_dgram_recvmsg
      __skb_try_recv_datagram
      ?rx_wait
        __skb_wait_for_more_packets
          %sock_wait_rx
      %dgram_recv
      ?copied
        skb_copy_datagram_iter
        skb_free_datagram
          consume_skb
`,
};
