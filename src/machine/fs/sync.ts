/**
 * sync(2) (fs/sync.c ksys_sync) on its recorded tree (the entry model's sys:sync, from the `sync`
 * recording), with the work placed at the functions that do it on the real kernel (as the guest runs it:
 * data/recordings/guest/sync-block.txt, scripts/record/guest/sync-block.sh, `dd of=/root/f bs=4k count=16; sync`):
 * 1. wakeup_flusher_threads (wb_start_writeback's wb_wakeup) wakes the writeback flusher (kworker/uN:1,
 *    flush-8:0 in /proc), which writes the dirty data ("W ... [kworker/u2:1]"); sync_inodes_sb queues the
 *    sync's work and waits for it (wb_wait_for_completion);
 * 2. ext4_sync_fs: jbd2_journal_start_commit wakes jbd2/sda1-8 (fs/ext4.ts) for the running transaction
 *    (the allocation's metadata), jbd2_log_wait_commit waits for the commit;
 * 3. sync_bdevs: the committed metadata blocks are written in place by sync (filemap_fdatawrite of the
 *    block device), one "WSM 4096" request each (the machine's own bios: the tree's page loop is cut),
 *    and waited for (filemap_fdatawait_keep_errors);
 * 4. with nothing to commit, ext4_sync_fs(wait) flushes the disk cache itself (blkdev_issue_flush:
 *    "FWS 0 + 0 [sync]", then the flush machinery's "FF"), a bio the recorded tree (which committed) has
 *    no call for: it runs as the template's bio when ext4_sync_fs returns.
 * Without a flusher, sync writes the data back itself (the template's writeback, at wb_wait_for_completion).
 */
import type { FsMachine } from './namei';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import type { Cpu } from '../include/cpu';
import { TASK_UNINTERRUPTIBLE, TASK_RUNNING } from '../include/sched';
import type { BlkRequest } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_AGAIN, H_SLEEP } from '../paths/kexec';
import { queueWakes } from '../kernel/sched/core';
import { journalOf, metaRequest, flushRequest } from './ext4';
import { waitWriteback } from '../mm/page_writeback';

export const fsSync = new Semantics<FsMachine>('fs/sync');

/** the writeback flusher kthread, when the system has one */
function flusher(m: FsMachine): Task | null {
  for (const t of m.procs.tasks.values()) if (t.kthread && t.wqDesc.startsWith('flush-')) return t;
  return null;
}

function sleepOn(t: Task, wchan: string): number {
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = wchan;
  return H_SLEEP;
}
/** A hook of sync(2)'s tree: runs `f` in sync's own call (the functions also run under other entries). */
function inSync(f: (m: FsMachine, c: Cpu, t: Task, e: Env) => number): (m: FsMachine, c: Cpu, t: Task, e: Env) => number {
  return (m, c, t, e) => (e.name === 'sync' ? f(m, c, t, e) : H_CONT);
}

// the implementation is the tree's: the hooks below; sync(2) returns 0.  The tree's first sync_bdevs pass
// wrote one page of a block device (write_cache_pages' loop: __writepage's bio, __pagevec_release, then
// blk_finish_plug's dispatch); the machine's pages are its checkpoint blocks, written as bios of their own
// (sync_bdevs below): the tree runs up to the loop's pagevec_lookup_range_tag, the loop and the plug's
// flush cut (paths/entry.ts treeCut), as the kernel runs it when the lookup finds no dirty page
fsSync.syscall('sync', (_m, _c, _t, e) => {
  e.treeCut = ['pagevec_lookup_range_tag', 'generic_writepages'];
  e.ret = 0;
  return H_CONT;
});

// wakeup_flusher_threads: the dirty inodes' metadata joins the running transaction; the flusher is handed
// the writeback and woken by the tree's try_to_wake_up (wb_wakeup)
fsSync.hook('sync_wakeup_flusher', inSync((m, _c, t, e) => {
  if (e.synced) return H_CONT;
  e.synced = true;
  const jr = journalOf(m);
  for (const ino of m.fs.dirty) jr.touch(ino);
  if (!m.fs.dirty.size) return H_CONT;
  const fl = flusher(m);
  if (!fl) { e.selfWriteback = true; return H_CONT; }
  m.fs.syncWaiters.push(t);
  e.waitFlush = true;
  fl.scratch.due = true;
  if (fl.state !== TASK_RUNNING) queueWakes(e, [fl]);
  return H_CONT;
}));
fsSync.at('wakeup_flusher_threads', 'sync_wakeup_flusher');

// sync_inodes_sb's wb_wait_for_completion: until the flusher has taken this sync's work and the writeback
// it started has completed (no flusher: sync writes the data back itself, the template's writeback)
fsSync.hook('sync_wb_wait', inSync((m, _c, t, e) => {
  if (e.selfWriteback) {
    e.selfWriteback = false;
    pushPath(t.ks, 'writeback_issue', e);
    return H_AGAIN;
  }
  if (e.waitFlush && (m.fs.syncWaiters.includes(t) || waitWriteback(m, t))) return sleepOn(t, 'wb_wait_for_completion');
  return H_CONT;
}));
fsSync.at('wb_wait_for_completion', 'sync_wb_wait');

// ext4_sync_fs's jbd2_journal_start_commit: the running transaction's commit, jbd2 woken by the tree's
// __jbd2_log_start_commit
fsSync.hook('sync_start_commit', inSync((m, _c, t, e) => {
  if (e.syncFs) return H_CONT;
  e.syncFs = true;
  const jr = journalOf(m);
  const j = m.procs.jbd2;
  if (!j || !jr.meta.size) return H_CONT;
  e.committed = true;
  jr.waiters.push(t);
  j.scratch.commit = true;
  if (j.state !== TASK_RUNNING) queueWakes(e, [j]);
  return H_CONT;
}));
fsSync.at('jbd2_journal_start_commit', 'sync_start_commit');

// jbd2_log_wait_commit: until jbd2 has committed the transaction
fsSync.hook('sync_commit_wait', inSync((m, _c, t) => (journalOf(m).waiters.includes(t) ? sleepOn(t, 'jbd2_log_wait_commit') : H_CONT)));
fsSync.at('jbd2_log_wait_commit', 'sync_commit_wait');

// ext4_sync_fs(wait) with nothing committed: blkdev_issue_flush's empty REQ_PREFLUSH write, waited for
// (submit_bio_wait); the second ext4_sync_fs is the waiting one (iterate_supers(sync_fs_one_sb, &wait))
fsSync.hook('sync_fs_enter', inSync((_m, _c, _t, e) => {
  e.syncFsCalls = ((e.syncFsCalls as number | undefined) ?? 0) + 1;
  return H_CONT;
}));
fsSync.at('ext4_sync_fs', 'sync_fs_enter');
fsSync.hook('sync_fs_flush', inSync((_m, c, t, e) => {
  if (e.committed || e.syncFsCalls !== 2) return H_CONT;
  const fl = e.flushRq as BlkRequest | undefined;
  if (!fl) {
    const r = flushRequest(c.id);
    e.flushRq = r;
    r.waiters.push(t);
    pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
    pushPath(t.ks, 'bio_submit', newEnv('bio', { req: r, rq: r, bio: r }));
    return H_AGAIN;
  }
  return fl.done ? H_CONT : sleepOn(t, 'submit_bio_wait');
}));
fsSync.at('ext4_sync_fs', 'sync_fs_flush', 'exit');

// sync_bdevs (the first pass: filemap_fdatawrite of each block device): the committed metadata blocks,
// written in place, each its own bio (write_cache_pages' __writepage per page), then blk_finish_plug
fsSync.hook('sync_bdevs', inSync((m, c, t, e) => {
  if (e.bdevs) return H_CONT;
  e.bdevs = true;
  const jr = journalOf(m);
  if (!jr.checkpoint.size) return H_CONT;
  const reqs = [...jr.checkpoint].sort((a, b) => a - b).map((b) => metaRequest(b * 8, c.id));
  jr.checkpoint.clear();
  e.metaRqs = reqs;
  pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
  for (let i = reqs.length - 1; i >= 0; i--) pushPath(t.ks, 'bio_submit', newEnv('bio', { req: reqs[i], rq: reqs[i], bio: reqs[i] }));
  return H_AGAIN;
}));
fsSync.at('sync_bdevs', 'sync_bdevs');

// the second pass (filemap_fdatawait_keep_errors): until those writes have completed
fsSync.hook('sync_bdev_wait', inSync((_m, _c, t, e) => {
  const reqs = e.metaRqs as BlkRequest[] | undefined;
  const r = reqs?.find((q) => !q.done);
  if (!r) return H_CONT;
  if (!r.waiters.includes(t)) r.waiters.push(t);
  return sleepOn(t, 'wait_on_page_writeback');
}));
fsSync.at('filemap_fdatawait_keep_errors', 'sync_bdev_wait');
