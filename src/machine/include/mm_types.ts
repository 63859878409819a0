/**
 * Address spaces (include/linux/mm_types.h): a process' `Mm` made of VMAs (`Region`: start address,
 * protection, the file and offset it maps, a state per page: absent, present, COW-shared after fork
 * or read from a private file mapping, swapped out), the program break, the mmap area, and the swap
 * devices.  The memory-management semantics are in mm/.
 */
import type { Inode } from './fs';
import { PAGE_SIZE } from './page_types';

export { PAGE_SIZE };
export const P_NONE = 0, P_PRESENT = 1, P_COW = 2, P_SWAPPED = 3;
export const PROT_READ = 1, PROT_WRITE = 2, PROT_EXEC = 4;
/** include/linux/swap.h SWAP_CLUSTER_MAX: the folios a reclaim pass isolates at a time, and a memory cgroup's reclaim's target */
export const SWAP_CLUSTER_MAX = 32;
/**
 * Whether a system call's buffer argument is an address the program names (a mapping of its own)
 * rather than the 0 a modelled program passes when it names none (U.read's default).
 */
export const isUserPointer = (a: unknown): a is number => typeof a === 'number' && a > 0xffff;

export class Region {
  pages: Uint8Array;
  /** first address (page aligned) */
  start = 0;
  prot = PROT_READ | PROT_WRITE;
  shared = false;
  /** what /proc/<pid>/maps names the mapping: a path, [heap], [stack], [vvar], [vdso], '' */
  label = '';
  /** the VMA has an anon_vma (an anonymous page was made in it: mm/mm.ts faultDone): fork copies its ptes */
  anonVma = false;
  /** the device and inode /proc/<pid>/maps shows for a file mapping whose file the machine lacks (userland/service_mm.ts) */
  mapsId = '';
  constructor(readonly name: string, n: number, readonly file: Inode | null, readonly fileOff = 0) {
    this.pages = new Uint8Array(n);
  }
  get end(): number { return this.start + this.pages.length * PAGE_SIZE; }
  /** a file mapping (of a file the machine has, or one it lacks: `mapsId`), not an anonymous one */
  get fileBacked(): boolean { return this.file !== null || this.mapsId !== ''; }
  /** the attributes of `r` a piece of it or a copy of it keeps (its protection, sharing, name in maps, anon_vma) */
  inherit(r: Region): void {
    this.prot = r.prot; this.shared = r.shared; this.label = r.label; this.anonVma = r.anonVma; this.mapsId = r.mapsId;
  }
}

const hex = (n: number): string => n.toString(16);

export class Mm {
  private readonly vmas = new Map<string, Region>();
  /**
   * A layout the VMAs are built from when first looked at (userland/service_mm.ts: a boot service's
   * recorded address space, which a command run on the machine seldom reads)
   */
  lazyLayout: ((mm: Mm) => void) | null = null;
  /** the VMAs by name */
  get regions(): Map<string, Region> {
    if (this.lazyLayout) {
      const build = this.lazyLayout;
      this.lazyLayout = null;
      build(this);
    }
    return this.vmas;
  }
  rss = 0;
  /**
   * Pages the address space maps as the real kernel counts them (the rmap calls of the recorded fault
   * trees, fault-around included: mm/rmap.ts); 0 for an address space the machine did not build page
   * by page (a service started at boot).  What exec and exit tear down (zap_pte_range per page).
   */
  mapped = 0;
  swapents = 0;
  /**
   * addresses of swapped-out pages whose copy is in the swap cache: read by swap readahead (mm/mm.ts faultDone),
   * or swapped out by a memory cgroup's reclaim and not freed yet (mm/mm.ts swapOut's `cached`, mm/vmscan.ts)
   */
  readonly swapCache = new Set<number>();
  /** the memory cgroup its anonymous pages are charged to (the faulting process's: mm/memcontrol.ts) */
  memcg: MemCgroup | null = null;
  /** pages charged to `memcg` */
  charged = 0;
  /** mm_users: the processes using the address space (a vfork child shares its parent's: mm/mm.ts mmput) */
  users = 1;
  /** the next mmap without a hint ends here (top-down, as mm->mmap_base) */
  mmapBase = 0x7f0000000000;
  brkStart = 0;
  brk = 0;
  stackTop = 0;
  /** where mappings the loader placed start: 'exe', 'ld.so', a library's file name, 'anonN' (N-th anonymous mmap) */
  readonly bases = new Map<string, number>();
  anonMaps = 0;
  private seq = 0;

  /** The named region, created (in the mmap area) or grown to n pages. */
  region(name: string, n: number, file: Inode | null = null, off = 0): Region {
    let r = this.regions.get(name);
    if (!r || r.pages.length < n) {
      const nr = new Region(name, n, file, off);
      if (r) {
        nr.pages.set(r.pages);
        nr.start = r.start; nr.inherit(r);
      } else {
        nr.start = this.place(n);
        nr.label = name === 'heap' ? '[heap]' : name === 'stack' ? '[stack]' : '';
      }
      this.regions.set(name, nr);
      r = nr;
    }
    return r;
  }

  /** an unused range of n pages below mmapBase */
  place(n: number): number {
    let top = this.mmapBase;
    for (;;) {
      const start = top - n * PAGE_SIZE;
      const hit = this.overlapping(start, top);
      if (!hit.length) { this.mmapBase = Math.min(this.mmapBase, start); return start; }
      top = Math.min(...hit.map((r) => r.start));
    }
  }

  overlapping(start: number, end: number): Region[] {
    const out: Region[] = [];
    for (const r of this.regions.values()) if (r.start < end && r.end > start) out.push(r);
    return out;
  }

  find(addr: number): Region | null {
    for (const r of this.regions.values()) if (addr >= r.start && addr < r.end) return r;
    return null;
  }

  /** Split the regions overlapping [start, end) at its bounds; returns the pieces inside it. */
  carve(start: number, end: number): Region[] {
    const inside: Region[] = [];
    for (const r of this.overlapping(start, end)) {
      const cuts = [r.start, Math.max(r.start, start), Math.min(r.end, end), r.end];
      this.regions.delete(r.name);
      for (let i = 0; i < 3; i++) {
        const a = cuts[i], b = cuts[i + 1];
        if (b <= a) continue;
        const first = (a - r.start) / PAGE_SIZE;
        const name = a === r.start ? r.name : `${r.name}@${hex(a)}`;
        const piece = new Region(name, (b - a) / PAGE_SIZE, r.file, r.fileOff + (a - r.start));
        piece.pages.set(r.pages.subarray(first, first + piece.pages.length));
        piece.start = a; piece.inherit(r);
        this.regions.set(name, piece);
        if (i === 1) inside.push(piece);
      }
    }
    return inside;
  }

  /** A mapping at `start` (page aligned) of n pages, replacing what was there (MAP_FIXED). */
  mapAt(name: string, start: number, n: number, prot: number, file: Inode | null, off: number, label = ''): Region {
    for (const r of this.carve(start, start + n * PAGE_SIZE)) this.regions.delete(r.name);
    let key = name;
    while (this.regions.has(key)) key = `${name}#${++this.seq}`;
    const r = new Region(key, n, file, off);
    r.start = start; r.prot = prot; r.label = label;
    this.regions.set(key, r);
    return r;
  }

  /** /proc/<pid>/maps */
  mapsText(dev: (r: Region) => string): string {
    const rs = [...this.regions.values()].filter((r) => r.pages.length).sort((a, b) => a.start - b.start);
    let out = '';
    for (const r of rs) {
      const perms = `${r.prot & PROT_READ ? 'r' : '-'}${r.prot & PROT_WRITE ? 'w' : '-'}${r.prot & PROT_EXEC ? 'x' : '-'}${r.shared ? 's' : 'p'}`;
      const id = r.file ? `${dev(r)} ${r.file.ino}` : r.mapsId || '00:00 0';
      const head = `${hex(r.start).padStart(8, '0')}-${hex(r.end).padStart(8, '0')} ${perms} ${hex(r.fileBacked ? r.fileOff : 0).padStart(8, '0')} ${id}`;
      out += r.label ? `${head.padEnd(73)}${r.label}\n` : `${head} \n`;
    }
    return out;
  }
}

/**
 * A memory cgroup (cgroup v2's memory controller, mm/memcontrol.c): `memory.max` in pages, the pages
 * charged to it, and its anonymous LRU, oldest first (what reclaim of the group swaps out).
 */
export class MemCgroup {
  usage = 0;
  /** [region, page index, address space] in the order the pages were charged (entries may be stale) */
  lru: [Region, number, Mm][] = [];
  lruHead = 0;
  /** the LRU sequence number of lru[0], and of the next page charged */
  lruBase = 0;
  lruSeq = 0;
  constructor(readonly name: string, public max: number) {}
}

/** A fault's plan (MemSys.faultPlan); `slotCpu`: the CPU whose swap slots cache takes the slot a swap-in frees. */
/**
 * What a fault will do (mm/mm.ts faultPlan): the tree features it calls for, a huge page mapped, a swap-in
 * reading the device, the CPU whose swap slots cache a swap-in frees into, and for a write to a
 * write-protected page whether do_wp_page copies it (wp_page_copy) or reuses it (an anonymous page no
 * other address space maps: wp_page_reuse)
 */
export interface FaultPlan {
  treeFeat: string[]; thp: boolean; swapIo: boolean; slotCpu?: number; wpCopy?: boolean;
  /** a replayed fault's page index in its page table on the recorded run (TouchOp.ptIdx) */
  ptIdx?: number;
}

export interface SwapDev {
  path: string;
  slots: number;
  used: number;
  prio: number;
}
