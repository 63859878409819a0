/**
 * Tracepoints fired inside the recorded call trees (src/machine/paths/tpsites.ts, compiled by
 * paths/compile.ts): the events the real kernel traces in functions the machine replays, at the
 * function holding the trace_X() call (maple tree reads and writes, rss_stat, mm_page_free_batched,
 * the mmap lock around the exec and exit trees), counted against the recording of the same workload
 * (data/recordings/cat.json.gz, its events run), and their fields as a tracer reads them.
 */
import { expect } from 'chai';
import { runSimulated } from '../../bench/fidelity_run';
import { recordedSide } from '../../bench/fidelity';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import { installKernelSemantics } from '../../src/machine/machine';
import { compileShape } from '../../src/machine/paths/compile';
import { OP_TP, tpIndex } from '../../src/machine/paths/dsl';
import { functionId } from '../../src/kernel/ftrace';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister, findEvent } from '../../src/kernel/tracepoint';
import { fieldGetters } from '../../src/kernel/tracefs/event_assign';

installKernelSemantics();

describe('tracepoints inside recorded trees', () => {
  it('fires a before:CALLEE site before each call of that callee, in the caller only', () => {
    // free_unref_page_list(free_pcp_prepare free_unref_page_commit*2): one mm_page_free_batched per page committed
    const ids = ['free_unref_page_list', 'free_pcp_prepare', 'free_unref_page_commit'].map((n) => functionId(n));
    const code = [...compileShape('t', '0(1 2*2) 2', 0, 10, -1, (f) => ids[f], false).code];
    const tp = tpIndex('kmem:mm_page_free_batched');
    const at = (id: number): number[] => code.flatMap((op, i) => (op === id ? [i] : []));
    const commits = at(ids[2]);
    expect(commits.length).to.equal(3);
    expect(code[commits[0] - 2]).to.equal(OP_TP);
    expect(code[commits[0] - 1]).to.equal(tp);
    expect(code[commits[1] - 2]).to.equal(OP_TP);
    // the third commit is a top-level call: no free_unref_page_list around it
    expect(code[commits[2] - 1]).to.not.equal(tp);
  });

  it('cat /etc/passwd: the maple tree, rss_stat, batched frees and the mmap lock as often as the recording shows', () => {
    const rec = loadRecording(findRecording('cat')!);
    const real = recordedSide(rec).events;
    const sim = runSimulated(rec.command, { seed: 1 }).events;
    // the recording's events run: ma_read 86, ma_write 89, rss_stat 60, mm_page_free_batched 78,
    // mmap_lock_start_locking 100; the machine runs the graph run's trees (cat: 22.5k of 28k calls)
    for (const ev of ['ma_read', 'ma_write', 'rss_stat', 'mm_page_free_batched', 'mmap_lock_start_locking', 'mmap_lock_released']) {
      const r = real.get(ev) ?? 0;
      expect(r, ev).to.be.greaterThan(0);
      expect(sim.get(ev) ?? 0, ev).to.be.within(Math.floor(r * 0.75), Math.ceil(r * 1.25));
    }
    // every lock taken is released; a fault's lock too
    expect(sim.get('mmap_lock_released')).to.equal(sim.get('mmap_lock_start_locking'));
  });

  it('rss_stat carries the address space and its file pages in bytes', () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    const ev = findEvent('kmem', 'rss_stat')!;
    const g = fieldGetters(ev);
    const names = ev.fields.map((f) => f.name);
    const seen: { member: number; size: number; curr: number; mmId: number }[] = [];
    const probe = (_d: unknown, ...a: unknown[]): void => {
      const ctx = m.executingCpu()!.ctx;
      const v = (n: string): number => Number(g[names.indexOf(n)](a, ctx));
      seen.push({ member: v('member'), size: v('size'), curr: v('curr'), mmId: v('mm_id') });
    };
    expect(tracepointProbeRegister('rss_stat', probe as never, null)).to.equal(0);
    try {
      const p = m.procs.spawnCommand('cat /etc/passwd', () => undefined, () => undefined);
      m.runUntil(() => p.finished, 10e9);
    } finally {
      tracepointProbeUnregister('rss_stat', probe as never, null);
    }
    expect(seen.length).to.be.greaterThan(10);
    for (const s of seen) {
      expect(s.member).to.equal(0); // MM_FILEPAGES, as most of cat's events (type=MM_FILEPAGES)
      expect(s.size % 4096).to.equal(0);
      expect(s.curr).to.equal(1);
      expect(s.mmId).to.be.greaterThan(0);
    }
    expect(seen.some((s) => s.size > 0)).to.equal(true);
  });
});
