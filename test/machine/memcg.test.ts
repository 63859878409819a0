/**
 * Memory cgroups and swap (src/machine/mm/memcontrol.ts, mm/mm.ts faultPlan/faultDone, mm/fault.ts
 * kfault_buffer): the recorded `swap` workload (data/recordings/swap: dd's 5 MiB buffer in a cgroup
 * with memory.max 4M, swap on) reclaims in its own faults (vmstat there: pswpout 1784, pswpin 1344,
 * thp_fault_fallback_charge 1; its graph run: 9 + 28 try_to_free_mem_cgroup_pages, 1348 do_swap_page,
 * 180 swapin_readahead in the two reads).  The machine does the same from its own state.
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { MemCgroup, Mm, P_NONE, P_PRESENT } from '../../src/machine/include/mm_types';
import type { Task } from '../../src/machine/include/sched';
import { memcgCharge } from '../../src/machine/mm/memcontrol';
import { queuePageout, swapWritePending } from '../../src/machine/mm/page_io';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceHitFn, FTRACE_OPS_FL_INITIALIZED } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';

installKernelSemantics();
const SEQ_FNS = new Set(['handle_mm_fault', 'do_swap_page', 'swapin_readahead', 'try_to_free_mem_cgroup_pages']);

function runDd(memcgPages: number | null, seq?: string[]): { m: Machine; calls: Map<string, number>; status: number } {
  const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
  m.run('swapon -a');
  const calls = new Map<string, number>();
  const op = new FtraceOps('memcg_test', () => {
    const n = symbolName(ftraceHitFn());
    calls.set(n, (calls.get(n) ?? 0) + 1);
    if (seq && SEQ_FNS.has(n)) seq.push(n);
  }, FTRACE_OPS_FL_INITIALIZED, 'memcg_test');
  registerFtraceFunction(op);
  let status = -1;
  try {
    const p = m.procs.spawnCommand('dd if=/dev/zero of=/dev/null bs=5M count=2', () => {}, () => {});
    if (memcgPages !== null) p.memcg = new MemCgroup('test', memcgPages);
    m.runUntil(() => p.finished, 120e9);
    status = p.exitCode;
  } finally {
    unregisterFtraceFunction(op);
  }
  return { m, calls, status };
}

describe('memory cgroup reclaim and swap (mm/memcontrol.ts)', function () {
  this.timeout(120000);
  it('dd in a 4 MiB cgroup reclaims in its faults, swaps out and swaps in its buffer', () => {
    const { m, calls, status } = runDd(1024);
    expect(status).to.equal(0);
    // the group's charges past memory.max ran the recorded memcg reclaim, whose add_to_swap calls swapped pages out
    expect(calls.get('try_to_free_mem_cgroup_pages') ?? 0).to.be.within(10, 80);
    expect(m.mm.pswpout).to.be.within(1000, 4000);
    // the second read found its buffer swapped out: swap-ins, most from the swap cache after readahead
    expect(calls.get('do_swap_page') ?? 0).to.be.within(800, 3000);
    expect(calls.get('swapin_readahead') ?? 0).to.be.within(50, 600);
    expect(calls.get('swapin_readahead') ?? 0).to.be.below((calls.get('do_swap_page') ?? 0) / 2);
    expect(m.mm.pswpin).to.be.above(800);
  });
  it('a reclaiming swap-in reads the swap device: readahead charges what it reads, reclaim drops it first', () => {
    // the recording's 28 reclaims of the second read are all in swap-ins that read the device
    // (try_to_free_mem_cgroup_pages after swapin_readahead in the same fault): readahead charges each
    // folio it reads (mem_cgroup_swapin_charge_folio), so the charge past memory.max comes there, and the
    // reclaim frees those clean folios first, so no later fault finds them in the swap cache
    const seq: string[] = [];
    const { status } = runDd(1024, seq);
    expect(status).to.equal(0);
    let swapping = false, readahead = false, inSwap = 0, afterRa = 0;
    for (const f of seq) {
      if (f === 'handle_mm_fault') readahead = false;
      else if (f === 'do_swap_page') swapping = true;
      else if (f === 'swapin_readahead') readahead = true;
      else if (swapping) { inSwap++; if (readahead) afterRa++; }
    }
    expect(inSwap).to.be.within(10, 80);
    expect(afterRa).to.equal(inSwap);
  });
  it("a swap-in frees its slot into its CPU's slots cache, which returns them 64 at a time (swapcache_free_entries)", () => {
    // SEQ_FNS order: each free_swap_slot of a swap-in, and the flushes, per CPU: the recording's read
    // (data/recordings/swap) freed 1278 slots with 19 flushes, each of 64 (swap_range_free 1216)
    const { calls, status } = runDd(1024);
    expect(status).to.equal(0);
    const frees = calls.get('free_swap_slot') ?? 0;
    const flushes = calls.get('swapcache_free_entries') ?? 0;
    expect(frees).to.be.above(1000);
    // the swap-ins' frees flush once per 64 after the first 64 (4 CPUs: at most one partial cache each);
    // the exits' recorded trees flush their own; the machine counts the frees of its swap-ins, the trees
    // (chosen for the pages a swap-in reads: mm/page_io.ts) call free_swap_slot about as often (+2)
    expect(flushes).to.be.within(Math.floor(frees / 64) - 4, Math.ceil(frees / 64) + 2);
    expect(calls.get('swap_range_free')).to.equal(flushes * 64);
  });
  it('a reclaim uncharges the folios it frees (__remove_mapping), not those it swaps out: one every ~40 faults, as recorded', () => {
    // add_to_swap leaves the folio charged in the swap cache until its pageout's write completes and a later
    // reclaim frees it (mem_cgroup_swapout); the recording's events run reclaims every 39-40 faults (a reclaim
    // frees ~40 written folios) and its graph run's first read every 31-59 (47 37 37 38 58 31 59 35 40); when
    // add_to_swap uncharged at once, a reclaim that swapped out 80-100 folios put the next one as far away
    // and one that freed a few readahead folios brought it back 8 faults later
    const seq: string[] = [];
    const { calls, status } = runDd(1024, seq);
    expect(status).to.equal(0);
    expect(calls.get('try_to_free_mem_cgroup_pages') ?? 0).to.be.within(30, 55);
    const gaps: number[] = [];
    let f = -1;
    for (const n of seq) {
      if (n === 'handle_mm_fault' && f >= 0) f++;
      else if (n === 'try_to_free_mem_cgroup_pages') { if (f >= 0) gaps.push(f); f = 0; }
    }
    // (within the recorded graph run's range, 31-59: with the CPUs side by side, the writes' completions on the
    // disk's CPU land between dd's faults at other points than when the CPUs took turns)
    expect(gaps.filter((g) => g >= 30 && g <= 60).length).to.be.above(gaps.length * 0.6);
  });
  it('a reclaim that finds fewer than SWAP_CLUSTER_MAX clean folios writes (its tree has pageouts: fault feature pw)', () => {
    // shrink_folio_list frees the clean swap-cache folios it finds; nr_to_reclaim SWAP_CLUSTER_MAX not met, it
    // goes on to the group's mapped pages, add_to_swap and pageout: the recorded reclaims that wrote
    const m = new Machine({ cpus: 1, seed: 1, memMB: 2048 });
    m.run('swapon -a');
    const g = new MemCgroup('test', 64);
    const mm = new Mm();
    const r = mm.region('anon0', 64);
    r.pages.fill(P_PRESENT);
    memcgCharge(g, mm, r, 0, 64);
    const plan = (): string[] => m.mm.faultPlan(g, mm, r, 0, 'anon', true, 0).treeFeat;
    r.pages[0] = P_NONE;
    expect(plan()).to.deep.equal(['rc', 'pw']);
    // 40 swapped out: still charged, in the swap cache; clean once written
    const out = Array.from({ length: 40 }, () => m.mm.memcgSwapOut(g)!);
    expect(g.usage).to.equal(64);
    expect(mm.swapCache.size).to.equal(40);
    expect(plan()).to.deep.equal(['rc']);
    // dirty (their pageouts queued, not written yet): nothing to free without writing
    const t = {} as Task;
    for (const s of out) queuePageout(t, s);
    expect(out.every((s) => swapWritePending(mm, s.addr!))).to.equal(true);
    expect(plan()).to.deep.equal(['rc', 'pw']);
    // a reclaim frees what is clean only
    expect(m.mm.dropSwapCache(mm, (a) => swapWritePending(mm, a))).to.equal(false);
    expect(m.mm.dropSwapCache(mm, () => false)).to.equal(true);
    expect(g.usage).to.equal(63);
  });
  it('without a cgroup the same dd never reclaims nor swaps', () => {
    const { m, calls, status } = runDd(null);
    expect(status).to.equal(0);
    expect(calls.get('try_to_free_mem_cgroup_pages') ?? 0).to.equal(0);
    expect(calls.get('do_swap_page') ?? 0).to.equal(0);
    expect(m.mm.pswpout).to.equal(0);
    // the 5 MiB buffer was faulted in by the first read (a huge page where an aligned 2 MiB block fits)
    expect(calls.get('do_huge_pmd_anonymous_page') ?? 0).to.be.within(1, 2);
    expect(calls.get('handle_mm_fault') ?? 0).to.be.within(250, 1400);
  });
});
