/**
 * sync(2) (fs/sync.c ksys_sync) as the real guest runs it (data/recordings/guest/sync-block.txt,
 * scripts/record/guest/sync-block.sh: `dd of=/root/f bs=4k count=16; sync` on 1 CPU):
 * 1. wakeup_flusher_threads + sync_inodes_sb: the writeback flusher (kworker/uN:1, flush-8:0 in
 *    /proc) writes the dirty data ("W ... [kworker/u2:1]"), sync waits (wb_wait_for_completion);
 * 2. sync_fs -> ext4_sync_fs: the running transaction (the allocation's metadata) is committed by
 *    jbd2/sda1-8 (fs/ext4.ts) and sync waits for it (jbd2_log_wait_commit);
 * 3. sync_bdevs: the committed metadata blocks are written in place by sync, one "WSM 4096"
 *    request each;
 * 4. with nothing to commit, ext4_sync_fs(wait) flushes the disk cache itself
 *    (blkdev_issue_flush: "FWS 0 + 0 [sync]", then the flush machinery's "FF").
 * Without a flusher, sync writes the data back itself.
 */
import type { FsMachine } from './namei';
import type { Task } from '../include/sched';
import { TASK_UNINTERRUPTIBLE, TASK_RUNNING } from '../include/sched';
import type { BlkRequest } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_AGAIN, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/core';
import { journalOf, metaRequest, flushRequest } from './ext4';
import { waitWriteback } from '../mm/page_writeback';

export const fsSync = new Semantics<FsMachine>('fs/sync');

/** the writeback flusher kthread, when the system has one */
function flusher(m: FsMachine): Task | null {
  for (const t of m.procs.tasks.values()) if (t.kthread && t.wqDesc.startsWith('flush-')) return t;
  return null;
}

/** Submit `reqs` from t (each its own bio, then blk_finish_plug) and make t wait for the last. */
function submitAndWait(t: Task, reqs: BlkRequest[]): number {
  reqs[reqs.length - 1].waiters.push(t);
  pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
  for (let i = reqs.length - 1; i >= 0; i--) pushPath(t.ks, 'bio_submit', newEnv('bio', { req: reqs[i], rq: reqs[i], bio: reqs[i] }));
  return H_AGAIN;
}
function sleepOn(t: Task, wchan: string): number {
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = wchan;
  return H_SLEEP;
}

fsSync.syscall('sync', (m, c, t, e) => {
  const jr = journalOf(m);
  if (!e.synced) {
    e.synced = true;
    for (const ino of m.fs.dirty) jr.touch(ino);
    const fl = m.fs.dirty.size ? flusher(m) : null;
    if (!fl) {
      pushPath(t.ks, 'writeback_issue', e);
      return H_AGAIN;
    }
    // hand the work to the flusher and wait for it
    m.fs.syncWaiters.push(t);
    e.waitFlush = true;
    fl.scratch.due = true;
    if (fl.state !== TASK_RUNNING) { const r = pushWakeups(c, [fl]); if (r === H_PUSHED) return H_AGAIN; }
    return H_AGAIN;
  }
  // until the flusher has taken this sync's work and the writeback it started has completed
  if (e.waitFlush && (m.fs.syncWaiters.includes(t) || waitWriteback(m, t))) return sleepOn(t, 'wb_wait_for_completion');
  if (!e.syncFs) {
    e.syncFs = true;
    const j = m.procs.jbd2;
    if (j && jr.meta.size) {
      e.committed = true;
      jr.waiters.push(t);
      j.scratch.commit = true;
      if (j.state !== TASK_RUNNING) { const r = pushWakeups(c, [j]); if (r === H_PUSHED) return H_AGAIN; }
      return H_AGAIN;
    }
  }
  if (jr.waiters.includes(t)) return sleepOn(t, 'jbd2_log_wait_commit');
  if (!e.bdevs) {
    e.bdevs = true;
    if (jr.checkpoint.size) {
      const reqs = [...jr.checkpoint].sort((a, b) => a - b).map((b) => metaRequest(b * 8, c.id));
      jr.checkpoint.clear();
      e.metaRqs = reqs;
      return submitAndWait(t, reqs);
    }
  }
  const reqs = e.metaRqs as BlkRequest[] | undefined;
  if (reqs && !reqs[reqs.length - 1].done) return sleepOn(t, 'wait_on_page_writeback');
  if (!e.committed && !e.flushRq) {
    // nothing was committed: ext4_sync_fs(wait) flushes the disk cache (an empty REQ_PREFLUSH write)
    const fl = flushRequest(c.id);
    e.flushRq = fl;
    return submitAndWait(t, [fl]);
  }
  const flushRq = e.flushRq as BlkRequest | undefined;
  if (flushRq && !flushRq.done) return sleepOn(t, 'submit_bio_wait');
  e.ret = 0;
  return H_CONT;
});
