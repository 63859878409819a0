/**
 * The block layer's submission and dispatch (src/machine/block/blk-merge.ts, blk-wbt.ts, mq-deadline.ts,
 * core.ts; paths/templates/block.ts) against the dd-write recording (`dd if=/dev/zero of=/root/ddfile
 * bs=64k count=64 conv=fsync`): fsync writes the 4 MiB back as two 2 MiB bios (ext4's allocation windows),
 * blk_mq_submit_bio splits each into 128 KiB requests (30 block_split, 32 requests, each its own
 * __blk_mq_alloc_requests, wbt_wait with rq_qos_wait, a plug flush through dd_insert_requests and
 * mq-deadline's dispatch, scsi_queue_rq); one rwb_arm_timer opens the wbt window.
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import type { BlkRequest } from '../../src/machine/include/blkdev';
import { REQ_IDLE, REQ_SYNC } from '../../src/machine/include/blkdev';
import type { Task } from '../../src/machine/include/sched';
import { MemCgroup } from '../../src/machine/include/mm_types';
import { splitBio, MAX_REQUEST_BYTES, mergeable } from '../../src/machine/block/blk-merge';
import { wbtTracked } from '../../src/machine/block/blk-wbt';
import { allocWindowPages } from '../../src/machine/mm/page_writeback';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceHitFn, FTRACE_OPS_FL_INITIALIZED } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';
import { tracepointProbeRegister, tracepointProbeUnregister, type TracepointProbe } from '../../src/kernel/tracepoint';

installKernelSemantics();

const bio = (pages: number, flags = 0): BlkRequest => ({
  ino: null, pages: Array.from({ length: pages }, (_, i) => i), write: true, swap: false, sector: 1000, bytes: pages * 4096, cpu: 0, waiters: [], flags,
});

describe('block layer: split, merge, wbt', () => {
  it('a bio larger than max_sectors is cut into 128 KiB pieces, the original bio last', () => {
    const r = bio(512);
    const w = {} as Task;
    r.waiters.push(w);
    const pieces = splitBio(r);
    expect(pieces.length).to.equal(16);
    expect(pieces[15]).to.equal(r);
    for (let i = 0; i < 16; i++) {
      expect(pieces[i].bytes).to.equal(MAX_REQUEST_BYTES);
      expect(pieces[i].sector).to.equal(1000 + i * 256);
      expect(pieces[i].pages[0]).to.equal(i * 32);
      expect(pieces[i].nomerge === true).to.equal(i < 15);
      expect(pieces[i].waiters.includes(w)).to.equal(i === 15);
    }
    expect(splitBio(bio(32))).to.have.length(1);
    expect(mergeable(pieces[0])).to.equal(false);
    expect(mergeable(pieces[15])).to.equal(true);
  });
  it('ext4 allocation windows: the whole file up to 1 MiB, 2 MiB windows up to 4 MiB, 4 MiB up to 8 MiB', () => {
    expect(allocWindowPages(1 << 20)).to.equal(Infinity);
    expect(allocWindowPages(4 << 20)).to.equal(512);
    expect(allocWindowPages(6 << 20)).to.equal(1024);
    expect(allocWindowPages(64 << 20)).to.equal(2048);
  });
  it('wbt tracks buffered writes, not reads nor O_DIRECT writes (REQ_SYNC | REQ_IDLE)', () => {
    expect(wbtTracked(bio(1))).to.equal(true);
    expect(wbtTracked(bio(1, REQ_SYNC))).to.equal(true);
    expect(wbtTracked(bio(1, REQ_SYNC | REQ_IDLE))).to.equal(false);
    expect(wbtTracked({ ...bio(1), write: false })).to.equal(false);
  });
  it("dd conv=fsync: the recording's requests, splits and mq-deadline dispatch", () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    const issued: BlkRequest[] = [];
    const issue = m.blk.issue.bind(m.blk);
    m.blk.issue = (r: BlkRequest): void => { issued.push(r); issue(r); };
    const p = m.procs.spawnCommand('dd if=/dev/zero of=/root/ddfile bs=64k count=64 conv=fsync', () => {}, () => {});
    const mine = (): boolean => (m.executingCpu()?.ctx.task as Task | null | undefined)?.proc === p;
    const fns = ['blk_mq_submit_bio', 'bio_split', '__blk_mq_alloc_requests', 'rq_qos_wait', 'rwb_arm_timer', 'dd_insert_requests',
      'dd_dispatch_request', 'scsi_queue_rq', 'blk_attempt_plug_merge', 'elv_rqhash_add'];
    const cnt = new Map<string, number>();
    const op = new FtraceOps('blk_mq', () => {
      if (!mine()) return;
      const f = symbolName(ftraceHitFn());
      if (fns.includes(f)) cnt.set(f, (cnt.get(f) ?? 0) + 1);
    }, FTRACE_OPS_FL_INITIALIZED, 'blk_mq');
    let splits = 0;
    const onSplit = (): void => { if (mine()) splits++; };
    const started: string[] = [];
    const onStart = (_d: unknown, timer: { function: string }): void => { if (mine()) started.push(timer.function); };
    // every completion (on whichever CPU takes the disk's interrupt): libata's, then SCSI's
    const done = { ata: 0, scsi: 0 };
    const onAta = (): void => { done.ata++; };
    const onScsi = (): void => { done.scsi++; };
    registerFtraceFunction(op);
    tracepointProbeRegister('block_split', onSplit, null);
    tracepointProbeRegister('timer_start', onStart as TracepointProbe, null);
    tracepointProbeRegister('ata_qc_complete_done', onAta, null);
    tracepointProbeRegister('scsi_dispatch_cmd_done', onScsi, null);
    try {
      m.runUntil(() => p.finished, 60e9);
    } finally {
      unregisterFtraceFunction(op);
      tracepointProbeUnregister('block_split', onSplit, null);
      tracepointProbeUnregister('timer_start', onStart as TracepointProbe, null);
      tracepointProbeUnregister('ata_qc_complete_done', onAta, null);
      tracepointProbeUnregister('scsi_dispatch_cmd_done', onScsi, null);
    }
    expect(done.ata).to.be.at.least(32);
    expect(done.ata).to.equal(done.scsi);
    expect(p.exitCode).to.equal(0);
    const ino = m.fs.lookup('/root/ddfile');
    const data = issued.filter((r) => r.ino === ino && r.write);
    expect(data).to.have.length(32);
    for (const r of data) expect(r.bytes).to.equal(MAX_REQUEST_BYTES);
    expect(splits).to.equal(30);
    // the recording's graph run: dd's tasks ran these as many times
    expect(cnt.get('blk_mq_submit_bio')).to.equal(32);
    expect(cnt.get('bio_split')).to.equal(30);
    expect(cnt.get('__blk_mq_alloc_requests')).to.equal(32);
    expect(cnt.get('rq_qos_wait')).to.equal(32);
    expect(cnt.get('rwb_arm_timer')).to.equal(1);
    expect(cnt.get('dd_insert_requests')).to.equal(32);
    expect(cnt.get('dd_dispatch_request')).to.equal(32);
    expect(cnt.get('scsi_queue_rq')).to.equal(32);
    // the last piece of each bio is mergeable: a plug merge tried, its request hashed
    expect(cnt.get('blk_attempt_plug_merge')).to.equal(2);
    expect(cnt.get('elv_rqhash_add')).to.equal(2);
    // the wbt window's timer and the queue's timeout timer armed once each (then pending for the rest)
    expect(started.filter((f) => f === 'blk_stat_timer_fn')).to.have.length(1);
    expect(started.filter((f) => f === 'blk_rq_timed_out_timer')).to.have.length(1);
  });
  it('the wbt window is armed again at its end while tracked writes are in flight', () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    m.run('dd if=/dev/zero of=/root/big bs=1M count=64');
    const armed: number[] = [];
    const mod = m.timers.mod.bind(m.timers);
    m.timers.mod = (t, cpu, expires): void => { if (t.fn === 'blk_stat_timer_fn') armed.push(m.now); mod(t, cpu, expires); };
    const t0 = m.now;
    m.run('sync');
    // 64 MiB at the disk's 500 MB/s keep writes in flight for more than one 100 ms window: wb_timer_fn
    // arms the next at each window's end, the first tracked write the first
    expect(armed.length).to.be.above(1);
    expect(armed[0] - t0).to.be.below(100e6);
    for (let i = 1; i < armed.length; i++) expect(armed[i] - armed[i - 1]).to.be.at.least(100e6);
  });
  it("a recorded submission's wbt_wait tracks its write: swap-outs arm the wbt window", () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    m.run('swapon -a');
    const p = m.procs.spawnCommand('dd if=/dev/zero of=/dev/null bs=5M count=2', () => {}, () => {});
    p.memcg = new MemCgroup('test', 1024);
    let armedByDd = 0;
    const mod = m.timers.mod.bind(m.timers);
    m.timers.mod = (t, cpu, expires): void => {
      if (t.fn === 'blk_stat_timer_fn' && (m.executingCpu()?.ctx.task as Task | undefined)?.proc === p) armedByDd++;
      mod(t, cpu, expires);
    };
    m.runUntil(() => p.finished, 120e9);
    // dd's reclaim writes its pages through the recorded __swap_writepage -> submit_bio trees
    expect(armedByDd).to.be.at.least(1);
  });
});
