/** Writeback (mm/page-writeback.c, fs/fs-writeback.c): dirty pages of an inode, or of all dirty inodes, written as block requests; fsync/sync wait for them. */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP, H_AGAIN } from '../paths/kexec';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { OpenFile, PAGE } from '../include/fs';
import type { Inode } from '../include/fs';
import { BlkRequest, REQ_SYNC } from '../include/blkdev';
import type { Task } from '../include/sched';
import type { Env, KStack } from '../include/kstack';
import { pushWakeups } from '../kernel/sched/core';
import { fdOf } from '../include/fdtable';

export const pageWriteback = new Semantics<MmMachine>('mm/page_writeback');

/** Write requests issued by writeback and not yet completed, per machine, in issue order. */
const inflight = new WeakMap<object, Set<BlkRequest>>();
/**
 * Make `t` wait for the writeback requests still in flight (of inode `ino`, or all): true when it
 * was added to the last one's waiters (the caller sleeps; the completion wakes it).
 */
export function waitWriteback(m: MmMachine, t: Task, ino?: Inode | null): boolean {
  const pend = pendingWrites(m, ino);
  if (!pend.length) return false;
  const w = pend[pend.length - 1].waiters;
  if (!w.includes(t)) w.push(t);
  return true;
}
/** The uncompleted writeback requests (of inode `ino`, or all). */
function pendingWrites(m: MmMachine, ino?: Inode | null): BlkRequest[] {
  const s = inflight.get(m);
  const out: BlkRequest[] = [];
  if (!s) return out;
  for (const r of s) {
    if (r.done) s.delete(r);
    else if (!ino || r.ino === ino) out.push(r);
  }
  return out;
}

/** The file a writeback is for: fsync's and fdatasync's descriptor (none: sync, the flusher). */
const wbFile = (t: Task, e: Env): OpenFile | undefined =>
  (e.file as OpenFile | undefined) ?? (e.name === 'fsync' || e.name === 'fdatasync' ? fdOf(t, e.a[0]) ?? undefined : undefined);
/** The inodes a writeback is for: the file's, else every dirty one. */
const wbInodes = (m: MmMachine, t: Task, e: Env): Inode[] => {
  const f = wbFile(t, e);
  return f?.inode ? [f.inode] : [...m.fs.dirty];
};
/** The pages of `inos` in page-cache state `st` (2 dirty, 4 under writeback). */
function pagesIn(inos: readonly Inode[], st: number): number {
  let n = 0;
  for (const ino of inos) for (let i = 0; i < ino.pc.length; i++) if (ino.pc[i] === st) n++;
  return n;
}
/** Whether `ino` has pages under writeback (its mapping tagged PAGECACHE_TAG_WRITEBACK). */
const tagged = (ino: Inode): boolean => ino.pc.includes(4);
/** __folio_start_writeback: the inode had no page under writeback (sb_mark_inode_writeback puts it on s_inodes_wb). */
pageWriteback.cond('wb_untagged', (_m, _c, _t, e) => e.wbUntagged === true);
/** folio batches of find_get_pages_range_tag (PAGEVEC_SIZE) */
const PAGEVEC = 15;
/**
 * Per folio of `n` in batches of PAGEVEC (pushed on `t`'s stack to run in order): the batch looked up by
 * tag (`wb_lookup`), path `each` per folio, the batch released (`wb_release`).
 */
function pushBatches(ks: KStack, e: Env | ((k: number) => Env), n: number, each: string, lookup = 'wb_lookup', release = 'wb_release'): void {
  const env = typeof e === 'function' ? e : () => e;
  // the last batch (n % PAGEVEC folios, or a full one) first: the stack runs it last
  for (let left = n, size = n % PAGEVEC || PAGEVEC; left > 0; left -= size, size = PAGEVEC) {
    pushPath(ks, release, env(-1));
    for (let k = 0; k < size; k++) pushPath(ks, each, env(left - 1 - k));
    pushPath(ks, lookup, env(-1));
  }
}
/**
 * mpage_prepare_extent_to_map: each dirty folio of the inodes written back is looked up by its
 * PAGECACHE_TAG_TOWRITE tag, waited for should it be under writeback still, and its buffers mapped.
 */
pageWriteback.hook('wb_prepare', (m, _c, t, e) => {
  const n = pagesIn(wbInodes(m, t, e), 2);
  if (!n) return H_CONT;
  pushBatches(t.ks, e, n, 'wb_prepare_page');
  return H_PUSHED;
});
/**
 * The pages ext4's delayed allocation maps at a time when writeback allocates a file's blocks: mballoc's
 * normalized request (ext4_mb_normalize_request) is a window of the file, aligned to its size: the whole
 * file up to 1 MiB, else 2 MiB windows for files up to 4 MiB, 4 MiB up to 8 MiB, 8 MiB beyond; each
 * window's blocks are allocated apart (ext4_map_blocks per window), so a bio (io_submit_add_bh: the next
 * block must follow the bio's last) ends at the window's end (the dd-write recording: 4 MiB written back
 * as two 2 MiB bios, each split into 16 requests).
 */
export function allocWindowPages(size: number): number {
  const MB = 1 << 20;
  if (size <= MB) return Infinity;
  return (size <= 4 * MB ? 2 * MB : size <= 8 * MB ? 4 * MB : 8 * MB) / PAGE;
}
/**
 * Write back dirty pages of `inos` (all dirty inodes when omitted) as block write requests: each page
 * submitted (`wb_submit_page`: mpage_submit_page, the page under writeback, added to the bio), then the bios.
 */
/**
 * The dirty pages of `inos` put under writeback as block write bios (allocWindowPages, `flags`: REQ_SYNC for
 * WB_SYNC_ALL), each inode off the dirty list, the requests in flight (waitWriteback); per inode written,
 * its page count and whether none of its pages was under writeback before (`untagged`).
 */
export function startWriteback(m: MmMachine, cpu: number, inos: readonly Inode[], flags: number): { reqs: BlkRequest[]; written: number[]; untagged: boolean[] } {
  const reqs: BlkRequest[] = [];
  const written: number[] = [];
  const untagged: boolean[] = [];
  for (const ino of inos) {
    if (!ino.dirtyPages) { m.fs.dirty.delete(ino); continue; }
    const pages: number[] = [];
    // (the first page put under writeback puts the inode on the superblock's writeback list)
    untagged.push(!tagged(ino));
    for (let i = 0; i < ino.pc.length; i++) if (ino.pc[i] === 2) { ino.pc[i] = 4; pages.push(i); }
    written.push(pages.length);
    ino.dirtyPages = 0;
    m.fs.dirty.delete(ino);
    // one bio per run of consecutive pages within one allocation window (the block layer splits it into
    // requests the disk takes: block/blk-merge.ts)
    const win = allocWindowPages(ino.size);
    for (let i = 0; i < pages.length;) {
      let j = i + 1;
      while (j < pages.length && pages[j] === pages[j - 1] + 1 && Math.floor(pages[j] / win) === Math.floor(pages[i] / win)) j++;
      const chunk = pages.slice(i, j);
      reqs.push({ ino, pages: chunk, write: true, swap: false, sector: (ino.diskBlock + chunk[0]) * 8, bytes: chunk.length * PAGE, cpu, waiters: [], flags });
      i = j;
    }
  }
  if (reqs.length) {
    let live = inflight.get(m);
    if (!live) inflight.set(m, (live = new Set()));
    for (const r of reqs) live.add(r);
  }
  return { reqs, written, untagged };
}
pageWriteback.hook('writeback', (m, c, t, e) => {
  const f = wbFile(t, e);
  // fsync writes with WB_SYNC_ALL: REQ_SYNC ("WS [dd]" in data/recordings/guest/sync-block.txt)
  const { reqs, written, untagged } = startWriteback(m, c.id, wbInodes(m, t, e), e.name === 'fsync' || e.name === 'fdatasync' ? REQ_SYNC : 0);
  // sync(2) callers waiting for this flush (fs/sync.ts): woken when its last request completes
  const syncers = f ? [] : (m.fs as { syncWaiters?: Task[] }).syncWaiters?.splice(0) ?? [];
  const waits = e.name === 'fsync' || e.name === 'fdatasync' || e.name === 'sync';
  if (!reqs.length) {
    e.ret = 0;
    // nothing dirty left, but pages still under writeback (a flusher run before this sync): sync(2)
    // and fsync(2) wait for them too (sync_inodes_sb's wait_sb_inodes, file_write_and_wait_range)
    if (waits && waitWriteback(m, t, f?.inode)) e.wbIssued = true;
    return syncers.length ? pushWakeups(c, syncers) : H_CONT;
  }
  if (waits) reqs[reqs.length - 1].waiters.push(t);
  reqs[reqs.length - 1].waiters.push(...syncers);
  for (const req of reqs) pushPath(c.ks, 'bio_submit', newEnv('bio', { req, rq: req, bio: req }));
  // mpage_map_and_submit_buffers: the pages in folio batches (filemap_get_folios), each submitted
  for (let j = written.length - 1; j >= 0; j--) {
    const first = untagged[j] ? newEnv('wb_page', { wbUntagged: true }) : e;
    pushBatches(c.ks, (k) => (k === 0 ? first : e), written[j], 'wb_submit_page', 'wb_get_folios', 'wb_put_folios');
  }
  e.wbIssued = true;
  e.ret = 0;
  return H_PUSHED;
});
/**
 * file_write_and_wait_range's wait (__filemap_fdatawait_range): the caller sleeps until the writeback it
 * started completes; then each folio found still under writeback when it began waiting is waited for
 * (looked up by PAGECACHE_TAG_WRITEBACK in folio batches).
 */
pageWriteback.hook('wb_wait', (m, c, t, e) => {
  if (!e.wbIssued) return H_CONT;
  if (e.wbWaited) {
    const n = (e.wbPending as number | undefined) ?? 0;
    if (!n) return H_CONT;
    e.wbPending = 0;
    pushBatches(t.ks, e, n, 'wb_wait_page');
    return H_PUSHED;
  }
  e.wbPending = pagesIn(wbInodes(m, t, e), 4);
  e.wbWaited = true;
  // (wait_on_page_writeback sleeps only while a page is under writeback, until its write completes: the
  // last write still in flight wakes it; the writes may all be done already)
  if (!waitWriteback(m, t, wbFile(t, e)?.inode)) return H_AGAIN;
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'wait_on_page_writeback';
  return H_SLEEP;
});
