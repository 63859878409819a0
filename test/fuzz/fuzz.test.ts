/**
 * Continuous fuzzing in `npm test`: for a bounded time (FUZZ_SECONDS, default 8) generated and
 * mutated scripts go through `stap` (every pass, pass 5 on the simulated machine with -T, some as
 * child processes of the built command); none may print a JavaScript stack trace or an internal
 * fault, exit with a status other than 0 or 1, hang, exhaust memory or write outside the cache,
 * the sandbox and -o.  The seed changes from run to run (FUZZ_SEED fixes it); a failure is
 * shrunk by fast-check and reported with its seed and command line.  `npm run fuzz` runs long
 * campaigns (test/fuzz/run.ts).
 */
import * as fc from 'fast-check';
import { Campaign, cases, describe as show } from './campaign';

describe('fuzz: generated and mutated scripts through every pass', function () {
  this.timeout(600000);
  let camp: Campaign;
  before(() => {
    camp = new Campaign(2);
  });
  after(async () => {
    await camp.close();
  });

  it('no stack trace, internal fault, other exit status, hang, memory blow-up or host write', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1e9);
    const budget = Number(process.env.FUZZ_SECONDS ?? 8) * 1000;
    let n = 0;
    await fc.assert(fc.asyncProperty(cases(50), async (c) => {
      n++;
      const j = await camp.run(c);
      if (j.problems.length) {
        throw new Error(`${j.problems.join(', ')} (exit ${j.code})\n${show(c)}\n--- script (latin1) ---\n${c.text.slice(0, 3000)}`);
      }
    }), { seed, numRuns: 1e9, interruptAfterTimeLimit: budget, markInterruptAsFailure: false, endOnFailure: false });
    process.stdout.write(`      (${n} scripts, seed ${seed})\n`);
  });
});
