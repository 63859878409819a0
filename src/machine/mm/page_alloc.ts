/**
 * The per-CPU page lists of mm/page_alloc.c (struct per_cpu_pages): an order-0 (or THP) allocation
 * takes a page from the CPU's list under pcp_spin_trylock (rmqueue_pcplist); when the list is empty,
 * rmqueue_bulk first takes `batch` (63) pages off the buddy lists under the zone lock, tracing
 * mm_page_alloc_zone_locked for each (paths/tpsites.ts).  A page freed through free_unref_page or
 * free_unref_page_list goes back on the list of the CPU that frees it (free_unref_page_commit).
 *
 * So whether an allocation refills depends on how many pages the CPU's lists hold, which the frees
 * before it decide: swap's dd allocates its 5 MiB buffer with one refill every 63 pages until the
 * memory cgroup's reclaim frees pages back (the events run: 14 refills, then none); dbench frees
 * the pages of the files it deletes and allocates them again (its events run: no refill).  The
 * recorded trees' own rmqueue_bulk calls are those runs' list states: the compiler leaves them out
 * and emits this module's decision at every pcp allocation instead (paths/compile.ts emitPcpRefill).
 *
 * The lists are one count per CPU: the kernel keeps one list per migratetype and order under one
 * count (a kernel allocation refills the unmovable list when that list is empty), but the refills
 * the recordings show are all of movable order-0 pages (migratetype=1, the user and page cache
 * pages that most allocations and frees are).  `high` is zone_highsize's default: the zone's low
 * watermark shared by the node's CPUs (~5,300 pages at 2 GiB with Debian's min_free_kbytes 67584);
 * above it free_unref_page_commit drains a batch back to the buddy lists (free_pcppages_bulk).  No
 * recording reaches it (no mm_page_pcpu_drain event, no free_pcppages_bulk call in any of them),
 * so the machine only keeps the count under it and runs no drain tree.
 */
import { Semantics } from '../paths/semantics';
import type { CpuMachine } from '../include/cpu';
import { PCP_BATCH } from '../paths/compile';
import { H_PUSHED, pushPath, newEnv } from '../paths/kexec';

/** The machine as the per-CPU lists use it: memory's lists (mm/mm.ts MemSys.pcp). */
export interface PcpMachine extends CpuMachine {
  readonly mm: { readonly pcp: PerCpuPages };
}


/** Per CPU, the pages on its per-CPU lists (pcp->count). */
export class PerCpuPages {
  private readonly count: number[] = [];
  /** `high`: pcp->high, asked when a free may pass it */
  constructor(private readonly high: () => number) {}

  /**
   * An allocation from CPU `cpu`'s lists: 1 when the list is empty and rmqueue_bulk refills it
   * first (a batch), else 0.
   */
  alloc(cpu: number): number {
    const n = this.count[cpu] ?? 0;
    if (n > 0) { this.count[cpu] = n - 1; return 0; }
    this.count[cpu] = PCP_BATCH - 1;
    return 1;
  }

  /** A page freed onto CPU `cpu`'s lists (free_unref_page_commit), drained to under `high`. */
  free(cpu: number): void {
    const n = (this.count[cpu] ?? 0) + 1;
    this.count[cpu] = n >= this.high() ? n - PCP_BATCH : n;
  }

  /** The pages on CPU `cpu`'s lists. */
  pages(cpu: number): number {
    return this.count[cpu] ?? 0;
  }
}

export const pageAlloc = new Semantics<PcpMachine>('mm/page_alloc');

// rmqueue_pcplist: the refill the machine's lists call for (paths/compile.ts runs rmqueue_bulk this many times)
pageAlloc.count('rmqueue_bulk', (m, c) => m.mm.pcp.alloc(c.id));
// the same in a template's allocation (fs/pipe.ts's pipe buffers): rmqueue_bulk runs when the list is
// empty, taking a batch of pages (one pcp_refill_page each)
pageAlloc.cond('pcp_refill', (m, c) => m.mm.pcp.alloc(c.id) === 1);
pageAlloc.hook('pcp_refill_pages', (_m, _c, t) => {
  for (let i = 0; i < PCP_BATCH; i++) pushPath(t.ks, 'pcp_refill_page', newEnv('pcp_refill_page'));
  return H_PUSHED;
});
// free_unref_page_commit: the page joins the freeing CPU's list
pageAlloc.hook('pcp_free', (m, c) => { m.mm.pcp.free(c.id); return 0; });
pageAlloc.at('free_unref_page_commit', 'pcp_free');
