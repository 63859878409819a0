/**
 * The `tapsim` command: a root shell on the simulated machine (the default system `stap` runs
 * on, with the same --seed and --cpus):
 *
 *   tapsim shell                      interactive: prompt, line editing and history (readline),
 *                                     Ctrl-C sends SIGINT to the foreground job
 *   tapsim shell -c 'CMD' [NAME ARG...]
 *   tapsim shell FILE.sh [ARG...]     the script is copied into the machine's /root and run there
 *
 * The machine runs the shell as a child of init with the terminal as its fds 0-2; tracefs and
 * debugfs are mounted as on Debian 12. Exit status: the shell's.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Machine } from '../machine/machine';
import type { GuestPipeline } from './guest';
import { stdout, stderr, flushThenExit } from './stdio';

export const TAPSIM_VERSION = 'tapsim 0.1.0 (simulated Linux 6.1.0-56-amd64, Debian 12)';

const USAGE = `Usage: tapsim shell [OPTIONS] [-c COMMAND [NAME [ARG...]] | FILE [ARG...]]

A root shell (dash) on the simulated Debian 12 machine, with tracefs and debugfs mounted.

Options:
  -c COMMAND           run COMMAND and exit with its status
  -s, --seed N         the machine's random seed (default 1, as stap)
  --cpus N             number of CPUs (default 4)
  --function-profiler  boot a kernel built with CONFIG_FUNCTION_PROFILER (function_profile_enabled)
  -h, --help           this text
  -V, --version        the version
`;

export class UsageError extends Error {}

export interface ShellArgs {
  command?: string;
  file?: string;
  args: string[];
  seed: number;
  cpus: number;
  functionProfiler: boolean;
}

export function parseTapsimArgs(argv: string[]): ShellArgs | 'help' | 'version' {
  if (!argv.length) throw new UsageError('tapsim: missing command (try: tapsim shell)');
  if (argv[0] === '-h' || argv[0] === '--help') return 'help';
  if (argv[0] === '-V' || argv[0] === '--version') return 'version';
  if (argv[0] !== 'shell') throw new UsageError(`tapsim: unknown command '${argv[0]}' (try: tapsim shell)`);
  const a: ShellArgs = { args: [], seed: 1, cpus: 4, functionProfiler: false };
  const num = (v: string | undefined, what: string, min: number, max: number) => {
    if (v === undefined || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`tapsim: invalid ${what}: ${v ?? '(missing)'}`);
    return Number(v);
  };
  let i = 1;
  for (; i < argv.length; i++) {
    const x = argv[i];
    if (x === '-h' || x === '--help') return 'help';
    if (x === '-V' || x === '--version') return 'version';
    if (x === '-c') { if (argv[i + 1] === undefined) throw new UsageError('tapsim: -c requires an argument'); a.command = argv[++i]; i++; break; }
    if (x === '-s' || x === '--seed') { a.seed = num(argv[++i], 'seed', 0, 2 ** 31); continue; }
    if (x.startsWith('--seed=')) { a.seed = num(x.slice(7), 'seed', 0, 2 ** 31); continue; }
    if (x === '--cpus') { a.cpus = num(argv[++i], 'number of CPUs', 1, 64); continue; }
    if (x === '--function-profiler') { a.functionProfiler = true; continue; }
    if (x.startsWith('-') && x !== '-') throw new UsageError(`tapsim: unknown option '${x}'`);
    break;
  }
  if (a.command === undefined && i < argv.length) { a.file = argv[i]; i++; }
  a.args = argv.slice(i);
  return a;
}

async function run(a: ShellArgs, pipeline: () => GuestPipeline): Promise<number> {
  const { Machine } = await import('../machine/machine');
  const { installMaterializers } = await import('../machine/paths/args');
  const { useRecordedShell } = await import('../machine/userland/service_mm');
  const { endRunAtExit } = await import('../machine/process/session');
  const m = new Machine({ seed: a.seed, cpus: a.cpus, functionProfiler: a.functionProfiler });
  installMaterializers();
  (await import('./stap_program')).installStap(m, pipeline);
  const out = (s: string) => { stdout.write(Buffer.from(s, 'latin1')); };
  const err = (s: string) => { stderr.write(Buffer.from(s, 'latin1')); };
  if (a.command !== undefined || a.file !== undefined) {
    let argv: string[];
    if (a.command !== undefined) argv = ['sh', '-c', a.command, ...a.args];
    else {
      let text: Buffer;
      try {
        text = fs.readFileSync(a.file!);
      } catch {
        err(`sh: 0: cannot open ${a.file}: No such file\n`);
        return 2;
      }
      const base = path.basename(a.file!);
      m.fs.createFile(`/root/${base}`, text, 0o755);
      argv = ['sh', base, ...a.args];
    }
    const p = m.procs.spawnShellArgv(argv, out, err);
    useRecordedShell(m, p);
    endRunAtExit(m, p);
    await m.runAsync(() => p.exited || p.runEnd !== null);
    m.shutdownTracing();
    return p.runEnd ?? (p.exited ? p.exitCode : 1);
  }
  return interactive(m, out, err);
}

async function interactive(m: Machine, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const { TtyFile, signalFromOutside } = await import('../machine/drivers/tty');
  const { foregroundJobs } = await import('../machine/userland/sh/exec');
  const tty = new TtyFile(m, (s) => out(s));
  const p = m.procs.spawnShellTty(tty);
  const { useRecordedShell } = await import('../machine/userland/service_mm');
  useRecordedShell(m, p);
  err(`tapsim shell: simulated Linux 6.1.0-56-amd64, ${m.ncpus} CPUs, seed ${seedOf(m)}; 'exit' or Ctrl-D leaves\n`);
  const readline = await import('readline');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true, prompt: '' });
  rl.on('line', (l) => tty.input(l + '\n'));
  rl.on('close', () => tty.input(null));
  rl.on('SIGINT', () => {
    const fg = foregroundJobs.get(p.tgid);
    if (fg && fg.length) for (const pid of fg) signalFromOutside(m, pid, 2);
    else { out('^C\n'); tty.interrupt(); }
  });
  await m.runAsync(() => p.exited, true);
  rl.close();
  m.shutdownTracing();
  return p.exitCode;
}

function seedOf(m: Machine): number {
  return (m as unknown as { seed?: number }).seed ?? 1;
}

/**
 * Runs the command on process.argv and exits with its status.  `pipeline` loads the stap
 * pipeline when stap first runs in the machine (src/cli/tapsim_main.ts: from its own bundle).
 */
export function runTapsim(pipeline: () => GuestPipeline): void {
  let args: ReturnType<typeof parseTapsimArgs>;
  try {
    args = parseTapsimArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) { stderr.write(Buffer.from(e.message + '\n')); flushThenExit(2); return; }
    throw e;
  }
  if (args === 'help') { stdout.write(Buffer.from(USAGE)); flushThenExit(0); return; }
  if (args === 'version') { stdout.write(Buffer.from(TAPSIM_VERSION + '\n')); flushThenExit(0); return; }
  run(args, pipeline).then(flushThenExit, (e: unknown) => {
    const er = e instanceof Error ? e : new Error(String(e));
    stderr.write(Buffer.from(`tapsim: internal error (this is a bug in tapsim): ${er.message}\n${er.stack ?? ''}\n`));
    flushThenExit(70);
  });
}
