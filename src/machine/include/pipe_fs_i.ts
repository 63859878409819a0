/**
 * Pipes (include/linux/pipe_fs_i.h): a 64 KiB buffer with reader/writer counts and wait queues; fs/pipe.ts has
 * their semantics.  The bytes sit in pages (pipe_buffer), which writes allocate and reads release: the
 * page allocations and frees of pipe_write's and pipe_read's trees.  A FIFO's pipe (the inode's i_pipe) also counts the opens of each side (r_counter,
 * w_counter: what an open waiting for its partner watches) and the struct files that hold it (files).
 */
import type { WaitQueue } from './wait';
import { PAGE_SIZE } from './page_types';

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
  /**
   * The pages holding the bytes (struct pipe_buffer: one page each), oldest first: where each one's
   * unread bytes end in the page (offset + len), and how many are unread.
   */
  private pageEnd: number[] = [];
  private pageLen: number[] = [];
  /** pipe->tmp_page: a page a read released, kept for the next write to fill instead of allocating one */
  private tmpPage = false;
  /**
   * So far: pages the pushes allocated (pipe_write's alloc_page), pages the takes released and freed
   * (anon_pipe_buf_release's put_page) or kept as tmp_page
   */
  pagesAllocated = 0;
  pagesFreed = 0;
  pagesKept = 0;

  push(b: Uint8Array): number {
    const n = Math.min(b.length, PIPE_BUF_SIZE - this.bytes);
    if (n <= 0) return 0;
    this.chunks.push(b.slice(0, n));
    this.bytes += n;
    this.fillPages(n);
    return n;
  }

  /**
   * fs/pipe.c pipe_write's pages for `n` bytes: the part past whole pages (n % PAGE_SIZE) merges into
   * the last buffer when it fits there (PIPE_BUF_FLAG_CAN_MERGE, the pipe not empty), the rest fills
   * new pages of PAGE_SIZE, each the tmp_page a read left or a new one (alloc_page).
   */
  private fillPages(n: number): void {
    const last = this.pageEnd.length - 1;
    const chars = n & (PAGE_SIZE - 1);
    if (chars && last >= 0 && this.pageEnd[last] + chars <= PAGE_SIZE) {
      this.pageEnd[last] += chars;
      this.pageLen[last] += chars;
      n -= chars;
    }
    for (; n > 0; n -= PAGE_SIZE) {
      if (this.tmpPage) this.tmpPage = false; else this.pagesAllocated++;
      const k = Math.min(n, PAGE_SIZE);
      this.pageEnd.push(k);
      this.pageLen.push(k);
    }
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
    this.emptyPages(out.length);
    return out;
  }

  /**
   * pipe_read's consumption of `n` bytes: each page read to its end is released (anon_pipe_buf_release):
   * kept as tmp_page when there is none, else freed (put_page).
   */
  private emptyPages(n: number): void {
    while (n > 0 && this.pageLen.length) {
      const k = Math.min(n, this.pageLen[0]);
      this.pageLen[0] -= k;
      n -= k;
      if (this.pageLen[0] > 0) break;
      this.pageLen.shift();
      this.pageEnd.shift();
      if (!this.tmpPage) { this.tmpPage = true; this.pagesKept++; } else this.pagesFreed++;
    }
  }
}
