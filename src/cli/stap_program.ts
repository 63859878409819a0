/**
 * `stap` as a program inside the simulated machine, so that one shell session can start a
 * script in the background, run a workload and read the tracing files while the script's probes
 * are registered (`stap -e '...' &`, `cat /sys/kernel/debug/kprobes/list`, `kill -INT %1`).
 *
 * The CLI layer installs it into a machine's program table (`installStap`: `tapsim shell`, the
 * REPL's `sh`); src/machine never imports the stap passes.  The process runs the passes of
 * src/cli/passes.ts on its arguments (script files are read from the machine's filesystem, `-o`
 * writes a file there), then plays stapio: pass 5's session runs on this machine alongside its
 * other processes (EngineHost without a loop of its own: the machine's driver runs the events,
 * the session's timers are machine events), and the process copies the session's output to its
 * fds every time the session prints (within stapio's 10 ms relay timer) until the session ends:
 * exit() in a handler, SIGINT/SIGTERM/SIGHUP (the end probes run), the -c command's exit, or
 * too many errors.  The passes' own time is not charged to the machine (compiling takes no
 * virtual time).
 *
 * The session's end runs in a microtask after the event that ended it: the host's `kicked`
 * pauses the machine's driver (Machine.stop) so that no other event runs before it.  A driver
 * that does not stop there (a `stap -c` outside running this stap) lets the end come at its
 * next yield instead.
 */
import type { Machine } from '../machine/machine';
import type { U, ProgramMain } from '../machine/process/user';
import type { Task, Op, SysResult } from '../machine/include/sched';
import { bytesToString } from '../machine/process/user';
import { timedWake } from '../machine/kernel/time';
import { O_WRONLY, O_CREAT, O_TRUNC } from '../machine/include/fs';
import { SIGCHLD } from '../machine/include/signal';
import { installProgramFile } from '../machine/userland/fstree';
import type { Engine } from '../runtime/engine';
import type { GuestRun, Output } from './output';
import type { StapOptions } from './options';
import type { GuestPipeline } from './guest';

type G<T> = Generator<Op, T, SysResult>;

export const STAP_PATH = '/usr/bin/stap';
/** stapio's relay timer: output reaches the process within this */
const RELAY_NS = 10e6;
/** how often an idle stap process looks at the session (handler errors end it without a wakeup) */
const POLL_NS = 200e6;
const SIGHUP = 1, SIGINT = 2, SIGTERM = 15;

/** One stap process's session on the machine it runs in. */
class GuestSession implements GuestRun {
  readonly pending: [fd: number, text: string][] = [];
  engine: Engine | null = null;
  status: number | undefined;
  interrupted = false;
  stopping = false;
  child = 0;
  private sleeping = false;
  private wakeQueued = false;

  constructor(private readonly m: Machine, private readonly task: Task, private readonly files: Map<string, string | 'missing' | 'directory'>,
    private readonly command: string | undefined, private readonly pipeline: GuestPipeline) {}

  readFile(name: string): string | 'missing' | 'directory' {
    return this.files.get(name) ?? 'missing';
  }

  write(fd: number, s: string): void {
    if (!s) return;
    const last = this.pending[this.pending.length - 1];
    if (last && last[0] === fd) last[1] += s;
    else this.pending.push([fd, s]);
    this.wake(RELAY_NS);
  }

  /** wake the process if it sleeps in its poll (at most one wakeup queued) */
  wake(ns: number): void {
    if (!this.sleeping || this.wakeQueued) return;
    this.wakeQueued = true;
    timedWake(this.m, this.task, ns);
  }

  *sleep(u: U, ns: number): G<void> {
    this.sleeping = true;
    yield* u.nanosleep(ns);
    this.sleeping = false;
    this.wakeQueued = false;
  }

  get stapio(): { pid: number; ppid: number } {
    return { pid: this.task.pid, ppid: this.task.proc.parent?.tgid ?? 1 };
  }

  run(engine: Engine): Promise<number> {
    const m = this.m;
    const { taskInfo } = this.pipeline;
    this.engine = engine;
    if (this.command !== undefined) {
      // stapio's -c: a child of this process with its fds, started before the begin probes (the
      // command exec'd when wordexp splits it, else through /bin/sh -c, whose commands dash forks)
      const p = this.task.proc;
      this.child = m.procs.spawnTarget(p, this.command, p.fds, p.cwd).tgid;
      engine.targetPid = this.child;
    }
    engine.attachHost({
      now: () => Math.floor(m.now),
      schedule: (at, fire, prio) => { m.schedule(at, fire, prio); },
      // the machine's own driver runs its events (the session's timers among them)
      next: () => undefined,
      step: () => undefined,
      ncpus: m.ncpus,
      task: (cpu) => taskInfo(m.current(cpu)),
      system: (cmd, out) => { m.spawnShell(cmd, out); },
      kicked: () => { this.stopping = true; m.stop(); },
    }, engine.targetPid);
    return engine.run();
  }
}

/** Read the script file (or stdin for `-`) as the stap process sees it. */
function* readScript(u: U, name: string): G<string | 'missing' | 'directory'> {
  if (name === '-') return bytesToString(yield* u.readAll(0));
  const st = yield* u.stat(name);
  if (typeof st === 'number') return 'missing';
  if (st.isDir) return 'directory';
  const fd = yield* u.open(name);
  if (fd < 0) return 'missing';
  const text = bytesToString(yield* u.readAll(fd));
  yield* u.close(fd);
  return text;
}

/** What stap inside the machine cannot do, or null. */
function refused(opts: StapOptions): string | null {
  if (opts.interactive) return 'stap: -i is not available inside the simulated machine (use the REPL: stap -i outside it)';
  if (opts.includeDirs.length) return 'stap: -I is not available inside the simulated machine';
  return null;
}

function stapMain(m: Machine, load: () => GuestPipeline): ProgramMain {
  return function* (u, argv) {
    const pipeline = load();
    const { parseArgs, helpText, UsageError, VERSION_TEXT, runPasses } = pipeline;
    let opts: ReturnType<typeof parseArgs>;
    try {
      opts = parseArgs(argv.slice(1));
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      yield* u.err(e.message + '\n');
      if (e.hint) yield* u.err("Try '--help' for more information. [man stap]\nA message like [man foo] means for more info, run % man foo\n");
      return e.exitCode;
    }
    if (opts === 'help' || opts === 'version') {
      yield* u.err(opts === 'help' ? helpText() : VERSION_TEXT);
      return 0;
    }
    const no = refused(opts);
    if (no) {
      yield* u.err(no + '\n');
      return 1;
    }
    const files = new Map<string, string | 'missing' | 'directory'>();
    if (opts.scriptFile !== undefined) files.set(opts.scriptFile, yield* readScript(u, opts.scriptFile));
    let outFd = 1;
    if (opts.outputFile !== undefined) {
      outFd = yield* u.open(opts.outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644);
      if (outFd < 0) {
        yield* u.err(`ERROR: Couldn't open output file ${opts.outputFile}\n`);
        return 1;
      }
      opts.outputFile = undefined;
    }
    const s = new GuestSession(m, u.t, files, opts.command, pipeline);
    for (const sig of [SIGINT, SIGTERM, SIGHUP]) yield* u.sigaction(sig, () => { s.interrupted = true; });
    yield* u.sigaction(SIGCHLD, () => undefined);
    connect(m, pipeline);
    const io: Output = { out: (t) => s.write(1, t), err: (t) => s.write(2, t), guest: s };
    runPasses(opts, io).then((st) => { s.status = st; s.wake(1000); }, (e: unknown) => {
      s.write(2, `tapsim: internal error (this is a bug in tapsim, not in your script): ${e instanceof Error ? e.message : String(e)}\n`);
      s.status = 70;
      s.wake(1000);
    });
    for (;;) {
      while (s.pending.length) {
        const [fd, text] = s.pending.shift()!;
        yield* u.writeAll(fd === 1 ? outFd : 2, text);
      }
      if (s.status !== undefined) break;
      const e = s.engine;
      if (e && !s.stopping) {
        let end = s.interrupted || e.state !== 'RUNNING';
        if (s.child && !end) end = (yield* u.wait(s.child, true))[0] === s.child;
        if (end) e.exit();
      }
      // until the passes or the session's end (a microtask after the machine's driver paused) are over
      if (!e || s.stopping) {
        m.stop();
        yield* s.sleep(u, 1000);
      } else yield* s.sleep(u, POLL_NS);
    }
    if (outFd !== 1) yield* u.close(outFd);
    return s.status;
  };
}

let connected: Machine | null = null;
/** The probe layer's view of the machine (current task, perf events, /proc), set once per machine. */
function connect(m: Machine, pipeline: GuestPipeline): void {
  if (connected === m) return;
  connected = m;
  pipeline.connectMachine(m);
}

/**
 * Put `stap` into the machine: /usr/bin/stap and its program, which runs the pipeline `load`
 * gives (called when stap first runs: src/cli/guest.ts).
 */
export function installStap(m: Machine, load: () => GuestPipeline): void {
  // Debian's systemtap 4.8 binary: its size and build time (userland/fstree.ts)
  if (!m.fs.lookup(STAP_PATH, '/')) installProgramFile(m, m.fs, 'stap');
  m.procs.programs.set(STAP_PATH, stapMain(m, load));
}
