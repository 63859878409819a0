/** exit and wait (kernel/exit.c): do_exit of a task (the last thread ends the process), wait4 reaping zombies, and the exit tracepoints' arguments. */
import type { ProcMachine } from './procs';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { drain } from '../kernel/sched/core';

const ECHILD = 10, EINTR = 4;

export const exit = new Semantics<ProcMachine>('process/exit');

exit.hook('wait', (m, c, t, e) => {
  const pid = Number(e.a[0]);
  const nohang = (Number(e.a[2]) & 1) !== 0;
  const z = m.procs.findZombie(t.proc, pid);
  if (z === 'none') { e.ret = -ECHILD; return H_CONT; }
  if (z) {
    e.reaped = true;
    e.zombie = z;
    e.p = z.threads[0];
    e.ret = z.tgid;
    e.info = { status: z.exitCode >= 128 && (z as unknown as { signaled?: boolean }).signaled ? z.exitCode - 128 : (z.exitCode & 0xff) << 8 };
    t.proc.utime += z.utime; t.proc.stime += z.stime;
    m.procs.reap(z);
    return H_CONT;
  }
  if (nohang) { e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  if (!t.proc.waitq.includes(t)) t.proc.waitq.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'do_wait';
  return H_SLEEP;
});
exit.cond('reaped', (_m, _c, _t, e) => e.reaped === true);
exit.tpArgs('sched_process_free', (_m, _c, _t, e) => [e.p]);
exit.tpArgs('sched_process_exit', (_m, _c, t) => [t]);
exit.hook('exit_files', () => H_CONT);
exit.hook('exit', (m, c, t, e) => {
  const code = Number(e.a[0]) & 0xff;
  m.procs.exitTask(t, e.signaled ? Number(e.a[0]) : code);
  if (e.signaled) (t.proc as unknown as { signaled?: boolean }).signaled = true;
  return drain(c);
});
