/**
 * Kernel probe benchmarks: cost per hit of a counting kernel.function probe and of a .return
 * probe on a kcall-driven loop, and the slowdown of kernel.function("*") (every function with
 * DWARF data, ~40k probes on one fprobe ops) on a loop calling many distinct kernel functions,
 * and on the machine's dbench-like workload when available.
 */
import { Engine } from '../src/runtime/engine';
import { installKernelProbes, kernelFamilies } from '../src/probes/setup';
import { compile } from '../test/translate/pipeline';
import { kcall, functionId } from '../src/kernel/ftrace';
import { resolveDwarfFunctions } from '../src/probes/kernel_function';
import type { CpuContext } from '../src/kernel/current';

installKernelProbes();

const ctx: CpuContext = { cpu: 0, task: { pid: 100, tid: 100, comm: 'bench' } };

function timeLoop(fns: number[], iters: number): number {
  const kc = kcall;
  const args = [0, 0, 64, 0];
  const body = (): number => 64;
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) sink += kc(fns[i % fns.length], ctx, args, body);
  const ns = Number(process.hrtime.bigint() - t0);
  if (sink === -1) console.log(sink);
  return ns;
}

async function withProbes(script: string, fn: () => void): Promise<string> {
  const c = compile(script);
  if (!c.tr) throw new Error(c.err);
  let out = '';
  const engine = new Engine(c.tr, { stdout: (s) => (out += s), stderr: (s) => (out += s), handleSignals: false, families: kernelFamilies() });
  const pr = engine.run();
  try {
    fn();
  } finally {
    engine.exit();
  }
  await pr;
  return out;
}

export async function benchProbes(): Promise<Record<string, string | number>> {
  const r: Record<string, string | number> = {};
  const VFS_READ = functionId('vfs_read');
  const N = 2_000_000;
  timeLoop([VFS_READ], 200_000); // warm-up
  const base = timeLoop([VFS_READ], N);
  r['unprobed kcall(vfs_read), ns/call'] = +(base / N).toFixed(1);

  let probed = 0;
  const out1 = await withProbes('global n probe kernel.function("vfs_read") { n++ } probe end { println(n) }', () => {
    timeLoop([VFS_READ], 200_000);
    probed = timeLoop([VFS_READ], N);
  });
  r['kernel.function("vfs_read") counting: ns/hit'] = +((probed - base) / N).toFixed(1);
  r['kernel.function hits counted'] = Number(out1.trim());

  let ret = 0;
  await withProbes('global n probe kernel.function("vfs_read").return { n++ } probe end { println(n) }', () => {
    timeLoop([VFS_READ], 200_000);
    ret = timeLoop([VFS_READ], N);
  });
  r['kernel.function("vfs_read").return counting: ns/hit'] = +((ret - base) / N).toFixed(1);

  // kernel.function("*"): a loop over 4096 distinct probed functions
  const all = resolveDwarfFunctions('*');
  const fns = all.filter((_, i) => i % Math.max(1, Math.floor(all.length / 4096)) === 0).slice(0, 4096);
  const M = 1_000_000;
  timeLoop(fns, 200_000);
  const wBase = timeLoop(fns, M);
  let wProbed = 0;
  const t0 = Date.now();
  let regMs = 0;
  await withProbes('global n probe kernel.function("*") { n++ } probe end { println(n) }', () => {
    regMs = Date.now() - t0;
    timeLoop(fns, 200_000);
    wProbed = timeLoop(fns, M);
  });
  r['kernel.function("*"): probes'] = all.length;
  r['kernel.function("*"): compile+register ms'] = regMs;
  r['kcall loop (4096 fns) unprobed ns/call'] = +(wBase / M).toFixed(1);
  r['kcall loop (4096 fns) with kernel.function("*") ns/call'] = +(wProbed / M).toFixed(1);
  r['kernel.function("*") slowdown of the kcall loop (x, incl. the empty body)'] = +(wProbed / wBase).toFixed(2);

  // the machine's dbench-like workload, when the machine is built
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Machine } = require('../src/machine/machine') as typeof import('../src/machine/machine');
    const runDb = (): number => {
      const m = new Machine({ seed: 1 });
      const s = Date.now();
      m.run('dbench 2 10');
      return Date.now() - s;
    };
    runDb();
    const dbBase = runDb();
    let dbProbed = 0;
    await withProbes('global n probe kernel.function("*") { n++ } probe end { println(n) }', () => { dbProbed = runDb(); });
    let dbOne = 0;
    await withProbes('global n probe kernel.function("vfs_*") { n++ } probe end { println(n) }', () => { dbOne = runDb(); });
    r['dbench 2x10 unprobed wall ms'] = dbBase;
    r['dbench with kernel.function("vfs_*") wall ms'] = dbOne;
    r['dbench with kernel.function("*") wall ms'] = dbProbed;
    r['dbench slowdown with kernel.function("*") (x)'] = +(dbProbed / Math.max(1, dbBase)).toFixed(2);
  } catch (e) {
    r['dbench'] = `not run: ${(e as Error).message.split('\n')[0]}`;
  }
  return r;
}

if (require.main === module) benchProbes().then((r) => console.log(r));
