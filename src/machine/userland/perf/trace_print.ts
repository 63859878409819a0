/**
 * perf trace's strace-like lines (linux-perf 6.1 builtin-trace.c, without BPF augmentation), one per
 * system call of the traced threads, printed when the call returns:
 *
 *    591.605 ( 5.343 ms): cat/230 read(fd: 3, buf: 0x7fed27511000, count: 131072)                       = 3
 *    602.823 (         ): cat/230 exit_group()                                                          = ?
 *
 * the time in ms since the first event, the duration, comm/tid, the call with its arguments named
 * as in the syscall's tracepoint format (zero arguments left out; perf's beautifiers for fds, flags,
 * protections, signals ...), the result column at 70, errors as `-1 ENOENT (No such file or
 * directory)`.  A call interrupted by another thread's is printed at once ending in ` ...`, and its
 * return later as ` ... [continued]: NAME())`.  Formats from test/fixtures/tracefs-real/perf_trace.
 */
import type { DecodedSample } from './report';
import { errnoName } from '../../../kernel/errno';

/** An argument as the syscall's tracepoint format names and types it. */
export interface TraceArg { name: string; type: string }

const ALIGN = 70;

const STRERROR: Record<number, string> = {
  1: 'Operation not permitted', 2: 'No such file or directory', 3: 'No such process', 4: 'Interrupted system call',
  5: 'Input/output error', 6: 'No such device or address', 7: 'Argument list too long', 8: 'Exec format error',
  9: 'Bad file descriptor', 10: 'No child processes', 11: 'Resource temporarily unavailable', 12: 'Cannot allocate memory',
  13: 'Permission denied', 14: 'Bad address', 16: 'Device or resource busy', 17: 'File exists', 18: 'Invalid cross-device link',
  19: 'No such device', 20: 'Not a directory', 21: 'Is a directory', 22: 'Invalid argument', 24: 'Too many open files',
  25: 'Inappropriate ioctl for device', 27: 'File too large', 28: 'No space left on device', 29: 'Illegal seek',
  30: 'Read-only file system', 32: 'Broken pipe', 34: 'Numerical result out of range', 36: 'File name too long',
  38: 'Function not implemented', 39: 'Directory not empty', 40: 'Too many levels of symbolic links', 61: 'No data available',
  95: 'Operation not supported', 110: 'Connection timed out', 111: 'Connection refused',
};

const flagNames = (v: number, names: [number, string][], zero?: string): string => {
  if (v === 0 && zero) return zero;
  const out: string[] = [];
  let rest = v;
  for (const [bit, n] of names) if (bit && (rest & bit) === bit) { out.push(n); rest &= ~bit; }
  if (rest) out.push(`0x${rest.toString(16)}`);
  return out.join('|');
};

const PROT: [number, string][] = [[1, 'READ'], [2, 'WRITE'], [4, 'EXEC'], [0x1000000, 'GROWSDOWN'], [0x2000000, 'GROWSUP']];
const MAP: [number, string][] = [[1, 'SHARED'], [2, 'PRIVATE'], [0x10, 'FIXED'], [0x20, 'ANONYMOUS'], [0x100, 'GROWSDOWN'],
  [0x800, 'DENYWRITE'], [0x1000, 'EXECUTABLE'], [0x2000, 'LOCKED'], [0x4000, 'NORESERVE'], [0x8000, 'POPULATE'],
  [0x10000, 'NONBLOCK'], [0x20000, 'STACK'], [0x40000, 'HUGETLB'], [0x100000, 'FIXED_NOREPLACE']];
const OPEN: [number, string][] = [[0x40, 'CREAT'], [0x80, 'EXCL'], [0x100, 'NOCTTY'], [0x200, 'TRUNC'], [0x400, 'APPEND'],
  [0x800, 'NONBLOCK'], [0x1000, 'DSYNC'], [0x2000, 'ASYNC'], [0x4000, 'DIRECT'], [0x8000, 'LARGEFILE'], [0x10000, 'DIRECTORY'],
  [0x20000, 'NOFOLLOW'], [0x40000, 'NOATIME'], [0x80000, 'CLOEXEC'], [0x101000, 'SYNC'], [0x200000, 'PATH'], [0x410000, 'TMPFILE']];
const RLIMIT = ['CPU', 'FSIZE', 'DATA', 'STACK', 'CORE', 'RSS', 'NPROC', 'NOFILE', 'MEMLOCK', 'AS', 'LOCKS', 'SIGPENDING', 'MSGQUEUE', 'NICE', 'RTPRIO', 'RTTIME'];
const SIGNALS = ['', 'HUP', 'INT', 'QUIT', 'ILL', 'TRAP', 'ABRT', 'BUS', 'FPE', 'KILL', 'USR1', 'SEGV', 'USR2', 'PIPE', 'ALRM', 'TERM',
  'STKFLT', 'CHLD', 'CONT', 'STOP', 'TSTP', 'TTIN', 'TTOU', 'URG', 'XCPU', 'XFSZ', 'VTALRM', 'PROF', 'WINCH', 'IO', 'PWR', 'SYS'];
const WHENCE = ['SET', 'CUR', 'END', 'DATA', 'HOLE'];
const ACCESS: [number, string][] = [[4, 'R'], [2, 'W'], [1, 'X']];
const WAIT: [number, string][] = [[1, 'NOHANG'], [2, 'UNTRACED'], [8, 'CONTINUED'], [0x1000000, 'NOWAIT'], [0x40000000, 'NOTHREAD'],
  [0x20000000, 'ALL'], [0x80000000, 'CLONE']];
const GETRANDOM: [number, string][] = [[1, 'NONBLOCK'], [2, 'RANDOM'], [4, 'INSECURE']];
const CLONE: [number, string][] = [[0x100, 'VM'], [0x200, 'FS'], [0x400, 'FILES'], [0x800, 'SIGHAND'], [0x1000, 'PIDFD'],
  [0x2000, 'PTRACE'], [0x4000, 'VFORK'], [0x8000, 'PARENT'], [0x10000, 'THREAD'], [0x20000, 'NEWNS'], [0x40000, 'SYSVSEM'],
  [0x80000, 'SETTLS'], [0x100000, 'PARENT_SETTID'], [0x200000, 'CHILD_CLEARTID'], [0x400000, 'DETACHED'], [0x800000, 'UNTRACED'],
  [0x1000000, 'CHILD_SETTID'], [0x2000000, 'NEWCGROUP'], [0x4000000, 'NEWUTS'], [0x8000000, 'NEWIPC'], [0x10000000, 'NEWUSER'],
  [0x20000000, 'NEWPID'], [0x40000000, 'NEWNET'], [0x80000000, 'IO']];
const AT_FDCWD = -100;

/** Calls whose arguments perf names itself (syscall_fmts' .arg[].name) */
const ARG_NAMES: Record<string, string[]> = { clone: ['flags', 'child_stack', 'parent_tidptr', 'child_tidptr', 'tls'] };
/** Calls returning a pid, printed with that task's comm (fmt->errpid) */
const ERRPID = new Set(['clone', 'clone3', 'fork', 'vfork', 'wait4', 'waitid']);

/** Calls whose result perf prints in hex (fmt->hexret). */
const HEXRET = new Set(['brk', 'mmap', 'mremap', 'shmat']);

type Fmt = (v: number) => string;

const hex: Fmt = (v) => `0x${BigInt.asUintN(64, BigInt(v)).toString(16)}`;
const dec: Fmt = (v) => String(v);
const strarray = (names: readonly string[]): Fmt => (v) => names[v] || String(v);

/** perf 6.1's beautifier of argument `i` of `call` (syscall_fmts, then the name/type rules of syscall__set_arg_fmts). */
function formatterOf(call: string, i: number, a: TraceArg): Fmt {
  const special: Record<string, Record<number, Fmt>> = {
    mmap: { 2: (v) => flagNames(v, PROT, 'NONE'), 3: (v) => flagNames(v, MAP), 5: hex },
    mprotect: { 0: hex, 2: (v) => flagNames(v, PROT, 'NONE') },
    clone: { 0: (v) => flagNames(v, CLONE), 1: hex, 2: hex, 3: hex, 4: hex },
    brk: { 0: hex },
    prlimit64: { 1: strarray(RLIMIT) },
    getrlimit: { 0: strarray(RLIMIT) },
    setrlimit: { 0: strarray(RLIMIT) },
    getrandom: { 2: (v) => flagNames(v, GETRANDOM) },
    open: { 1: (v) => flagNames(v, OPEN, 'RDONLY') },
    openat: { 2: (v) => flagNames(v, OPEN, 'RDONLY') },
    kill: { 1: strarray(SIGNALS) },
    tgkill: { 2: strarray(SIGNALS) },
    tkill: { 1: strarray(SIGNALS) },
    rt_sigaction: { 0: strarray(SIGNALS) },
    lseek: { 2: strarray(WHENCE) },
    access: { 1: (v) => flagNames(v, ACCESS, 'F') },
    faccessat: { 2: (v) => flagNames(v, ACCESS, 'F') },
    faccessat2: { 2: (v) => flagNames(v, ACCESS, 'F') },
    wait4: { 2: (v) => flagNames(v, WAIT) },
  };
  const f = special[call]?.[i];
  if (f) return f;
  const n = a.name;
  if (n === 'dfd' || n === 'olddfd' || n === 'newdfd') return (v) => (v === AT_FDCWD ? 'CWD' : String(v));
  // an unaugmented filename: its pointer, printed with %#x (the low 32 bits)
  if (a.type === 'const char *' && (n.endsWith('name') || n.includes('path'))) return (v) => `0x${(Number(BigInt.asUintN(32, BigInt(v)))).toString(16)}`;
  if (a.type.includes('*') || n.includes('addr')) return hex;
  return dec;
}

/** Arguments that are always shown, zero included (perf's show_zero, and string arrays with a name for 0). */
function showsZero(call: string, i: number): boolean {
  return (call === 'mmap' && i === 2) || (call === 'mprotect' && i === 2) || (call === 'prlimit64' && i === 1)
    || (call === 'lseek' && i === 2) || ((call === 'access') && i === 1) || (call.startsWith('faccessat') && i === 2);
}

/** `name(arg: value, ...` as perf's syscall__scnprintf_args makes it (without the closing parenthesis). */
export function entryString(call: string, args: readonly TraceArg[], vals: readonly number[]): string {
  const parts: string[] = [];
  let mask = 0;
  args.forEach((a, i) => {
    if (mask & (1 << i)) return;
    const v = vals[i] ?? 0;
    if (v === 0 && !showsZero(call, i)) return;
    // anonymous mappings: fd and offset are ignored by the kernel and not shown
    if (call === 'mmap' && i === 3 && v & 0x20) mask |= (1 << 4) | (1 << 5);
    parts.push(`${ARG_NAMES[call]?.[i] ?? a.name}: ${formatterOf(call, i, a)(v)}`);
  });
  return `${call}(${parts.join(', ')}`;
}

function retString(call: string, ret: number, commOf: (tid: number) => string | undefined): string {
  if (ret < 0 && ret > -4096) return `-1 ${errnoName(-ret)} (${STRERROR[-ret] ?? `Unknown error ${-ret}`})`;
  if (ERRPID.has(call) && ret > 0) {
    const c = commOf(ret);
    return c === undefined ? String(ret) : `${ret} (${c})`;
  }
  return HEXRET.has(call) ? hex(ret) : String(ret);
}

interface Pending { call: string; str: string; at: number; comm: string }

/**
 * The lines of perf trace for the raw_syscalls sys_enter samples (raw: nr, id, the six argument
 * registers) and sys_exit samples (raw: nr, ret), `name` a syscall's name, `args` its arguments.
 */
export function formatTraceLines(enter: readonly DecodedSample[], exit: readonly DecodedSample[], name: (nr: number) => string,
  args: (call: string) => readonly TraceArg[]): string {
  const ev = [...enter.map((s) => ({ s, exit: false })), ...exit.map((s) => ({ s, exit: true }))]
    .sort((a, b) => a.s.time - b.s.time || (a.exit ? 1 : 0) - (b.exit ? 1 : 0));
  if (!ev.length) return '';
  const base = ev[0].s.time;
  /** per thread: its call not yet printed, and the call printed as interrupted (to be continued) */
  const pending = new Map<number, Pending>();
  const interrupted = new Map<number, Pending>();
  let current = -1;
  let out = '';
  /** each thread's comm as last seen (a new child: its parent's, as perf's fork record copies it) */
  const comms = new Map<number, string>();
  const head = (comm: string, tid: number, at: number, dur: number | null): string => {
    const ts = at > 0 ? `${((at - base) / 1e6).toFixed(3).padStart(10)} ` : '         ? ';
    return `${ts}(${dur === null ? '         ' : `${(dur / 1e6).toFixed(3).padStart(6)} ms`}): ${comm.slice(0, 14)}/${tid} `;
  };
  for (const { s, exit: isExit } of ev) {
    // no syscall number (a new task's first return): perf finds no syscall and skips the event
    if (!((s.raw[0] ?? -1) >= 0)) continue;
    const call = name(s.raw[0]);
    comms.set(s.tid, s.comm);
    if (!isExit) {
      // the previous thread's call still open is printed now, to be continued
      const cur = pending.get(current);
      if (current !== s.tid && cur) {
        const len = cur.str.length + 1;
        out += `${head(cur.comm, current, cur.at, null)}${cur.str})${len < ALIGN - 4 ? ' '.repeat(ALIGN - 4 - len) : ''} ...\n`;
        pending.delete(current);
        interrupted.set(current, cur);
      }
      const str = entryString(call, args(call), s.raw.slice(2, 8));
      if (call === 'exit_group' || call === 'exit') {
        out += `${head(s.comm, s.tid, s.time, null)}${str})${' '.repeat(Math.max(ALIGN - str.length - 1, 1))}= ?\n`;
      } else pending.set(s.tid, { call, str, at: s.time, comm: s.comm });
      current = s.tid;
      continue;
    }
    const ret = s.raw[1] ?? 0;
    const p = pending.get(s.tid);
    let h: string, body: string;
    if (p && p.call === call) {
      h = head(s.comm, s.tid, p.at, s.time - p.at);
      body = p.str;
      pending.delete(s.tid);
    } else {
      // the end of a call printed as interrupted, or one entered before tracing began (execve)
      const i = interrupted.get(s.tid);
      const at = i && i.call === call ? i.at : 0;
      interrupted.delete(s.tid);
      h = head(s.comm, s.tid, at, at ? s.time - at : null);
      body = ` ... [continued]: ${call}()`;
    }
    out += `${h}${body})${' '.repeat(Math.max(ALIGN - body.length - 1, 1))}= ${retString(call, ret, (t) => comms.get(t) ?? (ERRPID.has(call) && call !== 'wait4' && call !== 'waitid' ? s.comm : undefined))}\n`;
  }
  return out;
}
