/**
 * `process.begin`, `process.end`, `process.thread.begin`, `process.thread.end` and their
 * `process("PATH")` / `process(PID)` forms: SystemTap's task-finder probes (utrace-style,
 * kernel-side: they need no user-space code, symbols or uprobes), over the simulated machine's
 * processes.  The model follows stap 4.8's runtime/linux/task_finder2.c and the callback stap
 * generates for these points:
 *
 * - start-up (stap_start_task_finder, after the `begin` probes): every existing thread with an mm
 *   (kernel threads skipped; with -c/-x only the target's threads) is attached; the targets whose
 *   path (the exe of its mm) or pid matches attach too, and once the thread quiesces its callbacks
 *   run in its own context: `begin` for a thread-group leader, `thread.begin` for another thread.
 *   A `process(PID)` target matches the task whose pid (thread id) is PID.
 * - clone (report_clone + the child's clone worker): the child is attached to the task finder
 *   when its parent is; without -c/-x the path/all-process targets match on the parent's exe and
 *   the child's `begin` (new process) or `thread.begin` (CLONE_THREAD) runs in the child's context
 *   on its way to user space (task work: at its first syscall exit or entry, after the syscall
 *   tracepoint's other probes).
 *   With -c/-x a clone is not matched (match_tsk != path_tsk): its descendants match once they exec.
 *   pid targets never match after start-up.
 * - exec: the targets attached to the task see a process end (`end` callback, process_p = 1) and
 *   detach (at sched_process_exec); then the new image is matched on its path and `begin` runs
 *   when the task returns to user space (after execve's syscall exit: `syscall.execve.return` first).
 * - exit (the death report): each attached target's `end` (the last live thread of the process)
 *   or `thread.end` (another thread), in the dying task's context.
 *
 * pid(), tid(), execname() are those of the task; probe_type() is "utrace".  Only `.syscall` and
 * `.syscall.return` of the process family have target variables (not modelled: src/probes/process.ts).
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { BuildRequest, Provider } from '../elaborate/probes';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import type { Machine } from '../machine/machine';
import type { Task, Process } from '../machine/include/sched';
import type { CpuContext, PtRegs } from '../kernel/current';
import { tracepointProbeRegister, tracepointProbeUnregister, TRACEPOINT_DEFAULT_PRIO } from '../kernel/tracepoint';
import { currentCpuContext } from './tracepoint';
import { Deliverer } from './hit';

/** Which callback of a target a probe is. */
export type TaskEvent = 'begin' | 'end' | 'thread.begin' | 'thread.end';

interface TaskFinderData {
  event: TaskEvent;
  /** process("PATH"): the path as resolved in pass 2; process(PID): the pid; neither: every process */
  path?: string;
  pid?: number;
}

let machine: Machine | null = null;
/** The simulated machine whose processes the task finder watches (connectMachine). */
export function setTaskFinderMachine(m: Machine | null): void {
  machine = m;
}

// ---------------------------------------------------------------- pass 2

/** Debian 12 is usrmerged: /bin, /sbin and /lib* are symlinks into /usr. */
const USRMERGE = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
let programs: Set<string> | null = null;

/** `.`/`..`/`//` removed from an absolute path, the usrmerge links followed (realpath()). */
function canonical(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  let p = '/' + out.join('/');
  for (const d of USRMERGE) {
    if (p === d || p.startsWith(d + '/')) { p = '/usr' + p; break; }
  }
  return p;
}

/**
 * The executable stap names in the pp (its find_executable): a name without `/` searched in
 * $PATH (the programs the simulated machine installs, all in /usr/bin), then realpath; a name not
 * found stays as written (it matches no process).
 */
export function resolveExecutable(name: string): string {
  const t = tree();
  if (name.includes('/')) return name.startsWith('/') ? t.programLink(canonical(name)) : name;
  if (!programs) programs = new Set([...t.allProgramNames(), 'stap', 'gcc']);
  if (!programs.has(name)) return name;
  // the first $PATH directory that has it (/usr/sbin before /usr/bin), its symlinks followed
  return t.programLink(t.programPath(name) === `/usr/sbin/${name}` ? `/usr/sbin/${name}` : `/usr/bin/${name}`);
}

/** the machine's file tree module, loaded only when a script names a program */
function tree(): typeof import('../machine/userland/fstree') {
  return require('../machine/userland/fstree') as typeof import('../machine/userland/fstree');
}

function eventOf(cs: A.ProbePointComponent[], from: number): TaskEvent {
  const names = cs.slice(from).map((c) => c.name).join('.');
  return names as TaskEvent;
}

function build(req: BuildRequest): A.ResolvedPoint[] {
  const cs = req.components;
  const arg = cs[0].arg;
  const event = eventOf(cs, 1);
  const data: TaskFinderData = { event };
  let root = 'process';
  if (arg && arg.k === 'str') {
    data.path = resolveExecutable(arg.value);
    root = `process(${JSON.stringify(data.path)})`;
  } else if (arg && arg.k === 'num') {
    const pid = Number(BigInt.asIntN(64, BigInt(arg.value)));
    if (!(pid > 0)) throw new SemanticError(`cannot probe pid ${pid}: No such process`, undefined, [], 'process-pid');
    data.pid = pid;
    root = `process(${pid})`;
  }
  return [{ family: 'process', pp: `${root}.${event}`, data: data as unknown as Record<string, unknown> }];
}

const SYSCALL_VARS = ['$syscall', '$arg1', '$arg2', '$arg3', '$arg4', '$arg5', '$arg6'].map((name) => ({ name, type: 'long' }));

/** Target expressions: stap resolves none at these points. */
function targetType(rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast,
  castOnly: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast) => A.Type | SemanticError): A.Type | SemanticError {
  if (e.k === 'target') {
    return new SemanticError('only "process(PATH_OR_PID).syscall" and "process(PATH_OR_PID).syscall.return" probes support target symbols',
      e.tok, [], 'process-target');
  }
  return castOnly(rp, e);
}

/** The provider of the four task-finder events (`castOnly`: the @cast/@var typing of setup.ts). */
export function taskFinderProvider(castOnly: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast) => A.Type | SemanticError): Provider {
  return {
    family: 'process',
    build,
    targetType: (rp, e) => targetType(rp, e, castOnly),
    targetDefined: (rp, e) => e.k !== 'target' && !(castOnly(rp, e) instanceof SemanticError),
    // stap 4.8 -L lists the utrace syscall variables at every process event (real-stap -L
    // 'process("/bin/ls").begin'), though only .syscall/.syscall.return resolve them
    vars: () => SYSCALL_VARS,
  };
}

// ---------------------------------------------------------------- run time

/** One target of the task finder: a path (or all processes, or a pid) and its probes' callbacks. */
interface Target {
  path?: string;
  pid?: number;
  probes: { event: TaskEvent; out: Deliverer }[];
}

const NO_REGS: PtRegs = { ip: 0, parentIp: 0, args: [], retval: undefined };

export class TaskFinderFamily implements ProbeFamilyRuntime {
  family = 'process';
  private armed = false;
  private targets: Target[] = [];
  /** tasks the task finder's own engine is attached to (their clones and execs are reported) */
  private finder = new WeakSet<Task>();
  /** per task, the targets attached to it (in target order) */
  private attached = new WeakMap<Task, Target[]>();
  /** tasks whose exit was reported (signal->live of their process counts the others) */
  private dead = new WeakSet<Task>();
  private regs: { name: string; fn: (data: unknown, ...args: unknown[]) => void }[] = [];
  /** tasks whose begin callbacks wait for their return to user space (process_p of each) */
  private pending = new Map<Task, boolean>();
  private target = 0;

  register(probes: RegisteredProbe[], engine: Engine): void {
    const m = machine;
    if (!m) return; // no simulated machine: no processes to find
    this.armed = true;
    this.target = engine.targetPid;
    const byKey = new Map<string, Target>();
    for (const p of probes) {
      const d = p.meta.data as unknown as TaskFinderData;
      const key = d.path !== undefined ? `p${d.path}` : d.pid !== undefined ? `#${d.pid}` : '*';
      let t = byKey.get(key);
      if (!t) {
        t = { path: d.path !== undefined ? this.machinePath(m, d.path) : undefined, pid: d.pid, probes: [] };
        byKey.set(key, t);
        this.targets.push(t);
      }
      t.probes.push({ event: d.event, out: new Deliverer(engine, p, 'utrace', false, -1, 0) });
    }
    // start-up runs after module init (the begin probes): an event at the current time
    engine.schedule(engine.now, () => this.start(m), Number.MIN_SAFE_INTEGER);
    this.hook('sched_process_fork', (parent, child) => this.clone(parent as Task, child as Task));
    this.hook('sched_process_exec', (t) => this.exec(t as Task));
    this.hook('sched_process_exit', (t) => this.exit(t as Task));
    if (this.targets.some((g) => g.probes.some((p) => p.event === 'begin' || p.event === 'thread.begin'))) {
      // task work on the way to user space: after the syscall tracepoints' other probes
      const quiesce = (): void => this.quiesce();
      this.hook('sys_exit', quiesce, TRACEPOINT_DEFAULT_PRIO - 1);
      this.hook('sys_enter', quiesce, TRACEPOINT_DEFAULT_PRIO - 1);
    }
  }

  unregister(): void {
    this.armed = false;
    for (const r of this.regs) tracepointProbeUnregister(r.name, r.fn, this);
    this.regs = [];
    this.pending.clear();
  }

  private hook(name: string, f: (...args: unknown[]) => void, prio?: number): void {
    const fn = (_data: unknown, ...args: unknown[]): void => { if (this.armed) f(...args); };
    if (tracepointProbeRegister(name, fn, this, prio) === 0) this.regs.push({ name, fn });
  }

  /** The current task reached user space: its pending begin callbacks run. */
  private quiesce(): void {
    if (!this.pending.size) return;
    const t = currentCpuContext().task as Task;
    const processP = this.pending.get(t);
    if (processP === undefined) return;
    this.pending.delete(t);
    this.callbacks(t, true, processP);
  }

  /** A target path as the machine's exe paths spell it (symlinks followed), else as given. */
  private machinePath(m: Machine, path: string): string {
    if (!path.startsWith('/')) return path;
    const ino = m.fs.lookup(path, '/');
    return ino ? m.fs.pathOf(ino) : path;
  }

  private start(m: Machine): void {
    if (!this.armed) return;
    for (const t of [...m.procs.tasks.values()]) {
      if (this.target && t.proc.tgid !== this.target) continue;
      if (!this.userTask(t)) continue;
      this.finder.add(t);
      this.match(t, t.proc.exe, true);
      this.callbacks(t, true, t.tid === t.proc.tgid);
    }
  }

  /** A thread the task finder can attach to: not a kernel thread, not exiting. */
  private userTask(t: Task): boolean {
    return !t.kthread && !t.idle && !t.proc.exited && t.proc.mm !== null;
  }

  /** Attach the targets matching `exe` (and, at start-up, pid targets matching the task). */
  private match(t: Task, exe: string, startup: boolean): void {
    const list: Target[] = [];
    for (const g of this.targets) {
      if (g.pid !== undefined) {
        if (!startup || g.pid !== t.tid) continue;
      } else if (g.path !== undefined && g.path !== exe) continue;
      list.push(g);
    }
    if (list.length) this.attached.set(t, list);
    else this.attached.delete(t);
  }

  /** __stp_call_callbacks(): each attached target's probes for this event, in the task's context. */
  private callbacks(t: Task, register: boolean, processP: boolean): void {
    const list = this.attached.get(t);
    if (!list) return;
    const want: TaskEvent = register ? (processP ? 'begin' : 'thread.begin') : (processP ? 'end' : 'thread.end');
    const ctx: CpuContext = { cpu: this.cpuOf(t), task: t };
    for (const g of list) {
      for (const p of g.probes) if (p.event === want) p.out.fire(NO_REGS, ctx, []);
    }
  }

  /** The CPU the task runs on: the executing one when it is current there, else its own. */
  private cpuOf(t: Task): number {
    const cur = currentCpuContext();
    return cur.task === t ? cur.cpu : t.cpu;
  }

  private clone(parent: Task, child: Task): void {
    if (!this.finder.has(parent) || !child || !this.userTask(child)) return;
    this.finder.add(child);
    if (this.target) return; // -c/-x: a clone is matched only when it execs
    this.match(child, parent.proc.exe, false);
    if (this.attached.has(child)) this.pending.set(child, child.tid === child.proc.tgid);
  }

  private exec(t: Task): void {
    if (!this.finder.has(t)) return;
    // the old image's targets: a process end, then they detach
    this.callbacks(t, false, true);
    this.attached.delete(t);
    this.match(t, t.proc.exe, false);
    if (this.attached.has(t)) this.pending.set(t, true);
    else this.pending.delete(t);
  }

  private exit(t: Task): void {
    if (this.dead.has(t)) return;
    this.dead.add(t);
    this.pending.delete(t); // died before reaching user space: no begin
    if (!this.finder.has(t)) return;
    this.callbacks(t, false, this.lastThread(t.proc, t));
    this.attached.delete(t);
  }

  /** atomic_read(&tsk->signal->live) == 0: no other thread of the process is still alive. */
  private lastThread(p: Process, t: Task): boolean {
    return p.threads.every((x) => x === t || this.dead.has(x));
  }
}
