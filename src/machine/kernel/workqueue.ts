/** Kernel threads' work (kernel/workqueue.c, kernel/kthread.c): a work item's function runs as a hook; kthread parking. */
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { Env } from '../include/kstack';

export const workqueue = new Semantics<CpuMachine>('kernel/workqueue');

workqueue.hook('kthread_park', () => H_CONT);
workqueue.hook('work', (m, c, t, e) => {
  const fn = e.work as ((m: CpuMachine, c: Cpu, t: Task, e: Env) => number) | undefined;
  return fn ? fn(m, c, t, e) : H_CONT;
});
