/**
 * What a simulated task's struct task_struct holds beyond src/kernel/memory.ts's basic layout
 * (pid, comm, cred, parents), laid out from the machine (installTaskObjects, from connectMachine):
 *
 *  - `flags`: PF_KTHREAD | PF_NOFREEZE for kernel threads, PF_RANDOMIZE for user tasks
 *    (PF_EXITING once exited); `start_time` / `start_boottime`: when the task was created;
 *  - `fs`: a struct fs_struct shared by the process' threads: `root` the root directory, `pwd`
 *    the working directory (struct path: dentry and vfsmount, src/machine/args.ts);
 *  - `mm`: a struct mm_struct shared by the process' threads (0 for kernel threads): `total_vm`,
 *    `rss_stat.count[]` (MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES), `data_vm`,
 *    `stack_vm` from the machine's regions and page states (src/machine/mm.ts); `start_code` /
 *    `end_code` around the program text; `arg_start..arg_end` and `env_start..env_end` the
 *    argument and environment strings in the process' user memory (the environment the machine's
 *    shell gives commands); `exe_file` a struct file of the executable.
 *
 * Live values (the working directory, page counts) are written again whenever a tapset function
 * reads them (__task_objects_refresh).  The builtins here: task_cwd_path, task_fd_lookup,
 * current_exe_file, get_loadavg_index, sprint_loadavg, is_sig_blocked.
 */
import { StapError } from '../runtime/errors';
import type { Builtin } from '../runtime/builtins';
import type { ProbeContext } from '../runtime/context';
import type { Long } from '../runtime/int64';
import { kmem, KernelMemory, KernelFault, addTaskLayout, taskObjectAt, userSpace } from '../kernel/memory';
import type { Machine } from '../machine/machine';
import { Task } from '../machine/include/sched';
import type { Process } from '../machine/include/sched';
import { P_PRESENT, P_COW } from '../machine/include/mm_types';
import { defaultEnvironment } from '../machine/userland/environment';
import { dentryAddr, vfsmountOf } from '../machine/fs/layout';
import { sendSignal } from '../machine/kernel/signal';
import { hitTask } from './hit';
import { num, hexU } from './context';

const TS = 'struct task_struct';
const MM = 'struct mm_struct';
const FS = 'struct fs_struct';
const PF_EXITING = 0x4, PF_NOFREEZE = 0x8000, PF_KTHREAD = 0x00200000, PF_RANDOMIZE = 0x00400000;
/** where the program text is mapped (a PIE's base) and its argument/environment block */
const TEXT_BASE = 0x55d4c6a00000;
const ARGS_BASE = 0x7ffc5a4f0000;

let machine: Machine | null = null;
const fsStructs = new WeakMap<Process, number>();
const mmStructs = new WeakMap<Process, number>();

function fsOf(mem: KernelMemory, p: Process): number {
  let a = fsStructs.get(p);
  if (a !== undefined) return a;
  a = mem.allocStruct(FS);
  fsStructs.set(p, a);
  mem.setField(a, FS, 'users', 1);
  refreshFs(mem, p, a);
  return a;
}

function refreshFs(mem: KernelMemory, p: Process, a: number): void {
  if (!machine) return;
  const root = machine.fs.root;
  const cwd = machine.fs.lookup(p.cwd) ?? root;
  mem.setField(a, FS, 'root.dentry', dentryAddr(mem, root));
  mem.setField(a, FS, 'root.mnt', vfsmountOf(mem, root));
  mem.setField(a, FS, 'pwd.dentry', dentryAddr(mem, cwd));
  mem.setField(a, FS, 'pwd.mnt', vfsmountOf(mem, cwd));
}

/** NUL-separated strings in the process' user memory; [start, end). */
function userBlock(tgid: number, at: number, strs: readonly string[]): [number, number] {
  const text = strs.map((s) => s + '\0').join('');
  const us = userSpace(tgid);
  if (text.length) {
    us.map(at, text.length);
    us.writeBytes(at, text, false);
  }
  return [at, at + text.length];
}

function mmOf(mem: KernelMemory, p: Process): number {
  let a = mmStructs.get(p);
  if (a !== undefined) return a;
  a = mem.allocStruct(MM);
  mmStructs.set(p, a);
  const [as, ae] = userBlock(p.tgid, ARGS_BASE, p.argv.length ? p.argv : [p.exe]);
  const env = defaultEnvironment();
  const [es, ee] = userBlock(p.tgid, ae, Object.keys(env).map((k) => `${k}=${env[k]}`));
  mem.setField(a, MM, 'arg_start', as);
  mem.setField(a, MM, 'arg_end', ae);
  mem.setField(a, MM, 'env_start', es);
  mem.setField(a, MM, 'env_end', ee);
  mem.setField(a, MM, 'mm_users.counter', 1);
  if (machine && p.exe) {
    const ino = machine.fs.lookup(p.exe);
    if (ino) {
      const f = mem.allocStruct('struct file');
      mem.setField(f, 'struct file', 'f_path.dentry', dentryAddr(mem, ino));
      mem.setField(f, 'struct file', 'f_path.mnt', vfsmountOf(mem, ino));
      mem.setField(f, 'struct file', 'f_inode', mem.addrOf(ino));
      mem.setField(a, MM, 'exe_file', f);
    }
  }
  refreshMm(mem, p, a);
  return a;
}

/** The counters of mm_struct from the machine's regions (pages; rss_stat.count[]). */
function refreshMm(mem: KernelMemory, p: Process, a: number): void {
  const mm = p.mm;
  if (!mm) return;
  let total = 0, file = 0, anon = 0, stack = 0, data = 0, text = 0;
  for (const [name, r] of mm.regions) {
    const n = r.pages.length;
    total += n;
    if (name === 'stack') stack += n;
    else if (name === 'text') text += n;
    else if (!r.file) data += n;
    for (let i = 0; i < n; i++) {
      const s = r.pages[i];
      if (s !== P_PRESENT && s !== P_COW) continue;
      if (r.file) file++;
      else anon++;
    }
  }
  mem.setField(a, MM, 'total_vm', total);
  mem.setField(a, MM, 'data_vm', data);
  mem.setField(a, MM, 'stack_vm', stack);
  mem.setField(a, MM, 'start_code', TEXT_BASE);
  mem.setField(a, MM, 'end_code', TEXT_BASE + text * 4096);
  const count = a + mem.fieldOf(MM, 'rss_stat.count').offset;
  mem.writeUnsigned(count, 8, file);
  mem.writeUnsigned(count + 8, 8, anon);
  mem.writeUnsigned(count + 16, 8, mm.swapents);
  mem.writeUnsigned(count + 24, 8, 0);
}

function layoutTask(o: object, a: number, mem: KernelMemory): void {
  if (!(o instanceof Task)) return;
  mem.setField(a, TS, 'flags', (o.kthread ? PF_KTHREAD | PF_NOFREEZE : PF_RANDOMIZE) | (o.proc.exited ? PF_EXITING : 0));
  mem.setField(a, TS, 'start_time', o.startTime);
  mem.setField(a, TS, 'start_boottime', o.startTime);
  if (o.kthread) return;
  mem.setField(a, TS, 'fs', fsOf(mem, o.proc));
  if (o.proc.mm) {
    const mm = mmOf(mem, o.proc);
    mem.setField(a, TS, 'mm', mm);
    mem.setField(a, TS, 'active_mm', mm);
  }
}

/** Connect (or, with null, disconnect) the task layouts to a machine. */
export function installTaskObjects(m: Machine | null): void {
  machine = m;
  addTaskLayout(layoutTask);
}

/** The machine's Task behind a task_struct address (null: not a machine task). */
function liveTask(task: Long): Task | null {
  const o = taskObjectAt(num(task));
  return o instanceof Task ? o : null;
}

function refresh(task: Long): Task | null {
  const t = liveTask(task);
  if (!t || t.kthread) return t;
  const fs = fsStructs.get(t.proc);
  if (fs !== undefined) refreshFs(kmem, t.proc, fs);
  const mm = mmStructs.get(t.proc);
  if (mm !== undefined) refreshMm(kmem, t.proc, mm);
  return t;
}

function currentTask(c: ProbeContext): Task | null {
  const t = hitTask(c);
  if (t instanceof Task) return t;
  return machine && c.task ? (machine.task(c.task.tid) as Task | undefined) ?? null : null;
}

/** The executable mapping of the current process holding a user address (its text), or null. */
function userModule(c: ProbeContext, addr: number): { path: string; start: number } | null {
  const t = currentTask(c);
  if (!t || t.kthread || !t.proc.mm || !t.proc.exe) return null;
  const text = t.proc.mm.regions.get('text');
  const end = TEXT_BASE + (text ? text.pages.length : 0) * 4096;
  return addr >= TEXT_BASE && addr < end ? { path: t.proc.exe, start: TEXT_BASE } : null;
}

/** avenrun[] as the kernel keeps it (FSHIFT 11 fixed point) for the machine's /proc/loadavg values. */
function avenrun(): number[] {
  if (!machine) return [0, 0, 0];
  const m = machine;
  const r = m.cpus.reduce((s, cpu) => s + m.sched.nrRunning(cpu), 0);
  return [r * 0.6, r * 0.4, r * 0.3].map((v) => Math.round(v * 2048));
}

/**
 * User-space backtraces.  The machine does not model user code (no user pcs, no ELF unwind or
 * symbol data for programs), which is where stap 4.8 stands for every program not named with
 * `-d`/`--ldd`: its unwinder finds no data for the module and warns (runtime/unwind.c)
 * `Missing unwind data for a module, rerun with 'stap -d EXE'`, once per message; here no frame
 * is printed, as the user pc is not known.  Without a user context (kernel threads, the idle
 * task) print_ubacktrace prints `<no user backtrace at PP>` as _stp_stack_user_print does.
 */
function userUnwind(c: ProbeContext, print: boolean): string {
  const t = currentTask(c);
  if (!t || t.kthread || !t.proc.mm) {
    if (print) c.engine.out(`<no user backtrace at ${c.pp}>\n`);
    return '';
  }
  c.engine.warn(`Missing unwind data for a module, rerun with 'stap -d ${t.proc.exe || t.comm}'`);
  return '';
}

export const taskObjectBuiltins: Record<string, Builtin> = {
  print_ubacktrace: (c) => {
    userUnwind(c, true);
  },
  sprint_ubacktrace: (c) => userUnwind(c, false),
  ubacktrace: (c) => userUnwind(c, false),
  __task_objects_refresh: (c, task: Long) => {
    refresh(task);
    return 0;
  },
  task_cwd_path: (c, task: Long) => {
    const a = num(task);
    try {
      refresh(a);
      const fs = Number(BigInt.asIntN(64, kmem.readUnsigned(a + kmem.fieldOf(TS, 'fs').offset, 8)));
      return fs ? fs + kmem.fieldOf(FS, 'pwd').offset : 0;
    } catch (e) {
      if (e instanceof KernelFault) throw new StapError(`invalid task struct pointer`);
      throw e;
    }
  },
  task_fd_lookup: (c, task: Long, fd: Long) => {
    const t = liveTask(task);
    const f = t ? t.proc.fds[num(fd) >>> 0] : null;
    if (!f) throw new StapError('cannot find file in task');
    return kmem.addrOf(f);
  },
  current_exe_file: (c) => {
    const t = currentTask(c);
    if (!t) throw new StapError('No current task');
    if (t.kthread || !t.proc.mm) return 0;
    const mm = mmOf(kmem, t.proc);
    return Number(BigInt.asIntN(64, kmem.readUnsigned(mm + kmem.fieldOf(MM, 'exe_file').offset, 8)));
  },
  is_sig_blocked: (c, task: Long, sig: Long) => {
    const a = num(task);
    const s = num(sig) - 1;
    if (s < 0 || s >= 64) return 0;
    const live = liveTask(a) as { sigBlocked?: number } | null;
    if (live && typeof live.sigBlocked === 'number') return s < 32 ? (live.sigBlocked >>> s) & 1 : 0;
    try {
      const blocked = kmem.readUnsigned(a + kmem.fieldOf(TS, 'blocked').offset, 8);
      return Number((blocked >> BigInt(s)) & 1n);
    } catch (e) {
      if (e instanceof KernelFault) throw new StapError(`read fault [man error::fault] at 0x${hexU(a)}`);
      throw e;
    }
  },
  raise: (c, sig: Long) => {
    // send_sig(sig, current, 0): pending on the current task, delivered on its way back to user mode
    const t = currentTask(c);
    const n = num(sig);
    if (!t || !machine || n < 1 || n > 64) return;
    sendSignal(t.proc, n);
  },
  umodname: (c, a: Long) => {
    const m = userModule(c, num(a));
    if (!m) throw new StapError('module cannot be found');
    return m.path;
  },
  umodaddr: (c, a: Long) => {
    const m = userModule(c, num(a));
    if (!m) throw new StapError(`umodaddr 0x${hexU(num(a))} unknown\n `);
    return num(a) - m.start;
  },
  umodbuildid: (c, a: Long) => {
    // the machine's programs carry no ELF notes: no build-id to read
    throw new StapError(`umodbuildid 0x${hexU(num(a))} unknown\n `);
  },
  // no symbol or line tables for the simulated programs: the address in hex, as the runtime prints
  // an address it has no symbol data for
  usymfile: (c, a: Long) => `0x${hexU(num(a))}`,
  usymline: (c, a: Long) => `0x${hexU(num(a))}`,
  usymfileline: (c, a: Long) => `0x${hexU(num(a))}`,
  get_loadavg_index: (c, i: Long) => {
    const k = num(i);
    if (k < 0 || k > 2) throw new StapError(`Invalid loadavg index ${k} specified.`);
    return (avenrun()[k] + 10) >> 11;
  },
  sprint_loadavg: () => avenrun().map((v) => {
    const x = v + 10;
    return `${x >> 11}.${String(((x & 2047) * 100) >> 11).padStart(2, '0')}`;
  }).join(' ') + '\n',
};
