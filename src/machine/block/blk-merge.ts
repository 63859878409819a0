/**
 * block/blk-merge.c: a bio larger than the queue's limits is split (__bio_split_to_limits, from
 * blk_mq_submit_bio): each piece of max_sectors (sda: 256 sectors, 128 KiB) is cut off the front as a
 * clone (bio_split, REQ_NOMERGE, block_split) and becomes a request of its own, the rest resubmitted
 * (submit_bio_noacct onto current->bio_list, taken by __submit_bio_noacct_mq's loop) until it fits;
 * the original bio, chained to its pieces (bio_chain), ends last.  Whether a bio or request may merge.
 */
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { BlkRequest, REQ_FUA, REQ_PREFLUSH } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED } from '../paths/kexec';
import { type BlockMachine, bioAddr, bioResized, startSect, stackOf } from './core';

export const blkMerge = new Semantics<BlockMachine>('block/blk-merge');

const PAGE = 4096;
/** sda's queue limits (block/core.ts sdaQueue: max_sectors 256) in bytes: the largest request */
export const MAX_REQUEST_BYTES = 256 * 512;
/** drivers/scsi: a command's scatterlist holds this many entries inline (SCSI_INLINE_SG_CNT) */
const SCSI_INLINE_SG_CNT = 2;

/**
 * Bio `r` cut into requests of at most MAX_REQUEST_BYTES, in submission order: new pieces for the front,
 * `r` itself (advanced past them) last, so that its waiters wake and it is done when the whole bio is.
 */
export function splitBio(r: BlkRequest): BlkRequest[] {
  if (r.flush || r.bytes <= MAX_REQUEST_BYTES) return [r];
  const out: BlkRequest[] = [];
  const paged = r.pages.length * PAGE === r.bytes;
  const per = MAX_REQUEST_BYTES / PAGE;
  while (r.bytes > MAX_REQUEST_BYTES) {
    out.push({ ...r, pages: paged ? r.pages.slice(0, per) : [], bytes: MAX_REQUEST_BYTES, waiters: [], nomerge: true, seq: undefined, mergedInto: undefined });
    if (paged) r.pages = r.pages.slice(per);
    r.sector += MAX_REQUEST_BYTES / 512;
    r.bytes -= MAX_REQUEST_BYTES;
  }
  bioResized(r);
  out.push(r);
  return out;
}

/**
 * submit_bio_noacct_nocheck's __submit_bio loop: blk_mq_submit_bio for each request's worth of the bio
 * (templates/block.ts blk_mq_submit), the pieces split off first.
 */
blkMerge.hook('bio_split_pieces', (_m, c: Cpu, t: Task, e: Env) => {
  const r = e.req as BlkRequest | undefined;
  const pieces = r ? splitBio(r) : [];
  const ks = stackOf(c, t, e);
  if (pieces.length <= 1) { pushPath(ks, 'blk_mq_submit', e); return H_PUSHED; }
  for (let i = pieces.length - 1; i >= 0; i--) {
    const p = pieces[i];
    pushPath(ks, 'blk_mq_submit', newEnv('bio', { req: p, rq: p, bio: p, blkdev: e.blkdev, splitPart: i < pieces.length - 1, splitRest: pieces[i + 1] }));
  }
  return H_PUSHED;
});
/** bio_may_exceed_limits: anything but a single page of data goes through __bio_split_to_limits */
blkMerge.cond('bio_multipage', (_m, _c, _t, e) => ((e.req as BlkRequest | undefined)?.bytes ?? 0) !== PAGE);
blkMerge.cond('bio_has_data', (_m, _c, _t, e) => ((e.req as BlkRequest | undefined)?.bytes ?? 0) > 0);
blkMerge.cond('bio_split_part', (_m, _c, _t, e) => e.splitPart === true);
// block_split(split, new_sector): the piece, and where the rest of the bio now starts (remapped to the disk)
blkMerge.tpArgs('block_split', (_m, _c, _t, e) => {
  const rest = e.splitRest as BlkRequest;
  return [bioAddr(e.req as BlkRequest), rest.sector + startSect(rest)];
});

/** REQ_NOMERGE_FLAGS (REQ_NOMERGE, REQ_PREFLUSH, REQ_FUA) and flush requests: bio_mergeable / rq_mergeable */
export const mergeable = (r: BlkRequest | undefined): boolean =>
  !!r && !r.nomerge && !r.flush && ((r.flags ?? 0) & (REQ_PREFLUSH | REQ_FUA)) === 0;
blkMerge.cond('bio_mergeable', (_m, _c, _t, e) => mergeable(e.req as BlkRequest | undefined));
blkMerge.cond('rq_mergeable', (_m, _c, _t, e) => mergeable(e.req as BlkRequest | undefined));
/** scsi_alloc_sgtables: a request of more segments (pages) than the inline scatterlist chains a table (mempool) */
blkMerge.cond('sg_chained', (_m, _c, _t, e) => Math.ceil(((e.req as BlkRequest | undefined)?.bytes ?? 0) / PAGE) > SCSI_INLINE_SG_CNT);
