/**
 * POSIX capabilities of a process (kernel/capability.c capget/capset, security/commoncap.c): root's
 * sets start full (CAP_LAST_CAP 40 on 6.1: bits 0..40), capset may only lower the permitted set and
 * keep effective within it; capget with a NULL data pointer (0) only checks the header (libcap's
 * version probe). The sets are given and returned as `caps` ({effective, permitted, inheritable}).
 */
import type { MachineCore } from '../core/machine';
import type { Process } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';

const EPERM = 1;
export const CAP_LAST_CAP = 40;
const FULL = 2 ** (CAP_LAST_CAP + 1) - 1;

interface CapSets { effective: number; permitted: number; inheritable: number }
const sets = new WeakMap<Process, CapSets>();
function capsOf(p: Process): CapSets {
  let c = sets.get(p);
  if (!c) {
    const root = p.uid === 0;
    sets.set(p, c = { effective: root ? FULL : 0, permitted: root ? FULL : 0, inheritable: 0 });
  }
  return c;
}

export const capability = new Semantics<MachineCore>('kernel/capability');

capability.syscall('capget', (_m, _c, t, e) => {
  if (Number(e.a[1]) !== 0) e.info = { caps: { ...capsOf(t.proc) } };
  e.ret = 0;
  return H_CONT;
});
capability.syscall('capset', (_m, _c, t, e) => {
  const cur = capsOf(t.proc);
  const want = e.caps as CapSets | undefined;
  if (!want) { e.ret = 0; return H_CONT; }
  // cap_capset: no new permitted bits, effective within the new permitted set
  const outside = (a: number, b: number): boolean => (BigInt(a) & ~BigInt(b)) !== 0n;
  if (outside(want.permitted, cur.permitted) || outside(want.effective, want.permitted)) { e.ret = -EPERM; return H_CONT; }
  sets.set(t.proc, { ...want });
  e.ret = 0;
  return H_CONT;
});
