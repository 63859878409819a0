#!/usr/bin/env node
/** The `tapsim` command's entry point (src/cli/tapsim.ts). */
import { runTapsim } from './tapsim';

runTapsim();
