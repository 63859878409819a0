/**
 * The simulated CPUs: per-CPU state (the task running and the one chosen next, the idle task,
 * need_resched, pending softirqs, the interrupt stack, statistics, and the machine's stepping of
 * the CPU in virtual time), and `CpuMachine`, the machine as the kernel drives its CPUs.
 */
import type { CpuContext } from '../../kernel/current';
import type { MachineCore } from '../core/machine';
import type { QEvent } from '../core/events';
import type { Task } from './sched';
import { KStack, Env } from './kstack';

/** stretches of hook time kept per CPU (a power of two) */
const SPANS = 16;

export class Cpu {
  readonly id: number;
  readonly ctx: CpuContext;
  curr!: Task;
  idleTask!: Task;
  /** next task chosen by pick (between %pick and %switch) */
  next: Task | null = null;
  /** the task the last context switch on this CPU switched out (finish_task_switch's prev) */
  switchedFrom: Task | null = null;
  /** local time of this CPU */
  now = 0;
  nextTick = 0;
  ticking = false;
  needResched = false;
  idling = false;
  readonly irqStack = new KStack();
  /** the stack being executed right now (task or irq stack) */
  ks: KStack;
  stepEv: QEvent | null = null;
  /** the step event's callback (one per CPU, not one closure per step) */
  stepFn: (() => void) | null = null;
  stepAt = Infinity;
  /** statistics */
  idleNs = 0;
  busyNs = 0;
  ticks = 0;
  irqs = 0;
  softirqs = 0;
  switches = 0;
  /**
   * fpu_fpregs_owner_ctx: the task whose FPU state this CPU's registers hold (a user task that
   * returned to user mode here; kernel threads and the idle task leave them alone), null once
   * dropped (fpu__drop at exec and exit)
   */
  fpuOwner: Task | null = null;
  /** pending softirq bits (1 << vec) */
  softirqPending = 0;
  /**
   * Interrupts are off for the scheduler: __schedule runs with local irqs disabled from its start
   * (local_irq_disable before rcu_note_context_switch) until the switch is done
   * (finish_task_switch's raw_spin_rq_unlock_irq, in the next task) or found not needed; a hardirq
   * of a device arriving meanwhile waits in `deferredIrqs` (the interrupt controller keeps it pending) and is
   * taken when they are back on (kernel/sched/core.ts irqsOffForSchedule / irqsOnAfterSchedule).
   */
  schedIrqsOff = false;
  readonly deferredIrqs: (() => void)[] = [];
  /**
   * The last few stretches of time a hook spent inside one function (the work a path's hook
   * models: copying, clearing, checksumming): function id and [from, to) in machine time, a ring
   * of SPANS entries.  Sampling interrupts that land inside a stretch see that function.
   */
  readonly spanFn = new Int32Array(SPANS).fill(-1);
  readonly spanFrom = new Float64Array(SPANS);
  readonly spanTo = new Float64Array(SPANS);
  spanNext = 0;
  /** note that function `fn` ran from `from` to `to` (a hook's work) */
  noteSpan(fn: number, from: number, to: number): void {
    const i = this.spanNext;
    this.spanFn[i] = fn;
    this.spanFrom[i] = from;
    this.spanTo[i] = to;
    this.spanNext = (i + 1) & (SPANS - 1);
  }
  /** virtual time the CPU went idle */
  idleSince = 0;
  constructor(id: number) {
    this.id = id;
    this.ctx = { cpu: id, task: null as unknown as Task, context: 0, preemptCount: 0, irqsOff: false };
    this.ks = this.irqStack;
  }
}

/** The machine's CPUs as the kernel layers drive them (src/machine/machine.ts implements it). */
export interface CpuMachine extends MachineCore {
  readonly cpus: Cpu[];
  /** the CPU whose code is executing right now, null between steps */
  executing: Cpu | null;
  /** make CPU `c` run a step at time `at` */
  kick(c: Cpu, at?: number): void;
  /** run an interrupt path on CPU `c` now (hardirq context by default) */
  irq(c: Cpu, pathName: string, env: Env, context?: number): void;
  /** the task running on a CPU */
  current(cpu: number): Task;
}
