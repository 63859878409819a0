/**
 * The simulated system a REPL session explores, and runs of the session script on it.
 *
 * One Machine (src/machine: default system, its own clock and tasks) lives as long as the
 * session or until `reset`/`seed`; it advances only while a script runs: the engine adopts its
 * clock and event queue for the run.  Kernel probe families (src/probes) are attached to it.
 * Runs are simulated time: `run 10s` takes as long as simulating 10 s takes; `run` without a
 * duration is paced to the wall clock and lasts until Ctrl-C (or exit()).
 */
import { Engine, Module, RunOptions } from '../runtime/engine';
import type { Translated } from '../translate';
import { Machine } from '../machine/machine';
import type { Process } from '../machine/machine';
import { TASK_DEAD, TASK_INTERRUPTIBLE, TASK_UNINTERRUPTIBLE, TASK_STOPPED, TASK_TRACED, EXIT_ZOMBIE } from '../machine/include/sched';
import { kernelFamilies } from '../probes/setup';
import { connectMachine, disconnectMachine, driveMachine } from '../probes/machine_glue';
import { resetFtrace } from '../kernel/ftrace';
import { resetKprobes } from '../kernel/kprobes';
import { resetTracepoints } from '../kernel/tracepoint';
import { signalFromOutside } from '../machine/drivers/tty';
import type { GlobalStore } from './session';

type Writer = (s: string) => void;

export interface RunRequest {
  tr: Translated;
  store: GlobalStore;
  out: Writer;
  err: Writer;
  /** Simulated duration (ns); undefined = until exit(), Ctrl-C or the -c command's end. */
  durationNs?: number;
  /** `run -c CMD` */
  command?: string;
  /** Pace virtual time to the wall clock. */
  pace: boolean;
  /** Print write-only globals at the end (stap's display). */
  display: boolean;
  /** Evaluation: run the begin probes only (no time passes), then end. */
  evalOnly?: boolean;
  seed: number;
  extra?: Partial<RunOptions>;
  /** Called once the probes are registered and time starts (introspection snapshots). */
  onArmed?: () => void;
}

export interface RunResult {
  status: number;
  interrupted: boolean;
  /** Virtual time the run lasted (ns). */
  elapsedNs: number;
}

export class SimSystem {
  machine!: Machine;
  /** Stops the run in progress (Ctrl-C); null when idle. */
  private stopper: (() => void) | null = null;

  /** `setup`: what the CLI adds to each machine (stap as a program in it: src/cli/stap_program.ts) */
  constructor(public seed: number, readonly ncpus: number, private readonly setup?: (m: Machine) => void) {
    this.reset(seed);
  }

  /** A fresh kernel (no probes registered) and machine. */
  reset(seed = this.seed): void {
    this.seed = seed;
    disconnectMachine();
    resetKprobes();
    resetFtrace();
    resetTracepoints();
    this.machine = new Machine({ cpus: this.ncpus, seed });
    connectMachine(this.machine);
    this.setup?.(this.machine);
  }

  /** `sh CMD`: run CMD in the machine's shell (as root, in /root) until it exits; Ctrl-C sends it SIGINT. */
  async shell(cmd: string, out: (s: string) => void, err: (s: string) => void): Promise<number> {
    const m = this.machine;
    const p = m.spawnShell(cmd, out, err);
    this.stopper = () => { signalFromOutside(m, p.tgid, 2); };
    try {
      await m.runAsync(() => p.exited);
    } finally {
      this.stopper = null;
    }
    return p.exited ? p.exitCode : 1;
  }

  get running(): boolean {
    return this.stopper !== null;
  }

  /** Ctrl-C: stop the run in progress (end probes still run). Returns false when idle. */
  interrupt(): boolean {
    const s = this.stopper;
    if (!s) return false;
    s();
    return true;
  }

  async run(req: RunRequest): Promise<RunResult> {
    const m = this.machine;
    let mod: Module | null = null;
    let proc: Process | null = null;
    if (req.command !== undefined) proc = m.procs.spawnCommand(req.command, req.out, req.err);
    const engine = new Engine(req.tr, {
      ...req.extra,
      stdout: req.out,
      stderr: req.err,
      handleSignals: false,
      families: kernelFamilies(),
      ncpus: this.ncpus,
      seed: req.seed,
      timeoutSec: req.durationNs !== undefined ? req.durationNs / 1e9 : undefined,
      pace: req.pace,
      noGlobalVarDisplay: !req.display,
      targetPid: proc ? proc.tgid : req.extra?.targetPid,
      onModuleLoaded: (x) => {
        mod = x;
        req.store.restore(x, req.tr);
      },
    });
    if (!req.evalOnly) {
      // the engine runs on the machine's clock and queue (src/probes/machine_glue.ts)
      driveMachine(engine, m, { proc, targetPid: req.extra?.targetPid });
      if (req.onArmed) {
        const armed = req.onArmed;
        engine.schedule(0, () => { if (engine.state === 'RUNNING') armed(); }, -1);
      }
    }
    let interrupted = false;
    this.stopper = () => {
      interrupted = true;
      engine.exit();
    };
    try {
      const done = engine.run();
      if (req.evalOnly) engine.exit();
      const status = await done;
      return { status, interrupted, elapsedNs: engine.now };
    } finally {
      this.stopper = null;
      if (mod) req.store.save(mod, req.tr);
    }
  }

  /** `kernel tasks`: the machine's task list, ps style. */
  tasks(): string {
    const m = this.machine;
    const rows: string[] = [];
    rows.push(`  PID   TID  PPID CPU S  COMM`);
    for (const t of m.procs.list()) {
      const st = t.state;
      const s = st & EXIT_ZOMBIE ? 'Z' : st & TASK_DEAD ? 'X' : st & (TASK_STOPPED | TASK_TRACED) ? 'T'
        : st & TASK_UNINTERRUPTIBLE ? 'D' : st & TASK_INTERRUPTIBLE ? 'S' : 'R';
      const ppid = t.proc.parent ? t.proc.parent.tgid : 0;
      const comm = t.kthread ? `[${t.comm}]` : t.comm;
      rows.push(`${String(t.pid).padStart(5)} ${String(t.tid).padStart(5)} ${String(ppid).padStart(5)} ${String(t.cpu).padStart(3)} ${s}  ${comm}`);
    }
    const up = (m.now / 1e9).toFixed(3);
    return rows.join('\n') + `\n(${rows.length - 1} tasks, uptime ${up} s, ${m.ncpus} CPUs, seed ${this.seed})\n`;
  }
}
