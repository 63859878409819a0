/** exit and wait (kernel/exit.c): do_exit of a task (the last thread ends the process), wait4 reaping zombies, and the exit tracepoints' arguments. */
import type { ProcMachine } from './procs';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import { TASK_INTERRUPTIBLE, TASK_DEAD, Task } from '../include/sched';
import type { Cpu } from '../include/cpu';
import type { Env } from '../include/kstack';
import { drainTo, flushWakes, queueWakes, wakeLater } from '../kernel/sched/core';
import { finishNotify, notifyPrep } from '../kernel/signal';
import { sigBit, SIGKILL } from '../include/signal';
import { procPidLookedUp } from '../fs/proc_pid';

const ECHILD = 10, EINTR = 4;

export const exit = new Semantics<ProcMachine>('process/exit');

function waitHook(m: ProcMachine, _c: Cpu, t: Task, e: Env): number {
  const pid = Number(e.a[0]);
  const nohang = (Number(e.a[2]) & 1) !== 0;
  const z = m.procs.findZombie(t.proc, pid);
  if (z === 'none') { e.ret = -ECHILD; return H_CONT; }
  if (z) {
    e.reaped = true;
    e.zombie = z;
    // release_task's proc_flush_pid: the dentries of its /proc/PID, if a lookup made them (the tree that invalidates them)
    e.treeFeat = procPidLookedUp(z) ? ['pdc', 'rel'] : ['rel'];
    e.p = z.threads[0];
    e.ret = z.tgid;
    e.info = { status: z.exitCode >= 128 && (z as unknown as { signaled?: boolean }).signaled ? z.exitCode - 128 : (z.exitCode & 0xff) << 8 };
    // struct rusage ru_utime/ru_stime (ns): the child's and its reaped children's (wait_task_zombie)
    (e.info as Record<string, unknown>).rusage = { utime: z.utime + z.cutime, stime: z.stime + z.cstime };
    const q = t.proc;
    q.cutime += z.utime + z.cutime; q.cstime += z.stime + z.cstime;
    q.cminFlt += z.minFlt + z.cminFlt; q.cmajFlt += z.majFlt + z.cmajFlt;
    m.procs.reap(z);
    return H_CONT;
  }
  if (nohang) { e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  if (!t.proc.waitq.includes(t)) t.proc.waitq.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'do_wait';
  return H_SLEEP;
}
exit.hook('wait', waitHook);
exit.cond('reaped', (_m, _c, _t, e) => e.reaped === true);
exit.tpArgs('sched_process_free', (_m, _c, _t, e) => [e.p]);
exit.tpArgs('sched_process_exit', (_m, _c, t) => [t]);
function exitTask(m: ProcMachine, t: Task, e: Env): void {
  const code = Number(e.a[0]) & 0xff;
  m.procs.exitTask(t, e.signaled ? Number(e.a[0]) : code);
  if (e.signaled) (t.proc as unknown as { signaled?: boolean }).signaled = true;
}
/**
 * do_group_exit's zap_other_threads (kernel/signal.c): every other live thread of the group gets
 * SIGKILL and is woken (signal_wake_up), to exit on its way back to user mode.  The machine makes a
 * group exit of a fatal signal's and of the leader's exit_group: a thread whose program returns ends
 * with exit_group too (process/user.ts), where a pthread would call exit.
 */
function zapOtherThreads(t: Task): void {
  for (const o of t.proc.threads) {
    if (o === t || o.state & TASK_DEAD || o.sigPending & sigBit(SIGKILL)) continue;
    o.sigPending |= sigBit(SIGKILL);
    o.sigWoken = true;
    wakeLater(o);
  }
}
/**
 * A recorded do_exit: the machine's exit (files, memory, children) in exit_notify, where the task
 * becomes a zombie (exit_state) before do_notify_parent tells its parent; the wakeups the exit makes
 * (pipe peers, the parent) go to the path's own try_to_wake_up calls, the rest at do_task_dead.
 */
exit.hook('exit_notify', (m, c, t, e) => {
  // exit_mm's mm_release: a vfork child that never exec'd wakes its parent (complete_vfork_done)
  const vforkParent = t.tid === t.proc.tgid ? m.procs.vforkRelease(t.proc) : null;
  if (e.name === 'exit_group' && (e.signaled === true || t.tid === t.proc.tgid)) zapOtherThreads(t);
  exitTask(m, t, e);
  notifyPrep(t, e);
  if (vforkParent) wakeLater(vforkParent);
  return drainTo(c, e);
});
exit.at('do_notify_parent', 'exit_notify');
exit.hook('task_dead', (m, c, t, e) => {
  t.state = TASK_DEAD;
  queueWakes(e, finishNotify(m, t, e));
  return flushWakes(c, e);
});
exit.at('do_task_dead', 'task_dead');
exit.syscall('wait4', (m, c, t, e) => waitHook(m, c, t, e));
