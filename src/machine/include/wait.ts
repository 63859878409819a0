/**
 * Wait queues (include/linux/wait.h): the tasks sleeping until an object is ready (a pipe's
 * readers and writers, a socket's, the waiters on a page under I/O or on a block request).  The
 * entries are the machine's Tasks (include/sched.ts), typed here by what the object holding the
 * queue knows of them, so that files, sockets and requests do not depend on the task type that
 * holds them; the scheduler wakes them (kernel/sched/core.ts pushWakeups).
 */
import type { TaskRef } from '../../kernel/current';

export type WaitQueue = TaskRef[];

/** Take `t` off each of `queues` (a sleeping hook re-runs after any wakeup and leaves before it sleeps again). */
export function leaveQueues(t: TaskRef, queues: readonly WaitQueue[]): void {
  for (const q of queues) {
    const i = q.indexOf(t);
    if (i >= 0) q.splice(i, 1);
  }
}
