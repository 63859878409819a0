/**
 * Memory: physical page accounting with watermarks, per-process address spaces made of regions
 * (include/mm_types.ts; page state per page: absent, present, COW-shared after fork, swapped
 * out), the page cache's accounting (per-inode page states are `Inode.pc`, mm/filemap.ts),
 * reclaim by kswapd (file pages dropped, anon pages swapped out when swap is on, by
 * swappiness), swap devices and /proc/sys/vm tunables; faults of a program touching memory.
 */
import { perfSw, PERF_COUNT_SW_PAGE_FAULTS } from '../kernel/perf_events';
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Process, Task, TouchOp } from '../include/sched';
import type { Inode, LazyEntry } from '../include/fs';
import { Mm, Region, SwapDev, MemCgroup, type FaultPlan, P_NONE, P_PRESENT, P_COW, P_SWAPPED, PAGE_SIZE, PROT_WRITE, PROT_READ, PROT_EXEC, SWAP_CLUSTER_MAX } from '../include/mm_types';
import { memcgCharge, memcgChargeCache, memcgLruAdd, memcgOldest, memcgOverLimit, memcgUncharge } from './memcontrol';
import { pushPath, newEnv } from '../paths/kexec';
import { allocPfn } from '../paths/kobjects';
import { hash32 } from '../core/prng';
import type { Sched } from '../kernel/sched/fair';
import type { BlockLayer } from '../block/core';
import { swapSlotAlloc, swapSlotFree, swapEntryOf, setSwapEntry, swapSlotDirty, swapSlotOnDevice, type SwapEntry } from './swapfile';
import { swapInIo, swapReadPending, swapWritePending } from './page_io';
import { PerCpuPages } from './page_alloc';
import { LruAddBatches } from './swap';

/**
 * The machine as memory management uses it: memory itself, the scheduler (waking kswapd), the
 * block layer, and from the filesystem above, path lookup and the inodes with dirty pages.
 */
export interface MmMachine extends CpuMachine {
  readonly mm: MemSys;
  readonly sched: Sched;
  readonly blk: BlockLayer;
  readonly fs: { lookup(p: string, cwd?: string, nofollow?: boolean): Inode | null; pathOf(ino: Inode): string; readonly dirty: Set<Inode> };
}

/** A VMA of an ELF image as /proc/<pid>/maps shows it: [offset from the image's first VMA, length, perms, file offset (-1: anonymous)] */
export type ImageVma = readonly [number, number, string, number];
/** What exec maps (fs/binfmt_elf.c load_elf_binary): the program's PT_LOAD VMAs and the interpreter's. */
export interface ExecImage { exe: readonly ImageVma[]; interp: readonly ImageVma[]; interpPath: string }

const protOf = (perms: string): number => (perms[0] === 'r' ? PROT_READ : 0) | (perms[1] === 'w' ? PROT_WRITE : 0) | (perms[2] === 'x' ? PROT_EXEC : 0);
/** x86 page fault error code bits (arch/x86/include/asm/trap_pf.h) */
const PF_WRITE = 2, PF_USER = 4;
/** pages of a transparent huge page (HPAGE_PMD_NR) */
const HPAGE_PAGES = 512;
/** The index in `r` of the first page of the aligned huge-page block holding page `i` (may lie outside `r`). */
const hugeBlockStart = (r: Region, i: number): number => {
  const p0 = r.start / PAGE_SIZE;
  return Math.floor((p0 + i) / HPAGE_PAGES) * HPAGE_PAGES - p0;
};

/**
 * The kind of fault an access to a page in state `s` of `r` takes ('' when none): a first touch of a
 * file mapping reads the page cache unless it writes a private one, other first touches are anonymous,
 * a write to a copy-on-write page copies it, a swapped-out page is swapped in.
 */
export function faultKind(r: Region, s: number, write: boolean): string {
  if (s === P_NONE) return r.file && !(write && !r.shared) ? 'file' : 'anon';
  if (s === P_COW && write) return 'wp';
  if (s === P_SWAPPED) return 'swap';
  return '';
}

/**
 * What a fault will do, as the recorded fault trees show it (paths/model.ts TREE_FEATURES 'fault'):
 * 'rc' the charge reclaims first (try_to_free_mem_cgroup_pages), 'sio' a swap-in reads the swap device
 * (swapin_readahead), 'thp' an anonymous fault maps a huge page (do_huge_pmd_anonymous_page), 'pw' the
 * reclaim writes folios out (__swap_writepage: too few clean ones to free); `thp` the huge page is mapped
 * (not a fallback to a small page because the charge would not fit).
 */
/** mm/swap_slots.c SWAP_SLOTS_CACHE_SIZE: freed slots a CPU's cache holds before it returns them (swapcache_free_entries) */
const SWAP_SLOTS_CACHE_SIZE = 64;

/**
 * mm/memory.c do_anonymous_page: a read of an anonymous mapping (not a private file mapping's write,
 * do_cow_fault) maps the shared zero page.
 */
const zeroPageRead = (r: Region, write: boolean): boolean => !write && !r.file;
/** mm/memory.c fault_around_bytes (64 KiB): the pages a read fault of a file mapping maps around its own */
const FAULT_AROUND_PAGES = 16;
/** the pages of a page table (PTRS_PER_PTE): fault-around stays in the faulting address's */
const PTRS_PER_PTE = 512;
/**
 * do_fault_around's window for page `i` of file mapping `r`: from the fault_around_bytes-aligned address
 * below the fault (not before the VMA) for FAULT_AROUND_PAGES pages, cut at the VMA's end, the page
 * table's end and the file's end (filemap_map_pages maps no page past i_size).  The first page, then its
 * end.  The window depends on the address: a replayed fault (ldso.ts) places it where the recorded run's
 * address put it (`ptIdx`, the page's index in its page table there), as the recorded faults that follow
 * (the pages it did not map) were taken with it; any other fault, at the machine's own address.
 */
const ptIndex = (r: Region, i: number, ptIdx: number | undefined): number => ptIdx ?? (r.start / PAGE_SIZE + i) % PTRS_PER_PTE;
function faultAroundFirst(r: Region, i: number, ptIdx?: number): number {
  return Math.max(0, i - (ptIndex(r, i, ptIdx) % FAULT_AROUND_PAGES));
}
function faultAroundEnd(r: Region, i: number, first: number, ptIdx?: number): number {
  const ptEnd = i + PTRS_PER_PTE - ptIndex(r, i, ptIdx);
  const fileEnd = r.file ? Math.ceil((r.file.size - r.fileOff) / PAGE_SIZE) : r.pages.length;
  return Math.max(0, Math.min(first + FAULT_AROUND_PAGES, r.pages.length, ptEnd, fileEnd));
}

/** per region, the page frame of each resident anonymous page (given when it joins the LRU: paths/kobjects.ts allocPfn) */
const anonFrames = new WeakMap<Region, Map<number, number>>();
/** Whether page `i` of `r` is an anonymous page (its own frame: not a page cache page a file mapping maps). */
export function anonPage(r: Region, i: number): boolean {
  return anonFrames.get(r)?.has(i) === true;
}
/** the regions fork made from one another (dup_mmap), which share their anonymous pages copy-on-write */
const forkPeers = new WeakMap<Region, Set<Region>>();

/** Whether another address space of `r`'s fork peers still maps page `i`'s frame `f` copy-on-write (the folio has another reference). */
function frameShared(r: Region, i: number, f: number): boolean {
  const peers = forkPeers.get(r);
  if (peers) for (const p of peers) if (p !== r && p.pages[i] === P_COW && anonFrames.get(p)?.get(i) === f) return true;
  return false;
}

/**
 * The pages exit_mmap frees (an exit's, or an exec's of the old address space, when no other user keeps
 * it): the anonymous pages only `mm` maps (present or copy-on-write, their frame shared with no fork
 * peer), whose last reference the zap drops (release_pages: one mm_page_free_batched each), and its page
 * tables (free_pgtables: a PTE page per 2 MiB, a PMD page per 1 GiB, a PUD page per 512 GiB of address
 * space it maps pages in; mm_free_pgd's PGD).
 */
export function teardownFreedPages(mm: Mm): number {
  let n = 1;
  for (const r of mm.regions.values()) {
    const frames = anonFrames.get(r);
    if (!frames) continue;
    for (const [i, f] of frames) if ((r.pages[i] === P_PRESENT || r.pages[i] === P_COW) && !frameShared(r, i, f)) n++;
  }
  return n + pageTablePages(mm);
}

/**
 * The page table pages the address space's mapped pages need: a PTE page per 2 MiB, a PMD page per
 * 1 GiB, a PUD page per 512 GiB (mm_pgtables_bytes / PAGE_SIZE: /proc/PID/status's VmPTE)
 */
export function pageTablePages(mm: Mm): number {
  const pte = new Set<number>(), pmd = new Set<number>(), pud = new Set<number>();
  for (const r of mm.regions.values()) {
    for (let i = 0; i < r.pages.length; i++) {
      const s = r.pages[i];
      if (s !== P_PRESENT && s !== P_COW) continue;
      const a = r.start + i * PAGE_SIZE;
      pte.add(Math.floor(a / 2 ** 21)); pmd.add(Math.floor(a / 2 ** 30)); pud.add(Math.floor(a / 2 ** 39));
    }
  }
  return pte.size + pmd.size + pud.size;
}

/** The page frame of a boot service's anonymous page (userland/service_mm.ts): not one the machine handed out */
const BOOT_FRAME = -1;
/** Pages first..first+n-1 of `r` are anonymous pages a service made before the machine started (copy-on-write copies in a file mapping). */
export function markBootAnonPages(r: Region, first: number, n: number): void {
  let f = anonFrames.get(r);
  if (!f) anonFrames.set(r, (f = new Map()));
  for (let i = first; i < first + n; i++) f.set(i, BOOT_FRAME);
}

export class MemSys {
  readonly totalPages: number;
  freePages: number;
  anonPages = 0;
  filePages = 0;
  kernelPages: number;
  readonly sysctl: Record<string, number> = {
    swappiness: 60, dirty_ratio: 20, dirty_background_ratio: 10, vfs_cache_pressure: 100,
    min_free_kbytes: 67584, overcommit_memory: 0, page_cluster: 3, drop_caches: 0, dirty_expire_centisecs: 3000,
    dirty_writeback_centisecs: 500,
  };
  swaps: SwapDev[] = [];
  /**
   * FIFO victims: anon [region, idx, mm], and file pages in runs (inode, first page index, page count:
   * parallel lists; a page added right after the last one of the same inode lengthens the last run,
   * so the boot's warm cache, ~30,000 pages, is a few hundred runs). The victims' order is the pages'.
   * A run of a boot file not made yet (the guest's /etc: LazyEntry) takes its inode when reclaim reaches it.
   */
  private anonLru: [Region, number, Mm][] = [];
  private anonHead = 0;
  private fileLruIno: (Inode | LazyEntry)[] = [];
  private fileLruIdx: number[] = [];
  private fileLruLen: number[] = [];
  /** the first run not fully taken, and how many of its pages have been taken */
  private fileHead = 0;
  private fileHeadUsed = 0;
  kswapd: Task | null = null;
  pgfault = 0;
  pgmajfault = 0;
  pswpin = 0;
  pswpout = 0;
  pgsteal = 0;
  cowFaults = 0;
  /** the per-CPU page lists (mm/page_alloc.ts): pcp->high is the low watermark shared by the CPUs (zone_highsize) */
  readonly pcp = new PerCpuPages(() => Math.floor(this.lowPages / this.m.cpus.length));
  /** the per-CPU batches of folios on their way to an LRU list (mm/swap.ts) */
  readonly lruAdd = new LruAddBatches();
  constructor(private m: MmMachine, memMB: number) {
    this.totalPages = memMB * 256;
    this.kernelPages = Math.floor(this.totalPages * 0.06);
    this.freePages = this.totalPages - this.kernelPages;
  }

  get minPages(): number { return Math.max(128, Math.floor(this.sysctl.min_free_kbytes / 4 * Math.min(1, this.totalPages / 524288))); }
  get lowPages(): number { return Math.floor(this.minPages * 1.25); }
  get highPages(): number { return Math.floor(this.minPages * 1.5); }
  get swapTotal(): number { return this.swaps.reduce((a, s) => a + s.slots, 0); }
  get swapUsed(): number { return this.swaps.reduce((a, s) => a + s.used, 0); }

  /**
   * The address space exec builds (fs/binfmt_elf.c): the program's segments at a randomized base
   * (ASLR, from the pid: no draw from the machine's PRNG), the interpreter's below the mmap base,
   * the stack (132 KiB, as the guest's maps show after start-up), [vvar] and [vdso] above it; the
   * heap starts after the program's bss (brk). Without an image (services started at boot, a program
   * the loader has no data for): one text VMA of the file, the heap and the stack.
   */
  newMm(p: Process, exe: string, image?: ExecImage): Mm {
    const mm = new Mm();
    const h = hash32(p.tgid * 2654435761);
    const exeBase = 0x555555554000 + (h % 0x100000) * PAGE_SIZE * 16;
    mm.mmapBase = 0x7f0000000000 + (hash32(h) % 0x200000) * PAGE_SIZE * 8;
    mm.stackTop = 0x7ffc00000000 + (hash32(h + 1) % 0x100000) * PAGE_SIZE * 4;
    const exeIno = this.m.fs.lookup(exe);
    if (image) {
      let end = exeBase;
      for (const [off, len, perms, foff] of image.exe) {
        // the executable segment keeps the name 'text' (task_objects' start_code/end_code)
        const name = perms[2] === 'x' ? 'text' : off === 0 ? 'exe' : `exe+${off.toString(16)}`;
        mm.mapAt(name, exeBase + off, len / PAGE_SIZE, protOf(perms), foff >= 0 ? exeIno : null, Math.max(0, foff), foff >= 0 && exeIno ? this.m.fs.pathOf(exeIno) : '');
        end = Math.max(end, exeBase + off + len);
      }
      mm.bases.set('exe', exeBase);
      const ldIno = this.m.fs.lookup(image.interpPath);
      const ldPath = ldIno ? this.m.fs.pathOf(ldIno) : image.interpPath;
      const span = image.interp.reduce((a, v) => Math.max(a, v[0] + v[1]), 0);
      const ldBase = mm.place(span / PAGE_SIZE);
      for (const [off, len, perms, foff] of image.interp) {
        mm.mapAt(`ld.so+${off.toString(16)}`, ldBase + off, len / PAGE_SIZE, protOf(perms), ldIno, Math.max(0, foff), ldPath);
      }
      mm.bases.set('ld.so', ldBase);
      mm.brkStart = mm.brk = end + ((hash32(h + 2) % 0x2000) + 1) * PAGE_SIZE * 8;
    } else {
      mm.mapAt('text', exeBase, 64, PROT_READ | PROT_EXEC, exeIno, 0, exe);
      mm.brkStart = mm.brk = exeBase + 64 * PAGE_SIZE + 0x2000000;
      mm.mapAt('heap', mm.brk, 64, PROT_READ | PROT_WRITE, null, 0, '[heap]');
      mm.brk += 64 * PAGE_SIZE;
    }
    mm.bases.set('heap', mm.brkStart);
    mm.mapAt('stack', mm.stackTop - 33 * PAGE_SIZE, 33, PROT_READ | PROT_WRITE, null, 0, '[stack]');
    const vvar = mm.stackTop + ((hash32(h + 3) % 0x4000) + 64) * PAGE_SIZE;
    mm.mapAt('vvar', vvar, 4, PROT_READ, null, 0, '[vvar]');
    mm.mapAt('vdso', vvar + 4 * PAGE_SIZE, 2, PROT_READ | PROT_EXEC, null, 0, '[vdso]');
    mm.bases.set('vdso', vvar + 4 * PAGE_SIZE);
    return mm;
  }

  /**
   * fork (kernel/fork.c dup_mmap): the same VMAs; copy_page_range copies the page table entries of a
   * VMA only when it has an anon_vma (mm/memory.c vma_needs_copy): anonymous and private-written pages
   * become COW-shared, while a file mapping never written (program text, read-only data) starts empty
   * in the child, which faults its pages in again.
   */
  dupMm(src: Mm, p: Process): Mm {
    const mm = new Mm();
    for (const [k, r] of src.regions) {
      const nr = new Region(k, r.pages.length, r.file, r.fileOff);
      nr.start = r.start; nr.inherit(r);
      mm.regions.set(k, nr);
      if (r.file && !r.anonVma) continue;
      const frames = anonFrames.get(r);
      let nf: Map<number, number> | undefined;
      for (let i = 0; i < r.pages.length; i++) {
        const s = r.pages[i];
        if (s === P_PRESENT || s === P_COW) {
          const st = r.file && r.shared ? P_PRESENT : P_COW;
          r.pages[i] = st;
          nr.pages[i] = st;
          mm.rss++;
          // the child maps the parent's anonymous page itself
          const f = frames?.get(i);
          if (f !== undefined) {
            if (!nf) anonFrames.set(nr, (nf = new Map()));
            nf.set(i, f);
          }
        } else if (s === P_SWAPPED) nr.pages[i] = P_NONE;
      }
      const peers = forkPeers.get(r) ?? new Set([r]);
      peers.add(nr);
      forkPeers.set(r, peers);
      forkPeers.set(nr, peers);
    }
    mm.mmapBase = src.mmapBase; mm.brkStart = src.brkStart; mm.brk = src.brk; mm.stackTop = src.stackTop;
    mm.anonMaps = src.anonMaps;
    for (const [k, v] of src.bases) mm.bases.set(k, v);
    void p;
    return mm;
  }

  /**
   * mmput (kernel/fork.c): a user of the address space lets it go (an exec replacing it, an exit); the
   * last one tears it down (exit_mmap). A vfork child holds the parent's (mmget in copy_mm's CLONE_VM):
   * its exec or exit leaves the parent's pages mapped.
   */
  mmput(mm: Mm): void {
    if (mm.users > 0 && --mm.users === 0) this.releaseMm(mm);
  }

  /** exit_mmap: the address space's pages freed, its charge and swap slots given back. */
  releaseMm(mm: Mm): void {
    memcgUncharge(mm, mm.charged);
    mm.swapCache.clear();
    for (const r of mm.regions.values()) {
      for (let i = 0; i < r.pages.length; i++) {
        const s = r.pages[i];
        if (s === P_PRESENT && !r.fileBacked) { this.anonPages--; this.freePages++; }
        if (s === P_SWAPPED) this.swapFreeSlot(r, i);
        r.pages[i] = P_NONE;
      }
    }
    mm.rss = 0;
  }

  /** The swap slot of page `i` of `r` is freed (swap_free: its area may have been swapped off since). */
  private swapFreeSlot(r: Region, i: number): void {
    const e = swapEntryOf(r, i);
    if (e && this.swaps.includes(e.dev)) swapSlotFree(e.dev, e.slot);
    setSwapEntry(r, i, null);
  }
  /** Per CPU, the freed swap slots its swap_slots_cache holds (slots_ret, n_ret). */
  private readonly slotsRet = new Map<number, number>();
  /** free_swap_slot on CPU `cpu` finds its cache full: it returns the slots first (swapcache_free_entries). */
  slotsCacheFull(cpu: number): boolean {
    return (this.slotsRet.get(cpu) ?? 0) >= SWAP_SLOTS_CACHE_SIZE;
  }
  /** free_swap_slot on CPU `cpu`: a full cache returned to the swap device, then the slot cached. */
  private cacheFreedSlot(cpu: number): void {
    this.slotsRet.set(cpu, (this.slotsCacheFull(cpu) ? 0 : this.slotsRet.get(cpu) ?? 0) + 1);
  }

  /** Pages the machine starts with in use: a boot service's own memory (userland/service_mm.ts). */
  takeBootPages(n: number): void {
    this.freePages -= n;
    this.anonPages += n;
  }

  /** Take a free page for anon or page cache use; wakes kswapd under the low watermark. */
  allocPage(kind: 'anon' | 'file'): void {
    if (this.freePages <= this.minPages) this.reclaimNow(32);
    this.freePages--;
    if (kind === 'anon') this.anonPages++; else this.filePages++;
    if (this.freePages < this.lowPages) this.wakeKswapd();
  }

  wakeKswapd(): void {
    const k = this.kswapd;
    if (k && k.state !== 0 && !k.woken) {
      k.woken = true;
      this.m.after(1000, () => { k.woken = false; this.m.sched.wake(k); });
    }
  }

  /** pages idx .. idx+count-1 of `ino` enter the file LRU (at its tail, in that order) */
  addFileLru(ino: Inode | LazyEntry, idx: number, count = 1): void {
    const last = this.fileLruIno.length - 1;
    if (last >= this.fileHead && this.fileLruIno[last] === ino && this.fileLruIdx[last] + this.fileLruLen[last] === idx) {
      this.fileLruLen[last] += count;
      return;
    }
    this.fileLruIno.push(ino);
    this.fileLruIdx.push(idx);
    this.fileLruLen.push(count);
    if (this.fileHead > 65536) {
      this.fileLruIno = this.fileLruIno.slice(this.fileHead);
      this.fileLruIdx = this.fileLruIdx.slice(this.fileHead);
      this.fileLruLen = this.fileLruLen.slice(this.fileHead);
      this.fileHead = 0;
    }
  }
  addAnonLru(r: Region, idx: number, mm: Mm): void {
    this.anonLru.push([r, idx, mm]);
    let f = anonFrames.get(r);
    if (!f) anonFrames.set(r, (f = new Map()));
    f.set(idx, allocPfn(this.m));
    if (this.anonHead > 65536) { this.anonLru = this.anonLru.slice(this.anonHead); this.anonHead = 0; }
  }

  /** Pick up to n victims: returns lists of file pages dropped and anon pages to swap out. */
  reclaimVictims(n: number): { file: number; anon: [Region, number, Mm][] } {
    const swapOk = this.swaps.length > 0 && this.swapUsed < this.swapTotal;
    const anonShare = swapOk ? Math.round(n * this.sysctl.swappiness / 200) : 0;
    const anon: [Region, number, Mm][] = [];
    while (anon.length < anonShare && this.anonHead < this.anonLru.length) {
      const v = this.anonLru[this.anonHead++];
      if (v[0].pages[v[1]] === P_PRESENT && v[2].users > 0) anon.push(v);
    }
    let file = 0;
    while (file < n - anon.length && this.fileHead < this.fileLruIno.length) {
      const h = this.fileHead;
      let at = this.fileLruIno[h];
      if ((at as Partial<LazyEntry>).lazy === true) at = this.fileLruIno[h] = (at as LazyEntry).inode();
      const ino = at as Inode;
      const idx = this.fileLruIdx[h] + this.fileHeadUsed;
      if (++this.fileHeadUsed === this.fileLruLen[h]) { this.fileHead++; this.fileHeadUsed = 0; }
      if (ino.pc[idx] === 1) { ino.pc[idx] = 0; ino.cachedPages--; this.filePages--; this.freePages++; file++; }
    }
    return { file, anon };
  }

  /**
   * Swap out page v (add_to_swap: a slot of the first area with room, by priority); its swap entry, or null
   * when no area has room.  `cached`: the folio stays in the swap cache, charged to its memory cgroup, until
   * a reclaim frees it (__remove_mapping's mem_cgroup_swapout moves the charge to the swap counter: mm/vmscan.ts
   * memcg_drop_clean), once its pageout has written it; else it is freed at once (kswapd's batches).
   */
  swapOut(v: [Region, number, Mm], cached = false): SwapEntry | null {
    const [r, i, mm] = v;
    const addr = r.start + i * PAGE_SIZE;
    r.pages[i] = P_SWAPPED;
    mm.rss--; mm.swapents++;
    if (cached) mm.swapCache.add(addr);
    else { mm.swapCache.delete(addr); memcgUncharge(mm, 1); }
    this.anonPages--; this.freePages++;
    this.pswpout++;
    const dev = this.swaps.find((s) => s.used < s.slots);
    const slot = dev ? swapSlotAlloc(dev) : -1;
    const f = anonFrames.get(r);
    const pfn = f?.get(i);
    f?.delete(i);
    const e = dev && slot > 0 ? { dev, slot, pfn, mm, addr } : null;
    setSwapEntry(r, i, e);
    // (the folio is in the swap cache until a pageout writes the slot: mm/page_io.ts swap_write_bio)
    if (e) swapSlotDirty(e);
    return e;
  }

  /**
   * Reclaim of memory cgroup `g` swaps out its oldest page (an add_to_swap of the recorded reclaim tree): its
   * swap entry; null: none left.  The folio stays charged in the swap cache (swapOut's `cached`).
   */
  memcgSwapOut(g: MemCgroup): SwapEntry | null {
    if (!this.swaps.length || this.swapUsed >= this.swapTotal) return null;
    const v = memcgOldest(g);
    return v ? this.swapOut(v, true) : null;
  }

  /**
   * Drop the oldest page of `mm`'s swap cache (a clean folio reclaim frees, uncharged; its swap copy stays)
   * but those `locked` says are locked (a readahead folio is locked until its read completes:
   * shrink_folio_list's folio_trylock fails, the folio is kept); false: none.
   */
  dropSwapCache(mm: Mm, locked: (addr: number) => boolean): boolean {
    for (const a of mm.swapCache) if (!locked(a)) { mm.swapCache.delete(a); memcgUncharge(mm, 1); return true; }
    return false;
  }

  /**
   * The plan of a fault of kind `kind` on page `i` of `r` by a process in memory cgroup `g`: a write to
   * an untouched anonymous range whose whole aligned 2 MiB block lies in the VMA maps a transparent huge
   * page (Debian 12's THP `always`), unless the charge would take the group past memory.max (the
   * fallback to a small page: thp_fault_fallback_charge); a swapped-out page not in the swap cache is
   * read from the swap device; a charge past the limit reclaims first.
   */
  faultPlan(g: MemCgroup | null, mm: Mm, r: Region, i: number, kind: string, write: boolean, cpu = -1): FaultPlan {
    const treeFeat: string[] = [];
    const wpCopy = kind === 'wp' ? this.wpCopies(r, i) : undefined;
    if (wpCopy) treeFeat.push('cp');
    // the swap-in frees its slot (free_swap_slot) into the CPU's slots cache, returning a full one first
    if (kind === 'swap' && cpu >= 0 && this.slotsCacheFull(cpu)) treeFeat.push('sfe');
    let thp = false;
    const swapIo = kind === 'swap' && !this.inSwapCache(mm, r, i);
    // a swap-in charges what it reads (the page and its readahead window); a readahead page was charged
    // then; the folio of a swap-out not yet written was uncharged with the swap-out, and is charged again;
    // a write fault charges the page it copies (a reuse charges nothing)
    let n = (kind === 'anon' && !zeroPageRead(r, write)) || wpCopy ? 1 : kind !== 'swap' ? 0 : swapIo ? 1 + this.readaheadPages(mm, r, i).length : g && mm.memcg === g && mm.swapCache.has(r.start + i * PAGE_SIZE) ? 0 : 1;
    if (kind === 'anon' && write && !r.file) {
      const b = this.hugeBlock(r, i);
      if (b >= 0) {
        treeFeat.push('thp');
        thp = !memcgOverLimit(g, HPAGE_PAGES);
        if (thp) n = 0;
      }
    }
    if (n && memcgOverLimit(g, n)) {
      treeFeat.push('rc');
      if (this.cleanSwapCache(mm) < SWAP_CLUSTER_MAX) treeFeat.push('pw');
    }
    if (swapIo) treeFeat.push('sio');
    return { treeFeat, thp, swapIo, slotCpu: cpu, wpCopy };
  }

  /**
   * The folios of `mm`'s swap cache a reclaim can free without writing (neither being read, dirty nor under
   * writeback: mm/page_io.ts).  A memory cgroup's reclaim (try_to_free_mem_cgroup_pages: nr_to_reclaim
   * SWAP_CLUSTER_MAX) that finds fewer scans on into the group's mapped pages and writes them out
   * (shrink_folio_list's add_to_swap and pageout), freeing only what it found clean.
   */
  private cleanSwapCache(mm: Mm): number {
    let n = 0;
    for (const a of mm.swapCache) if (!swapReadPending(mm, a) && !swapWritePending(mm, a) && ++n >= SWAP_CLUSTER_MAX) break;
    return n;
  }

  /**
   * Whether a write to write-protected page `i` of `r` copies it (mm/memory.c do_wp_page): a page cache
   * page mapped read-only by a private file mapping always is; an anonymous page is reused when no other
   * address space maps it any more (the fork peer that shared it wrote its own copy, exec'd or exited:
   * the folio's only reference, wp_page_reuse), else copied.
   */
  private wpCopies(r: Region, i: number): boolean {
    const f = anonFrames.get(r)?.get(i);
    return f === undefined || frameShared(r, i, f);
  }

  /**
   * Whether swapped-out page `i` of `r` is in the swap cache: read ahead by an earlier swap-in, or swapped
   * out with its slot not written yet (add_to_swap's folio, before its pageout: mm/swapfile.ts).
   */
  private inSwapCache(mm: Mm, r: Region, i: number): boolean {
    if (mm.swapCache.has(r.start + i * PAGE_SIZE)) return true;
    const e = swapEntryOf(r, i);
    return e !== null && !swapSlotOnDevice(e.dev, e.slot);
  }

  /**
   * The pages a swap-in of page `i` of `r` reads besides it (swap_vma_readahead: the aligned window of
   * 2^page_cluster pages around the fault, those swapped out and not in the swap cache: a page whose slot
   * was never written is found there, __read_swap_cache_async reads nothing for it).
   */
  readaheadPages(mm: Mm, r: Region, i: number): number[] {
    const win = 1 << this.sysctl.page_cluster;
    const w0 = Math.max(0, i - (i % win));
    const out: number[] = [];
    for (let k = w0; k < Math.min(r.pages.length, w0 + win); k++) if (k !== i && r.pages[k] === P_SWAPPED && !this.inSwapCache(mm, r, k)) out.push(k);
    return out;
  }

  /** The first page of the aligned huge-page block holding page `i` of `r` when the block lies in `r` untouched, else -1. */
  private hugeBlock(r: Region, i: number): number {
    const b = hugeBlockStart(r, i);
    if (b < 0 || b + HPAGE_PAGES > r.pages.length) return -1;
    for (let k = b; k < b + HPAGE_PAGES; k++) if (r.pages[k] !== P_NONE) return -1;
    return b;
  }

  /** Synchronous reclaim for allocations at the min watermark (direct reclaim semantics). */
  reclaimNow(n: number): void {
    const v = this.reclaimVictims(n);
    for (const a of v.anon) this.swapOut(a);
    this.pgsteal += v.file + v.anon.length;
  }

  /**
   * Page faults for a touch op; false when a fault path was pushed (resume after it).  A touch names
   * a region and pages (`region`, `first`, `count`), or, with `base`, one page at an offset from a
   * mapping the loader placed (mm.bases: `exe`, `ld.so`, a library, `heap`, `anonN`; `stack`: pages
   * below the top) with the x86 error code the real fault had.
   */
  touch(c: Cpu, t: Task, op: TouchOp): boolean {
    const mm = t.proc.mm;
    if (!mm) return true;
    let r: Region;
    let i: number;
    let end: number;
    let write = op.write;
    if (op.base) {
      const base = op.base === 'stack' ? mm.stackTop - (op.first + 1) * PAGE_SIZE : mm.bases.get(op.base);
      const addr = base === undefined ? -1 : op.base === 'stack' ? base : base + op.first * PAGE_SIZE;
      const hit = addr >= 0 ? mm.find(addr) : null;
      if (!hit) return true;
      r = hit;
      i = (addr - r.start) / PAGE_SIZE;
      end = i + 1;
      write = ((op.code ?? 0) & PF_WRITE) !== 0;
    } else {
      r = mm.region(op.region, op.first + op.count);
      i = (t.scratch.touchI as number | undefined) ?? op.first;
      end = op.first + op.count;
    }
    for (; i < end; i++) {
      const s = r.pages[i];
      const kind = faultKind(r, s, write);
      if (!kind) { this.m.now += 3 * this.m.cpuSlowdown; continue; }
      if (!op.base) t.scratch.touchI = i + 1;
      this.pgfault++;
      if (perfSw.active) perfSw.event(PERF_COUNT_SW_PAGE_FAULTS, c.ctx);
      const low = this.freePages < this.minPages;
      const code = op.code ?? (PF_USER | (write ? PF_WRITE : 0) | (s !== P_NONE ? 1 : 0));
      const plan = this.faultPlan(t.proc.memcg, mm, r, i, kind, write, c.id);
      const env = newEnv('page_fault', { kind, region: r, idx: i, mm, reclaim: low, address: r.start + i * PAGE_SIZE, code, write, ptIdx: op.ptIdx,
        treeFeat: plan.treeFeat, thp: plan.thp, swapIo: plan.swapIo, slotCpu: plan.slotCpu, memcg: t.proc.memcg });
      // the swap-in's bios and wait, while the pages still have their slots (mm/page_io.ts)
      swapInIo(this.m, c, mm, r, i, kind, plan, env);
      // the fault's kernel path (paths/templates/mm.ts page_fault: exc_page_fault, handle_mm_fault ...);
      // its %fault hook (mm/fault.ts) applies the page's new state
      pushPath(t.ks, 'page_fault', env);
      return false;
    }
    t.scratch.touchI = undefined;
    return true;
  }

  /**
   * Apply a resolved fault (by a process in memory cgroup `g`, as `plan` said): the new page charged to
   * the group; a huge page maps its whole block; a swap-in that read the device brought the swapped
   * pages of its aligned readahead window (page_cluster) into the swap cache, charged to the group as
   * they are read, where later faults find them without I/O (a minor fault) unless the group's reclaim
   * dropped them first (mm/vmscan.ts memcg_drop_clean).
   */
  faultDone(kind: string, r: Region, i: number, mm: Mm, write = true, g: MemCgroup | null = null, plan?: FaultPlan): void {
    if (r.pages[i] === P_PRESENT) return;
    if (kind !== 'file') r.anonVma = true;
    if (kind === 'anon' && plan?.thp) {
      const b = hugeBlockStart(r, i);
      for (let k = b; k < b + HPAGE_PAGES; k++) {
        if (r.pages[k] !== P_NONE) continue;
        this.allocPage('anon'); r.pages[k] = P_PRESENT; mm.rss++; this.addAnonLru(r, k, mm);
      }
      if (g) memcgCharge(g, mm, r, b, HPAGE_PAGES);
      return;
    }
    // (a readahead page found in the swap cache was charged when it was read)
    const hit = kind === 'swap' && plan?.swapIo === false && mm.swapCache.has(r.start + i * PAGE_SIZE);
    if (g && kind !== 'file' && !(kind === 'wp' && plan?.wpCopy === false) && !(kind === 'anon' && zeroPageRead(r, write))) {
      if (hit && mm.memcg === g) memcgLruAdd(g, mm, r, i, 1);
      else memcgCharge(g, mm, r, i, 1);
    }
    // a read of anonymous memory maps the shared zero page read-only (do_anonymous_page: no page, no
    // rss), which a later write copies (do_wp_page -> wp_page_copy, a new page counted then)
    if (kind === 'anon' && zeroPageRead(r, write)) r.pages[i] = P_COW;
    else if (kind === 'anon') { this.allocPage('anon'); r.pages[i] = P_PRESENT; mm.rss++; this.addAnonLru(r, i, mm); }
    // a read of a private writable file mapping maps the page cache page read-only (a later write copies
    // it); a read fault maps its fault-around window too (do_read_fault)
    else if (kind === 'file') {
      const st = !write && !r.shared && r.prot & PROT_WRITE ? P_COW : P_PRESENT;
      r.pages[i] = st; mm.rss++;
      if (!write) for (let k = faultAroundFirst(r, i, plan?.ptIdx), end = faultAroundEnd(r, i, k, plan?.ptIdx); k < end; k++) if (r.pages[k] === P_NONE) { r.pages[k] = st; mm.rss++; }
    } else if (kind === 'wp' && plan?.wpCopy === false) r.pages[i] = P_PRESENT;
    else if (kind === 'wp') {
      // (a copy of the zero page adds an anonymous page to the count: wp_page_copy's old_page is NULL)
      if (!r.file && !anonPage(r, i)) mm.rss++;
      this.cowFaults++; this.allocPage('anon'); r.pages[i] = P_PRESENT; this.addAnonLru(r, i, mm);
    }
    else if (kind === 'swap') {
      const addr = r.start + i * PAGE_SIZE;
      if (plan?.swapIo !== false) {
        const ra = this.readaheadPages(mm, r, i);
        for (const k of ra) { mm.swapCache.add(r.start + k * PAGE_SIZE); this.pswpin++; }
        if (g && ra.length) memcgChargeCache(g, mm, ra.length);
        this.pswpin++; this.pgmajfault++;
      }
      mm.swapCache.delete(addr);
      this.allocPage('anon'); r.pages[i] = P_PRESENT; mm.rss++; mm.swapents--; this.swapFreeSlot(r, i);
      if (plan?.slotCpu !== undefined && plan.slotCpu >= 0) this.cacheFreedSlot(plan.slotCpu);
      this.addAnonLru(r, i, mm);
    }
  }

  tick(_c: Cpu): void {
    if (this.freePages < this.lowPages) this.wakeKswapd();
  }

  /** /proc/meminfo */
  meminfo(): string {
    const kb = (p: number) => `${String(p * 4).padStart(8)} kB`;
    const lines: [string, number][] = [
      ['MemTotal', this.totalPages], ['MemFree', this.freePages], ['MemAvailable', this.freePages + this.filePages],
      ['Buffers', 2048], ['Cached', this.filePages], ['SwapCached', 0], ['Active', Math.floor((this.anonPages + this.filePages) / 2)],
      ['Inactive', Math.ceil((this.anonPages + this.filePages) / 2)], ['AnonPages', this.anonPages],
      ['SwapTotal', this.swapTotal], ['SwapFree', this.swapTotal - this.swapUsed], ['Slab', Math.floor(this.kernelPages / 3)],
    ];
    return lines.map(([k, v]) => `${(k + ':').padEnd(16)}${kb(v)}\n`).join('');
  }
}
