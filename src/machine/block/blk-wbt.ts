/**
 * block/blk-wbt.c, writeback throttling (enabled on sda: the recordings' blk_mq_submit_bio runs
 * __rq_qos_throttle -> wbt_wait for every request): wbt_wait classifies the bio (bio_to_wbt_flags): a read
 * is only timestamped, a write other than O_DIRECT's (REQ_SYNC | REQ_IDLE) is tracked, waiting in
 * rq_qos_wait for an inflight slot below the limit (always granted: the machine's queue never reaches
 * it); a tracked write finding the latency window's stat timer idle arms it (rwb_arm_timer:
 * blk_stat_activate_nsecs for RWB_WINDOW_NSEC).  Simplification: the window is not re-armed at its end
 * (wb_timer_fn's rearm while writes are inflight), so a new window starts at the first tracked write after it.
 */
import { BlkRequest, REQ_IDLE, REQ_SYNC } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { BlockMachine } from './core';

export const blkWbt = new Semantics<BlockMachine>('block/blk-wbt');

/** RWB_WINDOW_NSEC: the latency monitoring window, 100 ms */
const RWB_WINDOW_NSEC = 100e6;
/** each block layer's stat window (rwb->cb's timer) pending until then, ns */
const windowUntil = new WeakMap<object, number>();

/** wbt_should_throttle: a write, but not O_DIRECT's REQ_SYNC | REQ_IDLE */
export function wbtTracked(r: BlkRequest | undefined): boolean {
  if (!r || !r.write || r.flush) return false;
  return ((r.flags ?? 0) & (REQ_SYNC | REQ_IDLE)) !== (REQ_SYNC | REQ_IDLE);
}

blkWbt.hook('wbt_wait', (m, _c, _t, e) => {
  const tracked = wbtTracked(e.req as BlkRequest | undefined);
  e.wbtTracked = tracked;
  const until = windowUntil.get(m.blk) ?? -1;
  e.wbtArm = tracked && m.now >= until;
  if (e.wbtArm) windowUntil.set(m.blk, m.now + RWB_WINDOW_NSEC);
  return H_CONT;
});
blkWbt.cond('wbt_tracked', (_m, _c, _t, e) => e.wbtTracked === true);
blkWbt.cond('wbt_arm', (_m, _c, _t, e) => e.wbtArm === true);
