/**
 * The syscall tapsets' decoders of user structs (issue 16), with SystemTap 4.8's formats
 * (aux_syscalls.stp): `_struct_timespec_u` "[1.500000000]", `_stp_sigset_u` "[SIGINT|SIGTERM]",
 * `_struct_sigaction_u` "SIG_DFL" / "0x55.., SA_RESTORER, 0x7f.., [EMPTY]", `_struct_rlimit_u`
 * "[1024,4096]", `_struct_timeval_u`, `_struct_itimerval_u` ...: NULL for a NULL pointer, the
 * address in hex where the user memory cannot be read, else the fields read from the process'
 * simulated user space.
 *
 * The machine's programs pass such arguments as values (clock_nanosleep's request as a number of
 * ns, rt_sigprocmask's set as `set` of the call, rt_sigaction's new action as `handler`):
 * `userStruct()` gives the bytes of the struct the C library would have passed, which
 * tapset_builtins.ts lays out in the process' user space for `__sc_arg`.
 */
import type { Builtin } from '../runtime/builtins';
import type { ProbeContext } from '../runtime/context';
import type { Long } from '../runtime/int64';
import { userSpace, KernelFault } from '../kernel/memory';
import { USER_HANDLER, USER_RESTORER, SA_RESTORER } from '../machine/include/signal';
import { hexLong, lookupStr, lookupOrStr, ValArray } from './aux_syscalls';

// ---------------------------------------------------------------------------------------------
// reading

/** `n` signed 64-bit words at `addr` of the probed process' user space (throws KernelFault). */
function words(c: ProbeContext, addr: number, n: number, size = 8): bigint[] {
  const us = userSpace(c.task.pid);
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) out.push(BigInt.asIntN(size * 8, us.readUnsigned(addr + i * size, size)));
  return out;
}

const addrOf = (v: Long): number => Number(BigInt.asIntN(64, typeof v === 'bigint' ? v : BigInt(Math.trunc(v))));

/** NULL, the formatted struct, or the address when the memory cannot be read (stap's fallback). */
function decode(uaddr: Long, f: (a: number) => string): string {
  const a = addrOf(uaddr);
  if (a === 0) return 'NULL';
  try {
    return f(a);
  } catch (e) {
    if (e instanceof KernelFault) return hexLong(uaddr);
    throw e;
  }
}

/** C's `%0Nld` (the sign counts in the width). */
function zpad(v: bigint, w: number): string {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString();
  return (neg ? '-' : '') + s.padStart(neg ? w - 1 : w, '0');
}

const i32 = (v: bigint): bigint => BigInt.asIntN(32, v);

// ---------------------------------------------------------------------------------------------
// signals

/** stap's signal list, in its order (no SIGSTKFLT, no real-time signals; SIGIO as "SIGIO/SIGPOLL"). */
const SIGNALS: ValArray = [[0, 'SIG_0'], [1, 'SIGHUP'], [2, 'SIGINT'], [3, 'SIGQUIT'], [4, 'SIGILL'], [5, 'SIGTRAP'],
  [6, 'SIGABRT'], [7, 'SIGBUS'], [8, 'SIGFPE'], [9, 'SIGKILL'], [10, 'SIGUSR1'], [11, 'SIGSEGV'], [13, 'SIGPIPE'],
  [12, 'SIGUSR2'], [14, 'SIGALRM'], [15, 'SIGTERM'], [17, 'SIGCHLD'], [18, 'SIGCONT'], [19, 'SIGSTOP'], [20, 'SIGTSTP'],
  [21, 'SIGTTIN'], [22, 'SIGTTOU'], [23, 'SIGURG'], [24, 'SIGXCPU'], [25, 'SIGXFSZ'], [26, 'SIGVTALRM'], [27, 'SIGPROF'],
  [28, 'SIGWINCH'], [29, 'SIGIO/SIGPOLL'], [30, 'SIGPWR'], [31, 'SIGSYS'], [0x85, 'TRACESYSGOOD']];

/** `_stp_sigset_str`: the listed signals of a sigset_t word, "[A|B]", or "[EMPTY]". */
export function sigsetStr(mask: bigint): string {
  const names = SIGNALS.filter(([s]) => s > 0 && s <= 64 && (mask >> BigInt(s - 1)) & 1n).map(([, n]) => n);
  return names.length ? `[${names.join('|')}]` : '[EMPTY]';
}

const SA_HANDLER: ValArray = [[0, 'SIG_DFL'], [1, 'SIG_IGN']];
const SA_FLAGS: ValArray = [[1, 'SA_NOCLDSTOP'], [2, 'SA_NOCLDWAIT'], [0x80000000, 'SA_RESETHAND'], [0x08000000, 'SA_ONSTACK'],
  [0x10000000, 'SA_RESTART'], [0x40000000, 'SA_NODEFER'], [4, 'SA_SIGINFO'], [SA_RESTORER, 'SA_RESTORER']];

/** A struct sigaction (handler, flags, restorer, mask): the handler, then flags, restorer and mask when it is a function. */
function sigactionStr(w: bigint[]): string {
  const [handler, flags, restorer, mask] = w;
  let s = lookupStr(SA_HANDLER, handler);
  if (handler !== 0n && handler !== 1n) s += `, ${lookupOrStr(SA_FLAGS, flags)}, ${hexLong(restorer)}, ${sigsetStr(mask)}`;
  return s;
}

const PTRACE_EVENTS: Record<number, string> = { 1: 'PTRACE_EVENT_FORK', 2: 'PTRACE_EVENT_VFORK', 3: 'PTRACE_EVENT_CLONE',
  4: 'PTRACE_EVENT_EXEC', 5: 'PTRACE_EVENT_VFORK_DONE', 6: 'PTRACE_EVENT_EXIT' };

/** A wait status as stap 4.8's _wait_status_str: WEXITSTATUS=n, WTERMSIG=SIG, WCOREDUMP, WSTOPSIG=SIG, WIFCONTINUED, then the high bits. */
export function waitStatusStr(v: Long): string {
  const f = BigInt.asIntN(64, typeof v === 'bigint' ? v : BigInt(Math.trunc(v)));
  const hex = (x: bigint): string => BigInt.asUintN(64, x).toString(16);
  let tail = f >> 16n !== 0n ? ` | 0x${hex(f & ~0xffffn)}` : '';
  const low = Number(f & 0x7fn);
  const sig = (n: bigint): string => lookupStr(SIGNALS, n);
  if (low === 0) return `WEXITSTATUS=${(f & 0xff00n) >> 8n}${tail}`;
  if (low !== 0x7f) return f & 0x80n ? `WCOREDUMP${tail}` : `WTERMSIG=${sig(f & 0x7fn)}${tail}`;
  if ((f & 0xffn) === 0x7fn) {
    const stop = (f & 0xff00n) >> 8n;
    const event = PTRACE_EVENTS[Number(f >> 16n)];
    if (stop === 5n && event) tail = ` | ${event} << 8`;
    return `WSTOPSIG=${sig(stop)}${tail}`;
  }
  return f === 0xffffn ? `WIFCONTINUED${tail}` : `?=0x${hex(f)}`;
}

// ---------------------------------------------------------------------------------------------
// time

const UTIME_NOW = (1n << 30n) - 1n;
const UTIME_OMIT = (1n << 30n) - 2n;

function timespecs(c: ProbeContext, a: number, n: number): string {
  const w = words(c, a, 2 * n);
  let s = '';
  for (let i = 0; i < n; i++) {
    const [sec, nsec] = [w[2 * i], w[2 * i + 1]];
    s += nsec === UTIME_NOW ? '[UTIME_NOW]' : nsec === UTIME_OMIT ? '[UTIME_OMIT]' : `[${sec}.${zpad(nsec, 9)}]`;
  }
  return s;
}

function timevals(c: ProbeContext, a: number, n: number): string {
  const w = words(c, a, 2 * n);
  return Array.from({ length: n }, (_, i) => `[${w[2 * i]}.${zpad(w[2 * i + 1], 6)}]`).join('');
}

/** itimerval / itimerspec: "[%d.%06d,%d.%06d]" of the interval and the value (as ints, as stap prints them). */
function itimer(c: ProbeContext, a: number): string {
  const [is, isub, vs, vsub] = words(c, a, 4).map(i32);
  return `[${is}.${zpad(isub, 6)},${vs}.${zpad(vsub, 6)}]`;
}

export const auxSyscallUserBuiltins: Record<string, Builtin> = {
  _struct_timespec_u: (c, a: Long, n: Long) => (Number(n) < 1 || Number(n) > 2 ? 'NULL' : decode(a, (p) => timespecs(c, p, Number(n)))),
  _struct_timeval_u: (c, a: Long, n: Long) => (Number(n) < 1 || Number(n) > 2 ? 'NULL' : decode(a, (p) => timevals(c, p, Number(n)))),
  _struct_itimerval_u: (c, a: Long) => decode(a, (p) => itimer(c, p)),
  _struct_itimerspec_u: (c, a: Long) => decode(a, (p) => itimer(c, p)),
  _struct_timezone_u: (c, a: Long) => decode(a, (p) => {
    const [west, dst] = words(c, p, 2, 4);
    return `[${west}, ${dst}]`;
  }),
  _struct_rlimit_u: (c, a: Long) => decode(a, (p) => {
    const [cur, max] = words(c, p, 2);
    return `[${cur},${max}]`;
  }),
  _stp_sigset_u: (c, a: Long) => decode(a, (p) => sigsetStr(words(c, p, 1)[0])),
  _struct_sigaction_u: (c, a: Long) => decode(a, (p) => sigactionStr(words(c, p, 4))),
  _wait_status_str: (c, f: Long) => waitStatusStr(f),
};

// ---------------------------------------------------------------------------------------------
// the structs of the machine's calls

/** Little-endian 64-bit words. */
function le64(...ws: (number | bigint)[]): Uint8Array {
  const b = new Uint8Array(ws.length * 8);
  const dv = new DataView(b.buffer);
  ws.forEach((w, i) => dv.setBigUint64(i * 8, BigInt.asUintN(64, BigInt(w)), true));
  return b;
}

/** A struct timespec of `ns` nanoseconds. */
function timespecOf(ns: unknown): Uint8Array | null {
  if (typeof ns !== 'number' && typeof ns !== 'bigint') return null;
  const v = BigInt(typeof ns === 'number' ? Math.max(0, Math.round(ns)) : ns);
  return le64(v / 1000000000n, v % 1000000000n);
}

type Env = Record<string, unknown> | null;
/** The bytes of the struct argument the call passes, from the machine's value of it; null: no struct (the value stands). */
export type UserStruct = (v: unknown, env: Env) => Uint8Array | null;

const sigset = (v: unknown, env: Env): Uint8Array | null =>
  v !== 0 && env && typeof env.set === 'number' ? le64(BigInt.asUintN(64, BigInt(env.set))) : null;

/** glibc's sigaction(): the handler, SA_RESTORER and its __restore_rt, an empty mask (the programs' own flags are not modelled). */
const sigaction = (_v: unknown, env: Env): Uint8Array | null => {
  const h = env ? env.handler : undefined;
  if (h === undefined) return null;
  return le64(h === 'default' ? 0 : h === 'ignore' ? 1 : USER_HANDLER, SA_RESTORER, USER_RESTORER, 0);
};

/**
 * wait4's status: the C library's callers (waitpid, wait) pass one; it holds what the call stored
 * once it has (the status of the reaped child), 0 before.
 */
const waitStatus = (_v: unknown, env: Env): Uint8Array => {
  const info = env ? (env.info as { status?: unknown } | undefined) : undefined;
  const st = info && typeof info.status === 'number' ? info.status : 0;
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, st, true);
  return b;
};

/**
 * By syscall, the argument (0-based) that points to a struct and how the machine's call gives it
 * (laid out again at each read: what the call stores shows after it).
 */
const USER_STRUCTS: Record<string, Record<number, UserStruct>> = {
  wait4: { 1: waitStatus },
  nanosleep: { 0: timespecOf },
  clock_nanosleep: { 2: timespecOf },
  rt_sigprocmask: { 1: sigset },
  rt_sigsuspend: { 0: sigset },
  rt_sigaction: { 1: sigaction },
};

/** The arguments of syscall `name` that point to user structs, by number, and how each is laid out. */
export function userStructs(name: string): Record<number, UserStruct> | undefined {
  return USER_STRUCTS[name];
}
