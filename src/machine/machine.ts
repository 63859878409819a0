/**
 * The simulated machine: N CPUs, ONE virtual nanosecond clock and ONE event queue for
 * everything (scheduler, timers, I/O completions, and the script engine's timers), a seeded
 * PRNG, and the subsystems (scheduler, processes, memory, filesystem, block, net), assembled
 * here: the top of src/machine/ (README.md has the layers), the one module that imports them
 * all.  It implements every layer's machine interface (core/machine.ts `MachineCore`,
 * include/cpu.ts `CpuMachine`, `SchedMachine`, `MmMachine`, `FsMachine` ...), and installs the
 * kernel's semantics into the paths (`KERNEL_SEMANTICS`).
 *
 * Time: `now` is the time of whatever is executing. Each CPU keeps its own local time `c.now`
 * and runs in steps (events on the queue) of at most `maxStepNs`, so CPUs interleave in virtual
 * time the way they run in parallel on hardware; per-CPU time is monotonic, the global clock
 * may differ between CPUs by at most one step (a few µs).
 */
import { kernelHz } from '../kernel/config';
import { EventQueue, QEvent } from './core/events';
import { Prng } from './core/prng';
import { Cpu } from './include/cpu';
import { Task, Process, TASK_RUNNING, SysResult } from './include/sched';
import type { Env } from './include/kstack';
import { interp, pushPath, newEnv, runSync, R_BUDGET, R_DONE, R_IDLE, R_SWITCH, MAX_CPU_SLOWDOWN } from './paths/kexec';
import { SemanticsOf, installSemantics } from './paths/semantics';
import { syscallEntry } from './paths/syscall';
import { modelEntry } from './paths/entry';
import { kobjects } from './paths/kobjects';
import { returnValues } from './paths/retvals';
import { Sched } from './kernel/sched/fair';
import { schedCore } from './kernel/sched/core';
import { fpu } from './arch/x86/fpu';
import { process64 } from './arch/x86/process_64';
import { time } from './kernel/time';
import { Timers, timer } from './kernel/timer';
import { Rcu, rcu } from './kernel/rcu';
import { softirq } from './kernel/softirq';
import { workqueue } from './kernel/workqueue';
import { sys } from './kernel/sys';
import { capability } from './kernel/capability';
import { perfEventOpen } from './kernel/perf_event_open';
import { signals } from './kernel/signal';
import { posixTimers } from './kernel/posix_timers';
import { itimer } from './kernel/itimer';
import { sem } from './ipc/sem';
import { shm } from './ipc/shm';
import { printk } from './kernel/printk';
import { BlockLayer, block } from './block/core';
import { scsi } from './drivers/scsi';
import { blkMerge } from './block/blk-merge';
import { blkWbt } from './block/blk-wbt';
import { mqDeadline } from './block/mq-deadline';
import { MemSys } from './mm/mm';
import { fault } from './mm/fault';
import { rmap } from './mm/rmap';
import { vmscan } from './mm/vmscan';
import { swapfile } from './mm/swapfile';
import { pageIo } from './mm/page_io';
import { mmap } from './mm/mmap';
import { filemap, warmPageCache } from './mm/filemap';
import { pageWriteback } from './mm/page_writeback';
import { fadvise } from './mm/fadvise';
import { pageAlloc } from './mm/page_alloc';
import { lruSwap } from './mm/swap';
import { Fs, namei } from './fs/namei';
import { fsLayout } from './fs/layout';
import { fsOpen } from './fs/open';
import { fsReadWrite } from './fs/read_write';
import { fsFcntl } from './fs/fcntl';
import { fsUtimes } from './fs/utimes';
import { fsPipe } from './fs/pipe';
import { fsStat } from './fs/stat';
import { fsAttr } from './fs/attr';
import { fsXattr } from './fs/xattr';
import { fsSync } from './fs/sync';
import { ext4 } from './fs/ext4';
import { ext4Trace } from './paths/trace_ext4';
import { timerfd } from './fs/timerfd';
import { fsSelect } from './fs/select';
import { Net, netCore } from './net/core';
import { netLayout } from './net/layout';
import { netSock } from './net/sock';
import { netSocket } from './net/socket';
import { netSockopt } from './net/sockopt';
import { netTcp } from './net/tcp';
import { netRx } from './net/rx';
import { netOnce } from './net/once';
import { netUdp } from './net/udp';
import { netUnix } from './net/unix';
import { netfilter } from './net/netfilter';
import { Disk } from './drivers/disk';
import { loopback } from './drivers/loopback';
import { Uart8250, serial8250 } from './drivers/serial8250';
import { Procs } from './process/procs';
import { fork } from './process/fork';
import { exec } from './process/exec';
import { exit } from './process/exit';
import { runUser } from './process/user';
import { populate } from './userland/fstree';
import { startDefaultSystem } from './userland/workload';
import { attachTracefs, type MachineTracefs } from './fs/tracing';
import type { Tracefs } from '../kernel/tracefs/tracefs';

/**
 * Everything the kernel's subsystems attach to the call paths (paths/semantics.ts), layer by
 * layer.  The element type checks that a Machine gives each subsystem what its `Semantics<M>`
 * needs.  Names are unique across subsystems; return-value rules last (a later rule for the
 * same function wins, and retvals' rules are made on first use).
 */
const KERNEL_SEMANTICS: readonly SemanticsOf<Machine>[] = [
  syscallEntry, modelEntry, kobjects,
  schedCore, fpu, process64, time, timer, rcu, softirq, workqueue, sys, capability, signals, posixTimers, itimer, perfEventOpen, printk,
  sem, shm,
  block, blkMerge, blkWbt, mqDeadline, scsi,
  fault, rmap, vmscan, swapfile, pageIo, mmap, filemap, pageWriteback, fadvise, pageAlloc, lruSwap,
  fsLayout, namei, fsOpen, fsReadWrite, fsFcntl, fsUtimes, fsPipe, fsStat, fsSync, ext4, ext4Trace, fsAttr, fsXattr, timerfd, fsSelect,
  netLayout, netCore, netSock, netSocket, netSockopt, netTcp, netRx, netOnce, netUdp, netUnix, netfilter,
  loopback, serial8250,
  fork, exec, exit,
  returnValues,
];

/** arch/x86/include/asm/irq_vectors.h LOCAL_TIMER_VECTOR: the local APIC timer's interrupts (the tick, hrtimers) */
const LOCAL_TIMER_VECTOR = 236;

/** Attach the kernel's semantics to the paths (once per process; every Machine does it first). */
export function installKernelSemantics(): void {
  for (const s of KERNEL_SEMANTICS) installSemantics(s);
}

export interface MachineOptions {
  /** number of CPUs (default 4) */
  cpus?: number;
  /** PRNG seed (default 1) */
  seed?: number;
  /** RAM in MiB (default 2048) */
  memMB?: number;
  /** uptime at start, ns (default 10896 s like the seed trace) */
  bootNs?: number;
  /** start the default system services (default true) */
  defaultSystem?: boolean;
  /** longest uninterrupted CPU step, ns (default 20 µs) */
  maxStepNs?: number;
  /** hostname */
  hostname?: string;
  /** a kernel built with CONFIG_FUNCTION_PROFILER (Debian's 6.1 is not) */
  functionProfiler?: boolean;
  /**
   * How many times slower than hardware the CPUs execute (default 1: hardware speed). Scales the
   * simulated time of CPU work (kernel functions, modelled copies, programs' compute), not of timers,
   * sleeps or devices: bench/fidelity.ts runs the machine at the speed of the recordings' QEMU (TCG)
   * guest. At most paths/kexec.ts MAX_CPU_SLOWDOWN.
   */
  cpuSlowdown?: number;
}

export class Machine {
  readonly ncpus: number;
  readonly cpus: Cpu[] = [];
  readonly rand: Prng;
  readonly pathRand: Prng;
  readonly hz: number;
  readonly tickNs: number;
  readonly maxStepNs: number;
  readonly hostname: string;
  readonly queue = new EventQueue();
  /** current virtual time, ns since boot */
  now: number;
  readonly bootNs: number;
  readonly sched: Sched;
  /** kernel timers and the NO_HZ tick (kernel/timer.ts) */
  readonly timers: Timers;
  /** RCU grace periods (kernel/rcu.ts) */
  readonly rcu: Rcu;
  readonly procs: Procs;
  readonly mm: MemSys;
  readonly fs: Fs;
  readonly blk: BlockLayer;
  readonly net: Net;
  /** the serial port behind /dev/ttyS0 (a 16550A: drivers/serial8250.ts); `serial.sink` gets what it sends */
  readonly serial: Uart8250;
  /** tracefs / debugfs (mounted at boot as Debian's systemd does; the Tracefs made on first use: fs/tracing.ts) */
  private readonly tracing: MachineTracefs;
  get tracefs(): Tracefs {
    return this.tracing.get();
  }
  /** the clock API for the engine and probe layers */
  readonly clock = { now: (): number => this.now };
  /** kernel function calls executed (mcount sites reached) */
  kcalls = 0;
  readonly cpuSlowdown: number;
  /**
   * The CPU whose code is executing right now (a CPU step, an interrupt or softirq on it), or
   * null between steps (queue events that are not CPU code).  Probe layers read it to know which
   * CPU context a tracepoint or other hook fires in: `machine.executingCpu()`.
   */
  executing: Cpu | null = null;
  private stopped = false;
  /** called when a user process writes to the console (fd 1/2 of processes without redirection) */
  console: (s: string) => void = () => undefined;

  constructor(opts: MachineOptions = {}) {
    installKernelSemantics();
    this.ncpus = opts.cpus ?? 4;
    this.rand = new Prng(opts.seed ?? 1);
    this.pathRand = new Prng(((opts.seed ?? 1) ^ 0x5bd1e995) >>> 0);
    this.hz = kernelHz();
    this.tickNs = Math.round(1e9 / this.hz);
    this.maxStepNs = opts.maxStepNs ?? 20000;
    this.cpuSlowdown = opts.cpuSlowdown ?? 1;
    if (!(this.cpuSlowdown > 0 && this.cpuSlowdown <= MAX_CPU_SLOWDOWN)) throw new RangeError(`cpuSlowdown ${this.cpuSlowdown} is not in (0, ${MAX_CPU_SLOWDOWN}]`);
    this.hostname = opts.hostname ?? 'debian';
    this.bootNs = opts.bootNs ?? 10896 * 1e9;
    this.now = this.bootNs;
    for (let i = 0; i < this.ncpus; i++) {
      const c = new Cpu(i);
      c.now = this.now;
      this.cpus.push(c);
    }
    this.sched = new Sched(this, new Prng(((opts.seed ?? 1) ^ 0x1b873593) >>> 0));
    this.timers = new Timers(this, new Prng(((opts.seed ?? 1) ^ 0x2545f491) >>> 0));
    this.rcu = new Rcu(this);
    this.procs = new Procs(this);
    this.mm = new MemSys(this, opts.memMB ?? 2048);
    this.blk = new BlockLayer(this, new Disk(this));
    this.fs = new Fs(this);
    populate(this, this.fs);
    this.serial = new Uart8250(this, opts.seed ?? 1);
    const ttyS0 = this.fs.lookup('/dev/ttyS0');
    if (ttyS0) ttyS0.cdev = this.serial;
    warmPageCache(this, (p) => this.fs.lookup(p));
    this.net = new Net(this, new Prng(((opts.seed ?? 1) ^ 0x7f4a7c15) >>> 0));
    this.tracing = attachTracefs(this, { functionProfiler: opts.functionProfiler });
    this.procs.boot();
    if (opts.defaultSystem ?? true) startDefaultSystem(this);
  }

  // ------------------------------------------------------------------ clock and events

  /** Schedule `cb` at absolute virtual time `atNs` (ns since boot). Ties: `prio`, then FIFO. */
  schedule(atNs: number, cb: () => void, prio = 0): QEvent {
    return this.queue.push(atNs, cb, prio);
  }

  /** Schedule relative to now. */
  after(ns: number, cb: () => void, prio = 0): QEvent {
    return this.queue.push(this.now + ns, cb, prio);
  }

  cancel(ev: QEvent | null): void {
    if (ev) ev.cancelled = true;
  }

  /** Run one event. False when the queue is empty. */
  stepSlice(): boolean {
    const ev = this.queue.peek();
    if (!ev) return false;
    this.queue.pop();
    this.now = ev.t;
    ev.fire();
    return true;
  }

  /**
   * Run events until virtual time `limit` (ns since boot; the clock is left at `limit`) or until
   * `limit()` returns true (checked after every event). `maxNs` bounds a predicate run.
   */
  runUntil(limit: number | (() => boolean), maxNs = Infinity): void {
    this.stopped = false;
    if (typeof limit === 'number') {
      for (;;) {
        const ev = this.queue.peek();
        if (!ev || ev.t > limit || this.stopped) break;
        this.queue.pop();
        this.now = ev.t;
        ev.fire();
      }
      if (this.now < limit) this.now = limit;
      for (const c of this.cpus) if (c.now < limit && c.idling) c.now = limit;
      return;
    }
    const end = this.now + maxNs;
    while (!limit() && !this.stopped) {
      const ev = this.queue.peek();
      if (!ev || ev.t > end) break;
      this.queue.pop();
      this.now = ev.t;
      ev.fire();
    }
  }

  /** Run for `ns` of virtual time from now. */
  runFor(ns: number): void {
    this.runUntil(this.now + ns);
  }

  /** Stop a runUntil in progress (after the current event). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Paced run for interactive use: virtual time advances no faster than wall time. Resolves
   * when virtual time reaches `limit` or `done()` holds.
   */
  async runPaced(limit: number, done: () => boolean = () => false, sliceMs = 10): Promise<void> {
    const t0 = process.hrtime.bigint();
    const v0 = this.now;
    while (this.now < limit && !done()) {
      const wall = Number(process.hrtime.bigint() - t0);
      this.runUntil(Math.min(limit, v0 + wall + sliceMs * 1e6));
      await new Promise<void>((r) => setTimeout(r, sliceMs));
    }
  }

  /**
   * Run until `done()` holds (or nothing is left to run), letting Node's event loop (a terminal,
   * timers, a program's session ending in a microtask after stop()) run between slices of 50 ms
   * of virtual time; paced: no faster than wall time (interactive shells).
   */
  async runAsync(done: () => boolean, paced = false): Promise<void> {
    const wall0 = Date.now();
    const v0 = this.now;
    while (!done()) {
      if (paced) {
        const target = v0 + (Date.now() - wall0) * 1e6 + 20e6;
        this.runUntil(() => done() || this.now >= target, 1e9);
        await new Promise<void>((r) => setTimeout(r, 10));
      } else {
        const until = this.now + 50e6;
        this.runUntil(() => done() || this.now >= until, 1e9);
        // (no turn of the host's event loop once done: a plain `sh -c true` never sets up Node's timers)
        if (done() || !this.queue.peek()) break;
        await new Promise<void>((r) => setImmediate(r));
      }
    }
  }

  // ------------------------------------------------------------------ CPUs

  /** Make CPU `c` run a step at time `at` (or earlier if one is pending later). */
  kick(c: Cpu, at = this.now): void {
    if (at < c.now) at = c.now;
    if (c.stepEv && !c.stepEv.cancelled && c.stepAt <= at) return;
    if (c.stepEv) c.stepEv.cancelled = true;
    c.stepAt = at;
    c.stepEv = this.queue.push(at, c.stepFn ?? (c.stepFn = () => this.cpuStep(c)), 1);
  }

  /** Run an interrupt path on CPU `c` now (hardirq context), then let the CPU reschedule. */
  irq(c: Cpu, pathName: string, env: Env, context = 2): void {
    // a device's hardirq while the CPU is in __schedule with irqs off stays pending until they are
    // on again (Cpu.schedIrqsOff); the local APIC timer's (vector 236: the tick, hrtimers), which the
    // machine takes at its CPU steps' tick points, is not held back
    if (context === 2 && c.schedIrqsOff && env.irq !== LOCAL_TIMER_VECTOR) { c.deferredIrqs.push(() => this.irq(c, pathName, env, context)); return; }
    const start = Math.max(this.now, c.now);
    const wasIdle = c.idling;
    this.now = start;
    const ctx = c.ctx;
    const oldCtx = ctx.context, oldIrq = ctx.irqsOff, oldPc = ctx.preemptCount;
    ctx.context = context;
    ctx.irqsOff = context === 2;
    ctx.preemptCount = (oldPc ?? 0) + (context === 2 ? 0x10000 : 0x100);
    c.irqs++;
    const oldExec = this.executing;
    this.executing = c;
    try {
      runSync(this, c, c.irqStack, pathName, env);
    } finally {
      this.executing = oldExec;
    }
    ctx.context = oldCtx;
    ctx.irqsOff = oldIrq;
    ctx.preemptCount = oldPc;
    if (c.softirqPending && context === 2) this.softirq(c);
    const spent = this.now - start;
    if (wasIdle) c.idleNs -= 0; else c.busyNs += spent;
    c.now = this.now;
    if (c.needResched || (wasIdle && this.sched.hasRunnable(c))) this.kick(c, this.now);
  }

  /** Run pending softirqs on the way out of an interrupt (__do_softirq). */
  softirq(c: Cpu): void {
    const ctx = c.ctx;
    const oldCtx = ctx.context, oldPc = ctx.preemptCount;
    ctx.context = 1;
    ctx.preemptCount = (oldPc ?? 0) + 0x100;
    c.softirqs++;
    const oldExec = this.executing;
    this.executing = c;
    try {
      runSync(this, c, c.irqStack, 'do_softirq', newEnv('softirq', { pending: c.softirqPending }));
    } finally {
      this.executing = oldExec;
    }
    c.softirqPending = 0;
    ctx.context = oldCtx;
    ctx.preemptCount = oldPc;
  }

  private cpuStep(c: Cpu): void {
    const oldExec = this.executing;
    this.executing = c;
    try {
      this.cpuStepOn(c);
    } finally {
      this.executing = oldExec;
    }
  }

  private cpuStepOn(c: Cpu): void {
    c.stepEv = null;
    c.stepAt = Infinity;
    const start = Math.max(this.now, c.now);
    this.now = start;
    if (c.idling) {
      c.idleNs += start - c.idleSince;
      c.idling = false;
      if (!c.ticking) { c.ticking = true; c.nextTick = (Math.floor(start / this.tickNs) + 1) * this.tickNs; }
    }
    if (c.ticking && this.now >= c.nextTick) {
      c.nextTick = (Math.floor(this.now / this.tickNs) + 1) * this.tickNs;
      this.sched.tick(c);
    }
    const until = Math.min(c.ticking ? c.nextTick : Infinity, this.now + this.maxStepNs);
    let guard = 0;
    while (this.now < until) {
      if (++guard > 100000) throw new Error(`cpu ${c.id}: no progress`);
      const t = c.curr;
      c.ks = t.ks;
      if (t.ks.frames.length === 0) {
        if (t.idle) pushPath(t.ks, 'idle_loop', newEnv('idle'));
        else if (t.kthread) {
          if (!t.kbody) throw new Error(`kthread ${t.comm} has no body`);
          t.kbody(t);
        } else if (c.needResched && t.state === TASK_RUNNING) {
          pushPath(t.ks, 'preempt_user', newEnv('preempt'));
        } else {
          runUser(this, c, t, until);
          if (t.ks.frames.length === 0) continue;
        }
      }
      const r = interp(this, c, t.ks, t, until);
      if (r === R_SWITCH || r === R_DONE) continue;
      if (r === R_IDLE) {
        c.now = this.now;
        c.idling = true;
        c.idleSince = this.now;
        c.ticking = false;
        return;
      }
      if (r === R_BUDGET) break;
    }
    c.busyNs += this.now - start;
    c.now = this.now;
    this.kick(c, this.now);
  }

  // ------------------------------------------------------------------ convenience

  /** Stop tracing (a machine shutting down): the tracefs's tracers, events and probes, if it was made. */
  shutdownTracing(): void {
    this.tracing.made()?.shutdown();
  }

  /** The CPU executing right now (see `executing`), or null outside CPU code. */
  executingCpu(): Cpu | null {
    return this.executing;
  }

  /** The task running on a CPU. */
  current(cpu: number): Task {
    return this.cpus[cpu].curr;
  }

  /** Task by tid. */
  task(tid: number): Task | undefined {
    return this.procs.tasks.get(tid);
  }

  /** Run a shell command line (`sh -c CMD`) as a child of init; returns its pid. */
  spawnShell(cmd: string, out: (s: string) => void, err?: (s: string) => void): Process {
    return this.procs.spawnShell(cmd, out, err ?? out);
  }

  /** Run `cmd` to completion (or `maxNs` of virtual time); returns the exit status and output. */
  run(cmd: string, maxNs = 600e9): { status: number; out: string; pid: number } {
    let out = '';
    const p = this.spawnShell(cmd, (s) => { out += s; });
    this.runUntil(() => p.finished, maxNs);
    return { status: p.exited ? p.exitCode : -1, out, pid: p.tgid };
  }
}

export type { SysResult, Process, Task };
