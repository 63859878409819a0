/**
 * Tapset library benchmark (issue 7): end-to-end `stap -e 'probe syscall.read { n++ } probe
 * timer.s(1) { exit() }'` wall time against `node -e 0` (measured alternately, median ratio),
 * and the elaboration time (-p2) of `probe syscall.* {}`: the whole command's wall time and the
 * in-process pass 1 (script + tapsets through the cache) and pass 2 times `stap -v` reports.
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

/** The real-ms figure of `Pass N: ... in Uusr/Ssys/Rreal ms.` in `stap -v` output. */
function passMs(args: string[], pass: number): number {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const m = new RegExp(`Pass ${pass}: .* in \\d+usr/\\d+sys/(\\d+)real ms`).exec(r.stderr ?? '');
  return m ? Number(m[1]) : NaN;
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
  const p1: number[] = [];
  const p2: number[] = [];
  const all = [cli, '-v', '-p2', '-e', 'probe syscall.* {}'];
  for (let i = 0; i < 3; i++) {
    elab.push(wall([cli, '-p2', '-e', 'probe syscall.* {}']));
    p1.push(passMs(all, 1));
    p2.push(passMs(all, 2));
  }
  return {
    'syscall.read e2e ms (median)': Math.round(median(stap)),
    'node -e 0 ms (median)': Math.round(median(node)),
    'ratio (median)': Number(median(ratios).toFixed(2)),
    'syscall.* -p2 ms (median)': Math.round(median(elab)),
    'syscall.* pass 1 ms (median)': median(p1),
    'syscall.* pass 2 ms (median)': median(p2),
  };
}

if (require.main === module) {
  benchTapsets().then((r) => console.log(r));
}
