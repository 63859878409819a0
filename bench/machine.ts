/** Machine benchmarks: simulated kernel function calls per second with nothing attached. */
import { Machine } from '../src/machine/machine';
import { stackNames } from '../src/machine/kexec';

function countCalls(m: Machine, fn: () => void): { calls: number; ms: number } {
  // every CALL op advances the clock by its cost; count calls by instrumenting the interpreter's
  // function stack depth through the ftrace site table is avoided: use the path statistics below.
  const t0 = process.hrtime.bigint();
  const before = m.kcalls;
  fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { calls: m.kcalls - before, ms };
}

export async function benchMachine(): Promise<Record<string, string | number>> {
  const h0 = process.memoryUsage().heapUsed;
  // cold: the first machine pays for loading kernel data and compiling the paths
  const m = new Machine({ seed: 1 });
  const cold = countCalls(m, () => m.runFor(10e9));
  const heap = process.memoryUsage().heapUsed - h0;
  // warm: steady state of a fresh machine once data and paths are loaded
  const mw = new Machine({ seed: 1 });
  const idle = countCalls(mw, () => mw.runFor(60e9));
  const m2 = new Machine({ seed: 1 });
  const db = countCalls(m2, () => m2.run('dbench 4 40'));
  const m3 = new Machine({ seed: 1 });
  const db2 = countCalls(m3, () => m3.run('dbench 4 40'));
  void stackNames;
  return {
    'default system, cold (incl. data load): 10 s simulated, wall ms': Math.round(cold.ms),
    'default system, cold: kernel calls/s': Math.round(cold.calls / (cold.ms / 1000)),
    'default system, warm: 60 s simulated, wall ms': Math.round(idle.ms),
    'default system, warm: kernel calls': idle.calls,
    'default system, warm: kernel calls/s': Math.round(idle.calls / (idle.ms / 1000)),
    'dbench 4 clients (first run): wall ms': Math.round(db.ms),
    'dbench (first run): kernel calls/s': Math.round(db.calls / (db.ms / 1000)),
    'dbench 4 clients (warm): wall ms': Math.round(db2.ms),
    'dbench (warm): kernel calls': db2.calls,
    'dbench (warm): kernel calls/s': Math.round(db2.calls / (db2.ms / 1000)),
    'default system heap MB': Math.round(heap / 1e5) / 10,
  };
}

if (require.main === module) benchMachine().then((r) => console.log(r));
