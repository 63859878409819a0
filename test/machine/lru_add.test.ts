/**
 * The per-CPU lru_add batches (src/machine/mm/swap.ts): folio_add_lru puts a folio in its CPU's batch,
 * which moves to the LRU lists (one lru_add_fn, one mm_lru_insertion each) when full or when
 * lru_add_drain_cpu drains it; the compiled trees run the move the batches call for instead of the
 * recorded one (paths/compile.ts emitLruMove), against the signal recording's events run.
 */
import { expect } from 'chai';
import { runSimulated } from '../../bench/fidelity_run';
import { recordedSide, recordedCpu, warmsUp } from '../../bench/fidelity';
import { storedSlowdown } from '../../bench/fidelity_speed';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import { installKernelSemantics } from '../../src/machine/machine';
import { compileShape } from '../../src/machine/paths/compile';
import { OP_TP, OP_REPEAT, OP_LOOP, tpIndex } from '../../src/machine/paths/dsl';
import { countRuleIndex } from '../../src/machine/paths/semantics';
import { functionId } from '../../src/kernel/ftrace';
import { LruAddBatches, PAGEVEC_SIZE } from '../../src/machine/mm/swap';

installKernelSemantics();

describe('per-CPU lru_add batches', () => {
  it('move a batch when its 15th folio is added or when it is drained, each CPU its own', () => {
    const b = new LruAddBatches();
    for (let i = 0; i < PAGEVEC_SIZE - 1; i++) expect(b.add(0)).to.equal(0);
    expect(b.folios(0)).to.equal(14);
    expect(b.add(0)).to.equal(15);
    expect(b.folios(0)).to.equal(0);
    // a drain moves what the batch holds, however few; an empty batch moves nothing
    b.add(1); b.add(1); b.add(1);
    expect(b.folios(0)).to.equal(0);
    expect(b.drain(1)).to.equal(3);
    expect(b.drain(1)).to.equal(0);
  });

  it('compile the move at folio_add_lru and lru_add_drain_cpu, with or without a recorded one', () => {
    const names = ['folio_add_lru', 'folio_batch_move_lru', 'lru_add_fn', 'lru_add_drain_cpu', 'mlock_page_drain_local', 'folio_activate_fn', 'lru_add_drain'];
    const ids = names.map((n) => functionId(n));
    const id = (f: number): number => ids[f];
    const compiled = (text: string): number[] => [...compileShape('t', text, 0, text.length, -1, id, false).code];
    // the recorded moves of the lru_add batch (a full one at a fault, 4 folios at a drain) are left out
    expect(compiled('0(1(2*15))')).to.deep.equal(compiled('0'));
    expect(compiled('6(3(1(2*4) 4))')).to.deep.equal(compiled('6(3(4))'));
    // another batch's move (the activate batch's, at a drain) is kept
    expect(compiled('6(3(1(5) 4))')).to.not.deep.equal(compiled('6(3(4))'));
    for (const [site, text] of [[0, '0'], [3, '6(3(4))']] as const) {
      const code = compiled(text);
      const rep = code.indexOf(OP_REPEAT);
      // right at the site's entry: OP_REPEAT (the site's rule) 0 0 end, then folio_batch_move_lru
      expect(code.indexOf(ids[site])).to.be.lessThan(rep);
      expect(code.slice(rep + 1, rep + 4)).to.deep.equal([countRuleIndex(ids[site]), 0, 0]);
      expect(code[rep + 5]).to.equal(ids[1]);
      // lru_add_fn as often as its rule says (the folios moved), mm_lru_insertion at each one's exit
      const inner = code.indexOf(OP_REPEAT, rep + 1);
      expect(code[inner + 1]).to.equal(countRuleIndex(ids[2]));
      expect(code.indexOf(ids[2])).to.be.greaterThan(inner);
      const tp = tpIndex('pagemap:mm_lru_insertion');
      const ins = code.findIndex((op, i) => op === OP_TP && code[i + 1] === tp);
      expect(ins).to.be.greaterThan(code.indexOf(ids[2]));
      expect(code.indexOf(OP_LOOP)).to.be.greaterThan(ins);
    }
    // mlock_page_drain_local follows the move
    const drain = compiled('6(3(4))');
    expect(drain.indexOf(ids[4])).to.be.greaterThan(drain.lastIndexOf(OP_LOOP));
  });

  it('signal: the shells insert about the folios they add, as the events run did (64 mm_lru_insertion)', function () {
    this.timeout(120000);
    const rec = loadRecording(findRecording('signal')!);
    const real = recordedSide(rec).events.get('mm_lru_insertion') ?? 0;
    expect(real).to.equal(64);
    // as the fidelity measure runs it: on the recorded CPU, at the events runs' CPU speed, after the graph phase.
    // The recorded trees' own moves drew 169 (a fault's full batch where the batches held a few folios)
    // (the mean of three seeds: one run's count moves with which recorded fault trees it draws, 65-77
    // at seeds 1-5 since the block layer's trees)
    const counts = [1, 2, 3].map((seed) => runSimulated(rec.command, { setup: rec.setup || undefined, warmUp: warmsUp(rec), seed, cpu: recordedCpu(rec, true), eventsRun: true,
      cpuSlowdown: storedSlowdown().eventsMedian }).events.get('mm_lru_insertion') ?? 0);
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(mean, counts.join(' ')).to.be.within(real * 0.85, real * 1.15);
  });
});
