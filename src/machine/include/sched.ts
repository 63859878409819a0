/**
 * Tasks and processes: task_struct essentials (pid/tid/ppid/uid/gid/comm, scheduler entity,
 * state), the thread group (fds, cwd, mm, children, signals, exit status) and the execution
 * state the kernel executor keeps per task (kernel frames, function stack, user program).
 */
import type { TaskRef } from '../../kernel/current';
import type { CompiledPath } from '../paths/dsl';
import type { Mm } from '../mm/mm';
import type { OpenFile } from './fs';

/** Linux task states (include/linux/sched.h) as __schedule sees prev->__state. */
export const TASK_RUNNING = 0x0;
export const TASK_INTERRUPTIBLE = 0x1;
export const TASK_UNINTERRUPTIBLE = 0x2;
export const TASK_STOPPED = 0x4;
export const TASK_TRACED = 0x8;
export const EXIT_DEAD = 0x10;
export const EXIT_ZOMBIE = 0x20;
export const TASK_DEAD = 0x80;
export const TASK_NEW = 0x800;

/** Environment of one kernel path execution (syscall arguments, results, hook data). */
export interface Env {
  /** syscall name or kernel path name */
  name: string;
  /** syscall number (-1 for non-syscall paths) */
  nr: number;
  /** syscall arguments */
  a: unknown[];
  /** syscall return value */
  ret: number;
  /** last return value (kretprobe retval of functions returning in this path) */
  rv: unknown;
  /** free-form per-path data used by hooks and conditions */
  [k: string]: unknown;
}

export interface Frame {
  code: Int32Array;
  pc: number;
  env: Env;
  path: CompiledPath;
}

/** Depth of a kernel stack's function/mark stacks. */
export const KSTACK_DEPTH = 256;

/**
 * Function/mark stacks are views into shared slabs: a boot makes a few hundred tasks, and a
 * typed array of its own (an off-heap backing store the GC tracks) for each of two stacks per
 * task cost more than the rest of making the task.  Views never overlap; a slab is dropped by
 * the GC with its last stack.
 */
const SLAB_STACKS = 64;
let slab: Int32Array | null = null;
let slabNext = SLAB_STACKS;

function stackView(): Int32Array {
  if (slabNext === SLAB_STACKS) {
    slab = new Int32Array(SLAB_STACKS * KSTACK_DEPTH);
    slabNext = 0;
  }
  const off = KSTACK_DEPTH * slabNext++;
  return slab!.subarray(off, off + KSTACK_DEPTH);
}

/** Execution stack of kernel code: frames plus the function/mark stacks (per task, per CPU irq). */
export class KStack {
  frames: Frame[] = [];
  fn = stackView();
  mark = stackView();
  sp = 0;
}

/** What a user program yields. */
export type Op = SysOp | CpuOp | TouchOp;
/** a system call: name as in syscall_64.tbl, arguments */
export interface SysOp { k: 'sys'; name: string; a: unknown[]; extra?: Record<string, unknown> }
/** user-mode computation for `ns` nanoseconds */
export interface CpuOp { k: 'cpu'; ns: number }
/** touch user memory (page faults where not present / COW / swapped out) */
export interface TouchOp { k: 'touch'; region: string; first: number; count: number; write: boolean }

/** A user program: a generator of ops receiving syscall results. */
export type Prog = Generator<Op, number, SysResult>;

export interface SysResult {
  ret: number;
  /** data returned by read-like calls */
  data?: Uint8Array;
  /** extra results (e.g. stat) */
  info?: Record<string, unknown>;
}

export type SigHandler = 'default' | 'ignore' | ((sig: number) => void);

export class Process {
  tgid: number;
  parent: Process | null;
  children: Process[] = [];
  threads: Task[] = [];
  fds: (OpenFile | null)[] = [];
  cwd = '/';
  mm: Mm | null = null;
  exitCode = 0;
  exited = false;
  reaped = false;
  /** signal dispositions */
  sigHandlers = new Map<number, SigHandler>();
  /** tasks blocked in wait4 on this process */
  waitq: Task[] = [];
  /** program argv / exe path */
  argv: string[] = [];
  exe = '';
  uid = 0;
  gid = 0;
  sessionName = '';
  /** user time and system time consumed by finished threads, ns */
  utime = 0;
  stime = 0;
  constructor(tgid: number, parent: Process | null) {
    this.tgid = tgid;
    this.parent = parent;
  }
}

export class Task implements TaskRef {
  pid: number;
  tid: number;
  comm: string;
  proc: Process;
  kthread: boolean;
  idle = false;
  uid = 0;
  gid = 0;
  euid = 0;
  egid = 0;
  /** prio 120 = nice 0 */
  prio = 120;
  nice = 0;
  weight = 1024;
  state = TASK_RUNNING;
  /** the CPU the task last ran on / is queued on */
  cpu = 0;
  onRq = false;
  onCpu = false;
  /** CFS */
  vruntime = 0;
  sumExecRuntime = 0;
  prevSumExecRuntime = 0;
  execStart = 0;
  utime = 0;
  stime = 0;
  nvcsw = 0;
  nivcsw = 0;
  nrMigrations = 0;
  /** set when preempted (TIF_NEED_RESCHED) */
  lastSwitchOut = 0;
  startTime = 0;
  /** kernel execution state */
  readonly ks = new KStack();
  /** user program and the op being executed */
  prog: Prog | null = null;
  op: Op | null = null;
  opLeft = 0;
  lastResult: SysResult = { ret: 0 };
  /** kernel thread body: called with no frames to push the next path */
  kbody: ((t: Task) => void) | null = null;
  /** pending signals (bitmask bit n-1 for signal n) */
  sigPending = 0;
  sigBlocked = 0;
  /** wait channel: what it sleeps on (for ps WCHAN and wakeups) */
  wchan = '';
  /** interrupted by a signal while sleeping */
  sigWoken = false;
  exitSignal = 17;
  /** generic wakeup flag for hooks */
  woken = false;
  /** data hooks may stash across a sleep */
  scratch: Record<string, unknown> = {};
  constructor(pid: number, tid: number, comm: string, proc: Process, kthread: boolean) {
    this.pid = pid;
    this.tid = tid;
    this.comm = comm;
    this.proc = proc;
    this.kthread = kthread;
  }
  get ppid(): number {
    return this.proc.parent ? this.proc.parent.tgid : 0;
  }
  /** execname(): comm */
  get execname(): string {
    return this.comm;
  }
  /** one-letter state as /proc/PID/stat and ps show it */
  stateChar(): string {
    if (this.state === TASK_RUNNING) return 'R';
    if (this.state & TASK_INTERRUPTIBLE) return this.kthread && this.wchan === 'idle' ? 'I' : 'S';
    if (this.state & TASK_UNINTERRUPTIBLE) return 'D';
    if (this.state & TASK_STOPPED) return 'T';
    if (this.state & EXIT_ZOMBIE) return 'Z';
    return 'X';
  }
}

/** nice -> load weight (sched_prio_to_weight) */
export const PRIO_TO_WEIGHT = [
  88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
  9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
  1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
  110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
];

export const SIGHUP = 1, SIGINT = 2, SIGQUIT = 3, SIGKILL = 9, SIGUSR1 = 10, SIGSEGV = 11, SIGUSR2 = 12,
  SIGPIPE = 13, SIGALRM = 14, SIGTERM = 15, SIGCHLD = 17, SIGCONT = 18, SIGSTOP = 19, SIGTSTP = 20;

export const SIGNAL_NAMES: Record<number, string> = {
  1: 'HUP', 2: 'INT', 3: 'QUIT', 4: 'ILL', 5: 'TRAP', 6: 'ABRT', 7: 'BUS', 8: 'FPE', 9: 'KILL', 10: 'USR1',
  11: 'SEGV', 12: 'USR2', 13: 'PIPE', 14: 'ALRM', 15: 'TERM', 16: 'STKFLT', 17: 'CHLD', 18: 'CONT', 19: 'STOP',
  20: 'TSTP', 21: 'TTIN', 22: 'TTOU', 23: 'URG', 24: 'XCPU', 25: 'XFSZ', 26: 'VTALRM', 27: 'PROF', 28: 'WINCH',
  29: 'IO', 30: 'PWR', 31: 'SYS',
};

/** default action: 'term' | 'ign' | 'stop' | 'cont' | 'core' */
export function sigDefault(sig: number): string {
  if (sig === SIGCHLD || sig === 23 || sig === 28) return 'ign';
  if (sig === SIGSTOP || sig === SIGTSTP || sig === 21 || sig === 22) return 'stop';
  if (sig === SIGCONT) return 'cont';
  if ([3, 4, 5, 6, 7, 8, 11, 24, 25, 31].includes(sig)) return 'core';
  return 'term';
}
