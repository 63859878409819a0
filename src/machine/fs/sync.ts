/**
 * sync(2) (fs/sync.c ksys_sync): wakeup_flusher_threads() hands the dirty inodes to the writeback
 * flusher (the kworker/u8:N kthread, flush-8:0 in /proc, runs wb_workfn -> ext4_writepages and submits the
 * requests: the real guest's sync shows its data writes issued by the flusher, only the journal's
 * WSM write by sync itself, data/recordings/sync.json.gz), then sync_inodes_sb waits until that
 * writeback completed (wb_wait_for_completion).  Without a flusher, sync writes back itself.
 */
import type { FsMachine } from './namei';
import type { Task } from '../include/sched';
import { TASK_UNINTERRUPTIBLE, TASK_RUNNING } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { pushPath, H_CONT, H_AGAIN, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/core';
import { waitWriteback } from '../mm/page_writeback';

export const fsSync = new Semantics<FsMachine>('fs/sync');

/** the writeback flusher kthread, when the system has one */
function flusher(m: FsMachine): Task | null {
  for (const t of m.procs.tasks.values()) if (t.kthread && t.wqDesc.startsWith('flush-')) return t;
  return null;
}

fsSync.syscall('sync', (m, c, t, e) => {
  if (!e.synced) {
    e.synced = true;
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
  if (e.waitFlush && (m.fs.syncWaiters.includes(t) || waitWriteback(m, t))) {
    t.state = TASK_UNINTERRUPTIBLE;
    t.wchan = 'wb_wait_for_completion';
    return H_SLEEP;
  }
  e.ret = 0;
  return H_CONT;
});
