/**
 * Address spaces (include/linux/mm_types.h): a process' `Mm` made of named regions (VMAs), the
 * state of each page of a region (absent, present, COW-shared after fork, swapped out), and the
 * swap devices.  The memory-management semantics are in mm/.
 */
import type { Inode } from './fs';

export const P_NONE = 0, P_PRESENT = 1, P_COW = 2, P_SWAPPED = 3;

export class Region {
  pages: Uint8Array;
  constructor(readonly name: string, n: number, readonly file: Inode | null, readonly fileOff = 0) {
    this.pages = new Uint8Array(n);
  }
}

export class Mm {
  regions = new Map<string, Region>();
  rss = 0;
  swapents = 0;
  users = 1;
  region(name: string, n: number, file: Inode | null = null, off = 0): Region {
    let r = this.regions.get(name);
    if (!r || r.pages.length < n) {
      const nr = new Region(name, n, file, off);
      if (r) nr.pages.set(r.pages);
      this.regions.set(name, nr);
      r = nr;
    }
    return r;
  }
}

export interface SwapDev {
  path: string;
  slots: number;
  used: number;
  prio: number;
}
