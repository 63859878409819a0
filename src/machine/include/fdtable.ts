/** A process' file descriptor table (include/linux/fdtable.h, fs/file.c): lookup and fd_install. */
import type { Task } from './sched';
import type { OpenFile } from './fs';

/** The open file behind descriptor `fd` of `t`'s process, or null. */
export function fdOf(t: Task, fd: unknown): OpenFile | null {
  const f = t.proc.fds[fd as number];
  return f ?? null;
}

/** Install `f` at the lowest free descriptor (at least `min`); the descriptor. */
export function installFd(t: Task, f: OpenFile, min = 0): number {
  const fds = t.proc.fds;
  for (let i = min; i < fds.length; i++) if (!fds[i]) { fds[i] = f; return i; }
  fds.push(f);
  return fds.length - 1;
}
