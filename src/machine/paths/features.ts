/**
 * What the choice among a kernel entry's recorded variants looks at (paths/model.ts): a feature vector
 * of the entry, computed the same way from a recording (the strace run's arguments, return value and
 * the files its descriptors name; scripts/paths/generate.ts) and from the machine (the syscall's
 * arguments, its result and the machine's open files).  For a syscall: the outcome class, then one
 * feature per argument the syscall table names as a descriptor (the kind of file it is), a path (its
 * class: /proc, /sys, /dev, the disk), or a flag word (its value); for the calls that move data, the
 * size class of the result.
 */
import { syscallByName } from '../../kernel/syscalls';
import type { Syscall } from '../../kernel/syscalls';
import { errnoName } from '../../kernel/errno';

/** Kinds of open files: 'reg' 'dir' 'tmp' 'proc' (and 'proc_stat' ...: procPidKind) 'sys' 'tty' 'null' 'zero' 'rand' 'dev' 'pipe' 'sock', '-' not open, 'cwd' AT_FDCWD. */
export type FdKind = string;

/** The class of a path argument. */
export function pathClass(p: string): string {
  if (p === '') return 'empty';
  if (p.startsWith('/proc/') || p === '/proc') return 'proc';
  if (p.startsWith('/sys/') || p === '/sys') return 'sys';
  if (p.startsWith('/dev/') || p === '/dev') return 'dev';
  if (p.startsWith('/tmp/') || p.startsWith('/run/') || p.startsWith('/dev/shm/')) return 'tmp';
  return 'fs';
}

/**
 * The /proc/PID files whose reads run trees of their own (fs/proc/array.c do_task_stat and
 * proc_pid_status, fs/proc/base.c proc_pid_cmdline_read and environ_read, fs/proc/task_mmu.c
 * show_map): a descriptor of one is
 * of kind `proc_NAME`, so the entry model keeps their recorded reads (and closes) apart from the
 * other /proc files'.
 */
export const PROC_PID_FILES: readonly string[] = ['stat', 'status', 'cmdline', 'environ', 'maps'];
/** `proc_NAME` for /proc/PID/NAME (or /proc/self/NAME, /proc/PID/task/TID/NAME) of PROC_PID_FILES, else null. */
export function procPidKind(p: string): FdKind | null {
  const m = /^\/proc\/(?:\d+|self|thread-self)\/(?:task\/\d+\/)?([a-z]+)$/.exec(p);
  return m && PROC_PID_FILES.includes(m[1]) ? `proc_${m[1]}` : null;
}

/**
 * The kind of a /proc file that is not a PROC_PID_FILES one: `proc:NAME` for a file directly under
 * /proc (each runs its own show function under seq_read_iter: filesystems_proc_show, meminfo_proc_show,
 * show_stat ...), `proc:sys` for a sysctl (proc_sys_read and the table's handler), else `proc`
 * (directories, the other per-process files).  The model scores a variant of another `proc` kind as
 * half a match (sameFamily), so a file no recording read draws another /proc file's read.
 */
export function procFileKind(p: string): FdKind {
  const pid = procPidKind(p);
  if (pid) return pid;
  if (p.startsWith('/proc/sys/')) return 'proc:sys';
  const m = /^\/proc\/([a-z][a-z0-9_]*)$/.exec(p);
  return m && m[1] !== 'self' ? `proc:${m[1]}` : 'proc';
}

/** Two kinds of one family (the /proc files that are not PROC_PID_FILES), which the model scores as half a match. */
export function sameFamily(a: string, b: string): boolean {
  return (a === 'proc' || a.startsWith('proc:')) && (b === 'proc' || b.startsWith('proc:'));
}

/** The kind of file a path opened by a program is (a recording's descriptors; directories by O_DIRECTORY). */
export function fileKindOfPath(p: string, flags: number): FdKind {
  if (p === '/dev/null') return 'null';
  if (p === '/dev/zero') return 'zero';
  if (p === '/dev/urandom' || p === '/dev/random') return 'rand';
  if (/^\/dev\/(tty|pts\/|console)/.test(p)) return 'tty';
  const c = pathClass(p);
  if (c === 'proc') return procFileKind(p);
  if (c === 'sys') return c;
  if (c === 'dev') return 'dev';
  if (flags & 0o200000) return 'dir';
  return c === 'tmp' ? 'tmp' : 'reg';
}

/** The outcome class of a return value: '0', '+', 'E:<ERRNO>'; '?' unknown. */
export function retClassOf(ret: number | null): string {
  if (ret === null || !Number.isFinite(ret)) return '?';
  if (ret === 0) return '0';
  if (ret < 0 && ret > -4096) return `E:${errnoName(-ret)}`;
  return '+';
}

/** Size class of a byte count (pages, by powers of two). */
export function sizeClass(n: number): string {
  if (n <= 0) return '0';
  const pages = Math.ceil(n / 4096);
  return `p${Math.ceil(Math.log2(pages))}`;
}

type ArgRole = 'fd' | 'path' | 'flag' | 'pid' | 'sig' | '';
const FD_ARGS = new Set(['fd', 'fildes', 'oldfd', 'ufd', 'fd_in', 'fd_out', 'out_fd', 'in_fd', 'dfd', 'olddfd', 'newdfd', 'epfd']);
const PATH_ARGS = new Set(['filename', 'pathname', 'path', 'oldname', 'newname', 'specialfile', 'library', 'oldpath', 'newpath']);
const FLAG_ARGS = new Set(['flags', 'flag', 'cmd', 'prot', 'options', 'how', 'advice', 'resource', 'which', 'option', 'op',
  'type', 'family', 'protocol', 'clone_flags', 'mode',
  // setsockopt/getsockopt: the level and the option decide the tree (sock_setsockopt for SOL_SOCKET,
  // do_tcp_setsockopt for SOL_TCP, do_ip_setsockopt ...), not how often each ran
  'level', 'optname']);
/** Calls whose result is a byte (or entry) count worth a size class. */
const SIZED = new Set(['read', 'write', 'pread64', 'pwrite64', 'readv', 'writev', 'getdents64', 'sendto', 'recvfrom',
  'sendmsg', 'recvmsg', 'copy_file_range', 'sendfile', 'splice', 'readlink', 'getrandom']);

const roles = new Map<string, ArgRole[]>();
/** What each argument of syscall `name` is, from the syscall table's argument names. */
export function argRoles(name: string): ArgRole[] {
  let r = roles.get(name);
  if (r) return r;
  const s: Syscall | null = syscallByName(name);
  r = (s?.args ?? []).map((a) => {
    const n = a.name;
    if (FD_ARGS.has(n)) return 'fd';
    if (PATH_ARGS.has(n) && /char\s*\*/.test(a.type)) return 'path';
    if (FLAG_ARGS.has(n) && !/\*/.test(a.type)) return 'flag';
    // a signal number: 0 (the existence check, nothing sent) or a signal (sent: __send_signal_locked)
    if (n === 'sig' && !/\*/.test(a.type)) return 'sig';
    // kill(2), wait4(2) ...: one process, the caller's group, every process, or a group
    if (n === 'pid' && !/\*/.test(a.type)) return 'pid';
    return '';
  });
  roles.set(name, r);
  return r;
}

/** The facts of one syscall entry, as a recording or the machine knows them. */
export interface SyscallFacts {
  name: string;
  /** the program the calling process runs (argFeatures) */
  exe?: string;
  /** arguments: numbers, strings for paths, null when unknown */
  args: readonly unknown[];
  /** the result (null: unknown) */
  ret: number | null;
  /** the kind of file a descriptor names */
  fdKind(fd: number): FdKind;
}

/**
 * The argument features of a syscall ('|'-joined; known before the call runs).  `exe`: the program the
 * calling process runs (its last execve's file name), which decides an exit's tree (the address space
 * it tears down).
 */
export function argFeatures(name: string, args: readonly unknown[], fdKind: (fd: number) => FdKind, exe = ''): string {
  const out: string[] = [];
  const r = argRoles(name);
  for (let i = 0; i < r.length; i++) {
    const a = args[i];
    switch (r[i]) {
      case 'fd': out.push(typeof a === 'number' ? (a === -100 ? 'cwd' : fdKind(a)) : '?'); break;
      case 'path': out.push(typeof a === 'string' ? pathClass(a) : '?'); break;
      case 'flag': out.push(typeof a === 'number' ? String(a) : '?'); break;
      case 'sig': out.push(typeof a === 'number' ? (a === 0 ? 'sig0' : 'sig') : '?'); break;
      case 'pid': out.push(typeof a === 'number' ? (a > 0 ? 'pid' : a === 0 ? 'pgrp0' : a === -1 ? 'all' : 'pgrp') : '?'); break;
      default: break;
    }
  }
  // a read or write of 0 bytes returns before the file system's read/write path (ext4_file_read_iter's
  // `if (!iov_iter_count(to)) return 0`): kept apart from a read at the end of the file, which also returns 0
  if (ZERO_COUNT.has(name) && args[2] === 0) out.push('n0');
  // the program an exec loads (its ELF, its libraries: the tree of the exec)
  if (name === 'execve' && typeof args[0] === 'string') out.push(`exe:${baseName(args[0])}`);
  else if ((name === 'exit_group' || name === 'exit') && exe) out.push(`exe:${baseName(exe)}`);
  return out.join('|');
}

/** Calls whose third argument is a byte count (a zero count is a feature of its own: argFeatures). */
const ZERO_COUNT = new Set(['read', 'write', 'pread64', 'pwrite64']);

const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** The full feature vector from the argument features and the result: outcome, arguments, size class. */
export function withOutcome(name: string, args: string, ret: number | null): string {
  let s = retClassOf(ret);
  if (args) s += `|${args}`;
  if (SIZED.has(name)) s += `|${ret !== null && ret > 0 ? sizeClass(ret) : '0'}`;
  return s;
}

/** The feature vector of a syscall entry ('|'-joined): outcome, per-argument features, size class. */
export function syscallFeatures(f: SyscallFacts): string {
  return withOutcome(f.name, argFeatures(f.name, f.args, f.fdKind, f.exe), f.ret);
}

/** How much a feature position counts when variants are matched (outcome first, then arguments in order). */
export function featureWeight(pos: number): number {
  return pos === 0 ? 1 << 20 : Math.max(1, 1 << (16 - pos * 2));
}
