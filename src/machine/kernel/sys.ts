/** Small system calls of kernel/sys.c: getpid, uname. */
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';

export const sys = new Semantics<MachineCore>('kernel/sys');

sys.syscall('getpid', (_m, _c, t, e) => { e.ret = t.pid; return H_CONT; });
sys.syscall('uname', (_m, _c, _t, e) => { e.ret = 0; return H_CONT; });
