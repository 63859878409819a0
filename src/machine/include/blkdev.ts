/** Block I/O requests (include/linux/blkdev.h, blk_types.h): what the block layer (block/) queues and the disk serves. */
import type { Inode } from './fs';
import type { WaitQueue } from './wait';

export interface BlkRequest {
  ino: Inode | null;
  pages: number[];
  write: boolean;
  swap: boolean;
  sector: number;
  bytes: number;
  cpu: number;
  /** tasks to wake at completion */
  waiters: WaitQueue;
  /** bio->bi_opf's flags beyond the op (REQ_SYNC, REQ_IDLE, REQ_META ...); 0 when absent */
  flags?: number;
  /** a direct I/O bio (iomap_dio_bio_end_io completes it) */
  dio?: boolean;
  /** set when the request completed (bio_endio ran) */
  done?: boolean;
  /** the device completed it: blk_update_request advanced the bio's iterator (bio_endio sees bi_size 0) */
  advanced?: boolean;
  /** a REQ_OP_FLUSH request (the flush machinery's pre/post flush: no data, __sector (sector_t)-1) */
  flush?: boolean;
  /** a bio that may be back-merged into the plugged request before it (the journal's log blocks) */
  merge?: boolean;
  /** a flush sequence's step: the request whose PREFLUSH/FUA it carries out (block/blk-flush.c) */
  owner?: BlkRequest;
  /** REQ_NOMERGE: a piece __bio_split_to_limits cut off a larger bio (no merge is tried for it) */
  nomerge?: boolean;
  /** the plugged request this bio was merged into */
  mergedInto?: BlkRequest;
  /** the steps of this request's flush sequence still to issue */
  seq?: BlkRequest[];
}
/** include/linux/blk_types.h (6.1): request flags above the 8 op bits */
export const REQ_SYNC = 1 << 11, REQ_META = 1 << 12, REQ_PRIO = 1 << 13, REQ_IDLE = 1 << 15, REQ_RAHEAD = 1 << 19;
export const REQ_FUA = 1 << 17, REQ_PREFLUSH = 1 << 18;
