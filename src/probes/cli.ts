#!/usr/bin/env node
/**
 * Stop-gap `stap` entry with the kernel probe layer wired in, until src/cli/stages.ts calls
 * installKernelProbes() and passes kernelFamilies() to runProgram (see src/probes/setup.ts).
 * Same behaviour as dist/src/cli/main.js otherwise.
 */
import { installKernelProbes, kernelFamilies } from './setup';
import { Engine, RunOptions } from '../runtime/engine';

installKernelProbes();
const run = Engine.prototype.run;
Engine.prototype.run = function (this: Engine): Promise<number> {
  const opts = (this as unknown as { opts: RunOptions }).opts;
  if (!opts.families || !opts.families.some((f) => f.family === 'kernel.function')) {
    opts.families = [...(opts.families ?? []), ...kernelFamilies()];
  }
  return run.call(this);
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('../cli/main');
