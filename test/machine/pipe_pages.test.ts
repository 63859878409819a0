/**
 * The pages of a pipe's buffers (src/machine/include/pipe_fs_i.ts, fs/pipe.ts): pipe_write allocates a
 * page per buffer it starts (unless the tmp_page a read released is there), merging the part of a
 * write past whole pages into the last buffer when it fits; pipe_read releases each buffer it reads to
 * its end, keeping the first page as tmp_page and freeing the others: tar-gzip's recorded trees
 * (tar's 10 KiB writes to gzip: 219 alloc_pages under pipe_write, 271 anon_pipe_buf_release, 220 of
 * them freeing their page), and the page events a pipeline fires on the machine.
 */
import { expect } from 'chai';
import { Pipe } from '../../src/machine/include/pipe_fs_i';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { counting } from './ftrace_counting';

installKernelSemantics();

describe('pipe buffer pages', () => {
  it('a write starts a page per 4 KiB, merges its tail into the last buffer when it fits, and a read releases what it empties', () => {
    const p = new Pipe();
    // 10240 bytes into an empty pipe: three new pages (4096, 4096, 2048)
    p.push(new Uint8Array(10240));
    expect(p.pagesAllocated).to.equal(3);
    // 1000 bytes: they fit after the last buffer's 2048 (offset + len + 1000 <= 4096): merged, no page
    p.push(new Uint8Array(1000));
    expect(p.pagesAllocated).to.equal(3);
    // 2000 more do not fit there (3048 + 2000 > 4096): a new page
    p.push(new Uint8Array(2000));
    expect(p.pagesAllocated).to.equal(4);
    // reading 5000 bytes empties the first page (kept as tmp_page), not the second
    p.take(5000);
    expect([p.pagesKept, p.pagesFreed]).to.deep.equal([1, 0]);
    // the rest: three more pages emptied, freed (the tmp_page is taken)
    p.take(100000);
    expect([p.pagesKept, p.pagesFreed]).to.deep.equal([1, 3]);
    // the next write's first page is the tmp_page: one allocation for two pages
    p.push(new Uint8Array(8192));
    expect(p.pagesAllocated).to.equal(5);
  });

  it('a pipeline allocates its buffers\' pages in pipe_write and frees them in pipe_read', () => {
    // 128 KiB through the pipe in 16 KiB writes (32 pages), cat reading 128 KiB at a time: each write
    // allocates its pages but the first, the tmp_page the read before kept; each read releases the
    // pages it empties, freeing all but the one it keeps
    const m = new Machine({ seed: 1 });
    const c = counting(['pipe_write', 'alloc_pages', 'anon_pipe_buf_release', 'free_unref_page', 'rmqueue_bulk'], 'pipe_pages');
    const pages = { alloc: 0, free: 0, kept: 0 };
    const takes = Pipe.prototype.take, pushes = Pipe.prototype.push;
    Pipe.prototype.take = function (this: Pipe, n: number): Uint8Array {
      const f = this.pagesFreed, k = this.pagesKept;
      const r = takes.call(this, n);
      pages.free += this.pagesFreed - f; pages.kept += this.pagesKept - k;
      return r;
    };
    Pipe.prototype.push = function (this: Pipe, b: Uint8Array): number {
      const a = this.pagesAllocated;
      const r = pushes.call(this, b);
      pages.alloc += this.pagesAllocated - a;
      return r;
    };
    try {
      expect(m.run('dd if=/dev/zero bs=16k count=8 2>/dev/null | cat > /dev/null').status).to.equal(0);
    } finally {
      c.stop();
      Pipe.prototype.take = takes;
      Pipe.prototype.push = pushes;
    }
    expect(pages.alloc + pages.kept).to.be.at.least(32);
    expect(pages.free + pages.kept).to.equal(32);
    // the pages' calls: alloc_pages (the pipe's, and the programs' own few), one release per page read
    expect(c.n.get('alloc_pages')).to.be.at.least(pages.alloc);
    expect(c.n.get('anon_pipe_buf_release')).to.equal(32);
    expect(c.n.get('free_unref_page')).to.be.at.least(pages.free);
    expect(c.n.get('pipe_write')).to.equal(8);
  });
});
