/**
 * Netfilter hooks of the simulated network stack (net/netfilter/core.c of Linux 6.1).
 *
 * Each network namespace (the machine has one: `m.net`, init_net) keeps, per protocol family and
 * hook, an `nf_hook_entries` array sorted by priority.  `nfRegisterNetHook()` inserts an entry as
 * nf_hook_entries_grow() does (before the first entry of equal or higher priority, so among equal
 * priorities the last registered runs first); `nfUnregisterNetHook()` removes it.
 *
 * The packet paths (paths/templates/net.ts) reach the NF_HOOK sites of 6.1 — ip_rcv (NF_INET_PRE_ROUTING),
 * ip_local_deliver (NF_INET_LOCAL_IN), __ip_local_out (NF_INET_LOCAL_OUT), ip_output
 * (NF_INET_POST_ROUTING) — through a `?nf_*` condition that holds only while that hook has
 * entries (the static key nf_hooks_needed[pf][hook]): without registered hooks nothing more runs
 * and nf_hook_slow is never called.  With entries, `nf_hook_slow` runs them in order
 * (`%nf_*` hooks below); the verdicts act as in 6.1:
 *   NF_ACCEPT  next entry, then the okfn (the rest of the path);
 *   NF_DROP    kfree_skb_reason(SKB_DROP_REASON_NETFILTER_DROP), the caller gets -EPERM (or the
 *              errno of NF_DROP_ERR) — a UDP/raw sendmsg returns it;
 *   NF_QUEUE   no queue handler is bound: the packet is freed (continues with QUEUE_BYPASS);
 *   other (NF_STOLEN, NF_REPEAT, NF_STOP ...) the hook owns the packet: it goes no further.
 * While a hook runs, the packet's struct sk_buff holds its headers and the first 512 payload bytes
 * in the linear part (data_len: the rest) and skb->len is the IP datagram's length (no link-layer
 * header yet / any more).
 */
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import type { Packet, SkbView, Sock } from '../include/net';
import { IPPROTO_TCP, SKB_DROP_REASON_NOT_SPECIFIED } from '../include/net';
import { H_CONT } from '../paths/kexec';
import { Semantics } from '../paths/semantics';
import { kmem } from '../../kernel/memory';
import { btfLookupType } from '../../kernel/btf';
import { kallsymsLookupName } from '../../kernel/kallsyms';
import { loDev } from './core';
import type { Net, NetMachine } from './core';

export const NFPROTO_UNSPEC = 0, NFPROTO_INET = 1, NFPROTO_IPV4 = 2, NFPROTO_ARP = 3, NFPROTO_NETDEV = 5,
  NFPROTO_BRIDGE = 7, NFPROTO_IPV6 = 10;
export const NF_INET_PRE_ROUTING = 0, NF_INET_LOCAL_IN = 1, NF_INET_FORWARD = 2, NF_INET_LOCAL_OUT = 3,
  NF_INET_POST_ROUTING = 4, NF_INET_NUMHOOKS = 5;
export const NF_ARP_IN = 0, NF_ARP_OUT = 1, NF_ARP_FORWARD = 2, NF_ARP_NUMHOOKS = 3;
export const NF_BR_PRE_ROUTING = 0, NF_BR_LOCAL_IN = 1, NF_BR_FORWARD = 2, NF_BR_LOCAL_OUT = 3,
  NF_BR_POST_ROUTING = 4, NF_BR_BROUTING = 5, NF_BR_NUMHOOKS = 6;
/** verdicts (include/uapi/linux/netfilter.h) */
export const NF_DROP = 0, NF_ACCEPT = 1, NF_STOLEN = 2, NF_QUEUE = 3, NF_REPEAT = 4, NF_STOP = 5;
export const NF_VERDICT_MASK = 0xff;
export const NF_VERDICT_FLAG_QUEUE_BYPASS = 0x8000;

const EPERM = 1, EINVAL = 22, ENOENT = 2;
const IPPROTO_UDP = 17;
/** enum skb_drop_reason */
const SKB_DROP_REASON_NETFILTER_DROP = 7;

/** The network device the packet is on (struct net_device *): the loopback. */
export type NetDev = typeof loDev;

/** struct nf_hook_state, as the hook functions see it. */
export interface NfHookState {
  hook: number;
  pf: number;
  in: NetDev | null;
  out: NetDev | null;
  /** the okfn: name of the function the packet continues to when accepted */
  okfn: string;
  /** the sending socket (NULL on receive) */
  sk: Sock | null;
  pkt: Packet;
  cpu: Cpu;
  task: Task;
}

/** nf_hookfn: returns a verdict. */
export type NfHookFn = (priv: unknown, skb: SkbView, state: NfHookState) => number;

/** struct nf_hook_ops */
export interface NfHookOps {
  hook: NfHookFn;
  priv?: unknown;
  pf: number;
  hooknum: number;
  priority: number;
}

/** Per-namespace hook lists: `${pf}:${hook}` -> entries sorted by priority. */
export class NfNet {
  private readonly lists = new Map<number, NfHookOps[]>();
  /** the static keys: number of entries per (pf, hook) */
  readonly needed = new Int32Array(16 * 8);

  private static key(pf: number, hook: number): number {
    return pf * 8 + hook;
  }

  entries(pf: number, hook: number): readonly NfHookOps[] {
    return this.lists.get(NfNet.key(pf, hook)) ?? [];
  }

  register(ops: NfHookOps): number {
    const max = numHooks(ops.pf);
    if (max === 0) return -ENOENT;
    if (ops.hooknum < 0 || ops.hooknum >= max || !Number.isInteger(ops.hooknum)) return -EINVAL;
    const k = NfNet.key(ops.pf, ops.hooknum);
    const list = this.lists.get(k) ?? [];
    // nf_hook_entries_grow: the new entry goes before the first one whose priority is >= its own
    let i = 0;
    while (i < list.length && ops.priority > list[i].priority) i++;
    const next = list.slice();
    next.splice(i, 0, ops);
    this.lists.set(k, next);
    this.needed[k] = next.length;
    return 0;
  }

  unregister(ops: NfHookOps): void {
    const k = NfNet.key(ops.pf, ops.hooknum);
    const list = this.lists.get(k);
    if (!list) return;
    const next = list.filter((o) => o !== ops);
    if (next.length) this.lists.set(k, next); else this.lists.delete(k);
    this.needed[k] = next.length;
  }
}

/** Number of hooks of a protocol family (0: the family has no hooks in this kernel). */
export function numHooks(pf: number): number {
  switch (pf) {
    case NFPROTO_IPV4: case NFPROTO_IPV6: case NFPROTO_INET: return NF_INET_NUMHOOKS;
    case NFPROTO_ARP: return NF_ARP_NUMHOOKS;
    case NFPROTO_BRIDGE: return NF_BR_NUMHOOKS;
    default: return 0;
  }
}

const nets = new WeakMap<Net, NfNet>();
/** The netfilter state of a namespace (created on first use). */
export function nfNet(net: Net): NfNet {
  let n = nets.get(net);
  if (!n) nets.set(net, (n = new NfNet()));
  return n;
}

/** nf_register_net_hook(net, ops): 0 or -errno. */
export function nfRegisterNetHook(net: Net, ops: NfHookOps): number {
  return nfNet(net).register(ops);
}
/** nf_unregister_net_hook(net, ops) */
export function nfUnregisterNetHook(net: Net, ops: NfHookOps): void {
  nets.get(net)?.unregister(ops);
}

// ---------------------------------------------------------------------------------------------
// the struct sk_buff a hook sees

const linear = new WeakSet<SkbView>();
/** payload bytes kept in an sk_buff's linear part (as skb_headlen); the rest counts as paged data */
const LINEAR_PAYLOAD = 512;
/** IP datagram length of a packet (skb->len without the link-layer header) */
function ipLen(skb: SkbView): number {
  return skb.received ? skb.len : skb.len - 14;
}
/**
 * Lay the packet out in kernel memory the first time a hook sees it (headers and the start of
 * the payload linear, the rest paged: data_len), and set skb->len to the datagram's length while
 * the hooks run; returns the restore.
 */
function hookSkb(p: Packet): () => void {
  const skb = p.skb;
  const f = skbFields ?? (skbFields = fields());
  const a = kmem.addrOf(skb, f.type);
  const lenAt = a + f.len;
  if (!linear.has(skb)) {
    linear.add(skb);
    const oldHead = Number(BigInt.asIntN(64, kmem.readUnsigned(a + f.head, 8)));
    const total = 14 + ipLen(skb);
    const hdrs = 14 + 20 + (p.proto === IPPROTO_TCP ? 32 : 8);
    // ICMP data starts with its own header
    const at = p.proto === IPPROTO_TCP || p.proto === IPPROTO_UDP ? hdrs : 14 + 20;
    // the linear part: headers and up to LINEAR_PAYLOAD bytes of payload; the rest is paged (data_len)
    const size = Math.min(total, at + LINEAR_PAYLOAD);
    const head = kmem.alloc(size, 64);
    if (oldHead) for (let i = 0; i < Math.min(hdrs, size); i++) kmem.writeU8(head + i, kmem.readU8(oldHead + i));
    for (let i = 0; i < p.data.length && at + i < size; i++) kmem.writeU8(head + at + i, p.data[i]);
    // the IP header's total length
    kmem.writeU8(head + 16, (total - 14) >> 8);
    kmem.writeU8(head + 17, total - 14);
    kmem.writeUnsigned(a + f.head, 8, head);
    kmem.writeUnsigned(a + f.data, 8, head + 14);
    kmem.writeUnsigned(a + f.end, 4, size);
    kmem.writeUnsigned(a + f.tail, 4, size);
    kmem.writeUnsigned(a + f.dataLen, 4, total - size);
  }
  const saved = kmem.readUnsigned(lenAt, 4);
  kmem.writeUnsigned(lenAt, 4, ipLen(skb));
  return () => kmem.writeUnsigned(lenAt, 4, saved);
}
/** offsets of the struct sk_buff fields a hook site writes (head/data pointers; len, end, tail, data_len 4 bytes) */
interface SkbFields { type: number | null; len: number; head: number; data: number; end: number; tail: number; dataLen: number }
let skbFields: SkbFields | null = null;
function fields(): SkbFields {
  const T = 'struct sk_buff';
  const o = (n: string) => kmem.fieldOf(T, n).offset;
  return { type: btfLookupType(T), len: o('len'), head: o('head'), data: o('data'), end: o('end'), tail: o('tail'), dataLen: o('data_len') };
}

/**
 * nf_hook_slow()'s loop: run the entries of (pf, hook) on a packet (its sk_buff laid out for the
 * hooks).  `rc` is 1 (accepted: the okfn runs), 0 (stolen / queued: the packet goes no further,
 * the caller sees success) or -errno (dropped); `freed`: the packet was freed (dropped, or queued
 * with no listener).
 */
function runEntries(m: NetMachine, c: Cpu, t: Task, pf: number, hook: number, p: Packet,
  dev: { in: NetDev | null; out: NetDev | null }, okfn: string, sk: Sock | null): { rc: number; freed: boolean } {
  const entries = nfNet(m.net).entries(pf, hook);
  const state: NfHookState = { hook, pf, in: dev.in, out: dev.out, okfn, sk, pkt: p, cpu: c, task: t };
  for (let s = 0; s < entries.length; s++) {
    const verdict = entries[s].hook(entries[s].priv, p.skb, state) >>> 0;
    switch (verdict & NF_VERDICT_MASK) {
      case NF_ACCEPT: break;
      case NF_DROP: {
        const err = -(verdict >>> 16);
        return { rc: err === 0 ? -EPERM : err, freed: true };
      }
      case NF_QUEUE:
        // no nfnetlink_queue listener: __nf_queue() fails with -ESRCH
        if (verdict & NF_VERDICT_FLAG_QUEUE_BYPASS) break;
        return { rc: 0, freed: true };
      default:
        return { rc: 0, freed: false };
    }
  }
  return { rc: 1, freed: false };
}

// ---------------------------------------------------------------------------------------------
// the NF_HOOK sites of the IPv4 paths

/** The arguments of nf_hook_slow(skb, state, e, s) at a hook site (kernel memory on first use). */
class NfSlowArgs {
  /** undoes the hook-time skb->len */
  restore: () => void;
  constructor(readonly hook: number, readonly rx: boolean, readonly okfn: string, readonly p: Packet,
    readonly sk: Sock | null, readonly entries: number) {
    this.restore = hookSkb(p);
  }
}
export const netfilter = new Semantics<NetMachine>('net/netfilter');
// the struct nf_hook_state of a hook site, laid out when a probe reads it
netfilter.setup(() => kmem.addMaterializer((o, mem) => {
  if (!(o instanceof NfSlowArgs)) return null;
  const T = 'struct nf_hook_state';
  const a = mem.allocStruct(T);
  mem.bind(o, a);
  const dev = mem.addrOf(loDev, btfLookupType('struct net_device'));
  mem.setField(a, T, 'hook', o.hook);
  mem.setField(a, T, 'pf', NFPROTO_IPV4);
  mem.setField(a, T, o.rx ? 'in' : 'out', dev);
  if (o.sk) mem.setField(a, T, 'sk', mem.addrOf(o.sk, btfLookupType('struct sock')));
  mem.setField(a, T, 'okfn', kallsymsLookupName(o.okfn) ?? 0);
  return a;
}));
netfilter.fnArgs('nf_hook_slow', (m, _c, _t, e) => {
  const s = e.nfSlow as NfSlowArgs | undefined;
  if (!s) return [null, null, null, 0];
  return [s.p.skb, s, { num_hook_entries: s.entries }, 0];
});

/**
 * Whether an IPv4 hook is registered on the machine's transmit path (LOCAL_OUT, POST_ROUTING): the
 * recorded send trees (net/tcp.ts) have none there but AppArmor's, so a send with one runs its template.
 */
export function nfTxHooked(m: NetMachine): boolean {
  const n = nets.get(m.net);
  return n !== undefined && (n.needed[NFPROTO_IPV4 * 8 + NF_INET_LOCAL_OUT] > 0 || n.needed[NFPROTO_IPV4 * 8 + NF_INET_POST_ROUTING] > 0);
}
/**
 * Whether an IPv4 hook is registered on the machine's receive path (PRE_ROUTING, LOCAL_IN): the
 * recorded receive trees (net/rx.ts) have none, so a packet received with one runs its template.
 */
export function nfRxHooked(m: NetMachine): boolean {
  const n = nets.get(m.net);
  return n !== undefined && (n.needed[NFPROTO_IPV4 * 8 + NF_INET_PRE_ROUTING] > 0 || n.needed[NFPROTO_IPV4 * 8 + NF_INET_LOCAL_IN] > 0);
}
/** static key test: does (NFPROTO_IPV4, hook) have entries?  A stale result of an earlier site is cleared. */
function site(hook: number, rx: boolean, okfn: string) {
  return (m: NetMachine, _c: Cpu, _t: Task, e: Env): boolean => {
    const n = nets.get(m.net);
    if (n !== undefined && n.needed[NFPROTO_IPV4 * 8 + hook] > 0) {
      e.nfSlow = new NfSlowArgs(hook, rx, okfn, (rx ? e.pkt : e.out) as Packet, rx ? null : ((e.sock as Sock | undefined) ?? null),
        n.needed[NFPROTO_IPV4 * 8 + hook]);
      return true;
    }
    if (e.nfRc !== undefined) { e.nfRc = undefined; e.nfFreed = undefined; e.dropReason = undefined; }
    return false;
  };
}
const preRouting = site(NF_INET_PRE_ROUTING, true, 'ip_rcv_finish');
netfilter.cond('nf_pre_routing', (m, c, t, e) => (e.nfPre = preRouting(m, c, t, e)));
/** a PRE_ROUTING hook ran: ip_rcv_finish is called as NF_HOOK's okfn (else inlined in ip_rcv) */
netfilter.cond('nf_pre_ran', (_m, _c, _t, e) => e.nfPre === true);
netfilter.cond('nf_local_in', site(NF_INET_LOCAL_IN, true, 'ip_local_deliver_finish'));
netfilter.cond('nf_local_out', site(NF_INET_LOCAL_OUT, false, 'dst_output'));
netfilter.cond('nf_post_routing', site(NF_INET_POST_ROUTING, false, 'ip_finish_output'));
/** the packet went on past the hook (no hooks, or all accepted) */
netfilter.cond('nf_pass', (_m, _c, _t, e) => e.nfRc === undefined || e.nfRc === 1);
/** the hooks freed the packet (kfree_skb_reason follows) */
netfilter.cond('nf_freed', (_m, _c, _t, e) => e.nfFreed === true);

function run() {
  return (m: NetMachine, c: Cpu, t: Task, e: Env): number => {
    const a = e.nfSlow as NfSlowArgs;
    const { hook, okfn, rx, p, sk } = a;
    const dev = rx ? { in: loDev, out: null } : { in: null, out: loDev };
    let r: { rc: number; freed: boolean };
    try {
      r = runEntries(m, c, t, NFPROTO_IPV4, hook, p, dev, okfn, sk);
    } finally {
      a.restore();
    }
    const { rc, freed } = r;
    e.nfRc = rc;
    e.nfFreed = freed;
    if (freed) {
      e.skb = p.skb;
      e.dropReason = rc < 0 ? SKB_DROP_REASON_NETFILTER_DROP : SKB_DROP_REASON_NOT_SPECIFIED;
    }
    // a dropped datagram: udp_send_skb / ip_push_pending_frames return the error to sendmsg
    if (rc < 0 && sk && !sk.isTcp && (e.ret as number) >= 0) {
      e.ret = rc;
      e.err = -rc;
    }
    return H_CONT;
  };
}
for (const h of ['pre_routing', 'local_in', 'local_out', 'post_routing']) netfilter.hook(`nf_run_${h}`, run());
