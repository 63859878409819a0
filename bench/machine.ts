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
  const m = new Machine({ seed: 1 });
  const idle = countCalls(m, () => m.runFor(10e9));
  const heap = process.memoryUsage().heapUsed - h0;
  const m2 = new Machine({ seed: 1 });
  const db = countCalls(m2, () => m2.run('dbench 4 40'));
  void stackNames;
  return {
    'default system: 10 s simulated, wall ms': Math.round(idle.ms),
    'default system: kernel calls/s ': Math.round(idle.calls / (idle.ms / 1000)),
    'dbench 4 clients: wall ms': Math.round(db.ms),
    'dbench: kernel calls/s ': Math.round(db.calls / (db.ms / 1000)),
    'default system heap MB': Math.round(heap / 1e5) / 10,
  };
}

if (require.main === module) benchMachine().then((r) => console.log(r));
