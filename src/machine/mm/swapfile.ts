/** swapon/swapoff (mm/swapfile.c): swap devices and files, their slots and priorities. */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { PAGE } from '../include/fs';

const ENOENT = 2, EINVAL = 22;

export const swapfile = new Semantics<MmMachine>('mm/swapfile');

swapfile.syscall('swapon', (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  if (m.mm.swaps.some((s) => s.path === p)) { e.ret = -16; return H_CONT; } // EBUSY
  const slots = Math.floor((ino.isBlk ? 2 * 1024 * 1024 * 1024 : ino.size) / PAGE) - 1;
  m.mm.swaps.push({ path: p, slots, used: 0, prio: -2 - m.mm.swaps.length });
  e.ret = 0;
  return H_CONT;
});
swapfile.syscall('swapoff', (m, _c, t, e) => {
  const p = String(e.a[0]);
  const i = m.mm.swaps.findIndex((s) => s.path === p);
  if (i < 0) { e.ret = -EINVAL; return H_CONT; }
  m.mm.swaps.splice(i, 1);
  e.ret = 0;
  return H_CONT;
});
