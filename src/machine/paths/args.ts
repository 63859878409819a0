/**
 * Function arguments at call sites: what a probe on a simulated kernel function sees as `$args`.
 *
 * Every function node of a path gets the arguments of its real 6.1 prototype (btfFunc) when its
 * site is live (nothing is computed while no probe is attached). Values come from the path
 * environment by parameter name and type:
 *
 *  - syscall arguments by their SYSCALL_DEFINE names (`fd`, `buf`, `count`, `filename`, `flags`,
 *    `mode`, `pid`, `sig` ...) from `e.a`; `__x64_sys_*(regs)` gets a `struct pt_regs`;
 *  - pointers to kernel objects from the subsystem that owns the struct (`Semantics.structArg`:
 *    fs/layout.ts for `struct file`, `inode`, `dentry`, `path`, `filename`, `kiocb` ...,
 *    net/layout.ts for `socket`, `msghdr`, `sk_buff`, kernel/sched/core.ts for `task_struct`,
 *    `rq`, mm/ for `mm_struct`, `kmem_cache`): the machine's JS objects, which
 *    src/kernel/memory.ts turns into kernel addresses on first use (`kmem.addrOf`) through the
 *    materializers the subsystems register (`registerLazyMaterializer`, installed with the
 *    first arguments built);
 *  - user pointers (`char __user *`) as addresses in the process' user space
 *    (`userSpace(tgid)`), holding the path string or the written data, so `user_string($filename)`
 *    and `user_string_n($buf, n)` read them; `kernel_string` of a `struct filename *`'s `name`
 *    reads the kernel copy getname() made (`filenameAddr`);
 *  - `loff_t *pos` as a kernel address holding the position; sizes (`count`, `len`, `size`) as
 *    numbers; anything unknown is 0.
 *
 * A subsystem's `fnArgs(name, builder)` (paths/semantics.ts) overrides the generic builder for one function.
 */
import { btfFunc, btfResolve, btfType, btfTypeName, BtfKind } from '../../kernel/btf';
import { symbolName } from '../../kernel/kallsyms';
import { syscallByName } from '../../kernel/syscalls';
import { kmem, userSpace } from '../../kernel/memory';
import type { Materializer } from '../../kernel/memory';
import { OpenFile } from '../include/fs';
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { InlinedFunction, inlineParamBtf } from '../../kernel/inline_sites';
import { functionLocals } from '../../kernel/locals';
import { tracepointProto } from '../../kernel/tracepoint';
import { structArgOf } from './semantics';
import type { Getter } from './semantics';

// ---------------------------------------------------------------- materializers

const lazyMaterializers: Materializer[] = [];
let installed = false;
/**
 * A materializer for the machine's objects, added to kernel memory when arguments are first
 * built (or at once if that has happened): fs/ and net/ register theirs when installed.
 */
export function registerLazyMaterializer(f: Materializer): void {
  lazyMaterializers.push(f);
  if (installed) kmem.addMaterializer(f);
}
/** Teach kernel memory how to lay out the machine's objects (idempotent). */
export function installMaterializers(): void {
  if (installed) return;
  installed = true;
  for (const f of lazyMaterializers) kmem.addMaterializer(f);
}

// ---------------------------------------------------------------- user memory

const USER_SCRATCH = 0x7ffc5a3e0000;
const userCursor = new Map<number, number>();
/** Copy a string or bytes into the process' user space (a stack-like scratch area); its address. */
export function userCopy(tgid: number, v: string | Uint8Array): number {
  const us = userSpace(tgid);
  const len = typeof v === 'string' ? v.length + 1 : v.length;
  let at = userCursor.get(tgid) ?? USER_SCRATCH;
  if (at + len > USER_SCRATCH + (1 << 20)) at = USER_SCRATCH;
  userCursor.set(tgid, at + ((len + 15) & ~15));
  us.map(at, Math.max(len, 1));
  if (typeof v === 'string') us.writeBytes(at, v);
  else for (let i = 0; i < v.length; i++) us.writeU8(at + i, v[i]);
  return at;
}

// ---------------------------------------------------------------- the path environment

/** The open file a path works on: its environment's, else the one of its `fd` argument. */
export function fileOf(t: Task, e: Env): OpenFile | null {
  if (e.file instanceof OpenFile) return e.file;
  const fd = syscallArg(e, 'fd');
  if (typeof fd === 'number') return t.proc.fds[fd] ?? null;
  return null;
}

/** Syscall argument `name` (its SYSCALL_DEFINE name) of the environment, or undefined. */
export function syscallArg(e: Env, name: string): unknown {
  if (e.nr < 0 && !e.a.length) return undefined;
  const sc = syscallByName(e.name);
  const args = sc?.args;
  if (!args) return undefined;
  for (let i = 0; i < args.length; i++) if (args[i].name === name) return e.a[i];
  return undefined;
}

const posSlots = new WeakMap<Task, number>();
function posPtr(t: Task, pos: number): number {
  let a = posSlots.get(t);
  if (a === undefined) { a = kmem.alloc(8, 8); posSlots.set(t, a); }
  kmem.writeUnsigned(a, 8, BigInt(Math.max(0, Math.floor(pos))));
  return a;
}

const filenames = new WeakMap<Env, number>();
/** The struct filename getname() made of `path` for the environment (kernel copy of the name). */
export function filenameStruct(e: Env, path: string): number {
  const T = 'struct filename';
  return kmem.structFor(filenames, e, T, (a) => {
    kmem.setField(a, T, 'name', kmem.strdup(path));
    kmem.setField(a, T, 'refcnt', 1);
  });
}

/** getname()'s struct filename of the environment's path (0: the syscall has none). */
export function filenameAddr(e: Env): number {
  const p = pathOfEnv(e);
  return p === undefined ? 0 : filenameStruct(e, p);
}

/** The path argument of the environment's syscall (filename, pathname, path, specialfile), else its walk's. */
export function pathOfEnv(e: Env): string | undefined {
  const v = syscallArg(e, 'filename') ?? syscallArg(e, 'pathname') ?? syscallArg(e, 'path') ?? syscallArg(e, 'specialfile');
  if (typeof v === 'string') return v;
  return typeof e.path === 'string' ? e.path : undefined;
}

function structName(type: number): string {
  const r = btfResolve(type);
  const t = btfType(r);
  if (t.kind !== BtfKind.PTR) return '';
  const p = btfType(btfResolve(t.type));
  return p.kind === BtfKind.STRUCT || p.kind === BtfKind.UNION ? p.name : p.kind === BtfKind.INT ? p.name : '';
}

function getterFor(fnName: string, pname: string, type: number): Getter {
  const tname = btfTypeName(type);
  const sname = structName(type);
  const isUser = /__user/.test(tname) || (sname === 'char' && /filename|pathname|buf|name/.test(pname) && fnName.startsWith('do_sys'));
  if (fnName.startsWith('__x64_sys_') && pname === 'regs') {
    return (_m, _c, _t, e) => {
      const a = e.a;
      const u = (i: number) => (typeof a[i] === 'string' || a[i] instanceof Uint8Array ? 0 : Number(a[i] ?? 0));
      return { di: u(0), si: u(1), dx: u(2), r10: u(3), r8: u(4), r9: u(5), orig_ax: e.nr, ax: -38 };
    };
  }
  const structArg = structArgOf(sname);
  if (structArg) return structArg(fnName, pname, tname) as Getter;
  if (pname === 'buf' || pname === 'ubuf' || isUser) {
    return (_m, _c, t, e) => {
      const v = syscallArg(e, pname);
      if (typeof v === 'string') return userCopy(t.pid, v);
      if (e.buf instanceof Uint8Array) return userCopy(t.pid, (e.buf as Uint8Array).subarray(0, 4096));
      const p = pathOfEnv(e);
      if (p !== undefined && /name|path/.test(pname)) return userCopy(t.pid, p);
      return USER_SCRATCH + 0x10000 + (t.tid & 0xff) * 0x1000;
    };
  }
  if (pname === 'pos' || pname === 'ppos') {
    if (tname.endsWith('*')) return (_m, _c, t, e) => posPtr(t, Number(e.pos ?? syscallArg(e, 'pos') ?? fileOf(t, e)?.pos ?? 0));
    return (_m, _c, t, e) => Number(e.pos ?? syscallArg(e, 'pos') ?? fileOf(t, e)?.pos ?? 0);
  }
  if (pname === 'count' || pname === 'len' || pname === 'size' || pname === 'nbytes') {
    return (_m, _c, _t, e) => Number(e.count ?? syscallArg(e, pname) ?? syscallArg(e, 'count') ?? 0);
  }
  if (pname === 'cpu') return (_m, c) => c.id;
  if (pname === 'gfpflags' || pname === 'gfp_mask' || pname === 'gfp') return () => 0xcc0;
  return (_m, _c, _t, e) => {
    const v = syscallArg(e, pname) ?? e[pname];
    if (typeof v === 'number' || typeof v === 'bigint') return v;
    if (typeof v === 'string') return 0;
    if (v && typeof v === 'object' && !(v instanceof Uint8Array) && tname.endsWith('*')) return v;
    return 0;
  };
}

const builders = new Map<number, ((m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[]) | null>();

/** The generic argument builder of a kernel function (by kallsyms id), null when it takes none. */
export function genericArgs(fn: number): ((m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[]) | null {
  let b = builders.get(fn);
  if (b !== undefined) return b;
  installMaterializers();
  const name = symbolName(fn);
  const f = btfFunc(name) ?? btfFunc(name.split('.')[0]);
  // a clone BTF lacks (finish_task_switch.isra.0): its DWARF parameters, in the order
  // probes/targets.ts numbers them (optimized-out ones take no slot)
  const dw = !f && name.includes('.') ? (functionLocals(name) ?? []).filter((l) => l.kind === 'P' && l.loc.k !== 'none') : [];
  if (dw.length) b = argVector(dw.map((p) => getterFor(name, p.name, inlineParamBtf(p.dwarfType))));
  else if (!f || !f.params.length) b = null;
  else {
    b = argVector(f.params.map((p) => getterFor(name, p.name, p.type)));
  }
  builders.set(fn, b);
  return b;
}

/** The argument vector of a call from one getter per parameter (a getter that throws reads 0). */
function argVector(gs: Getter[]): (m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[] {
  return (m, c, t, e) => {
    const out = new Array(gs.length);
    for (let i = 0; i < gs.length; i++) {
      try { out[i] = gs[i](m, c, t, e); } catch { out[i] = 0; }
    }
    return out;
  };
}

const inlineBuilders = new Map<InlinedFunction, (m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[]>();
/**
 * Arguments of an inline instance: its abstract definition's formal parameters (DWARF type
 * names mapped to BTF), built from the path environment by name as for out-of-line functions.
 */
export function inlineArgs(f: InlinedFunction): (m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[] {
  let b = inlineBuilders.get(f);
  if (b !== undefined) return b;
  installMaterializers();
  b = argVector(f.params.map((p) => getterFor(f.name, p.name, inlineParamBtf(p.dwarfType))));
  inlineBuilders.set(f, b);
  return b;
}

/**
 * The generic arguments of tracepoint `name` (a subsystem defines none with `Semantics.tpArgs`): its
 * TP_PROTO parameters built from the path environment by name and type as for a function's (an
 * mm_struct is the task's address space, a task_struct the task, an inode or file the environment's).
 */
export function tracepointArgs(name: string): (m: MachineCore, c: Cpu, t: Task, e: Env) => unknown[] {
  installMaterializers();
  return argVector((tracepointProto(name) ?? []).map((p) => getterFor(`trace_${name}`, p.name, p.btfType)));
}
