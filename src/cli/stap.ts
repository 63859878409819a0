/**
 * The `stap` command: parse options, run the passes (src/cli/passes.ts), report in SystemTap's
 * format.  Started by src/cli/main.ts (through the bundled, code-cached copy when the build made one).  User errors end with stap's messages and exit status 1; anything unexpected is
 * reported as an internal fault with .ts locations: source-map-support is installed when the
 * fault is caught, before its stack is first read (V8 formats stacks lazily), so normal runs
 * don't pay for loading it.
 */
import { parseArgs, helpText, UsageError, VERSION_TEXT } from './options';
import { runPasses, isListing } from './passes';
import type { Output } from './output';
import { stdout, stderr, flushThenExit } from './stdio';
import { closeFunctionConstructors } from '../runtime/sandbox';

function makeOutput(): Output {
  return {
    out: (s: string) => { stdout.write(Buffer.from(s, 'latin1')); },
    err: (s: string) => { stderr.write(Buffer.from(s, 'latin1')); },
    argv: process.argv.slice(2),
  };
}

async function main(): Promise<number> {
  const io = makeOutput();
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(e.message + '\n');
      if (e.hint) {
        io.err("Try '--help' for more information. [man stap]\n");
        io.err('A message like [man foo] means for more info, run % man foo\n');
      }
      return e.exitCode;
    }
    throw e;
  }
  if (opts === 'help') {
    io.err(helpText());
    return 0;
  }
  if (opts === 'version') {
    io.err(VERSION_TEXT);
    return 0;
  }
  // -i: the interactive mode (src/repl), starting from the script if one is given (the REPL runs
  // the passes itself, and the stap program inside its machine runs them too: it is started here,
  // above the passes, so that src/cli/passes.ts never imports it)
  if (opts.interactive && !isListing(opts)) return (await import('./interactive')).runInteractive(opts, io);
  return runPasses(opts, io);
}

/** Runs the command on process.argv and exits with stap's status. */
export function runCli(): void {
  // (nothing in the command makes code from strings: closed before any script is translated)
  closeFunctionConstructors();
  // Output goes to fds 1 and 2 directly (src/cli/stdio.ts: a reader that goes away ends the
  // run with SIGPIPE's status).
  main().then(flushThenExit, (e: unknown) => {
    require('source-map-support').install();
    const err = e instanceof Error ? e : new Error(String(e));
    stderr.write(Buffer.from(`tapsim: internal error (this is a bug in tapsim, not in your script): ${err.message}\n${err.stack ?? ''}\n`));
    flushThenExit(70);
  });
}
