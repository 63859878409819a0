/**
 * mm/swap.c's per-CPU folio batch of folios on their way to an LRU list (cpu_fbatches.lru_add).
 * folio_add_lru (a new anonymous page, a page cache page, a swap-in) puts the folio in the batch of
 * the CPU it runs on; only when the batch is full (folio_batch_add leaves no space: PAGEVEC_SIZE,
 * 15 folios) does folio_batch_move_lru put them all on their lists, one lru_add_fn each (where
 * mm_lru_insertion fires: paths/tpsites.ts).  lru_add_drain_cpu (lru_add_drain: unmap_region,
 * exit_mmap, exec's teardown, do_wp_page of a folio not on a list yet, __pagevec_release) moves what
 * the batch holds, however few.
 *
 * So where a folio reaches its list, and in which task, is the batch's state: the signal recording's
 * two shells and sleep fault 64 anonymous pages in and insert 64, 4 of them at a fault that filled
 * the batch and the rest in bursts of 2-12 at the next mmap over a mapping, munmap, exec or exit
 * (its events run).  The recorded trees' own moves are those runs' states: the compiler leaves the
 * lru_add batch's moves out of every folio_add_lru and lru_add_drain_cpu and emits this module's
 * decision there instead (paths/compile.ts emitLruMove).
 */
import { Semantics } from '../paths/semantics';
import type { CpuMachine } from '../include/cpu';

/** include/linux/pagevec.h PAGEVEC_SIZE: the folios a batch holds */
export const PAGEVEC_SIZE = 15;

/** The machine as the batches use it: memory's batches (mm/mm.ts MemSys.lruAdd). */
export interface LruMachine extends CpuMachine {
  readonly mm: { readonly lruAdd: LruAddBatches };
}

/** Per CPU, the folios in its lru_add batch. */
export class LruAddBatches {
  private readonly count: number[] = [];

  /** folio_add_lru on CPU `cpu`: the folios moved to their lists now (the batch's, when this one filled it), else 0. */
  add(cpu: number): number {
    const n = (this.count[cpu] ?? 0) + 1;
    if (n < PAGEVEC_SIZE) { this.count[cpu] = n; return 0; }
    this.count[cpu] = 0;
    return n;
  }

  /** lru_add_drain_cpu on CPU `cpu`: the folios its batch held, all moved now. */
  drain(cpu: number): number {
    const n = this.count[cpu] ?? 0;
    this.count[cpu] = 0;
    return n;
  }

  /** The folios in CPU `cpu`'s batch. */
  folios(cpu: number): number {
    return this.count[cpu] ?? 0;
  }
}

export const lruSwap = new Semantics<LruMachine>('mm/swap');

// folio_add_lru and lru_add_drain_cpu: whether the lru_add batch is moved here (paths/compile.ts runs
// folio_batch_move_lru this many times, 0 or 1), with the folios it moves (lru_add_fn's count)
lruSwap.count('folio_add_lru', (m, c, _t, e) => {
  const n = m.mm.lruAdd.add(c.id);
  e.lruMoved = n;
  return n > 0 ? 1 : 0;
});
lruSwap.count('lru_add_drain_cpu', (m, c, _t, e) => {
  const n = m.mm.lruAdd.drain(c.id);
  e.lruMoved = n;
  return n > 0 ? 1 : 0;
});
lruSwap.count('lru_add_fn', (_m, _c, _t, e) => (typeof e.lruMoved === 'number' ? e.lruMoved : undefined));
