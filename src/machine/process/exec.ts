/**
 * execve (fs/exec.c): the new program image (at the syscall's entry: the recorded tree of the exec that
 * follows is the variant for the program loaded), the comm change in __set_task_comm, and the exec
 * tracepoints' arguments.
 */
import type { ProcMachine } from './procs';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { perfEventExec } from '../kernel/perf_event_open';
import { kmem } from '../../kernel/memory';

const ENOENT = 2;

export const exec = new Semantics<ProcMachine>('process/exec');

/** the execve will succeed (bprm_execve reaches the binary loader and sched_process_exec) */
exec.cond('execok', (m, _c, t, e) => {
  const ino = m.fs.lookup(String(e.a[0]), t.proc.cwd);
  return !!ino && ino.isReg && m.procs.programs.has(m.fs.pathOf(ino));
});

exec.syscall('execve', (m, _c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino || !ino.isReg) { e.ret = -ENOENT; return H_CONT; }
  const exe = m.fs.pathOf(ino);
  const oldComm = t.comm;
  if (!m.procs.exec(t, exe, e.a[1] as string[])) { e.ret = -8; return H_CONT; } // ENOEXEC
  e.oldPid = t.pid;
  // the comm changes in __set_task_comm, after task_rename has seen the old one
  e.newComm = t.comm;
  t.comm = oldComm;
  e.ret = 0;
  return H_CONT;
});
exec.tpArgs('task_rename', (_m, _c, t, e) => [t, e.newComm ?? t.comm]);
exec.hook('set_comm', (_m, _c, t, e) => {
  perfEventExec(t); // begin_new_exec: perf_event_exec() just before __set_task_comm()
  if (typeof e.newComm === 'string') t.comm = e.newComm;
  const a = kmem.boundAddr(t);
  if (a !== undefined) kmem.setField(a, 'struct task_struct', 'comm', t.comm);
  return H_CONT;
});
exec.at('__set_task_comm', 'set_comm');
exec.tpArgs('sched_process_exec', (_m, _c, t, e) => [t, e.oldPid ?? t.pid, { filename: e.a[0] }]);
