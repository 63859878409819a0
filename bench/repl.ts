/**
 * REPL latency: from Enter on a new declaration to the prompt coming back, measured in-process
 * over the same path a typed line takes after readline (Repl.handle: passes 1-3 over the whole
 * session, which is how a definition is checked and armed).  Target: <= 50 ms.
 */
import { parseArgs, StapOptions } from '../src/cli/options';
import { installKernelProbes } from '../src/probes/setup';
import { Repl } from '../src/repl/commands';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const round = (x: number): number => Math.round(x * 10) / 10;

export async function benchRepl(): Promise<Record<string, string | number>> {
  installKernelProbes();
  let errors = '';
  const repl = new Repl(parseArgs(['-i']) as StapOptions, { out: () => undefined, err: (s) => (errors += s), tty: false, note: (s) => s });
  const t0 = process.hrtime.bigint();
  repl.warm();
  const warmMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const time = async (input: string): Promise<number> => {
    const a = process.hrtime.bigint();
    await repl.handle(input);
    return Number(process.hrtime.bigint() - a) / 1e6;
  };
  await time('global n, reads');
  const probe: number[] = [];
  for (let i = 1; i <= 20; i++) {
    probe.push(await time(i % 2 ? `probe timer.ms(${i * 10}) { n++ }` : `probe kernel.function("vfs_read") { reads[execname(), ${i}]++ }`));
  }
  const evals: number[] = [];
  for (let i = 0; i < 10; i++) evals.push(await time(`n + ${i}`));
  const run1 = await time('run 1s');
  if (errors) throw new Error(`REPL bench: unexpected diagnostics:\n${errors}`);
  return {
    'warm-up before the first prompt, ms': Math.round(warmMs),
    'Enter on a new probe definition -> prompt, median ms (session growing to 22 items)': round(pct(probe, 50)),
    'Enter on a new probe definition -> prompt, p90 ms': round(pct(probe, 90)),
    'Enter on a new probe definition -> prompt, max ms': round(Math.max(...probe)),
    'expression evaluation (n + 1) -> prompt, median ms': round(pct(evals, 50)),
    '`run 1s` (20 probes, simulated machine) wall ms': Math.round(run1),
  };
}
