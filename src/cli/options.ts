/**
 * The `stap` command line (commander 14), with SystemTap's option names, defaults and messages.
 * Produces a StapOptions record; src/cli/main.ts runs the passes with it.
 */
import { compatibleError } from '../parse/version';
import { Command, CommanderError, Option } from 'commander';
import { toBinary } from '../runtime/strings';

export const VERSION_TEXT =
  'Systemtap translator/driver (version 4.8/0.188, tapsim 0.1.0)\n' +
  'Copyright (C) 2005-2022 Red Hat, Inc. and others\n' +
  'This is free software; see the source for copying conditions.\n' +
  'tested kernel versions: 2.6.32 ... 6.1.0-rc3\n' +
  'enabled features: TAPSIM\n';

export interface StapOptions {
  pass: number;
  verbose: number;
  /** Verbosity of passes 1..5 (`-v` raises all, `--vp ABCDE` each). */
  passVerbose: number[];
  scriptText?: string;          // -e
  extraScripts: string[];       // -E
  scriptFile?: string;          // FILE or '-'
  args: string[];
  includeDirs: string[];        // -I
  defines: Map<string, string>; // -D
  globalsSet: Map<string, string>; // -G
  guru: boolean;
  suppressWarnings: boolean;
  warningsAreErrors: boolean;
  unoptimized: boolean;
  timing: boolean;              // -t
  timeoutSec?: number;          // -T
  outputFile?: string;          // -o
  outputRotation?: { sizeMax: number; maxFiles: number };  // -S size[,N] (MB)
  command?: string;             // -c
  targetPid?: number;           // -x
  listProbes?: string;          // -l
  listProbesVars?: string;      // -L
  dumpProbeTypes: boolean;
  dumpProbeAliases: boolean;
  dumpFunctions: boolean;
  interactive: boolean;
  compatible?: string;
  privilege: string;
  runtime: string;
  noGlobalVarDisplay: boolean;
  suppressHandlerErrors: boolean;
  skipBadvars: boolean;
  /** --suppress-time-limits (guru): no MAXACTION limit */
  suppressTimeLimits?: boolean;
  keepTmpdir: boolean;
  /** -F: flight recorder mode (with -o, the session runs as a background daemon: src/cli/flight.ts) */
  flightRecorder: boolean;
  /** -m NAME: the module's name (also copied to NAME.ko in the current directory) */
  moduleName?: string;
  seed: number;
  cpus: number;
  /** --realtime (true) / --no-realtime (false): pace simulated time to the wall clock or not; undefined: decide (src/cli/stages.ts). */
  realtime?: boolean;
}

export class UsageError extends Error {
  constructor(message: string, public hint = true, public exitCode = 1) {
    super(message);
  }
}

const HELP_TEXT = `
Usage: stap [options] FILE                    Run script in file.
   or: stap [options] -                       Run script on stdin.
   or: stap [options] -e SCRIPT               Run given script.
   or: stap [options] -l PROBE                List matching probes.
   or: stap [options] -L PROBE                List matching probes and local variables.
   or: stap [options] --dump-probe-types      List available probe types.
   or: stap [options] --dump-probe-aliases    List available probe aliases.
   or: stap [options] --dump-functions        List available functions.

Options (on the command line):
   --         end of translator options, script options follow
   -h --help  show help
   -V --version
              show version
   -p NUM     stop after pass NUM 1-5, instead of 5
              (parse, elaborate, translate, compile, run)
   -v         add verbosity to all passes
   -k         keep temporary directory
   -u         unoptimized translation
   -w         suppress warnings
   -W         turn warnings into errors
   -g         guru mode
   -I DIR     look in DIR for additional .stp script files, in addition to
              the tapsim stdlib/
   -D NM=VAL  set a runtime limit (MAXACTION, MAXSTRINGLEN, MAXMAPENTRIES, ...)
   -G VAR=VAL set global variable to value
   -o FILE    send script output to file, instead of stdout. This supports
              strftime(3) formats for FILE
   -E SCRIPT  run the SCRIPT in addition to the main script specified
              through -e or a script file
   -c CMD     start the probes, run CMD in the simulated shell, and exit when it finishes
   -x PID     sets target() to PID
   -t         collect probe timing information
   -T TIME    terminate the script after TIME seconds (simulated time)
   -i --interactive
              interactive mode
   --compatible=VERSION
              suppress incompatible language/tapset changes beyond VERSION,
              instead of 4.8
   --privilege=PRIVILEGE_LEVEL
              check the script for constructs not allowed at the given privilege level
   --unprivileged
              equivalent to --privilege=stapusr
   --runtime=MODE
              set the pass-5 runtime mode, instead of kernel
   --suppress-handler-errors
              catch all runtime errors, quietly skip probe handlers
   --skip-badvars
              substitute zero for bad context $variables
   --no-global-var-display
              don't display unread global variables at the end of a run
   --seed=N   seed of the simulated machine (default 1): same seed, same output
   --cpus=N   number of simulated CPUs (default 4)
   --realtime pace simulated time to the wall clock (the default when only a
              signal ends the run: no -T, -c or exit())
   --no-realtime
              run simulated time as fast as possible (the default with -T, -c or exit())
`;

function collect(value: string, prev: string[]): string[] {
  return [...prev, value];
}

function countUp(_v: string, prev: number): number {
  return prev + 1;
}

/** Parse argv (without node and script path). Throws UsageError with stap's message texts. */
export function parseArgs(argv: string[]): StapOptions | 'help' | 'version' {
  const program = new Command('stap');
  program
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .helpOption(false)
    .allowExcessArguments(true)
    .argument('[script-and-args...]')
    .option('-h, --help')
    .option('-V, --version')
    .option('-p <num>')
    .option('-v', '', countUp, 0)
    .option('--vp <digits>')
    .option('-k')
    .option('-u')
    .option('-w')
    .option('-W')
    .option('-g')
    .option('-P')
    .option('-b')
    .option('-s <num>')
    .option('-I <dir>', '', collect, [])
    .option('-D <def>', '', collect, [])
    .option('-B <def>', '', collect, [])
    .option('-G <assign>', '', collect, [])
    .option('-R <dir>')
    .option('-r <release>')
    .option('-a <arch>')
    .option('-m <module>')
    .option('-o <file>')
    .option('-e <script>', '', collect, [])
    .option('-E <script>', '', collect, [])
    .option('-c <cmd>')
    .option('-x <pid>')
    .option('-F')
    .option('-S <size>')
    .option('-d <object>', '', collect, [])
    .option('-t')
    .option('-T <secs>')
    .option('-q')
    .option('-l <probe>')
    .option('-L <probe>')
    .option('-i, --interactive')
    .option('--dump-probe-types')
    .option('--dump-probe-aliases')
    .option('--dump-functions')
    .option('--ldd')
    .option('--all-modules')
    .option('--compatible <version>')
    .option('--check-version')
    .option('--privilege <level>', '', collect, [])
    .option('--unprivileged', '', countUp, 0)
    .option('--runtime <mode>')
    .option('--bpf')
    .option('--dyninst')
    .option('--suppress-handler-errors')
    .option('--skip-badvars')
    .option('--suppress-time-limits')
    .option('--no-global-var-display')
    .option('--modinfo <nm>', '', collect, [])
    .option('--seed <n>')
    .option('--cpus <n>')
    .option('--realtime')
    .option('--no-realtime')
    .addOption(new Option('--disable-cache').hideHelp())
    .addOption(new Option('--poison-cache').hideHelp())
    .addOption(new Option('--clean-cache').hideHelp());

  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      const m = /'([^']+)'/.exec(e.message);
      const opt = m ? m[1] : '';
      if (e.code === 'commander.unknownOption') {
        if (opt.startsWith('--')) throw new UsageError(`stap: unrecognized option '${opt}'`);
        throw new UsageError(`stap: invalid option -- '${opt.replace(/^-/, '').charAt(0)}'`);
      }
      if (e.code === 'commander.optionMissingArgument') {
        const o = /'(-\w)/.exec(e.message)?.[1] ?? opt;
        if (o.startsWith('--')) throw new UsageError(`stap: option '${o.split(' ')[0]}' requires an argument`);
        throw new UsageError(`stap: option requires an argument -- '${o.replace(/^-/, '').charAt(0)}'`);
      }
      throw new UsageError(`stap: ${e.message.replace(/^error: /, '')}`);
    }
    throw e;
  }
  const o = program.opts();
  if (o.help) return 'help';
  if (o.version) return 'version';

  const opts: StapOptions = {
    pass: 5, verbose: o.v ?? 0, passVerbose: [0, 1, 2, 3, 4].map(() => o.v ?? 0), extraScripts: o.E, args: [], includeDirs: o.I, defines: new Map(), globalsSet: new Map(),
    guru: !!o.g, suppressWarnings: !!o.w, warningsAreErrors: !!o.W, unoptimized: !!o.u, timing: !!o.t,
    dumpProbeTypes: !!o.dumpProbeTypes, dumpProbeAliases: !!o.dumpProbeAliases, dumpFunctions: !!o.dumpFunctions,
    interactive: !!o.interactive, compatible: o.compatible, privilege: privilegeOf(o),
    runtime: runtimeOf(o), noGlobalVarDisplay: o.globalVarDisplay === false,
    suppressHandlerErrors: !!o.suppressHandlerErrors, skipBadvars: !!o.skipBadvars, keepTmpdir: !!o.k, flightRecorder: !!o.F,
    seed: 1, cpus: 4, realtime: o.realtime as boolean | undefined,
  };
  if (o.vp !== undefined) {
    if (!/^\d{1,5}$/.test(o.vp)) throw new UsageError('Invalid --vp argument: it takes 1 to 5 digits.', false);
    (o.vp as string).split('').forEach((d, i) => { opts.passVerbose[i] += Number(d); });
    opts.verbose = Math.max(...opts.passVerbose);
  }
  if (o.p !== undefined) {
    const p = Number(o.p);
    if (!/^\d+$/.test(o.p) || p < 1 || p > 5) throw new UsageError('Invalid pass number (should be 1-5).', false);
    opts.pass = p;
  }
  if (o.s !== undefined) {
    const s = Number(o.s);
    if (!/^\d+$/.test(o.s) || s < 1 || s > 4095) throw new UsageError('Invalid buffer size (should be 1-4095).', false);
  }
  for (const d of o.D as string[]) {
    if (!/^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?$/i.test(d)) {
      throw new UsageError(`ERROR: Safety pattern mismatch for -D parameter ('${d}' vs. '^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?$') rc=1`, false);
    }
    const eq = d.indexOf('=');
    opts.defines.set(eq < 0 ? d : d.slice(0, eq), eq < 0 ? '' : d.slice(eq + 1));
  }
  for (const g of o.G as string[]) {
    if (!/^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$/i.test(g)) {
      throw new UsageError(`ERROR: Safety pattern mismatch for -G parameter ('${g}' vs. '^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$') rc=1`, false);
    }
    const eq = g.indexOf('=');
    opts.globalsSet.set(g.slice(0, eq), g.slice(eq + 1));
  }
  if (o.T !== undefined) {
    const t = Number(o.T);
    if (!/^\s*\d+(\.\d*)?\s*$|^\s*\.\d+\s*$/.test(o.T) || !(t > 0)) throw new UsageError('Invalid timeout interval.', false);
    opts.timeoutSec = t;
  }
  if (o.x !== undefined) {
    // (pid_t) strtoul(optarg, &end, 10), the whole argument consumed: 32-bit wrap-around
    const m = /^[ \t\n\v\f\r]*([+-]?)(\d*)$/.exec(o.x);
    if (!m || (m[2] === '' && o.x !== '')) throw new UsageError('Invalid target process ID number.', false);
    const v = m[2] === '' ? 0n : BigInt(m[2]);
    const ul = v > 2n ** 64n - 1n ? 2n ** 64n - 1n : v; // (strtoul saturates)
    opts.targetPid = Number(BigInt.asIntN(32, m[1] === '-' ? -ul : ul));
  }
  if (o.seed !== undefined) {
    if (!/^\d+$/.test(o.seed)) throw new UsageError(`Invalid --seed value '${o.seed}' (should be a non-negative integer).`, false);
    opts.seed = Number(o.seed);
  }
  if (o.cpus !== undefined) {
    const c = Number(o.cpus);
    if (!/^\d+$/.test(o.cpus) || c < 1 || c > 64) throw new UsageError(`Invalid --cpus value '${o.cpus}' (should be 1-64).`, false);
    opts.cpus = c;
  }
  if (opts.guru && opts.privilege !== 'stapdev') {
    throw new UsageError(`You can't specify -g and --privilege=${opts.privilege} together.`);
  }
  if (o.suppressTimeLimits) {
    if (!o.g) throw new UsageError('ERROR --suppress-time-limits requires guru mode (-g)', false);
    opts.suppressTimeLimits = true;
  }
  if (o.m !== undefined) {
    if (o.m === '') throw new UsageError('Module name cannot be empty.', false);
    if (!/^[a-z0-9_]+$/i.test(o.m)) {
      throw new UsageError(`ERROR: Safety pattern mismatch for -m parameter ('${o.m}' vs. '^[a-z0-9_]+$') rc=1`, false);
    }
    opts.moduleName = o.m;
  }
  if (o.c !== undefined && o.x !== undefined) throw new UsageError("You can't specify -c and -x together.");
  if (opts.compatible !== undefined) {
    const bad = compatibleError(opts.compatible);
    if (bad) throw new UsageError(bad, false);
  }
  const tmpdir = process.env.TMPDIR;
  if (tmpdir !== undefined && !/^[-/._0-9a-z]+$/i.test(tmpdir)) {
    throw new UsageError(`ERROR: Safety pattern mismatch for TMPDIR ('${tmpdir}' vs. '^[-/._0-9a-z]+$') rc=1`, false);
  }
  if (o.c !== undefined) opts.command = o.c;
  if (o.o !== undefined) opts.outputFile = o.o;
  if (o.S !== undefined) {
    // stap passes -S on to staprun, which reads "size[,N]" with strtoul (size in MB)
    const m = /^\s*(\d*)(?:,\s*(\d*))?$/.exec(o.S);
    if (!m || o.S.startsWith('-')) throw new UsageError(`Invalid file size option '${o.S}'.`, false);
    opts.outputRotation = { sizeMax: Number(m[1] || 0) * 1048576, maxFiles: Number(m[2] || 0) };
  }
  const listing = [o.l !== undefined, o.L !== undefined, opts.dumpProbeTypes, opts.dumpProbeAliases, opts.dumpFunctions].filter(Boolean).length;
  if (listing > 1) throw new UsageError('ERROR: only one of the -l/-L/--dump-* switches may be specified', false);
  // a listing stops after pass 2 by itself: any other last pass asked for is refused (-p5, the default, is not)
  if (listing > 0 && o.p !== undefined && Number(o.p) !== 5) throw new UsageError('Cannot specify -p with -l/-L/--dump-* switches.');
  if (o.l !== undefined) opts.listProbes = o.l;
  if (o.L !== undefined) opts.listProbesVars = o.L;

  const rest = program.args as string[];
  if ((o.e as string[]).length > 1) throw new UsageError('Only one script can be given on the command line.', false);
  if ((o.e as string[]).length === 1) {
    opts.scriptText = o.e[0];
    opts.args = rest;
  } else if (opts.listProbes !== undefined || opts.listProbesVars !== undefined || listing) {
    opts.args = rest;
  } else if (rest.length > 0) {
    opts.scriptFile = rest[0];
    opts.args = rest.slice(1);
  }
  // stap sees the bytes of its arguments: script text and script arguments become byte strings
  // (one char per UTF-8 byte), as file contents are read (paths stay as the system names them)
  if (opts.scriptText !== undefined) opts.scriptText = toBinary(opts.scriptText);
  opts.extraScripts = opts.extraScripts.map(toBinary);
  opts.args = opts.args.map(toBinary);
  return opts;
}

const PRIVILEGE_LEVELS = ['stapusr', 'stapsys', 'stapdev'];

/**
 * The privilege level of `--privilege=LEVEL` / `--unprivileged` (= stapusr): an unknown level,
 * or a second different one, is an error, as stap reads them.
 */
function privilegeOf(o: Record<string, unknown>): string {
  const levels = [...(o.unprivileged ? ['stapusr'] : []), ...(o.privilege as string[])];
  for (const v of o.privilege as string[]) if (!PRIVILEGE_LEVELS.includes(v)) throw new UsageError(`Invalid argument '${v}' for --privilege.`, false);
  if (new Set(levels).size > 1) throw new UsageError('Privilege level may be set only once.', false);
  return levels[0] ?? 'stapdev';
}

/** `--runtime=MODE` (and `--bpf`, `--dyninst`): kernel or bpf; dyninst is not part of this build. */
function runtimeOf(o: Record<string, unknown>): string {
  const mode = o.bpf ? 'bpf' : o.dyninst ? 'dyninst' : typeof o.runtime === 'string' ? o.runtime : 'kernel';
  if (mode === 'dyninst') throw new UsageError('ERROR: --runtime=dyninst unavailable; this build lacks DYNINST feature', false);
  if (mode !== 'kernel' && mode !== 'bpf') throw new UsageError(`ERROR: ${mode} is an invalid argument for --runtime`, false);
  return mode;
}

export function helpText(): string {
  return VERSION_TEXT + HELP_TEXT;
}
