/**
 * The `stap` command: parse options, run the passes (src/cli/passes.ts), report in SystemTap's
 * format.  Started by src/cli/main.ts (through the bundled, code-cached copy when the build made one).  User errors end with stap's messages and exit status 1; anything unexpected is
 * reported as an internal fault with .ts locations: source-map-support is installed when the
 * fault is caught, before its stack is first read (V8 formats stacks lazily), so normal runs
 * don't pay for loading it.
 */
import { parseArgs, helpText, UsageError, VERSION_TEXT } from './options';
import { runPasses, Output } from './passes';

function makeOutput(): Output {
  return {
    out: (s: string) => { process.stdout.write(Buffer.from(s, 'latin1')); },
    err: (s: string) => { process.stderr.write(Buffer.from(s, 'latin1')); },
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
  return runPasses(opts, io);
}

function flushThenExit(code: number): void {
  // Let stdout/stderr drain (pipes are asynchronous) before exiting.
  let pending = 2;
  const done = () => { if (--pending === 0) process.exit(code); };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/** Runs the command on process.argv and exits with stap's status. */
export function runCli(): void {
  // A reader that goes away (`stap ... | head`) ends the run as SIGPIPE ends any Unix tool.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(141);
      throw e;
    });
  }
  main().then(flushThenExit, (e: unknown) => {
    require('source-map-support').install();
    const err = e instanceof Error ? e : new Error(String(e));
    process.stderr.write(`tapsim: internal error (this is a bug in tapsim, not in your script): ${err.message}\n${err.stack ?? ''}\n`);
    flushThenExit(70);
  });
}
