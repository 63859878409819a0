/**
 * TCP over the loopback (net/ipv4/tcp*.c): connect, the state machine (handshake, data, ACKs,
 * FIN/close, RST), send (segments of TCP_MSS, waiting for room in the peer's receive queue),
 * receive, shutdown and close, and the state changes announced through tcp_set_state.
 */
import type { NetMachine } from './core';
import type { Cpu } from '../include/cpu';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_AGAIN } from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/core';
import { Task } from '../include/sched';
import { SIGPIPE } from '../include/signal';
import type { Env } from '../include/kstack';
import {
  Sock, Packet, mkPacket, SOCK_STREAM, IPPROTO_TCP, TCP_ESTABLISHED, TCP_SYN_SENT, TCP_SYN_RECV, TCP_FIN_WAIT1,
  TCP_FIN_WAIT2, TCP_CLOSE, TCP_CLOSE_WAIT, TCP_LAST_ACK, TCP_LISTEN, TCP_MSS, RCVBUF, SKB_DROP_REASON_NOT_SPECIFIED,
} from '../include/net';
import { writeSkState } from './layout';
import { bhRun, skbAttemptDeferFree } from './core';
import { sockArgs, sockWaitRx } from './socket';
import { fdOf } from '../include/fdtable';
import { firingInline } from '../paths/inline';
import { nfTxHooked } from './netfilter';
import {
  sockOf, empty, fail, change, takeWaiters, tcpPkt, unhash, unwait, sleepOn, sigPending, nonblock, sendBuf, rxCount, rxTrunc,
} from './sock';

/** how long a connection stays in TIME_WAIT (TCP_TIMEWAIT_LEN, 60 s) */
const TCP_TIMEWAIT_LEN = 60e9;
/** the delayed-ACK timeout (TCP_DELACK_MIN, HZ/25) */
const TCP_DELACK_MIN = 40e6;
/** the smallest ACK timeout (TCP_ATO_MIN, HZ/25): a reply sooner than this counts toward pingpong mode */
const TCP_ATO_MIN = 40e6;
/** replies within the ACK timeout that make a connection interactive (include/net/tcp.h TCP_PINGPONG_THRESH, 6.1) */
const TCP_PINGPONG_THRESH = 3;

const EINTR = 4, EAGAIN = 11, EINVAL = 22, EPIPE = 32, ECONNRESET = 104, EISCONN = 106, ENOTCONN = 107,
  ECONNREFUSED = 111;

export const netTcp = new Semantics<NetMachine>('net/tcp');

/** tcp_set_state's arguments for the next state change the path's semantics made (e.states); false: none left */
export function nextState(e: Env): boolean {
  const list = e.states as [Sock, number, number][] | undefined;
  const st = list?.shift();
  if (!st) return false;
  e.tpSk = st[0];
  e.oldstate = st[1];
  e.newstate = st[2];
  e.state = st[2];
  // tcp_set_state() sees the old sk_state and stores the new one (set_state_done)
  writeSkState(st[0], st[1]);
  return true;
}
netTcp.hook('set_state', (_m, _c, _t, e) => {
  nextState(e);
  return H_CONT;
});
netTcp.hook('set_state_done', (_m, _c, _t, e) => {
  if (e.tpSk) writeSkState(e.tpSk as Sock, e.newstate as number);
  return H_CONT;
});
// tcp_set_state(sk, state): the socket changing state (not necessarily the path's socket)
// (in a recorded receive tree, net/rx.ts, the change its tcp_set_state is about to make: the entry hook runs after the call)
netTcp.fnArgs('tcp_set_state', (_m, _c, _t, e) => {
  const next = e.rxRec === true ? (e.states as [Sock, number, number][] | undefined)?.[0] : undefined;
  return next ? [next[0], next[2]] : [e.tpSk ?? e.sk, e.state];
});
// the child socket a listener creates for a completed handshake
for (const fn of ['tcp_v4_syn_recv_sock', 'tcp_create_openreq_child', 'inet_csk_clone_lock']) {
  netTcp.fnRet(fn, (e) => e.newsk ?? null);
}
netTcp.tpArgs('inet_sock_set_state', (_m, _c, _t, e) => [e.tpSk ?? e.sk, e.oldstate ?? 0, e.newstate ?? 0]);

netTcp.hook('tcp_connect_start', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  if (s.state === TCP_ESTABLISHED || s.state === TCP_CLOSE_WAIT) return fail(e, EISCONN);
  if (s.state !== TCP_CLOSE || s.listening) return fail(e, EINVAL);
  const port = Number(e.port ?? 0);
  if (!s.port) s.port = m.net.ephemeralPort();
  s.dport = port;
  s.err = 0;
  m.net.conns.set(`${s.port}:${port}`, s);
  change(e, s, TCP_SYN_SENT);
  e.out = tcpPkt(s, { syn: true });
  return H_CONT;
});
netTcp.hook('tcp_connect_wait', (m, _c, t, e) => {
  if (e.err) return H_CONT;
  const s = sockOf(e)!;
  unwait(s, t);
  if (s.state === TCP_ESTABLISHED || s.state === TCP_CLOSE_WAIT) { e.ret = 0; return H_CONT; }
  if (s.err) { const er = s.err; s.err = 0; unhash(m, s); return fail(e, er); }
  if (sigPending(t)) return fail(e, EINTR);
  return sleepOn(t, s.writeWait, 'inet_wait_for_connect');
});
/**
 * One step of a send on the path's socket (tcp_sendmsg_locked): the segments (TCP_MSS each) of what
 * fits in the peer's receive buffer now, e.done and e.ret advanced; or a hook result when there is
 * nothing to queue (all sent, an error, a wait for room).
 */
function sendStep(now: number, t: Task, e: Env): Packet[] | number {
  const s = sockOf(e)!;
  unwait(s, t);
  const buf = sendBuf(e);
  const done = (e.done as number) ?? 0;
  e.done = done;
  if (e.err) return H_CONT;
  if (s.state !== TCP_ESTABLISHED && s.state !== TCP_CLOSE_WAIT) {
    if (done) { e.ret = done; return H_CONT; }
    if (s.state === TCP_CLOSE && !s.peer && !s.err) return fail(e, ENOTCONN);
    t.sigPending |= 1 << (SIGPIPE - 1);
    return fail(e, s.err || EPIPE);
  }
  if (s.finSent) { t.sigPending |= 1 << (SIGPIPE - 1); return fail(e, EPIPE); }
  if (done >= buf.length) { e.ret = done; return H_CONT; }
  const peer = s.peer && !s.peer.closed ? s.peer : null;
  const space = peer ? RCVBUF - peer.rx.bytes : RCVBUF;
  if (space <= 0) {
    // a blocking send waits for room until everything is queued (sk_stream_wait_memory)
    if (nonblock(e)) { if (done) { e.ret = done; return H_CONT; } return fail(e, EAGAIN); }
    if (sigPending(t)) { if (done) { e.ret = done; return H_CONT; } return fail(e, EINTR); }
    return sleepOn(t, s.writeWait, 'sk_stream_wait_memory');
  }
  const n = Math.min(buf.length - done, space);
  // a reply within the ACK timeout of the last data received (tcp_event_data_sent)
  if (now - s.lastRcv < TCP_ATO_MIN) s.pingpong++;
  const segs: Packet[] = [];
  for (let o = 0; o < n; o += TCP_MSS) segs.push(tcpPkt(s, { ack: true }, buf.subarray(done + o, done + Math.min(n, o + TCP_MSS))));
  s.bytesSent += n;
  e.done = done + n;
  e.ret = done + n;
  return segs;
}
netTcp.hook('tcp_send', (m, _c, t, e) => {
  const segs = sendStep(m.now, t, e);
  if (typeof segs === 'number') return segs;
  const s = sockOf(e)!;
  pushPath(t.ks, 'tcp_push_segs', newEnv('tcp_push', { sk: s, sock: s, segs, size_goal: TCP_MSS, mss_now: TCP_MSS }));
  return H_AGAIN;
});
netTcp.hook('tcp_xmit', (_m, c, _t, e) => {
  const segs = e.segs as Packet[];
  const p = segs.shift();
  if (!p) return H_CONT;
  const s = sockOf(e)!;
  s.segsOut++;
  pushPath(c.ks, 'tcp_xmit_data', newEnv('tcp_xmit', { sk: s, sock: s, out: p, skb: p.skb, len: p.data.length }));
  return H_AGAIN;
});
netTcp.hook('ack_pkt', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  e.out = tcpPkt(s, { ack: true });
  s.segsOut++;
  return H_CONT;
});

// ---------------------------------------------------------------- TCP receive

/**
 * What tcp_v4_rcv does with segment `p` (the machine's state changed accordingly): the template of the
 * case (tcp_rcv_est, tcp_rcv_syn ...) and its environment (the socket, the states changed, the tasks
 * to wake, the reply to send in `out`); null when the segment is ignored.  The receive path runs the
 * recorded tree of the same case (net/rx.ts), else the template.
 */
export interface TcpRcv { path: string; env: Env }
export function tcpRcvDecide(m: NetMachine, p: Packet): TcpRcv | null {
  const net = m.net;
  const conn = net.conns.get(`${p.dport}:${p.sport}`) ?? null;
  const lis = net.listeners.get(p.dport) ?? null;
  const sub = (name: string, extra: Record<string, unknown>): TcpRcv => ({ path: name, env: Object.assign(newEnv(name, { pkt: p, skb: p.skb }), extra) });
  if (conn) {
    const s = conn;
    s.segsIn++;
    const env: Env = newEnv('tcp_rcv', { pkt: p, skb: p.skb, sk: s, sock: s });
    if (p.rst) {
      s.err = s.state === TCP_SYN_SENT ? ECONNREFUSED : ECONNRESET;
      change(env, s, TCP_CLOSE);
      unhash(m, s);
      takeWaiters(env, s, 'rw');
      return { path: 'tcp_rcv_reset', env };
    }
    if (s.state === TCP_SYN_SENT) {
      if (!(p.syn && p.ack)) return null;
      change(env, s, TCP_ESTABLISHED);
      takeWaiters(env, s, 'w');
      return { path: 'tcp_rcv_synack', env };
    }
    if (s.state === TCP_ESTABLISHED && !p.fin && !p.syn) {
      if (p.data.length) {
        if (!s.closed) s.rx.push(p.data, 0, undefined, m.executing?.id ?? -1);
        s.rcvUnacked += p.data.length;
        s.lastRcv = m.now;
        env.queued = true;
        takeWaiters(env, s, 'r');
      }
      // tcp_ack runs for an ACK of data not yet acknowledged (the fast path skips it otherwise)
      if (p.ack && s.sndUnacked > 0) { env.acksNew = true; s.sndUnacked = 0; }
      if (p.ack) env.wakeW = s.writeWait.splice(0);
      return { path: 'tcp_rcv_est', env };
    }
    if (s.state === TCP_ESTABLISHED && p.fin && !p.syn) {
      // the peer's FIN on an established connection (tcp_rcv_established -> tcp_data_queue ->
      // tcp_fin): CLOSE_WAIT, pingpong mode, and the ACK delayed (tcp_send_delayed_ack) so that our
      // own FIN or data carries it; the delayed-ACK timer sends it if we stay silent
      if (p.ack) env.wakeW = s.writeWait.splice(0);
      if (p.data.length) {
        if (!s.closed) s.rx.push(p.data, 0, undefined, m.executing?.id ?? -1);
        env.queued = true;
      }
      s.rxEof = true;
      change(env, s, TCP_CLOSE_WAIT);
      takeWaiters(env, s, 'rw');
      return { path: 'tcp_rcv_est_fin', env };
    }
    // the slow path: tcp_rcv_state_process
    if (p.ack) {
      env.wakeW = s.writeWait.splice(0);
      if (s.state === TCP_FIN_WAIT1 && s.finSent) change(env, s, TCP_FIN_WAIT2);
      else if (s.state === TCP_LAST_ACK) {
        change(env, s, TCP_CLOSE);
        env.tcpDone = true;
        env.destroy = s.closed;
        unhash(m, s);
        takeWaiters(env, s, 'rw');
      }
    }
    if (p.data.length && (s.state === TCP_FIN_WAIT1 || s.state === TCP_FIN_WAIT2 || s.state === TCP_ESTABLISHED)) {
      if (!s.closed) s.rx.push(p.data, 0, undefined, m.executing?.id ?? -1);
      env.queued = true;
      takeWaiters(env, s, 'r');
    }
    if (p.fin && !s.rxEof) {
      s.rxEof = true;
      env.sendAck = true;
      if (s.state === TCP_FIN_WAIT2 || s.state === TCP_FIN_WAIT1) {
        // tcp_fin: ACK the FIN, then tcp_time_wait hands the connection to a TIME_WAIT socket
        // (inet_twsk_hashdance) and tcp_done closes the full socket (FIN_WAIT2 -> CLOSE)
        change(env, s, TCP_CLOSE, 'sc2');
        env.timeWait = true;
        env.destroy = s.closed;
      }
      takeWaiters(env, s, 'rw');
    }
    // the time-wait socket replaces the full one in the established hash for TCP_TIMEWAIT_LEN
    if (env.timeWait) { unhash(m, s); net.tw.set(`${s.port}:${s.dport}`, m.now + TCP_TIMEWAIT_LEN); }
    return { path: 'tcp_rcv_state', env };
  }
  if (lis && lis.listening && !lis.closed) {
    if (p.syn && !p.ack) {
      if (lis.acceptq.length + lis.reqs.size >= lis.backlogMax) return sub('tcp_rcv_nosock', { sk: lis });
      const child = new Sock(SOCK_STREAM, IPPROTO_TCP);
      child.port = lis.port;
      child.dport = p.sport;
      lis.reqs.set(p.sport, child);
      const out = mkPacket({ proto: IPPROTO_TCP, sport: lis.port, dport: p.sport, syn: true, ack: true, data: empty });
      return sub('tcp_rcv_syn', { sk: lis, sock: lis, out, req: child });
    }
    const child = lis.reqs.get(p.sport);
    if (child && p.ack && !p.syn) {
      lis.reqs.delete(p.sport);
      const env: Env = newEnv('tcp_rcv', { pkt: p, skb: p.skb, sk: lis, sock: lis, newsk: child });
      change(env, child, TCP_SYN_RECV);
      change(env, child, TCP_ESTABLISHED);
      net.conns.set(`${child.port}:${child.dport}`, child);
      const client = net.conns.get(`${child.dport}:${child.port}`) ?? null;
      child.peer = client;
      if (client) client.peer = child;
      lis.acceptq.push(child);
      takeWaiters(env, lis, 'r');
      return { path: 'tcp_rcv_reqack', env };
    }
  }
  // a TIME_WAIT socket absorbs what still arrives for its connection (tcp_timewait_state_process):
  // a retransmitted FIN is ACKed again, anything else is dropped without a reset (tcp_v4_rcv's
  // discard_it: kfree_skb_reason with the drop_reason it started with, SKB_DROP_REASON_NOT_SPECIFIED)
  const twKey = `${p.dport}:${p.sport}`;
  const tw = net.tw.get(twKey);
  if (tw !== undefined) {
    if (tw > m.now) {
      const out = p.fin && !p.rst ? mkPacket({ proto: IPPROTO_TCP, sport: p.dport, dport: p.sport, ack: true, data: empty }) : null;
      return sub('tcp_rcv_tw', { sk: null, out, twAck: !!out, dropReason: SKB_DROP_REASON_NOT_SPECIFIED });
    }
    net.tw.delete(twKey);
  }
  const out = p.rst ? null : mkPacket({ proto: IPPROTO_TCP, sport: p.dport, dport: p.sport, rst: true, ack: true, data: empty });
  return sub('tcp_rcv_nosock', { sk: null, out });
}
netTcp.hook('tcp_rcv', (m, c, _t, e) => {
  // decided before the packet's path was chosen (net/rx.ts), else here
  const d = e.rxTcp !== undefined ? (e.rxTcp as TcpRcv | null) : tcpRcvDecide(m, e.pkt as Packet);
  if (!d) return H_CONT;
  pushPath(c.ks, d.path, d.env);
  return H_PUSHED;
});

/** tcp_send_delayed_ack: arm the delayed-ACK timer; a segment we send first carries the ACK (tcpPkt) */
export function delackArm(m: NetMachine, c: Cpu, s: Sock): void {
  if (s.delack) return;
  s.delack = true;
  const cpu = m.cpus[c.id];
  m.after(TCP_DELACK_MIN, () => {
    if (s.delack) m.irq(cpu, 'tcp_timer_irq', newEnv('tcp_timer', { sk: s, sock: s, irq: 236 }));
  });
}
netTcp.hook('delack_arm', (m, c, _t, e) => {
  delackArm(m, c, sockOf(e)!);
  return H_CONT;
});
/** tcp_delack_timer_handler: the ACK is still owed while the connection is there */
netTcp.hook('tcp_delack', (m, _c, _t, e) => {
  const s = sockOf(e)!;
  e.sendAck = s.delack && m.net.conns.get(`${s.port}:${s.dport}`) === s;
  // a delayed ACK the timer had to send: out of pingpong mode (tcp_delack_timer_handler)
  if (e.sendAck) s.pingpong = 0;
  s.delack = false;
  return H_CONT;
});
/** NET_RX raised by what the timer sent runs next in the same __do_softirq */
netTcp.hook('timer_net_rx', (m, c) => {
  if (!m.net.backlog[c.id].length) return H_CONT;
  pushPath(c.ks, 'timer_net_rx', newEnv('softirq', { vec: 3 }));
  return H_PUSHED;
});
netTcp.cond('acks_new', (_m, _c, _t, e) => e.acksNew === true);
netTcp.cond('tw_ack', (_m, _c, _t, e) => e.twAck === true);
/** tcp_done of an orphan (closed by its owner): inet_csk_destroy_sock fires tcp_destroy_sock */
netTcp.cond('sk_destroy', (_m, _c, _t, e) => e.destroy === true);

netTcp.hook('wake_waiters', (_m, c, _t, e) => {
  const w = e.wake as Task[] | undefined;
  if (!w || !w.length) return H_CONT;
  e.wake = [];
  return pushWakeups(c, w);
});
netTcp.hook('wake_writers', (_m, c, _t, e) => {
  const w = e.wakeW as Task[] | undefined;
  if (!w || !w.length) return H_CONT;
  e.wakeW = [];
  return pushWakeups(c, w);
});

/**
 * The receive of tcp_recvmsg_locked on the path's socket once the wait is over: the bytes taken (e.data,
 * e.ret), whether tcp_cleanup_rbuf sends an ACK (e.ackNow), how many queued skbs the read used up
 * (returned: each freed, skb_attempt_defer_free); an error or end of file.
 */
function tcpRecv(m: NetMachine, e: Env): number {
  if (e.err) return 0;
  const s = sockOf(e)!;
  if (s.rx.bytes > 0) {
    const before = s.rx.chunks.length;
    const b = s.rx.take(rxCount(e));
    s.bytesRecv += b.length;
    e.data = b;
    e.ret = b.length;
    // MSG_TRUNC: nothing copied to the caller (no skb_copy_datagram_iter)
    e.copied = rxTrunc(e) ? 0 : b.length;
    e.len = b.length;
    // tcp_cleanup_rbuf ACKs when an ACK is owed (the delayed one of the data just read), or as a
    // window update when the reader freed room the blocked sender waits for; once sent, a second
    // read has nothing to ACK
    const peer = s.peer;
    // (tcp_cleanup_rbuf: an ACK owed goes now when more than a segment is unacknowledged, or when this
    // read emptied the queue of a connection not in interactive mode; a window update when the peer's
    // sender waits for room)
    const owed = s.delack && (s.rcvUnacked > TCP_MSS || (s.pingpong < TCP_PINGPONG_THRESH && s.rx.bytes === 0));
    e.ackNow = !!peer && !peer.closed && (owed || peer.writeWait.length > 0)
      && (s.state === TCP_ESTABLISHED || s.state === TCP_FIN_WAIT1 || s.state === TCP_FIN_WAIT2);
    if (e.ackNow && !m.net.conns.has(`${s.dport}:${s.port}`)) e.ackNow = false;
    return before - s.rx.chunks.length;
  }
  // a reset is reported once (sock_error), then reads see end of file
  if (s.err) { const er = s.err; s.err = 0; s.rxEof = true; fail(e, er); return 0; }
  if (s.rxEof) { e.data = empty; e.ret = 0; return 0; }
  fail(e, ENOTCONN);
  return 0;
}
netTcp.hook('tcp_recv', (m, _c, _t, e) => { tcpRecv(m, e); return H_CONT; });

// ---------------------------------------------------------------- send(2) and recv(2) on recorded trees

/**
 * sendto(2) and recvfrom(2) on a connected TCP socket run the recorded trees (paths/syscall.ts
 * RECORDED_WHEN): tcp_sendmsg -> tcp_push -> __tcp_transmit_skb -> ip_queue_xmit -> loopback_xmit ->
 * __netif_rx, then __local_bh_enable_ip's do_softirq, where the machine's NET_RX runs (net/core.ts
 * bh_run: the peer's tcp_v4_rcv, its reader woken); tcp_recvmsg's wait (sk_wait_data), copy and
 * tcp_cleanup_rbuf, whose ACK goes out the same way.  The semantics run first (the syscall's
 * implementation) and their outcome chooses the variant: its size, whether the task slept, and for a
 * receive the tree features (paths/model.ts TREE_FEATURES 'sys:recvfrom': the ACK sent, an skb used up).
 * A send that must wait for room in the peer's buffer, the calls on a socket not connected, and those
 * made while a netfilter hook is registered on the transmit path (the recorded trees have none), run
 * their templates (the loop of tcp_send, the errors, nf_hook_slow).
 */
const connected = (s: Sock | null | undefined): s is Sock => !!s && s.isTcp && !s.listening && !s.err;
const sockOfFd = (t: Task, e: Env): Sock | null => fdOf(t, e.a[0])?.sock ?? null;
/** the descriptor's socket, its file and the sizes in the path environment */
function sockEnv(t: Task, e: Env): Sock {
  const f = fdOf(t, e.a[0])!;
  e.file = f;
  e.sock = f.sock;
  e.sk = f.sock;
  sockArgs(e);
  return f.sock!;
}
/**
 * The end of a recorded send or receive: the segments its tree had no transmit for go out through the
 * segment's template (net/core.ts xmit_next takes one per recorded __dev_queue_xmit), then the NET_RX
 * still pending runs (do_softirq) when the variant ran none.
 */
netTcp.hook('tx_rest', (_m, c, _t, e) => {
  const p = (e.txq as Packet[] | undefined)?.shift();
  if (!p) return bhRun(c, 'bh_softirq');
  pushPath(c.ks, 'tcp_xmit_data', newEnv('tcp_xmit', { sk: e.sk, sock: e.sock, out: p, skb: p.skb, len: p.data.length }));
  return H_AGAIN;
});
for (const fn of ['__sys_sendto', '__sys_recvfrom']) netTcp.at(fn, 'tx_rest', 'exit');
netTcp.cond('recorded_sendto', (m, _c, t, e) => {
  const s = sockOfFd(t, e);
  if (nfTxHooked(m) || !connected(s) || (s.state !== TCP_ESTABLISHED && s.state !== TCP_CLOSE_WAIT) || s.finSent) return false;
  const n = sendBuf(e).length;
  const peer = s.peer && !s.peer.closed ? s.peer : null;
  return n > 0 && n <= (peer ? RCVBUF - peer.rx.bytes : RCVBUF);
});
netTcp.syscall('sendto', (m, _c, t, e) => {
  const s = sockEnv(t, e);
  const segs = sendStep(m.now, t, e);
  if (typeof segs === 'number') return segs;
  s.segsOut += segs.length;
  e.txq = segs;
  e.out = segs[0];
  e.skb = segs[0]?.skb;
  return H_CONT;
});
netTcp.cond('recorded_recvfrom', (m, _c, t, e) => {
  const s = sockOfFd(t, e);
  return !nfTxHooked(m) && connected(s) && (s.state === TCP_ESTABLISHED || s.state === TCP_FIN_WAIT1 || s.state === TCP_FIN_WAIT2 || s.state === TCP_CLOSE_WAIT);
});
netTcp.syscall('recvfrom', (m, c, t, e) => {
  const s = sockEnv(t, e);
  const w = sockWaitRx(t, e);
  if (w !== H_CONT || e.err) return w;
  const used = tcpRecv(m, e);
  // the sk_buffs the read used up go back to the CPUs that allocated them (skb_attempt_defer_free)
  if (used > 0) for (const cpu of s.rx.freedCpus) skbAttemptDeferFree(m, c, cpu);
  const feat: string[] = used > 0 ? ['free'] : [];
  if (e.ackNow) {
    s.segsOut++;
    const p = tcpPkt(s, { ack: true });
    e.txq = [p];
    e.out = p;
    feat.push('ack');
  }
  e.treeFeat = feat;
  return H_CONT;
});
netTcp.hook('tcp_shutdown', (_m, _c, _t, e) => {
  const s = sockOf(e)!;
  const how = Number(e.a[1]);
  if (how < 0 || how > 2) return fail(e, EINVAL);
  if (s.state === TCP_CLOSE || s.state === TCP_LISTEN || s.state === TCP_SYN_SENT) return fail(e, ENOTCONN);
  if (how !== 1) { s.rxEof = true; takeWaiters(e, s, 'r'); }
  if (how !== 0 && !s.finSent) finish(e, s);
  e.ret = 0;
  return H_CONT;
});
/** send our FIN: ESTABLISHED -> FIN_WAIT1, CLOSE_WAIT -> LAST_ACK */
function finish(e: Env, s: Sock): void {
  if (s.state === TCP_ESTABLISHED) change(e, s, TCP_FIN_WAIT1);
  else if (s.state === TCP_CLOSE_WAIT) change(e, s, TCP_LAST_ACK);
  else return;
  s.finSent = true;
  s.segsOut++;
  e.fin = true;
  e.out = tcpPkt(s, { fin: true, ack: true });
  takeWaiters(e, s, 'w');
}
netTcp.hook('tcp_close', (m, _c, _t, e) => {
  const s = sockOf(e);
  if (!s) return H_CONT;
  s.closed = true;
  if (s.state === TCP_LISTEN) {
    m.net.listeners.delete(s.port);
    s.listening = false;
    change(e, s, TCP_CLOSE);
    // not yet accepted connections are reset
    for (const ch of s.acceptq.splice(0)) {
      ch.closed = true;
      unhash(m, ch);
      const peer = ch.peer;
      if (peer && peer.state !== TCP_CLOSE) {
        peer.err = ECONNRESET;
        peer.rxEof = true;
        change(e, peer, TCP_CLOSE, 'sc2');
        unhash(m, peer);
        takeWaiters(e, peer, 'rw');
      }
    }
    s.reqs.clear();
    takeWaiters(e, s, 'rw');
    return H_CONT;
  }
  if (s.state === TCP_SYN_SENT) { change(e, s, TCP_CLOSE); unhash(m, s); return H_CONT; }
  finish(e, s);
  if (s.state === TCP_CLOSE) unhash(m, s);
  return H_CONT;
});
// tracepoint arguments
netTcp.tpArgs('tcp_probe', (_m, _c, _t, e) => [e.sk, e.skb]);
netTcp.tpArgs('tcp_rcv_space_adjust', (_m, _c, _t, e) => [e.sk]);
netTcp.tpArgs('tcp_send_reset', (_m, _c, _t, e) => [e.sk ?? null, e.skb]);
netTcp.tpArgs('tcp_destroy_sock', (_m, _c, _t, e) => [e.sk]);
netTcp.tpArgs('inet_sk_error_report', (_m, _c, _t, e) => [e.sk]);

// tcp_transmit_skb exists only inlined (tcp_connect, tcp_write_xmit): its instances fire where the
// machine sends a segment; the recorded exit_group trees of networking programs close their sockets
// (task_work -> tcp_close -> tcp_send_fin -> tcp_write_xmit), but the machine sends its FINs from its
// own close path (sock_release_all), so in an exit's tree the callers run without a segment to send.
// Of the instances DWARF places in a recorded caller, those the machine's
// segments go through: tcp_write_xmit's transmit (tcp_output.c:2722) and tcp_connect's SYN (3946), as the
// template's tcp_xmit_one; not tcp_mtu_probe's, inlined in tcp_write_xmit (2470: net.ipv4.tcp_mtu_probing
// is 0, the probe returns before it), nor tcp_connect's Fast Open ones
const SEGMENT_LINES = new Set([2722, 3946]);
netTcp.cond('tcp_segment', (_m, _c, _t, e) => {
  const at = firingInline();
  return e.name !== 'exit_group' && (at === null || SEGMENT_LINES.has(at.callLine));
});
netTcp.inlineIf('tcp_transmit_skb', 'tcp_segment');
