/**
 * fcntl(2) (fs/fcntl.c do_fcntl): the descriptor commands programs issue: F_DUPFD and
 * F_DUPFD_CLOEXEC (the lowest free descriptor at or above the argument, sharing the open file),
 * F_GETFD/F_SETFD (close-on-exec is not kept: exec closes nothing here), F_GETFL (the open flags
 * with O_LARGEFILE, as on x86_64) and F_SETFL (O_APPEND, O_NONBLOCK, O_DIRECT, O_NOATIME).
 */
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { fdOf, installFd } from '../include/fdtable';
import { O_LARGEFILE } from '../include/fs';

const EBADF = 9, EINVAL = 22;
const F_DUPFD = 0, F_GETFD = 1, F_SETFD = 2, F_GETFL = 3, F_SETFL = 4, F_DUPFD_CLOEXEC = 0x406;
const SETFL_MASK = 0x400 | 0x800 | 0x2000 | 0x4000 | 0x40000;

export const fsFcntl = new Semantics<MachineCore>('fs/fcntl');

fsFcntl.syscall('fcntl', (_m, _c, t, e) => {
  const [fd, cmd, arg] = (e.a as number[]).map(Number);
  const f = fdOf(t, fd);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  switch (cmd) {
    case F_DUPFD: case F_DUPFD_CLOEXEC: e.ret = installFd(t, f.dup(), arg || 0); break;
    case F_GETFD: case F_SETFD: e.ret = 0; break;
    case F_GETFL: e.ret = f.flags | O_LARGEFILE; break;
    case F_SETFL: f.flags = (f.flags & ~SETFL_MASK) | (arg & SETFL_MASK); e.ret = 0; break;
    default: e.ret = -EINVAL;
  }
  return H_CONT;
});
