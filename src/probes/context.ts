/**
 * Kernel-context tapset functions implemented in TypeScript (declared in stdlib/context-kernel.stp,
 * stdlib/conversions.stp, stdlib/task.stp, stdlib/registers.stp): probe-point and symbol
 * information, backtraces, task_* accessors over the simulated task_struct, memory conversions
 * over the simulated address spaces, dwarfless argument access.
 */
import { Long, fromBigInt } from '../runtime/int64';
import { StapError } from '../runtime/errors';
import { textStrn } from '../runtime/strings';
import type { Builtin } from '../runtime/builtins';
import type { ProbeContext, TaskInfo } from '../runtime/context';
import { kmem, userSpace, KernelFault, AddressSpace, taskObjectAt } from '../kernel/memory';
import { lookupAddr, symbolName, symbolAddr, lookupName, isFunction, symbolModule } from '../kernel/kallsyms';
import { retvalOf, type CpuContext, type TaskRef } from '../kernel/current';
import { INLINE_FN } from '../kernel/inline_sites';
import type { Plan } from './targets';
import { evalTarget, readFault } from './target_eval';
import type { KHit } from './hit';
const ERRNO = 'EPERM ENOENT ESRCH EINTR EIO ENXIO E2BIG ENOEXEC EBADF ECHILD EAGAIN ENOMEM EACCES EFAULT ENOTBLK EBUSY EEXIST EXDEV ENODEV ENOTDIR EISDIR EINVAL ENFILE EMFILE ENOTTY ETXTBSY EFBIG ENOSPC ESPIPE EROFS EMLINK EPIPE EDOM ERANGE EDEADLK ENAMETOOLONG ENOLCK ENOSYS ENOTEMPTY ELOOP - ENOMSG EIDRM ECHRNG EL2NSYNC EL3HLT EL3RST ELNRNG EUNATCH ENOCSI EL2HLT EBADE EBADR EXFULL ENOANO EBADRQC EBADSLT - EBFONT ENOSTR ENODATA ETIME ENOSR ENONET ENOPKG EREMOTE ENOLINK EADV ESRMNT ECOMM EPROTO EMULTIHOP EDOTDOT EBADMSG EOVERFLOW ENOTUNIQ EBADFD EREMCHG ELIBACC ELIBBAD ELIBSCN ELIBMAX ELIBEXEC EILSEQ ERESTART ESTRPIPE EUSERS ENOTSOCK EDESTADDRREQ EMSGSIZE EPROTOTYPE ENOPROTOOPT EPROTONOSUPPORT ESOCKTNOSUPPORT EOPNOTSUPP EPFNOSUPPORT EAFNOSUPPORT EADDRINUSE EADDRNOTAVAIL ENETDOWN ENETUNREACH ENETRESET ECONNABORTED ECONNRESET ENOBUFS EISCONN ENOTCONN ESHUTDOWN ETOOMANYREFS ETIMEDOUT ECONNREFUSED EHOSTDOWN EHOSTUNREACH EALREADY EINPROGRESS ESTALE EUCLEAN ENOTNAM ENAVAIL EISNAM EREMOTEIO EDQUOT ENOMEDIUM EMEDIUMTYPE ECANCELED ENOKEY EKEYEXPIRED EKEYREVOKED EKEYREJECTED EOWNERDEAD ENOTRECOVERABLE'.split(' ');
/** errno name of n as stap 4.8's errlist (EPERM .. ENOTRECOVERABLE); '' when it has none. */
export function errnoName(n: number): string {
  const v = ERRNO[n - 1];
  return v && v !== '-' ? v : '';
}

export function hit(c: ProbeContext): KHit | null {
  const d = c.data as KHit | undefined;
  return d && d.regs ? d : null;
}

export function num(v: Long): number {
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : v;
}

export function hexU(v: number | bigint): string {
  return BigInt.asUintN(64, BigInt(v)).toString(16);
}

function canon(b: bigint): Long {
  return fromBigInt(BigInt.asIntN(64, b));
}

// ---------------------------------------------------------------------------------------------
// backtraces

let backtraceSource: ((ctx: CpuContext) => number[]) | null = null;
/** The machine installs a source of kernel return addresses (innermost caller first). */
export function setBacktraceSource(f: ((ctx: CpuContext) => number[]) | null): void {
  backtraceSource = f;
}

let taskLookup: ((tid: number) => TaskRef | undefined) | null = null;
/** The machine installs its task table (pid2task(): find_vpid + pid_task); null without a machine. */
export function setTaskLookup(f: ((tid: number) => TaskRef | undefined) | null): void {
  taskLookup = f;
}

/** The task with kernel pid (thread id) `pid`: from the machine, else only the current task. */
function taskByPid(c: ProbeContext, pid: number): TaskRef | undefined {
  if (taskLookup) return pid > 0 ? taskLookup(pid) : undefined;
  const t = currentTaskRef(c);
  return t.pid === pid ? t : undefined;
}

/** Probe address first, then callers. */
export function stack(c: ProbeContext): number[] {
  const h = hit(c);
  if (!h) return [];
  const out: number[] = [];
  const ip = h.addr || h.regs.ip;
  if (ip) out.push(ip);
  if (backtraceSource) {
    // a sampling hit's ip is the innermost frame the machine's stack reports too: list it once
    const bt = backtraceSource(h.cpuCtx);
    out.push(...(ip && bt[0] === ip ? bt.slice(1) : bt));
  }
  else if (h.regs.parentIp) out.push(h.regs.parentIp);
  return out;
}

export function symOff(addr: number): string {
  const p = lookupAddr(addr);
  if (!p) return `0x${hexU(addr)}`;
  return `${symbolName(p.id)}+0x${p.offset.toString(16)}/0x${p.size.toString(16)}`;
}

function symname(addr: number): string {
  const p = lookupAddr(addr);
  return p ? symbolName(p.id) : `0x${hexU(addr)}`;
}

/** `[kernel]` or `[MODULE]` of an address, as stap's backtraces show it. */
function modTag(addr: number): string {
  const p = lookupAddr(addr);
  const mod = p ? symbolModule(p.id) : '';
  return mod ? `[${mod}]` : '[kernel]';
}

function stackLine(addr: number): string {
  return ` 0x${hexU(addr).padStart(16, '0')} : ${symOff(addr)} ${modTag(addr)}\n`;
}

function parseStack(s: string): number[] {
  return s.split(/\s+/).filter((x) => x).map((x) => Number(BigInt.asIntN(64, BigInt(x))));
}

// ---------------------------------------------------------------------------------------------
// tasks

const infoTasks = new WeakMap<TaskInfo, TaskRef>();
/** The TaskRef of the current context (kernel hit), or one standing for the context's TaskInfo. */
function currentTaskRef(c: ProbeContext): TaskRef {
  const h = hit(c);
  if (h) return h.cpuCtx.task;
  let t = infoTasks.get(c.task);
  if (!t) {
    const i = c.task;
    t = { pid: i.pid, tid: i.tid, comm: i.execname, uid: i.uid, gid: i.gid, euid: i.euid, egid: i.egid } as TaskRef;
    infoTasks.set(c.task, t);
  }
  return t;
}

const TS = 'struct task_struct';
function taskField(task: Long, path: string, size: number, signed = true): Long {
  const a = num(task);
  try {
    const f = kmem.fieldOf(TS, path);
    const u = kmem.readUnsigned(a + f.offset, size);
    return canon(signed ? BigInt.asIntN(size * 8, u) : u);
  } catch (e) {
    if (e instanceof KernelFault) throw new StapError(`read fault [man error::fault] at 0x${hexU(e.addr)}`);
    throw e;
  }
}

function credId(c: ProbeContext, t: Long, id: string): number {
  return num(kread(c, 'int', taskPtr(t, 'cred') + kmem.fieldOf('struct cred', id).offset, 4, false));
}

function taskPtr(task: Long, path: string): number {
  return num(taskField(task, path, 8));
}

/**
 * The live task object a task_struct address stands for (its fd table and CPU times change after
 * the struct was laid out); a bad pointer faults as the kernel's field read would.
 */
function liveTask(task: Long): { utime?: number; stime?: number; proc?: { fds?: unknown[] } | null } | undefined {
  taskField(task, 'pid', 4);
  return taskObjectAt(num(task)) as { utime?: number; stime?: number; proc?: { fds?: unknown[] } | null } | undefined;
}

/** task->utime or ->stime (u64 nanoseconds in 6.1) of the task at a task_struct address, live. */
function taskCputime(task: Long, which: 'utime' | 'stime'): number {
  return Math.floor(liveTask(task)?.[which] ?? 0);
}

/** The fd table of the task at a task_struct address (the machine's process fds; [] if unknown). */
function taskFds(task: Long): readonly unknown[] {
  return liveTask(task)?.proc?.fds ?? [];
}

/** signal->rlim[lim].rlim_cur or .rlim_max (RLIM_INFINITY reads as -1, as stap prints it). */
function taskRlimit(c: ProbeContext, task: Long, lim: Long, max: boolean): Long {
  const n = num(lim);
  if (n < 0 || n >= 16) return -1;
  const sig = taskPtr(task, 'signal');
  if (!sig) return -1;
  return kread(c, 'long', sig + kmem.fieldOf('struct signal_struct', 'rlim').offset + 16 * n + (max ? 8 : 0), 8, true);
}

// ---------------------------------------------------------------------------------------------
// memory conversions

function kread(c: ProbeContext, what: string, addr: Long, size: number, signed: boolean): Long {
  const a = num(addr);
  try {
    const u = kmem.readUnsigned(a, size);
    return canon(signed ? BigInt.asIntN(size * 8, u) : u);
  } catch (e) {
    if (e instanceof KernelFault) throw new StapError(`kernel ${what} copy fault at 0x${hexU(a)} [man error::fault]`);
    throw e;
  }
}

function derefRead(space: AddressSpace, size: number, addr: Long): Long {
  const a = num(addr);
  try {
    return canon(space.readUnsigned(a, size));
  } catch (e) {
    if (e instanceof KernelFault) throw readFault(a);
    throw e;
  }
}

/** A guru-mode store into kernel memory (set_kernel_*): a fault is a StapError as stap's kwrite. */
function kwrite(addr: Long, store: () => void): undefined {
  const a = num(addr);
  try {
    if (a === 0) throw new KernelFault(0);
    store();
  } catch (e) {
    if (e instanceof KernelFault) throw new StapError(`kernel write fault at 0x${hexU(a)} [man error::fault]`);
    throw e;
  }
  return undefined;
}

export function kstring(c: ProbeContext, addr: Long, max: number, errMsg?: string): string {
  const a = num(addr);
  try {
    if (a === 0) throw new KernelFault(0);
    return kmem.readString(a, max);
  } catch (e) {
    if (!(e instanceof KernelFault)) throw e;
    if (errMsg !== undefined) return errMsg;
    throw new StapError(`kernel string copy fault at 0x${hexU(a)} [man error::fault]`);
  }
}

export function uspace(c: ProbeContext): AddressSpace {
  return userSpace(c.task.pid);
}

export function ustring(c: ProbeContext, addr: Long, max: number, errMsg?: string): string {
  const a = num(addr);
  try {
    if (a === 0) throw new KernelFault(0, true);
    return uspace(c).readString(a, max);
  } catch (e) {
    if (!(e instanceof KernelFault)) throw e;
    if (errMsg !== undefined) return errMsg;
    throw new StapError(`user string copy fault -14 at 0x${hexU(a)} [man error::fault]`);
  }
}

export function uread(c: ProbeContext, addr: Long, size: number, signed: boolean, err?: string): Long {
  const a = num(addr);
  try {
    const u = uspace(c).readUnsigned(a, size);
    return canon(signed ? BigInt.asIntN(size * 8, u) : u);
  } catch (e) {
    if (!(e instanceof KernelFault)) throw e;
    if (err) throw new StapError(`user ${err} copy fault 0x${hexU(a)} [man error::fault]`);
    return 0;
  }
}

function userStringNQuoted(c: ProbeContext, addr: Long, inlen: Long, outlen: Long, nul: string, fault: string | null): string {
  const a = num(addr);
  if (a === 0) return nul;
  const max = c.engine.maxStringLen - 1;
  let k = num(inlen);
  if (k <= 0 || k > max) k = max;
  try {
    return textStrn(uspace(c).readString(a, k), outlen, 1, max);
  } catch (e) {
    if (e instanceof KernelFault) return fault ?? `0x${hexU(a)}`;
    throw e;
  }
}

export function quote(s: string, max: number, truncated: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    let piece: string;
    if (ch === '"' || ch === '\\') piece = '\\' + ch;
    else if (ch === '\n') piece = '\\n';
    else if (ch === '\t') piece = '\\t';
    else if (ch === '\r') piece = '\\r';
    else if (ch === '\v') piece = '\\v';
    else if (ch === '\f') piece = '\\f';
    else if (ch === '\x07') piece = '\\a';
    else if (ch === '\b') piece = '\\b';
    else if (code < 32 || code >= 127) piece = '\\' + code.toString(8).padStart(3, '0');
    else piece = ch;
    if (out.length + piece.length + 1 > max - 3) {
      return out + '"...';
    }
    out += piece;
  }
  return out + '"' + (truncated ? '...' : '');
}

// ---------------------------------------------------------------------------------------------
// registers / arguments (x86_64 SysV: di si dx cx r8 r9)

const REGS = ['rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9'];

function arg(c: ProbeContext, n: Long, size: number, signed: boolean): Long {
  const h = hit(c);
  if (!h) throw new StapError('cannot access function args in this context');
  const i = num(n);
  if (i < 1 || i > 6) throw new StapError(`Cannot access arg(${i})`);
  const args = h.entryArgs ?? h.args;
  const v = args[i - 1];
  const raw = typeof v === 'number' || typeof v === 'bigint' ? BigInt(typeof v === 'number' ? Math.trunc(v) : v) : BigInt(kmem.addrOf(v, null));
  return canon(signed ? BigInt.asIntN(size * 8, raw) : BigInt.asUintN(size * 8, raw));
}

function retval(c: ProbeContext): Long {
  const h = hit(c);
  if (!h || !c.isReturn) throw new StapError('cannot access return value in this context');
  const v = retvalOf(h.regs);
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'bigint') return canon(v);
  if (v === undefined || v === null) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return kmem.addrOf(v, null);
}

function returnStr(ret: Long, fmt: Long): string {
  const r = num(ret);
  if (r < 0 && r >= -4095) {
    const name = errnoName(-r);
    if (name) return `${r} (${name})`;
  }
  const f = num(fmt);
  if (f === 2) return '0x' + hexU(ret);
  if (f === 3) return '0' + BigInt.asUintN(64, BigInt(ret)).toString(8);
  return String(ret);
}

// ---------------------------------------------------------------------------------------------

export const kernelBuiltins: Record<string, Builtin> = {
  __tv: (c, plan: Plan, ...rest: unknown[]) => evalTarget(c, plan, ...rest) as Long | string,

  // probe point / symbols
  probefunc: (c) => {
    const h = hit(c);
    // an inline instance runs inside its caller's symbol: stap reads the name from the probe point
    if (h && h.fn !== INLINE_FN && (h.addr || h.regs.ip)) return symname(h.addr || h.regs.ip);
    const m = /(?:function|statement)\("([^"@]*)/.exec(c.pp);
    return m ? m[1] : '';
  },
  probemod: (c) => {
    const m = /^module\("([^"]*)"\)/.exec(c.pp);
    if (m) return m[1];
    if (hit(c) && (hit(c)!.addr || hit(c)!.regs.ip)) return 'kernel';
    throw new StapError('Cannot determine kernel module name');
  },
  addr: (c) => {
    const h = hit(c);
    return h ? h.addr || h.regs.ip : 0;
  },
  uaddr: () => 0,
  caller_addr: (c) => {
    const s = stack(c);
    return s.length > 1 ? s[1] : 0;
  },
  caller: (c) => {
    const s = stack(c);
    const a = s.length > 1 ? s[1] : 0;
    return `${symname(a)} 0x${hexU(a)}`;
  },
  callers: (c, n: Long) => {
    const s = stack(c).slice(1);
    const k = num(n) < 0 ? s.length : Math.min(s.length, num(n));
    return s.slice(0, k).map((a) => '0x' + hexU(a)).join(' ');
  },
  stack: (c, n: Long) => {
    const s = stack(c);
    const i = num(n);
    if (i < 0 || i >= s.length) throw new StapError(`cannot find stack frame ${i}`);
    return s[i];
  },
  backtrace: (c) => stack(c).map((a) => '0x' + hexU(a)).join(' '),
  print_backtrace: (c) => {
    let out = '';
    const h = hit(c);
    const s = stack(c);
    if (c.isReturn && h) {
      out += `Returning from: ${stackLine(h.addr).slice(1)}`;
      out += `Returning to  : ${s.length > 1 ? stackLine(s[1]).slice(1) : '\n'}`;
    }
    for (const a of c.isReturn ? s.slice(1) : s) out += stackLine(a);
    c.engine.out(out);
  },
  sprint_backtrace: (c) => stack(c).map((a) => `${symOff(a).replace(/\/0x[0-9a-f]+$/, '')} ${modTag(a)}\n`).join(''),
  print_stack: (c, s: string) => {
    c.engine.out(parseStack(s).map(stackLine).join(''));
  },
  sprint_stack: (c, s: string) => parseStack(s).map((a) => stackLine(a)).join(''),
  symname: (c, a: Long) => symname(num(a)),
  symdata: (c, a: Long) => `${symOff(num(a))} ${modTag(num(a))}`,
  modname: (c, a: Long) => {
    const p = lookupAddr(num(a));
    if (!p) throw new StapError(`No module found for address 0x${hexU(a)}`);
    return symbolModule(p.id) || 'kernel';
  },
  usymname: (c, a: Long) => `0x${hexU(a)}`,
  usymdata: (c, a: Long) => `0x${hexU(a)}`,

  // tasks
  task_current: (c) => kmem.addrOf(currentTaskRef(c)),
  task_parent: (c, t: Long) => taskPtr(t, 'real_parent'),
  task_pid: (c, t: Long) => taskField(t, 'tgid', 4),
  task_tgid: (c, t: Long) => taskField(t, 'tgid', 4),
  task_tid: (c, t: Long) => taskField(t, 'pid', 4),
  task_ns_pid: (c, t: Long) => taskField(t, 'tgid', 4),
  task_ns_tid: (c, t: Long) => taskField(t, 'pid', 4),
  // the parent process' comm (task_execname(task_parent(task_current()))), from the task table
  // (without a machine the only task is stapio's, whose parent is the stap process)
  pexecname: (c) => taskByPid(c, c.task.ppid)?.comm ?? (!taskLookup && c.task.execname === 'stapio' ? 'stap' : ''),
  task_execname: (c, t: Long) => {
    const f = kmem.fieldOf(TS, 'comm');
    return kstring(c, num(t) + f.offset, 15);
  },
  task_state: (c, t: Long) => taskField(t, '__state', 4, false),
  task_prio: (c, t: Long) => num(taskField(t, 'prio', 4)) - 100,
  task_nice: (c, t: Long) => num(taskField(t, 'static_prio', 4)) - 120,
  task_cpu: (c, t: Long) => {
    const p = kmem.boundAddr(currentTaskRef(c));
    void p;
    return taskField(t, 'recent_used_cpu', 4);
  },
  __task_utime: (c, t: Long) => taskCputime(t, 'utime'),
  __task_stime: (c, t: Long) => taskCputime(t, 'stime'),
  task_open_file_handles: (c, t: Long) => taskFds(t).reduce((n: number, f) => (f ? n + 1 : n), 0),
  task_max_file_handles: (c, t: Long) => {
    // fdtable max_fds: NR_OPEN_DEFAULT (64), grown to the next power of two (expand_fdtable)
    let m = 64;
    while (m < taskFds(t).length) m *= 2;
    return m;
  },
  task_rlimit_cur: (c, t: Long, lim: Long) => taskRlimit(c, t, lim, false),
  task_rlimit_max: (c, t: Long, lim: Long) => taskRlimit(c, t, lim, true),
  task_uid: (c, t: Long) => credId(c, t, 'uid'),
  task_gid: (c, t: Long) => credId(c, t, 'gid'),
  task_euid: (c, t: Long) => credId(c, t, 'euid'),
  task_egid: (c, t: Long) => credId(c, t, 'egid'),
  // task.stp reads these of `current` (from_target_user_ns(current, ...)), whatever task is given;
  // the simulated machine has the initial user namespace only
  task_ns_uid: (c) => credId(c, kmem.addrOf(currentTaskRef(c)), 'uid'),
  task_ns_gid: (c) => credId(c, kmem.addrOf(currentTaskRef(c)), 'gid'),
  task_ns_euid: (c) => credId(c, kmem.addrOf(currentTaskRef(c)), 'euid'),
  task_ns_egid: (c) => credId(c, kmem.addrOf(currentTaskRef(c)), 'egid'),

  // conversions
  kernel_string: (c, a: Long, err?: string) => kstring(c, a, c.engine.maxStringLen - 1, err),
  kernel_string_n: (c, a: Long, n: Long) => kstring(c, a, Math.max(0, Math.min(num(n), c.engine.maxStringLen - 1))),
  kernel_string_quoted: (c, a: Long) => {
    try {
      if (num(a) === 0) return '0x0';
      const max = c.engine.maxStringLen - 1;
      const s = kmem.readString(num(a), max + 1);
      return quote(s.slice(0, max), c.engine.maxStringLen, s.length > max);
    } catch (e) {
      if (e instanceof KernelFault) return '0x' + hexU(a);
      throw e;
    }
  },
  /** @kderef(size, addr) / @uderef(size, addr): unsigned reads; a fault is loc2c's read fault */
  __kderef: (c, size: Long, a: Long) => derefRead(kmem, num(size), a),
  __uderef: (c, size: Long, a: Long) => derefRead(uspace(c), num(size), a),
  set_kernel_string: (c, a: Long, v: string) => kwrite(a, () => kmem.writeBytes(num(a), v)),
  set_kernel_string_n: (c, a: Long, n: Long, v: string) => kwrite(a, () => kmem.writeBytes(num(a), v.slice(0, Math.max(0, num(n))))),
  set_kernel_long: (c, a: Long, v: Long) => kwrite(a, () => kmem.writeUnsigned(num(a), 8, v)),
  set_kernel_int: (c, a: Long, v: Long) => kwrite(a, () => kmem.writeUnsigned(num(a), 4, v)),
  set_kernel_short: (c, a: Long, v: Long) => kwrite(a, () => kmem.writeUnsigned(num(a), 2, v)),
  set_kernel_char: (c, a: Long, v: Long) => kwrite(a, () => kmem.writeUnsigned(num(a), 1, v)),
  set_kernel_pointer: (c, a: Long, v: Long) => kwrite(a, () => kmem.writeUnsigned(num(a), 8, v)),
  kernel_long: (c, a: Long) => kread(c, 'long', a, 8, true),
  kernel_int: (c, a: Long) => kread(c, 'int', a, 4, true),
  kernel_short: (c, a: Long) => kread(c, 'short', a, 2, true),
  kernel_char: (c, a: Long) => kread(c, 'char', a, 1, true),
  kernel_pointer: (c, a: Long) => kread(c, 'pointer', a, 8, false),
  user_string: (c, a: Long, err?: string) => ustring(c, a, c.engine.maxStringLen - 1, err),
  user_string_n: (c, a: Long, n: Long, err?: string) => ustring(c, a, Math.max(0, Math.min(num(n), c.engine.maxStringLen - 1)), err),
  user_string_nofault: (c, a: Long) => ustring(c, a, c.engine.maxStringLen - 1, ''),
  user_string_quoted: (c, a: Long) => {
    if (num(a) === 0) return 'NULL';
    try {
      const max = c.engine.maxStringLen - 1;
      const s = uspace(c).readString(num(a), max + 1);
      return quote(s.slice(0, max), c.engine.maxStringLen, s.length > max);
    } catch (e) {
      if (e instanceof KernelFault) return `0x${hexU(a)}`;
      throw e;
    }
  },
  // user_string_n_quoted(addr, inlen, outlen) before 3.0 (--compatible): the runtime's
  // _stp_text_str; address 0 is "(null)" ("NULL" before 2.3), a fault the address in hex
  // ("<unknown>" before 2.3)
  __user_string_n_quoted_pre30: (c, a: Long, inlen: Long, outlen: Long) => userStringNQuoted(c, a, inlen, outlen, '(null)', null),
  __user_string_n_quoted_pre23: (c, a: Long, inlen: Long, outlen: Long) => userStringNQuoted(c, a, inlen, outlen, 'NULL', '<unknown>'),
  user_char_error: (c, a: Long) => uread(c, a, 1, true, 'char'),
  user_short_error: (c, a: Long) => uread(c, a, 2, true, 'short'),
  user_int_error: (c, a: Long) => uread(c, a, 4, true, 'int'),
  user_long_error: (c, a: Long) => uread(c, a, 8, true, 'long'),

  // registers / args
  int_arg: (c, n: Long) => arg(c, n, 4, true),
  uint_arg: (c, n: Long) => arg(c, n, 4, false),
  long_arg: (c, n: Long) => arg(c, n, 8, true),
  ulong_arg: (c, n: Long) => arg(c, n, 8, false),
  longlong_arg: (c, n: Long) => arg(c, n, 8, true),
  ulonglong_arg: (c, n: Long) => arg(c, n, 8, false),
  pointer_arg: (c, n: Long) => arg(c, n, 8, false),
  s32_arg: (c, n: Long) => arg(c, n, 4, true),
  u32_arg: (c, n: Long) => arg(c, n, 4, false),
  s64_arg: (c, n: Long) => arg(c, n, 8, true),
  u64_arg: (c, n: Long) => arg(c, n, 8, false),
  asmlinkage: () => undefined,
  normal: () => undefined,
  fastcall: () => undefined,
  regparm: () => undefined,
  register: (c, name: string) => {
    const h = hit(c);
    if (!h) throw new StapError('cannot access registers in this context');
    const n = name.replace(/^%/, '');
    const i = REGS.indexOf(n.length === 2 && !/^r\d/.test(n) ? 'r' + n : n);
    if (i >= 0) return arg(c, i + 1, 8, true);
    if (n === 'rax' || n === 'ax') return c.isReturn ? retval(c) : 0;
    if (n === 'rip' || n === 'ip') return h.regs.ip;
    throw new StapError(`Unknown register: ${name}`);
  },
  u_register: (c, name: string) => {
    const v = kernelBuiltins.register(c, name) as Long;
    return canon(BigInt.asUintN(64, BigInt(v)));
  },
  returnval: (c) => retval(c),
  returnstr: (c, fmt: Long) => {
    const h = hit(c);
    if (!h || !c.isReturn) return 'N/A';
    return returnStr(retval(c), fmt);
  },
  errno_str: (c, e: Long) => {
    const n = Math.abs(num(e));
    // errno.stp copies the name when errlist has one (nothing otherwise)
    return errnoName(n);
  },
  // pid -> task
  pid2task: (c, pid: Long) => {
    const t = taskByPid(c, num(pid));
    return t ? kmem.addrOf(t) : 0;
  },
  pid2execname: (c, pid: Long) => taskByPid(c, num(pid))?.comm ?? '',
};

/** kallsyms-based symbol address (for tests). */
export function functionAddr(name: string): number {
  const id = lookupName(name).find(isFunction);
  return id === undefined ? 0 : symbolAddr(id);
}
