/**
 * Swap I/O (src/machine/mm/page_io.ts, mm/swapfile.ts, block/core.ts): dd's 5 MiB buffer in a 4 MiB memory
 * cgroup (the recorded `swap` workload) swaps out and in through the block layer.  The recording's events
 * run shows what the disk gets: page-sized bios of consecutive slots (`W 12096264 + 8`, `+ 8` ...) back-merged
 * into requests of up to 256 sectors (`W 131072 () 12096264 + 256`), remapped from the partition (sda1 starts
 * at sector 2048), and swap-ins reading back what was written (`R 16384 () 12096544 + 32`); the fault waits for
 * its read (dd `prev_state=D`, then end_swap_bio_read in the BLOCK softirq).
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { MemCgroup, Mm, P_PRESENT, type Region } from '../../src/machine/include/mm_types';
import type { BlkRequest } from '../../src/machine/include/blkdev';
import { Engine } from '../../src/runtime/engine';
import { kernelFamilies } from '../../src/probes/setup';
import { connectMachine, disconnectMachine, driveMachine } from '../../src/probes/machine_glue';
import { compile } from '../translate/pipeline';
import { resetKernel } from '../probes/helpers';
import { swapSlotAlloc, swapSlotFree, swapSlotSector, swapSlotWritten, type SwapEntry } from '../../src/machine/mm/swapfile';
import { swapInIo, swapReadPending } from '../../src/machine/mm/page_io';
import { newEnv } from '../../src/machine/paths/kexec';
import { swapRequestTarget } from '../../src/machine/block/core';
import type { SwapDev } from '../../src/machine/include/mm_types';

import type { Task } from '../../src/machine/include/sched';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceHitFn, FTRACE_OPS_FL_INITIALIZED } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';
import { tracepointProbeRegister, tracepointProbeUnregister, type TracepointProbe } from '../../src/kernel/tracepoint';

installKernelSemantics();

const DD = 'dd if=/dev/zero of=/dev/null bs=5M count=2';
/** the swap file's first sector on sda1 (slot 0, the mkswap header), from the machine's file system */
const swapStart = (m: Machine): number => m.fs.lookup('/swapfile')!.diskBlock * 8;

/** dd in a 4 MiB cgroup with the swap file on; every request the block layer issues to the disk, in order. */
function runDd(): { m: Machine; issued: BlkRequest[]; status: number; rereadInFlight: number } {
  const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
  m.run('swapon -a');
  const issued: BlkRequest[] = [];
  const issue = m.blk.issue.bind(m.blk);
  m.blk.issue = (r: BlkRequest): void => { issued.push(r); issue(r); };
  // swap reads of a sector whose previous read (no write since) has not completed: a folio read twice
  let rereadInFlight = 0;
  const lastRead = new Map<number, BlkRequest>();
  const queue = m.blk.queue.bind(m.blk);
  m.blk.queue = (c, r): boolean => {
    if (r.swap && r.write) lastRead.delete(r.sector);
    else if (r.swap) {
      const q = lastRead.get(r.sector);
      if (q && !swapRequestTarget(q).done) rereadInFlight++;
      lastRead.set(r.sector, r);
    }
    return queue(c, r);
  };
  const p = m.procs.spawnCommand(DD, () => {}, () => {});
  p.memcg = new MemCgroup('test', 1024);
  m.runUntil(() => p.finished, 120e9);
  return { m, issued, status: p.exitCode, rereadInFlight };
}

/** DD in a 4 MiB memory cgroup with the trace events `events` (tracefs events/ paths) on: the trace's lines. */
function tracedDd(events: string): { m: Machine; lines: string[] } {
  const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
  m.run('swapon -a');
  m.run(`cd /sys/kernel/tracing; echo 20000 > buffer_size_kb; for e in ${events}; do echo 1 > events/$e/enable; done`);
  const p = m.procs.spawnCommand(DD, () => {}, () => {});
  p.memcg = new MemCgroup('test', 1024);
  m.runUntil(() => p.finished, 120e9);
  return { m, lines: m.run('echo 0 > /sys/kernel/tracing/tracing_on; grep -v "^#" /sys/kernel/tracing/trace').out.split('\n') };
}

/** A machine with the swap file on and an address space whose 8 anonymous pages (one readahead window) are swapped out. */
function swappedOut(): { m: Machine; mm: Mm; r: Region; e: SwapEntry[] } {
  const m = new Machine({ cpus: 1, seed: 1, memMB: 2048 });
  m.run('swapon -a');
  const mm = new Mm();
  const r = mm.region('anon0', 8);
  r.pages.fill(P_PRESENT);
  const e = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => m.mm.swapOut([r, i, mm])!);
  return { m, mm, r, e };
}
/** The swap-in of page `i`: its plan and the bios it reads (swapInIo). */
function swapIn(m: Machine, mm: Mm, r: Region, i: number): { swapIo: boolean; reads: BlkRequest[] } {
  const plan = m.mm.faultPlan(null, mm, r, i, 'swap', false, 0);
  const env = newEnv('page_fault', {});
  swapInIo(m, m.cpus[0], mm, r, i, 'swap', plan, env);
  return { swapIo: plan.swapIo, reads: (env.swapReads as BlkRequest[] | undefined) ?? [] };
}

describe('swap I/O (mm/page_io.ts)', function () {
  this.timeout(120000);
  it('a page whose slot no pageout has written is in the swap cache: neither its fault nor a neighbour\'s readahead reads the slot', () => {
    // add_to_swap gives the folio its slot, pageout writes it; between the two (or when the recorded pass wrote
    // one folio fewer than it added, as the `swap` recording's 937 add_to_swap / 936 __swap_writepage) the data
    // is only in the swap cache: __read_swap_cache_async finds the folio there, do_swap_page maps it, no I/O
    const { m, mm, r, e } = swappedOut();
    for (const s of e.slice(0, 6)) expect(swapSlotWritten(s)).to.equal(true);
    // written once: the next pageout has nothing left of it to write
    expect(swapSlotWritten(e[0])).to.equal(false);
    expect(m.mm.readaheadPages(mm, r, 0)).to.deep.equal([1, 2, 3, 4, 5]);
    const in0 = swapIn(m, mm, r, 0);
    expect(in0.swapIo).to.equal(true);
    expect(in0.reads.map((q) => q.sector)).to.deep.equal(e.slice(0, 6).map((s) => swapSlotSector(s.dev, s.slot)));
    // page 7 faults without I/O (a swap-cache hit); its slot freed, a late pageout of its entry writes nothing
    const in7 = swapIn(m, mm, r, 7);
    expect(in7.swapIo).to.equal(false);
    expect(in7.reads).to.deep.equal([]);
    m.mm.faultDone('swap', r, 7, mm, false, null, m.mm.faultPlan(null, mm, r, 7, 'swap', false, 0));
    expect(swapSlotWritten(e[7])).to.equal(false);
    // page 6 written now: readahead reads it
    expect(swapSlotWritten(e[6])).to.equal(true);
    expect(m.mm.readaheadPages(mm, r, 0)).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });
  it('a memory cgroup\'s reclaim keeps the readahead folios still being read (locked), frees them once read', () => {
    // shrink_folio_list's folio_trylock fails on a folio under swap_readpage until end_swap_bio_read unlocks it:
    // before, the fault's own reclaim dropped the window it had just planned to read, and the next fault read
    // the same slots again (dd in a 4 MiB group: 245 of 1534 page reads were such repeats; the recording's
    // swap-ins read each slot once per write)
    const { m, mm, r, e } = swappedOut();
    for (const s of e) swapSlotWritten(s);
    const plan = m.mm.faultPlan(null, mm, r, 0, 'swap', false, 0);
    const env = newEnv('page_fault', {});
    const c = m.cpus[0];
    swapInIo(m, c, mm, r, 0, 'swap', plan, env);
    m.mm.faultDone('swap', r, 0, mm, false, null, plan);
    expect(mm.swapCache.size).to.equal(7);
    const locked = (a: number): boolean => swapReadPending(mm, a);
    expect(locked(r.start + 4096)).to.equal(true);
    expect(m.mm.dropSwapCache(mm, locked)).to.equal(false);
    const reads = env.swapReads as BlkRequest[];
    for (const q of reads) m.blk.queue(c, q);
    m.blk.flushPlug(c);
    m.runUntil(() => reads.every((q) => q.done), 1e9);
    expect(locked(r.start + 4096)).to.equal(false);
    expect(m.mm.dropSwapCache(mm, locked)).to.equal(true);
    expect(mm.swapCache.size).to.equal(6);
  });
  it('slots are taken in order from cluster_next, freed ones reused when the scan wraps; a slot is a page of the swap file', () => {
    const d: SwapDev = { path: '/x', slots: 4, used: 0, prio: -2 };
    expect([1, 2, 3].map(() => swapSlotAlloc(d))).to.deep.equal([1, 2, 3]);
    swapSlotFree(d, 2);
    expect(d.used).to.equal(2);
    expect(swapSlotAlloc(d)).to.equal(4);
    expect(swapSlotAlloc(d)).to.equal(2);
    expect(swapSlotAlloc(d)).to.equal(-1);
    expect(swapSlotSector(d, 3) - swapSlotSector(d, 2)).to.equal(8);
  });
  it('every 256 slots the next cluster is the first run of 256 free slots from the start (scan_swap_map_slots, rotational)', () => {
    const d: SwapDev = { path: '/y', slots: 1000, used: 0, prio: -2 };
    const take = (k: number): number[] => Array.from({ length: k }, () => swapSlotAlloc(d));
    expect(take(256)).to.deep.equal(Array.from({ length: 256 }, (_, i) => i + 1));
    for (let s = 1; s <= 100; s++) swapSlotFree(d, s);
    // 100 free slots at the start are not a cluster: the next one starts after the slots in use
    expect(take(2)).to.deep.equal([257, 258]);
    for (let s = 101; s <= 256; s++) swapSlotFree(d, s);
    take(254);
    // the cluster used up, the scan finds slots 1..256 free again
    expect(take(2)).to.deep.equal([1, 2]);
  });
  it('reclaim writes the swapped-out pages at their slots, back-merged up to 256 sectors; swap-ins read written slots back', () => {
    const { m, issued, status, rereadInFlight } = runDd();
    expect(status).to.equal(0);
    const swap = issued.filter((r) => r.swap);
    const writes = swap.filter((r) => r.write), reads = swap.filter((r) => !r.write);
    const start = swapStart(m), end = start + (m.mm.swaps[0].slots + 1) * 8;
    // every page written is one the machine swapped out (the recorded trees' __swap_writepage after add_to_swap)
    const pagesWritten = writes.reduce((a, r) => a + r.bytes / 4096, 0);
    expect(pagesWritten).to.be.within(m.mm.pswpout * 0.9, m.mm.pswpout);
    for (const r of swap) {
      expect(r.bytes % 4096).to.equal(0);
      expect(r.bytes).to.be.within(4096, 256 * 512);
      // past the header, inside the swap file's extent
      expect(r.sector).to.be.within(start + 8, end - r.bytes / 512);
    }
    // consecutive slots: most writes are whole 128 KiB requests
    expect(writes.filter((r) => r.bytes === 131072).length).to.be.above(writes.length / 3);
    // every sector read was written before
    const written = new Set<number>();
    const seq = swap.slice().sort((a, b) => issued.indexOf(a) - issued.indexOf(b));
    let unwritten = 0;
    for (const r of seq) {
      for (let s = r.sector; s < r.sector + r.bytes / 512; s += 8) if (r.write) written.add(s); else if (!written.has(s)) unwritten++;
    }
    expect(reads.length).to.be.above(50);
    expect(unwritten).to.equal(0);
    // and no second read of a folio being read: a readahead folio is not freed while its read is in flight
    // (once read, a clean swap-cache folio not mapped yet can be reclaimed, and read again by its fault)
    expect(rereadInFlight).to.equal(0);
    // the machine's swap-ins read what it counts (pswpin: the page and the readahead window)
    expect(reads.reduce((a, r) => a + r.bytes / 4096, 0)).to.be.within(m.mm.pswpin * 0.9, m.mm.pswpin * 1.1);
    // every request completed
    expect(swap.every((r) => r.done)).to.equal(true);
  });
  it('ioblock probes see the swap bios (sda1 sectors at submission, remapped and consumed at bio_endio); dd sleeps in its swap-in faults', async () => {
    resetKernel();
    const c = compile(`
global sub, wr, rd, ended, sizes, sleeps
probe ioblock.request {
  if (execname() != "dd" || $bio in sub) next
  sub[$bio] = sector; if (rw == 1) wr++; else rd++; sizes[size] <<< 1
}
probe ioblock.end { if ($bio in sub) { ended[devname, sector - sub[$bio], size] <<< 1; delete sub[$bio] } }
probe scheduler.ctxswitch { if (prev_task_name == "dd" && prevtsk_state == 2) sleeps++ }
probe end {
  printf("writes %d reads %d\\n", wr, rd)
  foreach (s in sizes) printf("submit size %d x%d\\n", s, @count(sizes[s]))
  foreach ([d, ds, sz] in ended) printf("end %s delta %d size %d x%d\\n", d, ds, sz, @count(ended[d, ds, sz]))
  printf("dd slept %s\\n", sleeps > 10 ? "yes" : "no")
}`);
    expect(c.err).to.equal('');
    let out = '';
    const engine = new Engine(c.tr!, { stdout: (s) => (out += s), stderr: (s) => (out += s), handleSignals: false, families: kernelFamilies(), seed: 1 });
    const m = new Machine({ seed: 1, cpus: 4, memMB: 2048 });
    connectMachine(m);
    try {
      m.run('swapon -a');
      const p = m.procs.spawnCommand(DD, () => {}, () => {});
      p.memcg = new MemCgroup('test', 1024);
      driveMachine(engine, m, { proc: p });
      const code = await engine.run();
      expect(code, out).to.equal(0);
      const writes = Number(/writes (\d+)/.exec(out)?.[1]);
      const reads = Number(/reads (\d+)/.exec(out)?.[1]);
      // one bio per page: what the machine swapped out and in (a bio seen once: ioblock.request's
      // kernel.function("submit_bio") fires twice per call on this machine, as before this change)
      expect(writes).to.be.within(m.mm.pswpout * 0.9, m.mm.pswpout);
      expect(reads).to.be.within(m.mm.pswpin * 0.9, m.mm.pswpin * 1.1);
      // (a bio of size 0: one of dd's copy-on-write faults of a libc data page reclaims in its charge, and
      // no recorded write-protect fault reclaimed: the nearest recorded tree, a file fault of a cold cache
      // that reclaimed, reads the disk where the machine makes no request)
      expect(out).to.match(/^submit size 4096 x\d+$/m);
      expect(out).not.to.match(/^submit size (?!4096 |0 x1$)/m, out);
      // bio_endio: the whole-disk sector (+2048) and bi_size 0, as ioblock_end's golden on the real guest
      expect(out).to.match(/^end sda1 delta 2048 size 0 x\d+$/m);
      expect(out).not.to.match(/^end .* delta (?!2048 )/m);
      expect(out).to.contain('dd slept yes');
    } finally {
      disconnectMachine();
    }
  });
  it('the swap bios trace block_bio_remap, the plugs block_plug/block_unplug, pageout mm_vmscan_write_folio (as the recording prints them)', () => {
    // the `swap` recording's events run: "block_bio_remap: 8,0 W 12096264 + 8 <- (8,1) 12094216", "block_plug: [dd]",
    // "block_unplug: [dd] 1", "mm_vmscan_write_folio: page=... pfn=0x97ac flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC";
    // 3132 remaps (one per bio), 242 plugs and unplugs (of 1 or 2 requests), 1784 folios written
    const { m, lines } = tracedDd('block/block_bio_remap block/block_bio_queue block/block_plug block/block_unplug block/block_rq_insert vmscan/mm_vmscan_write_folio');
    const of = (ev: string): string[] => lines.filter((l) => l.includes(` ${ev}: `)).map((l) => l.slice(l.indexOf(` ${ev}: `) + ev.length + 3));
    const remaps = of('block_bio_remap'), plugs = of('block_plug'), unplugs = of('block_unplug'), folios = of('mm_vmscan_write_folio');
    // each remapped bio is queued once (block_bio_queue after the remap, at the disk's sector); a recorded
    // read or pageout the machine has no page for (its tree's readahead or pageouts longer than the machine's)
    // submits no bio and traces none (not a NULL bio's `0,0 R 0 + 0`, nor the bio of an earlier fault)
    const queued = of('block_bio_queue');
    expect(queued.length).to.equal(remaps.length);
    for (const q of queued) expect(q, q).to.match(/^8,0 (W|R) \d+ \+ 8 \[dd\]$/);
    const start = swapStart(m) + 2048, end = start + (m.mm.swaps[0].slots + 1) * 8;
    // one per swap bio (a page each), the disk's sector = the partition's + 2048, inside the swap file
    expect(remaps.length).to.be.within(m.mm.pswpout * 0.9, m.mm.pswpout + m.mm.pswpin * 1.1);
    for (const r of remaps) {
      const x = /^8,0 (W|R) (\d+) \+ 8 <- \(8,1\) (\d+)$/.exec(r);
      expect(x, r).to.not.equal(null);
      expect(Number(x![2]) - Number(x![3])).to.equal(2048);
      expect(Number(x![2])).to.be.within(start, end);
    }
    // a plug per run of requests, each flushed once with what it held
    expect(plugs.length).to.be.above(50);
    expect(plugs.every((l) => l === '[dd]')).to.equal(true);
    expect(unplugs.length).to.equal(plugs.length);
    const nr = unplugs.map((l) => Number(/^\[dd\] (\d+)$/.exec(l)?.[1]));
    expect(nr.every((n) => n >= 1)).to.equal(true);
    // the machine's own plug: each flush's block_unplug counts the requests it then inserts, one
    // block_rq_insert each (the recording: 242 unplugs, 269 inserts), none inserted twice
    const inserts = of('block_rq_insert');
    expect(nr.reduce((a, n) => a + n, 0)).to.equal(inserts.length);
    const flushes: string[][] = [];
    for (const l of lines) {
      if (l.includes(' block_unplug: ')) flushes.push([]);
      else if (l.includes(' block_rq_insert: ')) flushes[flushes.length - 1].push(l.slice(l.indexOf(' block_rq_insert: ')));
    }
    expect(flushes.map((f) => f.length)).to.deep.equal(nr);
    for (const f of flushes) expect(new Set(f).size).to.equal(f.length);
    // each page pageout writes: an anonymous folio, frames all different (a few recorded swap-outs find no
    // page of the machine's left to swap out: no folio, pfn 0)
    expect(folios.length).to.be.within(m.mm.pswpout * 0.9, m.mm.pswpout * 1.01);
    const pfns = new Set<string>();
    let none = 0;
    for (const f of folios) {
      const x = /^page=[0-9a-f]{16} pfn=(0x[0-9a-f]+) flags=RECLAIM_WB_ANON\|RECLAIM_WB_ASYNC$/.exec(f);
      expect(x, f).to.not.equal(null);
      if (x![1] === '0x0') none++; else pfns.add(x![1]);
    }
    expect(pfns.size).to.equal(folios.length - none);
    expect(none).to.be.below(folios.length / 100);
  });
  it("a memory cgroup's reclaim traces mm_vmscan_memcg_reclaim_begin/end, mm_vmscan_lru_isolate and lru_shrink_inactive/active (as the recording prints them)", () => {
    // the `swap` recording's events run: 43 reclaims "mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE" ..
    // "mm_vmscan_memcg_reclaim_end: nr_reclaimed=40"; 374 "mm_vmscan_lru_isolate: isolate_mode=0 classzone=4 order=0
    // nr_requested=32 nr_scanned=32 nr_skipped=0 nr_taken=32 lru=inactive_anon", one per shrink_inactive_list (355
    // "mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=0 nr_dirty=0 ... priority=0
    // flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC") or shrink_active_list (19)
    const { lines } = tracedDd('vmscan');
    const ev = lines.map((l) => /^\s*dd-\d+ .* (mm_vmscan_\w+): (.*)$/.exec(l)).filter((x) => x !== null).map((x) => [x![1], x![2]]);
    const begins = ev.filter((x) => x[0] === 'mm_vmscan_memcg_reclaim_begin');
    expect(begins.length).to.be.above(10);
    expect(begins.every((x) => x[1] === 'order=0 gfp_flags=GFP_HIGHUSER_MOVABLE')).to.equal(true);
    // each reclaim: begin, its passes, end with the folios its passes freed
    let open = false, freed = 0, isolated = -1, passes = 0;
    for (const [name, f] of ev) {
      if (name === 'mm_vmscan_memcg_reclaim_begin') { expect(open).to.equal(false); open = true; freed = 0; continue; }
      if (name === 'mm_vmscan_write_folio') continue;
      expect(open, name).to.equal(true);
      if (name === 'mm_vmscan_memcg_reclaim_end') { expect(f).to.equal(`nr_reclaimed=${freed}`); open = false; continue; }
      if (name === 'mm_vmscan_lru_isolate') {
        const x = /^isolate_mode=0 classzone=4 order=0 nr_requested=(\d+) nr_scanned=(\d+) nr_skipped=0 nr_taken=(\d+) lru=(in)?active_anon$/.exec(f);
        expect(x, f).to.not.equal(null);
        expect(x![1]).to.equal(x![2]);
        expect(x![1]).to.equal(x![3]);
        isolated = Number(x![1]);
        expect(isolated).to.be.within(1, 32);
        continue;
      }
      // a pass after its isolation, with what it isolated
      expect(isolated, name).to.be.above(0);
      passes++;
      if (name === 'mm_vmscan_lru_shrink_inactive') {
        const x = new RegExp(`^nid=0 nr_scanned=${isolated} nr_reclaimed=(\\d+) nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 nr_ref_keep=0 nr_unmap_fail=0 priority=(\\d+) flags=RECLAIM_WB_ANON\\|RECLAIM_WB_ASYNC$`).exec(f);
        expect(x, f).to.not.equal(null);
        expect(Number(x![2])).to.be.within(0, 12);
        freed += Number(x![1]);
      } else {
        expect(name).to.equal('mm_vmscan_lru_shrink_active');
        expect(f).to.match(new RegExp(`^nid=0 nr_taken=${isolated} nr_active=0 nr_deactivated=${isolated} nr_referenced=0 priority=\\d+ flags=RECLAIM_WB_ANON\\|RECLAIM_WB_ASYNC$`));
      }
      isolated = -1;
    }
    expect(open).to.equal(false);
    expect(passes).to.equal(ev.filter((x) => x[0] === 'mm_vmscan_lru_isolate').length);
    expect(passes).to.be.above(begins.length);
  });
  it('a swap-in that slept for its read is taken again (VM_FAULT_RETRY): a second handle_mm_fault, no second page_fault_kernel', () => {
    // __folio_lock_or_retry releases the mmap lock and waits for the read; handle_mm_fault returns VM_FAULT_RETRY
    // and do_user_addr_fault takes the fault again inside the one exc_page_fault (the recording's second read:
    // 1348 fault trees for 1280 pages, 78 slept in __folio_lock_or_retry)
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    m.run('swapon -a');
    const cnt = { handle: 0, events: 0, sleeps: 0 };
    const p = m.procs.spawnCommand(DD, () => {}, () => {});
    p.memcg = new MemCgroup('test', 1024);
    const mine = (): boolean => (m.executingCpu()?.ctx.task as Task | null | undefined)?.proc === p;
    const op = new FtraceOps('swap_retry', () => { if (mine() && symbolName(ftraceHitFn()) === 'handle_mm_fault') cnt.handle++; }, FTRACE_OPS_FL_INITIALIZED, 'swap_retry');
    const onFault = (): void => { if (mine()) cnt.events++; };
    const onSwitch = (_d: unknown, _pre: unknown, prev: Task): void => { if (prev.proc === p && prev.wchan === '__folio_lock_or_retry') cnt.sleeps++; };
    registerFtraceFunction(op);
    tracepointProbeRegister('page_fault_kernel', onFault, null);
    tracepointProbeRegister('page_fault_user', onFault, null);
    tracepointProbeRegister('sched_switch', onSwitch as TracepointProbe, null);
    try {
      m.runUntil(() => p.finished, 120e9);
    } finally {
      unregisterFtraceFunction(op);
      tracepointProbeUnregister('page_fault_kernel', onFault, null);
      tracepointProbeUnregister('page_fault_user', onFault, null);
      tracepointProbeUnregister('sched_switch', onSwitch as TracepointProbe, null);
    }
    expect(cnt.sleeps).to.be.above(50);
    // one more handle_mm_fault per sleep than faults taken (a few of dd's faults have two in their recorded tree)
    expect(cnt.handle - cnt.events).to.be.within(cnt.sleeps, cnt.sleeps + 100);
  });
  it('a plug is the task\'s (current->plug): a preempted task that migrates takes its plugged requests along, another task on its old CPU starts an empty plug', () => {
    const m = new Machine({ cpus: 2, seed: 1, memMB: 256 });
    const running: unknown[] = [{ comm: 'a' }, { comm: 'b' }];
    m.current = ((cpu: number) => running[cpu]) as typeof m.current;
    const rq = (sector: number): BlkRequest => ({ ino: null, pages: [], write: false, swap: true, sector, bytes: 4096, cpu: 0, waiters: [] });
    const [c0, c1] = m.cpus;
    m.blk.queue(c0, rq(100));
    m.blk.queue(c0, rq(500));
    // task a preempted on CPU 0, resumed on CPU 1; task c now runs on CPU 0
    running[1] = running[0]; running[0] = { comm: 'c' };
    expect(m.blk.plugOf(c0).rqs).to.deep.equal([]);
    expect(m.blk.takePlug(c1).map((r) => r.sector)).to.deep.equal([100, 500]);
    expect(m.blk.plugOf(c1).rqs).to.deep.equal([]);
  });
});
