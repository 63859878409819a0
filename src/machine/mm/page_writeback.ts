/** Writeback (mm/page-writeback.c, fs/fs-writeback.c): dirty pages of an inode, or of all dirty inodes, written as block requests; fsync/sync wait for them. */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { OpenFile, PAGE } from '../include/fs';
import type { Inode } from '../include/fs';
import { BlkRequest, REQ_SYNC } from '../include/blkdev';
import type { Task } from '../include/sched';
import { pushWakeups } from '../kernel/sched/core';

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

/** Write back dirty pages of `inos` (all dirty inodes when omitted) as block write requests. */
pageWriteback.hook('writeback', (m, c, t, e) => {
  const f = e.file as OpenFile | undefined;
  const list = f?.inode ? [f.inode] : [...m.fs.dirty];
  const reqs: BlkRequest[] = [];
  for (const ino of list) {
    if (!ino.dirtyPages) { m.fs.dirty.delete(ino); continue; }
    const pages: number[] = [];
    for (let i = 0; i < ino.pc.length; i++) if (ino.pc[i] === 2) { ino.pc[i] = 4; pages.push(i); }
    ino.dirtyPages = 0;
    m.fs.dirty.delete(ino);
    for (let i = 0; i < pages.length; i += 64) {
      const chunk = pages.slice(i, i + 64);
      // fsync writes with WB_SYNC_ALL: REQ_SYNC ("WS [dd]" in data/recordings/guest/sync-block.txt)
      reqs.push({ ino, pages: chunk, write: true, swap: false, sector: (ino.diskBlock + chunk[0]) * 8, bytes: chunk.length * PAGE, cpu: c.id, waiters: [], flags: e.name === 'fsync' || e.name === 'fdatasync' ? REQ_SYNC : 0 });
    }
  }
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
  let live = inflight.get(m);
  if (!live) inflight.set(m, (live = new Set()));
  for (const r of reqs) live.add(r);
  if (waits) reqs[reqs.length - 1].waiters.push(t);
  reqs[reqs.length - 1].waiters.push(...syncers);
  for (const req of reqs) pushPath(c.ks, 'bio_submit', newEnv('bio', { req, rq: req, bio: req }));
  m.blk.queue; // requests are queued by %bio_queued, issued below
  e.wbIssued = true;
  e.ret = 0;
  return H_PUSHED;
});
pageWriteback.hook('wb_wait', (m, c, t, e) => {
  if (!e.wbIssued) return H_CONT;
  if (e.wbWaited) return H_CONT;
  e.wbWaited = true;
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = 'wait_on_page_writeback';
  return H_SLEEP;
});
