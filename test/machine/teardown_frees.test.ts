/**
 * The pages an address space's teardown frees (mm/mm.ts teardownFreedPages): exit_mmap drops the last
 * reference of the anonymous pages only it maps (release_pages: mm_page_free_batched per page) and frees
 * its page tables; the exec and exit trees (paths/entry.ts) are drawn among the recorded ones whose zap
 * is nearest to the pages unmapped, then whose frees are nearest to these.  gzip has two recorded exit
 * trees of nearly the same zap (388 and 412 pages unmapped): the catalogue's gzip freeing 63 pages at
 * its exit, tar-gzip's gzip (more of its buffers touched) 130; the events run of gzip /root/services
 * frees 102 pages in batches.
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { teardownFreedPages } from '../../src/machine/mm/mm';
import { Mm, P_PRESENT } from '../../src/machine/include/mm_types';
import { runSimulated } from '../../bench/fidelity_run';
import { recordedSide, recordedCpu, warmsUp } from '../../bench/fidelity';
import { storedSlowdown } from '../../bench/fidelity_speed';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import type { Process } from '../../src/machine/include/sched';

installKernelSemantics();

describe('pages an address space teardown frees', function () {
  this.timeout(120000);

  it('its own anonymous pages (not those a fork peer shares) and its page tables', () => {
    const m = new Machine({ cpus: 1, seed: 1, memMB: 256 });
    const mm = new Mm();
    // three anonymous pages in one 2 MiB block: 3 pages + a PTE, PMD and PUD page + the PGD
    const r = mm.mapAt('anon', 0x7f0000000000, 4, 3, null, 0);
    for (let i = 0; i < 3; i++) { r.pages[i] = P_PRESENT; m.mm.addAnonLru(r, i, mm); }
    expect(teardownFreedPages(mm)).to.equal(7);
    // a page in another 2 MiB block: one more page and one more PTE page
    const far = mm.mapAt('far', 0x7f0000400000, 1, 3, null, 0);
    far.pages[0] = P_PRESENT; m.mm.addAnonLru(far, 0, mm);
    expect(teardownFreedPages(mm)).to.equal(9);
    // after a fork both share the pages copy-on-write: each frees its page tables only
    const child = m.mm.dupMm(mm, null as unknown as Process);
    expect(teardownFreedPages(mm)).to.equal(5);
    expect(teardownFreedPages(child)).to.equal(5);
    // once the child is gone the parent's are its own again
    m.mm.releaseMm(child);
    expect(teardownFreedPages(mm)).to.equal(9);
  });

  it("gzip /root/services: its exit tree's frees are its own (the events run: 102 pages freed in batches)", () => {
    const rec = loadRecording(findRecording('gzip')!);
    const real = recordedSide(rec).events.get('mm_page_free_batched') ?? 0;
    expect(real).to.equal(102);
    for (const seed of [1, 2]) {
      const sim = runSimulated(rec.command, { setup: rec.setup || undefined, warmUp: warmsUp(rec), seed, cpu: recordedCpu(rec, true), eventsRun: true,
        cpuSlowdown: storedSlowdown().eventsMedian }).events;
      // (the exit tree of tar-gzip's gzip would make it 168)
      expect(sim.get('mm_page_free_batched') ?? 0, `seed ${seed}`).to.be.within(Math.floor(real * 0.85), Math.ceil(real * 1.15));
    }
  });
});
