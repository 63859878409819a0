/**
 * /proc/<pid>/ and /proc/self (fs/proc/base.c, fs/proc/array.c of 6.1): a directory per live
 * thread-group leader, made when looked up, with `stat`, `status`, `cmdline`, `comm`, `fd/` (one
 * symlink per open descriptor), `cwd` and `exe`; `self` and `thread-self` are symlinks to the
 * looking task's directory.  Per-pid files other subsystems provide (maps: the VMAs) register
 * with `procPidFile`.  The formats are 6.1's: `stat`'s 52 fields (do_task_stat), `status`'s lines
 * in proc_pid_status order (no `Kthread:`/`untag_mask:` lines, which came after 6.1).
 */
import { Inode, S_IFDIR, S_IFREG, S_IFLNK, OpenFile, pseudoIno } from '../include/fs';
import type { Task, Process } from '../include/sched';
import { TASK_RUNNING, TASK_DEAD } from '../include/sched';
import type { Fs, FsMachine } from './namei';
import { PROC_PID_FILES } from '../paths/features';
import { taskMem } from './task_mmu';

/** The name /proc shows (proc_task_name): comm, and a workqueue worker's description after it (wq_worker_comm). */
function procComm(t: Task): string {
  return t.wqDesc ? `${t.comm}-${t.wqDesc}` : t.comm;
}

/** what a /proc directory with computed children provides (Inode.dyn) */
export interface DynDir {
  child(name: string): Inode | null;
  list(): string[];
  /** the name a child made earlier has (d_path of it), without looking anything up */
  nameOf?(ino: Inode): string | null;
}

/** Processes whose /proc/PID directory a lookup instantiated (proc_pid_lookup: its inode on the pid's list). */
const lookedUp = new WeakSet<Process>();
/**
 * Whether a lookup instantiated process `p`'s /proc/PID directory: when it is reaped, release_task's
 * proc_flush_pid invalidates those dentries (proc_invalidate_siblings_dcache: d_invalidate, the inodes
 * evicted), a tree of its own (process/exit.ts, paths/model.ts TREE_FEATURES 'sys:wait4').
 */
export function procPidLookedUp(p: Process): boolean {
  return lookedUp.has(p);
}

type PidFile = (t: Task, m: FsMachine) => string;
const extraFiles = new Map<string, PidFile>();
/** Add a file to every /proc/<pid>/ directory (e.g. maps, by the memory layer). */
export function procPidFile(name: string, show: PidFile): void {
  extraFiles.set(name, show);
}

const USER_HZ = 100;
const ticks = (ns: number) => Math.floor(ns / (1e9 / USER_HZ));

function stateChar(t: Task): string {
  const s = t.state as unknown as number;
  if (t.proc.exited) return 'Z';
  if (s === 0) return 'R';
  // a kernel thread asleep in TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD): workers, rescuers, RCU kthreads
  if (s & 2) return t.kthread && (t.idleSleep || t.wchan.startsWith('worker')) ? 'I' : 'D';
  return t.kthread && t.idleSleep ? 'I' : 'S';
}
const STATE_NAMES: Record<string, string> = {
  R: 'R (running)', S: 'S (sleeping)', D: 'D (disk sleep)', Z: 'Z (zombie)', I: 'I (idle)', T: 'T (stopped)',
};

function leaderOf(m: FsMachine, pid: number): Task | null {
  const t = m.procs.tasks.get(pid);
  return t && t.tid === t.pid && !t.proc.reaped ? t : null;
}

/** the controlling terminal: pts/0 (136:0) for a process whose standard descriptors are the terminal, none for daemons and kthreads */
function ttyNr(t: Task): number {
  if (t.kthread) return 0;
  return t.proc.fds.slice(0, 3).some((f) => f?.kind === 'console') ? (136 << 8) : 0;
}

function vmPages(t: Task): { size: number; rss: number } {
  const mm = t.proc.mm;
  if (!mm) return { size: 0, rss: 0 };
  let size = 0;
  for (const r of mm.regions.values()) size += r.pages.length;
  return { size, rss: mm.rss };
}

/** the session: process groups are not modelled, so a process leads its group and the session is its ancestor below init */
function sessionOf(t: Task): number {
  let p = t.proc;
  for (let i = 0; i < 64 && p.parent && p.parent.tgid > 1 && p.parent.tgid !== 2; i++) p = p.parent;
  return p.tgid;
}

/** the signals a task ignores and catches (its process' handlers; a kernel thread ignores all) */
function sigMasks(t: Task): { ign: bigint; cgt: bigint } {
  if (t.kthread) return { ign: (1n << 64n) - 1n, cgt: 0n };
  let ign = 0n, cgt = 0n;
  for (const [sig, h] of t.proc.sigHandlers) {
    if (sig < 1 || sig > 64 || (h as unknown) === 'default') continue;
    const bit = 1n << BigInt(sig - 1);
    if ((h as unknown) === 'ignore' || (h as { ignore?: boolean }).ignore) ign |= bit; else cgt |= bit;
  }
  return { ign, cgt };
}

/** PF_* flags: the recorded ones of a boot kthread, else PF_KTHREAD | PF_NOFREEZE | PF_FORKNOEXEC for a kthread, PF_RANDOMIZE for a user task */
function taskFlags(t: Task): number {
  return t.pflags || (t.kthread ? 0x208040 : 0x400000);
}

/**
 * do_task_stat's whole-process counters, fields 10-17: minflt cminflt majflt cmajflt utime stime cutime
 * cstime (the live threads' with the exited threads' and, for the c fields, the reaped children's)
 */
function procCounters(p: Process): number[] {
  let minFlt = p.minFlt, majFlt = p.majFlt, utime = p.utime, stime = p.stime;
  for (const x of p.threads) {
    if (x.state & TASK_DEAD) continue;
    minFlt += x.minFlt; majFlt += x.majFlt; utime += x.utime; stime += x.stime;
  }
  return [minFlt, p.cminFlt, majFlt, p.cmajFlt, ticks(utime), ticks(stime), ticks(p.cutime), ticks(p.cstime)];
}

/** /proc/<pid>/stat (do_task_stat) */
export function statText(t: Task, m: FsMachine): string {
  const p = t.proc;
  const ppid = p.parent?.tgid ?? 0;
  const { size, rss } = vmPages(t);
  const threads = p.threads.filter((x) => !x.proc.exited).length || 1;
  const tty = ttyNr(t);
  // the signal words as do_task_stat prints them: the first 31 signals (sig[0] & 0x7fffffff)
  const low = (v: bigint | number) => Number(BigInt(Math.trunc(Number(v))) & 0x7fffffffn);
  const { ign, cgt } = sigMasks(t);
  const running = (t.state as unknown as number) === 0;
  const f = [
    t.pid, `(${procComm(t)})`, stateChar(t), ppid, t.kthread ? 0 : p.pgid, t.kthread ? 0 : sessionOf(t), tty, tty ? p.pgid : -1, taskFlags(t),
    ...procCounters(p), t.prio - 100, t.nice, threads, 0,
    ticks(t.startTime), size * 4096, rss, '18446744073709551615',
    0, 0, 0, 0, 0, low(t.sigPending), low(t.sigBlocked), Number(ign & 0x7fffffffn), Number(cgt & 0x7fffffffn), running ? 0 : 1, 0, 0,
    t.exitSignal, t.cpu, t.rtPriority, t.policy, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, p.exited ? p.exitCode : 0,
  ];
  void m;
  return f.join(' ') + '\n';
}

const kB = (pages: number) => `${String(pages * 4).padStart(8)} kB`;

/** /proc/<pid>/status (proc_pid_status) */
export function statusText(t: Task, m: FsMachine): string {
  const p = t.proc;
  const ppid = p.parent?.tgid ?? 0;
  const st = stateChar(t);
  const ids = (a: number, b: number) => `${a}\t${b}\t${b}\t${b}`;
  let s = `Name:\t${procComm(t)}\nUmask:\t${t.kthread ? '0000' : '0022'}\nState:\t${STATE_NAMES[st]}\nTgid:\t${p.tgid}\nNgid:\t0\n`;
  s += `Pid:\t${t.tid}\nPPid:\t${ppid}\nTracerPid:\t0\nUid:\t${ids(t.uid, t.euid)}\nGid:\t${ids(t.gid, t.egid)}\n`;
  s += `FDSize:\t${t.kthread ? 64 : Math.max(64, 2 ** Math.ceil(Math.log2(Math.max(1, p.fds.length))))}\nGroups:\t \n`;
  s += `NStgid:\t${p.tgid}\nNSpid:\t${t.tid}\nNSpgid:\t${t.kthread ? 0 : p.pgid}\nNSsid:\t${t.kthread ? 0 : sessionOf(t)}\n`;
  if (p.mm) {
    const v = taskMem(p.mm);
    s += `VmPeak:\t${kB(v.total)}\nVmSize:\t${kB(v.total)}\nVmLck:\t${kB(0)}\nVmPin:\t${kB(0)}\nVmHWM:\t${kB(v.rss)}\nVmRSS:\t${kB(v.rss)}\n`;
    s += `RssAnon:\t${kB(v.anon)}\nRssFile:\t${kB(v.file)}\nRssShmem:\t${kB(v.shmem)}\n`;
    s += `VmData:\t${kB(v.data)}\nVmStk:\t${kB(v.stack)}\nVmExe:\t${kB(v.exe)}\nVmLib:\t${kB(v.lib)}\nVmPTE:\t${kB(v.pte)}\n`;
    s += `VmSwap:\t${kB(v.swap)}\nHugetlbPages:\t${kB(0)}\n`;
  }
  // task_core_dumping and task_thp_status only with an mm (a kernel thread goes from NSsid to Threads, as the guest's /proc/3/status)
  if (p.mm) s += 'CoreDumping:\t0\nTHP_enabled:\t1\n';
  s += `Threads:\t${p.threads.filter((x) => !x.proc.exited).length || 1}\n`;
  s += `SigQ:\t0/7781\nSigPnd:\t0000000000000000\nShdPnd:\t${hex16(t.sigPending)}\nSigBlk:\t${hex16(t.sigBlocked)}\n`;
  const { ign, cgt } = sigMasks(t);
  s += `SigIgn:\t${hex16(ign)}\nSigCgt:\t${hex16(cgt)}\n`;
  const caps = t.euid === 0 ? '000001ffffffffff' : '0000000000000000';
  s += `CapInh:\t0000000000000000\nCapPrm:\t${caps}\nCapEff:\t${caps}\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n`;
  s += 'NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\nSpeculation_Store_Bypass:\tthread vulnerable\nSpeculationIndirectBranch:\tconditional enabled\n';
  const n = m.cpus.length;
  s += `Cpus_allowed:\t${((2 ** n) - 1).toString(16)}\nCpus_allowed_list:\t${n > 1 ? `0-${n - 1}` : '0'}\n`;
  s += `Mems_allowed:\t${Array(31).fill('00000000').join(',')},00000001\nMems_allowed_list:\t0\n`;
  s += `voluntary_ctxt_switches:\t${t.nvcsw}\nnonvoluntary_ctxt_switches:\t${t.nivcsw}\n`;
  return s;
}
const hex16 = (v: number | bigint) => BigInt.asUintN(64, typeof v === 'bigint' ? v : BigInt(Math.trunc(v))).toString(16).padStart(16, '0');

/**
 * /proc/PID/wchan (proc_pid_wchan): the function the task sleeps in (get_wchan: the first function of its
 * stack that is not the scheduler's; the machine's sleeps name it: `Task.wchan`), without a newline; "0" for a
 * task that runs or is runnable, one that exited, or a reader ptrace_may_access refuses (another user's task).
 */
export function wchanText(t: Task, reader: Task | null): string {
  if (reader && reader.euid !== 0 && (reader.euid !== t.uid || reader.euid !== t.euid)) return '0';
  if (t.state === TASK_RUNNING || t.proc.exited || t.state & TASK_DEAD || !t.wchan) return '0';
  return t.wchan;
}

/** the path an open file shows as its /proc/<pid>/fd/N link target (d_path, or pipe:[ino] / socket:[ino]) */
function fdTarget(fs: Fs, f: OpenFile): string {
  if ((f.kind === 'pipe_r' || f.kind === 'pipe_w') && !f.inode) return `pipe:[${pseudoIno(f.pipe ?? f)}]`;
  if (f.kind === 'sock') return `socket:[${pseudoIno(f.sock ?? f)}]`;
  if (f.kind === 'console') return '/dev/pts/0';
  return f.inode ? fs.pathOf(f.inode) : `anon_inode:${f.anon?.name ?? '[eventfd]'}`;
}

/**
 * The computed children of /proc: a directory per process, `self` and `thread-self`; the
 * machine's files of /proc (meminfo, sys/ ...) are the directory's own children.
 */
export function procRoot(m: FsMachine, fs: Fs, proc: Inode): DynDir {
  const dirs = new Map<number, { task: Task; dir: Inode }>();
  const mkIno = (kind: number, mode: number, pid: number, k: number): Inode => {
    const i = new Inode(0x40000000 + pid * 64 + k, kind | mode, 'proc', m.now);
    return i;
  };
  const current = (): Task | null => (m as unknown as { executing: { ctx: { task: Task } } | null }).executing?.ctx.task ?? null;
  const link = (name: string, target: () => string, pid: number, k: number, parent: Inode): Inode => {
    const l = mkIno(S_IFLNK, 0o777, pid, k);
    l.target = target();
    l.parent = parent;
    void name;
    return l;
  };
  /**
   * The files of a task's directory `dir` (/proc/PID/ of a thread-group leader, /proc/PID/task/TID/ of any
   * thread: tid_base_stuff has the same files but task/), numbered from `id` (the pid or the tid).
   */
  const taskFiles = (t: Task, dir: Inode, id: number): void => {
    const file = (name: string, show: () => string, k: number, mode = 0o444) => {
      const f = mkIno(S_IFREG, mode, id, k);
      f.show = show;
      if (PROC_PID_FILES.includes(name)) f.procKind = `proc_${name}`;
      f.parent = dir;
      f.uid = t.uid;
      dir.children!.set(name, f);
    };
    file('stat', () => statText(t, m), 1);
    file('status', () => statusText(t, m), 2);
    file('cmdline', () => (t.kthread || t.proc.exited ? '' : t.proc.argv.map((a) => a + '\0').join('')), 3);
    file('comm', () => `${procComm(t)}\n`, 4, 0o644);
    file('wchan', () => wchanText(t, current()), 24);
    let k = 8;
    for (const [name, show] of extraFiles) file(name, () => show(t, m), k++);
    const fdDir = mkIno(S_IFDIR, 0o500, id, 5);
    fdDir.parent = dir;
    dir.children!.set('fd', fdDir);
    fdDir.dyn = {
      list: () => t.proc.fds.flatMap((f, i) => (f ? [String(i)] : [])),
      child: (n) => {
        const f = /^\d+$/.test(n) ? t.proc.fds[Number(n)] : null;
        if (!f) return null;
        const l = link(n, () => fdTarget(fs, f), id, 32 + Number(n) % 32, fdDir);
        // the link's mode shows how the descriptor was opened (lr-x / l-wx / lrwx)
        const acc = f.flags & 3;
        l.mode = S_IFLNK | (acc === 0 ? 0o500 : acc === 1 ? 0o300 : 0o700);
        l.size = 64;
        return l;
      },
    };
    if (!t.kthread) {
      dir.children!.set('cwd', link('cwd', () => t.proc.cwd, id, 6, dir));
      dir.children!.set('exe', link('exe', () => t.proc.exe, id, 7, dir));
    }
  };
  const pidDir = (t: Task): Inode => {
    lookedUp.add(t.proc);
    let d = dirs.get(t.pid);
    if (d && d.task === t) return d.dir;
    const pid = t.pid;
    const dir = mkIno(S_IFDIR, 0o555, pid, 0);
    dir.parent = proc;
    dir.uid = t.uid;
    taskFiles(t, dir, pid);
    // task/: a directory per thread of the process (proc_task_lookup), made when looked up
    const taskDir = mkIno(S_IFDIR, 0o555, pid, 25);
    taskDir.parent = dir;
    taskDir.uid = t.uid;
    dir.children!.set('task', taskDir);
    const threadDirs = new Map<Task, Inode>();
    const live = (): Task[] => t.proc.threads.filter((x) => x.state !== TASK_DEAD);
    taskDir.dyn = {
      list: () => live().map((x) => String(x.tid)),
      child: (n) => {
        const th = live().find((x) => String(x.tid) === n);
        if (!th) return null;
        let td = threadDirs.get(th);
        if (!td) {
          td = mkIno(S_IFDIR, 0o555, th.tid, 26);
          td.parent = taskDir;
          td.uid = th.uid;
          taskFiles(th, td, th.tid);
          threadDirs.set(th, td);
        }
        return td;
      },
    };
    dirs.set(pid, { task: t, dir });
    return dir;
  };
  return {
    list: () => ['self', 'thread-self', ...[...m.procs.tasks.values()].filter((t) => t.tid === t.pid && !t.proc.reaped).map((t) => String(t.pid)).sort((a, b) => Number(a) - Number(b))],
    nameOf: (ino) => {
      for (const [pid, d] of dirs) if (d.dir === ino) return String(pid);
      return null;
    },
    child: (name) => {
      if (name === 'self' || name === 'thread-self') {
        const t = current();
        if (!t) return null;
        return link(name, () => (name === 'self' ? String(t.pid) : `${t.pid}/task/${t.tid}`), 0, name === 'self' ? 62 : 63, proc);
      }
      if (!/^\d+$/.test(name)) return null;
      const t = leaderOf(m, Number(name));
      return t ? pidDir(t) : null;
    },
  };
}
