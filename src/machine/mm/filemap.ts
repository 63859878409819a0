/**
 * The page cache (mm/filemap.c, mm/readahead.c): reads in batches of up to 15 pages, misses
 * that allocate pages and submit readahead bios (windows doubling up to 512 KiB, async readahead
 * at the marker), waits for pages under I/O, copies to user space; buffered writes that dirty
 * pages (generic_perform_write).  The state of each page is `Inode.pc`.
 */
import * as nodeFs from 'fs';
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pathsDataFile } from '../paths/model';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP, H_AGAIN } from '../paths/kexec';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { Inode, OpenFile, PAGE, storeWrite } from '../include/fs';
import { REQ_RAHEAD } from '../include/blkdev';
import type { BlkRequest } from '../include/blkdev';

export const filemap = new Semantics<MmMachine>('mm/filemap');

const RA_MAX = 128; // 512 KiB readahead window
filemap.hook('read_batches', (m, c, t, e) => {
  const ino = e.ino as Inode;
  const cur = e.cur as number;
  const end = e.end as number;
  if (cur >= end) {
    const pos = e.pos as number;
    const b = ino.readBytes(pos, end - pos);
    e.data = b;
    e.ret = b.length;
    const f = e.file as OpenFile;
    if (e.name !== 'pread64') f.pos = pos + b.length;
    return H_CONT;
  }
  const first = Math.floor(cur / PAGE);
  const last = Math.floor((end - 1) / PAGE);
  const n = Math.min(15, last - first + 1);
  ino.ensurePages(end);
  const be = newEnv('filemap_batch', { ino, first, n, blkdev: e.blkdev, file: e.file, rv: 0 });
  const st = ino.pc[first];
  be.miss = st === 0;
  // async readahead when the batch runs into the marker (end of the last window)
  const raEnd = (ino as unknown as { raEnd?: number }).raEnd ?? 0;
  be.async = !be.miss && raEnd > 0 && first + n >= raEnd - 16 && raEnd * PAGE < ino.size && ino.pc[Math.min(raEnd, ino.pc.length - 1)] === 0;
  e.cur = Math.min(end, (first + n) * PAGE);
  pushPath(t.ks, 'filemap_batch', be);
  return H_AGAIN;
});
filemap.cond('pc_miss', (_m, _c, _t, e) => e.miss === true);
filemap.cond('pc_async', (_m, _c, _t, e) => e.async === true);
filemap.cond('pc_locked', (_m, _c, _t, e) => {
  const ino = e.ino as Inode;
  for (let i = e.first as number, k = 0; k < (e.n as number); k++, i++) if (ino.pc[i] === 3) return true;
  return false;
});
filemap.hook('ra_alloc', (m, c, t, e) => {
  const ino = e.ino as Inode;
  const holder = ino as unknown as { raEnd?: number; raSize?: number };
  const start = e.miss ? (e.first as number) : (holder.raEnd ?? (e.first as number));
  const size = Math.min(RA_MAX, e.miss ? Math.max(32, (holder.raSize ?? 16) * 2) : (holder.raSize ?? 32) * 2);
  holder.raSize = size;
  const maxPage = Math.ceil(ino.size / PAGE);
  const pages: number[] = [];
  ino.ensurePages(Math.min(ino.size, (start + size) * PAGE));
  for (let i = start; i < Math.min(maxPage, start + size); i++) {
    if (ino.pc[i] !== 0) continue;
    pageCacheAdd(m.mm, ino, i, 3);
    pages.push(i);
  }
  holder.raEnd = start + size;
  e.raPages = pages;
  const k = Math.min(pages.length, 32);
  for (let i = 0; i < k; i++) pushPath(t.ks, 'pc_add_folio', e);
  return k ? H_PUSHED : H_CONT;
});
filemap.hook('ra_submit', (m, c, t, e) => {
  const pages = (e.raPages as number[]) ?? [];
  if (!pages.length) return H_CONT;
  const ino = e.ino as Inode;
  // one bio per 256 KiB
  for (let i = 0; i < pages.length; i += 64) {
    const chunk = pages.slice(i, i + 64);
    const req: BlkRequest = {
      ino, pages: chunk, write: false, swap: false, sector: (ino.diskBlock + chunk[0]) * 8,
      bytes: chunk.length * PAGE, cpu: c.id, waiters: [], flags: REQ_RAHEAD,
    };
    pushPath(t.ks, 'bio_submit', newEnv('bio', { req, blkdev: e.blkdev, rq: req, bio: req }));
  }
  return H_PUSHED;
});
filemap.hook('wait_io', (m, c, t, e) => {
  const ino = e.ino as Inode;
  for (let i = e.first as number, k = 0; k < (e.n as number); k++, i++) {
    if (ino.pc[i] === 3) {
      if (!ino.waiters.includes(t)) ino.waiters.push(t);
      t.state = TASK_UNINTERRUPTIBLE;
      t.wchan = 'folio_wait_bit_common';
      return H_SLEEP;
    }
  }
  return H_CONT;
});
filemap.hook('copy_pages', (m, c, t, e) => {
  const k = e.n as number;
  for (let i = 0; i < k; i++) pushPath(t.ks, 'copy_page', e);
  m.now += k * 250; // copying 4 KiB to user
  return H_PUSHED;
});
/**
 * A buffered write's work on the page cache (generic_perform_write): the data stored, each page it
 * touches cached and dirty (a new page enters the cache), the inode on the dirty list; the pages.
 */
export function bufferedWrite(m: MmMachine, e: Record<string, unknown>): { first: number; last: number } {
  const { ino, b, pos } = storeWrite(e, m.now);
  ino.ensurePages(ino.size);
  const first = Math.floor(pos / PAGE);
  const last = Math.floor((pos + Math.max(1, b.length) - 1) / PAGE);
  for (let i = first; i <= last; i++) {
    if (ino.pc[i] === 0) pageCacheAdd(m.mm, ino, i, 1);
    if (ino.pc[i] !== 2) { ino.dirtyPages++; m.fs.dirty.add(ino); }
    ino.pc[i] = 2;
  }
  m.now += b.length / 4;
  return { first, last };
}
filemap.hook('write_pages', (m, c, t, e) => {
  const { first, last } = bufferedWrite(m, e);
  for (let i = first; i <= Math.min(last, first + 15); i++) pushPath(t.ks, 'write_page', e);
  return H_PUSHED;
});

/**
 * Whether a read of bytes [pos, end) of `ino` finds every page in the page cache, uptodate, with no
 * readahead to start (filemap_get_pages takes neither page_cache_sync_ra nor page_cache_async_ra: the
 * batch does not reach the marker read_batches starts async readahead at).
 */
export function readHitsCache(ino: Inode, pos: number, end: number): boolean {
  if (end <= pos) return true;
  ino.ensurePages(end);
  const first = Math.floor(pos / PAGE);
  const last = Math.floor((end - 1) / PAGE);
  for (let i = first; i <= last; i++) if (ino.pc[i] !== 1 && ino.pc[i] !== 2) return false;
  const raEnd = (ino as unknown as { raEnd?: number }).raEnd ?? 0;
  return !(raEnd > 0 && last + 1 >= raEnd - 16 && raEnd * PAGE < ino.size && ino.pc[Math.min(raEnd, ino.pc.length - 1)] === 0);
}
/** A read served from the page cache (filemap_read's copy to user space): the bytes, the file position moved. */
export function cachedRead(m: MmMachine, e: Record<string, unknown>, ino: Inode, f: OpenFile, pos: number, count: number): Uint8Array {
  const b = ino.readBytes(pos, Math.max(0, Math.min(ino.size, pos + count) - pos));
  f.pos = pos + b.length;
  m.now += Math.ceil(b.length / PAGE) * 250; // copying 4 KiB to user
  e.data = b;
  e.ret = b.length;
  return b;
}

filemap.tpArgs('mm_filemap_add_to_page_cache', (_m, _c, _t, e) => [{ mapping: e.ino, index: e.first ?? 0 }]);

/**
 * Page `i` of `ino` (not cached yet) enters the page cache in `state` (1 cached, 2 dirty, 3 under
 * read I/O): a file page is allocated and put on the file LRU. Readahead, writes and the boot's
 * warm cache all add pages this way.
 */
function pageCacheAdd(mm: MmMachine['mm'], ino: Inode, i: number, state: number): void {
  ino.pc[i] = state;
  ino.cachedPages++;
  mm.allocPage('file');
  mm.addFileLru(ino, i);
}

/**
 * The page cache at boot: the files the recorded guest had cached when the workloads ran (its boot,
 * services and earlier runs had read them: the libraries, the programs, /etc), listed by
 * scripts/paths/pagecache.ts from the recordings, get every page clean in the cache, so reads and
 * faults on them take the cache-hit variants as on the real system; any other file starts cold.
 * Stops at the high watermark (a small machine keeps its free memory).
 */
export function warmPageCache(m: MmMachine, lookup: (p: string) => Inode | null): void {
  const f = pathsDataFile('pagecache.json');
  if (!f) return;
  const files = (JSON.parse(nodeFs.readFileSync(f, 'utf8')) as { files: string[] }).files;
  const mm = m.mm;
  // one lookup per directory (the list is sorted: a directory's files are together), then its entries
  let dirPath = '';
  let dir: Inode | null = null;
  for (const p of files) {
    const k = p.lastIndexOf('/');
    const d = p.slice(0, k) || '/';
    if (d !== dirPath) { dirPath = d; dir = lookup(d); }
    let ino = dir?.children?.get(p.slice(k + 1)) ?? null;
    if (ino?.isLnk) ino = lookup(p);
    if (!ino || !ino.isReg || ino.fs !== 'ext4' || ino.size === 0) continue;
    const n = Math.ceil(ino.size / PAGE);
    if (mm.freePages - n <= mm.highPages) break;
    ino.ensurePages(ino.size);
    // pageCacheAdd of each absent page, its counts added once: above the high watermark (checked
    // above) no page taken here reclaims or wakes kswapd (MemSys.allocPage)
    // each run of absent pages enters the LRU at once, in page order
    const pc = ino.pc;
    let added = 0;
    for (let i = 0; i < n;) {
      if (pc[i] !== 0) { i++; continue; }
      let j = i;
      while (j < n && pc[j] === 0) pc[j++] = 1;
      mm.addFileLru(ino, i, j - i);
      added += j - i;
      i = j;
    }
    ino.cachedPages += added;
    mm.freePages -= added;
    mm.filePages += added;
  }
}
