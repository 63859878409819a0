/**
 * mark_page_accessed at an address space's teardown (mm/filemap.ts zapMarkAccessed, paths/entry.ts
 * sys_impl): zap_pte_range marks each page cache page the file mappings map accessed, so a program's
 * pages are referenced at its first exit since they entered the cache, activated at its second
 * (folio_activate_fn's mm_lru_activate, which fires only for the pages the zap activated: the
 * 'lru_activate' tracepoint condition) and left alone after.  The recordings show it: the graph run,
 * a workload's second run since boot (after the recorder's warm-up), calls folio_activate in exit_group
 * (echo hello: 9, cp: 38, ping: 67), the events run, its fourth (after the graph phase's two runs and its
 * own warm-up: bench/fidelity_run.ts eventsRun), fires no mm_lru_activate (echo, cp, ping: 0).
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { runSimulated } from '../../bench/fidelity_run';
import { recordedSide } from '../../bench/fidelity';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import type { Task } from '../../src/machine/include/sched';

installKernelSemantics();

describe('page activation at exit (mark_page_accessed in zap_pte_range)', function () {
  this.timeout(120000);

  it("a program's file pages are activated at its second exit only", () => {
    // (echo: its recorded exit is its second since boot, after the recorder's warm-up run, and activates
    // pages; uname's re-recording ran it a third time, after the recorder's own `uname -r` and the
    // warm-up, and its exit tree, the machine's only one for uname, activates none)
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    let n = 0;
    const probe = (): void => {
      const t = m.executingCpu()?.ctx.task as Task | undefined;
      if (t?.comm === 'echo') n++;
    };
    const counts: number[] = [];
    expect(tracepointProbeRegister('mm_lru_activate', probe as never, null)).to.equal(0);
    try {
      for (let i = 0; i < 3; i++) {
        n = 0;
        const p = m.procs.spawnCommand('echo hello', () => undefined, () => undefined);
        m.runUntil(() => p.finished, 10e9);
        counts.push(n);
      }
    } finally {
      tracepointProbeUnregister('mm_lru_activate', probe as never, null);
    }
    // first run: echo's own pages referenced, none active yet (the libraries' were referenced by the
    // boot's programs: those activate); second run: echo's pages activated; third: nothing left to activate
    expect(counts[1]).to.be.greaterThan(0);
    expect(counts[2]).to.equal(0);
  });

  it("echo hello as recorded: folio_activate at the graph run's exit, no mm_lru_activate in the events run", () => {
    const rec = loadRecording(findRecording('echo')!);
    const real = recordedSide(rec);
    expect(real.functions.get('folio_activate') ?? 0).to.be.greaterThan(0);
    expect(real.events.get('mm_lru_activate') ?? 0).to.equal(0);
    // the graph run after the recorder's warm-up, then the events run after the graph phase's runs
    const graph = runSimulated(rec.command, { seed: 1, warmUp: true });
    const events = runSimulated(rec.command, { seed: 1, warmUp: true, eventsRun: true });
    expect(graph.functions.get('folio_activate') ?? 0).to.be.greaterThan(0);
    expect(graph.events.get('mm_lru_activate') ?? 0).to.be.greaterThan(0);
    expect(events.events.get('mm_lru_activate') ?? 0).to.equal(0);
  });
});
