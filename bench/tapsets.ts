/**
 * Tapset library / start-up benchmark (issue 7): end-to-end `stap -e 'probe syscall.read { n++ }
 * probe timer.s(1) { exit() }'` wall time against `node -e 0` (9 pairs run alternately, median
 * of the pairwise ratios; goal <= 2x), its `stap -v` pass 2 and pass 5 times, and the
 * elaboration time (-p2) of `probe syscall.* {}` (every syscall alias read from the tapset
 * cache): the whole command's wall time and the pass 1 and pass 2 times `stap -v` reports.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const cli = path.join(root, 'dist', 'src', 'cli', 'main.js');

function wall(args: string[]): number {
  const t0 = process.hrtime.bigint();
  spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** The real-ms figure of `Pass N: ... in Uusr/Ssys/Rreal ms.` in `stap -v` output (`cpu`: U + S instead). */
function passMs(args: string[], pass: number, cpu = false): number {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const m = new RegExp(`Pass ${pass}: .* in (\\d+)usr/(\\d+)sys/(\\d+)real ms`).exec(r.stderr ?? '');
  return m ? (cpu ? Number(m[1]) + Number(m[2]) : Number(m[3])) : NaN;
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchTapsets(): Promise<Record<string, string | number>> {
  const runs = 9;
  const stap: number[] = [];
  const node: number[] = [];
  const ratios: number[] = [];
  const script = 'probe syscall.read { n++ } probe timer.s(1) { exit() }';
  wall([cli, '-e', script]); // warm the caches
  wall(['-e', '0']);
  for (let i = 0; i < runs; i++) {
    const a = wall([cli, '-e', script]);
    const b = wall(['-e', '0']);
    stap.push(a);
    node.push(b);
    ratios.push(a / b);
  }
  const v2: number[] = [];
  const v5: number[] = [];
  for (let i = 0; i < 3; i++) {
    v2.push(passMs([cli, '-v', '-e', script], 2));
    v5.push(passMs([cli, '-v', '-e', script], 5));
  }
  const elab: number[] = [];
  const p1: number[] = [];
  const p2: number[] = [];
  const p2cpu: number[] = [];
  const all = [cli, '-v', '-p2', '-e', 'probe syscall.* {}'];
  for (let i = 0; i < 5; i++) {
    elab.push(wall([cli, '-p2', '-e', 'probe syscall.* {}']));
    p1.push(passMs(all, 1));
    p2.push(passMs(all, 2));
    p2cpu.push(passMs(all, 2, true));
  }
  return {
    'syscall.read e2e ms (median)': Math.round(median(stap)),
    'node -e 0 ms (median)': Math.round(median(node)),
    'ratio (median of 9 pairs)': Number(median(ratios).toFixed(2)),
    'syscall.read pass 2 ms (median)': median(v2),
    'syscall.read pass 5 ms (median)': median(v5),
    'syscall.* -p2 ms (median)': Math.round(median(elab)),
    'syscall.* pass 1 ms (median)': median(p1),
    'syscall.* pass 2 ms (median)': median(p2),
    'syscall.* pass 2 CPU ms, usr+sys (median)': median(p2cpu),
  };
}

if (require.main === module) {
  benchTapsets().then((r) => console.log(r));
}
