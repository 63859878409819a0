/**
 * The page cache (mm/filemap.c, mm/readahead.c): reads in batches of up to 15 pages, misses
 * that allocate pages and submit readahead bios (windows doubling up to 512 KiB, async readahead
 * at the marker), waits for pages under I/O, copies to user space; buffered writes that dirty
 * pages (generic_perform_write).  The state of each page is `Inode.pc`.
 */
import * as nodeFs from 'fs';
import { anonPage, type MmMachine } from './mm';
import { P_PRESENT, P_COW, type Mm } from '../include/mm_types';
import { Semantics } from '../paths/semantics';
import { pathsDataFile } from '../paths/model';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP, H_AGAIN } from '../paths/kexec';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { Inode, LazyDir, OpenFile, PAGE, S_IFLNK, S_IFMT, S_IFREG, storeWrite, type LazyEntry } from '../include/fs';
import { REQ_RAHEAD } from '../include/blkdev';
import type { BlkRequest } from '../include/blkdev';
import type { Env } from '../include/kstack';

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
      if (!(ino.waiters ??= []).includes(t)) ino.waiters.push(t);
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
  m.now += k * 250 * m.cpuSlowdown; // copying 4 KiB to user
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
  m.now += b.length / 4 * m.cpuSlowdown;
  return { first, last };
}
filemap.hook('write_pages', (m, c, t, e) => {
  const { first, last } = bufferedWrite(m, e);
  for (let i = first; i <= Math.min(last, first + 15); i++) pushPath(t.ks, 'write_page', e);
  return H_PUSHED;
});

/**
 * A struct file's readahead state (struct file_ra_state): the window [start, start + size), its async
 * part, and the page that carries PG_readahead (-1: none).
 */
interface RaState { start: number; size: number; asyncSize: number; marker: number }
const raStates = new WeakMap<OpenFile, RaState>();
/**
 * The disk's readahead window, pages: read_ahead_kb 128 (VM_READAHEAD_PAGES), the 32 folios each of the
 * real guest's readaheads allocates (data/recordings/pagecache-miss: dd bs=64k, page_cache_sync_ra once,
 * then page_cache_async_ra every other read).
 */
const RA_PAGES = 32;
/** mm/readahead.c get_init_ra_size: the first window for a read of `req` pages */
function initRaSize(req: number, max: number): number {
  let n = 1;
  while (n < req) n <<= 1;
  return n <= max / 32 ? n * 4 : n <= max / 4 ? n * 2 : max;
}
/** mm/readahead.c get_next_ra_size */
const nextRaSize = (cur: number, max: number): number => (cur < max / 16 ? 4 * cur : cur <= max / 2 ? 2 * cur : max);

/** The page-cache work of a read: readahead started (sync, async), the folios it allocated, their bios. */
export interface ReadIo { sync: boolean; async: boolean; pages: number; reqs: BlkRequest[] }

/**
 * What filemap_read's filemap_get_pages does to the page cache for a read of bytes [pos, end) of `f`
 * (mm/readahead.c ondemand_readahead): the first page absent starts synchronous readahead (a window of
 * get_init_ra_size pages from it, its async part marked PG_readahead); a read reaching the marked page
 * starts asynchronous readahead of the next window.  page_cache_ra_unbounded adds each absent page of
 * the window (up to the end of the file) to the cache locked for read I/O, ext4_mpage_readpages makes a
 * bio of each run (up to max_sectors_kb 128), REQ_RAHEAD.  The bios are submitted where the recorded tree
 * submits them (block/core.ts io_submit).
 */
export function readahead(m: MmMachine, cpu: number, f: OpenFile, ino: Inode, pos: number, end: number): ReadIo {
  const io: ReadIo = { sync: false, async: false, pages: 0, reqs: [] };
  if (end <= pos) return io;
  ino.ensurePages(end);
  const first = Math.floor(pos / PAGE);
  const last = Math.floor((end - 1) / PAGE);
  let ra = raStates.get(f);
  if (!ra) raStates.set(f, (ra = { start: 0, size: 0, asyncSize: 0, marker: -1 }));
  if (ino.pc[first] === 0) {
    const req = last - first + 1;
    io.sync = true;
    ra.start = first;
    ra.size = initRaSize(req, RA_PAGES);
    ra.asyncSize = ra.size > req ? ra.size - req : ra.size;
    raWindow(m, cpu, ino, ra, io);
  }
  if (ra.marker >= first && ra.marker <= last) {
    io.async = true;
    ra.start += ra.size;
    ra.size = nextRaSize(ra.size, RA_PAGES);
    ra.asyncSize = ra.size;
    raWindow(m, cpu, ino, ra, io);
  }
  return io;
}
/** page_cache_ra_unbounded of the window of `ra`: absent pages added locked, one bio per run, the marker set. */
function raWindow(m: MmMachine, cpu: number, ino: Inode, ra: RaState, io: ReadIo): void {
  const end = Math.min(Math.ceil(ino.size / PAGE), ra.start + ra.size);
  const mark = ra.start + ra.size - ra.asyncSize;
  ra.marker = -1;
  if (end <= ra.start) return;
  ino.ensurePages(Math.min(ino.size, end * PAGE));
  let run: number[] = [];
  const bio = (): void => {
    if (!run.length) return;
    io.reqs.push({
      ino, pages: run, write: false, swap: false, sector: (ino.diskBlock + run[0]) * 8,
      bytes: run.length * PAGE, cpu, waiters: [], flags: REQ_RAHEAD,
    });
    run = [];
  };
  for (let i = ra.start; i < end; i++) {
    if (ino.pc[i] !== 0) { bio(); continue; }
    pageCacheAdd(m.mm, ino, i, 3);
    io.pages++;
    run.push(i);
    if (i === mark) ra.marker = i;
    if (run.length === 32) bio();
  }
  bio();
}
/**
 * What folio_mark_accessed (mm/swap.c) has left on each page of a file a read copied: 1 PG_referenced,
 * 2 PG_active (0: neither; a page entering the cache starts so).
 */
const accessed = new WeakMap<Inode, Uint8Array>();
/**
 * filemap_read's folio_mark_accessed of the pages of bytes [pos, end) of `ino`: a page not referenced
 * becomes referenced, a referenced one is activated (folio_activate, workingset_activation: the
 * recorded reads of a file read before, data/recordings/pagecache-hit).  How many were activated.
 */
export function markAccessed(ino: Inode, pos: number, end: number): number {
  if (end <= pos) return 0;
  const first = Math.floor(pos / PAGE);
  const last = Math.floor((end - 1) / PAGE);
  let a = accessed.get(ino);
  if (!a || a.length <= last) {
    const b = new Uint8Array(Math.max(last + 1, (a?.length ?? 0) * 2));
    if (a) b.set(a);
    accessed.set(ino, (a = b));
  }
  let act = 0;
  for (let i = first; i <= last; i++) {
    if (a[i] === 0) a[i] = 1;
    else if (a[i] === 1) { a[i] = 2; act++; }
  }
  return act;
}
/**
 * An address space torn down (exit_mmap, exec's old mm: unmap_vmas -> zap_pte_range) marks each page cache
 * page its file mappings map (young: faulted in or mapped by fault-around) accessed (mark_page_accessed,
 * for a VMA without VM_SEQ_READ): a page referenced before is activated (folio_activate), so a program's
 * pages are activated at its second exit since they entered the cache and no more after (the recordings'
 * graph runs, a workload's second run, show folio_activate in exit_group; their events runs, its fourth,
 * no mm_lru_activate).  How many were activated.
 */
export function zapMarkAccessed(mm: Mm): number {
  let act = 0;
  for (const r of mm.regions.values()) {
    if (!r.file) continue;
    const pages = r.pages;
    for (let i = 0; i < pages.length; i++) {
      if ((pages[i] !== P_PRESENT && pages[i] !== P_COW) || anonPage(r, i)) continue;
      const pos = r.fileOff + i * PAGE;
      if (markAccessed(r.file, pos, pos + PAGE)) act++;
    }
  }
  return act;
}
/**
 * The page cache pages of each file the address spaces `mms` map (present in a file VMA, not replaced by
 * an anonymous copy): what drop_caches leaves (invalidate_mapping_pages -> mapping_evict_folio keeps a
 * folio with references beyond the cache's own: every mapping pte holds one).
 */
export function mappedFilePages(mms: Iterable<Mm>): Map<Inode, Set<number>> {
  const out = new Map<Inode, Set<number>>();
  for (const mm of mms) {
    for (const r of mm.regions.values()) {
      if (!r.file) continue;
      let set = out.get(r.file);
      const pages = r.pages;
      for (let i = 0; i < pages.length; i++) {
        if ((pages[i] !== P_PRESENT && pages[i] !== P_COW) || anonPage(r, i)) continue;
        if (!set) out.set(r.file, (set = new Set()));
        set.add(Math.floor(r.fileOff / PAGE) + i);
      }
    }
  }
  return out;
}
/**
 * invalidate_mapping_pages (drop_caches): the clean pages of `ino` not under I/O and not in `keep` (those
 * a process maps) leave the cache, with what folio_mark_accessed had left on them (a page read again
 * enters as a new folio: neither referenced nor active).  How many were freed.
 */
export function invalidateMappingPages(mm: MmMachine['mm'], ino: Inode, keep: ReadonlySet<number> | undefined): number {
  const a = accessed.get(ino);
  let n = 0;
  for (let i = 0; i < ino.pc.length; i++) {
    if (ino.pc[i] !== 1 || keep?.has(i)) continue;
    ino.pc[i] = 0;
    if (a && i < a.length) a[i] = 0;
    n++;
  }
  ino.cachedPages -= n; mm.filePages -= n; mm.freePages += n;
  return n;
}
/**
 * folio_activate_fn traces mm_lru_activate only for a folio not active yet: a teardown (e.lruActivate,
 * set by the exit or exec: paths/entry.ts) or a copy_file_range (fs/read_write.ts) fires as many as it
 * activated pages (its recorded tree
 * ran folio_activate on the pages the recorded run found referenced; a run whose pages are active
 * already fires none, as the recordings' events runs, a workload's fourth run).
 */
filemap.cond('lru_activate', (_m, _c, _t, e) => {
  const n = e.lruActivate;
  if (typeof n !== 'number') return true;
  e.lruActivate = n - 1;
  return n > 0;
});
filemap.tpIf('mm_lru_activate', 'lru_activate');
/** The first page of bytes [pos, end) of `ino` still under read I/O (locked, not uptodate), or -1. */
export function lockedPage(ino: Inode, pos: number, end: number): number {
  if (end <= pos) return -1;
  for (let i = Math.floor(pos / PAGE), last = Math.floor((end - 1) / PAGE); i <= last && i < ino.pc.length; i++) if (ino.pc[i] === 3) return i;
  return -1;
}
/**
 * filemap_read waits for the folios it copies that are still under read I/O (filemap_update_page's
 * folio lock: the recorded async-readahead trees never waited, the guest's disk being faster than its
 * emulated CPU; the machine's disk is not), before touch_atime ends the copy loop.
 */
filemap.hook('read_wait', (_m, _c, t, e) => {
  const ino = e.ino as Inode | undefined;
  if (!ino || e.readEnd === undefined || lockedPage(ino, e.readPos as number, e.readEnd as number) < 0) return H_CONT;
  if (!(ino.waiters ??= []).includes(t)) ino.waiters.push(t);
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'folio_wait_bit_common';
  return H_SLEEP;
});
filemap.at('touch_atime', 'read_wait');

/** A read served from the page cache (filemap_read's copy to user space): the bytes, the file position moved. */
export function cachedRead(m: MmMachine, e: Record<string, unknown>, ino: Inode, f: OpenFile, pos: number, count: number): Uint8Array {
  const b = ino.readBytes(pos, Math.max(0, Math.min(ino.size, pos + count) - pos));
  f.pos = pos + b.length;
  m.now += Math.ceil(b.length / PAGE) * 250 * m.cpuSlowdown; // copying 4 KiB to user
  e.data = b;
  e.ret = b.length;
  return b;
}

filemap.tpArgs('mm_filemap_add_to_page_cache', (_m, _c, _t, e) => [{ mapping: e.ino, index: e.first ?? 0 }]);

/**
 * A truncate on this path (an unlink dropping the last link, O_TRUNC, ftruncate) takes the cached pages
 * of `ino` from index `from` on out of the page cache: which, kept on the environment before the
 * machine drops them, for the events the recorded tree fires per folio (truncate_inode_pages_range walks
 * them in index order, in batches: truncate_cleanup_folio's ext4_invalidate_folio, filemap_release_folio's
 * ext4_releasepage, delete_from_page_cache_batch's mm_filemap_delete_from_page_cache); with `drops` false,
 * none (an unlink leaving other links).
 */
export function truncating(e: Env, ino: Inode, from = 0, drops = true): void {
  const idx: number[] = [];
  if (drops) for (let i = from; i < ino.pc.length; i++) if (ino.pc[i]) idx.push(i);
  e.truncIno = ino;
  e.truncIdx = idx;
  // the call's recorded tree is one that truncated about as many folios (paths/entry.ts sys_body)
  e.zapPages = idx.length;
  e.zapFn = 'filemap_unaccount_folio';
}

/**
 * The folio the `key`-th event of its kind (`key`: the event's counter on the environment) is about: the
 * next cached page of the truncate (truncating), as { mapping, index }; past the pages the machine had
 * cached (the recorded tree dropped more), the indexes after the last.
 */
export function truncFolio(e: Env, key: string): { mapping: Inode | null; index: number } {
  const idx = Array.isArray(e.truncIdx) ? (e.truncIdx as number[]) : [];
  const k = typeof e[key] === 'number' ? (e[key] as number) : 0;
  e[key] = k + 1;
  const index = k < idx.length ? idx[k] : (idx.length ? idx[idx.length - 1] + 1 + k - idx.length : k);
  return { mapping: e.truncIno instanceof Inode ? e.truncIno : null, index };
}
filemap.tpArgs('mm_filemap_delete_from_page_cache', (_m, _c, _t, e) => [truncFolio(e, 'tpDelFolio')]);

/**
 * Page `i` of `ino` (not cached yet) enters the page cache in `state` (1 cached, 2 dirty, 3 under
 * read I/O): a file page is allocated and put on the file LRU. Readahead, writes and the boot's
 * warm cache all add pages this way.
 */
function pageCacheAdd(mm: MmMachine['mm'], ino: Inode, i: number, state: number): void {
  ino.pc[i] = state;
  const a = accessed.get(ino);
  if (a && i < a.length) a[i] = 0;
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
    // an entry of a directory made on first use (the guest's /etc) is not made for this: its pages wait for it
    const kids = dir?.children;
    let ino: Inode | LazyEntry | null = (kids instanceof LazyDir ? kids.peek(p.slice(k + 1)) : kids?.get(p.slice(k + 1))) ?? null;
    if (ino && (ino.mode & S_IFMT) === S_IFLNK) ino = lookup(p);
    if (!ino || (ino.mode & S_IFMT) !== S_IFREG || ino.fs !== 'ext4' || ino.size === 0) continue;
    const n = Math.ceil(ino.size / PAGE);
    if (mm.freePages - n <= mm.highPages) break;
    if (!(ino instanceof Inode)) {
      // what the loop below does to a new inode's pages (all absent: one run), done when it is made
      if (ino.whenMade) continue;
      ino.whenMade = (made) => {
        made.ensurePages(made.size);
        made.pc.fill(1, 0, n);
        made.cachedPages += n;
      };
      mm.addFileLru(ino, 0, n);
      mm.freePages -= n;
      mm.filePages += n;
      continue;
    }
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
