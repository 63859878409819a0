/**
 * sync(2) on its recorded tree (fs/sync.ts), and two recorded trees chosen by what the machine's state
 * says the real kernel's walk and reap did (paths/model.ts TREE_FEATURES): an open of a tracefs file by
 * its path under /sys crosses the tracefs mount in ref-walk mode (__traverse_mounts' lookup_mnt, as the
 * idle recording's `echo 0 > /sys/kernel/tracing/tracing_on` does); a wait4 reaping a process whose
 * /proc/PID a lookup instantiated invalidates those dentries (release_task's proc_flush_pid:
 * d_invalidate, as the idle recording's recorder shell does after its `grep /proc/$PID/wchan`).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { backgroundRecorderScript } from '../../bench/fidelity_run';
import { counting } from './ftrace_counting';

describe('sync(2) on its recorded tree; openat and wait4 trees chosen by the walk and the reap', function () {
  this.timeout(120000);

  it('sync runs fs/sync.c ksys_sync: the flusher handed the dirty data, the commit waited for, the checkpoint written by sync', () => {
    const m = new Machine({ seed: 1 });
    m.run('dd if=/dev/zero of=/root/f bs=4k count=16 2>/dev/null');
    const c = counting(['ksys_sync', 'wakeup_flusher_threads', 'iterate_supers', 'sync_inodes_one_sb', 'sync_fs_one_sb', 'ext4_sync_fs',
      'wb_wait_for_completion', 'jbd2_log_wait_commit', 'sync_bdevs', 'filemap_fdatawait_keep_errors', 'blkdev_issue_flush'], 'sync1');
    const queued: string[] = [];
    const probe = (_d: unknown, bio: unknown): void => { queued.push(m.executingCpu()?.ctx.task?.comm ?? '?'); void bio; };
    expect(tracepointProbeRegister('block_bio_queue', probe as never, null)).to.equal(0);
    let r;
    try { r = m.run('sync'); } finally { c.stop(); tracepointProbeUnregister('block_bio_queue', probe as never, null); }
    expect(r.status).to.equal(0);
    const n = c.n;
    // the recorded tree: three iterate_supers passes (inodes, sync_fs nowait, sync_fs wait), the inode
    // pass over every superblock, two ext4_sync_fs, two sync_bdevs passes
    expect(n.get('ksys_sync')).to.equal(1);
    expect(n.get('iterate_supers')).to.equal(3);
    expect(n.get('sync_inodes_one_sb')).to.be.greaterThan(10);
    expect(n.get('ext4_sync_fs')).to.equal(2);
    expect(n.get('sync_bdevs')).to.equal(2);
    expect(n.get('wb_wait_for_completion')).to.equal(1);
    expect(n.get('jbd2_log_wait_commit')).to.equal(1);
    // a commit carries the cache flush: no blkdev_issue_flush of sync's own
    expect(queued.filter((x) => x === 'sync').length).to.be.greaterThan(0);
    expect(queued).to.not.include('?');
  });

  it('a sync with nothing to write: one bio, the cache flush (FWS); the tree\'s recorded bio traces nothing', () => {
    const m = new Machine({ seed: 1 });
    m.run('dd if=/dev/zero of=/root/f bs=4k count=4 2>/dev/null; sync; sync');
    const ops: string[] = [];
    const probe = (_d: unknown, bio: { bi_opf?: number } | number): void => { ops.push(m.executingCpu()?.ctx.task?.comm ?? '?'); void bio; };
    expect(tracepointProbeRegister('block_bio_queue', probe as never, null)).to.equal(0);
    let r;
    try { r = m.run('sync'); } finally { tracepointProbeUnregister('block_bio_queue', probe as never, null); }
    expect(r.status).to.equal(0);
    expect(ops).to.deep.equal(['sync']);
  });

  it('an open of a tracefs file by its /sys path runs the tree that crosses the mount in ref-walk (lookup_mnt); a relative one does not', () => {
    const m = new Machine({ seed: 1 });
    const c = counting(['lookup_mnt', '__traverse_mounts', 'kernfs_iop_permission'], 'mnt1');
    try { m.run('echo 1 > /sys/kernel/tracing/tracing_on'); } finally { c.stop(); }
    expect(c.n.get('lookup_mnt')).to.equal(1);
    expect(c.n.get('__traverse_mounts')).to.equal(1);
    expect(c.n.get('kernfs_iop_permission')).to.be.greaterThan(0);
    const d = counting(['lookup_mnt'], 'mnt2');
    try { m.run('cd /sys/kernel/tracing && echo 1 > tracing_on'); } finally { d.stop(); }
    expect(d.n.get('lookup_mnt')).to.equal(0);
  });

  it('wait4 reaping a process whose /proc/PID was looked up runs proc_flush_pid\'s d_invalidate; one never looked up, not', () => {
    const m = new Machine({ seed: 1 });
    const c = counting(['d_invalidate', 'release_task'], 'pdc1');
    try { m.run('sleep 0.1 & cat /proc/$!/stat > /dev/null; wait'); } finally { c.stop(); }
    expect(c.n.get('d_invalidate')).to.be.greaterThan(0);
    const d = counting(['d_invalidate', 'release_task'], 'pdc2');
    try { m.run('sleep 0.1 & wait'); } finally { d.stop(); }
    expect(d.n.get('release_task')).to.be.greaterThan(0);
    expect(d.n.get('d_invalidate')).to.equal(0);
  });

  it('the background recorder script ends as recorder.sh launch does: tracing switched off after the wait for the launcher', () => {
    const s = backgroundRecorderScript('sleep 5').split('\n');
    const w = s.indexOf('wait $PID; STATUS=$?');
    expect(w).to.be.greaterThan(0);
    expect(s[w + 1]).to.equal('echo 0 > /sys/kernel/tracing/tracing_on');
  });
});
