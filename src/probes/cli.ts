#!/usr/bin/env node
/**
 * Stop-gap `stap` entry with the kernel probe layer wired in, until src/cli/stages.ts calls
 * installKernelProbes() and passes kernelFamilies() to runProgram (see src/probes/setup.ts) and
 * the engine runs on the machine's clock.  Until then, when the script has kernel probes or
 * `-c`/`-x` is given, a simulated machine (default system + the -c command) runs alongside the
 * session (machine_glue.ts driveMachine).  Same behaviour as dist/src/cli/main.js otherwise.
 */
import { installKernelProbes, kernelFamilies } from './setup';
import { Engine, RunOptions } from '../runtime/engine';
import { parseArgs } from '../cli/options';

installKernelProbes();
const KERNEL_FAMILIES = new Set(['kernel.function', 'kprobe', 'kernel.trace', 'timer.profile']);
const run = Engine.prototype.run;
Engine.prototype.run = function (this: Engine): Promise<number> {
  const self = this as unknown as { opts: RunOptions; tr: { probes: { family: string }[] } };
  const opts = self.opts;
  if (!opts.families || !opts.families.some((f) => f.family === 'kernel.function')) {
    opts.families = [...(opts.families ?? []), ...kernelFamilies()];
  }
  let cmd: string | undefined;
  let xpid: number | undefined;
  try {
    const o = parseArgs(process.argv.slice(2));
    if (typeof o === 'object') {
      cmd = o.command;
      xpid = o.targetPid;
    }
  } catch {
    /* the CLI reported it already */
  }
  if (cmd !== undefined || xpid !== undefined || self.tr.probes.some((p) => KERNEL_FAMILIES.has(p.family))) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { Machine } = require('../machine/machine') as typeof import('../machine/machine');
    const glue = require('./machine_glue') as typeof import('./machine_glue');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const m = new Machine({ cpus: opts.ncpus ?? 2, seed: opts.seed ?? 1 });
    glue.connectMachine(m);
    glue.driveMachine(this, m, { command: cmd, targetPid: xpid, out: opts.stdout });
  }
  return run.call(this);
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('../cli/main');
