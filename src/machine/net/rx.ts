/**
 * The receive path of a loopback packet (net/core/dev.c process_backlog -> __netif_receive_skb ->
 * ip_rcv -> ip_local_deliver -> tcp_v4_rcv ...) on the trees the real kernel ran (issue 14).
 *
 * The recordings' NET_RX softirqs (entry-model key `softirq:net_rx_action`, paths/model.ts) hold, under
 * process_backlog, one `__netif_receive_skb(...)` tree per packet delivered.  Those per-packet trees
 * are the catalogue here, each labelled with what it did (RX_FEATURES: the protocol, the TCP case, data
 * queued, a FIN, an ACK processed, a reader woken, the delayed ACK armed, a reply sent).  For each
 * packet process_backlog takes off the backlog (`net_rx`), the machine's semantics decide first
 * (net/tcp.ts tcpRcvDecide: the socket's state changes, the tasks to wake, the reply), the same labels
 * are worked out from that decision, and a recorded tree with those labels runs: the wakeups at its
 * try_to_wake_up calls ('w'), the reply at its __dev_queue_xmit (net/core.ts xmit_next), the state
 * changes at its tcp_set_state.  What the tree did not do runs after it (`rx_rest`: the reply's
 * transmit, the wakeups, the delayed-ACK timer).  UDP (a datagram queued) and ICMP (an echo request
 * answered, an echo reply queued on ping's raw socket) likewise.  A case no recording shows (a reset,
 * the SYN-ACK that the real kernel queues to connect(2)'s locked socket, a datagram dropped), and any
 * packet while a netfilter hook is registered (the trees have none but AppArmor's POST_ROUTING one on
 * a reply's transmit), runs the template (`netif_receive`).
 *
 * Packets that reached a socket owned by its task (tcp_add_backlog: an ACK arriving while the sender is
 * inside sendmsg) are not drawn: the machine processes every segment in the softirq.
 */
import type { NetMachine } from './core';
import type { CompiledPath, Env } from '../include/kstack';
import type { Packet, Sock } from '../include/net';
import { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP } from '../include/net';
import type { Task } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_AGAIN } from '../paths/kexec';
import { modelKey, modelFunctions, modelFnId, parseModelShape } from '../paths/model';
import { compileShape, shapeText, type MNode } from '../paths/compile';
import { int3SiteCount } from '../../kernel/kprobes';
import { queueWakes, flushWakes } from '../kernel/sched/core';
import { tcpRcvDecide, delackArm, nextState, type TcpRcv } from './tcp';
import { nfRxHooked, nfTxHooked } from './netfilter';
import { udpTarget, udpQueue, rawQueue, icmpEchoReply } from './udp';
import { writeSkState } from './layout';

export const netRx = new Semantics<NetMachine>('net/rx');

/**
 * The labels of a per-packet tree: the function whose call says yes.  `hard` labels must be the
 * machine's exactly (what the packet is and what the kernel did with it); the others are preferred
 * (by their weight) when several trees fit.
 */
const RX_FEATURES: readonly [label: string, fn: string, weight: number][] = [
  ['tcp', 'tcp_v4_rcv', 0], ['udp', 'udp_rcv', 0], ['icmp', 'icmp_rcv', 0],
  // the socket was owned by its task: queued to its backlog (never drawn, see above)
  ['owned', 'tcp_add_backlog', 0],
  // tcp_v4_rcv's cases: a SYN to a listener, the ACK completing a handshake, a segment for a TIME_WAIT
  // socket (and the ACK it sends back), a reset sent, an established connection's segment, the slow path
  ['syn', 'tcp_v4_conn_request', 0], ['reqack', 'tcp_check_req', 0], ['tw', 'tcp_timewait_state_process', 0],
  ['twack', 'tcp_v4_send_ack', 0], ['rst', 'tcp_v4_send_reset', 0], ['est', 'tcp_rcv_established', 0],
  ['state', 'tcp_rcv_state_process', 0],
  // data queued on the socket, the peer's FIN
  ['data', 'tcp_queue_rcv', 0], ['fin', 'tcp_fin', 0],
  // UDP queued (__udp_enqueue_schedule_skb); ICMP: an echo request answered, a datagram on a raw socket,
  // ping_rcv (an echo reply looked up among the ping sockets)
  ['udpq', '__udp_enqueue_schedule_skb', 0], ['echo', 'icmp_echo', 0], ['raw', 'raw_rcv', 0], ['ping', 'ping_rcv', 0],
  // preferred: an ACK of new data (tcp_ack), the delayed ACK armed, a reader woken (a 'w' cut point)
  ['ack', 'tcp_ack', 2], ['delack', 'tcp_send_delayed_ack', 1], ['wake', '', 4],
];
const HARD = RX_FEATURES.filter(([, , w]) => w === 0).map(([l]) => l);
const SOFT = RX_FEATURES.filter(([, , w]) => w > 0);

/** A recorded per-packet tree: its text (model function ids), how often it ran, its labels. */
interface RxTree { readonly text: string; count: number; readonly labels: ReadonlySet<string>; code: CompiledPath | null; inline: boolean }
/** the catalogue's trees by their hard labels ('|'-joined, in HARD's order) */
let catalogue: Map<string, RxTree[]> | null = null;

function walk(ns: readonly MNode[], f: (n: MNode) => void): void {
  for (const n of ns) { f(n); walk(n.kids, f); }
}

/** The per-packet trees of the recorded NET_RX softirqs, read from the entry model on first use. */
function rxCatalogue(): Map<string, RxTree[]> {
  if (catalogue) return catalogue;
  catalogue = new Map();
  const k = modelKey('softirq:net_rx_action');
  const fns = modelFunctions();
  const backlog = fns.indexOf('process_backlog');
  const rcv = fns.indexOf('__netif_receive_skb');
  if (!k || backlog < 0 || rcv < 0) return catalogue;
  const ids = RX_FEATURES.map(([, fn]) => (fn ? fns.indexOf(fn) : -1));
  const byText = new Map<string, RxTree>();
  for (const v of k.variants) {
    walk(parseModelShape(v.shape), (n) => {
      if (n.fn !== backlog) return;
      for (const p of n.kids) {
        if (p.fn !== rcv) continue;
        const text = shapeText([{ ...p, rep: 1 }]);
        const had = byText.get(text);
        if (had) { had.count += v.count * p.rep; continue; }
        const labels = new Set<string>();
        walk([p], (x) => {
          if (x.mark === 'w') labels.add('wake');
          const i = x.fn >= 0 ? ids.indexOf(x.fn) : -1;
          if (i >= 0) labels.add(RX_FEATURES[i][0]);
        });
        const t: RxTree = { text, count: v.count * p.rep, labels, code: null, inline: false };
        byText.set(text, t);
        const key = HARD.map((l) => (labels.has(l) ? l : '-')).join('|');
        const l = catalogue!.get(key);
        if (l) l.push(t); else catalogue!.set(key, [t]);
      }
    });
  }
  return catalogue;
}

/**
 * A recorded tree with the labels `labels` (the hard ones exactly, the most of the soft ones by
 * weight), drawn by recorded frequency with `r` in [0, 1); null when no recording has the case.
 */
export function rxTree(labels: ReadonlySet<string>, r: number): RxTree | null {
  const list = rxCatalogue().get(HARD.map((l) => (labels.has(l) ? l : '-')).join('|'));
  if (!list) return null;
  let best = -1;
  let top: RxTree[] = [];
  for (const t of list) {
    let s = 0;
    for (const [l, , w] of SOFT) if (t.labels.has(l) === labels.has(l)) s += w;
    if (s > best) { best = s; top = [t]; } else if (s === best) top.push(t);
  }
  let x = r * top.reduce((a, t) => a + t.count, 0);
  for (const t of top) if ((x -= t.count) < 0) return t;
  return top[top.length - 1];
}

/** Whether the recordings have a tree with the hard labels of `labels`. */
function rxHas(labels: ReadonlySet<string>): boolean {
  return rxCatalogue().has(HARD.map((l) => (labels.has(l) ? l : '-')).join('|'));
}

/** The program of a catalogue tree (compiled on first use; again with the inline sites once one is armed). */
function treeCode(t: RxTree): CompiledPath {
  const inline = int3SiteCount() > 0;
  if (!t.code || (inline && !t.inline)) {
    t.code = compileShape('softirq:net_rx_action', t.text, 0, t.text.length, -1, modelFnId, inline);
    t.inline = inline;
  }
  return t.code;
}

/** the TCP cases (tcpRcvDecide's templates) the recordings show, and their labels */
const TCP_CASES: Record<string, readonly string[]> = {
  tcp_rcv_est: ['est'], tcp_rcv_est_fin: ['est', 'fin', 'data'], tcp_rcv_syn: ['state', 'syn'], tcp_rcv_reqack: ['reqack', 'state'],
  tcp_rcv_tw: ['tw'],
};
const running = (x: Task): boolean => x.state === 0;

/** The labels of the machine's decision `d` for a TCP segment (null: a case no recording shows). */
export function tcpLabels(d: TcpRcv, delackWas: boolean): Set<string> | null {
  const c = TCP_CASES[d.path];
  if (!c) return null;
  const e = d.env;
  const l = new Set<string>(['tcp', ...c]);
  if (e.queued === true) l.add('data');
  if (e.twAck === true) l.add('twack');
  // the fast path of a segment that acknowledges nothing new skips tcp_ack; the slow paths run it
  if (e.acksNew === true || d.path !== 'tcp_rcv_est') l.add('ack');
  if (l.has('data') && d.path.startsWith('tcp_rcv_est') && !delackWas) l.add('delack');
  if (sleepers(e)) l.add('wake');
  return l;
}

/**
 * process_backlog's loop: the next packet of this CPU's backlog through __netif_receive_skb, on a
 * recorded tree when one fits the machine's decision, else the template (`netif_receive`).
 */
netRx.hook('net_rx', (m, c, _t, e) => {
  const q = m.net.backlog[c.id];
  const n = ((e.rxDone as number) ?? 0);
  // the backlog drained: process_backlog's napi_complete (the next packet queued raises NET_RX again)
  if (!q.length) m.net.napiScheduled[c.id] = false;
  if (!q.length || n >= 10000) return H_CONT;
  e.rxDone = n + 1;
  const p = q.shift()!;
  const env = newEnv('netif_receive', { pkt: p, skb: p.skb });
  const r = nfRxHooked(m) || nfTxHooked(m) ? null : decide(m, p, env);
  if (r) {
    const { re, tree } = r;
    re.recorded = true;
    re.rxRec = true;
    const w = [...((re.wake as Task[] | undefined) ?? []), ...((re.wakeW as Task[] | undefined) ?? [])];
    re.wake = [];
    re.wakeW = [];
    queueWakes(re, w);
    if (re.out) re.txq = [re.out as Packet];
    // each socket in the state its first tcp_set_state in the tree finds it (a probe there reads sk_state
    // before the entry hook runs); the tree's tcp_set_state calls make the changes (rx_set_state_done)
    const seen = new Set<Sock>();
    for (const [s, from] of (re.states as [Sock, number, number][] | undefined) ?? []) {
      if (!seen.has(s)) { seen.add(s); s.state = from; writeSkState(s, from); }
    }
    pushPath(c.ks, 'rx_rest', re);
    pushPath(c.ks, treeCode(tree), re);
    return H_AGAIN;
  }
  pushPath(c.ks, 'netif_receive', env);
  return H_AGAIN;
});

/** the tasks a receive's semantics will wake (e.wake, e.wakeW), those asleep */
const sleepers = (e: Env): boolean => [...((e.wake as Task[] | undefined) ?? []), ...((e.wakeW as Task[] | undefined) ?? [])].some((x) => !running(x));

/**
 * The machine's decision for packet `p` and the recorded tree of the same case: the environment the
 * tree runs with (the semantics done: data queued, states changed, tasks to wake, the reply in `out`);
 * null: the template runs (`env` the template's; a TCP decision already made is in env.rxTcp).
 */
function decide(m: NetMachine, p: Packet, env: Env): { re: Env; tree: RxTree } | null {
  if (p.proto === IPPROTO_TCP) {
    const conn = m.net.conns.get(`${p.dport}:${p.sport}`);
    const delackWas = !!conn && conn.delack;
    const d = tcpRcvDecide(m, p);
    env.rxTcp = d;
    const labels = d && tcpLabels(d, delackWas);
    const tree = labels && rxTree(labels, m.net.rxRand.next());
    if (!d || !tree) return null;
    d.env.rxCase = d.path;
    return { re: d.env, tree };
  }
  // UDP to a bound socket with room (a datagram dropped: the template); ICMP: an echo request answered
  // (icmp_echo), an echo reply queued on ping's raw socket (raw_rcv; ping_rcv finds no ping socket)
  let labels: Set<string>;
  let deliver: () => void;
  const udp = p.proto === IPPROTO_UDP ? udpTarget(m, p) : null;
  if (udp) {
    labels = new Set(['udp', 'udpq']);
    deliver = () => udpQueue(udp, p, env);
  } else if (p.proto === IPPROTO_ICMP && p.icmpType === 8) {
    labels = new Set(['icmp', 'echo']);
    deliver = () => { env.out = icmpEchoReply(p); };
  } else if (p.proto === IPPROTO_ICMP && p.icmpType === 0 && m.net.raw.some((s) => !s.closed)) {
    labels = new Set(['icmp', 'raw', 'ping']);
    deliver = () => rawQueue(m, p, env);
  } else return null;
  if (!rxHas(labels)) return null;
  deliver();
  if (sleepers(env)) labels.add('wake');
  return { re: env, tree: rxTree(labels, m.net.rxRand.next())! };
}

/**
 * After a recorded receive tree: the reply it had no transmit for goes out (ip_out), the state changes
 * it had no tcp_set_state for are made (the template's), the delayed-ACK timer is armed for data (tcp_send_delayed_ack
 * or not: the ACK is owed), and the tasks it did not wake are woken.
 */
netRx.hook('rx_rest', (m, c, _t, e) => {
  const p = (e.txq as Packet[] | undefined)?.shift();
  if (p) {
    pushPath(c.ks, 'ip_out', newEnv('ip_out', { out: p, skb: p.skb, sk: e.sk, sock: e.sock }));
    return H_AGAIN;
  }
  // the tree is over: the changes it made no tcp_set_state for are made by the template's
  e.rxRec = false;
  const left = (e.states as [Sock, number, number][] | undefined) ?? [];
  if (left.length) {
    for (const [s, , to] of left) s.state = to;
    pushPath(c.ks, 'set_state', e);
    return H_AGAIN;
  }
  const s = e.sk as Sock | undefined;
  if (s && ((e.rxCase === 'tcp_rcv_est' && e.queued === true) || e.rxCase === 'tcp_rcv_est_fin')) delackArm(m, c, s);
  return flushWakes(c, e);
});

/** tcp_set_state in a recorded receive tree: the next state change the decision made, inet_sock_set_state fired */
netRx.hook('rx_set_state', (_m, c, _t, e) => {
  if (e.rxRec !== true || !nextState(e)) return H_CONT;
  pushPath(c.ks, 'rx_set_state_ev', e);
  return H_PUSHED;
});
netRx.hook('rx_set_state_done', (_m, _c, _t, e) => {
  const s = e.tpSk as Sock | undefined;
  if (e.rxRec === true && s) { s.state = e.newstate as number; writeSkState(s, s.state); e.tpSk = undefined; }
  return H_CONT;
});
/** after a reply's transmit in a receive tree, the functions that follow see the received skb again */
netRx.hook('rx_skb', (_m, _c, _t, e) => {
  if (e.rxRec === true) e.skb = (e.pkt as Packet).skb;
  return H_CONT;
});
netRx.at('__dev_queue_xmit', 'rx_skb', 'exit');
// tcp_set_state, and inet_sk_set_state (a child socket's SYN_RECV in inet_csk_clone_lock)
for (const fn of ['tcp_set_state', 'inet_sk_set_state']) {
  netRx.at(fn, 'rx_set_state');
  netRx.at(fn, 'rx_set_state_done', 'exit');
}


/** The recorded napi_consume_skb trees of the NET_RX softirqs (an sk_buff with page frags frees them too), read on first use. */
let consumeTrees: RxTree[] | null = null;
function consumeCatalogue(): RxTree[] {
  if (consumeTrees) return consumeTrees;
  consumeTrees = [];
  const k = modelKey('softirq:net_rx_action');
  const f = modelFunctions().indexOf('napi_consume_skb');
  if (!k || f < 0) return consumeTrees;
  const byText = new Map<string, RxTree>();
  for (const v of k.variants) {
    walk(parseModelShape(v.shape), (n) => {
      if (n.fn !== f) return;
      const text = shapeText([{ ...n, rep: 1 }]);
      const had = byText.get(text);
      if (had) { had.count += v.count * n.rep; return; }
      const t: RxTree = { text, count: v.count * n.rep, labels: new Set(), code: null, inline: false };
      byText.set(text, t);
      consumeTrees!.push(t);
    });
  }
  return consumeTrees;
}

/**
 * net_rx_action's skb_defer_free_flush (inlined, first): the sk_buffs readers on other CPUs handed back
 * to this one (net/core.ts skbAttemptDeferFree) freed, each through a recorded napi_consume_skb tree
 * drawn by recorded frequency (its consume_skb, kfree and kmem_cache_free events: paths/tpsites.ts).
 */
netRx.hook('skb_defer_flush', (m, c, _t, e) => {
  const n = m.net.deferred[c.id];
  const l = n ? consumeCatalogue() : null;
  if (!l || !l.length) return H_CONT;
  m.net.deferred[c.id] = 0;
  const total = l.reduce((a, t) => a + t.count, 0);
  for (let i = 0; i < n; i++) {
    let x = m.net.rxRand.next() * total;
    let t = l[l.length - 1];
    for (const u of l) if ((x -= u.count) < 0) { t = u; break; }
    pushPath(c.ks, treeCode(t), e);
  }
  return H_PUSHED;
});
