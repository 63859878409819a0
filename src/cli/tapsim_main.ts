#!/usr/bin/env node
/**
 * The `tapsim` command's entry point: loads src/cli/tapsim.ts through its bundled and code-cached
 * copy when the build made one (dist/src/cli/tapsim.bundle.js, src/cli/launch.ts) and runs it.
 */
import { growYoungGenerationFast, loadBundled } from './launch';

growYoungGenerationFast();
loadBundled<typeof import('./tapsim')>('tapsim', 'tapsim-bundle-', () => require('./tapsim') as typeof import('./tapsim')).runTapsim();
