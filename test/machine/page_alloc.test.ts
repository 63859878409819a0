/**
 * The per-CPU page lists (src/machine/mm/page_alloc.ts): an allocation refills its CPU's empty list
 * with a batch (rmqueue_bulk, one mm_page_alloc_zone_locked per page), a free returns the page to the
 * freeing CPU's list, and the compiled trees run the refill the lists call for instead of the
 * recorded one (paths/compile.ts emitPcpRefill), against the swap recording's events run.
 */
import { expect } from 'chai';
import { runSimulated } from '../../bench/fidelity_run';
import { recordedSide, recordedCpu, warmsUp } from '../../bench/fidelity';
import { storedSlowdown } from '../../bench/fidelity_speed';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import { installKernelSemantics } from '../../src/machine/machine';
import { compileShape, PCP_BATCH } from '../../src/machine/paths/compile';
import { OP_TP, OP_REPEAT, OP_LOOP, tpIndex } from '../../src/machine/paths/dsl';
import { countRuleIndex } from '../../src/machine/paths/semantics';
import { functionId } from '../../src/kernel/ftrace';
import { PerCpuPages } from '../../src/machine/mm/page_alloc';

installKernelSemantics();

describe('per-CPU page lists', () => {
  it('refill an empty list with a batch, take from it until it is empty, and keep each CPU its own frees', () => {
    const pcp = new PerCpuPages(() => 1000);
    // CPU 0's list is empty: the first allocation refills it, the next 62 take the batch's pages
    expect(pcp.alloc(0)).to.equal(1);
    for (let i = 0; i < PCP_BATCH - 1; i++) expect(pcp.alloc(0)).to.equal(0);
    expect(pcp.pages(0)).to.equal(0);
    expect(pcp.alloc(0)).to.equal(1);
    // pages freed on CPU 1 serve CPU 1 only
    for (let i = 0; i < 10; i++) pcp.free(1);
    expect(pcp.pages(1)).to.equal(10);
    for (let i = 0; i < 10; i++) expect(pcp.alloc(1)).to.equal(0);
    expect(pcp.alloc(1)).to.equal(1);
    expect(pcp.alloc(2)).to.equal(1);
  });

  it('drain a batch once a free reaches pcp->high', () => {
    const pcp = new PerCpuPages(() => 100);
    for (let i = 0; i < 99; i++) pcp.free(0);
    expect(pcp.pages(0)).to.equal(99);
    pcp.free(0);
    expect(pcp.pages(0)).to.equal(100 - PCP_BATCH);
  });

  it('compile the refill after the pcp lock of get_page_from_freelist, with or without a recorded one', () => {
    const names = ['get_page_from_freelist', '_raw_spin_trylock', 'rmqueue_bulk', '_raw_spin_lock_irqsave', 'check_new_pages',
      '__mod_zone_page_state', '_raw_spin_unlock_irqrestore', '_raw_spin_unlock'];
    const ids = names.map((n) => functionId(n));
    const id = (f: number): number => ids[f];
    const compiled = (text: string): number[] => [...compileShape('t', text, 0, text.length, -1, id, false).code];
    const refilled = compiled('0(1 2(3 4*63 5 6) 7)');
    const plain = compiled('0(1 7)');
    // the recorded refill is left out: both trees compile to the same program
    expect(refilled).to.deep.equal(plain);
    const rule = countRuleIndex(ids[2]);
    expect(rule).to.be.at.least(0);
    const lock = plain.indexOf(ids[1]);
    const rep = plain.indexOf(OP_REPEAT);
    // right after the lock's call returns: OP_REPEAT rule 0 0 end, then rmqueue_bulk
    expect(rep).to.be.greaterThan(lock);
    expect(plain.slice(rep + 1, rep + 4)).to.deep.equal([rule, 0, 0]);
    expect(plain[rep + 5]).to.equal(ids[2]);
    // check_new_pages runs a batch of times, each after a mm_page_alloc_zone_locked
    const inner = plain.indexOf(OP_REPEAT, rep + 1);
    expect(plain.slice(inner + 1, inner + 3)).to.deep.equal([-1, PCP_BATCH]);
    const check = plain.indexOf(ids[4]);
    expect(plain.slice(check - 2, check)).to.deep.equal([OP_TP, tpIndex('kmem:mm_page_alloc_zone_locked')]);
    expect(plain.indexOf(OP_LOOP)).to.be.greaterThan(check);
    // the unlock follows the refill
    expect(plain.lastIndexOf(ids[7])).to.be.greaterThan(plain.lastIndexOf(OP_LOOP));
    // elsewhere (not under get_page_from_freelist) a trylock gets no refill
    expect(compiled('1 7').includes(OP_REPEAT)).to.equal(false);
  });

  it('dd-write: dd refills its list in batches of 63 page cache pages as the events run did (1008 events)', function () {
    this.timeout(120000);
    const rec = loadRecording(findRecording('dd-write')!);
    const real = recordedSide(rec).events.get('mm_page_alloc_zone_locked') ?? 0;
    expect(real).to.equal(1008);
    // as the fidelity measure runs it: on the recorded CPU, at the events runs' CPU speed, after the graph phase.
    // (swap's count, 884 recorded, is left to bench/FIDELITY.md: its list is fed by reclaim's frees, and which
    // CPU's list they reach makes its refills anywhere from 0 to 504 across seeds)
    // whole batches of 63 (rmqueue_bulk's loop); their mean over seeds 1-3 within 10% of the events run (a
    // batch is 6%: one run draws a batch or two more or fewer, 882 1008 945 882 at seeds 1-4)
    const counts = [1, 2, 3].map((seed) => runSimulated(rec.command, { setup: rec.setup || undefined, warmUp: warmsUp(rec), seed, cpu: recordedCpu(rec, true), eventsRun: true,
      cpuSlowdown: storedSlowdown().eventsMedian }).events.get('mm_page_alloc_zone_locked') ?? 0);
    for (const n of counts) expect(n % 63, String(n)).to.equal(0);
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(mean, counts.join(' ')).to.be.within(real * 0.9, real * 1.1);
  });
});
