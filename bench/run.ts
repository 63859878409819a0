/**
 * `npm run bench`: every benchmark suite, each figure a ratio or rate measured within one run.
 *
 *   node dist/bench/run.js [suite ...]      suites: frontend tapsets runtime translate kernel machine tracefs probes repl
 *
 * Prints a Markdown table per suite; with --write, also rewrites bench/RESULTS.md.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

type Suite = () => Promise<Record<string, string | number>>;

const SUITES: Record<string, () => Suite | undefined> = {
  frontend: () => require('./frontend').benchFrontend,
  tapsets: () => require('./tapsets').benchTapsets,
  runtime: () => require('./runtime').benchRuntime,
  translate: () => require('./translate').benchTranslate,
  kernel: () => require('./kernel').benchKernel,
  machine: () => require('./machine').benchMachine,
  tracefs: () => require('./tracefs').benchTracefs,
  probes: () => optional('./probes', 'benchProbes'),
  repl: () => optional('./repl', 'benchRepl'),
};

function optional(mod: string, fn: string): Suite | undefined {
  try {
    return require(mod)[fn];
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const wanted = args.filter((a) => !a.startsWith('--'));
  const names = wanted.length ? wanted : Object.keys(SUITES);
  let md = `# Benchmark results\n\nMeasured with \`npm run bench\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), ` +
    `Node ${process.version}. Ratios are taken within one run; absolute times vary with machine load.\n`;
  for (const name of names) {
    const get = SUITES[name];
    if (!get) {
      process.stderr.write(`unknown suite '${name}' (known: ${Object.keys(SUITES).join(' ')})\n`);
      process.exitCode = 2;
      return;
    }
    const suite = get();
    if (!suite) continue;
    process.stderr.write(`running ${name}...\n`);
    const r = await suite();
    let t = `\n## ${name}\n\n| measure | result |\n| --- | --- |\n`;
    for (const [k, v] of Object.entries(r)) t += `| ${k} | ${v} |\n`;
    process.stdout.write(t);
    md += t;
  }
  if (write) fs.writeFileSync(path.join(__dirname, '..', '..', 'bench', 'RESULTS.md'), md);
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
  process.exitCode = 1;
});
