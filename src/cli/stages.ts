/**
 * Passes 2 to 5 of one `stap` invocation, and the listing modes (-l, -L, --dump-*).
 */
import type * as A from '../ast';
import { Diagnostics, PassFailed } from '../diag';
import { elaborate, printProgram, dumpProbeTypes, dumpProbeAliases, dumpFunctions, listProbes, TapsetLibrary } from '../elaborate';
import type { ElabOptions } from '../elaborate';
import { translate, limitDefineErrors } from '../translate';
import { Engine, RunOptions } from '../runtime/engine';
import { installKernelProbes, kernelFamilies } from '../probes/setup';
import type { StapOptions } from './options';
import type { Output, PassTimer } from './output';
import { stdoutIsTty } from './stdio';
import { moduleName, moduleFile } from '../runtime/module';
import { cacheDir } from '../cachedir';
import { daemonizes, startDaemon } from './flight';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface Later {
  opts: StapOptions;
  io: Output;
  diag: Diagnostics;
  timer: PassTimer;
  files: A.StapFile[];
  usedArgs: Set<number>;
  listing: boolean;
  library: TapsetLibrary;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function semanticFailure(l: Later, pass: number): number {
  const what = pass === 2 ? 'analysis' : pass === 3 ? 'translation' : 'compilation';
  l.io.err(`Pass ${pass}: ${what} failed.  [man error::pass${pass}]\n`);
  return 1;
}

/**
 * Simulated time is the only clock.  A run that ends by itself (-T, the -c command's exit, or
 * exit() somewhere in the script) goes as fast as the simulation can; one that only a signal
 * ends follows the wall clock, so Ctrl-C after 3 s has seen 3 simulated seconds.
 * --realtime / --no-realtime choose explicitly.
 */
function paced(opts: StapOptions, callsExit: boolean): boolean {
  if (opts.realtime !== undefined) return opts.realtime;
  return opts.timeoutSec === undefined && opts.command === undefined && !callsExit;
}

/** The options that change what a script compiles to (part of the module's hash, as in stap). */
function buildOptionsKey(opts: StapOptions): string {
  return JSON.stringify([[...opts.defines].sort(), opts.guru, opts.compatible ?? '', opts.privilege, opts.unoptimized,
    opts.timing, opts.skipBadvars, opts.suppressHandlerErrors]);
}

/** Write the module file (owner-only, replacing what is there); an error message or ''. */
function writeModule(file: string, source: string): string {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'wx', 0o600); // (a new file: nothing planted there is followed)
    try {
      fs.writeFileSync(fd, source);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    return '';
  } catch (e) {
    return `ERROR: Copying module to '${file}' failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

const KERNEL_FAMILIES = new Set(['kernel.function', 'kprobe', 'kernel.trace', 'perf', 'procfs', 'process']);

export async function stage2(l: Later): Promise<number> {
  const { opts, io, diag, timer } = l;
  installKernelProbes();
  const elabOpts: ElabOptions = {
    guru: opts.guru, unoptimized: opts.unoptimized, args: opts.args, usedArgs: l.usedArgs, library: l.library,
    verbose: opts.verbose, listing: l.listing, compatible: opts.compatible, privilege: opts.privilege,
    target: { command: opts.command, pid: opts.targetPid }, skipBadvars: opts.skipBadvars,
  };

  if (l.listing) {
    let text = '';
    if (opts.dumpProbeTypes) text = dumpProbeTypes();
    else if (opts.dumpProbeAliases) text = dumpProbeAliases(l.library, l.files, opts.verbose);
    else if (opts.dumpFunctions) text = dumpFunctions(l.library, l.files, elabOpts, diag, opts.verbose);
    else {
      const pattern = (opts.listProbes ?? opts.listProbesVars)!;
      // stap parses `probe PATTERN {}` and lists what it resolves to
      const { parseFile } = await import('../parse');
      const quiet = new Diagnostics({ verbose: opts.verbose, suppressWarnings: true }, opts.verbose >= 2 ? io.err : () => undefined);
      // (a pattern that does not parse, `timer.s()`, is reported as stap does: the parse
      // errors and their count, no pass failure line; real-stap -l)
      const pd = new Diagnostics({ verbose: opts.verbose, suppressWarnings: true }, io.err);
      const f = parseFile({ name: '<input>', text: `probe ${pattern} {}`, isTapset: false },
        { args: opts.args, guru: opts.guru, libraryMacros: l.library.macros() as never }, pd);
      if (!f) {
        if (pd.errorCount > 0) io.err(`${pd.errorCount} parse error${pd.errorCount === 1 ? '' : 's'}.\n`);
        return 1;
      }
      const lines = listProbes([f, ...l.files], elabOpts, quiet, opts.listProbesVars !== undefined);
      io.out(lines.map((s) => s + '\n').join(''));
      return lines.length > 0 ? 0 : 1;
    }
    io.out(text);
    return 0;
  }

  const pv = opts.passVerbose;
  if (pv[0] > 0) {
    io.err(`Pass 1: parsed user script and ${plural(l.library.allFiles().length, 'library script')} ${timer.usage()}, ${timer.times()}\n`);
  }
  timer.reset();
  const program = elaborate(l.files, elabOpts, diag);
  if (!program && diag.fatal !== undefined) {
    io.err(diag.fatal + '\n');
    return 1;
  }
  if (!program || (opts.warningsAreErrors && diag.warningCount > 0)) return semanticFailure(l, 2);
  if (opts.pass === 2) io.out(printProgram(program, { globalDisplay: !opts.noGlobalVarDisplay }));
  if (pv[1] > 0) {
    io.err(`Pass 2: analyzed script: ${plural(program.probes.length, 'probe')}, ${plural(program.functions.length, 'function')}, ` +
      `${plural(program.embeds.length, 'embed')}, ${plural(program.globals.length, 'global')} ${timer.usage()}, ${timer.times()}\n`);
  }
  if (opts.pass === 2) return 0;

  // ---- pass 3
  if (pv[1] > 1) {
    // begin/end/error handlers on the same point run as one combined handler (see the engine)
    const groups = new Map<string, number>();
    for (const p of program.probes) {
      if (['begin', 'end', 'error'].includes(p.point.family)) groups.set(p.point.pp, (groups.get(p.point.pp) ?? 0) + 1);
    }
    for (const [pp, n] of groups) if (n > 1) io.err(`Combining ${n} probe handlers for probe point: ${pp}\n`);
  }
  timer.reset();
  let translated;
  try {
    // --skip-badvars compiles the module with -DSTP_SKIP_BADVARS (read by @const)
    const defines = new Map(opts.defines);
    if (opts.skipBadvars && !defines.has('STP_SKIP_BADVARS')) defines.set('STP_SKIP_BADVARS', '1');
    if (opts.suppressTimeLimits) {
      // STAP_SUPPRESS_TIME_LIMITS_ENABLE: the runtime lifts MAXACTION (LONG_MAX)
      defines.set('MAXACTION', String(Number.MAX_SAFE_INTEGER));
      defines.set('MAXACTION_INTERRUPTIBLE', String(Number.MAX_SAFE_INTEGER));
    }
    translated = translate(program, { diag, defines, compatible: opts.compatible });
  } catch (e) {
    if (e instanceof PassFailed) return semanticFailure(l, 3);
    throw e;
  }
  if (opts.pass === 3) io.out(translated.source);
  if (pv[2] > 0) io.err(`Pass 3: translated to JavaScript ${timer.usage()}, ${timer.times()}\n`);
  if (opts.pass === 3) return 0;
  // stap pastes -D values into the module's C source: a limit that is not an integer constant
  // fails to compile (pass 4), though -p3 shows the translation
  const bad = limitDefineErrors(opts.defines);
  if (bad.length) {
    for (const d of bad) io.err(`ERROR: -D ${d}: not an integer constant (the module's C code would not compile)\n`);
    return semanticFailure(l, 4);
  }

  // ---- pass 4: the module file (the generated JavaScript) under its stap-style name
  timer.reset();
  const name = opts.moduleName ?? moduleName(translated.source, buildOptionsKey(opts));
  let file = `${name}.ko`;
  if (opts.pass === 4 || opts.moduleName !== undefined) {
    // (in the checked cache directory; without one, in a private temporary directory as stap
    // leaves a module it could not copy into its cache)
    file = moduleFile(name, opts.moduleName !== undefined, cacheDir() ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stap')));
    const err = writeModule(file, translated.source);
    if (err) {
      io.err(`${err}\n`);
      return semanticFailure(l, 4);
    }
  }
  if (pv[3] > 0) io.err(`Pass 4: compiled C into "${path.basename(file)}" in ${timer.times().replace(/^in /, '')}\n`);
  if (opts.pass === 4) {
    io.out(file + '\n');
    return 0;
  }

  // ---- pass 5
  timer.reset();
  if (pv[4] > 0) io.err('Pass 5: starting run.\n');
  // -F -o: stapio goes to the background and shows its pid
  if (!io.guest && daemonizes(opts)) {
    const d = startDaemon();
    if ('error' in d) {
      io.err(`ERROR: ${d.error}\n`);
      return finishPass5(l, 1);
    }
    io.out(`${d.pid}\n`);
    return finishPass5(l, 0);
  }
  const runOpts: RunOptions = {
    stdout: io.out, stderr: io.err, outputFile: opts.outputFile, outputRotation: opts.outputRotation, defines: opts.defines,
    globalsSet: [...opts.globalsSet.entries()], timeoutSec: opts.timeoutSec, seed: opts.seed, timing: opts.timing,
    noGlobalVarDisplay: opts.noGlobalVarDisplay,
    // asked only for -t's report (isatty loads the tty and net modules: a few ms)
    get stdoutIsTty() { return stdoutIsTty(); },
    suppressHandlerErrors: opts.suppressHandlerErrors, verbose: opts.verbose, targetPid: opts.targetPid, ncpus: opts.cpus,
    families: kernelFamilies(),
    pace: paced(opts, program.functions.some((f) => f.name === 'exit')),
    moduleName: name,
    // inside the machine the stap process takes its signals (src/cli/stap_program.ts)
    handleSignals: io.guest === undefined,
    stapio: io.guest?.stapio,
  };
  const engine = new Engine(translated, runOpts);
  if (io.guest) return finishPass5(l, await io.guest.run(engine));
  // (also when the script's procfs files or system() commands need its /proc and shell, or it reads
  // kernel memory: @var, @cast)
  if (opts.command !== undefined || opts.targetPid !== undefined || translated.probes.some((p) => KERNEL_FAMILIES.has(p.family))
    || program.functions.some((f) => f.name === 'system') || translated.readsKernel) {
    // The simulated machine runs alongside the session (src/probes/machine_glue.ts): its kernel
    // function calls and tracepoints reach the script's probes; -c runs CMD in its shell.
    const { Machine } = await import('../machine/machine');
    const glue = await import('../probes/machine_glue');
    const m = new Machine({ cpus: opts.cpus, seed: opts.seed });
    glue.connectMachine(m);
    // input.char / input.line (procfs "__stdin" write probes): stapio copies our stdin there
    const input = translated.probes.some((p) => p.family === 'procfs' && p.data.path === '__stdin' && p.data.kind === 'write');
    const stdin = input && opts.scriptFile !== '-' ? (await import('../probes/stapio')).hostStdinFeed() : undefined;
    glue.driveMachine(engine, m, { command: opts.command, targetPid: opts.targetPid, out: io.out, err: io.err, stdin, argv: io.argv });
  }
  return finishPass5(l, await engine.run());
}

function finishPass5(l: Later, status: number): number {
  if (l.opts.passVerbose[4] > 0) l.io.err(`Pass 5: run completed ${l.timer.times()}\n`);
  if (status !== 0) {
    l.io.err('Pass 5: run failed.  [man error::pass5]\n');
    return 1;
  }
  return 0;
}
