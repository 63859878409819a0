/**
 * Machine benchmarks: simulated kernel function calls per second with nothing attached, for the
 * default system (services, kthreads, timer ticks), the dbench-like file load and the tbench-like
 * loopback TCP load.
 *
 * `kernel calls/s` is calls per second of process CPU time (user + system, min over repetitions):
 * the host is usually shared, and CPU time is what "on one core" means. Wall times are given too.
 *
 * "warm" figures are steady state: each workload first runs a few times unmeasured, so that its
 * paths are compiled and the JIT has optimized its code (process CPU time includes the optimizing
 * compiler's threads: the first runs of a workload cost 2-4x a steady-state run). The "first run"
 * figures show what a one-off run of each workload costs.
 */
import { Machine } from '../src/machine/machine';
import { calibrate, CALIBRATION_LABEL } from './calibrate';

interface Run { calls: number; cpuNs: number; wallNs: number }

function measure(fn: (m: Machine) => void): Run {
  const m = new Machine({ seed: 1 });
  const before = m.kcalls;
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  fn(m);
  const wallNs = Number(process.hrtime.bigint() - t0);
  const u = process.cpuUsage(u0);
  return { calls: m.kcalls - before, cpuNs: (u.user + u.system) * 1000, wallNs };
}

function best(n: number, fn: (m: Machine) => void, warmup = 0): Run {
  for (let i = 0; i < warmup; i++) measure(fn);
  let b = measure(fn);
  for (let i = 1; i < n; i++) {
    const r = measure(fn);
    if (r.cpuNs < b.cpuNs) b = r;
  }
  return b;
}

const rate = (r: Run): number => Math.round(r.calls / (r.cpuNs / 1e9));

/**
 * dbench 4.0's file load (programs/dbench.ts: one client replaying the load file for one simulated
 * second, ~53k syscalls); until 2026-11-27 this was the old dbench-like sketch (`dbench 4 200`: four
 * clients writing, reading and unlinking 64 KiB files 200 times)
 */
const DBENCH = 'dbench -t 1 -D /root 1';
/**
 * The same load for a fixed amount of work: the load file's first 8000 lines (~7,000 operations), then
 * asleep past the time limit.  DBENCH runs for one simulated second, so how many operations it does
 * (and of which kinds) follows the machine's simulated costs: from 7ef9fe3 to de20ac3 dbench's Unlink
 * took 0.26 ms instead of 1.12 (a truncate draws the recorded tree that truncated as many folios), and
 * one second held 51% more syscalls with 5% fewer kernel calls: DBENCH's calls/s fell 30% while the
 * host's CPU time for these 8000 lines stayed within a few percent.  This figure compares the host's
 * cost of the same operations.
 */
const DBENCH_FIXED = 'head -n 8000 /usr/share/dbench/client.txt > /tmp/db.txt; echo "Sleep 3000000 NT_STATUS_OK" >> /tmp/db.txt; ' +
  'dbench -t 2 -c /tmp/db.txt -D /root 1';
/**
 * Debian's tbench (programs/dbench.ts, dbench_sockio.ts) against its tbench_srv: 4 clients replaying
 * client.txt's first 200 lines once each (then asleep past the 1 s limit): ~600 request/reply exchanges.
 * Until 2026-11-27 this was the old tbench-like sketch (`tbench 4 100`: 400 exchanges of its own).
 */
export const TBENCH = 'head -n 200 /usr/share/dbench/client.txt > /tmp/tb.txt; echo "1.5 Sleep 0 NT_STATUS_OK" >> /tmp/tb.txt; ' +
  'tbench_srv > /dev/null & sleep 1; tbench -t 1 -c /tmp/tb.txt 4 127.0.0.1; kill $!';

export async function benchMachine(): Promise<Record<string, string | number>> {
  const h0 = process.memoryUsage().heapUsed;
  // cold: the first machine pays for loading kernel data and compiling the paths
  const cold = measure((m) => m.runFor(10e9));
  const heap = process.memoryUsage().heapUsed - h0;
  // first runs of each workload (paths compiled, code not yet optimized)
  const idle1 = measure((m) => m.runFor(300e9));
  const db1 = measure((m) => m.run(DBENCH));
  const tb1 = measure((m) => m.run(TBENCH));
  // warm: steady state of fresh machines once data and paths are loaded and the code optimized
  const idle = best(7, (m) => m.runFor(300e9), 4);
  const db = best(9, (m) => m.run(DBENCH), 6);
  const dbFixed = best(9, (m) => m.run(DBENCH_FIXED), 3);
  const tb = best(7, (m) => m.run(TBENCH), 4);
  return {
    [CALIBRATION_LABEL]: calibrate(),
    'first run of each workload: default 300 s / dbench / tbench, CPU ms': `${Math.round(idle1.cpuNs / 1e6)} / ${Math.round(db1.cpuNs / 1e6)} / ${Math.round(tb1.cpuNs / 1e6)}`,
    'default system, cold (incl. data load): 10 s simulated, wall ms': Math.round(cold.wallNs / 1e6),
    'default system, cold: kernel calls/s': rate(cold),
    'default system, warm: 300 s simulated, CPU ms': Math.round(idle.cpuNs / 1e6),
    'default system, warm: wall ms': Math.round(idle.wallNs / 1e6),
    'default system, warm: kernel calls': idle.calls,
    'default system, warm: kernel calls/s (unprobed)': rate(idle),
    [`${DBENCH} (warm): CPU ms`]: Math.round(db.cpuNs / 1e6),
    'dbench (warm): wall ms': Math.round(db.wallNs / 1e6),
    'dbench (warm): kernel calls': db.calls,
    'dbench (warm): kernel calls/s (unprobed)': rate(db),
    'dbench, the load file\'s first 8000 lines (warm): CPU ms': Math.round(dbFixed.cpuNs / 1e6),
    'dbench 8000 lines (warm): kernel calls': dbFixed.calls,
    'dbench 8000 lines (warm): kernel calls/s (unprobed)': rate(dbFixed),
    'tbench 4 clients x 200 lines (warm): CPU ms': Math.round(tb.cpuNs / 1e6),
    'tbench (warm): wall ms': Math.round(tb.wallNs / 1e6),
    'tbench (warm): kernel calls': tb.calls,
    'tbench (warm): kernel calls/s (unprobed)': rate(tb),
    'default system heap MB': Math.round(heap / 1e5) / 10,
  };
}

if (require.main === module) benchMachine().then((r) => console.log(r));
