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

/** Whether charging `n` more pages takes group `g` past its limit (so the fault reclaims first). */
export function memcgOverLimit(g: MemCgroup | null, n: number): boolean {
  return g !== null && g.usage + n > g.max;
}

/** Charge pages first .. first+n-1 of region `r` of `mm` to group `g` (they join its LRU, newest last). */
export function memcgCharge(g: MemCgroup, mm: Mm, r: Region, first: number, n: number): void {
  memcgChargeCache(g, mm, n);
  memcgLruAdd(g, mm, r, first, n);
}

/**
 * Charge `n` pages read into `mm`'s swap cache to group `g` (__read_swap_cache_async's
 * mem_cgroup_swapin_charge_folio: swap readahead charges each folio it reads, mapped or not).
 */
export function memcgChargeCache(g: MemCgroup, mm: Mm, n: number): void {
  g.usage += n;
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
