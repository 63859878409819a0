/** Small system calls of kernel/sys.c: getpid, uname, the credential getters, getppid, umask. */
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';

export const sys = new Semantics<MachineCore>('kernel/sys');

sys.syscall('getpid', (_m, _c, t, e) => { e.ret = t.pid; return H_CONT; });
sys.syscall('uname', (_m, _c, _t, e) => { e.ret = 0; return H_CONT; });
// the credentials of kernel/sys.c (from the task's cred) and getppid (the real parent's tgid)
sys.syscall('getuid', (_m, _c, t, e) => { e.ret = t.uid; return H_CONT; });
sys.syscall('geteuid', (_m, _c, t, e) => { e.ret = t.euid; return H_CONT; });
sys.syscall('getgid', (_m, _c, t, e) => { e.ret = t.gid; return H_CONT; });
sys.syscall('getegid', (_m, _c, t, e) => { e.ret = t.egid; return H_CONT; });
sys.syscall('getppid', (_m, _c, t, e) => { e.ret = t.proc.parent?.tgid ?? 0; return H_CONT; });
/** umask(mask): the process' new file creation mask, the old one returned */
sys.syscall('umask', (_m, _c, t, e) => { e.ret = t.proc.umask; t.proc.umask = Number(e.a[0]) & 0o777; return H_CONT; });
