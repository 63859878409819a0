/** fork/clone (kernel/fork.c): the child process or thread, its first wakeup, and the fork tracepoints' arguments. */
import type { ProcMachine } from './procs';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { Task, Prog } from '../include/sched';
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
fork.hook('wake_new', (m, c, _t, e) => {
  const child = e.childTask as Task;
  m.sched.wakeNew(child, c);
  return H_CONT;
});
fork.at('wake_up_new_task', 'wake_new');
fork.tpArgs('sched_process_fork', (_m, _c, t, e) => [t, e.childTask]);
fork.tpArgs('task_newtask', (_m, _c, _t, e) => [e.childTask ?? null, e.a[0]]);
