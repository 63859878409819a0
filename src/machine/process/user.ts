/**
 * User mode: running a task's program (a generator of ops) and the small "libc" programs use
 * to issue system calls (`yield* u.read(fd, n)`).
 */
import type { Cpu } from '../include/cpu';
import type { Task, Op, Prog, SysResult } from '../include/sched';
import type { Env, CompiledPath } from '../include/kstack';
import type { SwapDev } from '../include/mm_types';
import { O_RDONLY } from '../include/fs';
import type { StatInfo } from '../include/fs';
import type { MmMachine } from '../mm/mm';
import { pushPath } from '../paths/kexec';
import { path } from '../paths/dsl';
import { syscallNumber } from '../../kernel/syscalls';

/**
 * What programs read of the machine directly instead of through system calls: the clock, the
 * host name, the boot time, the swap devices (swapon -a) and the task list (ps).  To be replaced
 * by reads of /proc.
 */
export interface UserMachine {
  readonly now: number;
  readonly hostname: string;
  readonly bootNs: number;
  readonly ncpus: number;
  readonly mm: { readonly swaps: readonly SwapDev[] };
  readonly procs: { list(): Task[]; listed(tid: number): boolean };
}

export type ProgramMain = (u: U, argv: string[]) => Prog;

const nrCache = new Map<string, number>();
export function syscallNr(name: string): number {
  let n = nrCache.get(name);
  if (n === undefined) {
    n = syscallNumber(name);
    nrCache.set(name, n);
  }
  return n;
}

let syscallPath: CompiledPath | null = null;
const CLONE_CHILD_CLEARTID = 0x200000, CLONE_CHILD_SETTID = 0x1000000;

/** what a task whose exit_group ended the run does until the machine stops: user-mode time */
const RUN_ENDED: Op = { k: 'cpu', ns: Infinity };

/** Run user mode of `t` on `c` until `until` or until it enters the kernel. */
export function runUser(m: MmMachine, c: Cpu, t: Task, until: number): void {
  if (t.op === null) {
    const prog = t.prog;
    if (!prog) throw new Error(`task ${t.tid} has no program`);
    const r = prog.next(t.lastResult);
    if (r.done) t.op = { k: 'sys', name: 'exit_group', a: [r.value | 0] };
    else {
      t.op = r.value;
      if (r.value.k === 'cpu') t.opLeft = r.value.ns * m.cpuSlowdown;
    }
  }
  const op = t.op as Op;
  if (op.k === 'sys') {
    if (t.proc.atExitGroup !== null && op.name === 'exit_group' && t.proc.atExitGroup(t, Number(op.a[0]))) {
      // the run ends here (process/session.ts): the task stays in user mode until the caller stops
      t.op = RUN_ENDED;
      t.opLeft = Infinity;
      return;
    }
    // newEnv(name, { nr, a }) without the intermediate objects (same properties, same order)
    const env: Env = { name: op.name, nr: syscallNr(op.name), a: op.a, ret: 0, rv: 0 };
    if (op.extra) Object.assign(env, op.extra);
    t.op = null;
    pushPath(t.ks, syscallPath ?? (syscallPath = path('syscall')), env);
    return;
  }
  if (op.k === 'cpu') {
    const d = Math.max(1, Math.min(t.opLeft, until - m.now));
    m.now += d;
    t.opLeft -= d;
    if (t.opLeft <= 0) { t.op = null; t.lastResult = { ret: 0 }; }
    return;
  }
  // touch: fault in what is missing; mm pushes the fault path when needed
  if (m.mm.touch(c, t, op)) { t.op = null; t.lastResult = { ret: 0 }; }
}

export function toBytes(s: string | Uint8Array): Uint8Array {
  return typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
}
export function bytesToString(b: Uint8Array | undefined): string {
  return b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1') : '';
}

/** The per-process "libc": generator helpers issuing system calls. */
export class U {
  constructor(readonly m: UserMachine, readonly t: Task) {}
  private mallocReady = false;
  /** stdout's stdio buffer: unset until the first output, then line (a terminal) or full (BUFSIZ = st_blksize) */
  private outMode: '' | 'line' | 'full' | 'none' = '';
  private outBuf = '';
  private outSize = 4096;
  /**
   * malloc's first call (glibc 2.36 malloc/malloc.c): tcache_key_initialize's getrandom(8,
   * GRND_NONBLOCK), then sbrk of the main arena: brk(NULL), brk(+132 KiB).
   */
  *malloc(): Generator<Op, void, SysResult> {
    if (this.mallocReady) return;
    this.mallocReady = true;
    yield* this.sys('getrandom', [0, 8, 1]);
    const cur = (yield* this.sys('brk', [0])).ret;
    this.brkTop = (yield* this.sys('brk', [cur + 0x21000])).ret;
  }
  /** the program break as malloc last set it (0: malloc has not run) */
  private brkTop = 0;
  /**
   * malloc growing the main arena by `inc` bytes (sysmalloc's sbrk: the request that did not fit the top
   * chunk, plus M_TOP_PAD's 128 KiB, page-aligned): brk(top + inc)
   */
  *sbrk(inc: number): Generator<Op, void, SysResult> {
    yield* this.malloc();
    this.brkTop = (yield* this.sys('brk', [this.brkTop + inc])).ret;
  }
  /** isatty(fd): ioctl(fd, TCGETS) */
  *isatty(fd: number): Generator<Op, boolean, SysResult> {
    return (yield* this.sys('ioctl', [fd, 0x5401, 0])).ret === 0;
  }
  /**
   * stdio output on stdout (libio): the first output allocates the buffer (fstat of fd 1; a
   * character device is asked TCGETS and, a terminal, is line buffered: a write per completed line
   * batch); other files are fully buffered by st_blksize.
   */
  *printf(s: string): Generator<Op, void, SysResult> {
    if (!this.outMode) {
      // _IO_file_doallocate: fstat of fd 1 and, for a character device, isatty; then the buffer's malloc
      const st = yield* this.fstat(1);
      if (typeof st === 'number') this.outMode = 'full';
      else this.outMode = st.isChr && (yield* this.isatty(1)) ? 'line' : 'full';
      if (this.lineBuffered) this.outMode = 'line';
      yield* this.malloc();
    }
    this.outBuf += s;
    if (this.outMode === 'line') {
      const nl = this.outBuf.lastIndexOf('\n');
      if (nl >= 0 || this.outBuf.length >= 1024) {
        const cut = nl >= 0 ? nl + 1 : this.outBuf.length;
        yield* this.writeAll(1, this.outBuf.slice(0, cut));
        this.outBuf = this.outBuf.slice(cut);
      }
      return;
    }
    while (this.outBuf.length >= this.outSize) {
      yield* this.writeAll(1, this.outBuf.slice(0, this.outSize));
      this.outBuf = this.outBuf.slice(this.outSize);
    }
  }
  /** setlinebuf(stdout): line buffered whatever stdout is (the buffer still allocated, as above, on the first output) */
  private lineBuffered = false;
  setlinebuf(): void {
    this.lineBuffered = true;
    if (this.outMode) this.outMode = 'line';
  }
  /**
   * A fork's child: a copy of the parent's memory, so its malloc arena is set up and its stdout buffer
   * holds what the parent had not written yet (written by whichever process flushes it).
   */
  inheritStdio(parent: U): void {
    this.mallocReady = parent.mallocReady;
    this.outMode = parent.outMode;
    this.outBuf = parent.outBuf;
    this.outSize = parent.outSize;
    this.lineBuffered = parent.lineBuffered;
  }
  *fflush(): Generator<Op, void, SysResult> {
    if (this.outBuf) { const b = this.outBuf; this.outBuf = ''; yield* this.writeAll(1, b); }
  }
  /** gnulib's close_stdout (atexit of coreutils): flush stdout, close(1), close(2) */
  *closeStdout(): Generator<Op, void, SysResult> {
    yield* this.fflush();
    yield* this.close(1);
    yield* this.close(2);
  }
  get pid(): number { return this.t.pid; }
  get argv(): string[] { return this.t.proc.argv; }
  *sys(name: string, a: unknown[], extra?: Record<string, unknown>): Generator<Op, SysResult, SysResult> {
    const r: SysResult = yield { k: 'sys', name, a, extra };
    if (this.handled) yield* this.sigreturns(name, r);
    return r;
  }
  /** handlers of `catchSignal` that ran on the way back to user mode and have not returned yet */
  private handled = 0;
  /**
   * The end of each handler that ran after syscall `name` (a signal delivered on its way back to user
   * mode): rt_sigreturn, which gives back the interrupted call's result and the mask of before the
   * handler (after rt_sigsuspend, the mask the call replaced).
   */
  private *sigreturns(name: string, r: SysResult): Generator<Op, void, SysResult> {
    const set = name === 'rt_sigsuspend' ? (r.info?.old as number | undefined) : undefined;
    while (this.handled > 0) {
      this.handled--;
      yield { k: 'sys', name: 'rt_sigreturn', a: [], extra: set === undefined ? { restore: r.ret } : { restore: r.ret, set } };
    }
  }
  /**
   * sigaction(sig, handler) for a handler that returns (a C function: its end is rt_sigreturn, which
   * this U issues after the syscall the signal interrupted)
   */
  *catchSignal(sig: number, h: (sig: number) => void): Generator<Op, number, SysResult> {
    return yield* this.sigaction(sig, (s: number) => { this.handled++; h(s); });
  }
  *cpu(ns: number): Generator<Op, void, SysResult> {
    if (ns > 0) yield { k: 'cpu', ns };
  }
  *touch(region: string, first: number, count: number, write: boolean): Generator<Op, void, SysResult> {
    yield { k: 'touch', region, first, count, write };
  }
  /** read(2) of n bytes (into the user buffer at `buf` when the program names one: a mapping of its own, which the call faults in) */
  *read(fd: number, n: number, buf = 0): Generator<Op, SysResult, SysResult> { return yield* this.sys('read', [fd, buf, n]); }
  *pread(fd: number, n: number, off: number): Generator<Op, SysResult, SysResult> { return yield* this.sys('pread64', [fd, 0, n, off]); }
  *write(fd: number, data: string | Uint8Array): Generator<Op, SysResult, SysResult> {
    const b = toBytes(data);
    return yield* this.sys('write', [fd, 0, b.length], { buf: b });
  }
  *pwrite(fd: number, data: Uint8Array, off: number): Generator<Op, SysResult, SysResult> {
    return yield* this.sys('pwrite64', [fd, 0, data.length, off], { buf: data });
  }
  /**
   * write all of data: one write(2) (dd's 8 MiB block to /dev/null is one call); to a pipe or a socket
   * in 64 KiB pieces (the machine's pipe and socket writes return after what fits, where the kernel's
   * blocking pipe_write would wait for room), looping over short writes
   */
  *writeAll(fd: number, data: string | Uint8Array): Generator<Op, number, SysResult> {
    let b = toBytes(data);
    let total = 0;
    const kind = this.t.proc.fds[fd]?.kind;
    const piece = kind === 'pipe_w' || kind === 'sock' ? 65536 : Infinity;
    while (b.length) {
      const r = yield* this.write(fd, b.length > piece ? b.subarray(0, piece) : b);
      if (r.ret <= 0) return r.ret < 0 ? r.ret : total;
      total += r.ret;
      b = b.subarray(r.ret);
    }
    return total;
  }
  *out(s: string): Generator<Op, number, SysResult> { return yield* this.writeAll(1, s); }
  *err(s: string): Generator<Op, number, SysResult> { return yield* this.writeAll(2, s); }
  /** read until EOF */
  *readAll(fd: number, chunk = 65536): Generator<Op, Uint8Array, SysResult> {
    const parts: Uint8Array[] = [];
    let n = 0;
    for (;;) {
      const r = yield* this.read(fd, chunk);
      if (r.ret <= 0 || !r.data) break;
      parts.push(r.data);
      n += r.ret;
    }
    return Buffer.concat(parts, n);
  }
  *open(p: string, flags = O_RDONLY, mode = 0o644): Generator<Op, number, SysResult> {
    return (yield* this.sys('openat', [-100, p, flags, mode])).ret;
  }
  *close(fd: number): Generator<Op, number, SysResult> { return (yield* this.sys('close', [fd])).ret; }
  /** statx(AT_FDCWD, p, AT_NO_AUTOMOUNT | nofollow, mask) */
  *statx(p: string, mask: number, nofollow = false): Generator<Op, StatInfo | number, SysResult> {
    const r = yield* this.sys('statx', [-100, p, 0x800 | (nofollow ? 0x100 : 0), mask, 0]);
    return r.ret < 0 ? r.ret : (r.info as unknown as StatInfo);
  }
  *stat(p: string, nofollow = false): Generator<Op, StatInfo | number, SysResult> {
    const r = yield* this.sys('newfstatat', [-100, p, 0, nofollow ? 0x100 : 0]);
    return r.ret < 0 ? r.ret : (r.info as unknown as StatInfo);
  }
  *fstat(fd: number): Generator<Op, StatInfo | number, SysResult> {
    const r = yield* this.sys('newfstatat', [fd, '', 0, 0x1000]);
    return r.ret < 0 ? r.ret : (r.info as unknown as StatInfo);
  }
  *lseek(fd: number, off: number, whence: number): Generator<Op, number, SysResult> { return (yield* this.sys('lseek', [fd, off, whence])).ret; }
  *getdents(fd: number): Generator<Op, string[] | number, SysResult> {
    const out: string[] = [];
    for (;;) {
      const r = yield* this.sys('getdents64', [fd, 0, 32768]);
      if (r.ret < 0) return r.ret;
      if (r.ret === 0) return out;
      out.push(...((r.info?.names as string[]) ?? []));
    }
  }
  *mkdir(p: string, mode = 0o755): Generator<Op, number, SysResult> { return (yield* this.sys('mkdirat', [-100, p, mode])).ret; }
  *unlink(p: string, dir = false): Generator<Op, number, SysResult> { return (yield* this.sys('unlinkat', [-100, p, dir ? 0x200 : 0])).ret; }
  *rename(a: string, b: string): Generator<Op, number, SysResult> { return (yield* this.sys('renameat2', [-100, a, -100, b, 0])).ret; }
  *fsync(fd: number): Generator<Op, number, SysResult> { return (yield* this.sys('fsync', [fd])).ret; }
  *sync(): Generator<Op, number, SysResult> { return (yield* this.sys('sync', [])).ret; }
  *nanosleep(ns: number): Generator<Op, number, SysResult> { return (yield* this.sys('clock_nanosleep', [1, 0, ns, 0])).ret; }
  *getpid(): Generator<Op, number, SysResult> { return (yield* this.sys('getpid', [])).ret; }
  /**
   * glibc's fork(): clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD);
   * the child's first call is set_robust_list (_Fork resets the robust mutex list the kernel cleared)
   */
  *fork(child: (u: U) => Prog): Generator<Op, number, SysResult> {
    const run = function* (cu: U): Prog { yield* cu.sys('set_robust_list', [0, 24]); return yield* child(cu); };
    return (yield* this.sys('clone', [CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | 17, 0, 0, 0, 0], { child: run })).ret;
  }
  /** vfork(): the child shares the address space and the parent sleeps until it execs or exits */
  *vfork(child: (u: U) => Prog): Generator<Op, number, SysResult> { return (yield* this.sys('vfork', [], { child })).ret; }
  *thread(child: (u: U) => Prog): Generator<Op, number, SysResult> {
    return (yield* this.sys('clone', [0x3d0f00, 0, 0, 0, 0], { child, thread: true })).ret;
  }
  /** execve(p, argv, envp): `envp` the new environment (none: this process's own, as glibc's execv passes `environ`) */
  *exec(p: string, argv: string[], envp?: string[]): Generator<Op, number, SysResult> {
    return (yield* this.sys('execve', [p, argv, []], envp ? { envp } : undefined)).ret;
  }
  /** wait4: returns [pid, status] or [errno, 0] */
  *wait(pid = -1, nohang = false): Generator<Op, [number, number], SysResult> {
    const r = yield* this.sys('wait4', [pid, 0, nohang ? 1 : 0, 0]);
    return [r.ret, (r.info?.status as number) ?? 0];
  }
  *exit(code: number): Generator<Op, never, SysResult> {
    yield* this.sys('exit_group', [code]);
    throw new Error('exit_group returned');
  }
  *kill(pid: number, sig: number): Generator<Op, number, SysResult> { return (yield* this.sys('kill', [pid, sig])).ret; }
  *pipe(): Generator<Op, [number, number], SysResult> {
    const r = yield* this.sys('pipe2', [0, 0]);
    const fds = (r.info?.fds as [number, number]) ?? [-1, -1];
    return r.ret < 0 ? [r.ret, r.ret] : fds;
  }
  *dup2(a: number, b: number): Generator<Op, number, SysResult> { return (yield* this.sys('dup2', [a, b])).ret; }
  *chdir(p: string): Generator<Op, number, SysResult> { return (yield* this.sys('chdir', [p])).ret; }
  *mmap(region: string, pages: number, file?: { fd: number; off: number }): Generator<Op, number, SysResult> {
    return (yield* this.sys('mmap', [0, pages * 4096, 3, file ? 1 : 0x22, file ? file.fd : -1, file ? file.off : 0], { region })).ret;
  }
  *munmap(region: string): Generator<Op, number, SysResult> { return (yield* this.sys('munmap', [0, 0], { region })).ret; }
  *sigaction(sig: number, h: 'default' | 'ignore' | ((sig: number) => void)): Generator<Op, number, SysResult> {
    return (yield* this.sys('rt_sigaction', [sig, 0, 0, 8], { handler: h })).ret;
  }
  *socket(domain: number, type: number, protocol = 0): Generator<Op, number, SysResult> { return (yield* this.sys('socket', [domain, type, protocol])).ret; }
  /** bind to 127.0.0.1:port (0: an ephemeral port) */
  *bind(fd: number, port: number): Generator<Op, number, SysResult> { return (yield* this.sys('bind', [fd, 0, 16], { port })).ret; }
  *listen(fd: number, backlog = 128): Generator<Op, number, SysResult> { return (yield* this.sys('listen', [fd, backlog])).ret; }
  *accept(fd: number, flags = 0): Generator<Op, number, SysResult> { return (yield* this.sys('accept4', [fd, 0, 0, flags])).ret; }
  /** connect to 127.0.0.1:port */
  *connect(fd: number, port: number): Generator<Op, number, SysResult> { return (yield* this.sys('connect', [fd, 0, 16], { port })).ret; }
  /** bind an AF_UNIX socket to a path (sockaddr_un: family, path, NUL; '' autobinds) */
  *bindPath(fd: number, path: string): Generator<Op, number, SysResult> { return (yield* this.sys('bind', [fd, 0, path ? 3 + path.length : 2], { path })).ret; }
  /** connect an AF_UNIX socket to the socket bound at path */
  *connectPath(fd: number, path: string): Generator<Op, number, SysResult> { return (yield* this.sys('connect', [fd, 0, 3 + path.length], { path })).ret; }
  /** a datagram to the AF_UNIX socket bound at path */
  *sendtoPath(fd: number, data: Uint8Array | string, path: string): Generator<Op, number, SysResult> {
    const b = toBytes(data);
    return (yield* this.sys('sendto', [fd, 0, b.length, 0, 0, 3 + path.length], { buf: b, path })).ret;
  }
  *send(fd: number, data: Uint8Array | string, flags = 0): Generator<Op, number, SysResult> {
    const b = toBytes(data);
    return (yield* this.sys('sendto', [fd, 0, b.length, flags, 0, 0], { buf: b })).ret;
  }
  /** sendto 127.0.0.1:port */
  *sendto(fd: number, data: Uint8Array | string, port: number, flags = 0): Generator<Op, number, SysResult> {
    const b = toBytes(data);
    return (yield* this.sys('sendto', [fd, 0, b.length, flags, 0, 16], { buf: b, port })).ret;
  }
  *sendmsg(fd: number, data: Uint8Array | string, flags = 0): Generator<Op, number, SysResult> {
    const b = toBytes(data);
    return (yield* this.sys('sendmsg', [fd, 0, flags], { buf: b })).ret;
  }
  /** send all of data on a stream socket (looping over partial sends) */
  *sendAll(fd: number, data: Uint8Array | string): Generator<Op, number, SysResult> {
    let b = toBytes(data);
    let total = 0;
    while (b.length) {
      const r = yield* this.send(fd, b);
      if (r <= 0) return r < 0 ? r : total;
      total += r;
      b = b.subarray(r);
    }
    return total;
  }
  *recv(fd: number, n: number, flags = 0): Generator<Op, SysResult, SysResult> { return yield* this.sys('recvfrom', [fd, 0, n, flags, 0, 0]); }
  *recvmsg(fd: number, n: number, flags = 0): Generator<Op, SysResult, SysResult> { return yield* this.sys('recvmsg', [fd, 0, flags], { count: n }); }
  /** receive exactly n bytes from a stream socket (fewer at EOF) */
  *recvAll(fd: number, n: number): Generator<Op, Uint8Array, SysResult> {
    const parts: Uint8Array[] = [];
    let got = 0;
    while (got < n) {
      const r = yield* this.recv(fd, n - got);
      if (r.ret <= 0 || !r.data) break;
      parts.push(r.data);
      got += r.ret;
    }
    // one part (the common case): a Buffer over the fresh array recv returned, not a copy
    if (parts.length === 1 && parts[0].length === got) {
      const p = parts[0];
      return Buffer.isBuffer(p) ? p : Buffer.from(p.buffer, p.byteOffset, p.length);
    }
    return Buffer.concat(parts, got);
  }
  *shutdown(fd: number, how: number): Generator<Op, number, SysResult> { return (yield* this.sys('shutdown', [fd, how])).ret; }
  *poll(fd: number, timeoutMs: number): Generator<Op, number, SysResult> { return (yield* this.sys('poll', [0, 1, timeoutMs], { pfd: fd })).ret; }
  *epollWait(timeoutMs: number): Generator<Op, number, SysResult> { return (yield* this.sys('epoll_wait', [3, 0, 16, timeoutMs])).ret; }
  *swapon(p: string): Generator<Op, number, SysResult> { return (yield* this.sys('swapon', [p, 0])).ret; }
  *swapoff(p: string): Generator<Op, number, SysResult> { return (yield* this.sys('swapoff', [p])).ret; }
  *brk(pages: number): Generator<Op, number, SysResult> { return (yield* this.sys('brk', [pages * 4096])).ret; }
  *uname(): Generator<Op, number, SysResult> { return (yield* this.sys('uname', [0])).ret; }
}
