/**
 * The process table: pid allocation, boot (idle tasks, init, kthreadd, per-CPU kthreads),
 * fork/clone, exec, exit, wait, and spawning shell commands from outside; the programs
 * installed (`programs`: path -> the program's main, run with its libc `U` of user.ts).
 */
import type { Cpu } from '../include/cpu';
import {
  Task, Process, Prog, TASK_RUNNING, TASK_NEW, TASK_DEAD, EXIT_ZOMBIE, TASK_INTERRUPTIBLE, RW_NOTIFY,
} from '../include/sched';
import { SIGCHLD } from '../include/signal';
import { pushPath, newEnv } from '../paths/kexec';
import { U, ProgramMain } from './user';
import { OpenFile, ConsoleFile } from '../include/fs';
import type { FsMachine } from '../fs/namei';
import { sendSignal } from '../kernel/signal';
import { execImage, forkChildProgram, startProgram } from './ldso';
import { inheritEnviron } from './environ';

/** The machine as the process layer uses it: everything below, and its process table. */
export interface ProcMachine extends FsMachine {
  readonly procs: Procs;
}

/** a task the machine lists (Procs.list): alive, or a zombie */
const shown = (t: Task): boolean => !(t.state & TASK_DEAD) || (t.state & EXIT_ZOMBIE) !== 0;

export class Procs {
  readonly tasks = new Map<number, Task>();
  readonly procs = new Map<number, Process>();
  nextPid = 1;
  init!: Process;
  kthreadd!: Task;
  /** the ext4 journal thread (jbd2/sda1-8) */
  jbd2: Task | null = null;
  readonly idleProc = new Process(0, null);
  /** program registry: absolute path -> main */
  readonly programs = new Map<string, ProgramMain>();
  constructor(private m: ProcMachine) {}

  allocPid(): number {
    let p = this.nextPid++;
    while (this.tasks.has(p)) p = this.nextPid++;
    if (this.nextPid > 4194304) this.nextPid = 300;
    return p;
  }

  boot(): void {
    const m = this.m;
    for (const c of m.cpus) {
      const t = new Task(0, 0, `swapper/${c.id}`, this.idleProc, true);
      t.idle = true;
      t.cpu = c.id;
      t.onCpu = true;
      t.prio = 120;
      c.idleTask = t;
      c.curr = t;
      c.ctx.task = t;
      c.ks = t.ks;
      c.idling = true;
      c.idleSince = m.now;
    }
    this.idleProc.exe = '';
    this.nextPid = 1;
  }

  /** Create a kernel thread (child of kthreadd) running `body` whenever it has no frames. */
  kthread(comm: string, body: (t: Task) => void, cpu?: number, nice = 0): Task {
    const pid = this.allocPid();
    const p = new Process(pid, this.kthreadd ? this.kthreadd.proc : null);
    const t = new Task(pid, pid, comm, p, true);
    p.threads.push(t);
    if (p.parent) p.parent.children.push(p);
    t.kbody = body;
    t.startTime = this.m.now;
    this.m.sched.setNice(t, nice);
    this.tasks.set(pid, t);
    this.procs.set(pid, p);
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'kthread';
    if (cpu !== undefined) t.cpu = cpu;
    pushPath(t.ks, 'kthread_start', newEnv('kthread'));
    return t;
  }

  /** Create a user process from outside (boot services, stap -c): parent, program, argv, fds. */
  spawn(parent: Process | null, exe: string, argv: string[], fds: (OpenFile | null)[], opts: { uid?: number; cwd?: string; comm?: string; main?: ProgramMain; cpu?: number; bind?: boolean } = {}): Process {
    // the file it runs (/proc/PID/exe, the maps): the name given, its symlinks resolved
    const ino = this.m.fs.lookup(exe);
    const real = ino?.isReg ? this.m.fs.pathOf(ino) : exe;
    const main = opts.main ?? this.programs.get(real) ?? this.programs.get(exe);
    if (!main) throw new Error(`no program ${exe}`);
    const pid = this.allocPid();
    const p = new Process(pid, parent);
    if (parent) parent.children.push(p);
    p.fds = fds.map((f) => (f ? f.dup() : null));
    p.cwd = opts.cwd ?? '/';
    p.uid = p.gid = opts.uid ?? 0;
    p.argv = argv;
    p.exe = real;
    p.execName = exe;
    p.mm = this.m.mm.newMm(p, real);
    const t = new Task(pid, pid, opts.comm ?? exe.slice(exe.lastIndexOf('/') + 1).slice(0, 15), p, false);
    t.uid = t.euid = p.uid;
    t.gid = t.egid = p.gid;
    t.startTime = this.m.now;
    p.threads.push(t);
    this.tasks.set(pid, t);
    this.procs.set(pid, p);
    const u = new U(this.m, t);
    t.prog = main(u, argv);
    t.state = TASK_NEW;
    pushPath(t.ks, 'ret_from_fork_user', newEnv('ret_from_fork'));
    // the CPU the parent forked it on (`opts.cpu`, else one drawn)
    const c = this.m.cpus[opts.cpu !== undefined ? opts.cpu % this.m.ncpus : this.m.rand.int(this.m.ncpus)];
    t.cpu = c.id;
    // (`bind`: it runs on that CPU only, from its first placement, until unbound)
    if (opts.bind && opts.cpu !== undefined) t.boundCpu = c.id;
    this.m.sched.wakeNew(t, c);
    return p;
  }

  /**
   * A process that was already asleep when the machine was handed over (stap's stapio, blocked
   * in ppoll): it gets `pid`, costs no CPU time and draws no random numbers; woken (a signal), it
   * returns to user mode and runs `main`.
   */
  adoptSleeper(pid: number, comm: string, exe: string, argv: string[], main: ProgramMain, wchan: string,
    opts: { parent?: Process; uid?: number; cwd?: string; fds?: (OpenFile | null)[] } = {}): Process {
    const parent = opts.parent ?? this.init;
    const p = new Process(pid, parent);
    parent.children.push(p);
    p.fds = opts.fds ?? [this.m.fs.devNullFile(), this.m.fs.devNullFile(), this.m.fs.devNullFile()];
    p.cwd = opts.cwd ?? '/root';
    p.uid = p.gid = opts.uid ?? 0;
    p.argv = argv;
    p.exe = exe;
    p.execName = exe;
    p.mm = this.m.mm.newMm(p, exe);
    const t = new Task(pid, pid, comm, p, false);
    t.uid = t.euid = p.uid;
    t.gid = t.egid = p.gid;
    t.startTime = this.m.now;
    p.threads.push(t);
    this.tasks.set(pid, t);
    this.procs.set(pid, p);
    t.prog = main(new U(this.m, t), argv);
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = wchan;
    t.cpu = 0;
    pushPath(t.ks, 'ret_from_fork_user', newEnv('ret_from_fork'));
    return p;
  }

  /**
   * One more thread of `p` (the next pid) that was already asleep when the machine was handed over,
   * as adoptSleeper's process: no CPU time, no random numbers; woken, it runs `main`.
   */
  adoptThread(p: Process, comm: string, main: ProgramMain, wchan: string): Task {
    const lead = p.threads[0];
    const tid = this.allocPid();
    const t = new Task(p.tgid, tid, comm, p, false);
    t.uid = t.euid = lead.uid;
    t.gid = t.egid = lead.gid;
    t.startTime = lead.startTime;
    p.threads.push(t);
    this.tasks.set(tid, t);
    t.prog = main(new U(this.m, t), p.argv);
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = wchan;
    t.cpu = lead.cpu;
    pushPath(t.ks, 'ret_from_fork_user', newEnv('ret_from_fork'));
    return t;
  }

  /**
   * The standard descriptors of a command from the host: /dev/null to read, and the terminal files
   * it writes to (fds 1 and 2: one file when `err` is `out`), on /dev/pts/0
   */
  terminalFds(out: (s: string) => void, err: (s: string) => void): OpenFile[] {
    const [con, econ] = this.consoles(out, err);
    return [this.m.fs.devNullFile(), con, econ];
  }

  private consoles(out: (s: string) => void, err: (s: string) => void): [ConsoleFile, ConsoleFile] {
    const pts = this.m.fs.lookup('/dev/pts/0');
    const con = new ConsoleFile(out, pts);
    return [con, err === out ? con : new ConsoleFile(err, pts)];
  }

  spawnShell(cmd: string, out: (s: string) => void, err: (s: string) => void, parent?: Process): Process {
    return this.spawn(parent ?? this.init, '/bin/sh', ['sh', '-c', cmd], this.terminalFds(out, err), { cwd: '/root' });
  }

  /**
   * `sh ARGS...` as a child of init in /root (tapsim shell -c / FILE). It is there when the machine is
   * handed over: it does not run an exec first (a start would pay for the first exec's recorded paths,
   * ~65 ms of CPU); the console gives it a dash's recorded address space (userland/service_mm.ts useRecordedShell)
   */
  spawnShellArgv(argv: string[], out: (s: string) => void, err: (s: string) => void): Process {
    return this.spawn(this.init, '/bin/sh', argv, this.terminalFds(out, err), { cwd: '/root' });
  }

  /** an interactive `sh -i` on a terminal file (fds 0, 1, 2), started as spawnShellArgv's */
  spawnShellTty(tty: OpenFile): Process {
    return this.spawn(this.init, '/bin/sh', ['sh', '-i'], [tty, tty, tty], { cwd: '/root' });
  }

  /**
   * `stap -c CMD` (stapio's start_cmd): a command line without shell syntax is split into words
   * and spawned directly (posix_spawnp: a child of `parent`, stapio, that execve()s the program
   * found on the PATH — execve, sched_process_exec and the comm change happen on the machine; the
   * command's pid is target()); a command with shell syntax is spawned the same way as
   * `/bin/sh -c CMD`, and one whose program is not on the PATH runs under `sh -c CMD` (which reports it).
   */
  spawnCommand(cmd: string, out: (s: string) => void, err: (s: string) => void, parent?: Process): Process {
    return this.spawnTarget(parent ?? this.init, cmd, this.terminalFds(out, err), '/root');
  }

  /**
   * stapio's start_cmd for `-c CMD` as a child of `par` with descriptors `fds`: the child execs the
   * words (when wordexp splits CMD and the program is on the PATH) or `/bin/sh -c CMD` (shell syntax);
   * else `sh -c CMD` is spawned
   */
  spawnTarget(par: Process, cmd: string, fds: (OpenFile | null)[], cwd: string): Process {
    const words = wordexpPlain(cmd);
    let target: { exe: string; argv: string[] } | null = null;
    if (words === null) {
      // shell syntax: wordexp("/bin/sh -c") with CMD appended, spawned the same way
      target = { exe: '/bin/sh', argv: ['/bin/sh', '-c', cmd] };
    } else if (words.length) {
      const name = words[0];
      const cands = name.includes('/') ? [name] : ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].map((d) => `${d}/${name}`);
      // execvp's name as given (`/bin/true` stays `/bin/true` in execve's filename), a program when
      // the file it names (through /bin -> usr/bin and other links) is one
      const exe = cands.find((x) => {
        const ino = this.m.fs.lookup(x, cwd);
        return !!ino && ino.isReg && this.programs.has(this.m.fs.pathOf(ino));
      });
      if (exe) target = { exe, argv: words };
    }
    if (!target) return this.spawn(par, '/bin/sh', ['sh', '-c', cmd], fds, { cwd });
    // stapio forks, and the child execs the command
    return this.spawnExec(par, target.exe, target.argv, fds, cwd);
  }

  /**
   * A child of `par` with descriptors `fds` in `cwd` that execve()s `exe` with `argv` (a shell's
   * `CMD &` or stapio's start_cmd: fork, then exec — execve, sched_process_exec and the comm change
   * happen on the machine, and the new image builds its address space page by page); the forked child
   * starts as a copy of its parent, on CPU `cpu` when given (else one drawn). Exits 127 when the exec fails.
   */
  spawnExec(par: Process, exe: string, argv: string[], fds: (OpenFile | null)[], cwd: string, cpu?: number, bind = false): Process {
    const pexe = par.exe || exe;
    const comm = par.threads[0]?.comm ?? pexe.slice(pexe.lastIndexOf('/') + 1).slice(0, 15);
    const execMain: ProgramMain = function* (u) {
      yield* u.exec(exe, argv);
      return yield* u.exit(127);
    };
    return this.spawn(par, pexe, par.argv.length ? par.argv : [pexe], fds, { cwd, comm, main: execMain, cpu, bind });
  }

  /**
   * vfork children (CLONE_VM | CLONE_VFORK) -> the parent waiting in wait_for_vfork_done: the child
   * runs in the parent's address space until it execs or exits (mm_release's complete_vfork_done)
   */
  readonly vforkParent = new Map<Process, Task>();

  /**
   * The parent a vfork child releases (at its exec or exit: mm_release's complete_vfork_done), or null;
   * the address space stays the child's until exec_mmap or exit_mm puts it (mm/mm.ts mmput: the
   * parent's reference keeps it).
   */
  vforkRelease(p: Process): Task | null {
    const par = this.vforkParent.get(p);
    if (!par) return null;
    this.vforkParent.delete(p);
    return par;
  }

  /** copy_process semantics: a new task (thread or process) for `parent` running `prog` (`vfork`: sharing its mm). */
  fork(parent: Task, mkProg: (u: U) => Prog, thread: boolean, c: Cpu, vfork = false): Task {
    const pid = this.allocPid();
    let p: Process;
    if (thread) {
      p = parent.proc;
    } else {
      p = new Process(pid, parent.proc);
      parent.proc.children.push(p);
      p.fds = parent.proc.fds.map((f) => (f ? f.dup() : null));
      p.cwd = parent.proc.cwd;
      p.umask = parent.proc.umask;
      p.uid = parent.proc.uid;
      p.gid = parent.proc.gid;
      p.argv = parent.proc.argv;
      p.exe = parent.proc.exe;
      p.execName = parent.proc.execName;
      p.sigHandlers = new Map(parent.proc.sigHandlers);
      p.memcg = parent.proc.memcg;
      inheritEnviron(p, parent.proc);
      // CLONE_VM (copy_mm): the parent's address space, one more user of it (mmget)
      if (vfork) { p.mm = parent.proc.mm; if (p.mm) p.mm.users++; this.vforkParent.set(p, parent); } else p.mm = parent.proc.mm ? this.m.mm.dupMm(parent.proc.mm, p) : null;
      this.procs.set(pid, p);
    }
    const t = new Task(thread ? parent.pid : pid, pid, parent.comm, p, false);
    t.uid = parent.uid; t.euid = parent.euid; t.gid = parent.gid; t.egid = parent.egid;
    t.sigBlocked = parent.sigBlocked; // copy_process: the child starts with its parent's signal mask
    // rseq_fork: a child process keeps its parent's rseq registration, a CLONE_VM one (a thread, a vfork
    // child) has none; wake_up_new_task's rseq_migrate then leaves it TIF_NOTIFY_RESUME, so its first
    // return to user mode runs the rseq work (the recordings: fork-wait's two `&` children, rseq_update
    // in their schedule_tail entries)
    if (!thread && !vfork && parent.rseq) { t.rseq = true; t.resumeWork |= RW_NOTIFY; }
    this.m.sched.setNice(t, parent.nice);
    t.startTime = this.m.now;
    t.cpu = c.id;
    p.threads.push(t);
    this.tasks.set(pid, t);
    const u = new U(this.m, t);
    // a fork child replays the faults the real one took before its exec (process/ldso.ts)
    t.prog = thread || vfork ? mkProg(u) : forkChildProgram(parent.proc, mkProg(u));
    t.state = TASK_NEW;
    pushPath(t.ks, 'ret_from_fork_user', newEnv('ret_from_fork'));
    return t;
  }

  /**
   * exec: replace the program image of `t`'s process by file `exe` (its path, symlinks resolved),
   * exec'd by the name `filename` (execve's first argument: the task's new comm) as `image` (the name
   * of the recorded program it runs: the file name, or a script's interpreter as its #! line names
   * it). Returns false when no such program.
   */
  exec(t: Task, exe: string, argv: string[], filename = exe, image = filename, program?: ProgramMain): boolean {
    const main = program ?? this.programs.get(exe);
    if (!main) return false;
    const p = t.proc;
    p.exe = exe;
    p.execName = image;
    p.argv = argv;
    // exec_mmap: the old address space put (torn down unless a vfork parent still holds it)
    if (p.mm) this.m.mm.mmput(p.mm);
    p.mm = this.m.mm.newMm(p, exe, execImage(image, exe));
    for (const [sig, h] of p.sigHandlers) if (typeof h === 'function') p.sigHandlers.set(sig, 'default');
    // __set_task_comm(me, kbasename(bprm->filename))
    t.comm = filename.slice(filename.lastIndexOf('/') + 1).slice(0, 15);
    // rseq_execve: the registration does not survive the old image (the new one's libc registers again)
    t.rseq = false;
    const u = new U(this.m, t);
    // the new image runs ld.so and libc's start-up before main (process/ldso.ts)
    t.prog = startProgram(u, image, main(u, argv), argv, exe);
    t.op = null;
    return true;
  }

  /** do_exit semantics for one task; the last thread ends the process. */
  exitTask(t: Task, code: number): void {
    const p = t.proc;
    t.state = TASK_DEAD;
    p.utime += t.utime;
    p.stime += t.stime;
    p.minFlt += t.minFlt;
    p.majFlt += t.majFlt;
    const alive = p.threads.filter((x) => x !== t && !(x.state & TASK_DEAD));
    if (alive.length && !p.exited) return;
    if (!p.exited) {
      p.exited = true;
      p.exitCode = code;
      for (const f of p.fds) if (f) f.close();
      p.fds = [];
      if (p.mm) { this.m.mm.mmput(p.mm); p.mm = null; }
      for (const ch of p.children) { ch.parent = this.init; this.init.children.push(ch); }
      p.children = [];
    }
  }

  /** Called by the switch hook once a dead task has left the CPU. */
  taskDead(t: Task): void {
    const p = t.proc;
    t.state = TASK_DEAD | EXIT_ZOMBIE;
    if (t.tid !== p.tgid || !p.exited) {
      if (t.tid !== p.tgid) { this.tasks.delete(t.tid); p.threads = p.threads.filter((x) => x !== t); }
    }
  }

  /** Parent-side notification of an exit (SIGCHLD + wake waiters). Returns waiters to wake. */
  notifyParent(p: Process): Task[] {
    const par = p.parent;
    if (!par) return [];
    const h = par.sigHandlers.get(SIGCHLD);
    if (h === 'ignore') { this.reap(p); return []; }
    const w = par.waitq.slice();
    par.waitq.length = 0;
    return w;
  }

  /** A zombie child of `p` (matching pid, -1 = any), or null; `none` when no children at all. */
  findZombie(p: Process, pid: number): Process | null | 'none' {
    // wait4's pid: -1 any child, 0 a child in the caller's process group, < -1 one in group -pid
    const pgid = pid === 0 ? p.pgid : -pid;
    const kids = p.children.filter((c) => !c.reaped && (pid === -1 || (pid > 0 ? c.tgid === pid : c.pgid === pgid)));
    if (!kids.length) return 'none';
    return kids.find((c) => c.exited && c.threads.every((t) => t.state & TASK_DEAD)) ?? null;
  }

  reap(p: Process): void {
    p.reaped = true;
    if (p.parent) p.parent.children = p.parent.children.filter((c) => c !== p);
    for (const t of p.threads) this.tasks.delete(t.tid);
    this.procs.delete(p.tgid);
  }

  /**
   * send_signal semantics: mark pending, wake interruptible sleepers. Returns tasks to wake
   * (the caller pushes the wakeup path) or an errno (<0).
   */
  signal(pid: number, sig: number): Task[] | number {
    const p = this.procs.get(pid);
    if (!p || p.exited) return -3; // ESRCH
    if (sig === 0) return [];
    return sendSignal(p, sig).wake;
  }

  /** Tasks sorted by pid (ps, /proc). */
  list(): Task[] {
    return [...this.tasks.values()].filter(shown).sort((a, b) => a.tid - b.tid);
  }

  /** Whether list() holds the task `tid` */
  listed(tid: number): boolean {
    const t = this.tasks.get(tid);
    return t !== undefined && shown(t);
  }

  running(t: Task): boolean {
    return t.state === TASK_RUNNING;
  }
}

/**
 * stapio's wordexp(3) of a `-c` command (WRDE_NOCMD | WRDE_UNDEF) when it needs no expansion:
 * blanks separate words, quotes and backslashes quote. Null when the shell is needed instead:
 * an unquoted `| & ; < > ( ) { }` or newline (WRDE_BADCHAR: stapio falls back to /bin/sh -c), or a
 * `$`, backquote or glob character whose expansion the shell performs the same way.
 */
export function wordexpPlain(cmd: string): string[] | null {
  const words: string[] = [];
  let w: string | null = null;
  for (let i = 0; i < cmd.length; i++) {
    const ch = cmd[i];
    if (ch === ' ' || ch === '\t') { if (w !== null) { words.push(w); w = null; } continue; }
    if ('|&;<>(){}\n$`*?['.includes(ch)) return null;
    if (ch === "'") {
      const j = cmd.indexOf("'", i + 1);
      if (j < 0) return null;
      w = (w ?? '') + cmd.slice(i + 1, j);
      i = j;
      continue;
    }
    if (ch === '"') {
      let v = '';
      let j = i + 1;
      for (; j < cmd.length && cmd[j] !== '"'; j++) {
        if (cmd[j] === '$' || cmd[j] === '`') return null;
        if (cmd[j] === '\\' && '$`"\\\n'.includes(cmd[j + 1] ?? '')) j++;
        v += cmd[j];
      }
      if (j >= cmd.length) return null;
      w = (w ?? '') + v;
      i = j;
      continue;
    }
    if (ch === '\\') { if (i + 1 >= cmd.length) return null; w = (w ?? '') + cmd[++i]; continue; }
    w = (w ?? '') + ch;
  }
  if (w !== null) words.push(w);
  return words;
}
