#!/usr/bin/env node
/**
 * The `tapsim` command's entry point: loads src/cli/tapsim.ts through its bundled and code-cached
 * copy when the build made one (dist/src/cli/tapsim.bundle.js, src/cli/launch.ts) and runs it;
 * the stap pipeline (its own bundle) is loaded when stap first runs inside the machine.
 */
import { delayOptimisingCompiler, growYoungGenerationFast, loadPipeline, loadShell } from './launch';

growYoungGenerationFast();
delayOptimisingCompiler();
loadShell().tapsim.runTapsim(() => loadPipeline().guestPipeline());
