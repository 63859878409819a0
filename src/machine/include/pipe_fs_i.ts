/**
 * Pipes (include/linux/pipe_fs_i.h): a 64 KiB buffer with reader/writer counts and wait queues; fs/pipe.ts has
 * their semantics.  A FIFO's pipe (the inode's i_pipe) also counts the opens of each side (r_counter,
 * w_counter: what an open waiting for its partner watches) and the struct files that hold it (files).
 */
import type { WaitQueue } from './wait';

export const PIPE_BUF_SIZE = 65536;

export class Pipe {
  chunks: Uint8Array[] = [];
  bytes = 0;
  readers = 1;
  writers = 1;
  /** opens for reading / writing so far (r_counter, w_counter: 1 for an anonymous pipe, as get_pipe_inode sets them; a FIFO's count its opens) */
  rCounter = 1;
  wCounter = 1;
  /** the struct files holding this pipe (put_pipe_info frees it, and a FIFO's i_pipe, at 0) */
  files = 2;
  readWait: WaitQueue = [];
  writeWait: WaitQueue = [];
  push(b: Uint8Array): number {
    const n = Math.min(b.length, PIPE_BUF_SIZE - this.bytes);
    if (n <= 0) return 0;
    this.chunks.push(b.slice(0, n));
    this.bytes += n;
    return n;
  }
  take(max: number): Uint8Array {
    const out = new Uint8Array(Math.min(max, this.bytes));
    let o = 0;
    while (o < out.length) {
      const c = this.chunks[0];
      const k = Math.min(c.length, out.length - o);
      out.set(c.subarray(0, k), o);
      o += k;
      if (k === c.length) this.chunks.shift(); else this.chunks[0] = c.subarray(k);
    }
    this.bytes -= out.length;
    return out;
  }
}
