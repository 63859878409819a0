/**
 * Runs stap's passes for one invocation: 1 parse (src/parse), 2 elaborate (src/elaborate),
 * 3 translate to JavaScript (src/translate), 5 run on the simulated machine (src/runtime/engine).
 * Pass 4 (compiling a kernel module) has no counterpart: `-p4` stops after translation.
 * Prints `-p1`/`-p2`/`-p3` dumps, `-v` pass lines and the `Pass N: ... failed` lines.
 */
import * as fs from 'fs';
import type * as A from '../ast';
import { Diagnostics } from '../diag';
import { printFile } from '../parse/print';
import type { StapOptions } from './options';
import { stage2, Later } from './stages';
import { Output, PassTimer } from './output';
import { TapsetLibrary, stdlibDir } from '../elaborate';
import { toBinary } from '../runtime/strings';

function readStdin(): string {
  try {
    return fs.readFileSync(0, 'latin1');
  } catch {
    return '';
  }
}

/** The user's script files in order: main script (-e, FILE or -), then -E scripts. */
function loadUserSources(opts: StapOptions, io: Output): A.SourceFile[] | null {
  const files: A.SourceFile[] = [];
  if (opts.scriptText !== undefined) files.push({ name: '<input>', text: opts.scriptText, isTapset: false });
  else if (opts.scriptFile !== undefined) {
    if (io.guest) {
      // inside the machine: the file (or stdin) as the stap process read it
      const text = io.guest.readFile(opts.scriptFile);
      if (text === 'missing' || text === 'directory') {
        io.err(text === 'missing' ? `Input file '${opts.scriptFile}' is missing.\n` : `Input file '${opts.scriptFile}' is a directory.\n`);
        return null;
      }
      files.push({ name: opts.scriptFile === '-' ? '<input>' : opts.scriptFile, text, isTapset: false });
    } else if (opts.scriptFile === '-') files.push({ name: '<input>', text: readStdin(), isTapset: false });
    else {
      let text: string;
      try {
        const st = fs.statSync(opts.scriptFile);
        if (st.isDirectory()) {
          io.err(`Input file '${toBinary(opts.scriptFile)}' is a directory.\n`);
          return null;
        }
        text = fs.readFileSync(opts.scriptFile, 'latin1');
      } catch {
        io.err(`Input file '${toBinary(opts.scriptFile)}' is missing.\n`);
        return null;
      }
      files.push({ name: toBinary(opts.scriptFile), text, isTapset: false }); // (a name shown as stap shows its bytes)
    }
  }
  opts.extraScripts.forEach((t, i) => files.push({ name: `<input${i + 1}>`, text: t, isTapset: false }));
  for (const f of files) {
    if (f.text.length === 0) {
      io.err(`Input file '${f.name}' is empty.\n`);
      return null;
    }
  }
  return files;
}

export async function runPasses(opts: StapOptions, io: Output): Promise<number> {
  const diag = new Diagnostics(
    { verbose: opts.verbose, suppressWarnings: opts.suppressWarnings, warningsAreErrors: opts.warningsAreErrors },
    io.err);
  // stap reports suppressed duplicate messages once, when the passes are over (after a
  // `Pass N: ... failed.` line)
  try {
    return await passes(opts, io, diag);
  } finally {
    diag.footer();
  }
}

/** -l/-L/--dump-*: list and exit (with -i too, as stap 4.8 does). */
export function isListing(opts: StapOptions): boolean {
  return opts.listProbes !== undefined || opts.listProbesVars !== undefined || opts.dumpProbeTypes
    || opts.dumpProbeAliases || opts.dumpFunctions;
}

async function passes(opts: StapOptions, io: Output, diag: Diagnostics): Promise<number> {
  const listing = isListing(opts);
  const timer = new PassTimer();

  // ---- pass 1
  let sources: A.SourceFile[] = [];
  if (!listing || opts.scriptText !== undefined || opts.scriptFile !== undefined) {
    if (opts.scriptText === undefined && opts.scriptFile === undefined && !listing) {
      io.err('A script must be specified.\n');
      io.err("Try '-i' for building a script interactively.\n");
      io.err("Try '--help' for more information. [man stap]\n");
      io.err('A message like [man foo] means for more info, run % man foo\n');
      return 1;
    }
    const loaded = loadUserSources(opts, io);
    if (!loaded) {
      io.err('Pass 1: parse failed.  [man error::pass1]\n');
      return 1;
    }
    sources = loaded;
  }
  const library = new TapsetLibrary({
    dirs: [stdlibDir(), ...opts.includeDirs],
    parse: { args: opts.args, guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege },
    diag,
    warn: io.err,
  });
  const libraryMacros = library.lazyMacros();
  const usedArgs = new Set<number>();
  const files: A.StapFile[] = [];
  for (const src of sources) {
    const errors0 = diag.errorCount;
    const failures0 = diag.failures;
    const f = library.parseUserFile(src, { args: opts.args, guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, runtime: opts.runtime, usedArgs,
      libraryMacros: libraryMacros as never }, diag);
    if (f) files.push(f);
    // stap counts the parse errors of each file after parsing it
    // (not after `Input file ... is empty after preprocessing`, which stap prints instead)
    const n = diag.errorCount - errors0;
    if (n > 0 && diag.failures === failures0) io.err(`${n} parse error${n === 1 ? '' : 's'}.\n`);
  }
  if (diag.errorCount > 0 || files.length < sources.length) {
    // (an exception out of stap's preprocessor ends the run with its text alone: real-stap -p2 -e
    // 'probe begin { println(%( 0x10 == 16 %? 1 %: 2 %)) }' prints only `bad lexical cast`)
    if (diag.aborted) return 1;
    io.err('Pass 1: parse failed.  [man error::pass1]\n');
    return 1;
  }
  const later: Later = { opts, io, diag, timer, files, usedArgs, listing, library };
  if (opts.pass === 1 && !listing) {
    io.out('# parse tree dump\n');
    for (const f of files) io.out(printFile(f));
    io.out('\n');
    if (opts.passVerbose[0] > 0) {
      const n = library.allFiles().length;
      io.err(`Pass 1: parsed user script and ${n} library script${n === 1 ? '' : 's'} ${timer.usage()}, ${timer.times()}\n`);
    }
    return 0;
  }
  return stage2(later);
}
