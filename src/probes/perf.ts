/**
 * The `perf` probe family (stap's tapsets.cxx perf_builder, runtime/linux/perf.c):
 *
 *   perf.type(T).config(C)[.sample(N)|.hz(N)]   (stdlib/perf.stp: perf.sw.*, perf.hw.*, perf.hw_cache.*)
 *
 * Pass 2: `.sample(N)` must be > 0 (`invalid perf sample period N`); without `.sample`/`.hz` the
 * period is 1000000.  The derived probe point is `perf.type(T).config(C).sample(P)` with P the
 * period, or the `.hz` value (stap prints the frequency as `.sample(N)` too).
 * Run time: one in-kernel counter per CPU (src/machine/perf_events.ts); the handler runs at
 * each overflow in the context of the CPU and task the event happened on.  The simulated CPUs
 * have no PMU: hardware events fail to register (-ENOENT) and stap's module start fails with
 * `probe PP registration error [man warning::pass5] (rc -2)`.
 */
import { SemanticError } from '../diag';
import { renderComponents } from '../elaborate/util';
import type { BuildRequest, ProbeRegistry } from '../elaborate/probes';
import type * as A from '../ast';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import type { Machine } from '../machine/machine';
import { perfEventCreateKernelCounter, PerfEvent, PerfAttr } from '../machine/kernel/perf_events';
import { Deliverer } from './hit';

let machine: Machine | null = null;
/** The simulated machine whose kernel creates the counters (connectMachine). */
export function setPerfMachine(m: Machine | null): void {
  machine = m;
}

interface PerfData extends PerfAttr {
  kind: 'perf';
  dumpOrigin: string;
}

function numOf(c: A.ProbePointComponent): bigint {
  const a = c.arg;
  return a && a.k === 'num' ? BigInt(a.value) : 0n;
}

function build(req: BuildRequest): A.ResolvedPoint[] {
  const cs = req.components;
  const type = numOf(cs[1]);
  const config = numOf(cs[2]);
  let sample = 1000000n;
  let freq = false;
  const s = cs[3];
  if (s && s.name === 'sample') {
    sample = numOf(s);
    if (sample <= 0n) throw new SemanticError(`invalid perf sample period ${sample}`, s.tok, [], 'perf-sample');
  } else if (s && s.name === 'hz') {
    sample = numOf(s);
    freq = true;
  }
  // -p2 prints a perf probe's origin as the alias-expanded point as written (stap 4.8)
  const data: PerfData = { kind: 'perf', type: Number(type), config: Number(config), sample: Number(sample), freq, dumpOrigin: renderComponents(cs) };
  return [{
    family: 'perf',
    pp: `perf.type(${type}).config(${config}).sample(${sample})`,
    data: data as unknown as Record<string, unknown>,
  }];
}

/** Register stap's perf probe points (perf.type(N).config(M)[.sample(N)|.hz(N)]). */
export function registerPerf(r: ProbeRegistry): void {
  const provider = { family: 'perf', build };
  r.register('perf.type(number).config(number)', provider);
  r.register('perf.type(number).config(number).sample(number)', provider);
  r.register('perf.type(number).config(number).hz(number)', provider);
}

export class PerfFamily implements ProbeFamilyRuntime {
  family = 'perf';
  private events: PerfEvent[] = [];
  private armed = false;

  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    for (const p of probes) {
      const d = p.meta.data as unknown as PerfData;
      const attr: PerfAttr = { type: d.type, config: d.config, sample: d.sample, freq: d.freq };
      const out = new Deliverer(engine, p, 'perf', false, -1, 0);
      const regs = { ip: 0, parentIp: 0, args: [] as unknown[], retval: undefined };
      const ev = machine
        ? perfEventCreateKernelCounter(machine, attr, (ctx, pc) => {
          if (!this.armed) return;
          // the interrupted instruction of a clock sample (addr(), user_mode()); 0 for the other events
          regs.ip = pc ? pc.ip : 0;
          out.fire(regs, ctx, [], undefined, undefined, pc !== undefined && pc.user);
        })
        : -19; // no simulated kernel to count in: -ENODEV
      if (typeof ev === 'number') {
        engine.failStart(`probe ${p.meta.pp} registration error [man warning::pass5] (rc ${ev})`);
        return;
      }
      this.events.push(ev);
    }
  }

  unregister(): void {
    this.armed = false;
    for (const e of this.events) e.release();
    this.events = [];
  }
}
