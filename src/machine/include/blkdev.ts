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
}
