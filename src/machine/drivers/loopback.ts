/** The loopback device's driver (drivers/net/loopback.c): loopback_xmit accounts the packet on `lo`. */
import type { NetMachine } from '../net/core';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { Packet } from '../include/net';

export const loopback = new Semantics<NetMachine>('drivers/loopback');

loopback.hook('lo_xmit', (m, _c, _t, e) => {
  const p = e.out as Packet;
  e.skb = p.skb;
  m.net.packets++;
  m.net.bytes += p.skb.len;
  return H_CONT;
});
