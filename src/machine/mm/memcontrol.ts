/**
 * Memory cgroups (mm/memcontrol.c): a process in a group (`Process.memcg`, inherited by fork) charges
 * the anonymous pages its faults make to the group (`__mem_cgroup_charge`, `mem_cgroup_swapin_charge_folio`);
 * a charge that would take the group past `memory.max` reclaims first (try_charge_memcg →
 * try_to_free_mem_cgroup_pages: the recorded reclaim tree, whose `add_to_swap` calls each swap out the
 * group's oldest page, mm/vmscan.ts); a swap-in charges the pages it reads ahead into the swap cache
 * too, which the group's reclaim frees first (its __remove_mapping calls); a page swapped out or freed
 * is uncharged.
 */
import { MemCgroup, Mm, Region, P_PRESENT } from '../include/mm_types';

/** MEMCG_CHARGE_BATCH: the pages a charge takes from its group's counter at once, the rest kept in the CPU's stock */
export const MEMCG_CHARGE_BATCH = 64;

/**
 * memcg_stock_pcp: per CPU, pages charged to one group's counter ahead of use (try_charge_memcg charges
 * MEMCG_CHARGE_BATCH at a time while the group has room and keeps the rest here; the CPU's next charges of
 * that group take from it, consume_stock).  A stock stays charged to its group until drained: by a refill
 * for another group or past MEMCG_CHARGE_BATCH (drain_stock), so pages a task's charges left on its CPU
 * count against memory.max while another task of the group charges on another CPU.
 */
export class ChargeStocks {
  private readonly group: (MemCgroup | null)[];
  private readonly nr: number[];
  constructor(ncpus: number) {
    this.group = new Array<MemCgroup | null>(ncpus).fill(null);
    this.nr = new Array<number>(ncpus).fill(0);
  }
  /** Whether CPU `cpu`'s stock holds `n` pages of `g` (consume_stock's test). */
  holds(g: MemCgroup, n: number, cpu: number): boolean {
    return n <= MEMCG_CHARGE_BATCH && this.group[cpu] === g && this.nr[cpu] >= n;
  }
  /** consume_stock(): take `n` pages of `g` from CPU `cpu`'s stock; false when it does not hold them. */
  consume(g: MemCgroup, n: number, cpu: number): boolean {
    if (!this.holds(g, n, cpu)) return false;
    this.nr[cpu] -= n;
    return true;
  }
  /** refill_stock(): `n` pages of `g` precharged into CPU `cpu`'s stock (another group's drained first; drained past the batch). */
  refill(g: MemCgroup, n: number, cpu: number): void {
    if (this.group[cpu] !== g) { this.drain(cpu); this.group[cpu] = g; }
    this.nr[cpu] += n;
    if (this.nr[cpu] > MEMCG_CHARGE_BATCH) this.drain(cpu);
  }
  /** drain_stock(): the CPU's stocked pages go back to their group's counter. */
  private drain(cpu: number): void {
    const g = this.group[cpu];
    if (g) g.usage = Math.max(0, g.usage - this.nr[cpu]);
    this.nr[cpu] = 0;
  }
}

/** Where a charge is made: the machine's per-CPU stocks and the charging CPU (none: the charge goes to the counter alone). */
export interface ChargeAt { stocks: ChargeStocks; cpu: number }

/**
 * Whether charging `n` more pages takes group `g` past its limit (so the fault reclaims first): the charging
 * CPU's stock does not hold them and the group's counter (its pages and the CPUs' stocks) has no room.
 */
export function memcgOverLimit(g: MemCgroup | null, n: number, at?: ChargeAt): boolean {
  return g !== null && !(at && at.cpu >= 0 && at.stocks.holds(g, n, at.cpu)) && g.usage + n > g.max;
}

/**
 * try_charge_memcg() of `n` pages (one folio) to `g`: from the CPU's stock when it holds them, else a batch
 * of MEMCG_CHARGE_BATCH (or `n`, if larger) from the counter while it has room, the rest stocked; else the
 * `n` pages alone (the charge the fault's reclaim made room for).
 */
function tryCharge(g: MemCgroup, n: number, at?: ChargeAt): void {
  if (at && at.cpu >= 0) {
    if (at.stocks.consume(g, n, at.cpu)) return;
    const batch = Math.max(MEMCG_CHARGE_BATCH, n);
    if (g.usage + batch <= g.max) {
      g.usage += batch;
      if (batch > n) at.stocks.refill(g, batch - n, at.cpu);
      return;
    }
  }
  g.usage += n;
}

/** Charge pages first .. first+n-1 of region `r` of `mm` (one folio) to group `g` (they join its LRU, newest last). */
export function memcgCharge(g: MemCgroup, mm: Mm, r: Region, first: number, n: number, at?: ChargeAt): void {
  tryCharge(g, n, at);
  mm.memcg = g;
  mm.charged += n;
  memcgLruAdd(g, mm, r, first, n);
}

/**
 * Charge `n` pages read into `mm`'s swap cache to group `g` (__read_swap_cache_async's
 * mem_cgroup_swapin_charge_folio: swap readahead charges each folio it reads, mapped or not).
 */
export function memcgChargeCache(g: MemCgroup, mm: Mm, n: number, at?: ChargeAt): void {
  for (let k = 0; k < n; k++) tryCharge(g, 1, at);
  mm.memcg = g;
  mm.charged += n;
}

/** Pages first .. first+n-1 of region `r` of `mm`, charged to `g` already, join its LRU (newest last). */
export function memcgLruAdd(g: MemCgroup, mm: Mm, r: Region, first: number, n: number): void {
  let at = lruAt.get(r);
  if (!at || at.length < r.pages.length) {
    const a = new Float64Array(r.pages.length).fill(-1);
    if (at) a.set(at);
    lruAt.set(r, (at = a));
  }
  for (let i = first; i < first + n; i++) { at[i] = g.lruSeq++; g.lru.push([r, i, mm]); }
  if (g.lruHead > 65536) { g.lru = g.lru.slice(g.lruHead); g.lruBase += g.lruHead; g.lruHead = 0; }
}
/** per region, each page's place in its group's LRU (a page charged again moves to the tail: its older entry is stale) */
const lruAt = new WeakMap<Region, Float64Array>();

/** Uncharge `n` pages of `mm` (swapped out or freed). */
export function memcgUncharge(mm: Mm, n: number): void {
  const g = mm.memcg;
  if (!g) return;
  const k = Math.min(n, mm.charged);
  mm.charged -= k;
  g.usage = Math.max(0, g.usage - k);
}

/** The group's oldest page still mapped (what shrink_folio_list of its inactive anon list takes next), or null. */
export function memcgOldest(g: MemCgroup): [Region, number, Mm] | null {
  while (g.lruHead < g.lru.length) {
    const seq = g.lruBase + g.lruHead;
    const v = g.lru[g.lruHead++];
    if (v[0].pages[v[1]] === P_PRESENT && v[2].users > 0 && v[2].memcg === g && lruAt.get(v[0])?.[v[1]] === seq) return v;
  }
  return null;
}
