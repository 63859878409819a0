/**
 * utimensat(2) (fs/utimes.c do_utimes): set a file's access and modification times; a NULL times
 * pointer (`touch`, the argument given as 0) means now, a NULL path the file open on the descriptor
 * (futimens: touch's dup2'd fd 0); other times come as nanoseconds since boot in the machine's clock.
 */
import type { FsMachine } from './namei';
import { atDir } from './namei';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { fdOf } from '../include/fdtable';

const ENOENT = 2, EBADF = 9;

export const fsUtimes = new Semantics<FsMachine>('fs/utimes');

fsUtimes.syscall('utimensat', (m, _c, t, e) => {
  const [dfd, p, times, flags] = e.a;
  const ino = p === 0 || p === null || p === undefined || p === ''
    ? fdOf(t, dfd)?.inode ?? null
    : m.fs.lookup(String(p), atDir(m, t, dfd, p), (Number(flags) & 0x100) !== 0);
  if (!ino) { e.ret = p ? -ENOENT : -EBADF; return H_CONT; }
  const [at, mt] = Array.isArray(times) ? (times as number[]) : [m.now, m.now];
  ino.atime = at;
  ino.mtime = mt;
  e.ret = 0;
  return H_CONT;
});
