/**
 * The network namespace and the core of the device layer (net/core/dev.c): the socket tables
 * (listeners, connections, UDP ports, raw sockets), ephemeral ports, the network devices (`lo`),
 * the per-CPU receive backlog that NET_RX_SOFTIRQ drains (process_backlog), softirqs run from
 * rcu_read_unlock_bh() in the sender's context, and the device tracepoints' arguments.
 */
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Prng } from '../core/prng';
import type { Env } from '../include/kstack';
import { Semantics } from '../paths/semantics';
import { returnAddress } from '../../kernel/callsites';
import { pushPath, newEnv, H_CONT, H_PUSHED } from '../paths/kexec';
import { Sock, Packet, SkbView, SOCK_DGRAM, SOCK_STREAM, IPPROTO_TCP, TCP_LISTEN } from '../include/net';

/** The machine as the networking semantics use it. */
export interface NetMachine extends CpuMachine {
  readonly net: Net;
}

const NET_RX = 1 << 3;

export class Net {
  readonly listeners = new Map<number, Sock>();
  /** established / connecting TCP sockets by "localPort:remotePort" */
  readonly conns = new Map<string, Sock>();
  /** connections in TIME_WAIT ("localPort:remotePort" -> when the time-wait socket expires) */
  readonly tw = new Map<string, number>();
  readonly udp = new Map<number, Sock>();
  readonly raw: Sock[] = [];
  /** per-CPU receive backlog (softnet_data.input_pkt_queue) */
  readonly backlog: Packet[][];
  /** per-CPU sk_buffs freed elsewhere, waiting for this CPU's NET_RX softirq (softnet_data.defer_count) */
  readonly deferred: number[];
  /** per-CPU: the backlog's NAPI is scheduled (NAPI_STATE_SCHED of softnet_data.backlog: packets queued or being polled) */
  readonly napiScheduled: boolean[];
  /** sockets closed by their last fd, waiting for the sock_close path */
  readonly toRelease: Sock[] = [];
  /** lo statistics (/proc/net/dev) */
  packets = 0;
  bytes = 0;
  /** next ephemeral port; chosen on first use so machines that never network draw nothing from the PRNG */
  private nextEphemeral = 0;
  /**
   * @param rxRand the receive path's own PRNG stream (net/rx.ts draws the recorded tree of each packet
   *   with it), so that receiving never changes which variants the other entries draw
   */
  constructor(readonly m: CpuMachine, readonly rxRand: Prng) {
    this.backlog = m.cpus.map(() => []);
    this.deferred = m.cpus.map(() => 0);
    this.napiScheduled = m.cpus.map(() => false);
  }
  ephemeralPort(): number {
    if (!this.nextEphemeral) this.nextEphemeral = 32768 + this.m.rand.int(28000);
    for (let i = 0; i < 28232; i++) {
      const p = this.nextEphemeral;
      this.nextEphemeral = p >= 60999 ? 32768 : p + 1;
      const busy = (k: string) => k.startsWith(`${p}:`);
      if (!this.listeners.has(p) && !this.udp.has(p) && ![...this.conns.keys()].some(busy) && ![...this.tw.keys()].some(busy)) return p;
    }
    return 0;
  }
  /**
   * A TCP socket listening on `port` since before the machine was handed over (a service's, as
   * socket/bind/listen left it at boot: nginx's 0.0.0.0:80, backlog 511)
   */
  listenAtBoot(port: number, backlog: number): Sock {
    const s = new Sock(SOCK_STREAM, IPPROTO_TCP);
    s.port = port;
    s.listening = true;
    s.state = TCP_LISTEN;
    s.backlogMax = backlog;
    this.listeners.set(port, s);
    return s;
  }
  portInUse(p: number, type: number): boolean {
    if (type === SOCK_DGRAM) return this.udp.has(p);
    return this.listeners.has(p) || [...this.conns.keys()].some((k) => k.startsWith(`${p}:`));
  }
}

/**
 * The loopback device (struct net_device of `lo`), as the real guest's /sys/class/net/lo shows it
 * (data/recordings/system.json.gz net.lo): ifindex 1, type ARPHRD_LOOPBACK 772, mtu 65536, flags
 * 0x9 (IFF_UP | IFF_LOOPBACK: dev->flags; IFF_RUNNING is dev_get_flags()' addition), addr_len 6,
 * tx_queue_len 1000; min_mtu 0, max_mtu ETH_MAX_MTU (loopback_setup).
 */
export const loDev = { name: 'lo', mtu: 65536, ifindex: 1, type: 772, flags: 0x9, addr_len: 6, tx_queue_len: 1000, min_mtu: 0, max_mtu: 0xffff };

export const netCore = new Semantics<NetMachine>('net/core');

/** sysctl net.core.skb_defer_max (64): a CPU's deferred sk_buffs past it are freed where they are read */
const SKB_DEFER_MAX = 64;
/**
 * skb_attempt_defer_free (net/core/skbuff.c): a reader done with an sk_buff allocated on another CPU
 * (a loopback segment: the sender's, where its NET_RX softirq queued it) hands it back to that CPU's
 * defer list, which the CPU's next net_rx_action frees (skb_defer_free_flush -> napi_consume_skb: the
 * consume_skb events; tbench: 202 deferred, 200 napi_consume_skb); one allocated here, or past
 * skb_defer_max, is freed now.  (No IPI: the kick at half the maximum a workload of a few dozen
 * outstanding segments never reaches.)
 */
export function skbAttemptDeferFree(m: NetMachine, c: Cpu, allocCpu: number): void {
  const d = m.net.deferred;
  if (allocCpu < 0 || allocCpu === c.id || allocCpu >= d.length || d[allocCpu] >= SKB_DEFER_MAX) return;
  d[allocCpu]++;
}

/**
 * enqueue_to_backlog: the packet on this CPU's backlog, NET_RX pending; true when the backlog's NAPI
 * was not scheduled (no packet queued, none being polled), so that napi_schedule_rps ->
 * ____napi_schedule raises NET_RX (__raise_softirq_irqoff: softirq_raise vec=3; tbench: 235 of its
 * recorded softirq_raise events, one per packet that found its CPU's backlog idle)
 */
export function netifRx(m: NetMachine, c: Cpu, p: Packet): boolean {
  const raise = !m.net.napiScheduled[c.id];
  m.net.napiScheduled[c.id] = true;
  m.net.backlog[c.id].push(p);
  c.softirqPending |= NET_RX;
  return raise;
}
/** NET_RX_SOFTIRQ */
const NET_RX_SOFTIRQ = 3;
/** the softirq_raise_event path's environment for a raise of NET_RX (read only) */
const RAISE_NET_RX = newEnv('raise', { vec: NET_RX_SOFTIRQ });
netCore.hook('enqueue_backlog', (m, c, _t, e) => {
  if (!netifRx(m, c, e.out as Packet)) return H_CONT;
  pushPath(c.ks, 'softirq_raise_event', RAISE_NET_RX);
  return H_PUSHED;
});
/**
 * rcu_read_unlock_bh() at the end of __dev_queue_xmit: from task context, pending softirqs
 * (NET_RX raised by the loopback) run right here (do_softirq -> __do_softirq); from softirq
 * context the running net_rx_action loop picks the packet up.
 */
netCore.hook('bh_enable', (_m, c) => {
  if (c.ctx.context !== 0 || !(c.softirqPending & NET_RX)) return H_CONT;
  pushPath(c.ks, 'bh_softirq', newEnv('softirq', { vec: 3, pending: 0 }));
  return H_PUSHED;
});
/**
 * A recorded do_softirq (`do_softirq.part.0(&)` under __local_bh_enable_ip: __do_softirq ran there), and
 * the end of a recorded send or receive whose variant has none: the NET_RX the loopback raised runs
 * now, in the task's context (__do_softirq's actions; the do_softirq call is the tree's own).
 */
export function bhRun(c: Cpu, p: string): number {
  if (c.ctx.context !== 0 || !(c.softirqPending & NET_RX)) return H_CONT;
  pushPath(c.ks, p, newEnv('softirq', { vec: 3, pending: 0 }));
  return H_PUSHED;
}
netCore.hook('bh_run', (_m, c) => bhRun(c, 'bh_softirq_body'));
netCore.at('do_softirq.part.0', 'bh_run', 'exit');
/**
 * The transmit path of a recorded tree (__dev_queue_xmit -> dev_hard_start_xmit -> loopback_xmit ->
 * __netif_rx -> enqueue_to_backlog) carries the packets the call's semantics made (`e.txq`), one per
 * __dev_queue_xmit, in order; the device's events fire for those only (a recorded transmit the machine
 * does not make, an exit's FIN sent by the machine's own close path, carries none).  Packets the tree
 * had no transmit for go out at the end of the call (`xmitRest`).
 */
netCore.hook('xmit_next', (_m, _c, _t, e) => {
  const p = (e.txq as Packet[] | undefined)?.shift();
  e.txing = p !== undefined;
  if (!p) return H_CONT;
  e.out = p;
  e.skb = p.skb;
  return pushEvents(_c, 'xmit_queue_ev', e);
});
netCore.hook('xmit_start_ev', (_m, c, _t, e) => (e.txing ? pushEvents(c, 'xmit_start_ev', e) : H_CONT));
netCore.hook('xmit_done_ev', (_m, c, _t, e) => (e.txing ? pushEvents(c, 'xmit_done_ev', e) : H_CONT));
netCore.hook('netif_rx_ev', (_m, c, _t, e) => (e.txing ? pushEvents(c, 'netif_rx_entry_ev', e) : H_CONT));
netCore.hook('netif_rx_exit_ev', (_m, c, _t, e) => (e.txing ? pushEvents(c, 'netif_rx_exit_ev', e) : H_CONT));
netCore.hook('netif_rx_internal_ev', (_m, c, _t, e) => (e.txing ? pushEvents(c, 'netif_rx_ev', e) : H_CONT));
netCore.hook('backlog_tx', (m, c, _t, e) => {
  // (e.raiseVec: the NET_RX raise enqueue_to_backlog traces before it unlocks: paths/tpsites.ts)
  e.raiseVec = 0;
  if (e.txing && e.txQueued !== e.out) {
    if (netifRx(m, c, e.out as Packet)) e.raiseVec = NET_RX_SOFTIRQ;
    e.txQueued = e.out;
  }
  return H_CONT;
});
// (the gate of every softirq_raise site: only enqueue_to_backlog's paths set raiseVec, 0 when NAPI was scheduled)
netCore.cond('backlog_raised', (_m, _c, _t, e) => e.raiseVec !== 0);
netCore.tpIf('softirq_raise', 'backlog_raised');
/** the next packet the call sends is the one its next segment's functions see (tcp_transmit_skb's $skb ...) */
netCore.hook('xmit_peek', (_m, _c, _t, e) => {
  const p = (e.txq as Packet[] | undefined)?.[0];
  if (p) { e.out = p; e.skb = p.skb; }
  return H_CONT;
});
netCore.at('__dev_queue_xmit', 'xmit_next');
netCore.at('__dev_queue_xmit', 'xmit_peek', 'exit');
netCore.at('dev_hard_start_xmit', 'xmit_start_ev');
netCore.at('dev_hard_start_xmit', 'xmit_done_ev', 'exit');
netCore.at('__netif_rx', 'netif_rx_ev');
netCore.at('netif_rx_internal', 'netif_rx_internal_ev');
netCore.at('enqueue_to_backlog', 'backlog_tx');
netCore.at('__netif_rx', 'netif_rx_exit_ev', 'exit');
function pushEvents(c: Cpu, p: string, e: Env): number {
  pushPath(c.ks, p, e);
  return H_PUSHED;
}
/** do_softirq on the task's stack: softirq context while __do_softirq runs */
netCore.hook('bh_enter', (_m, c, _t, e) => {
  const ctx = c.ctx;
  e.savedCtx = ctx.context;
  e.savedPc = ctx.preemptCount;
  e.pending = c.softirqPending;
  c.softirqPending = 0;
  ctx.context = 1;
  ctx.preemptCount = (ctx.preemptCount ?? 0) + 0x100;
  c.softirqs++;
  return H_CONT;
});
netCore.hook('bh_leave', (m, c, _t, e) => {
  c.ctx.context = e.savedCtx as number;
  c.ctx.preemptCount = e.savedPc as number;
  if (!m.net.backlog[c.id].length) c.softirqPending &= ~NET_RX;
  return H_CONT;
});

// tracepoint arguments
/**
 * The packet the transmit path carries: the one being sent (e.out), which differs from the
 * environment's skb when a reply is sent from the receive path (icmp_reply inside icmp_rcv).
 */
export function txSkb(e: Env): SkbView | undefined {
  return (e.out as Packet | undefined)?.skb ?? (e.skb as SkbView | undefined);
}
netCore.tpArgs('net_dev_queue', (_m, _c, _t, e) => [txSkb(e)]);
netCore.tpArgs('net_dev_start_xmit', (_m, _c, _t, e) => [txSkb(e), loDev]);
// the length __dev_queue_xmit saw, before loopback_xmit pulled the Ethernet header
netCore.tpArgs('net_dev_xmit', (_m, _c, _t, e) => {
  const skb = txSkb(e);
  return [skb, 0, loDev, skb ? skb.len + (skb.received ? 14 : 0) : 0];
});
netCore.tpArgs('netif_rx', (_m, _c, _t, e) => [txSkb(e)]);
netCore.tpArgs('netif_rx_entry', (_m, _c, _t, e) => [txSkb(e)]);
netCore.tpArgs('netif_rx_exit', () => [0]);
netCore.tpArgs('netif_receive_skb', (_m, _c, _t, e) => [e.skb]);
netCore.tpArgs('netif_receive_skb_entry', (_m, _c, _t, e) => [e.skb]);
netCore.tpArgs('netif_receive_skb_exit', () => [0]);
netCore.tpArgs('consume_skb', (_m, _c, _t, e) => [e.skb ?? null]);
/**
 * kfree_skb's location is kfree_skb_reason's __builtin_return_address(0): the return address in the
 * function that called it (the frame under the running one); the reason the path's (default
 * SKB_DROP_REASON_NO_SOCKET, the receive paths' drop: no socket took the packet)
 */
netCore.tpArgs('kfree_skb', (_m, c, _t, e) => {
  const ks = c.ks;
  // (at a tracepoint fn[sp - 1] is the function running, fn[sp - 2] its caller)
  return [e.skb ?? null, ks.sp > 1 ? returnAddress(ks.fn[ks.sp - 2], ks.fn[ks.sp - 1]) : 0, e.dropReason ?? 2];
});
netCore.tpArgs('skb_copy_datagram_iovec', (_m, _c, _t, e) => [e.skb ?? null, e.copied ?? 0]);
// the per-CPU backlog's napi (softnet_data.backlog: no device), the packets process_backlog delivered, its weight (weight_p 64)
netCore.tpArgs('napi_poll', (_m, _c, _t, e) => [null, e.rxDone ?? 0, 64]);
