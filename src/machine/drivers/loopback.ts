/** The loopback device's driver (drivers/net/loopback.c): loopback_xmit pulls the Ethernet header and accounts the packet on `lo`. */
import type { NetMachine } from '../net/core';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { Packet } from '../include/net';
import { ethTypeTrans } from '../net/layout';

export const loopback = new Semantics<NetMachine>('drivers/loopback');

/** loopback_xmit of packet `p`: skb->protocol = eth_type_trans(skb, dev); len = skb->len; ... dev_lstats_add(dev, len) */
export function loXmit(m: NetMachine, p: Packet): void {
  ethTypeTrans(p.skb);
  m.net.packets++;
  m.net.bytes += p.skb.len;
}
loopback.hook('lo_xmit', (m, _c, _t, e) => {
  const p = e.out as Packet;
  // a reply sent from the receive path (ICMP echo) keeps the received packet's skb for what follows
  if (e.skb === undefined) e.skb = p.skb;
  loXmit(m, p);
  return H_CONT;
});
/** loopback_xmit in a recorded transmit path, for the packet the call sends there (net/core.ts xmit_next) */
loopback.hook('lo_xmit_rec', (m, _c, _t, e) => {
  if (e.txing) loXmit(m, e.out as Packet);
  return H_CONT;
});
loopback.at('loopback_xmit', 'lo_xmit_rec');
