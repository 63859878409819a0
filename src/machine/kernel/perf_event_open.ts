/**
 * perf_event_open(2) (kernel/events/core.c's user side): events a program opens on a task (and,
 * with `inherit`, its children forked later) or on one CPU, as file descriptors it read(2)s,
 * ioctl(2)s (ENABLE, DISABLE, RESET) and closes.  Counts follow the machine's real events:
 *
 *   software events (type 1) through the dispatch table of perf_events.ts (page faults, context
 *     switches, migrations), the clock events by accounting run time at each context switch
 *     (task_clock: the task's time on a CPU; cpu_clock of a CPU: the time since enable) or, when
 *     sampling, by the per-CPU hrtimer;
 *   tracepoints (type 2, config = the event's id) with a probe on the tracepoint (syscalls:*
 *     through the shared raw_syscalls probe), as perf_trace_event_reg does.
 *
 * read(2) of a counting event: u64 value [, u64 time_enabled (read_format bit 0)] [, u64
 * time_running (bit 1)].  Sampling events (sample_period/freq set) take one sample per overflow:
 * the real kernel writes them to a ring buffer the tool mmap()s; the machine has no shared pages,
 * so here read(2) of a sampling event returns the unread sample records instead (PERF_RECORD_SAMPLE
 * with IP|TID|TIME|CPU|PERIOD|CALLCHAIN laid out as the kernel does, then the hit's numeric
 * arguments as u64s (count first, in place of PERF_SAMPLE_RAW's record) and the task's 16-byte comm
 * in place of the PERF_RECORD_COMM side band).  enable_on_exec starts an event when its task execs
 * (perfEventExec, from begin_new_exec).  Hardware events fail with ENOENT (no PMU, as a VM without one).
 */
import type { CpuMachine } from '../include/cpu';
import type { Task, Process } from '../include/sched';
import type { CpuContext } from '../../kernel/current';
import type { PseudoOpen } from '../../kernel/tracefs/vfs';
import { OpenFile } from '../include/fs';
import { installFd, fdOf } from '../include/fdtable';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { symbolAddr } from '../../kernel/kallsyms';
import { functionId } from '../../kernel/ftrace';
import { returnAddress } from '../../kernel/callsites';
import { userCopy } from '../paths/args';
import { eventById, tracepointProbeRegister, tracepointProbeUnregister, syscallEventProbeRegister, syscallEventProbeUnregister } from '../../kernel/tracepoint';
import { PerfCounter, SampledPc, perfSw, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_MAX } from './perf_events';

export const PERF_TYPE_TRACEPOINT = 2;
export const PERF_EVENT_IOC_ENABLE = 0x2400;
export const PERF_EVENT_IOC_DISABLE = 0x2401;
export const PERF_EVENT_IOC_RESET = 0x2403;
export const PERF_FORMAT_TOTAL_TIME_ENABLED = 1;
export const PERF_FORMAT_TOTAL_TIME_RUNNING = 2;
export const PERF_RECORD_SAMPLE = 9;

const ENOENT = 2, ESRCH = 3, EBADF = 9, EFAULT = 14, EINVAL = 22, ENOTTY = 25;

/** struct perf_event_attr: the fields the machine's events use. */
export interface PerfEventAttr {
  type: number;
  config: number;
  /** sample_period, or sample_freq when `freq`; 0: counting */
  sample: number;
  freq: boolean;
  /** PERF_SAMPLE_CALLCHAIN requested */
  callchain: boolean;
  /** PERF_SAMPLE_RAW requested: a tracepoint sample carries the hit's numeric arguments */
  raw?: boolean;
  readFormat: number;
  disabled: boolean;
  inherit: boolean;
  enableOnExec: boolean;
}

/** What perf events need of the machine. */
export interface PerfMachine extends CpuMachine {
  task(pid: number): Task | undefined;
}

/** One sample as the ring buffer would hold it. */
export interface PerfSample {
  ip: number; pid: number; tid: number; time: number; cpu: number; period: number; comm: string; callchain: number[]; raw: number[];
}

/**
 * Functions whose calls of the next function are tail jumps (6.1's x64_sys_call: every case is
 * `return __x64_sys_NAME(regs)`): no frame of theirs is on the stack, as the recorded stacks show
 * (test/fixtures/tracefs-real/stack_tracer, ev_trigger_stack: __x64_sys_X called from do_syscall_64+0x5d).
 */
const TAIL_CALLERS = ['x64_sys_call'];
/**
 * Tracepoints fired where the model has no frame: the function their trace_X() call is compiled
 * into (sched_switch in __schedule, notrace), the sample's ip as perf_fetch_caller_regs takes it.
 */
const TP_SITE: Record<string, string> = { 'sched:sched_switch': '__schedule', 'raw_syscalls:sys_enter': 'syscall_trace_enter.constprop.0' };
/** the site of a tracepoint: TP_SITE, syscalls:sys_enter_* where raw_syscalls:sys_enter fires (kernel/entry/common.c) */
function tpSite(system: string, name: string): string | undefined {
  return TP_SITE[`${system}:${name}`] ?? (system === 'syscalls' && name.startsWith('sys_enter_') ? TP_SITE['raw_syscalls:sys_enter'] : undefined);
}
/**
 * Below an idle task's loop: the boot CPU's and the secondaries' stacks as a recorded
 * `perf record -g` shows them (test/fixtures/tracefs-real/perf_record_g), outermost first.
 */
const IDLE_BASE = {
  boot: ['secondary_startup_64_no_verify', 'start_kernel', 'arch_call_rest_init', 'rest_init', 'cpu_startup_entry', 'do_idle'],
  secondary: ['secondary_startup_64_no_verify', 'start_secondary', 'cpu_startup_entry', 'do_idle'],
};

/**
 * The callchain of a sample as the kernel unwinds it: the running function first, then each
 * caller at the return address of its call (src/kernel/callsites.ts), innermost first.
 */
function callchainOf(m: CpuMachine, ctx: CpuContext, siteFn: number): number[] {
  const c = m.cpus[ctx.cpu];
  if (!c || c.curr !== ctx.task) return [];
  const ks = c.ks;
  const fns: number[] = [];
  for (let i = 0; i < ks.sp; i++) fns.push(ks.fn[i]);
  if ((ctx.task as Task).pid === 0) {
    const base = (ctx.cpu === 0 ? IDLE_BASE.boot : IDLE_BASE.secondary).map(functionId);
    const bottom = fns.length ? base.indexOf(fns[0]) : -1;
    fns.unshift(...(bottom >= 0 ? base.slice(0, bottom) : base));
  }
  if (siteFn >= 0 && fns[fns.length - 1] !== siteFn) fns.push(siteFn);
  if (!fns.length) return [];
  const tail = TAIL_CALLERS.map(functionId);
  const out = [symbolAddr(fns[fns.length - 1])];
  for (let i = fns.length - 2; i >= 0; i--) if (!tail.includes(fns[i])) out.push(returnAddress(fns[i], fns[i + 1]));
  return out;
}

/** A user's perf event: a counter with the task/CPU filter of perf_event_open. */
class UserPerfEvent extends PerfCounter {
  enabled = false;
  private enabledAt = 0;
  private timeEnabled = 0;
  /** clock events in counting mode: ns accumulated, and the running tasks' start times */
  private clockNs = 0;
  private running = new Map<Task, number>();
  samples: PerfSample[] = [];
  lost = 0;
  /** the arguments of the tracepoint hit being counted (PERF_SAMPLE_RAW) */
  pendingRaw: number[] = [];
  /** the function a tracepoint event's samples are taken in when the model has no frame for it (TP_SITE), else -1 */
  readonly siteFn: number;
  release: () => void = () => undefined;
  constructor(readonly m: PerfMachine, readonly ua: PerfEventAttr, readonly target: Process | null, readonly onCpu: number) {
    super({ type: ua.type, config: ua.config, sample: ua.sample, freq: ua.freq }, m.ncpus, null);
    const ev = ua.type === PERF_TYPE_TRACEPOINT ? eventById(ua.config) : null;
    const site = ev ? tpSite(ev.system, ev.name) : undefined;
    this.siteFn = site ? functionId(site) : -1;
    (this as { handler: ((ctx: CpuContext) => void) | null }).handler = ua.sample > 0 ? (ctx) => this.sampleAt(ctx) : null;
  }
  get isClock(): boolean {
    return this.ua.type === PERF_TYPE_SOFTWARE && (this.ua.config === PERF_COUNT_SW_CPU_CLOCK || this.ua.config === PERF_COUNT_SW_TASK_CLOCK);
  }
  matches(t: Task, cpu: number): boolean {
    if (this.onCpu >= 0 && cpu !== this.onCpu) return false;
    if (!this.target) return true;
    for (let p: Process | null = t.proc; p; p = this.ua.inherit ? p.parent : null) if (p === this.target) return true;
    return false;
  }
  override add(ctx: CpuContext, n: number, pc?: SampledPc): void {
    if (!this.enabled || !this.matches(ctx.task as Task, ctx.cpu)) return;
    super.add(ctx, n, pc);
  }
  private sampleAt(ctx: CpuContext): void {
    const t = ctx.task as Task;
    const chain = callchainOf(this.m, ctx, this.siteFn);
    if (this.samples.length >= 1 << 20) { this.lost++; return; }
    this.samples.push({
      ip: chain[0] ?? 0, pid: t.pid, tid: t.tid, time: Math.floor(this.m.now), cpu: ctx.cpu, period: this.period,
      comm: t.comm, callchain: this.ua.callchain ? chain : [], raw: this.pendingRaw,
    });
  }
  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    this.enabledAt = this.m.now;
    if (this.isClock && this.ua.sample === 0) {
      for (const c of this.m.cpus) if (this.clockCounts(c.curr, c.id)) this.running.set(c.curr, this.m.now);
    }
  }
  disable(): void {
    if (!this.enabled) return;
    this.settle();
    this.timeEnabled += this.m.now - this.enabledAt;
    this.enabled = false;
  }
  reset(): void {
    this.settle();
    this.count.fill(0);
    this.clockNs = 0;
  }
  /** counting clock events: charge the running tasks up to now */
  private settle(): void {
    for (const [t, at] of this.running) { this.clockNs += this.m.now - at; this.running.set(t, this.m.now); }
  }
  private clockCounts(t: Task, cpu: number): boolean {
    if (this.onCpu >= 0 && !this.target) return cpu === this.onCpu; // a CPU's clock: idle time too
    return !t.idle && this.matches(t, cpu);
  }
  /** a context switch on `cpu` (counting clock events) */
  switched(cpu: number, prev: Task, next: Task, now: number): void {
    if (!this.enabled) return;
    const at = this.running.get(prev);
    if (at !== undefined) { this.clockNs += now - at; this.running.delete(prev); }
    if (this.clockCounts(next, cpu)) this.running.set(next, now);
  }
  value(): number {
    if (this.isClock && this.ua.sample === 0) {
      let v = this.clockNs;
      if (this.enabled) for (const at of this.running.values()) v += this.m.now - at;
      return v;
    }
    let v = 0;
    for (const x of this.count) v += x;
    return v;
  }
  enabledNs(): number {
    return this.timeEnabled + (this.enabled ? this.m.now - this.enabledAt : 0);
  }
}

/** Events that start at their task's exec, and the counting clock events switches charge. */
const onExec = new Set<UserPerfEvent>();
const clocks = new Set<UserPerfEvent>();

/** perf_event_exec(): `t` is exec'ing (begin_new_exec); its enable_on_exec events start. */
export function perfEventExec(t: Task): void {
  if (!onExec.size) return;
  for (const ev of [...onExec]) {
    if (ev.target === t.proc) { ev.enable(); onExec.delete(ev); }
  }
}

/** The scheduler's context switch, for the counting clock events (perf_event_task_sched_out/in). */
export function perfEventSwitch(cpu: number, prev: Task, next: Task, now: number): void {
  for (const ev of clocks) ev.switched(cpu, prev, next, now);
}
export function perfClockEvents(): boolean {
  return clocks.size > 0;
}

/** hrtimer sampling of a clock event (perf_swevent_hrtimer): each CPU every period. */
function startSampling(m: PerfMachine, ev: UserPerfEvent): () => void {
  let live = true;
  const fire = (): void => {
    if (!live) return;
    for (let cpu = 0; cpu < m.ncpus; cpu++) {
      const t = m.current(cpu);
      if (ev.ua.config === PERF_COUNT_SW_TASK_CLOCK && t.idle) continue;
      ev.add({ cpu, task: t, context: 2 }, ev.period);
    }
    m.schedule(m.now + ev.period, fire, 0);
  };
  m.schedule(m.now + ev.period, fire, 0);
  return () => { live = false; };
}

/** Attach the event to its source; the detach function, or -errno. */
function attach(m: PerfMachine, ev: UserPerfEvent): (() => void) | number {
  const a = ev.ua;
  if (a.type === PERF_TYPE_SOFTWARE) {
    if (a.config < 0 || a.config >= PERF_COUNT_SW_MAX) return -ENOENT;
    if (ev.isClock) {
      if (a.sample > 0) return startSampling(m, ev);
      clocks.add(ev);
      return () => { clocks.delete(ev); };
    }
    perfSw.add(ev);
    return () => perfSw.remove(ev);
  }
  if (a.type === PERF_TYPE_TRACEPOINT) {
    const tp = eventById(a.config);
    if (!tp) return -ENOENT;
    const hit = (_d: unknown, ...args: unknown[]): void => {
      const c = m.executing ?? m.cpus[0];
      if (a.raw) ev.pendingRaw = rawOf(args, (c.curr as Task).pid);
      ev.add(c.ctx, 1);
    };
    if (tp.system === 'syscalls') {
      const r = syscallEventProbeRegister(tp.name, hit, ev);
      return r < 0 ? r : () => { syscallEventProbeUnregister(tp.name, hit, ev); };
    }
    const r = tracepointProbeRegister(tp.name, hit, ev);
    return r < 0 ? r : () => { tracepointProbeUnregister(tp.name, hit, ev); };
  }
  return -ENOENT;
}

/**
 * The numeric arguments of a hit; a pt_regs argument contributes its orig_ax (the syscall number)
 * in place, and its six argument registers after all the others (a string or buffer argument as
 * the user address the task holds it at), as PERF_SAMPLE_RAW of raw_syscalls:sys_enter carries args[6].
 */
function rawOf(args: unknown[], pid: number): number[] {
  const out: number[] = [];
  let regs: unknown[] | null = null;
  for (const x of args) {
    if (typeof x === 'number' || typeof x === 'bigint') out.push(Number(x));
    else if (x && typeof x === 'object' && 'orig_ax' in x) {
      out.push(Number((x as { orig_ax: number }).orig_ax));
      regs = (x as { args?: unknown[] }).args ?? null;
    }
  }
  if (regs) {
    for (let i = 0; i < 6; i++) {
      const v = regs[i];
      out.push(typeof v === 'number' || typeof v === 'bigint' ? Number(v)
        : typeof v === 'string' || v instanceof Uint8Array ? userCopy(pid, v) : 0);
    }
  }
  return out;
}

function u64(b: Buffer, off: number, v: number): void {
  b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(Math.floor(v))), off);
}

/** Bytes of one sample record. */
export function sampleSize(x: PerfSample): number {
  return 56 + 8 * x.callchain.length + 8 + 8 * x.raw.length + 16;
}

/** PERF_RECORD_SAMPLE records of `s` (header, ip, pid, tid, time, cpu, res, period, nr, ips[nr], nraw, raw[nraw] as u64, comm[16]). */
export function encodeSamples(s: readonly PerfSample[]): Buffer {
  const parts: Buffer[] = [];
  for (const x of s) {
    const size = sampleSize(x);
    const b = Buffer.alloc(size);
    b.writeUInt32LE(PERF_RECORD_SAMPLE, 0);
    b.writeUInt16LE(x.ip >= 0xffff800000000000 || x.ip < 0 ? 1 : 2, 4); // PERF_RECORD_MISC_KERNEL / _USER
    b.writeUInt16LE(size, 6);
    u64(b, 8, x.ip);
    b.writeUInt32LE(x.pid, 16); b.writeUInt32LE(x.tid, 20);
    u64(b, 24, x.time);
    b.writeUInt32LE(x.cpu, 32);
    u64(b, 40, x.period);
    u64(b, 48, x.callchain.length);
    x.callchain.forEach((ip, i) => u64(b, 56 + 8 * i, ip));
    let o = 56 + 8 * x.callchain.length;
    u64(b, o, x.raw.length);
    x.raw.forEach((v, i) => u64(b, o + 8 + 8 * i, v));
    o += 8 + 8 * x.raw.length;
    b.write(x.comm.slice(0, 15), o, 'latin1');
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** The open file of an event (anon_inode:[perf_event]). */
class PerfEventOpen implements PseudoOpen {
  constructor(readonly ev: UserPerfEvent) {}
  read(count: number): Uint8Array {
    const ev = this.ev;
    if (ev.ua.sample > 0) {
      // the unread samples that fit
      const out: PerfSample[] = [];
      let n = 0;
      while (ev.samples.length) {
        const x = ev.samples[0];
        const sz = sampleSize(x);
        if (n + sz > count) break;
        out.push(ev.samples.shift()!);
        n += sz;
      }
      return encodeSamples(out);
    }
    const b = Buffer.alloc(24);
    let n = 8;
    u64(b, 0, ev.value());
    if (ev.ua.readFormat & PERF_FORMAT_TOTAL_TIME_ENABLED) { u64(b, n, ev.enabledNs()); n += 8; }
    if (ev.ua.readFormat & PERF_FORMAT_TOTAL_TIME_RUNNING) { u64(b, n, ev.enabledNs()); n += 8; }
    return count < n ? new Uint8Array(0) : b.subarray(0, n);
  }
  write(): number { return -EINVAL; }
  release(): number {
    this.ev.disable();
    this.ev.release();
    onExec.delete(this.ev);
    return 0;
  }
  ioctl(cmd: number): number {
    switch (cmd) {
      case PERF_EVENT_IOC_ENABLE: this.ev.enable(); return 0;
      case PERF_EVENT_IOC_DISABLE: this.ev.disable(); return 0;
      case PERF_EVENT_IOC_RESET: this.ev.reset(); return 0;
      default: return -ENOTTY;
    }
  }
}

export const perfEventOpen = new Semantics<PerfMachine>('kernel/events');

/** perf_event_open(attr, pid, cpu, group_fd, flags): the attr itself rides in `e.attr`. */
perfEventOpen.syscall('perf_event_open', (m, _c, t, e) => {
  const attr = e.attr as PerfEventAttr | undefined;
  const [, pidArg, cpuArg] = e.a as number[];
  const pid = Number(pidArg), cpu = Number(cpuArg);
  if (!attr) { e.ret = -EFAULT; return H_CONT; }
  if (pid === -1 && cpu === -1) { e.ret = -EINVAL; return H_CONT; }
  if (cpu < -1 || cpu >= m.ncpus) { e.ret = -EINVAL; return H_CONT; }
  let target: Process | null = null;
  if (pid !== -1) {
    const tt = pid === 0 ? t : m.task(pid);
    if (!tt) { e.ret = -ESRCH; return H_CONT; }
    target = tt.proc;
  }
  if (attr.sample < 0) { e.ret = -EINVAL; return H_CONT; }
  const ev = new UserPerfEvent(m, attr, target, cpu);
  const r = attach(m, ev);
  if (typeof r === 'number') { e.ret = r; return H_CONT; }
  ev.release = r;
  const f = new OpenFile('proc', null, 2);
  f.pseudo = new PerfEventOpen(ev);
  f.onClose = () => { f.pseudo?.release(); };
  if (attr.enableOnExec && target) onExec.add(ev);
  else if (!attr.disabled) ev.enable();
  e.ret = installFd(t, f);
  return H_CONT;
});

/**
 * ioctl(fd, cmd, arg) on a perf event; on a terminal (the console a command writes to, /dev/tty*):
 * TCGETS and TIOCGWINSZ succeed (isatty(), ls's window size: 0x0 as the recorded serial console);
 * FICLONE (cp's reflink attempt) on a regular file: EOPNOTSUPP; other files: ENOTTY.
 */
perfEventOpen.syscall('ioctl', (_m, _c, t, e) => {
  const f = fdOf(t, (e.a as number[])[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  const p = f.pseudo as (PseudoOpen & { ioctl?(cmd: number): number }) | null;
  const cmd = Number((e.a as number[])[1]);
  const tty = f.kind === 'console' || (f.inode !== null && f.inode.isChr && [4, 5, 136].includes(f.inode.rdev >> 8));
  // FICLONE on a regular file: ext4 has no remap_file_range (ioctl_file_clone: EOPNOTSUPP)
  const clone = cmd === 0x40049409 && f.kind === 'file' && f.inode?.isReg === true;
  e.ret = p?.ioctl ? p.ioctl(cmd) : tty && (cmd === 0x5401 || cmd === 0x5413) ? 0 : clone ? -95 : -ENOTTY;
  return H_CONT;
});
