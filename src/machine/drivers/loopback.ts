/** The loopback device's driver (drivers/net/loopback.c): loopback_xmit pulls the Ethernet header and accounts the packet on `lo`. */
import type { NetMachine } from '../net/core';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { Packet } from '../include/net';
import { ethTypeTrans } from '../net/layout';

export const loopback = new Semantics<NetMachine>('drivers/loopback');

loopback.hook('lo_xmit', (m, _c, _t, e) => {
  const p = e.out as Packet;
  // a reply sent from the receive path (ICMP echo) keeps the received packet's skb for what follows
  if (e.skb === undefined) e.skb = p.skb;
  // skb->protocol = eth_type_trans(skb, dev); len = skb->len; ... dev_lstats_add(dev, len)
  ethTypeTrans(p.skb);
  m.net.packets++;
  m.net.bytes += p.skb.len;
  return H_CONT;
});
