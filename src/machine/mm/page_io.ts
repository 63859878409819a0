/**
 * Swap I/O (mm/page_io.c): the bios of swap-out and swap-in, made where the recorded trees make them.
 *
 * Swap-out: each `add_to_swap` of a memory cgroup's recorded reclaim swaps out one of the group's pages
 * (mm/vmscan.ts), whose slot (mm/swapfile.ts) the following `__swap_writepage` writes: one page-sized
 * REQ_OP_WRITE|REQ_SWAP bio at the slot's sector, plugged on the CPU (blk_mq_submit_bio's plug: bios of
 * consecutive slots back-merge into requests of up to max_sectors, 256 sectors, as the recording's
 * `W 131072 ... + 256`), issued at the tree's blk_mq_flush_plug_list (block/core.ts), completed by the
 * disk interrupt and BLOCK_SOFTIRQ (end_swap_bio_write).  Nothing waits for it.
 *
 * Swap-in: a fault on a swapped-out page not in the swap cache reads it and its readahead window
 * (`swapInIo`, before the fault's state changes: the slots are still the pages'): one REQ_OP_READ bio per
 * page in slot order (swap_cluster_readahead), taken by the tree's `swap_readpage` calls; the fault then
 * sleeps in `__folio_lock_or_retry`'s io_schedule until the page's request completes (end_swap_bio_read
 * wakes it).  A later fault on a readahead page whose read has not completed sleeps on the same request.
 */
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import type { Cpu, CpuMachine } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import type { BlkRequest } from '../include/blkdev';
import { PAGE } from '../include/fs';
import type { Mm, Region, FaultPlan } from '../include/mm_types';
import { swapEntryOf, swapSlotSector, swapSlotWritten, type SwapEntry } from './swapfile';
import { swapRequestTarget, flushPlugTraced, type BlockLayer } from '../block/core';

/** What swap I/O uses of the machine (mm/mm.ts MmMachine has it): the block layer, and the swap-in's readahead window. */
export interface PageIoMachine extends CpuMachine {
  readonly blk: BlockLayer;
  readonly mm: { readaheadPages(mm: Mm, r: Region, i: number): number[] };
}

/** include/linux/blk_types.h (6.1) __REQ_SWAP: a swap bio (rwbs shows no letter for it) */
export const REQ_SWAP = 1 << 25;

/** A page-sized swap bio of slot `s` on CPU `cpu`. */
export function swapBio(s: SwapEntry, write: boolean, cpu: number): BlkRequest {
  return { ino: null, pages: [], write, swap: true, sector: swapSlotSector(s.dev, s.slot), bytes: PAGE, cpu, waiters: [], flags: write ? REQ_SWAP : 0, merge: true };
}

/** Per address space, the swap-ins in flight: the page's address -> the bio reading it. */
const inflight = new WeakMap<Mm, Map<number, BlkRequest>>();

/** Swap-in bios plugged by a tree's swap_readpage (the others are plugged when a fault waits for them). */
const plugged = new WeakSet<BlkRequest>();
/** Whether bio `q` is still being read (its request has not completed). */
const pending = (q: BlkRequest): boolean => !swapRequestTarget(q).done;
/**
 * Whether a swap-in's readahead of the page at `addr` of `mm` is still reading it (planned by a fault, its
 * request not completed): the folio is locked (swap_readpage's caller holds it until end_swap_bio_read).
 */
export function swapReadPending(mm: Mm, addr: number): boolean {
  const q = inflight.get(mm)?.get(addr);
  return q !== undefined && pending(q);
}

/**
 * The swap I/O of a fault of kind `kind` on page `i` of `r`, planned (`plan`) on CPU `c`, prepared on the
 * fault's environment before the fault changes the pages' state: a fault that reads the device gets one
 * bio per page it reads (the page and its readahead window, mm/mm.ts readaheadPages), in slot order
 * (`e.swapReads`, taken by the tree's swap_readpage calls); a fault that must wait for the page's read (its
 * own, or a readahead's still in flight) names it (`e.swapWait`) and takes a recorded tree that slept
 * (`e.blockedTree`, paths/model.ts modelPath), unless it reclaims first (see below); the tree chosen reads
 * as many pages as the machine does where the recordings have one (`e.treeCount`).
 */
export function swapInIo(m: PageIoMachine, c: Cpu, mm: Mm, r: Region, i: number, kind: string, plan: FaultPlan, e: Env): void {
  clearFaultIo(e);
  if (kind !== 'swap') return;
  const addr = r.start + i * PAGE;
  let fl = inflight.get(mm);
  if (!plan.swapIo) {
    const q = fl?.get(addr);
    fl?.delete(addr);
    if (q && pending(q)) { e.swapWait = q; if (!plan.treeFeat.includes('rc')) e.blockedTree = 'fault'; }
    return;
  }
  if (!fl) inflight.set(mm, (fl = new Map()));
  const reads: [number, SwapEntry][] = [];
  for (const k of [i, ...m.mm.readaheadPages(mm, r, i)]) {
    const s = swapEntryOf(r, k);
    if (s) reads.push([k, s]);
  }
  reads.sort((a, b) => a[1].slot - b[1].slot);
  const bios: BlkRequest[] = [];
  for (const [k, s] of reads) {
    const q = swapBio(s, false, c.id);
    bios.push(q);
    if (k === i) e.swapWait = q; else fl.set(r.start + k * PAGE, q);
  }
  e.swapReads = bios;
  // the recorded swap-in reading as many pages (one swap_readpage each)
  e.treeCount = ['fault', 'swap_readpage', bios.length];
  // (a fault that reclaims first takes the recorded reclaim trees, none of which slept for the read after
  // swapping out: its read completes without a wait)
  if (e.swapWait && !plan.treeFeat.includes('rc')) e.blockedTree = 'fault';
}

/**
 * A fault's swap I/O cleared from its env (swapInIo's fields, and the bio the block tracepoints see): the
 * kernel faults of one system call share the call's env, and an earlier fault's bio is not this one's.
 */
export function clearFaultIo(e: Env): void {
  e.req = undefined;
  e.swapReads = undefined;
  e.swapReadNext = 0;
  e.swapWait = undefined;
  e.blockedTree = undefined;
  e.treeCount = undefined;
}

export const pageIo = new Semantics<PageIoMachine>('mm/page_io');

/** Per reclaiming task, its swap-outs whose folio no pageout has written yet, oldest first. */
const dirtyFolios = new WeakMap<Task, SwapEntry[]>();
/**
 * Task `t`'s reclaim swapped out `s` (add_to_swap: mm/vmscan.ts): its folio, dirty in the swap cache, is
 * what the task's next pageout writes, in this reclaim pass or, when the recorded pass wrote fewer folios
 * than it added to the swap cache, a later one (shrink_folio_list finds the dirty swap-cache folio again).
 */
export function queuePageout(t: Task, s: SwapEntry): void {
  let q = dirtyFolios.get(t);
  if (!q) dirtyFolios.set(t, (q = []));
  q.push(s);
  if (s.mm && s.addr !== undefined) {
    let w = pageouts.get(s.mm);
    if (!w) pageouts.set(s.mm, (w = new Map()));
    w.set(s.addr, null);
  }
}
/**
 * Per address space, the swap cache folios a memory cgroup's reclaim swapped out, by address: the bio that
 * writes each (null: no pageout has written it yet, the folio is dirty).
 */
const pageouts = new WeakMap<Mm, Map<number, BlkRequest | null>>();
/**
 * Whether the swap cache folio at `addr` of `mm` cannot be freed yet: dirty (its pageout has not written it)
 * or under writeback (its write has not completed: end_swap_bio_write ends it and folio_rotate_reclaimable
 * puts it back at the inactive list's tail, where the next reclaim frees it).
 */
export function swapWritePending(mm: Mm, addr: number): boolean {
  const w = pageouts.get(mm);
  if (!w || !w.has(addr)) return false;
  const q = w.get(addr);
  if (q && !pending(q)) { w.delete(addr); return false; }
  return true;
}
/** The next folio task `t`'s pageout writes: its oldest swap-out whose slot is still unwritten (swapSlotWritten). */
function nextPageout(t: Task): SwapEntry | undefined {
  const q = dirtyFolios.get(t);
  // (a folio faulted back in from the swap cache before its pageout has nothing left to write)
  for (let s = q?.shift(); s; s = q?.shift()) if (swapSlotWritten(s)) return s;
  return undefined;
}

/**
 * __swap_writepage: the folio pageout hands to swap_writepage (`e.writeFolio`, its frame: mm_vmscan_write_folio,
 * mm/vmscan.ts) and the bio of the page the task's reclaim swapped out before it (queuePageout), plugged
 * (submit_bio -> blk_mq_submit_bio); it is the bio the tree's block tracepoints see.
 */
pageIo.hook('swap_write_bio', (m, c, t, e) => {
  const s = nextPageout(t);
  // (no page of the machine's for this recorded swap-out: its folio is not known, no bio is submitted)
  e.writeFolio = s?.pfn;
  if (!s) { e.req = undefined; return H_CONT; }
  const q = swapBio(s, true, c.id);
  e.req = q;
  m.blk.queue(c, q);
  if (s.mm && s.addr !== undefined) pageouts.get(s.mm)?.set(s.addr, q);
  return H_CONT;
});
pageIo.at('__swap_writepage', 'swap_write_bio');

/** swap_readpage: the next bio of the fault's swap-in (swapInIo), plugged. */
pageIo.hook('swap_read_bio', (m, c, _t, e) => {
  const reads = e.swapReads as BlkRequest[] | undefined;
  const n = (e.swapReadNext as number | undefined) ?? 0;
  // (a recorded read past the machine's: no bio)
  if (!reads || n >= reads.length) { e.req = undefined; return H_CONT; }
  e.swapReadNext = n + 1;
  e.req = reads[n];
  plugged.add(reads[n]);
  m.blk.queue(c, reads[n]);
  return H_CONT;
});
pageIo.at('swap_readpage', 'swap_read_bio');

/**
 * The fault's reads the tree's swap_readpage calls did not take (the machine's readahead window is wider than
 * the recorded one) go to the device too, after them; what is plugged is issued (schedule's blk_flush_plug:
 * the block layer's traced flush, block_unplug and the requests' block_rq_insert / block_rq_issue, pushed
 * on the task's stack: H_PUSHED).
 */
function readRest(m: PageIoMachine, c: Cpu, t: Task, e: Env): number {
  for (const q of (e.swapReads as BlkRequest[] | undefined) ?? []) if (!plugged.has(q)) { plugged.add(q); m.blk.queue(c, q); }
  const plug = m.blk.plugOf(c);
  return plug.rqs.length || plug.full.length ? flushPlugTraced(t.ks) : H_CONT;
}
/** do_swap_page returns: the fault's reads are all on their way. */
pageIo.hook('swap_read_rest', (m, c, t, e) => (e.swapReads ? readRest(m, c, t, e) : H_CONT));
pageIo.at('do_swap_page', 'swap_read_rest', 'exit');

/**
 * io_schedule of the fault's folio lock (__folio_lock_or_retry): the fault's reads go to the device, and
 * the task sleeps until the page's request completes.
 */
pageIo.hook('swap_read_wait', (m, c, t, e) => {
  const w = e.swapWait as BlkRequest | undefined;
  if (!w) return H_CONT;
  e.swapWait = undefined;
  // (a readahead page read by an earlier fault: its read may still be waiting for that fault's end)
  if (!plugged.has(w)) { plugged.add(w); m.blk.queue(c, w); }
  const q = swapRequestTarget(w);
  if (!q.done) {
    q.waiters.push(t);
    t.state = TASK_UNINTERRUPTIBLE;
    t.wchan = '__folio_lock_or_retry';
    // (the fault returns VM_FAULT_RETRY once woken, and is taken again: mm/fault.ts kfault_buffer)
    e.faultRetry = true;
  }
  // (the flush runs before the task sleeps, as schedule's blk_flush_plug)
  return readRest(m, c, t, e);
});
pageIo.at('io_schedule', 'swap_read_wait');
