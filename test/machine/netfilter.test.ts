import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import {
  NfNet, NfHookOps, NfHookFn, nfRegisterNetHook, nfUnregisterNetHook,
  NFPROTO_IPV4, NFPROTO_ARP, NFPROTO_BRIDGE, NF_INET_PRE_ROUTING, NF_INET_LOCAL_IN, NF_INET_LOCAL_OUT,
  NF_INET_POST_ROUTING, NF_ACCEPT, NF_DROP, NF_STOLEN, NF_QUEUE,
} from '../../src/machine/net/netfilter';
import { IPPROTO_ICMP } from '../../src/machine/include/net';

const accept: NfHookFn = () => NF_ACCEPT;
const ops = (hooknum: number, priority: number, hook: NfHookFn = accept, pf = NFPROTO_IPV4): NfHookOps => ({ pf, hooknum, priority, hook });

describe('netfilter hook lists (nf_hook_entries)', () => {
  it('keeps entries sorted by priority; among equal priorities the last registered runs first', () => {
    const n = new NfNet();
    const a = ops(NF_INET_LOCAL_OUT, 0), b = ops(NF_INET_LOCAL_OUT, -100), c = ops(NF_INET_LOCAL_OUT, 100), d = ops(NF_INET_LOCAL_OUT, 0);
    for (const o of [a, b, c, d]) expect(n.register(o)).to.equal(0);
    expect(n.entries(NFPROTO_IPV4, NF_INET_LOCAL_OUT)).to.deep.equal([b, d, a, c]);
    expect(n.needed[NFPROTO_IPV4 * 8 + NF_INET_LOCAL_OUT]).to.equal(4);
    expect(n.entries(NFPROTO_IPV4, NF_INET_PRE_ROUTING)).to.deep.equal([]);
    n.unregister(d);
    n.unregister(b);
    expect(n.entries(NFPROTO_IPV4, NF_INET_LOCAL_OUT)).to.deep.equal([a, c]);
    n.unregister(a);
    n.unregister(c);
    expect(n.needed[NFPROTO_IPV4 * 8 + NF_INET_LOCAL_OUT]).to.equal(0);
  });

  it('rejects hooks a family does not have and unknown families', () => {
    const n = new NfNet();
    expect(n.register(ops(3, 0, accept, NFPROTO_ARP))).to.equal(-22);
    expect(n.register(ops(2, 0, accept, NFPROTO_ARP))).to.equal(0);
    expect(n.register(ops(5, 0, accept, NFPROTO_BRIDGE))).to.equal(0);
    expect(n.register(ops(5, 0, accept, NFPROTO_IPV4))).to.equal(-22);
    expect(n.register(ops(0, 0, accept, 42))).to.equal(-2);
  });
});

describe('netfilter hooks on the loopback paths', () => {
  it('calls the IPv4 hooks where 6.1 has NF_HOOK, with skb->len the datagram length', () => {
    const m = new Machine({ seed: 3 });
    const seen: string[] = [];
    const mk = (name: string, hooknum: number): NfHookOps => ops(hooknum, 0, (_p, skb, st) => {
      seen.push(`${name} ${st.in ? st.in.name : '-'} ${st.out ? st.out.name : '-'} ${st.okfn} ${skb.received ? skb.len : skb.len - 14}`);
      return NF_ACCEPT;
    });
    const list = [mk('pre', NF_INET_PRE_ROUTING), mk('in', NF_INET_LOCAL_IN), mk('out', NF_INET_LOCAL_OUT), mk('post', NF_INET_POST_ROUTING)];
    for (const o of list) expect(nfRegisterNetHook(m.net, o)).to.equal(0);
    const r = m.run('ping -c 1 127.0.0.1');
    for (const o of list) nfUnregisterNetHook(m.net, o);
    expect(r.out).to.match(/1 packets transmitted, 1 received/);
    // echo request: out, post, pre, in; the echo reply (sent from icmp_rcv) the same
    expect(seen).to.deep.equal([
      'out - lo dst_output 84', 'post - lo ip_finish_output 84', 'pre lo - ip_rcv_finish 84', 'in lo - ip_local_deliver_finish 84',
      'out - lo dst_output 84', 'post - lo ip_finish_output 84', 'pre lo - ip_rcv_finish 84', 'in lo - ip_local_deliver_finish 84',
    ]);
  });

  it('runs entries in priority order and stops at the first verdict other than NF_ACCEPT', () => {
    const m = new Machine({ seed: 3 });
    const order: string[] = [];
    const entry = (name: string, prio: number, v: number) => ops(NF_INET_LOCAL_OUT, prio, (_p, _s, st) => {
      if (st.pkt.proto === IPPROTO_ICMP) order.push(name);
      return v;
    });
    const list = [entry('late', 10, NF_ACCEPT), entry('first', -10, NF_ACCEPT), entry('drop', 0, NF_DROP)];
    for (const o of list) nfRegisterNetHook(m.net, o);
    const r = m.run('ping -c 2 -i 0.2 127.0.0.1');
    for (const o of list) nfUnregisterNetHook(m.net, o);
    expect(order).to.deep.equal(['first', 'drop', 'first', 'drop']);
    // NF_DROP: the echo request never leaves; sendmsg fails with EPERM
    expect(r.out).to.contain('ping: sendmsg: Operation not permitted\nping: sendmsg: Operation not permitted\n');
    expect(r.out).to.contain('2 packets transmitted, 0 received, 100% packet loss');
  });

  it('NF_STOLEN and NF_QUEUE (no listener) take the packet silently; the sender sees success', () => {
    for (const v of [NF_STOLEN, NF_QUEUE]) {
      const m = new Machine({ seed: 3 });
      let reached = 0;
      const steal = ops(NF_INET_POST_ROUTING, 0, (_p, _s, st) => (st.pkt.proto === IPPROTO_ICMP && st.pkt.icmpType === 0 ? v : NF_ACCEPT));
      const count = ops(NF_INET_PRE_ROUTING, 0, (_p, _s, st) => { if (st.pkt.proto === IPPROTO_ICMP) reached++; return NF_ACCEPT; });
      nfRegisterNetHook(m.net, steal);
      nfRegisterNetHook(m.net, count);
      // the echo reply vanishes after LOCAL_OUT: the request arrives, the reply never does
      m.run('ping -c 1 127.0.0.1 > /tmp/ping.out 2>&1 &');
      m.runUntil(m.now + 2e9);
      expect(reached, `verdict ${v}`).to.equal(1);
      nfUnregisterNetHook(m.net, steal);
      nfUnregisterNetHook(m.net, count);
    }
  });
});
