/**
 * System call entry and exit as the `syscall` path runs them (arch/x86/entry/common.c
 * do_syscall_64, x64_sys_call): `%sys` continues with the recorded trees of the call
 * (paths/entry.ts, from the entry model) where they replace its template, else its template
 * (`sys_NAME`, else `sys_generic`); `%impl` runs the implementation the call's subsystem
 * registered (`Semantics.syscall`; none: ENOSYS), `%sysret` hands the result back to the program;
 * the raw_syscalls tracepoints' arguments; `?sigpending` on the way out (exit_to_user_mode_loop).
 */
import type { MachineCore } from '../core/machine';
import { Semantics, syscallImpl } from './semantics';
import { pushPath, H_CONT, H_PUSHED } from './kexec';
import { pathNames, path, CompiledPath } from './dsl';
import { syscallModelPath } from './entry';
import type { ModelKey } from './model';
import { RW_NOTIFY, RW_TASKWORK, RW_FPU } from '../include/sched';

export const syscallEntry = new Semantics<MachineCore>('paths/syscall');

const sysPaths = new Set<string>();
function hasPath(n: string): boolean {
  if (!sysPaths.size) for (const p of pathNames()) sysPaths.add(p);
  return sysPaths.has(n);
}
/** syscall name -> its compiled path (recorded, sys_NAME, else sys_generic): resolved once per name */
const sysPathOf = new Map<string, { cp: CompiledPath; model: ModelKey | null }>();
/**
 * Syscalls whose template the recorded trees replace (the rest keep theirs until their semantics sit
 * at the recorded functions; a call with no template runs its recorded trees when there are any).
 */
const RECORDED = new Set(['execve', 'exit_group', 'getpid', 'uname', 'dup2', 'rt_sigaction', 'brk', 'mmap', 'lseek', 'pipe2', 'clone', 'wait4', 'kill',
  // their semantics are the implementation (Semantics.syscall) or a hook of the template run as one (paths/entry.ts IMPL_HOOKS)
  // (not yet: munmap, whose recorded variants free swap entries or not, which its features do not tell
  // apart; sync, whose recorded writeback submits bios the block layer's hooks are not attached to)
  'getdents64', 'mkdirat', 'unlinkat', 'renameat2', 'chdir', 'ioctl', 'swapon', 'swapoff', 'newfstatat', 'clock_nanosleep']);
syscallEntry.hook('sys', (m, c, t, e) => {
  let sp = sysPathOf.get(e.name);
  if (sp === undefined) {
    const p = `sys_${e.name}`;
    const tmpl = hasPath(p);
    const rec = !tmpl || RECORDED.has(e.name) ? syscallModelPath(e) : null;
    sp = rec ? { cp: rec.path, model: rec.key } : { cp: path(tmpl ? p : 'sys_generic'), model: null };
    sysPathOf.set(e.name, sp);
  }
  if (sp.model) e.model = sp.model;
  pushPath(t.ks, sp.cp, e);
  return H_PUSHED;
});
syscallEntry.hook('sysret', (_m, _c, t, e) => {
  t.lastResult = { ret: e.ret, data: e.data as Uint8Array | undefined, info: e.info as Record<string, unknown> | undefined };
  return H_CONT;
});
syscallEntry.cond('sigpending', (_m, _c, t) => (t.sigPending & ~t.sigBlocked) !== 0);
// the return to user mode's work (exit_to_user path): TIF_NOTIFY_RESUME, task_work, rseq, TIF_NEED_FPU_LOAD
syscallEntry.cond('notify_resume', (_m, _c, t) => (t.resumeWork & (RW_NOTIFY | RW_TASKWORK)) !== 0);
syscallEntry.cond('task_work', (_m, _c, t) => (t.resumeWork & RW_TASKWORK) !== 0);
syscallEntry.cond('rseq', (_m, _c, t) => t.rseq);
syscallEntry.cond('fpu_load', (_m, _c, t) => (t.resumeWork & RW_FPU) !== 0);
syscallEntry.hook('user_resume', (_m, _c, t) => { t.resumeWork = 0; return H_CONT; });
// rseq(2) registered the thread's rseq area: its notify-resume work runs from now on
syscallEntry.hook('rseq_registered', (_m, _c, t) => { t.rseq = true; return H_CONT; });
syscallEntry.at('__x64_sys_rseq', 'rseq_registered');
syscallEntry.tpArgs('sys_enter', (_m, _c, t, e) => [{ ip: 0, args: e.a, orig_ax: e.nr, task: t }, e.nr]);
syscallEntry.tpArgs('sys_exit', (_m, _c, t, e) => [{ ip: 0, args: e.a, ax: e.ret, orig_ax: e.nr, task: t }, e.ret]);
syscallEntry.hook('impl', (m, c, t, e) => {
  const f = syscallImpl(e.name);
  if (!f) { e.ret = -38; return H_CONT; } // ENOSYS
  return f(m, c, t, e);
});
