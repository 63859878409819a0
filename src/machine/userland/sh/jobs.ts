/**
 * The shell's jobs and waiting as dash 0.5.12 does them (src/jobs.c, as strace -f of Debian 12's
 * /bin/sh shows): a job per pipeline or background command, children reaped with wait4(-1) whichever
 * job they belong to (waitone), the foreground wait blocking (waitforjob: wait4(-1, 0) until the job
 * is done, then wait4(WNOHANG) for what else has ended), the `wait` builtin waiting with WNOHANG and
 * sigsuspend between SIGCHLDs (waitproc), SIGCHLD caught by dash's handler (gotsigchld), and a simple
 * command run with vfork (vforkexec: every signal blocked around it, the child unblocks and execs).
 */
import type { U } from '../../process/user';
import type { Op, Prog, SysResult } from '../../include/sched';
import { SIGCHLD } from '../../include/signal';

type G<T> = Generator<Op, T, SysResult>;

export const DOWAIT_NONBLOCK = 0, DOWAIT_BLOCK = 1, DOWAIT_WAITCMD = 2, DOWAIT_WAITCMD_ALL = 4;
const WNOHANG = 1, EINTR = 4, SIG_SETMASK = 2;
/** sigblockall's mask: sigfillset (glibc keeps SIGRTMIN and SIGRTMIN+1 out; the machine's masks hold signals 1-32) */
const ALL_SIGNALS = 0xffffffff;

export interface Job {
  id: number;
  pids: number[];
  /** wait status per process, -1 while it runs */
  status: number[];
  cmd: string;
  bg: boolean;
  /** reported or waited for (interactive `Done` lines) */
  waited: boolean;
}

/** exit status of a wait status: WEXITSTATUS, or 128 + the signal that ended it */
export function statusOf(st: number): number {
  return st & 0x7f ? 128 + (st & 0x7f) : (st >> 8) & 0xff;
}

export class Jobs {
  list: Job[] = [];
  /** set by the SIGCHLD handler, cleared by waitproc */
  gotsigchld = false;

  /** dash's init: SIGCHLD caught (onsig sets gotsigchld), so children's ends interrupt waits */
  *catchChld(u: U): G<void> {
    yield* u.catchSignal(SIGCHLD, () => { this.gotsigchld = true; });
  }

  make(cmd: string, bg: boolean): Job {
    const id = this.list.reduce((m, j) => Math.max(m, j.id), 0) + 1;
    const j: Job = { id, pids: [], status: [], cmd, bg, waited: false };
    this.list.push(j);
    return j;
  }
  add(j: Job, pid: number): void { j.pids.push(pid); j.status.push(-1); }
  running(j: Job): boolean { return j.status.some((s) => s === -1); }
  /** getstatus: the status of the job's last process */
  getstatus(j: Job): number { return j.status.length ? statusOf(Math.max(0, j.status[j.status.length - 1])) : 0; }
  free(j: Job): void { this.list = this.list.filter((x) => x !== j); }
  /** the background (`&`) jobs, in the order they were made (`jobs`, `wait`, `fg`, `kill %N`) */
  background(): Job[] { return this.list.filter((x) => x.bg); }

  /** sigblockall: rt_sigprocmask(SIG_SETMASK, all, &old); the old mask */
  *sigblockall(u: U): G<number> {
    return ((yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 1, 8], { set: ALL_SIGNALS })).info?.old as number | undefined) ?? 0;
  }
  /** sigclearmask: rt_sigprocmask(SIG_SETMASK, [], NULL) */
  *sigclearmask(u: U): G<void> {
    yield* u.sys('rt_sigprocmask', [SIG_SETMASK, 1, 1, 8], { set: 0 });
  }

  /**
   * waitproc: wait4(-1) (WNOHANG unless blocking); waiting for the `wait` builtin, sigsuspend until
   * a SIGCHLD came, then again.  [pid or -errno or 0, status]
   */
  private *waitproc(u: U, block: number): G<[number, number]> {
    let r: [number, number];
    do {
      this.gotsigchld = false;
      do r = yield* u.wait(-1, block !== DOWAIT_BLOCK); while (r[0] === -EINTR);
      if (r[0] !== 0) break;
      if (!block) { r = [-1, 0]; break; }
      const old = yield* this.sigblockall(u);
      while (!this.gotsigchld) {
        const s = yield* u.sys('rt_sigsuspend', [1, 8], { set: old });
        if (s.ret !== -EINTR) break;
      }
      yield* this.sigclearmask(u);
    } while (this.gotsigchld);
    return r;
  }

  /** waitone: reap one child and record its status in its job */
  private *waitone(u: U, block: number): G<number> {
    const [pid, st] = yield* this.waitproc(u, block);
    if (pid <= 0) return pid;
    for (const j of this.list) {
      const i = j.pids.indexOf(pid);
      if (i >= 0 && j.status[i] === -1) { j.status[i] = st; break; }
    }
    return pid;
  }

  /** dowait: reap until `jp` is done (or, waiting for nothing, what has ended); 0 when a signal cut the wait */
  *dowait(u: U, block: number, jp: Job | null): G<number> {
    const gotchld = this.gotsigchld;
    if (jp && !this.running(jp)) block = DOWAIT_NONBLOCK;
    if (block === DOWAIT_NONBLOCK && !gotchld) return 1;
    let rpid = 1;
    let pid: number;
    do {
      pid = yield* this.waitone(u, block);
      if (!pid) rpid = 0;
      block &= ~DOWAIT_WAITCMD_ALL;
      if (!pid || (jp && !this.running(jp))) block = DOWAIT_NONBLOCK;
    } while (pid >= 0);
    return rpid;
  }

  /** waitforjob: the foreground job's status, the job freed */
  *waitForJob(u: U, jp: Job): G<number> {
    yield* this.dowait(u, DOWAIT_BLOCK, jp);
    const st = this.getstatus(jp);
    if (!this.running(jp)) this.free(jp);
    return st;
  }

  /**
   * vforkexec: a foreground job of one command: every signal blocked, vfork, the child unblocks and
   * runs `exec` (execve; what it returns is the child's exit), the parent unblocks
   */
  *vforkExec(u: U, cmd: string, exec: (cu: U) => Prog): G<Job> {
    const jp = this.make(cmd, false);
    yield* this.sigblockall(u);
    const self = this;
    const pid = yield* u.vfork(function* (cu: U): Prog {
      yield* self.sigclearmask(cu);
      return yield* exec(cu);
    });
    yield* this.sigclearmask(u);
    if (pid > 0) this.add(jp, pid);
    return jp;
  }
}
