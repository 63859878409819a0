/**
 * Tapset library benchmark (issue 7): end-to-end `stap -e 'probe syscall.read { n++ } probe
 * timer.s(1) { exit() }'` wall time against `node -e 0` (measured alternately, median ratio),
 * and the elaboration time (-p2) of `probe syscall.* {}`.
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

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchTapsets(): Promise<Record<string, string | number>> {
  const runs = 5;
  const stap: number[] = [];
  const node: number[] = [];
  const ratios: number[] = [];
  const script = 'global n; probe syscall.read { n++ } probe timer.s(1) { exit() }';
  wall([cli, '-p2', '-e', script]); // warm the tapset cache
  for (let i = 0; i < runs; i++) {
    const a = wall([cli, '-e', script]);
    const b = wall(['-e', '0']);
    stap.push(a);
    node.push(b);
    ratios.push(a / b);
  }
  const elab: number[] = [];
  for (let i = 0; i < 3; i++) elab.push(wall([cli, '-p2', '-e', 'probe syscall.* {}']));
  return {
    'syscall.read e2e ms (median)': Math.round(median(stap)),
    'node -e 0 ms (median)': Math.round(median(node)),
    'ratio (median)': Number(median(ratios).toFixed(2)),
    'syscall.* -p2 ms (median)': Math.round(median(elab)),
  };
}

if (require.main === module) {
  benchTapsets().then((r) => console.log(r));
}
