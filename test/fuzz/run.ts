/**
 * `npm run fuzz -- [--runs N] [--seed S] [--workers W] [--child-every K] [--out DIR]`: a long fuzz
 * campaign (campaign.ts), N scripts (default 100,000), then the numbers: scripts by origin and
 * pass, child-process runs, exit statuses, wall time by pass, and every problem found with its
 * reproducer saved in DIR (default <tmpdir>/tapsim-fuzz-failures).  Exit status 1 if anything
 * was found.  Cases stream through the pool without waiting for one another (a slow case holds
 * one worker, not the campaign); child processes run one at a time beside the pool.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as fc from 'fast-check';
import { Campaign, Case, cases, describe } from './campaign';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}

async function main(): Promise<number> {
  const runs = arg('--runs', 100000);
  const seed = arg('--seed', Date.now() % 1e9);
  const workers = arg('--workers', Math.max(1, Math.min(4, os.cpus().length)));
  const childEvery = arg('--child-every', 100);
  const oi = process.argv.indexOf('--out');
  const outDir = oi >= 0 ? process.argv[oi + 1] : path.join(os.tmpdir(), 'tapsim-fuzz-failures');
  fs.mkdirSync(outDir, { recursive: true });
  const camp = new Campaign(workers);
  const stats = {
    scripts: 0, generated: 0, mutated: 0, child: 0, byPass: {} as Record<string, number>, exits: {} as Record<string, number>,
    problems: {} as Record<string, number>, failures: 0, slowest: 0, msByPass: {} as Record<string, number>,
  };
  const t0 = Date.now();
  let lastReport = t0;
  const report = (final: boolean): void => {
    const secs = (Date.now() - t0) / 1000;
    const line = `${stats.scripts}/${runs} scripts in ${secs.toFixed(0)} s (${(stats.scripts / secs).toFixed(1)}/s): ` +
      `${stats.generated} generated, ${stats.mutated} mutated, ${stats.child} as child processes; passes ${JSON.stringify(stats.byPass)}; ` +
      `exit ${JSON.stringify(stats.exits)}; problems ${JSON.stringify(stats.problems)}; slowest ${stats.slowest} ms`;
    process.stderr.write(line + '\n');
    if (final) {
      const avg = Object.fromEntries(Object.entries(stats.msByPass).map(([p, ms]) => [p, Math.round(ms / stats.byPass[p])]));
      process.stderr.write(`mean wall ms per script by pass ${JSON.stringify(avg)}\n`);
    }
  };
  const one = async (c: Case): Promise<void> => {
    const j = await camp.run(c);
    stats.scripts++;
    stats[c.origin]++;
    if (c.child) stats.child++;
    const pass = String(c.inv.pass);
    stats.byPass[pass] = (stats.byPass[pass] ?? 0) + 1;
    stats.msByPass[pass] = (stats.msByPass[pass] ?? 0) + j.ms;
    stats.exits[String(j.code)] = (stats.exits[String(j.code)] ?? 0) + 1;
    stats.slowest = Math.max(stats.slowest, j.ms);
    for (const p of j.problems) {
      const kind = p.replace(/ \(.*$/, '');
      stats.problems[kind] = (stats.problems[kind] ?? 0) + 1;
    }
    if (j.problems.length) {
      const n = ++stats.failures;
      if (n <= 200) {
        const base = path.join(outDir, `case-${seed}-${n}`);
        fs.writeFileSync(base + '.stp', c.text, 'latin1');
        fs.writeFileSync(base + '.txt', `${j.problems.join('\n')}\nexit ${j.code}\n${describe(c)}\n`);
      }
    }
    if (Date.now() - lastReport > 30000) {
      lastReport = Date.now();
      report(false);
    }
  };
  // the cases, generated a batch at a time, handed out as lanes ask for them
  const BATCH = 200;
  let batch: Case[] = [];
  let b = 0;
  let handed = 0;
  const inproc: Case[] = [];
  const children: Case[] = [];
  const refill = (): void => {
    batch = fc.sample(cases(childEvery), { numRuns: Math.min(BATCH, runs - handed), seed: seed + b++ });
    handed += batch.length;
    for (const c of batch) (c.child ? children : inproc).push(c);
  };
  const next = (q: Case[]): Case | undefined => {
    while (!q.length && handed < runs) refill();
    return q.shift();
  };
  const lane = async (q: Case[]): Promise<void> => {
    for (let c = next(q); c; c = next(q)) await one(c);
  };
  // in-process lanes keep every worker busy (and one more queued); one lane of child processes
  await Promise.all([...Array.from({ length: workers * 2 }, () => lane(inproc)), lane(children)]);
  report(true);
  process.stderr.write(`seed ${seed}; reproducers of failures in ${outDir}\n`);
  await camp.close();
  return stats.failures ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  process.stderr.write(`fuzz: ${(e as Error).stack}\n`);
  process.exit(2);
});
