/**
 * posix_fadvise (mm/fadvise.c generic_fadvise): advice on an open file's page cache. SEQUENTIAL
 * (cat, cp, gzip's readahead hint) and NORMAL/RANDOM/NOREUSE change only readahead, which the machine
 * does not model; a pipe or socket is ESPIPE, an unknown advice EINVAL.
 */
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { fdOf } from '../include/fdtable';

const EBADF = 9, ESPIPE = 29, EINVAL = 22;

export const fadvise = new Semantics<MachineCore>('mm/fadvise');

fadvise.syscall('fadvise64', (_m, _c, t, e) => {
  const f = fdOf(t, e.a[0]);
  if (!f) { e.ret = -EBADF; return H_CONT; }
  if (f.kind === 'pipe_r' || f.kind === 'pipe_w' || f.kind === 'sock') { e.ret = -ESPIPE; return H_CONT; }
  const advice = Number(e.a[3]);
  e.ret = advice >= 0 && advice <= 5 ? 0 : -EINVAL;
  return H_CONT;
});
