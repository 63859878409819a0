/** Page faults (arch/x86/mm/fault.c, mm/memory.c): the kind of fault the path takes (anon, file, COW, swap-in), its resolution and accounting (minor/major), the wait for swap-in I/O. */
import { Semantics } from '../paths/semantics';
import { H_AGAIN, H_CONT, H_SLEEP } from '../paths/kexec';
import { pushKernelFault } from '../paths/entry';
import { treeFeatureLabel } from '../paths/model';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { PAGE } from '../include/fs';
import { Region, Mm, MemCgroup, PROT_EXEC, isUserPointer, type FaultPlan } from '../include/mm_types';
import { faultKind, type MmMachine } from './mm';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { perfSw, PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_PAGE_FAULTS_MIN } from '../kernel/perf_events';
import { timedWake } from '../kernel/time';
import { swapInIo, clearFaultIo } from './page_io';

export const fault = new Semantics<MmMachine>('mm/fault');

// page faults
fault.cond('fault_anon', (_m, _c, _t, e) => e.kind === 'anon');
fault.cond('fault_file', (_m, _c, _t, e) => e.kind === 'file');
fault.cond('fault_wp', (_m, _c, _t, e) => e.kind === 'wp');
// a swap-in that reads the swap device (not found in the swap cache) waits for the read
fault.cond('fault_swap', (_m, _c, _t, e) => e.kind === 'swap' && e.swapIo !== false);
fault.cond('wp_swapcache', (_m, _c, _t, e) => e.swapcache === true);
fault.cond('swapin_io', () => true);
fault.cond('reclaim', (_m, _c, _t, e) => e.reclaim === true);
fault.hook('fault', (m, c, t, e) => {
  m.mm.faultDone(e.kind as string, e.region as Region, e.idx as number, e.mm as Mm, e.write !== false, (e.memcg as MemCgroup | null | undefined) ?? null, e as unknown as FaultPlan);
  // mm_account_fault(): a swap-in that read the device is a major fault (as pgmajfault), the others minor
  const major = e.kind === 'swap' && e.swapIo !== false;
  if (e.name === 'page_fault') { if (major) t.majFlt++; else t.minFlt++; }
  if (perfSw.active) perfSw.event(major ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN, c.ctx);
  return H_CONT;
});
/**
 * handle_mm_fault's vm_fault_t (include/linux/mm_types.h of 6.1), as the real guest returns it
 * (kretprobe on handle_mm_fault during `ls /` under ../shared/tools/qemu-debian-guest: 0x0 for
 * anonymous pages, 0x100 VM_FAULT_NOPAGE for file reads mapped by fault-around (filemap_map_pages),
 * 0x200 VM_FAULT_LOCKED for file pages that __do_fault locked (writes to a file mapping),
 * 0x8 VM_FAULT_WRITE for a copy-on-write, 0x4 VM_FAULT_MAJOR for a swap-in).
 */
const VM_FAULT_MAJOR = 0x4, VM_FAULT_WRITE = 0x8, VM_FAULT_NOPAGE = 0x100, VM_FAULT_LOCKED = 0x200;
const faultResult = (e: Env): number =>
  e.name !== 'page_fault' ? 0 : e.kind === 'file' ? (e.write === true ? VM_FAULT_LOCKED : VM_FAULT_NOPAGE)
    : e.kind === 'wp' ? VM_FAULT_WRITE : e.kind === 'swap' ? VM_FAULT_MAJOR : 0;
fault.fnRet('handle_mm_fault', faultResult);
fault.fnRet('__handle_mm_fault', faultResult);
/**
 * handle_mm_fault(vma, address, flags, regs): the faulting address and the FAULT_FLAG_* bits
 * do_user_addr_fault passes, as the real guest's kprobe on handle_mm_fault shows them during
 * `ls /`: a user fault 0x254 (ALLOW_RETRY|KILLABLE|USER|INTERRUPTIBLE), |0x1 for a write, |0x100
 * for an instruction fetch (a read of an executable file mapping); a fault the kernel takes on a
 * user buffer inside a system call has no USER bit (0x214|write); execve's copy of the arguments
 * onto the new stack (get_user_pages_remote) is 0x81 (WRITE|REMOTE) at the temporary stack top.
 */
const FAULT_FLAG_WRITE = 0x1, FAULT_FLAG_USER = 0x40, FAULT_FLAG_REMOTE = 0x80, FAULT_FLAG_INSTRUCTION = 0x100;
const FAULT_FLAGS_KERNEL = 0x214;
const STACK_TOP_MAX = 0x7ffffffff000;
function faultArgs(t: Task, e: Env): [number, number] {
  if (e.name === 'page_fault') {
    const r = e.region as Region | undefined;
    const exec = e.kind === 'file' && e.write !== true && r !== undefined && (r.prot & PROT_EXEC) !== 0;
    const flags = FAULT_FLAGS_KERNEL | FAULT_FLAG_USER | (e.write === true ? FAULT_FLAG_WRITE : 0) | (exec ? FAULT_FLAG_INSTRUCTION : 0);
    return [faultAddr(e), flags];
  }
  if (e.name === 'execve') return [STACK_TOP_MAX - 0x10, FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE];
  // a copy to the user buffer of the system call (a read into a fresh heap or stack page)
  const mm = t.proc.mm;
  const a1 = e.a?.[1];
  const buf = isUserPointer(a1) ? a1 : mm ? (mm.brk || mm.stackTop - 0x2000) : 0;
  return [buf, FAULT_FLAGS_KERNEL | FAULT_FLAG_WRITE];
}
fault.fnArgs('handle_mm_fault', (_m, _c, t, e) => {
  const [address, flags] = faultArgs(t, e);
  return [0, address, flags, 0];
});
const faultAddr = (e: Record<string, unknown>): number => (e.address as number | undefined) ?? 0x7f0000000000 + (e.idx as number) * PAGE;
const faultCode = (e: Record<string, unknown>): number => (e.code as number | undefined) ?? (e.kind === 'wp' ? 7 : 6);
fault.tpArgs('page_fault_user', (_m, _c, _t, e) => [faultAddr(e), { ip: faultAddr(e) }, faultCode(e)]);
// a fault inside a system call (paths/entry.ts kfault_point): the user buffer the call copies to, error
// code 2 (a write, not present, no USER bit)
fault.tpArgs('page_fault_kernel', (_m, _c, t, e) => (e.name === 'page_fault' ? [faultAddr(e), { ip: 0 }, faultCode(e) & ~4] : [faultArgs(t, e)[0], { ip: 0 }, 2]));
/**
 * A system call's copy to a user buffer it names (read(2)'s `buf`, `count`: drivers/char/mem.c read_zero's
 * clear_user): each page of the buffer not mapped faults in kernel mode, in order, with the tree the
 * machine's state calls for (mm/mm.ts faultPlan: a new page or a huge page, a swap-in from the device
 * or the swap cache, a memory cgroup's reclaim first), and is mapped (faultDone) as it goes.
 */
fault.hook('kfault_buffer', (m, c, t, e) => {
  const mm = t.proc.mm;
  const addr = e.a?.[1], len = e.a?.[2];
  if (!mm || !isUserPointer(addr) || typeof len !== 'number' || len <= 0) return H_CONT;
  // the fault before slept for its folio's read (mm/page_io.ts swap_read_wait): __folio_lock_or_retry released
  // the mmap lock and waited, handle_mm_fault returned VM_FAULT_RETRY, and do_user_addr_fault takes the fault
  // again, which finds the folio read, in the swap cache (a retry's tree: lock_mm_and_find_vma, do_swap_page
  // without readahead; the recording's second read: 1348 faults for 1280 pages, 78 of them slept)
  if (e.faultRetry === true) {
    e.faultRetry = undefined;
    clearFaultIo(e);
    if (pushKernelFault(m, c, t, e, `${treeFeatureLabel('fault', [])}|kernel|swap`, true)) return H_AGAIN;
  }
  const r = mm.find(addr);
  if (!r || r.file) return H_CONT;
  const end = Math.min(r.pages.length, Math.ceil((addr + len - r.start) / PAGE));
  let i = (e.kbufNext as number | undefined) ?? Math.floor((addr - r.start) / PAGE);
  while (i < end && !faultKind(r, r.pages[i], true)) i++;
  if (i >= end) { e.kbufNext = end; return H_CONT; }
  const kind = faultKind(r, r.pages[i], true);
  const g = t.proc.memcg;
  const plan = m.mm.faultPlan(g, mm, r, i, kind, true, c.id);
  swapInIo(m, c, mm, r, i, kind, plan, e);
  m.mm.faultDone(kind, r, i, mm, true, g, plan);
  m.mm.pgfault++;
  if (kind === 'swap' && plan.swapIo !== false) t.majFlt++; else t.minFlt++;
  e.kbufNext = i + 1;
  return pushKernelFault(m, c, t, e, `${treeFeatureLabel('fault', plan.treeFeat)}|kernel|${kind}`) ? H_AGAIN : H_CONT;
});
// (a fault whose recorded tree reads the page waits in it for the read: mm/page_io.ts swap_read_wait)
fault.hook('swapin_wait', (m, _c, t, e) => {
  if (e.swWaited || e.swapReads || e.swapWait) return H_CONT;
  e.swWaited = true;
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'swap_readpage';
  timedWake(m, t, m.blk.disk.latencyNs + 8000);
  return H_SLEEP;
});
