/**
 * System call entry and exit as the `syscall` path runs them (arch/x86/entry/common.c
 * do_syscall_64, x64_sys_call): `%sys` continues with the recorded trees of the call
 * (paths/entry.ts, from the entry model) where they replace its template, else its template
 * (`sys_NAME`, else `sys_generic`); `%impl` runs the implementation the call's subsystem
 * registered (`Semantics.syscall`; none: ENOSYS), `%sysret` hands the result back to the program;
 * the raw_syscalls tracepoints' arguments; `?sigpending` on the way out (exit_to_user_mode_loop).
 */
import type { MachineCore } from '../core/machine';
import { Semantics, syscallImpl, condNamed, type Cond } from './semantics';
import type { Env } from '../include/kstack';
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
/**
 * syscall name -> its compiled paths, resolved once per name: the recorded trees (`rec`, from the entry
 * model) and the template (`sys_NAME`, else `sys_generic`); `when`, for a call that runs its recorded trees
 * only in the states its semantics at the recorded functions cover (the subsystem's `recorded_NAME`
 * condition: a read whose pages are all cached, a buffered write ...), else its template.
 */
interface SysPaths { rec: CompiledPath | null; model: ModelKey | null; tmpl: CompiledPath | null; when: Cond | undefined }
const sysPathOf = new Map<string, SysPaths>();
/**
 * Syscalls whose template the recorded trees replace (the rest keep theirs until their semantics sit
 * at the recorded functions; a call with no template runs its recorded trees when there are any).
 */
const RECORDED = new Set(['execve', 'exit_group', 'getpid', 'uname', 'dup2', 'rt_sigaction', 'brk', 'mmap', 'lseek', 'pipe2', 'clone', 'wait4', 'kill',
  // their semantics are the implementation (Semantics.syscall) or a hook of the template run as one (paths/entry.ts IMPL_HOOKS)
  // sync: its semantics sit at the recorded functions (fs/sync.ts), its bios are the tree's (block/core.ts io_submit)
  'sync', 'getdents64', 'mkdirat', 'unlinkat', 'renameat2', 'chdir', 'ioctl', 'swapon', 'swapoff', 'newfstatat', 'clock_nanosleep',
  'openat', 'munmap']);
/** Syscalls that run their recorded trees when their subsystem's `recorded_NAME` condition holds, else their template. */
// pwrite64: a buffered write of an ext4 file or /dev/null (fs/read_write.ts recorded_pwrite64)
// close: a descriptor of any file but a socket (fs/open.ts recorded_close; the deferred fput is the
// recorded tail:task_work_run of a close of that kind of file)
// socket: an AF_INET socket runs its recorded trees; an AF_UNIX one its template, whose unix_create
// hook makes the sock (net/unix.ts)
// sendto, recvfrom: a connected TCP socket (net/tcp.ts recorded_sendto: the data fits the peer's buffer)
// connect: an AF_UNIX stream socket's connect to a path that does not exist (net/unix.ts recorded_connect: nscd's)
const RECORDED_WHEN = ['read', 'write', 'pwrite64', 'socket', 'close', 'sendto', 'recvfrom', 'connect'];
function pathsOf(e: Env): SysPaths {
  let sp = sysPathOf.get(e.name);
  if (sp !== undefined) return sp;
  const p = `sys_${e.name}`;
  const tmpl = hasPath(p);
  const when = tmpl && RECORDED_WHEN.includes(e.name) ? condNamed(`recorded_${e.name}`) : undefined;
  const rec = !tmpl || RECORDED.has(e.name) || when ? syscallModelPath(e) : null;
  sp = {
    rec: rec?.path ?? null, model: rec?.key ?? null,
    tmpl: rec && !when ? null : path(tmpl ? p : 'sys_generic'), when: rec ? when : undefined,
  };
  sysPathOf.set(e.name, sp);
  return sp;
}
syscallEntry.hook('sys', (m, c, t, e) => {
  const sp = pathsOf(e);
  if (sp.rec && (!sp.when || sp.when(m, c, t, e))) {
    e.model = sp.model;
    pushPath(t.ks, sp.rec, e);
  } else pushPath(t.ks, sp.tmpl!, e);
  return H_PUSHED;
});
syscallEntry.hook('sysret', (m, _c, t, e) => {
  // the time of a recorded call's copy its tree had no place for (fs/read_write.ts copy_time)
  if (typeof e.copyNs === 'number' && e.copyNs > 0) { m.now += e.copyNs; e.copyNs = 0; }
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
// rseq(2) registered the thread's rseq area: its notify-resume work runs from now on, the first time
// on this call's own return (sys_rseq's rseq_set_notify_resume: the recordings' rseq_update in each
// program's rseq entry)
syscallEntry.hook('rseq_registered', (_m, _c, t) => { t.rseq = true; t.resumeWork |= RW_NOTIFY; return H_CONT; });
syscallEntry.at('__x64_sys_rseq', 'rseq_registered');
syscallEntry.tpArgs('sys_enter', (_m, _c, t, e) => [{ ip: 0, args: e.a, orig_ax: e.nr, task: t }, e.nr]);
syscallEntry.tpArgs('sys_exit', (_m, _c, t, e) => [{ ip: 0, args: e.a, ax: e.ret, orig_ax: e.nr, task: t }, e.ret]);
syscallEntry.hook('impl', (m, c, t, e) => {
  const f = syscallImpl(e.name);
  if (!f) { e.ret = -38; return H_CONT; } // ENOSYS
  return f(m, c, t, e);
});
