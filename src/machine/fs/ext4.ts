/**
 * ext4 and its journal (fs/ext4, fs/jbd2): which files and block requests take ext4's paths,
 * and the jbd2/sda1-8 thread: woken by fsync/sync, committing the journal (a small write near
 * the journal area) and sleeping for the 5 s commit interval.
 */
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP } from '../paths/kexec';
import { TASK_INTERRUPTIBLE, TASK_RUNNING } from '../include/sched';
import type { Env } from '../include/kstack';
import { Inode, PAGE } from '../include/fs';
import { BlkRequest, REQ_SYNC, REQ_META, REQ_PRIO } from '../include/blkdev';
import { pushWakeups } from '../kernel/sched/core';
import { timedWake } from '../kernel/time';

export const ext4 = new Semantics<FsMachine>('fs/ext4');

const isExt4 = (e: Env) => (e.ino as Inode | undefined)?.fs === 'ext4' && e.blkdev !== true;
ext4.cond('ext4file', (_m, _c, _t, e) => isExt4(e));
ext4.cond('othfile', (_m, _c, _t, e) => e.blkdev !== true && !isExt4(e));
const reqExt4 = (e: Env) => { const r = e.req as BlkRequest | undefined; return !!r && !r.swap && !r.dio && r.ino?.fs === 'ext4' && !r.ino.isBlk; };
ext4.cond('ext4read', (_m, _c, _t, e) => e.blkdev !== true && reqExt4(e) && !(e.req as BlkRequest).write);
ext4.cond('ext4write', (_m, _c, _t, e) => reqExt4(e) && (e.req as BlkRequest).write);
ext4.cond('ext4wbio', (_m, _c, _t, e) => e.swapio !== true && reqExt4(e) && (e.req as BlkRequest).write);
const dio = (e: Env) => (e.req as BlkRequest | undefined)?.dio === true;
ext4.cond('diobio', (_m, _c, _t, e) => e.swapio !== true && dio(e));
ext4.cond('plainbio', (_m, _c, _t, e) => e.swapio !== true && !dio(e) && !(reqExt4(e) && (e.req as BlkRequest).write));
/** fsync/sync: wake the journal thread for a commit */
ext4.hook('jbd2_kick', (m, c) => {
  const j = m.procs.jbd2;
  if (j && j.state !== TASK_RUNNING) { j.scratch.commit = true; return pushWakeups(c, [j]); }
  return H_CONT;
});
ext4.hook('jbd2_commit', (m, c, t, e) => {
  // the commit writes the journal blocks: one small write request near the journal area
  if (!t.scratch.commit && !m.fs.dirty.size) return H_CONT;
  t.scratch.commit = false;
  // the guest's journal writes are WSM (REQ_SYNC | REQ_META | REQ_PRIO: data/recordings/sync block_rq_issue)
  const req: BlkRequest = { ino: null, pages: [], write: true, swap: false, sector: 0x1000000 + m.rand.int(1 << 16) * 8, bytes: 3 * PAGE, cpu: c.id, waiters: [], flags: REQ_SYNC | REQ_META | REQ_PRIO };
  pushPath(t.ks, 'bio_submit', newEnv('bio', { req, rq: req, bio: req }));
  pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
  void e;
  return H_PUSHED;
});
ext4.hook('jbd2_sleep', (m, _c, t, e) => {
  if (e.slept) return H_CONT;
  e.slept = true;
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'kjournald2';
  timedWake(m, t, 5e9);
  return H_SLEEP;
});
