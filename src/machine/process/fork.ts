/** fork/clone (kernel/fork.c): the child process or thread, its first wakeup, and the fork tracepoints' arguments. */
import type { ProcMachine } from './procs';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { Task, Prog, TASK_UNINTERRUPTIBLE } from '../include/sched';
import type { U } from './user';

export const fork = new Semantics<ProcMachine>('process/fork');

fork.cond('thread', (_m, _c, _t, e) => e.thread === true);
fork.syscall('clone', (m, c, t, e) => {
  const child = m.procs.fork(t, e.child as (u: U) => Prog, e.thread === true, c);
  e.childTask = child;
  e.p = child;
  e.ret = child.tid;
  return H_CONT;
});
/**
 * vfork(2): clone(CLONE_VM | CLONE_VFORK | SIGCHLD); the parent sleeps in wait_for_vfork_done
 * (wait_for_completion_state, TASK_KILLABLE) until the child's exec or exit releases the address
 * space (the recorded tree's schedule there is where it sleeps)
 */
fork.syscall('vfork', (m, c, t, e) => {
  const child = m.procs.fork(t, e.child as (u: U) => Prog, false, c, true);
  e.childTask = child;
  e.p = child;
  e.ret = child.tid;
  return H_CONT;
});
fork.hook('vfork_wait', (m, _c, t, e) => {
  const child = e.childTask as Task | undefined;
  if (e.name !== 'vfork' || !child || !m.procs.vforkParent.has(child.proc)) return H_CONT;
  t.state = TASK_UNINTERRUPTIBLE | TASK_WAKEKILL;
  t.wchan = 'wait_for_vfork_done';
  return H_CONT;
});
fork.at('wait_for_completion_state', 'vfork_wait');
const TASK_WAKEKILL = 0x100;
fork.hook('wake_new', (m, c, _t, e) => {
  const child = e.childTask as Task;
  m.sched.wakeNew(child, c);
  return H_CONT;
});
fork.at('wake_up_new_task', 'wake_new');
fork.tpArgs('sched_process_fork', (_m, _c, t, e) => [t, e.childTask]);
fork.tpArgs('task_newtask', (_m, _c, _t, e) => [e.childTask ?? null, e.a[0]]);
