/** Reclaim (mm/vmscan.c): kswapd woken under the low watermark, batches of file pages dropped and anon pages swapped out, kswapd sleeping again. */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { pfnPage } from '../paths/kobjects';
import { queuePageout, swapReadPending } from './page_io';

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
 * add_to_swap is one of the group's pages swapped out, its oldest (mm/memcontrol.ts), so the group's
 * usage falls by what the real reclaim freed.  Reclaim outside a group (kswapd's template) swaps out
 * its own victims (reclaim_batch).
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
 * A folio a memory cgroup's reclaim frees (__remove_mapping): the group's clean swap-cache pages go first
 * (swap readahead's, read but not mapped: nothing to write), so a later fault on one reads the swap
 * device again (every recorded reclaiming swap-in of the group is a major fault: swapin_readahead).
 */
vmscan.hook('memcg_drop_clean', (m, _c, t) => {
  const mm = t.proc.mm;
  if (t.proc.memcg && mm && mm.memcg === t.proc.memcg) m.mm.dropSwapCache(mm, (a) => swapReadPending(mm, a));
  return H_CONT;
});
vmscan.at('__remove_mapping', 'memcg_drop_clean');
vmscan.tpArgs('mm_vmscan_kswapd_wake', () => [0, 0, 0]);
// pageout(): the folio handed to ->writepage (swap_writepage for anon folios: its frame, mm/page_io.ts)
vmscan.tpArgs('mm_vmscan_write_folio', (_m, _c, _t, e) => [typeof e.writeFolio === 'number' ? pfnPage(e.writeFolio) : 0]);
