/** Small system calls of kernel/sys.c: getpid, uname, the credential getters, getppid, setpgid/getpgid/getpgrp, umask, setuid, setpriority/getpriority, prctl. */
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { Process, Task } from '../include/sched';

/** The machine as kernel/sys.c uses it: the core and the process table (setpgid's group check). */
export interface SysMachine extends MachineCore {
  readonly procs: { readonly procs: Map<number, Process>; readonly tasks: Map<number, Task> };
  readonly sched: { setNice(t: Task, nice: number): void };
}

export const sys = new Semantics<SysMachine>('kernel/sys');

sys.syscall('getpid', (_m, _c, t, e) => { e.ret = t.pid; return H_CONT; });
sys.syscall('uname', (_m, _c, _t, e) => { e.ret = 0; return H_CONT; });
// the credentials of kernel/sys.c (from the task's cred) and getppid (the real parent's tgid)
sys.syscall('getuid', (_m, _c, t, e) => { e.ret = t.uid; return H_CONT; });
sys.syscall('geteuid', (_m, _c, t, e) => { e.ret = t.euid; return H_CONT; });
sys.syscall('getgid', (_m, _c, t, e) => { e.ret = t.gid; return H_CONT; });
sys.syscall('getegid', (_m, _c, t, e) => { e.ret = t.egid; return H_CONT; });
sys.syscall('getppid', (_m, _c, t, e) => { e.ret = t.proc.parent?.tgid ?? 0; return H_CONT; });
/**
 * setpgid(pid, pgid) (kernel/sys.c): 0 for either means the caller; only the caller or one of its
 * children may be moved (ESRCH), into its own group or an existing group (EPERM); getpgid/getpgrp
 */
sys.syscall('setpgid', (m, _c, t, e) => {
  const pid = Number(e.a[0]) || t.proc.tgid;
  const p = pid === t.proc.tgid ? t.proc : t.proc.children.find((x) => x.tgid === pid && !x.exited);
  if (!p) { e.ret = -3; return H_CONT; }
  const pgid = Number(e.a[1]) || p.tgid;
  if (pgid < 0) { e.ret = -22; return H_CONT; }
  if (pgid !== p.tgid && ![...m.procs.procs.values()].some((x) => x.pgid === pgid && !x.exited)) { e.ret = -1; return H_CONT; }
  p.pgid = pgid;
  e.ret = 0;
  return H_CONT;
});
sys.syscall('getpgid', (m, _c, t, e) => {
  const pid = Number(e.a[0]);
  const p = pid ? m.procs.procs.get(pid) : t.proc;
  e.ret = p && !p.exited ? p.pgid : -3;
  return H_CONT;
});
sys.syscall('getpgrp', (_m, _c, t, e) => { e.ret = t.proc.pgid; return H_CONT; });
/** umask(mask): the process' new file creation mask, the old one returned */
sys.syscall('umask', (_m, _c, t, e) => { e.ret = t.proc.umask; t.proc.umask = Number(e.a[0]) & 0o777; return H_CONT; });
/** setuid(uid) (__sys_setuid): root sets every uid; others only their effective one, to the real or saved uid */
sys.syscall('setuid', (_m, _c, t, e) => {
  const uid = Number(e.a[0]);
  if (t.euid === 0) { t.uid = t.euid = uid; t.proc.uid = uid; } else if (uid === t.uid) t.euid = uid; else { e.ret = -1; return H_CONT; }
  e.ret = 0;
  return H_CONT;
});
/** the live tasks setpriority/getpriority's (which, who) names: PRIO_PROCESS a thread, PRIO_PGRP a group, PRIO_USER a user's (who 0: the caller's) */
function prioTargets(m: SysMachine, t: Task, which: number, who: number): Task[] | null {
  if (which === 0) { const x = who ? m.procs.tasks.get(who) : t; return x && !x.proc.exited ? [x] : []; }
  const live = [...m.procs.tasks.values()].filter((x) => !x.kthread && !x.idle && !x.proc.exited);
  if (which === 1) { const g = who || t.proc.pgid; return live.filter((x) => x.proc.pgid === g); }
  if (which === 2) { const u = who || t.uid; return live.filter((x) => x.uid === u); }
  return null;
}
/**
 * setpriority(which, who, niceval) (kernel/sys.c set_one_prio): the nice value clamped to -20..19 for
 * each task named; lowering it needs CAP_SYS_NICE (EACCES), another user's task EPERM; ESRCH for
 * none, EINVAL for a bad `which`
 */
sys.syscall('setpriority', (m, _c, t, e) => {
  const [which, who] = [Number(e.a[0]), Number(e.a[1])];
  const nice = Math.max(-20, Math.min(19, Number(e.a[2])));
  const ts = prioTargets(m, t, which, who);
  if (!ts) { e.ret = -22; return H_CONT; }
  let err = -3;
  for (const x of ts) {
    if (t.euid !== 0 && x.uid !== t.euid) { err = -1; continue; }
    if (t.euid !== 0 && nice < x.nice) { err = -13; continue; }
    m.sched.setNice(x, nice);
    err = 0;
  }
  e.ret = err;
  return H_CONT;
});
/** getpriority(which, who): 20 - the lowest nice value of the tasks named (never negative: 40..1), ESRCH for none */
sys.syscall('getpriority', (m, _c, t, e) => {
  const ts = prioTargets(m, t, Number(e.a[0]), Number(e.a[1]));
  if (!ts) { e.ret = -22; return H_CONT; }
  e.ret = ts.length ? 20 - Math.min(...ts.map((x) => x.nice)) : -3;
  return H_CONT;
});
/**
 * prctl(option, ...) (kernel/sys.c): PR_CAPBSET_READ (1 for a capability the kernel has: 0..40 on
 * 6.1, EINVAL past it), PR_SET_KEEPCAPS/PR_GET_KEEPCAPS; others EINVAL.
 */
const keepCaps = new WeakMap<object, number>();
sys.syscall('prctl', (_m, _c, t, e) => {
  const [opt, arg] = (e.a as number[]).map(Number);
  switch (opt) {
    case 23: e.ret = arg >= 0 && arg <= 40 ? 1 : -22; break;
    case 8: if (arg !== 0 && arg !== 1) { e.ret = -22; break; } keepCaps.set(t, arg); e.ret = 0; break;
    case 7: e.ret = keepCaps.get(t) ?? 0; break;
    default: e.ret = -22;
  }
  return H_CONT;
});
