/**
 * swapon/swapoff (mm/swapfile.c): swap devices and files, their slots and priorities.  Each swap area
 * keeps its slot map (swap_info_struct's swap_map: slot 0 is the mkswap header) and allocates as
 * scan_swap_map_slots does on a rotational device (the recorded guest's AHCI disk: its trees take
 * swap_cluster_readahead, not the VMA readahead of a non-rotational swap; swapSlotAlloc).  A slot's place
 * on the disk is the swap file's extent (setup_swap_extents: a file's blocks from its first one; a block
 * device's from sector 0).
 */
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { PAGE, type Inode } from '../include/fs';
import type { CpuMachine } from '../include/cpu';
import type { SwapDev, Region, Mm } from '../include/mm_types';

const ENOENT = 2, EINVAL = 22;

/**
 * A swap area's slots: in use (1) or free (0), the next one to try (cluster_next), the allocations left in
 * the current cluster (cluster_nr), the disk block of slot 0, and the slots whose page is still only in its
 * swap-cache folio (`dirty`: add_to_swap gave the folio the slot, no pageout has written it yet; the entry
 * of the swap-out that took it).
 */
interface SwapArea { readonly map: Uint8Array; next: number; clusterNr: number; readonly startBlock: number; readonly dirty: Map<number, SwapEntry> }
const areas = new WeakMap<SwapDev, SwapArea>();
function area(d: SwapDev): SwapArea {
  let a = areas.get(d);
  if (!a) areas.set(d, (a = newArea(d.slots, 0)));
  return a;
}
const newArea = (slots: number, startBlock: number): SwapArea => ({ map: new Uint8Array(slots + 1), next: 1, clusterNr: 0, startBlock, dirty: new Map() });
/** mm/swapfile.c SWAPFILE_CLUSTER: the run of slots a rotational device allocates in order */
const SWAPFILE_CLUSTER = 256;

/**
 * Allocate a slot of `d`; -1 when full.  scan_swap_map_slots on a rotational device: every
 * SWAPFILE_CLUSTER allocations it looks for the first run of that many free slots from the start of the
 * area (to keep the swap span short; the recording's first write is slot 1, and a later one jumps past
 * slots still in use), then takes the first free slot from cluster_next, wrapping to 1.
 */
export function swapSlotAlloc(d: SwapDev): number {
  const a = area(d);
  const n = a.map.length;
  if (d.used >= n - 1) return -1;
  if (a.clusterNr-- <= 0) {
    a.clusterNr = SWAPFILE_CLUSTER - 1;
    if (n - 1 - d.used >= SWAPFILE_CLUSTER) {
      for (let o = 1, run = 0; o < n; o++) {
        run = a.map[o] ? 0 : run + 1;
        if (run === SWAPFILE_CLUSTER) { a.next = o - SWAPFILE_CLUSTER + 1; break; }
      }
    }
  }
  for (let k = 0; k < n - 1; k++) {
    const s = ((a.next - 1 + k) % (n - 1)) + 1;
    if (!a.map[s]) {
      a.map[s] = 1;
      a.next = s + 1 < n ? s + 1 : 1;
      d.used++;
      return s;
    }
  }
  return -1;
}

/** Free slot `s` of `d` (swap_range_free). */
export function swapSlotFree(d: SwapDev, s: number): void {
  const a = area(d);
  if (s > 0 && s < a.map.length && a.map[s]) { a.map[s] = 0; d.used--; }
  a.dirty.delete(s);
}

/**
 * Swap-out `e` took its slot (add_to_swap): until a pageout writes it (`swapSlotWritten`) the page's data is
 * only in its swap-cache folio, where a fault or a neighbour's readahead finds it (`swapSlotOnDevice`).
 */
export function swapSlotDirty(e: SwapEntry): void {
  area(e.dev).dirty.set(e.slot, e);
}
/**
 * The pageout of swap-out `e` writes its slot (__swap_writepage); false when the entry is stale (its page
 * was faulted back in from the swap cache since, the slot freed or taken by another page): nothing to write.
 */
export function swapSlotWritten(e: SwapEntry): boolean {
  const a = area(e.dev);
  if (a.dirty.get(e.slot) !== e) return false;
  a.dirty.delete(e.slot);
  return true;
}
/**
 * Whether slot `s` of `d` holds its page's data on the device: in use and written.  A slot add_to_swap took
 * and no pageout wrote is read by nobody: its folio is in the swap cache (swapin_readahead's
 * __read_swap_cache_async finds it there, do_swap_page maps it without I/O).
 */
export function swapSlotOnDevice(d: SwapDev, s: number): boolean {
  const a = area(d);
  return s > 0 && s < a.map.length && a.map[s] === 1 && !a.dirty.has(s);
}

/** The first sector of slot `s` of `d` on its block device (the ext4 partition for a swap file: map_swap_entry). */
export function swapSlotSector(d: SwapDev, s: number): number {
  return (area(d).startBlock + s) * (PAGE / 512);
}

/**
 * A swapped-out page's place: its swap area and slot (swp_entry_t's type and offset); `pfn`: the frame
 * the page had when it was swapped out (what pageout wrote); `mm`, `addr`: the address space and address
 * of the page (its folio's place in that swap cache).
 */
export interface SwapEntry { dev: SwapDev; slot: number; pfn?: number; mm?: Mm; addr?: number }
/** per region, each swapped-out page's swap entry (SwapEntry.slot; the area in `swapAreaOf`), 0: none */
const swapSlots = new WeakMap<Region, Int32Array>();
const swapAreaOf = new WeakMap<Region, (SwapDev | undefined)[]>();
/** The swap entry of page `i` of `r`, or null. */
export function swapEntryOf(r: Region, i: number): SwapEntry | null {
  const s = swapSlots.get(r)?.[i] ?? 0;
  const dev = s ? swapAreaOf.get(r)?.[i] : undefined;
  return dev ? { dev, slot: s } : null;
}
export function setSwapEntry(r: Region, i: number, e: SwapEntry | null): void {
  let a = swapSlots.get(r);
  if (!a || a.length < r.pages.length) {
    const b = new Int32Array(r.pages.length);
    if (a) b.set(a);
    swapSlots.set(r, (a = b));
  }
  let d = swapAreaOf.get(r);
  if (!d) swapAreaOf.set(r, (d = []));
  a[i] = e ? e.slot : 0;
  d[i] = e?.dev;
}
/** What swapon/swapoff use of the machine (mm/mm.ts MmMachine has it): the swap areas, and path lookup. */
export interface SwapMachine extends CpuMachine {
  readonly mm: { readonly swaps: SwapDev[] };
  readonly fs: { lookup(p: string, cwd?: string): Inode | null };
}
export const swapfile = new Semantics<SwapMachine>('mm/swapfile');

swapfile.syscall('swapon', (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino) { e.ret = -ENOENT; return H_CONT; }
  if (m.mm.swaps.some((s) => s.path === p)) { e.ret = -16; return H_CONT; } // EBUSY
  const slots = Math.floor((ino.isBlk ? 2 * 1024 * 1024 * 1024 : ino.size) / PAGE) - 1;
  const d: SwapDev = { path: p, slots, used: 0, prio: -2 - m.mm.swaps.length };
  areas.set(d, newArea(slots, ino.isBlk ? 0 : ino.diskBlock));
  m.mm.swaps.push(d);
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
