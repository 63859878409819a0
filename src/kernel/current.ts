/**
 * The seam between the simulated kernel and the machine/workload layer (scheduler, processes).
 * The scheduler owns TaskRef objects and fills CpuContext; the kernel only reads them and keeps
 * its own per-task state (ftrace pid flag, return stacks) in a WeakMap keyed by the TaskRef.
 */

/** A task as the kernel sees it (task_struct essentials). Owned by the scheduler. */
export interface TaskRef {
  /** thread group id (what userspace calls the pid) */
  readonly pid: number;
  /** thread id (the kernel's task->pid) */
  readonly tid: number;
  comm: string;
}

/** Execution context of one simulated CPU at the moment a kernel function is called. */
export interface CpuContext {
  cpu: number;
  task: TaskRef;
  /** 0 = task (normal), 1 = softirq, 2 = hardirq, 3 = NMI (trace recursion contexts) */
  context?: number;
  /** low byte of preempt_count() for trace records (0 when absent) */
  preemptCount?: number;
  /** irqs disabled (TRACE_FLAG_IRQS_OFF) */
  irqsOff?: boolean;
}

/** pt_regs as probe handlers see them: instruction pointer, caller, arguments, return value. */
export interface PtRegs {
  ip: number;
  /** return address into the caller */
  parentIp: number;
  /** function arguments in order (di, si, dx, cx, r8, r9, then stack) */
  args: readonly unknown[];
  /** return value (ax) on the return path */
  retval: unknown;
  /**
   * At an inline site shared by several inlined functions (one entry pc): the parameters of
   * inline function `name` there (each probe reads its own function's, as DWARF locations do).
   */
  argsOf?(name: string): readonly unknown[];
}

/**
 * A return value computed only when a handler reads it (`retvalOf`): a path's pointer results
 * lay out kernel objects, which return probes that never read `$return` must not pay for.
 */
export class LazyRet {
  private done = false;
  private v: unknown = undefined;
  constructor(private get: () => unknown) {}
  value(): unknown {
    if (!this.done) {
      this.v = this.get();
      this.done = true;
    }
    return this.v;
  }
}

/** The return value in `regs` (ax), resolving a LazyRet. */
export function retvalOf(regs: PtRegs): unknown {
  const v = regs.retval;
  return v instanceof LazyRet ? v.value() : v;
}

/** The kernel's own per-task bookkeeping. */
export interface TaskKernelState {
  /** set_ftrace_pid: task->trace_recursion TRACE_IGNORE_PID inverted: true = traced */
  ftracePid: boolean;
  /** return hooks pushed by function_graph / rethook (kretprobes), innermost last */
  retStack: RetFrame[];
  /** function_graph depth (curr_ret_stack) */
  graphDepth: number;
  /** ftrace_graph overruns for this task */
  graphOverrun: number;
}

/** One hooked return: runs when the function that pushed it returns. */
export interface RetFrame {
  fn: number;
  run(regs: PtRegs, ctx: CpuContext): void;
}

const states = new WeakMap<TaskRef, TaskKernelState>();

export function taskState(t: TaskRef): TaskKernelState {
  let s = states.get(t);
  if (!s) {
    s = { ftracePid: false, retStack: [], graphDepth: -1, graphOverrun: 0 };
    states.set(t, s);
  }
  return s;
}

/** Idle task of a CPU (pid 0, "swapper/N"), for contexts that have no other task. */
export function idleTask(cpu: number): TaskRef {
  let t = idle.get(cpu);
  if (!t) {
    t = { pid: 0, tid: 0, comm: `swapper/${cpu}` };
    idle.set(cpu, t);
  }
  return t;
}
const idle = new Map<number, TaskRef>();
