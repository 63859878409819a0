import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { CpuContext } from '../../src/kernel/current';
import type { Task } from '../../src/machine/include/sched';
import {
  perfEventCreateKernelCounter, perfSw, PerfEvent, PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE,
  PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
  PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_CONTEXT_SWITCHES,
} from '../../src/machine/kernel/perf_events';

function sw(m: Machine, config: number, sample: number, f: (ctx: CpuContext) => void): PerfEvent {
  const ev = perfEventCreateKernelCounter(m, { type: PERF_TYPE_SOFTWARE, config, sample, freq: false }, f);
  if (typeof ev === 'number') throw new Error(`rc ${ev}`);
  return ev;
}

describe('machine: perf events (perf_event_create_kernel_counter)', () => {
  it('cpu_clock samples every CPU each period, idle CPUs included, in the interrupted task\'s context', () => {
    const m = new Machine({ seed: 1 });
    const hits = [0, 0, 0, 0];
    let idle = 0;
    const ev = sw(m, PERF_COUNT_SW_CPU_CLOCK, 1000000, (ctx) => {
      hits[ctx.cpu]++;
      expect(ctx.context).to.equal(2);
      expect(ctx.task).to.equal(m.current(ctx.cpu));
      if ((ctx.task as Task).idle) idle++;
    });
    m.runFor(0.5e9);
    ev.release();
    m.runFor(0.1e9);
    expect(hits).to.deep.equal([500, 500, 500, 500]);
    expect(idle).to.be.greaterThan(1000);
  });

  it('task_clock samples only while a non-idle task runs', () => {
    const m = new Machine({ seed: 1 });
    let n = 0;
    const ev = sw(m, PERF_COUNT_SW_TASK_CLOCK, 100000, (ctx) => { n++; expect((ctx.task as Task).idle).to.equal(false); });
    m.procs.programs.set('/usr/bin/spin', function* (u) { yield* u.cpu(200e6); return 0; });
    m.fs.createFile('/usr/bin/spin', 'ELF', 0o755);
    m.spawnShell('spin', () => undefined);
    m.runFor(0.5e9);
    ev.release();
    expect(n).to.be.greaterThan(1000);
  });

  it('page faults: every fault, split into minor and major (swap-in); the handler every `sample` faults', () => {
    // the faults of the program's start (ld.so and libc: process/ldso.ts), measured on a program that touches nothing
    const loader = new Machine({ seed: 1 });
    loader.procs.programs.set('/usr/bin/hog', function* () { return 0; });
    loader.fs.createFile('/usr/bin/hog', 'ELF', 0o755);
    const before = loader.mm.pgfault;
    loader.run('hog');
    const start = loader.mm.pgfault - before;
    expect(start).to.be.greaterThan(20);
    const m = new Machine({ seed: 1 });
    const n = { all: 0, min: 0, maj: 0, every10: 0 };
    const evs = [
      sw(m, PERF_COUNT_SW_PAGE_FAULTS, 1, (ctx) => { n.all++; expect((ctx.task as Task).comm).to.equal('hog'); }),
      sw(m, PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, () => { n.min++; }),
      sw(m, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, () => { n.maj++; }),
      sw(m, PERF_COUNT_SW_PAGE_FAULTS, 10, () => { n.every10++; }),
    ];
    // the heap's aligned 2 MiB blocks are faulted in as transparent huge pages (one fault maps 512 pages:
    // Debian 12's THP `always`, as the recorded anon-fault workload's do_huge_pmd_anonymous_page shows)
    let huge = 0;
    m.procs.programs.set('/usr/bin/hog', function* (u) {
      yield* u.touch('heap', 0, 3000, true);
      const r = u.t.proc.mm!.regions.get('heap')!;
      const p0 = r.start / 4096;
      for (let b = Math.ceil(p0 / 512) * 512; b + 512 <= p0 + 3000; b += 512) huge++;
      return 0;
    });
    m.fs.createFile('/usr/bin/hog', 'ELF', 0o755);
    m.spawnShell('hog', () => undefined);
    m.runFor(1e9);
    for (const e of evs) e.release();
    const faults = 3000 - 511 * huge + start;
    expect(n.all).to.equal(faults);
    expect(n.min + n.maj).to.equal(faults);
    expect(n.every10).to.equal(Math.floor(faults / 10));
    expect(perfSw.active).to.equal(false);
  });

  it('context switches count in the task switched out', () => {
    const m = new Machine({ seed: 2 });
    let n = 0;
    const ev = sw(m, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, () => { n++; });
    m.runFor(0.5e9);
    ev.release();
    expect(n).to.be.greaterThan(10);
    expect(ev.counter.count.reduce((a, b) => a + b, 0)).to.equal(n);
  });

  it('no PMU: hardware events fail with -ENOENT', () => {
    const m = new Machine({ seed: 1 });
    expect(perfEventCreateKernelCounter(m, { type: PERF_TYPE_HARDWARE, config: 0, sample: 1000000, freq: false }, () => undefined)).to.equal(-2);
    expect(perfEventCreateKernelCounter(m, { type: 3, config: 0x10000, sample: 1000000, freq: false }, () => undefined)).to.equal(-2);
  });
});
