#!/usr/bin/env node
/**
 * The `stap` command's entry point: loads the command (src/cli/stap.ts, through the bundled and
 * code-cached pipeline when the build made one: src/cli/launch.ts) and runs it on process.argv.
 */
import { growYoungGenerationFast, loadPipeline } from './launch';

growYoungGenerationFast();
loadPipeline().runCli();
