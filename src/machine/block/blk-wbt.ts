/**
 * block/blk-wbt.c, writeback throttling (enabled on sda: the recordings' blk_mq_submit_bio runs
 * __rq_qos_throttle -> wbt_wait for every request): wbt_wait classifies the bio (bio_to_wbt_flags): a read
 * is only timestamped, a write other than O_DIRECT's (REQ_SYNC | REQ_IDLE) is tracked, waiting in
 * rq_qos_wait for an inflight slot below the limit (always granted: the machine's queue never reaches
 * it); a tracked write finding the latency window's stat timer idle arms it (rwb_arm_timer:
 * blk_stat_activate_nsecs for RWB_WINDOW_NSEC); at the window's end wb_timer_fn arms the next while tracked
 * writes are in flight (its scale_step and latency scaling are not modelled: the limit is never reached).
 */
import { BlkRequest, REQ_IDLE, REQ_SYNC } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { BlockMachine } from './core';
import { KTimer } from '../kernel/timer';

export const blkWbt = new Semantics<BlockMachine>('block/blk-wbt');

/** RWB_WINDOW_NSEC: the latency monitoring window, 100 ms */
const RWB_WINDOW_NSEC = 100e6;
/** A block layer's wbt state: the stat window's timer (rwb->cb's, blk_stat_timer_fn) and its tracked requests in flight. */
interface Rwb { readonly timer: KTimer; readonly inflight: Set<BlkRequest> }
const rwbs = new WeakMap<object, Rwb>();
function rwbOf(m: BlockMachine): Rwb {
  let r = rwbs.get(m.blk);
  if (!r) {
    const inflight = new Set<BlkRequest>();
    // wb_timer_fn at the window's end: another window while tracked writes are in flight
    const timer: KTimer = new KTimer('blk_stat_timer_fn', (tm, c) => {
      for (const q of inflight) if (q.done) inflight.delete(q);
      if (inflight.size) tm.timers.mod(timer, c.id, tm.now + RWB_WINDOW_NSEC);
    });
    rwbs.set(m.blk, (r = { timer, inflight }));
  }
  return r;
}

/** wbt_should_throttle: a write, but not O_DIRECT's REQ_SYNC | REQ_IDLE */
export function wbtTracked(r: BlkRequest | undefined): boolean {
  if (!r || !r.write || r.flush) return false;
  return ((r.flags ?? 0) & (REQ_SYNC | REQ_IDLE)) !== (REQ_SYNC | REQ_IDLE);
}

/**
 * wbt_wait: a tracked write counts as in flight (rq_qos_wait's slot) and, when the stat window's timer is
 * not pending (blk_stat_is_active), arms it (rwb_arm_timer: the template's mod_timer, timer_start)
 */
blkWbt.hook('wbt_wait', (m, _c, _t, e) => {
  const r = e.req as BlkRequest | undefined;
  const tracked = wbtTracked(r);
  e.wbtTracked = tracked;
  const rwb = rwbOf(m);
  if (tracked) rwb.inflight.add(r!);
  e.wbtArm = tracked && !rwb.timer.armed;
  if (e.wbtArm) { e.ktimer = rwb.timer; e.timeout = RWB_WINDOW_NSEC; }
  return H_CONT;
});
/**
 * A recorded submission's wbt_wait (swap-out's __swap_writepage, readahead ...), for the bio its hook made
 * (e.req): the same accounting, the window's timer armed here (the recorded tree's own rwb_arm_timer, where
 * it has one, is the recording's)
 */
blkWbt.hook('wbt_wait_rec', (m, c, _t, e) => {
  const r = e.req as BlkRequest | undefined;
  if (!wbtTracked(r)) return H_CONT;
  const rwb = rwbOf(m);
  rwb.inflight.add(r!);
  if (!rwb.timer.armed) m.timers.mod(rwb.timer, c.id, m.now + RWB_WINDOW_NSEC);
  return H_CONT;
});
blkWbt.at('wbt_wait', 'wbt_wait_rec');
blkWbt.cond('wbt_tracked', (_m, _c, _t, e) => e.wbtTracked === true);
blkWbt.cond('wbt_arm', (_m, _c, _t, e) => e.wbtArm === true);
