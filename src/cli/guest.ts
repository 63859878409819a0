/**
 * What `stap` run as a program inside the simulated machine (src/cli/stap_program.ts) takes from
 * the stap pipeline: its options, its passes and the probe layer's view of the machine.  It is
 * handed to installStap explicitly, so that `tapsim shell` loads the pipeline (its own bundle,
 * src/cli/launch.ts) only when stap first runs inside it; the REPL, which has the pipeline
 * loaded already, hands over this same object.
 */
import { parseArgs, helpText, UsageError, VERSION_TEXT } from './options';
import { runPasses } from './passes';
import { taskInfo } from '../probes/hit';
import { connectMachine } from '../probes/machine_glue';

export const guestPipeline = { parseArgs, helpText, UsageError, VERSION_TEXT, runPasses, taskInfo, connectMachine };
export type GuestPipeline = typeof guestPipeline;
