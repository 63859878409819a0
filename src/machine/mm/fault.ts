/** Page faults (arch/x86/mm/fault.c, mm/memory.c): the kind of fault the path takes (anon, file, COW, swap-in), its resolution and accounting (minor/major), the wait for swap-in I/O. */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { PAGE } from '../include/fs';
import { Region, Mm } from '../include/mm_types';
import { perfSw, PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_PAGE_FAULTS_MIN } from '../kernel/perf_events';
import { timedWake } from '../kernel/time';

export const fault = new Semantics<MmMachine>('mm/fault');

// page faults
fault.cond('fault_anon', (_m, _c, _t, e) => e.kind === 'anon');
fault.cond('fault_file', (_m, _c, _t, e) => e.kind === 'file');
fault.cond('fault_wp', (_m, _c, _t, e) => e.kind === 'wp');
fault.cond('fault_swap', (_m, _c, _t, e) => e.kind === 'swap');
fault.cond('wp_swapcache', (_m, _c, _t, e) => e.swapcache === true);
fault.cond('swapin_io', () => true);
fault.cond('reclaim', (_m, _c, _t, e) => e.reclaim === true);
fault.hook('fault', (m, c, _t, e) => {
  m.mm.faultDone(e.kind as string, e.region as Region, e.idx as number, e.mm as Mm, e.write !== false);
  // mm_account_fault(): a swap-in is a major fault (as pgmajfault), the others minor
  if (perfSw.active) perfSw.event(e.kind === 'swap' ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN, c.ctx);
  return H_CONT;
});
const faultAddr = (e: Record<string, unknown>): number => (e.address as number | undefined) ?? 0x7f0000000000 + (e.idx as number) * PAGE;
const faultCode = (e: Record<string, unknown>): number => (e.code as number | undefined) ?? (e.kind === 'wp' ? 7 : 6);
fault.tpArgs('page_fault_user', (_m, _c, _t, e) => [faultAddr(e), { ip: faultAddr(e) }, faultCode(e)]);
fault.tpArgs('page_fault_kernel', (_m, _c, _t, e) => [faultAddr(e), { ip: 0 }, faultCode(e) & ~4]);
fault.hook('swapin_wait', (m, _c, t, e) => {
  if (e.swWaited) return H_CONT;
  e.swWaited = true;
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'swap_readpage';
  timedWake(m, t, m.blk.disk.latencyNs + 8000);
  return H_SLEEP;
});
