/**
 * block/mq-deadline.c, sda's I/O scheduler (the guest's /sys/block/sda/queue/scheduler: [mq-deadline]):
 * a plug's flush inserts its requests (dd_insert_requests: each into the sort tree and, when mergeable,
 * the merge hash, block_rq_insert) and runs the hardware queue, whose __blk_mq_do_dispatch_sched takes
 * them back one by one (dd_has_work, a SCSI budget, dd_dispatch_request, the driver tag) before
 * blk_mq_dispatch_rq_list hands them to the driver.  A flush sequence's steps bypass the scheduler
 * (blk_insert_flush), so they are neither inserted nor dispatched by it.
 */
import type { BlkRequest } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED } from '../paths/kexec';
import { type BlockMachine, stackOf } from './core';

export const mqDeadline = new Semantics<BlockMachine>('block/mq-deadline');

/** dd_insert_requests: the requests the flush took (the plug's `flushing`), each dd_insert_request */
mqDeadline.hook('dd_insert_each', (m, c, t, e) => {
  const list = m.blk.plugOf(c).flushing.splice(0);
  const ks = stackOf(c, t, e);
  for (let i = list.length - 1; i >= 0; i--) pushPath(ks, 'dd_insert_one', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});

/** __blk_mq_do_dispatch_sched's loop: each request the scheduler holds taken for dispatch */
mqDeadline.hook('dd_dispatch_each', (_m, c, t, e) => {
  const list = ((e.plugTaken as BlkRequest[] | undefined) ?? []).filter((r) => !r.owner);
  const ks = stackOf(c, t, e);
  for (let i = list.length - 1; i >= 0; i--) pushPath(ks, 'dd_dispatch_one', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
