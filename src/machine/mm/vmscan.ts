/** Reclaim (mm/vmscan.c): kswapd woken under the low watermark, batches of file pages dropped and anon pages swapped out, kswapd sleeping again. */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { pfnPage } from '../paths/kobjects';
import { SWAP_CLUSTER_MAX } from '../include/mm_types';
import { queuePageout, swapReadPending, swapWritePending } from './page_io';

export const vmscan = new Semantics<MmMachine>('mm/vmscan');

vmscan.hook('wake_kswapd', (m) => { m.mm.wakeKswapd(); return H_CONT; });
vmscan.hook('reclaim_batch', (m, c, t, e) => {
  const v = m.mm.reclaimVictims(32);
  m.mm.pgsteal += v.file + v.anon.length;
  const k = Math.min(v.file, 8);
  for (let i = 0; i < k; i++) pushPath(t.ks, 'drop_file_page', e);
  for (const a of v.anon) {
    // (the page's pageout in the swap_out_page template writes its slot: mm/page_io.ts swap_write_bio)
    const s = m.mm.swapOut(a);
    if (s) queuePageout(t, s);
    pushPath(t.ks, 'swap_out_page', newEnv('swapout', { req: null }));
  }
  e.reclaimed = v.file + v.anon.length;
  return k + v.anon.length ? H_PUSHED : H_CONT;
});
vmscan.hook('kswapd_sleep', (m, _c, t, e) => {
  if (m.mm.freePages >= m.mm.highPages || !e.reclaimed) {
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'kswapd_try_to_sleep';
    return H_SLEEP;
  }
  return H_CONT;
});
/**
 * A recorded reclaim of a memory cgroup (try_to_free_mem_cgroup_pages → shrink_folio_list): each
 * add_to_swap is one of the group's pages swapped out, its oldest (mm/memcontrol.ts): unmapped, its folio
 * in the swap cache, still charged, until the pageout that follows writes it and a reclaim after the
 * write frees it (memcg_drop_clean).  Reclaim outside a group (kswapd's template) swaps out its own
 * victims (reclaim_batch).
 */
vmscan.hook('memcg_swap_out', (m, _c, t) => {
  const g = t.proc.memcg;
  const s = g ? m.mm.memcgSwapOut(g) : null;
  // the slot the task's next pageout -> __swap_writepage writes (mm/page_io.ts swap_write_bio)
  if (s) queuePageout(t, s);
  return H_CONT;
});
vmscan.at('add_to_swap', 'memcg_swap_out');
/**
 * A folio a memory cgroup's reclaim frees (__remove_mapping): one of the group's clean swap-cache folios,
 * uncharged (mem_cgroup_swapout moves the charge to swap), so the group's usage falls by what the real
 * reclaim freed, not by what it swapped out: a folio swapped out by an add_to_swap once its pageout's write
 * has completed (end_swap_bio_write; dirty or under writeback it is kept: mm/page_io.ts swapWritePending),
 * swap readahead's folios once read (read but not mapped: nothing to write), so a later fault on one reads
 * the swap device again (every recorded reclaiming swap-in of the group is a major fault: swapin_readahead).
 * The recording's events run shows it: a reclaim that writes ~180 folios frees ~12, the next ones free
 * ~40 each and write none, one every ~40 faults.
 */
vmscan.hook('memcg_drop_clean', (m, _c, t, e) => {
  // (a folio freed: the reclaim pass's nr_reclaimed, below)
  if (typeof e.vmPassReclaimed === 'number') { e.vmPassReclaimed++; e.vmReclaimed = (e.vmReclaimed as number) + 1; }
  const mm = t.proc.mm;
  if (t.proc.memcg && mm && mm.memcg === t.proc.memcg) m.mm.dropSwapCache(mm, (a) => swapReadPending(mm, a) || swapWritePending(mm, a));
  return H_CONT;
});
vmscan.at('__remove_mapping', 'memcg_drop_clean');
vmscan.tpArgs('mm_vmscan_kswapd_wake', () => [0, 0, 0]);
// pageout(): the folio handed to ->writepage (swap_writepage for anon folios: its frame, mm/page_io.ts)
vmscan.tpArgs('mm_vmscan_write_folio', (_m, _c, _t, e) => [typeof e.writeFolio === 'number' ? pfnPage(e.writeFolio) : 0]);

/**
 * The reclaim tracepoints of a memory cgroup's recorded reclaim (mm/vmscan.c): try_to_free_mem_cgroup_pages
 * traces mm_vmscan_memcg_reclaim_begin/_end around do_try_to_free_pages (paths/tpsites.ts), which lowers
 * sc->priority from DEF_PRIORITY by one per shrink_node pass; each isolate_lru_folios traces
 * mm_vmscan_lru_isolate, shrink_inactive_list (inlined in shrink_lruvec) mm_vmscan_lru_shrink_inactive and
 * shrink_active_list mm_vmscan_lru_shrink_active.  Their figures are the machine's: a list's scan is
 * min(SWAP_CLUSTER_MAX, its size >> priority) (get_scan_count, shrink_lruvec), each list half the group's
 * pages (inactive_is_low keeps a group under 1 GiB at inactive:active 1:1), at least the one folio the
 * recorded pass isolated; nr_reclaimed counts the folios the pass's __remove_mapping calls freed.
 */
const DEF_PRIORITY = 12;
/** include/linux/mmzone.h enum lru_list */
const LRU_INACTIVE_ANON = 0, LRU_ACTIVE_ANON = 1;
/** include/linux/gfp_types.h GFP_HIGHUSER_MOVABLE (a user page's charge: the gfp try_charge_memcg reclaims with) */
const GFP_HIGHUSER_MOVABLE = 0x400 | 0x800 | 0x40 | 0x80 | 0x100000 | 0x02 | 0x08;
vmscan.hook('memcg_reclaim_start', (_m, _c, _t, e) => {
  e.vmPrio = DEF_PRIORITY + 1;
  e.vmReclaimed = 0;
  e.vmPassReclaimed = 0;
  return H_CONT;
});
vmscan.at('try_to_free_mem_cgroup_pages', 'memcg_reclaim_start');
vmscan.hook('reclaim_priority', (_m, _c, _t, e) => {
  if (typeof e.vmPrio === 'number') e.vmPrio = Math.max(0, e.vmPrio - 1);
  return H_CONT;
});
vmscan.at('shrink_node', 'reclaim_priority');
vmscan.hook('reclaim_isolate', (_m, _c, t, e) => {
  const g = t.proc.memcg;
  const list = g ? Math.floor(g.usage / 2) : 0;
  e.vmIsolated = Math.max(1, Math.min(SWAP_CLUSTER_MAX, list >> ((e.vmPrio as number | undefined) ?? DEF_PRIORITY)));
  e.vmPassReclaimed = 0;
  return H_CONT;
});
vmscan.at('isolate_lru_folios', 'reclaim_isolate');
vmscan.hook('reclaim_active', (_m, _c, _t, e) => { e.vmActive = true; return H_CONT; });
vmscan.hook('reclaim_active_done', (_m, _c, _t, e) => { e.vmActive = false; return H_CONT; });
vmscan.at('shrink_active_list', 'reclaim_active');
vmscan.at('shrink_active_list', 'reclaim_active_done', 'exit');
const nrOf = (v: unknown): number => (typeof v === 'number' ? v : 0);
vmscan.tpArgs('mm_vmscan_memcg_reclaim_begin', () => [0, GFP_HIGHUSER_MOVABLE]);
vmscan.tpArgs('mm_vmscan_memcg_reclaim_end', (_m, _c, _t, e) => [nrOf(e.vmReclaimed)]);
// (highest_zoneidx: a memcg reclaim's reclaim_idx MAX_NR_ZONES - 1; order 0; mode 0; nothing skipped)
vmscan.tpArgs('mm_vmscan_lru_isolate', (_m, _c, _t, e) => {
  const n = nrOf(e.vmIsolated);
  return [4, 0, n, n, 0, n, 0, e.vmActive === true ? LRU_ACTIVE_ANON : LRU_INACTIVE_ANON];
});
// (nid, nr_scanned, nr_reclaimed, stat, priority, file): the stat's counts are not modelled (a zeroed reclaim_stat)
vmscan.tpArgs('mm_vmscan_lru_shrink_inactive', (_m, _c, _t, e) => [0, nrOf(e.vmIsolated), nrOf(e.vmPassReclaimed), 0, nrOf(e.vmPrio), 0]);
// (nid, nr_taken, nr_active, nr_deactivated, nr_referenced, priority, file): every folio taken deactivated
vmscan.tpArgs('mm_vmscan_lru_shrink_active', (_m, _c, _t, e) => [0, nrOf(e.vmIsolated), 0, nrOf(e.vmIsolated), 0, nrOf(e.vmPrio), 0]);
