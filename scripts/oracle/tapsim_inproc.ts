/**
 * Run the `stap` command of this project in-process (the same parseArgs + runPasses that
 * src/cli/stap.ts runs), capturing stdout, stderr and the exit status.  Oracle tables replay
 * thousands of cases; a process per case would cost a Node start-up each.
 */
import { parseArgs, UsageError } from '../../src/cli/options';
import { runPasses } from '../../src/cli/passes';

export interface RunResult {
  exit: number;
  out: string;
  err: string;
}

export async function runTapsim(args: string[]): Promise<RunResult> {
  let out = '';
  let err = '';
  const io = { out: (s: string) => { out += s; }, err: (s: string) => { err += s; } };
  let exit: number;
  try {
    const opts = parseArgs(args);
    if (opts === 'help' || opts === 'version') exit = 0;
    else exit = await runPasses(opts, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(e.message + '\n');
    if (e.hint) {
      io.err("Try '--help' for more information. [man stap]\n");
      io.err('A message like [man foo] means for more info, run % man foo\n');
    }
    exit = e.exitCode;
  }
  return { exit, out, err };
}
