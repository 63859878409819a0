/**
 * perf events of the simulated kernel (kernel/events/core.c in miniature): in-kernel counters
 * created with `perfEventCreateKernelCounter()` (perf_event_create_kernel_counter, one per CPU,
 * as SystemTap's perf probes do), their overflow handler called every `period` events.
 *
 * Software events (PERF_TYPE_SOFTWARE, type 1) only: the simulated CPUs have no PMU (as a VM
 * without a virtual PMU), so PERF_TYPE_HARDWARE / HW_CACHE / RAW and unknown types fail with
 * -ENOENT (perf_init_event finds no PMU), and software configs past PERF_COUNT_SW_MAX too.
 *
 *   cpu_clock (0): a per-CPU hrtimer every `period` ns of time, idle CPUs included (the hrtimer
 *     interrupt wakes a NO_HZ idle CPU): hardirq context, the interrupted task (swapper/N idle)
 *   task_clock (1): the same timer, counting only while a non-idle task runs on the CPU
 *   page_faults (2) / page_faults_min (5) / page_faults_maj (6): the fault path (mm/mm.ts, mm/fault.ts: at
 *     do_user_addr_fault, then mm_account_fault after the fault is resolved; major = swap-in)
 *   context_switches (3): perf_event_task_sched_out (current = the task switched out)
 *   cpu_migrations (4): perf_event_task_sched_in of a task that changed CPU since it last ran
 *   alignment_faults (7), emulation_faults (8): x86_64 never raises them here (as on real x86)
 *
 * Call sites check `perfSw.active` first, so a machine with no counter pays one load.
 */
import type { CpuContext, TaskRef } from '../../kernel/current';
import type { CpuMachine } from '../include/cpu';
import type { Task } from '../include/sched';
import { symbolAddr, lookupAddr, lookupName, isFunction } from '../../kernel/kallsyms';
import { returnAddress } from '../../kernel/callsites';
import { hash32 } from '../core/prng';

export const PERF_TYPE_HARDWARE = 0;
export const PERF_TYPE_SOFTWARE = 1;
export const PERF_COUNT_SW_CPU_CLOCK = 0;
export const PERF_COUNT_SW_TASK_CLOCK = 1;
export const PERF_COUNT_SW_PAGE_FAULTS = 2;
export const PERF_COUNT_SW_CONTEXT_SWITCHES = 3;
export const PERF_COUNT_SW_CPU_MIGRATIONS = 4;
export const PERF_COUNT_SW_PAGE_FAULTS_MIN = 5;
export const PERF_COUNT_SW_PAGE_FAULTS_MAJ = 6;
export const PERF_COUNT_SW_MAX = 12; // ... alignment 7, emulation 8, dummy 9, bpf_output 10, cgroup_switches 11

const ENOENT = 2;
const EINVAL = 22;

/** The counter overflowed on ctx.cpu; for the clock events, `pc` is the interrupted instruction (interruptedPc). */
export type OverflowHandler = (ctx: CpuContext, pc?: SampledPc) => void;

/** Where a sampling interrupt found a CPU: the instruction pointer and whether it was user code. */
export interface SampledPc {
  ip: number;
  user: boolean;
}

let idlePc = 0;
/**
 * The instruction a timer interrupt interrupts on `cpu` (the pt_regs ip of perf_swevent_hrtimer's
 * sample), from what the machine executes there: a CPU whose step ran past the sample's time in
 * a hook's stretch of work (copying, clearing ...) is in that hook's function; a CPU inside a
 * kernel path (the idle loop's intel_idle included) in the innermost function of its stack; an
 * idle CPU between paths halts after `hlt` in native_safe_halt (default_idle through pv_ops);
 * a task in user mode is in its program's text (a PIE's, at 0x55..., user_mode() 1).
 */
export function interruptedPc(m: CpuMachine, cpu: number, at: number, out: SampledPc): SampledPc {
  const c = m.cpus[cpu];
  const t = c.curr;
  const h = hash32(Math.floor(at / 1000) ^ (cpu << 24));
  // the CPU's step ran past the interrupt's time: a hook's stretch of work that covers it
  for (let i = 0; i < c.spanFn.length; i++) {
    const fn = c.spanFn[i];
    if (fn >= 0 && c.spanFrom[i] <= at && at < c.spanTo[i]) return inFunction(fn, h, out);
  }
  const ks = c.ks;
  // in kernel code (the idle loop included): where the machine's stack says the innermost
  // function is (the address its backtraces show for that frame, so print_backtrace() starts there)
  if (ks.sp > 0) {
    out.ip = returnAddress(ks.fn[ks.sp - 1], ks.fn[ks.sp]);
    out.user = false;
    return out;
  }
  if (!t || t.idle) {
    if (!idlePc) { const id = lookupName('native_safe_halt').find(isFunction); idlePc = id === undefined ? 0 : symbolAddr(id) + 0xb; }
    out.ip = idlePc;
    out.user = false;
    return out;
  }
  // user text of a PIE: the load base of the first ASLR slot plus an offset inside .text
  out.ip = 0x55d8a0e00000 + 0x4000 + (hash32(t.proc.tgid) & 0xfff000) + (h & 0x3fff);
  out.user = true;
  return out;
}

/** What SystemTap's runtime passes: type, config, sample_period or sample_freq (freq set). */
export interface PerfAttr {
  type: number;
  config: number;
  /** sample_period, or sample_freq when `freq`; 0: counting only (no overflow). */
  sample: number;
  freq: boolean;
}

/** One counter per CPU, as perf_event_create_kernel_counter(attr, cpu, NULL, handler). */
export class PerfCounter {
  readonly count: number[];
  private left: number[];
  /** Period in events (in ns for the clock events). */
  readonly period: number;
  constructor(readonly attr: PerfAttr, ncpus: number, readonly handler: OverflowHandler | null) {
    this.count = new Array<number>(ncpus).fill(0);
    // frequency mode: the clock events get period = 1 s / freq; the others start at one event
    // per overflow (the kernel's adaptive period is not modelled)
    const clock = attr.config === PERF_COUNT_SW_CPU_CLOCK || attr.config === PERF_COUNT_SW_TASK_CLOCK;
    this.period = attr.freq && attr.sample === 0 ? 0 : attr.freq ? (clock ? Math.max(1, Math.round(1e9 / attr.sample)) : 1) : attr.sample;
    this.left = new Array<number>(ncpus).fill(this.period);
  }
  /** perf_swevent_event(): count `n` on `ctx.cpu`; the handler runs at each overflow. */
  add(ctx: CpuContext, n: number, pc?: SampledPc): void {
    this.count[ctx.cpu] += n;
    if (this.period <= 0 || !this.handler) return;
    this.left[ctx.cpu] -= n;
    while (this.left[ctx.cpu] <= 0) {
      this.left[ctx.cpu] += this.period;
      this.handler(ctx, pc);
    }
  }
}

/** The software event dispatch table (perf_swevent_htable): counters by config. */
class SwEvents {
  active = false;
  private byConfig: PerfCounter[][] = [];
  private lastMigrations = new WeakMap<Task, number>();
  add(c: PerfCounter): void {
    (this.byConfig[c.attr.config] ??= []).push(c);
    this.active = true;
  }
  remove(c: PerfCounter): void {
    const l = this.byConfig[c.attr.config];
    if (l) { const i = l.indexOf(c); if (i >= 0) l.splice(i, 1); }
    this.active = this.byConfig.some((x) => x && x.length > 0);
  }
  has(config: number): boolean {
    const l = this.byConfig[config];
    return l !== undefined && l.length > 0;
  }
  /** perf_sw_event(config, n): the event happened on ctx.cpu with ctx.task current. */
  event(config: number, ctx: CpuContext, n = 1): void {
    const l = this.byConfig[config];
    if (!l) return;
    for (let i = 0; i < l.length; i++) l[i].add(ctx, n);
  }
  /** The scheduler switched `prev` out and `next` in on `cpu` (context_switch()). */
  switched(cpu: number, prev: Task, next: Task): void {
    if (this.has(PERF_COUNT_SW_CONTEXT_SWITCHES)) this.event(PERF_COUNT_SW_CONTEXT_SWITCHES, { cpu, task: prev, context: 0 });
    if (this.has(PERF_COUNT_SW_CPU_MIGRATIONS)) {
      const seen = this.lastMigrations.get(next);
      this.lastMigrations.set(next, next.nrMigrations);
      if (seen !== undefined && seen !== next.nrMigrations) {
        this.event(PERF_COUNT_SW_CPU_MIGRATIONS, { cpu, task: next, context: 0 });
      }
    }
  }
}

/** The machine-wide software event table (one simulated kernel per process). */
export const perfSw = new SwEvents();

/** an instruction inside function `fn` (offset spread by `h` over its body, at most 0x200 in) */
function inFunction(fn: number, h: number, out: SampledPc): SampledPc {
  const start = symbolAddr(fn);
  const size = lookupAddr(start)?.size ?? 0x40;
  out.ip = start + 1 + (h % Math.max(1, Math.min(size - 1, 0x200)));
  out.user = false;
  return out;
}

/** hrtimer-driven clock events (cpu_clock / task_clock): one timer per period, every CPU. */
function startClock(m: CpuMachine, c: PerfCounter): () => void {
  let live = true;
  const task = c.attr.config === PERF_COUNT_SW_TASK_CLOCK;
  // the hit contexts, one per CPU, refilled at each expiry (a handler runs to completion)
  const ctxs: CpuContext[] = [];
  for (let cpu = 0; cpu < m.ncpus; cpu++) ctxs.push({ cpu, task: m.current(cpu), context: 2 });
  const pc: SampledPc = { ip: 0, user: false };
  let due = 0;
  const fire = (): void => {
    if (!live) return;
    // each CPU's perf_swevent_hrtimer: hardirq on that CPU, the interrupted task current
    for (let cpu = 0; cpu < m.ncpus; cpu++) {
      const t: TaskRef = m.current(cpu);
      if (task && (t as Task).idle) continue;
      const ctx = ctxs[cpu];
      ctx.task = t;
      c.add(ctx, c.period, c.handler ? interruptedPc(m, cpu, due, pc) : undefined);
      if (!live) return;
    }
    // hrtimer_forward: the next expiry a period after this one's, whatever ran meanwhile
    due += c.period;
    m.schedule(due, fire, 0);
  };
  if (c.handler && c.period > 0) { due = m.now + c.period; m.schedule(due, fire, 0); }
  return () => { live = false; };
}

export interface PerfEvent {
  counter: PerfCounter;
  release(): void;
}

/**
 * perf_event_create_kernel_counter() for every CPU of `m`: the event, or -errno (-ENOENT: no
 * PMU for this type/config; -EINVAL: a negative period or frequency).
 */
export function perfEventCreateKernelCounter(m: CpuMachine, attr: PerfAttr, handler: OverflowHandler | null): PerfEvent | number {
  if (attr.type !== PERF_TYPE_SOFTWARE) return -ENOENT;
  if (attr.config < 0 || attr.config >= PERF_COUNT_SW_MAX) return -ENOENT;
  if (attr.sample < 0) return -EINVAL;
  const counter = new PerfCounter(attr, m.ncpus, handler);
  if (attr.config === PERF_COUNT_SW_CPU_CLOCK || attr.config === PERF_COUNT_SW_TASK_CLOCK) {
    const stop = startClock(m, counter);
    return { counter, release: stop };
  }
  perfSw.add(counter);
  return { counter, release: () => perfSw.remove(counter) };
}
