/**
 * `stap -i [SCRIPT]`: the interactive mode (src/repl), on the default simulated system.
 *
 * On a terminal: Node's readline with prompt `stap> ` (continuation `stap>>> ` while braces,
 * parentheses or strings are open, or a probe/function has no body yet), TAB completion,
 * history in ~/.tapsim_history, colours (unless NO_COLOR is set).  Ctrl-C at the prompt drops
 * the line being typed; during a run it stops the run (end probes run, globals are printed) and
 * the prompt returns; Ctrl-D (EOF) leaves.
 *
 * Not on a terminal (a script piped in): the input runs line by line and the output is the
 * transcript a person would see at a terminal: each prompt followed by the input line, then
 * whatever it printed.  No colours, no history file.  EOF leaves (exit status 0).
 */
import * as readline from 'readline';
import { toBinary } from '../runtime/strings';
import type { StapOptions } from './options';
import type { Output } from './output';
import { installKernelProbes } from '../probes/setup';
import { Repl, ReplIO } from '../repl/commands';
import { installStap } from './stap_program';
import { guestPipeline } from './guest';
import { History } from '../repl/history';
import { isComplete } from '../repl/scan';

export const PROMPT = 'stap> ';
export const CONTINUATION = 'stap>>> ';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

function colourErrors(s: string): string {
  return s.replace(/^(parse error|semantic error|ERROR|Pass \d: [a-z]+ failed)/gm, `${RED}$1${RESET}`).replace(/^(WARNING)/gm, `${YELLOW}$1${RESET}`);
}

/** Lines from a readline interface as an async queue. */
class Lines {
  private queue: string[] = [];
  private waiting: ((l: string | null) => void) | null = null;
  closed = false;

  push(l: string): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(l);
    } else this.queue.push(l);
  }

  close(): void {
    this.closed = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(null);
    }
  }

  /** Drop what was typed ahead (Ctrl-C). */
  clear(): void {
    this.queue = [];
  }

  next(): Promise<string | null> {
    if (this.queue.length) return Promise.resolve(this.queue.shift()!);
    if (this.closed) return Promise.resolve(null);
    return new Promise((r) => (this.waiting = r));
  }
}

export async function runInteractive(opts: StapOptions, io: Output): Promise<number> {
  installKernelProbes();
  const stdin = process.stdin;
  const tty = !!stdin.isTTY && !!process.stdout.isTTY;
  const colour = tty && !process.env.NO_COLOR;
  const history = tty ? new History() : null;

  const replIO: ReplIO = {
    out: io.out,
    err: colour ? (s) => io.err(colourErrors(s)) : io.err,
    tty,
    note: colour ? (s) => DIM + s + RESET : (s) => s,
    // stap is a program inside the REPL's machine too (`sh stap -e ... &`)
    setupMachine: (m) => installStap(m, () => guestPipeline),
  };
  const repl = new Repl(opts, replIO);
  io.out(repl.banner());

  // the script given on the command line starts the session
  if (opts.scriptFile !== undefined && opts.scriptFile !== '-') {
    const r = repl.session.load(opts.scriptFile, replIO.err);
    if (r && r.ok) io.out(replIO.note(`(loaded ${opts.scriptFile}: ${repl.session.items.length} item${repl.session.items.length === 1 ? '' : 's'})\n`));
  } else if (opts.scriptText !== undefined) {
    repl.session.add(opts.scriptText, '<input>', replIO.err);
  }
  repl.warm();

  const lines = new Lines();
  const rl = readline.createInterface({
    input: stdin,
    output: tty ? process.stdout : undefined,
    terminal: tty,
    completer: tty ? (line: string): [string[], string] => {
      try {
        return repl.completer.complete(line);
      } catch {
        return [[], line];
      }
    } : undefined,
    history: history ? history.forReadline() : [],
    historySize: 1000,
    removeHistoryDuplicates: true,
    tabSize: 4,
  });
  // (a line is the bytes typed: UTF-8 text becomes a byte string, as script files are read)
  rl.on('line', (l) => lines.push(toBinary(l)));
  rl.on('close', () => lines.close());

  let buffer: string | null = null;
  const prompt = (): void => {
    const p = buffer === null ? PROMPT : CONTINUATION;
    if (tty) {
      rl.setPrompt(colour ? BOLD + p + RESET : p);
      rl.prompt();
    }
  };

  // Ctrl-C at the prompt (terminal, raw mode): drop the line/continuation being typed
  rl.on('SIGINT', () => {
    rl.write(null, { ctrl: true, name: 'e' });
    rl.write(null, { ctrl: true, name: 'u' });
    io.out('^C\n');
    buffer = null;
    lines.clear();
    prompt();
  });
  // Ctrl-C during a run (the terminal is in cooked mode then) or a SIGINT sent to a piped session
  const onSigint = (): void => {
    if (repl.sys.interrupt()) {
      if (tty) io.out('\n'); // after the terminal's ^C echo; end probes print next
      return;
    }
    if (!tty) {
      repl.quit = true;
      lines.close();
    }
  };
  process.on('SIGINT', onSigint);

  /** Give the terminal back for a run/edit: cooked mode, so Ctrl-C is a signal. */
  const suspend = (): void => {
    if (!tty) return;
    rl.pause();
    stdin.setRawMode(false);
  };
  const resume = (): void => {
    if (!tty) return;
    stdin.setRawMode(true);
    rl.resume();
  };
  replIO.suspend = suspend;
  replIO.resume = resume;

  try {
    while (!repl.quit) {
      prompt();
      const line = await lines.next();
      if (line === null) {
        if (buffer !== null) {
          // EOF inside an unfinished input: let the passes say what is wrong
          const text: string = buffer;
          buffer = null;
          await repl.handle(text);
        }
        if (tty) io.out('\n');
        break;
      }
      if (!tty) io.out((buffer === null ? PROMPT : CONTINUATION) + line + '\n');
      buffer = buffer === null ? line : buffer + '\n' + line;
      if (!isComplete(buffer)) continue;
      const text: string = buffer;
      buffer = null;
      history?.add(text);
      suspend();
      try {
        await repl.handle(text);
      } finally {
        resume();
      }
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    rl.close();
  }
  return 0;
}
