/**
 * Pass 5: run a translated script on the simulated machine.
 *
 *   runProgram(translated: Translated, opts: RunOptions): Promise<number>   // exit status
 *
 * What it prints: script output (stdout or `-o FILE`), runtime `ERROR:`/`WARNING:` lines,
 * the `-t` report, the shutdown summary `WARNING: Number of errors: N, skipped probes: M`
 * and, when any error was reported, `WARNING: /usr/bin/staprun exited with status: 1`;
 * the result is then 1 and the CALLER prints `Pass 5: run failed.  [man error::pass5]`.
 *
 * Session model (spec §5.1, §9): STARTING (begin probes in ascending sequence, ties in
 * script order) -> RUNNING (timers and other event sources on a virtual clock: a
 * discrete-event queue, so `timer.s(10)` takes microseconds of wall time) -> STOPPING (end
 * probes, then the automatic printing of write-only globals) or ERROR (error probes).
 * exit() moves to STOPPING (the current handler continues); abort() ends the handler at once
 * and moves to ERROR without counting an error; errors beyond MAXERRORS move to ERROR.
 * SIGINT, SIGTERM, SIGHUP (stapio treats it as SIGINT) and `-T SECS` (simulated seconds) stop
 * normally.  A script without event sources that has not exited waits for a signal without
 * spinning; while virtual time runs, the loop yields to Node's event loop every few ms of wall
 * time so signals are seen.  The generated module is loaded by src/runtime/loader.ts.
 *
 * Probe families plug in through ProbeFamilyRuntime (registerFamily): begin/end/error/never
 * and timer are implemented here; kernel families (kernel.function, kprobe, kernel.trace,
 * timer.profile, ...) register the same way from their own modules and deliver hits with
 * Engine.hit(probe, contextFields).
 */
import * as I from './int64';
import { Long } from './int64';
import { StapError } from './errors';
import { StapMap, autoPrintMap, scalarLine, MAX_MAP_ENTRIES } from './maps';
import { Stat, StatSpec } from './stats';
import { logHist, linearHist, histSpecWarnings, HistSpec } from './histogram';
import { AbortSignal } from './builtins';
import { Module, ErrLoc, loadModule, MAX_STRINGLEN } from './loader';
import { EventQueue } from '../machine/core/events'; // (the same binary heap the machine's clock uses)
import { Transport, Writer, fdWriter, OutputRotation } from './transport';
import { ProbeContext, TaskInfo, EngineApi, CpuState, makeContext } from './context';
import type { Translated, ProbeMeta } from '../translate';
import { kernelHz } from '../kernel/config';
import { SESSION_START_REALTIME_NS } from '../kernel/timekeeping';
import { moduleName as moduleNameOf } from './module';

export { fdWriter } from './transport';
export type { Module } from './loader';
export type { Writer } from './transport';

export interface RunOptions {
  /**
   * Who plays stapio: a process of the machine (stap inside `tapsim shell`: its pid, its parent's);
   * else a stapio of pid 4000-4999 (drawn from the seed) whose parent, the stap process, is the pid before
   */
  stapio?: { pid: number; ppid: number };
  /** Script stdout and runtime stderr sinks (latin1 strings); default: fd 1 / fd 2. */
  stdout?: Writer;
  stderr?: Writer;
  /** `-o FILE` */
  outputFile?: string;
  /** -S size[,N] (bytes, file count; 0 = unlimited) */
  outputRotation?: OutputRotation;
  /** `-D` definitions (limits were fixed by translate(); STP_FORCE_STDOUT_TTY etc. read here). */
  defines?: Map<string, string>;
  /** The module's name (`-m NAME`, or stap_<hash>_<n> from src/runtime/module.ts; default: from the generated source). */
  moduleName?: string;
  /** `-G name=value` in command-line order. */
  globalsSet?: [string, string][];
  /** `-T SECS`: stop after this much simulated time. */
  timeoutSec?: number;
  /** PRNG seed (timer CPU choice, randomize, randint); default fixed. */
  seed?: number;
  /** `-t` */
  timing?: boolean;
  /** Whether stdout is a terminal. */
  stdoutIsTty?: boolean;
  /** `--no-global-var-display` */
  noGlobalVarDisplay?: boolean;
  /** `--suppress-handler-errors` */
  suppressHandlerErrors?: boolean;
  verbose?: number;
  /** `-x PID` / `-c` child: target() */
  targetPid?: number;
  /** Number of online CPUs of the simulated machine (default 2). */
  ncpus?: number;
  /** CLOCK_REALTIME of the simulated clock at the session start, ns (default: the simulated kernel's). */
  epochNs?: bigint;
  /** system(): commands are handed to this hook (default: a warning that no shell exists). */
  shell?: ShellHook;
  /** Install SIGINT/SIGTERM/SIGHUP handlers (default true). */
  handleSignals?: boolean;
  /** Kernel and other families to register in addition to the built-in ones. */
  families?: ProbeFamilyRuntime[];
  /**
   * Interactive sessions (src/repl): called once the generated module is loaded, before `-G`
   * and the begin probes.  The REPL restores globals kept from earlier runs into the fresh
   * module here, and keeps the module to read the globals after the run.
   */
  onModuleLoaded?: (mod: Module) => void;
  /**
   * Pace virtual time to the wall clock (one simulated second per wall second), so a run that
   * only a signal ends lasts until Ctrl-C the way a real one does (src/cli/stages.ts decides
   * when; the REPL paces runs without a duration).
   */
  pace?: boolean;
}

/**
 * A simulated machine whose clock and event queue the engine adopts (Engine.attachHost; the
 * glue in src/probes/machine_glue.ts adapts src/machine's Machine).  Engine time is then the
 * machine's: `engine.now` = host.now() - (host time at attach), timers are events on the
 * host's queue (interleaved deterministically with CPU steps, I/O completions ...), and
 * monotonicNs() is the machine's uptime.
 */
export interface EngineHost {
  /** Absolute virtual time, integer ns. */
  now(): number;
  /** Schedule `fire` at absolute time `atNs`; ties by `prio`, then FIFO. */
  schedule(atNs: number, fire: () => void, prio: number): void;
  /** Time of the next pending event, or undefined when the queue is empty. */
  next(): number | undefined;
  /** Run the next event (the clock moves to its time). */
  step(): void;
  /** Online CPUs. */
  ncpus: number;
  /** The task running on `cpu` (what a timer interrupt there hits). */
  task(cpu: number): TaskInfo;
  /** Called after every event while RUNNING (e.g. exit when the -c command ended). */
  afterStep?: () => void;
  /** system(): run `cmd` (asynchronously, as stapio does), output to the session's stdout. */
  system?: (cmd: string, out: (s: string) => void) => void;
  /**
   * Told whenever the session's loop is woken (exit(), abort(), a signal).  A host whose machine
   * someone else drives (stap as a program inside the machine: src/cli/stap_program.ts) pauses
   * that driver here, so the session ends at this virtual time.
   */
  kicked?: () => void;
}

/** Receives system() commands (the simulated shell plugs in here). */
export type ShellHook = (cmd: string, engine: Engine) => void;

export type SessionState = 'STARTING' | 'RUNNING' | 'STOPPING' | 'ERROR' | 'DONE';

/** A probe as families see it: its metadata and generated handler. */
export interface RegisteredProbe {
  meta: ProbeMeta;
  handler: (c: ProbeContext) => void;
}

/**
 * A probe family's runtime side.  register() receives every derived probe of the family and
 * arms it (schedules timers, hooks kernel events, adds lifecycle phases); unregister() disarms.
 */
export interface ProbeFamilyRuntime {
  family: string;
  register(probes: RegisteredProbe[], engine: Engine): void;
  unregister(): void;
}

const NS = 1000000000;

/** Signals that end a session normally (end probes run): stapio's SIGINT, SIGTERM and SIGHUP. */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class TimingStat {
  stat = new Stat(new StatSpec({ variance: true }));
}

export class Engine implements EngineApi {
  state: SessionState = 'STARTING';
  /** Virtual time since the session started, ns (the host's time when one is attached). */
  get now(): number {
    return this.host ? this.host.now() - this.hostBase : this.ownNow;
  }
  private ownNow = 0;
  private host: EngineHost | null = null;
  private hostBase = 0;
  errorCount = 0;
  skippedCount = 0;
  readonly limits: Translated['limits'];
  ncpus: number;
  targetPid: number;
  readonly stapioPid: number;
  readonly moduleName: string;
  readonly maxStringLen: number;
  readonly stopwatches = new Map<string, { startNs: Long; accNs: Long; running: boolean }>();
  private readonly cpuStates: CpuState[] = [];
  readonly stapioTask: TaskInfo;
  private readonly rand: () => number;
  private readonly queue = new EventQueue();
  private readonly transport: Transport;
  private readonly stderrW: Writer;
  private readonly epochNs: bigint;
  private readonly bootNs = 1234 * NS; // simulated uptime when the session starts
  private mod!: Module;
  private families: ProbeFamilyRuntime[] = [];
  private phases: { STARTING: (() => void)[]; STOPPING: (() => void)[]; ERROR: (() => void)[] } = { STARTING: [], STOPPING: [], ERROR: [] };
  private timing = new Map<number, TimingStat>();
  private warned = new Set<string>();
  private wake: (() => void) | null = null;
  private interrupted = false;
  /** -t: handler times go into the timing statistics (read once: hit() is the hot path) */
  private readonly timed: boolean;

  constructor(private tr: Translated, private opts: RunOptions) {
    this.limits = tr.limits;
    this.ncpus = opts.ncpus ?? 2;
    this.targetPid = opts.targetPid ?? 0;
    this.rand = prng(opts.seed ?? 0x5eed);
    // (drawn in any case: the random numbers after it are the same whoever plays stapio)
    const drawn = 4000 + Math.floor(this.rand() * 1000);
    this.stapioPid = opts.stapio?.pid ?? drawn;
    this.moduleName = opts.moduleName ?? moduleNameOf(tr.source);
    this.maxStringLen = tr.limits.maxStringLen;
    // stapio's parent is the stap process (pid just before it, when not given)
    const ppid = opts.stapio?.ppid ?? this.stapioPid - 1;
    this.stapioTask = { pid: this.stapioPid, tid: this.stapioPid, ppid, execname: opts.stapio ? 'stap' : 'stapio', uid: 0, gid: 0, euid: 0, egid: 0 };
    this.stderrW = opts.stderr ?? fdWriter(2);
    this.epochNs = opts.epochNs ?? SESSION_START_REALTIME_NS;
    this.transport = new Transport(opts.stdout ?? fdWriter(1), opts.outputFile, opts.outputRotation,
      () => Number((this.epochNs + BigInt(this.now)) / 1000000000n));
    this.timed = !!opts.timing;
  }

  // ------------------------------------------------------------------ EngineApi (builtins)

  exit(): void {
    if (this.state === 'STARTING' || this.state === 'RUNNING') this.state = 'STOPPING';
    this.kick();
  }

  abort(): never {
    if (this.state !== 'DONE') this.state = 'ERROR';
    this.kick();
    throw new AbortSignal();
  }

  /**
   * A probe family's registration failed in a way that aborts module start-up (stap's
   * systemtap_module_init: `_stp_error("probe %s registration error ...")`, then no probe runs).
   */
  failStart(msg: string): void {
    if (this.startFailure === null) this.startFailure = msg;
  }
  private startFailure: string | null = null;

  warn(msg: string): void {
    const line = `WARNING: ${msg}\n`;
    if ((this.opts.verbose ?? 0) < 1) {
      if (this.warned.has(line)) return;
      this.warned.add(line);
    }
    this.transport.flush();
    this.stderrW(line);
  }

  out(s: string): void {
    this.transport.out(s);
  }

  realtimeNs(): Long {
    return I.fromBigInt(this.epochNs + BigInt(this.now));
  }

  monotonicNs(): Long {
    return I.fromNumber(this.host ? this.host.now() : this.bootNs + this.now);
  }

  random(n: number): number {
    return Math.floor(this.rand() * n);
  }

  /** switch_file(): the next output file (what stapio does on the SIGUSR2 the tapset sends it). */
  switchFile(): void {
    this.transport.requestSwitch();
  }

  system(cmd: string): void {
    if (this.opts.shell) this.opts.shell(cmd, this);
    else if (this.host && this.host.system) {
      const w = this.opts.stdout ?? fdWriter(1);
      this.host.system(cmd, (s) => {
        this.transport.flush();
        w(s);
      });
    } else this.warn('system(): no simulated shell is available to run: ' + cmd);
  }

  // ------------------------------------------------------------------ family interface

  /** Run `fn` when the session enters a phase (begin probes: STARTING, end: STOPPING, error: ERROR). */
  onPhase(phase: 'STARTING' | 'STOPPING' | 'ERROR', fn: () => void): void {
    this.phases[phase].push(fn);
  }

  /**
   * Schedule an event at absolute virtual time `t` (ns since session start).  Events at the
   * same time run by ascending `prio` (timers use their probe index), then in scheduling order.
   */
  schedule(t: number, fire: () => void, prio = 0): void {
    const now = this.now;
    if (this.host) this.host.schedule(this.hostBase + Math.max(t, now), fire, prio);
    else this.queue.push(Math.max(t, now), fire, prio);
  }

  /**
   * Adopt a machine's clock and event queue (before run(); see EngineHost).  `targetPid`:
   * target() (the -c command's pid or -x PID).
   */
  attachHost(host: EngineHost, targetPid?: number): void {
    this.host = host;
    this.hostBase = host.now();
    this.ncpus = host.ncpus;
    if (targetPid !== undefined) this.targetPid = targetPid;
  }

  /** A CPU chosen deterministically for an event. */
  pickCpu(): number {
    return Math.floor(this.rand() * this.ncpus);
  }

  /** The task a timer interrupt on `cpu` hits: the host's current task there, else the idle task. */
  idleTask(cpu: number): TaskInfo {
    if (this.host) return this.host.task(cpu);
    return { pid: 0, tid: 0, ppid: 0, execname: `swapper/${cpu}`, uid: 0, gid: 0, euid: 0, egid: 0 };
  }

  cpuState(cpu: number): CpuState {
    return this.cpuStates[cpu] ?? (this.cpuStates[cpu] = {});
  }

  newContext(p: ProbeMeta, fields: Partial<ProbeContext> & { task: TaskInfo }): ProbeContext {
    return makeContext(this, { pp: p.pp, pn: p.pn, probeIndex: p.index, family: p.family, ...fields });
  }

  /**
   * Deliver one probe hit.  `required` is the state the session must be in (handlers of
   * begin run only while STARTING, end while STOPPING, error while ERROR, others RUNNING);
   * null when the caller already checked it.
   */
  hit(p: RegisteredProbe, c: ProbeContext, required: SessionState | null = 'RUNNING'): void {
    if (required !== null && this.state !== required) return;
    if (this.timed) { this.hitTimed(p, c); return; }
    // the hot path (kernel probes fire millions of times): try/catch, no finally — handlerError
    // reports every error and does not throw
    try {
      p.handler(c);
    } catch (e) {
      this.handlerError(e, p.meta);
    }
    this.transport.flush();
  }

  /** hit() under -t: the handler's time goes into the probe's timing statistics */
  private hitTimed(p: RegisteredProbe, c: ProbeContext): void {
    const t0 = process.hrtime.bigint();
    try {
      p.handler(c);
    } catch (e) {
      this.handlerError(e, p.meta);
    } finally {
      this.transport.flush();
    }
    const dt = Number(process.hrtime.bigint() - t0);
    let ts = this.timing.get(p.meta.index);
    if (!ts) this.timing.set(p.meta.index, (ts = new TimingStat()));
    ts.stat.add(Math.round(dt * 2.5));
  }

  /** Count a skipped probe hit (lock timeout, reentrancy ...). */
  skip(): void {
    this.skippedCount++;
    if (this.skippedCount > this.limits.maxSkipped && !this.opts.suppressHandlerErrors) {
      this.printErr('ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.\n');
      this.state = 'ERROR';
    }
  }

  private printErr(s: string): void {
    this.transport.flush();
    this.stderrW(s);
  }

  private handlerError(e: unknown, p: ProbeMeta): void {
    if (e instanceof AbortSignal) return;
    let err: StapError;
    if (e instanceof StapError) err = e;
    else if (e instanceof RangeError && /call stack/.test(e.message)) err = new StapError('MAXNESTING exceeded');
    else {
      this.errorCount++;
      const msg = e instanceof Error ? e.message : String(e);
      this.printErr(`ERROR: tapsim internal fault (this is a bug in tapsim, not in the script): ${msg} in probe ${p.pp}\n`);
      if ((this.opts.verbose ?? 0) > 0 && e instanceof Error && e.stack) this.printErr(e.stack + '\n');
      if (this.errorCount > this.limits.maxErrors) this.state = 'ERROR';
      return;
    }
    this.errorCount++;
    if (this.opts.suppressHandlerErrors) return;
    const loc = (err.loc as ErrLoc | undefined) ?? { near: this.mod.loc(), callers: [] };
    let text = `ERROR: ${err.message}`;
    const locs = this.tr.locs;
    if (loc.near > 0 && locs[loc.near]) {
      text += ` near ${locs[loc.near]}`;
      for (const cs of loc.callers) if (cs > 0 && locs[cs]) text += ` (called from ${locs[cs]})`;
    }
    text += ` in probe ${p.pp}\n`;
    this.printErr(text);
    if (this.errorCount > this.limits.maxErrors) this.state = 'ERROR';
  }

  // ------------------------------------------------------------------ running

  private kick(): void {
    this.host?.kicked?.();
    const w = this.wake;
    if (w) {
      this.wake = null;
      w();
    }
  }

  registerFamily(f: ProbeFamilyRuntime): void {
    this.families.push(f);
  }

  /** Instantiate the generated module (globals fresh); used by run() and by benchmarks/tests. */
  load(): Module {
    this.mod = loadModule(this.tr, { out: (s) => this.transport.out(s) });
    return this.mod;
  }

  async run(): Promise<number> {
    // load the generated module
    try {
      this.load();
    } catch (e) {
      this.stderrW(`ERROR: tapsim internal fault (this is a bug in tapsim, not in the script): generated module failed to load: ${(e as Error).message}\n`);
      return this.finishStatus(true);
    }
    if (this.opts.onModuleLoaded) this.opts.onModuleLoaded(this.mod);
    // stapio opens the -o file before the module starts
    const openErr = this.transport.open();
    if (openErr) {
      this.stderrW(`${openErr}\n`);
      return this.finishStatus(true);
    }
    // module initialisation checks: histogram descriptors
    for (const g of this.tr.globals) {
      for (const h of g.hists) {
        const spec: HistSpec = h.kind === 'log' ? logHist() : linearHist(h.params[0], h.params[1], h.params[2]);
        const w = histSpecWarnings(spec);
        if (w.length) {
          // (stat-common.c's _stp_warn; the global's allocation then fails: -ENOMEM)
          this.stderrW(w.join('\n') + '\n');
          this.stderrW(`ERROR: Couldn't insert module '${this.moduleName}': Cannot allocate memory\n`);
          return this.finishStatus(true);
        }
      }
    }
    // the memory stap sizes at module start (strings of MAXSTRINGLEN bytes in every context,
    // MAXMAPENTRIES entries preallocated per array) beyond what this runtime can hold
    if (this.limits.maxStringLen > MAX_STRINGLEN || this.tr.globals.some((g) => g.arity > 0 &&
      (this.mod.globals.get(g.name)?.get() as StapMap | undefined)?.maxEntries! > MAX_MAP_ENTRIES)) {
      this.stderrW(`ERROR: Couldn't insert module '${this.moduleName}': Cannot allocate memory\n`);
      return this.finishStatus(true);
    }
    // -G
    for (const [name, value] of this.opts.globalsSet ?? []) {
      const g = this.tr.globals.find((x) => x.name === name);
      const acc = this.mod.globals.get(name);
      if (!g || !acc || !acc.set) continue;
      if (g.type === 'long') {
        const v = parseGlobalLong(value);
        if (v === null) {
          this.stderrW(`ERROR: Couldn't insert module '${this.moduleName}': Invalid parameters\n`);
          return this.finishStatus(true);
        }
        acc.set(v);
      } else acc.set(value.length > this.maxStringLen - 1 ? value.slice(0, this.maxStringLen - 1) : value);
    }

    // families
    const byFamily = new Map<string, RegisteredProbe[]>();
    this.tr.probes.forEach((meta, i) => {
      const list = byFamily.get(meta.family) ?? [];
      list.push({ meta, handler: this.mod.probes[i] });
      byFamily.set(meta.family, list);
    });
    const fams = [...builtinFamilies(), ...(this.opts.families ?? [])];
    for (const f of fams) this.registerFamily(f);
    for (const [fam, list] of byFamily) {
      const f = this.families.find((x) => x.family === fam);
      if (!f) {
        this.stderrW(`ERROR: probe family '${fam}' is not available in this runtime\n`);
        return this.finishStatus(true);
      }
      f.register(list, this);
      if (this.startFailure !== null) {
        // a registration that fails module start-up (perf: _stp_perf_init): the session ends
        // before the begin probes, the families registered so far are torn down
        for (const g of this.families) g.unregister();
        this.queue.clear();
        this.stderrW(`ERROR: ${this.startFailure}\n`);
        return this.finishStatus(true);
      }
    }
    if (this.opts.timeoutSec !== undefined) {
      this.schedule(Math.round(this.opts.timeoutSec * NS), () => this.exit(), Number.MAX_SAFE_INTEGER);
    }

    const handleSignals = this.opts.handleSignals ?? true;
    const onSig = () => {
      this.interrupted = true;
      if (this.state === 'STARTING' || this.state === 'RUNNING') this.state = 'STOPPING';
      this.kick();
    };
    if (handleSignals) {
      for (const sig of STOP_SIGNALS) process.on(sig, onSig);
    }
    try {
      // STARTING
      for (const fn of this.phases.STARTING) fn();
      if (this.state === 'STARTING') this.state = 'RUNNING';
      if (this.host) await this.hostLoop(this.host);
      else await this.mainLoop();
      // shutdown
      for (const f of this.families) f.unregister();
      this.queue.clear();
      if (this.state === 'STOPPING') {
        for (const fn of this.phases.STOPPING) fn();
        if (this.state === 'STOPPING' && !this.opts.noGlobalVarDisplay) this.autoPrint();
      }
      if (this.state === 'ERROR') {
        for (const fn of this.phases.ERROR) fn();
      }
      this.state = 'DONE';
      this.transport.close();
      this.timingReport();
      return this.finishStatus(false);
    } finally {
      if (handleSignals) {
        for (const sig of STOP_SIGNALS) process.removeListener(sig, onSig);
      }
    }
  }

  private async mainLoop(): Promise<void> {
    let lastYield = Date.now();
    let n = 0;
    // RunOptions.pace: wall-clock ms at which virtual time `now` was reached
    const paceWall0 = Date.now() - this.ownNow / 1e6;
    while (this.state === 'RUNNING') {
      const ev = this.queue.peek();
      if (!ev) {
        await this.waitForWake();
        lastYield = Date.now();
        continue;
      }
      if (this.opts.pace) {
        const ahead = paceWall0 + ev.t / 1e6 - Date.now();
        if (ahead >= 2) {
          await this.sleepOrWake(Math.min(ahead, 100));
          lastYield = Date.now();
          continue;
        }
      }
      this.queue.pop();
      if (ev.t > this.ownNow) this.ownNow = ev.t;
      ev.fire();
      if ((++n & 63) === 0 && Date.now() - lastYield >= 5) {
        await new Promise<void>((r) => setImmediate(r));
        lastYield = Date.now();
      }
    }
  }

  /** mainLoop on a host's queue: its events (machine and engine timers) in time order. */
  private async hostLoop(host: EngineHost): Promise<void> {
    let lastYield = Date.now();
    let n = 0;
    const paceWall0 = Date.now() - this.now / 1e6;
    const after = host.afterStep;
    while (this.state === 'RUNNING') {
      const t = host.next();
      if (t === undefined) {
        await this.waitForWake();
        lastYield = Date.now();
        continue;
      }
      if (this.opts.pace) {
        const ahead = paceWall0 + (t - this.hostBase) / 1e6 - Date.now();
        if (ahead >= 2) {
          await this.sleepOrWake(Math.min(ahead, 100));
          lastYield = Date.now();
          continue;
        }
      }
      host.step();
      if (after && this.state === 'RUNNING') after();
      if ((++n & 63) === 0 && Date.now() - lastYield >= 5) {
        await new Promise<void>((r) => setImmediate(r));
        lastYield = Date.now();
      }
    }
  }

  /** RunOptions.pace: sleep `ms` of wall time, or less if exit()/a signal kicks the loop. */
  private sleepOrWake(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private waitForWake(): Promise<void> {
    return new Promise<void>((resolve) => {
      const keepAlive = setInterval(() => {}, 1 << 30);
      this.wake = () => {
        clearInterval(keepAlive);
        resolve();
      };
      if (this.state !== 'RUNNING' || (this.host ? this.host.next() !== undefined : this.queue.size > 0)) this.kick();
    });
  }

  private autoPrint(): void {
    let s = '';
    for (const g of this.tr.globals) {
      if (!g.autoPrint) continue;
      const v = this.mod.globals.get(g.name)?.get();
      if (v === undefined) continue;
      if (g.arity > 0) s += autoPrintMap(g.name, v as StapMap);
      else s += scalarLine(g.name, v as Long | string | Stat);
    }
    if (s) {
      this.transport.out(s);
      this.transport.flush();
    }
  }

  private timingReport(): void {
    // (stap 4.8's module prints it at exit whatever stdout is: systemtap_module_exit, stap -p3 -t)
    if (!this.opts.timing) return;
    const unit = this.opts.defines?.has('STP_TIMING_NSECS') ? 'nsecs' : 'cycles';
    let s = '----- probe hit report: \n';
    for (const p of this.tr.probes) {
      const ts = this.timing.get(p.index);
      if (!ts) continue;
      const st = ts.stat;
      const from = p.chain.length ? p.chain.map((x) => `, from: ${x}`).join('') : `, from: ${p.pn}`;
      s += `${p.pp}, (${p.where}), hits: ${st.count()}, ${unit}: ${st.min()}min/${st.avg()}avg/${st.max()}max, variance: ${st.variance()}${from}, index: ${p.index}\n`;
    }
    (this.opts.stdout ?? fdWriter(1))(s);
  }

  private finishStatus(failed: boolean): number {
    if (this.errorCount > 0 || this.skippedCount > 0) {
      this.stderrW(`WARNING: Number of errors: ${this.errorCount}, skipped probes: ${this.skippedCount}\n`);
    }
    if (failed || (this.errorCount > 0 && !this.opts.suppressHandlerErrors)) {
      this.stderrW('WARNING: /usr/bin/staprun exited with status: 1\n');
      return 1;
    }
    return 0;
  }
}

function parseGlobalLong(s: string): Long | null {
  if (/^-?[0-9]+$/.test(s)) return I.parseDecimal(s);
  if (/^0[xX][0-9a-fA-F]+$/.test(s)) return I.parseLiteral(s);
  return null;
}


// ---------------------------------------------------------------------------------------------
// Built-in families

function seqOf(p: RegisteredProbe): number {
  const s = p.meta.data.seq;
  return typeof s === 'number' ? s : 0;
}

/** begin / end / error: run in ascending sequence number (ties in script order) at a phase. */
class SequencedFamily implements ProbeFamilyRuntime {
  constructor(public family: string, private phase: 'STARTING' | 'STOPPING' | 'ERROR') {}
  private armed = true;
  register(probes: RegisteredProbe[], engine: Engine): void {
    const sorted = probes.map((p, i) => ({ p, i })).sort((a, b) => seqOf(a.p) - seqOf(b.p) || a.i - b.i).map((x) => x.p);
    const probeType = this.family === 'error' ? 'begin_end' : 'begin_end';
    engine.onPhase(this.phase, () => {
      if (!this.armed && this.phase === 'STARTING') return;
      // Probes on the same point are combined into one handler (stap's probe combining):
      // the session state is checked once for the group, and every body runs even if an
      // earlier one failed or called exit().
      for (let i = 0; i < sorted.length; ) {
        let j = i + 1;
        while (j < sorted.length && sorted[j].meta.pp === sorted[i].meta.pp) j++;
        if (engine.state !== this.phase) break;
        for (let k = i; k < j; k++) {
          const p = sorted[k];
          const c = engine.newContext(p.meta, { task: engine.stapioTask, cpu: 0, probeType });
          engine.hit(p, c, null);
        }
        i = j;
      }
    });
  }
  unregister(): void {
    this.armed = false;
  }
}

class NeverFamily implements ProbeFamilyRuntime {
  family = 'never';
  register(): void {}
  unregister(): void {}
}

/** timer.{s,ms,us,ns,hz,jiffies}(N)[.randomize(M)] on the virtual clock. */
class TimerFamily implements ProbeFamilyRuntime {
  family = 'timer';
  private armed = false;
  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    const hz = kernelHz();
    for (const p of probes) {
      const d = p.meta.data as Record<string, number | string>;
      let period: number;
      let rand = 0;
      let probeType = 'hrtimer';
      if (d.kind === 'jiffies') {
        const jns = NS / hz;
        period = Number(d.jiffies) * jns;
        rand = Number(d.randomizeJiffies ?? 0) * jns;
        probeType = 'timer';
      } else if (d.kind === 'hz') {
        period = NS / Number(d.hz);
      } else {
        period = Number(d.intervalNs);
        rand = Number(d.randomizeNs ?? 0);
      }
      if (!(period > 0)) period = NS;
      const next = () => {
        const j = rand > 0 ? Math.floor(engine.random(2 * rand + 1)) - rand : 0;
        return Math.max(1, Math.round(period + j));
      };
      // expiries advance from the previous expiry (hrtimer_forward), not from the time the
      // handler ran: on a machine's clock an event may run a few µs after its time
      let due = engine.now + next();
      const fire = () => {
        if (!this.armed || engine.state !== 'RUNNING') return;
        const cpu = engine.pickCpu();
        const c = engine.newContext(p.meta, { task: engine.idleTask(cpu), cpu, probeType });
        engine.hit(p, c, 'RUNNING');
        if (this.armed) {
          due = Math.max(due + next(), engine.now);
          engine.schedule(due, fire, p.meta.index);
        }
      };
      engine.schedule(due, fire, p.meta.index);
    }
  }
  unregister(): void {
    this.armed = false;
  }
}

export function builtinFamilies(): ProbeFamilyRuntime[] {
  return [
    new SequencedFamily('begin', 'STARTING'),
    new SequencedFamily('end', 'STOPPING'),
    new SequencedFamily('error', 'ERROR'),
    new NeverFamily(),
    new TimerFamily(),
  ];
}

/** Load and run a translated script; resolves to the process exit status. */
export async function runProgram(translated: Translated, opts: RunOptions = {}): Promise<number> {
  const engine = new Engine(translated, opts);
  return engine.run();
}
