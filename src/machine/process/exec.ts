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
import { OpenFile, O_LARGEFILE } from '../include/fs';
import { wakeTasks } from '../kernel/sched/core';
import { setEnviron } from './environ';

const ENOENT = 2;

export const exec = new Semantics<ProcMachine>('process/exec');

exec.syscall('execve', (m, c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino || !ino.isReg) { e.ret = -ENOENT; return H_CONT; }
  const exe = m.fs.pathOf(ino);
  // bprm->file: do_open_execat's open of the binary (O_LARGEFILE | __FMODE_EXEC), what the recorded
  // tree's vfs_open, do_dentry_open and kernel_read see
  e.file = new OpenFile('file', ino, O_LARGEFILE);
  e.ino = ino;
  const oldComm = t.comm;
  // exec_mmap's mm_release: a vfork child gives its parent's address space back (complete_vfork_done)
  const vforkParent = m.procs.programs.has(exe) ? m.procs.vforkRelease(t.proc) : null;
  if (!m.procs.exec(t, exe, e.a[1] as string[], p)) { e.ret = -8; return H_CONT; } // ENOEXEC
  if (Array.isArray(e.envp)) setEnviron(t.proc, e.envp as string[]);
  e.oldPid = t.pid;
  // the comm changes in __set_task_comm, after task_rename has seen the old one
  e.newComm = t.comm;
  t.comm = oldComm;
  e.ret = 0;
  return vforkParent ? wakeTasks(c, e, [vforkParent]) : H_CONT;
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
