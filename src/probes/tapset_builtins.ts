/**
 * TypeScript bodies of the tapset-library functions that need the simulated kernel (issue 7):
 * declared with `%{ %}` bodies in stdlib/aux_syscalls.stp, stdlib/syscall_regs.stp and the
 * subsystem tapsets, registered next to kernelBuiltins by setup.ts.
 *
 *  - syscall argument access for the syscall tapsets (`__sc_nr`, `__sc_arg`, `__sc_ret`,
 *    `__sc_argv_str`, `__sc_env_str`): the arguments the task passed to the system call (the
 *    pt_regs the `raw_syscalls:sys_enter`/`sys_exit` tracepoints receive, or the task's current
 *    syscall when probed elsewhere), with user strings and buffers laid out in the process' user
 *    address space (as the machine's argument builders do for `$filename`, `$buf`);
 *  - the flag/enum formatters of aux_syscalls (`_sys_open_flag_str`, `_mprotect_prot_str`,
 *    `_mmap_flags`, `_signal_name`, `__fork_flags`, `_wait4_opt_str`, `_seek_whence_str`, ...);
 *  - `user_buffer_quoted`, `kernel_buffer_quoted`, inet helpers (`ip_ntop`, `ntohs` ...).
 */
import { StapError } from '../runtime/errors';
import type { Builtin } from '../runtime/builtins';
import type { ProbeContext } from '../runtime/context';
import type { Long } from '../runtime/int64';
import { kmem, userSpace, KernelFault, AddressSpace } from '../kernel/memory';
import { syscallByNr } from '../kernel/syscalls';
import { btfSizeof, btfIntInfo, btfResolve, btfType, BtfKind } from '../kernel/btf';
import type { KHit } from './hit';
import { hitTask } from './hit';
import { retvalOf } from '../kernel/current';
import { userStructs } from './aux_syscalls_user';
import type { UserStruct } from './aux_syscalls_user';

/** stap's names where they differ from syscall_64.tbl (scripts/gen-syscall-tapsets.ts ALIAS_NAME). */
const STAP_NAMES: Record<string, string> = { pread64: 'pread', pwrite64: 'pwrite' };

function num(v: Long): number {
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : v;
}

// ---------------------------------------------------------------------------------------------
// the current system call

interface SysEnv { nr: number; a: unknown[]; ret: number; buf?: unknown }
interface TaskLike { pid: number; tid: number; ks?: { frames: { env: SysEnv }[] } }
interface RegsLike { args?: unknown[]; orig_ax?: number; ax?: number; task?: TaskLike }

function hitOf(c: ProbeContext): KHit | null {
  const d = c.data as KHit | undefined;
  return d && d.regs ? d : null;
}

/** The syscall environment the task is executing (innermost frame of a syscall path). */
function taskSysEnv(t: TaskLike | undefined): SysEnv | null {
  const fr = t && t.ks ? t.ks.frames : null;
  if (!fr) return null;
  for (let i = fr.length - 1; i >= 0; i--) {
    const e = fr[i].env;
    if (e && typeof e.nr === 'number' && e.nr >= 0 && Array.isArray(e.a)) return e;
  }
  return null;
}

interface Cur { nr: number; args: unknown[]; task: TaskLike | null; env: SysEnv | null; ret: number | undefined }
const NONE: Cur = { nr: -1, args: [], task: null, env: null, ret: undefined };

/**
 * Memo of the last resolution (handlers of one hit call several accessors).  A probe's hit record
 * is refilled for each of its hits (a return probe's with the same empty arguments): the memo
 * holds while the hit record, its arguments and registers, the task's syscall and the return
 * value are the same.
 */
let lastHit: KHit | null = null;
let lastArgs: readonly unknown[] | null = null;
let lastEnv: SysEnv | null = null;
let lastRv: unknown = undefined;
let lastCur: Cur = NONE;

function cur(c: ProbeContext): Cur {
  const h = hitOf(c);
  if (!h) return NONE;
  const env0 = taskSysEnv(h.cpuCtx.task as unknown as TaskLike);
  const rv0 = h.regs.retval;
  if (h === lastHit && h.args === lastArgs && env0 === lastEnv && rv0 === lastRv) return lastCur;
  let r: Cur = NONE;
  const tp = h.tp ? h.tp.name : '';
  if (tp === 'sys_enter' || tp === 'sys_exit') {
    const regs = h.args[0] as RegsLike | undefined;
    const task = (regs && regs.task) || (h.cpuCtx.task as unknown as TaskLike);
    const env = taskSysEnv(task);
    const nr = tp === 'sys_enter' ? Number(h.args[1]) : Number(regs && regs.orig_ax !== undefined ? regs.orig_ax : env ? env.nr : -1);
    const args = regs && Array.isArray(regs.args) ? regs.args : env ? env.a : [];
    r = { nr, args, task, env, ret: tp === 'sys_exit' ? Number(h.args[1]) : undefined };
  } else {
    const task = h.cpuCtx.task as unknown as TaskLike;
    const env = taskSysEnv(task);
    const rv = retvalOf(h.regs);
    if (env) r = { nr: env.nr, args: env.a, task, env, ret: typeof rv === 'number' ? rv : typeof rv === 'bigint' ? Number(rv) : undefined };
  }
  lastHit = h;
  lastArgs = h.args;
  lastEnv = env0;
  lastRv = rv0;
  lastCur = r;
  return r;
}

// user-space layout of string/array arguments (stable per syscall invocation)
const USER_ARGS = 0x7ffc5b000000;
const USER_ARGS_SIZE = 1 << 22;
const cursors = new Map<number, number>();
const laidOut = new WeakMap<unknown[], (Long | undefined)[]>();

function ualloc(us: AddressSpace, tgid: number, len: number): number {
  let at = cursors.get(tgid) ?? USER_ARGS;
  if (at + len > USER_ARGS + USER_ARGS_SIZE) at = USER_ARGS;
  cursors.set(tgid, at + ((len + 15) & ~15));
  us.map(at, Math.max(len, 1));
  return at;
}

function ucopy(tgid: number, v: string | Uint8Array): number {
  const us = userSpace(tgid);
  const len = typeof v === 'string' ? v.length + 1 : v.length;
  const at = ualloc(us, tgid, len);
  if (typeof v === 'string') us.writeBytes(at, v);
  else for (let i = 0; i < v.length; i++) us.writeU8(at + i, v[i]);
  return at;
}

const BUF_NAMES = new Set(['buf', 'ubuf', 'buff']);

function layOut(cu: Cur, i: number): number {
  const v = cu.args[i];
  const t = cu.task;
  const tgid = t ? t.pid : 0;
  if (typeof v === 'string') return ucopy(tgid, v);
  if (v instanceof Uint8Array) return ucopy(tgid, v);
  if (Array.isArray(v)) {
    const us = userSpace(tgid);
    const ptrs = v.map((s) => ucopy(tgid, String(s)));
    const at = ualloc(us, tgid, (ptrs.length + 1) * 8);
    ptrs.forEach((p, k) => us.writePtr(at + k * 8, p));
    us.writePtr(at + ptrs.length * 8, 0);
    return at;
  }
  // user buffers the "libc" passes as 0: the written data, or the task's buffer area
  const sc = syscallByNr(cu.nr);
  const a = sc && sc.args ? sc.args[i] : undefined;
  if (a && BUF_NAMES.has(a.name) && a.type.endsWith('*') && (v === 0 || v === undefined)) {
    const data = cu.env ? cu.env.buf : undefined;
    if (data instanceof Uint8Array) return ucopy(tgid, data.subarray(0, 4096));
    return 0x7ffc5a3e0000 + 0x10000 + ((t ? t.tid : 0) & 0xff) * 0x1000;
  }
  return 0;
}

const structsByNr = new Map<number, Record<number, UserStruct> | null>();
/** The user struct arguments of syscall nr (aux_syscalls_user.ts), by argument number. */
function structsOf(nr: number): Record<number, UserStruct> | null {
  let s = structsByNr.get(nr);
  if (s === undefined) {
    const sc = syscallByNr(nr);
    structsByNr.set(nr, (s = (sc && userStructs(sc.name)) || null));
  }
  return s;
}

/** An argument the machine passes as a value (a nonzero number, a bigint, a boolean); undefined for the others. */
function plainArg(v: unknown): Long | undefined {
  if (typeof v === 'number' && v !== 0) return Number.isInteger(v) ? v : Math.trunc(v);
  if (typeof v === 'bigint') return BigInt.asIntN(64, v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

function scArg(c: ProbeContext, n: Long): Long {
  const cu = cur(c);
  const i = num(n);
  if (i < 0 || i >= cu.args.length) return 0;
  const v = cu.args[i];
  const st = structsOf(cu.nr);
  const lay = st ? st[i] : undefined;
  if (!lay) {
    const x = plainArg(v);
    if (x !== undefined) return x;
  }
  let memo = laidOut.get(cu.args as unknown[]);
  if (!memo) laidOut.set(cu.args as unknown[], (memo = []));
  let p = memo[i];
  // a struct the call passes (its bytes from the machine's value, current: what the call stored
  // shows at its return), else the value's layout
  const bytes = lay ? lay(v, cu.env as unknown as Record<string, unknown> | null) : null;
  const tgid = cu.task ? cu.task.pid : 0;
  if (p === undefined) {
    p = bytes ? ucopy(tgid, bytes) : plainArg(v) ?? layOut(cu, i);
    memo[i] = p;
  } else if (bytes && typeof p === 'number') {
    const us = userSpace(tgid);
    for (let k = 0; k < bytes.length; k++) us.writeU8(p + k, bytes[k]);
  }
  return p;
}

function argvStr(c: ProbeContext, n: Long, env: boolean): string {
  const cu = cur(c);
  const v = cu.args[num(n)];
  if (!Array.isArray(v)) {
    const p = num(scArg(c, n));
    return p ? `0x${p.toString(16)}` : env ? '[/* 0 vars */]' : '[]';
  }
  if (env) return `[/* ${v.length} var${v.length === 1 ? '' : 's'} */]`;
  return '[' + v.map((s) => quoteBytes(String(s), 0, false)).join(', ') + ']';
}

// ---------------------------------------------------------------------------------------------
// quoting

function quoteBytes(s: string, max: number, truncated: boolean): string {
  let out = '"';
  const n = max > 0 ? Math.min(max, s.length) : s.length;
  for (let i = 0; i < n; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i) & 255;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\v') out += '\\v';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\x07') out += '\\a';
    else if (code < 32 || code >= 127) out += '\\' + code.toString(8).padStart(3, '0');
    else out += ch;
  }
  out += '"';
  if (truncated || (max > 0 && s.length > max)) out += '...';
  return out;
}

export function bufferQuoted(space: AddressSpace, addr: Long, inlen: Long, outlen: Long | undefined, maxStr: number): string {
  const a = num(addr);
  const len = Math.max(0, num(inlen));
  const lim = Math.min(outlen === undefined ? maxStr - 5 : Math.max(0, num(outlen)), maxStr - 5);
  const take = Math.min(len, lim);
  try {
    if (a === 0) throw new KernelFault(0, true);
    let s = '';
    for (let i = 0; i < take; i++) s += String.fromCharCode(Number(space.readUnsigned(a + i, 1)));
    return quoteBytes(s, 0, len > take);
  } catch (e) {
    if (!(e instanceof KernelFault)) throw e;
    return `0x${BigInt.asUintN(64, BigInt(a)).toString(16)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// flag and enum formatting (aux_syscalls)

export type Flags = [number, string][];

export function flagStr(v: number, table: Flags, zero = '0x0'): string {
  const parts: string[] = [];
  let rest = v;
  for (const [bit, name] of table) {
    if (bit !== 0 && (rest & bit) === bit) {
      parts.push(name);
      rest &= ~bit;
    }
  }
  if (rest) parts.push(`0x${(rest >>> 0).toString(16)}`);
  return parts.length ? parts.join('|') : zero;
}

function enumStr(v: number, names: Record<number, string>): string {
  return names[v] ?? String(v);
}

const O_FLAGS: Flags = [
  [0o100, 'O_CREAT'], [0o200, 'O_EXCL'], [0o400, 'O_NOCTTY'], [0o1000, 'O_TRUNC'], [0o2000, 'O_APPEND'],
  [0o4000, 'O_NONBLOCK'], [0o10000, 'O_DSYNC'], [0o20000, 'FASYNC'], [0o40000, 'O_DIRECT'],
  [0o100000, 'O_LARGEFILE'], [0o200000, 'O_DIRECTORY'], [0o400000, 'O_NOFOLLOW'], [0o1000000, 'O_NOATIME'],
  [0o2000000, 'O_CLOEXEC'], [0o4000000 | 0o10000, 'O_SYNC'], [0o10000000, 'O_PATH'], [0o20000000 | 0o200000, 'O_TMPFILE'],
];

function openFlagStr(f: number): string {
  const acc = f & 3;
  const base = acc === 0 ? 'O_RDONLY' : acc === 1 ? 'O_WRONLY' : acc === 2 ? 'O_RDWR' : '0x3';
  // O_SYNC / O_TMPFILE include other bits: test them first
  const table = [O_FLAGS[13], O_FLAGS[15], ...O_FLAGS.filter((_, i) => i !== 13 && i !== 15)];
  const rest = flagStr(f & ~3, table, '');
  return rest ? `${base}|${rest}` : base;
}

const PROT: Flags = [[1, 'PROT_READ'], [2, 'PROT_WRITE'], [4, 'PROT_EXEC'], [0x8, 'PROT_SEM'], [0x01000000, 'PROT_GROWSDOWN'], [0x02000000, 'PROT_GROWSUP']];
const MAP: Flags = [
  [0x10, 'MAP_FIXED'], [0x20, 'MAP_ANONYMOUS'], [0x40, 'MAP_32BIT'], [0x100, 'MAP_GROWSDOWN'], [0x800, 'MAP_DENYWRITE'],
  [0x1000, 'MAP_EXECUTABLE'], [0x2000, 'MAP_LOCKED'], [0x4000, 'MAP_NORESERVE'], [0x8000, 'MAP_POPULATE'],
  [0x10000, 'MAP_NONBLOCK'], [0x20000, 'MAP_STACK'], [0x40000, 'MAP_HUGETLB'], [0x80000, 'MAP_SYNC'], [0x100000, 'MAP_FIXED_NOREPLACE'],
];
function mmapFlags(f: number): string {
  const t = f & 0xf;
  const base = t === 1 ? 'MAP_SHARED' : t === 2 ? 'MAP_PRIVATE' : t === 3 ? 'MAP_SHARED_VALIDATE' : t ? `0x${t.toString(16)}` : '';
  const rest = flagStr(f & ~0xf, MAP, '');
  return [base, rest].filter((x) => x).join('|') || '0x0';
}

const SIGNALS = ['', 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGKILL', 'SIGUSR1',
  'SIGSEGV', 'SIGUSR2', 'SIGPIPE', 'SIGALRM', 'SIGTERM', 'SIGSTKFLT', 'SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN',
  'SIGTTOU', 'SIGURG', 'SIGXCPU', 'SIGXFSZ', 'SIGVTALRM', 'SIGPROF', 'SIGWINCH', 'SIGIO', 'SIGPWR', 'SIGSYS'];
export function signalName(s: number): string {
  if (s > 0 && s < 32) return SIGNALS[s];
  if (s === 32) return 'SIGRTMIN';
  if (s > 32 && s <= 64) return `SIGRTMIN+${s - 32}`;
  return String(s);
}

const CLONE: Flags = [
  [0x100, 'CLONE_VM'], [0x200, 'CLONE_FS'], [0x400, 'CLONE_FILES'], [0x800, 'CLONE_SIGHAND'], [0x1000, 'CLONE_PIDFD'],
  [0x2000, 'CLONE_PTRACE'], [0x4000, 'CLONE_VFORK'], [0x8000, 'CLONE_PARENT'], [0x10000, 'CLONE_THREAD'],
  [0x20000, 'CLONE_NEWNS'], [0x40000, 'CLONE_SYSVSEM'], [0x80000, 'CLONE_SETTLS'], [0x100000, 'CLONE_PARENT_SETTID'],
  [0x200000, 'CLONE_CHILD_CLEARTID'], [0x400000, 'CLONE_DETACHED'], [0x800000, 'CLONE_UNTRACED'],
  [0x1000000, 'CLONE_CHILD_SETTID'], [0x2000000, 'CLONE_NEWCGROUP'], [0x4000000, 'CLONE_NEWUTS'], [0x8000000, 'CLONE_NEWIPC'],
  [0x10000000, 'CLONE_NEWUSER'], [0x20000000, 'CLONE_NEWPID'], [0x40000000, 'CLONE_NEWNET'], [0x80000000, 'CLONE_IO'],
];
function forkFlags(f: number): string {
  const parts: string[] = [];
  const r = flagStr(f & ~0xff, CLONE, '');
  if (r) parts.push(r);
  const sig = f & 0xff;
  if (sig) parts.push(signalName(sig));
  return parts.join('|') || '0x0';
}

const WAIT: Flags = [[1, 'WNOHANG'], [2, 'WUNTRACED'], [4, 'WEXITED'], [8, 'WCONTINUED'], [0x01000000, 'WNOWAIT'],
  [0x20000000, '__WNOTHREAD'], [0x40000000, '__WALL'], [0x80000000, '__WCLONE']];
const AT: Flags = [[0x100, 'AT_SYMLINK_NOFOLLOW'], [0x200, 'AT_REMOVEDIR'], [0x400, 'AT_SYMLINK_FOLLOW'], [0x800, 'AT_NO_AUTOMOUNT'], [0x1000, 'AT_EMPTY_PATH']];
const ACCESS: Flags = [[4, 'R_OK'], [2, 'W_OK'], [1, 'X_OK']];
const WHENCE: Record<number, string> = { 0: 'SEEK_SET', 1: 'SEEK_CUR', 2: 'SEEK_END', 3: 'SEEK_DATA', 4: 'SEEK_HOLE' };
const CLOCKS: Record<number, string> = { 0: 'CLOCK_REALTIME', 1: 'CLOCK_MONOTONIC', 2: 'CLOCK_PROCESS_CPUTIME_ID', 3: 'CLOCK_THREAD_CPUTIME_ID',
  4: 'CLOCK_MONOTONIC_RAW', 5: 'CLOCK_REALTIME_COARSE', 6: 'CLOCK_MONOTONIC_COARSE', 7: 'CLOCK_BOOTTIME', 8: 'CLOCK_REALTIME_ALARM',
  9: 'CLOCK_BOOTTIME_ALARM', 11: 'CLOCK_TAI' };
const SIGHOW: Record<number, string> = { 0: 'SIG_BLOCK', 1: 'SIG_UNBLOCK', 2: 'SIG_SETMASK' };
const FAMILIES: Record<number, string> = { 0: 'PF_UNSPEC', 1: 'PF_LOCAL', 2: 'PF_INET', 10: 'PF_INET6', 16: 'PF_NETLINK', 17: 'PF_PACKET' };
const SOCKTYPES: Record<number, string> = { 1: 'SOCK_STREAM', 2: 'SOCK_DGRAM', 3: 'SOCK_RAW', 4: 'SOCK_RDM', 5: 'SOCK_SEQPACKET', 6: 'SOCK_DCCP', 10: 'SOCK_PACKET' };
function sockTypeStr(t: number): string {
  const parts = [enumStr(t & 0xf, SOCKTYPES)];
  if (t & 0o4000) parts.push('SOCK_NONBLOCK');
  if (t & 0o2000000) parts.push('SOCK_CLOEXEC');
  return parts.join('|');
}
const FCNTL: Record<number, string> = { 0: 'F_DUPFD', 1: 'F_GETFD', 2: 'F_SETFD', 3: 'F_GETFL', 4: 'F_SETFL', 5: 'F_GETLK', 6: 'F_SETLK',
  7: 'F_SETLKW', 8: 'F_SETOWN', 9: 'F_GETOWN', 10: 'F_SETSIG', 11: 'F_GETSIG', 1024: 'F_SETLEASE', 1025: 'F_GETLEASE',
  1030: 'F_DUPFD_CLOEXEC', 1031: 'F_SETPIPE_SZ', 1032: 'F_GETPIPE_SZ' };
const MSG: Flags = [[1, 'MSG_OOB'], [2, 'MSG_PEEK'], [4, 'MSG_DONTROUTE'], [8, 'MSG_CTRUNC'], [0x10, 'MSG_PROXY'], [0x20, 'MSG_TRUNC'],
  [0x40, 'MSG_DONTWAIT'], [0x80, 'MSG_EOR'], [0x100, 'MSG_WAITALL'], [0x200, 'MSG_FIN'], [0x400, 'MSG_SYN'], [0x800, 'MSG_CONFIRM'],
  [0x1000, 'MSG_RST'], [0x2000, 'MSG_ERRQUEUE'], [0x4000, 'MSG_NOSIGNAL'], [0x8000, 'MSG_MORE'], [0x10000, 'MSG_WAITFORONE'],
  [0x40000000, 'MSG_CMSG_CLOEXEC']];
const FUTEX: Record<number, string> = { 0: 'FUTEX_WAIT', 1: 'FUTEX_WAKE', 2: 'FUTEX_FD', 3: 'FUTEX_REQUEUE', 4: 'FUTEX_CMP_REQUEUE',
  5: 'FUTEX_WAKE_OP', 6: 'FUTEX_LOCK_PI', 7: 'FUTEX_UNLOCK_PI', 8: 'FUTEX_TRYLOCK_PI', 9: 'FUTEX_WAIT_BITSET', 10: 'FUTEX_WAKE_BITSET',
  11: 'FUTEX_WAIT_REQUEUE_PI', 12: 'FUTEX_CMP_REQUEUE_PI' };
function futexOp(op: number): string {
  let s = enumStr(op & 0x7f, FUTEX);
  if (op & 128) s += '_PRIVATE';
  if (op & 256) s += '|FUTEX_CLOCK_REALTIME';
  return s;
}

function modeStr(m: number): string {
  return '0' + (m >>> 0).toString(8);
}

// ---------------------------------------------------------------------------------------------
// inet helpers

function ipNtop(a: number): string {
  const v = a >>> 0;
  // addresses are in network byte order in memory: the low byte is the first octet
  return [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255].join('.');
}

// ---------------------------------------------------------------------------------------------
// struct fields over kernel memory, for tapset functions (which have no probe context for @cast)

const fieldCache = new Map<string, { offset: number; size: number; signed: boolean } | null>();
function fieldInfo(type: string, path: string): { offset: number; size: number; signed: boolean } | null {
  const k = `${type}\0${path}`;
  let f = fieldCache.get(k);
  if (f !== undefined) return f;
  try {
    const fo = kmem.fieldOf(type, path);
    const r = btfResolve(fo.type);
    const t = btfType(r);
    const size = t.kind === BtfKind.PTR ? 8 : btfSizeof(r);
    const signed = t.kind === BtfKind.INT ? btfIntInfo(r).signed : t.kind === BtfKind.ENUM;
    f = { offset: fo.offset, size: Math.min(8, size || 8), signed };
  } catch {
    f = null;
  }
  fieldCache.set(k, f);
  return f;
}

/** Read TYPE's field PATH ("f_path.dentry") at addr; 0 for a NULL addr or an unmapped page. */
function kfield(addr: Long, type: string, path: string): Long {
  const a = num(addr);
  if (!a) return 0;
  const f = fieldInfo(type, path);
  if (!f) throw new StapError(`unable to find member '${path}' of '${type}'`);
  try {
    const u = kmem.readUnsigned(a + f.offset, f.size);
    const v = f.signed ? BigInt.asIntN(f.size * 8, u) : u;
    const n = Number(BigInt.asIntN(64, v));
    return Number.isSafeInteger(n) ? n : BigInt.asIntN(64, v);
  } catch (e) {
    if (e instanceof KernelFault) return 0;
    throw e;
  }
}

function kstr(addr: number): string {
  if (!addr) return '';
  try { return kmem.readString(addr, 255); } catch (e) { if (e instanceof KernelFault) return ''; throw e; }
}

export const tapsetBuiltins: Record<string, Builtin> = {
  __kfield: (c, addr: Long, type: string, path: string) => kfield(addr, type, path),
  __file_inode: (c, f: Long) => kfield(f, 'struct file', 'f_inode'),
  __file_ino: (c, f: Long) => kfield(kfield(f, 'struct file', 'f_inode'), 'struct inode', 'i_ino'),
  __file_dev: (c, f: Long) => kfield(kfield(kfield(f, 'struct file', 'f_inode'), 'struct inode', 'i_sb'), 'struct super_block', 's_dev'),
  __file_filename: (c, f: Long) => kstr(num(kfield(kfield(f, 'struct file', 'f_path.dentry'), 'struct dentry', 'd_name.name'))),
  __task_field: (c, t: Long, path: string) => kfield(t, 'struct task_struct', path),
  /** Address of field PATH of the TYPE at addr (char arrays: for kernel_string); 0 for NULL. */
  __kfield_addr: (c, addr: Long, type: string, path: string) => {
    const a = num(addr);
    if (!a) return 0;
    const f = fieldInfo(type, path);
    if (!f) throw new StapError(`unable to find member '${path}' of '${type}'`);
    return a + f.offset;
  },
  /** The current process' command line (argv joined by spaces; "" when unknown). */
  __cmdline_str: (c) => {
    // the argv of the task's process (TaskRef does not expose the machine's Process)
    const t = hitTask(c) as { proc?: { argv?: unknown } } | null;
    const argv = t && t.proc && Array.isArray(t.proc.argv) ? (t.proc.argv as unknown[]) : [];
    return argv.map(String).join(' ');
  },
  __sc_nr: (c) => cur(c).nr,
  __sc_arg: (c, n: Long) => scArg(c, n),
  __sc_argu32: (c, n: Long) => {
    const v = scArg(c, n);
    return typeof v === 'bigint' ? Number(BigInt.asUintN(32, v)) : v >>> 0;
  },
  __sc_argi32: (c, n: Long) => {
    const v = scArg(c, n);
    return typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v | 0;
  },
  __sc_ret: (c) => {
    const r = cur(c).ret;
    return r === undefined ? 0 : r;
  },
  __sc_argv_str: (c, n: Long) => argvStr(c, n, false),
  syscall_name: (c, n: Long) => {
    const sc = syscallByNr(num(n));
    return sc ? (STAP_NAMES[sc.name] ?? sc.name) : '';
  },
  __sc_env_str: (c, n: Long) => argvStr(c, n, true),

  user_buffer_quoted: (c, addr: Long, inlen: Long, outlen?: Long) => bufferQuoted(userSpace(c.task.pid), addr, inlen, outlen, c.engine.maxStringLen),
  kernel_buffer_quoted: (c, addr: Long, inlen: Long, outlen?: Long) => bufferQuoted(kmem, addr, inlen, outlen, c.engine.maxStringLen),

  _sys_open_flag_str: (c, f: Long) => openFlagStr(num(f)),
  _dfd_str: (c, d: Long) => (num(d) === -100 ? 'AT_FDCWD' : String(num(d))),
  _mprotect_prot_str: (c, p: Long) => flagStr(num(p), PROT, 'PROT_NONE'),
  _mmap_flags: (c, f: Long) => mmapFlags(num(f)),
  _signal_name: (c, s: Long) => signalName(num(s)),
  __fork_flags: (c, f: Long) => forkFlags(num(f)),
  _wait4_opt_str: (c, f: Long) => flagStr(num(f), WAIT, '0'),
  _at_flag_str: (c, f: Long) => flagStr(num(f), AT, '0x0'),
  _access_mode_str: (c, m: Long) => (num(m) === 0 ? 'F_OK' : flagStr(num(m), ACCESS, 'F_OK')),
  _seek_whence_str: (c, w: Long) => enumStr(num(w), WHENCE),
  _get_wc_str: (c, w: Long) => enumStr(num(w), CLOCKS),
  _sigprocmask_how_str: (c, h: Long) => enumStr(num(h), SIGHOW),
  _sock_family_str: (c, f: Long) => enumStr(num(f), FAMILIES),
  _sock_type_str: (c, t: Long) => sockTypeStr(num(t)),
  _fcntl_cmd_str: (c, f: Long) => enumStr(num(f), FCNTL),
  _msg_flags_str: (c, f: Long) => flagStr(num(f), MSG, '0x0'),
  _futex_op_str: (c, o: Long) => futexOp(num(o)),
  _mode_str: (c, m: Long) => modeStr(num(m)),

  ip_ntop: (c, a: Long) => ipNtop(num(a)),
  ntohs: (c, v: Long) => { const x = num(v) & 0xffff; return ((x & 255) << 8) | (x >>> 8); },
  htons: (c, v: Long) => { const x = num(v) & 0xffff; return ((x & 255) << 8) | (x >>> 8); },
  ntohl: (c, v: Long) => { const x = num(v) >>> 0; return (((x & 255) << 24) | ((x >>> 8 & 255) << 16) | ((x >>> 16 & 255) << 8) | (x >>> 24)) >>> 0; },
  htonl: (c, v: Long) => { const x = num(v) >>> 0; return (((x & 255) << 24) | ((x >>> 8 & 255) << 16) | ((x >>> 16 & 255) << 8) | (x >>> 24)) >>> 0; },
};


/** Add the tapset builtins to the runtime table (called from installKernelProbes()). */
export function installTapsetBuiltins(table: Record<string, Builtin>): void {
  for (const [k, f] of Object.entries(tapsetBuiltins)) table[k] = f;
}
