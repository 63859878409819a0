/**
 * Tasks and processes (include/linux/sched.h): task_struct essentials (pid/tid/ppid/uid/gid/comm,
 * scheduler entity, state), the thread group (fds, cwd, mm, children, signals, exit status), the
 * execution state the kernel executor keeps per task (its kernel stack, include/kstack.ts) and the
 * program it runs in user mode (a generator of `Op`s: system calls, CPU time, memory touches).
 */
import type { TaskRef } from '../../kernel/current';
import type { Mm, MemCgroup } from './mm_types';
import type { OpenFile } from './fs';
import { KStack } from './kstack';

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

/** What a user program yields. */
export type Op = SysOp | CpuOp | TouchOp;
/** a system call: name as in syscall_64.tbl, arguments */
export interface SysOp { k: 'sys'; name: string; a: unknown[]; extra?: Record<string, unknown> }
/** user-mode computation for `ns` nanoseconds */
export interface CpuOp { k: 'cpu'; ns: number }
/** touch user memory (page faults where not present / COW / swapped out) */
export interface TouchOp {
  k: 'touch'; region: string; first: number; count: number; write: boolean;
  /** one page at `first` pages from the mapping the loader placed as `base` (mm_types.ts Mm.bases), with x86 error code `code` */
  base?: string; code?: number;
  /** a fault taken in kernel mode (a syscall's copy to or from user memory) */
  kernel?: boolean;
  /** the page's index in its page table on the recorded run (its address's bits 12-20: where fault-around's window lay) */
  ptIdx?: number;
}

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
  /** the memory cgroup the process is in (null: the root's, unlimited); a fork inherits it */
  memcg: MemCgroup | null = null;
  exitCode = 0;
  exited = false;
  /**
   * Called when the process's program calls exit_group(code); true ends the run there instead
   * (process/session.ts: a `tapsim shell -c` whose exit nothing can see), `runEnd` then the status
   */
  atExitGroup: ((t: Task, code: number) => boolean) | null = null;
  runEnd: number | null = null;
  reaped = false;
  /** signal dispositions */
  sigHandlers = new Map<number, SigHandler>();
  /** tasks blocked in wait4 on this process */
  waitq: Task[] = [];
  /** program argv / exe path (the file the image runs, symlinks resolved: /proc/PID/exe) */
  argv: string[] = [];
  exe = '';
  /**
   * the file name the image was exec'd by (bprm->filename: /bin/sh for dash, /sbin/init for systemd),
   * which names the task (comm) and the recorded program it runs
   */
  execName = '';
  uid = 0;
  gid = 0;
  sessionName = '';
  /** the file mode creation mask (umask(2)); Debian's root has 022 */
  umask = 0o022;
  /**
   * process group (setpgid(2)): a forked child inherits its parent's; a process started by init
   * (a service, a session's shell) leads its own, as systemd and login make them
   */
  pgid: number;
  /** user time and system time consumed by finished threads, ns; their page faults */
  utime = 0;
  stime = 0;
  minFlt = 0;
  majFlt = 0;
  /** the same of the children it reaped, theirs included (signal_struct's cutime, cstime, cmin_flt, cmaj_flt) */
  cutime = 0;
  cstime = 0;
  cminFlt = 0;
  cmajFlt = 0;
  constructor(tgid: number, parent: Process | null) {
    this.tgid = tgid;
    this.parent = parent;
    this.pgid = parent && parent.tgid > 1 ? parent.pgid : tgid;
  }
  /**
   * The process has exited and none of its threads still runs kernel code: its exit (do_exit up to
   * the last switch away from it) is over, as stapio sees it after SIGCHLD and waitpid.
   */
  get finished(): boolean {
    return this.exited && this.threads.every((t) => t.ks.frames.length === 0);
  }
}

/** Task.resumeWork bits: TIF_NOTIFY_RESUME (rseq after a switch or migration), TIF_NEED_FPU_LOAD, queued task_work (fput). */
export const RW_NOTIFY = 1, RW_FPU = 2, RW_TASKWORK = 4;

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
  /** the only CPU it may run on (a per-CPU kthread: cpus_mask of one CPU, kthread_bind), else -1 */
  boundCpu = -1;
  onRq = false;
  onCpu = false;
  /**
   * Woken through a CPU's wake list (ttwu_queue_wakelist): not on a runqueue until that CPU's
   * call-function-single IPI activates it (sched_ttwu_pending), in the context of what that CPU runs then
   */
  wakePending = false;
  /** CFS */
  vruntime = 0;
  sumExecRuntime = 0;
  prevSumExecRuntime = 0;
  execStart = 0;
  utime = 0;
  stime = 0;
  /** page faults the task took (mm_account_fault: min_flt, and maj_flt for one that read the page from a device) */
  minFlt = 0;
  majFlt = 0;
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
  /**
   * A workqueue worker's description (kworker/u8:1 writing back for bdi 8:0: 'flush-8:0'): comm
   * stays 'kworker/u8:1' (execname(), trace comms), /proc shows it appended as wq_worker_comm does.
   */
  wqDesc = '';
  /** PF_* flags where the real task's are known (the boot kthreads: data/userland/kthreads.json), else 0: derived from `kthread` */
  pflags = 0;
  /** scheduling policy (SCHED_NORMAL 0, SCHED_FIFO 1) and rt_priority, as sched_setscheduler left them */
  policy = 0;
  rtPriority = 0;
  /** a kernel thread that sleeps in TASK_IDLE (workqueue workers and rescuers, the RCU kthreads): ps shows it `I` */
  idleSleep = false;
  /** work on the way back to user mode (RW_*: TIF_NOTIFY_RESUME, TIF_NEED_FPU_LOAD, task_work) */
  resumeWork = 0;
  /** registered an rseq area (rseq(2)): its notify-resume work runs after a switch */
  rseq = false;
  /**
   * The FS segment base (thread.fsbase: the TLS pointer arch_prctl(ARCH_SET_FS) set, inherited by a
   * fork, 0 after an exec and in kernel threads): __switch_to writes MSR_FS_BASE for a next task with one
   */
  fsbase = 0;
  /** fpu->last_cpu: the CPU whose registers last held this task's FPU state (-1: none) */
  fpuLastCpu = -1;
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
