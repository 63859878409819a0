/**
 * File helpers the tracing tools (trace-cmd, perf) share, over the program's system calls: read a
 * whole file, write one (tracefs control files), list a directory, find a command on PATH.
 */
import type { U } from '../process/user';
import type { Op, SysResult } from '../include/sched';
import { bytesToString } from '../process/user';
import { O_WRONLY, O_APPEND, O_TRUNC, O_DIRECTORY } from '../include/fs';

type G<T> = Generator<Op, T, SysResult>;

/** The whole file as text, or null when it cannot be opened. */
export function* readText(u: U, p: string): G<string | null> {
  const fd = yield* u.open(p);
  if (fd < 0) return null;
  const t = bytesToString(yield* u.readAll(fd));
  yield* u.close(fd);
  return t;
}

/** One write(2) of `s` (truncating, or appending): 0 or -errno. */
export function* writeText(u: U, p: string, s: string, append = false): G<number> {
  const fd = yield* u.open(p, O_WRONLY | (append ? O_APPEND : O_TRUNC));
  if (fd < 0) return fd;
  const r = yield* u.write(fd, s);
  yield* u.close(fd);
  return r.ret < 0 ? r.ret : 0;
}

/** A directory's entries without . and .., sorted; [] when it cannot be opened. */
export function* listDir(u: U, p: string): G<string[]> {
  const fd = yield* u.open(p, O_DIRECTORY);
  if (fd < 0) return [];
  const r = yield* u.getdents(fd);
  yield* u.close(fd);
  return (Array.isArray(r) ? r : []).filter((n) => n !== '.' && n !== '..').sort();
}

const PATHS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The file a command name runs (a name with a slash as is), or null. */
export function* which(u: U, cmd: string): G<string | null> {
  if (cmd.includes('/')) return cmd;
  for (const d of PATHS) {
    const st = yield* u.stat(`${d}/${cmd}`);
    if (typeof st !== 'number' && !st.isDir) return `${d}/${cmd}`;
  }
  return null;
}

/**
 * glibc's execvp: a name with a slash is exec'd as is, else each PATH directory in turn (an ENOENT,
 * ENOTDIR or EACCES goes on to the next; a file the kernel cannot run runs under /bin/sh); returns
 * the error of the last attempt (-ENOENT when none was found, -EACCES when one was found but not
 * executable)
 */
export function* execvp(u: U, cmd: string, argv: string[], envp?: string[]): G<number> {
  if (cmd.includes('/')) return yield* execOrSh(u, cmd, argv, envp);
  let err = -2;
  // execvpe: the PATH of the environment the program runs with (glibc's default without one)
  const pathVar = envp?.find((v) => v.startsWith('PATH='));
  const dirs = envp === undefined ? PATHS : pathVar === undefined ? ['/bin', '/usr/bin'] : pathVar.slice(5).split(':').map((d) => d || '.');
  for (const d of dirs) {
    const r = yield* execOrSh(u, `${d}/${cmd}`, argv, envp);
    if (r === -13) err = r;
    else if (r !== -2 && r !== -20) return r;
  }
  return err;
}

/**
 * execve, and on ENOEXEC (no #! line, not a program) the file as a shell script: /bin/sh FILE ARGS...,
 * as glibc's maybe_script_execute and dash's tryexec run it
 */
export function* execOrSh(u: U, file: string, argv: string[], envp?: string[]): G<number> {
  const r = yield* u.exec(file, argv, envp);
  return r === -8 ? yield* u.exec('/bin/sh', ['/bin/sh', file, ...argv.slice(1)], envp) : r;
}

/** A directory's entries as getdents64 returns them (32 KiB calls to the end): name, d_type, d_ino; [] on error. */
export function* readDir(u: U, fd: number): G<{ name: string; type: number; ino: number }[]> {
  const out: { name: string; type: number; ino: number }[] = [];
  for (;;) {
    const r = yield* u.sys('getdents64', [fd, 0, 32768]);
    if (r.ret <= 0) return out;
    const i = (r.info ?? {}) as { names?: string[]; types?: number[]; inos?: number[] };
    (i.names ?? []).forEach((name, k) => out.push({ name, type: i.types?.[k] ?? 0, ino: i.inos?.[k] ?? 0 }));
  }
}

/**
 * gnulib's areadlink_with_size (areadlinkat_with_size with `dirfd`): a symlink's target read into a
 * buffer of its st_size + 1 bytes, 128 when st_size is 0 (procfs' links), doubled while the target
 * fills it (ls -l /proc/self/exe: readlink(..., 128) = 11); null when the read fails
 */
export function* areadlink(u: U, path: string, size: number, dirfd?: number): G<string | null> {
  for (let buf = size ? size + 1 : 128; ; buf *= 2) {
    const r = dirfd === undefined ? yield* u.sys('readlink', [path, 0, buf]) : yield* u.sys('readlinkat', [dirfd, path, 0, buf]);
    if (r.ret < 0) return null;
    if (r.ret < buf) return String((r.info as { target?: string } | undefined)?.target ?? '');
  }
}
