/**
 * .callee/.callees/.label and line statements of kernel functions. Expected listings are Debian's
 * stap 4.8 with the -dbg vmlinux tree (scripts/kernel-data/stap-oracle-tree.sh,
 * `REAL_STAP_TREE=... ../shared/tools/real-stap -l/-L/-p2 ...`).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function stap(args: string[]): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 60000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

describe('kernel function scopes (callees, labels, lines)', function () {
  this.timeout(60000);

  it('.callee("F") lists F\'s inline instance in the caller', () => {
    expect(stap(['-l', 'kernel.function("bio_alloc_bioset").callee("bio_init")']).out)
      .to.equal('kernel.function("bio_alloc_bioset@block/bio.c:470").callee("bio_init@block/bio.c:241")\n');
  });

  it('skip what stap\'s translator blacklists (locks, atomics, get_current ...), in callees too', () => {
    for (const f of ['_raw_spin_lock', 'rcu_read_lock', 'atomic_inc', 'get_current', '__switch_to', 'do_softirq']) {
      expect(stap(['-l', `kernel.function("${f}")`]).out, f).to.equal('');
    }
    expect(stap(['-l', 'kernel.function("current_time")']).out).to.equal('');
    expect(stap(['-l', 'kernel.function("do_sys_openat2")']).out).to.equal('kernel.function("do_sys_openat2@fs/open.c:1304")\n');
    // stap 4.8 lists only instances with DW_AT_low_pc (fsnotify_access, new_sync_read have ranges)
    expect(stap(['-l', 'kernel.function("vfs_read").callees']).out).to.equal([
      'kernel.function("vfs_read@fs/read_write.c:450").callee("__access_ok@include/asm-generic/access_ok.h:31")',
      'kernel.function("vfs_read@fs/read_write.c:450").callee("add_rchar@include/linux/sched/xacct.h:12")',
      'kernel.function("vfs_read@fs/read_write.c:450").callee("inc_syscr@include/linux/sched/xacct.h:22")', ''].join('\n'));
  });

  it('.callees(2) names the inline caller of a depth-2 callee', () => {
    const out = stap(['-l', 'kernel.function("vfs_read").callees(2)']).out.split('\n');
    expect(out).to.include('kernel.function("__access_ok@include/asm-generic/access_ok.h:31").callee("task_size_max@arch/x86/include/asm/page_64.h:87")');
    expect(out).to.include('kernel.function("vfs_read@fs/read_write.c:450").callee("add_rchar@include/linux/sched/xacct.h:12")');
  });

  it('.label("L") with the variables located at the label (-L)', () => {
    expect(stap(['-L', 'kernel.function("bio_alloc_bioset").label("*")']).out).to.equal(
      'kernel.function("bio_alloc_bioset@block/bio.c:553").label("err_free") $bdev:struct block_device* $opf:blk_opf_t $bs:struct bio_set* $saved_gfp:gfp_t $bio:struct bio* $p:void*\n');
  });

  it('relative and wildcard statement lines from the line records', () => {
    expect(stap(['-l', 'kernel.statement("bio_init@block/bio.c+3")']).out).to.equal('kernel.statement("bio_init@block/bio.c:244")\n');
    const all = stap(['-l', 'kernel.statement("bio_endio@block/bio.c:*")']).out.trim().split('\n').map((l) => /:(\d+)"/.exec(l)![1]);
    expect(all.join(' ')).to.equal('1523 1525 1527 1530 1532 1533 1534 1545 1546 1547 1550 1553 1554 1555');
    const r = stap(['-p2', '-e', 'probe kernel.statement("bio_init@block/bio.c+1") {}']);
    expect(r.status).to.equal(1);
    expect(r.err).to.contain('semantic error: no match');
  });
});
