/**
 * The simulated kernel (and user) address space: sparse 4 KiB pages of bytes at real-looking
 * x86_64 addresses, typed objects laid out with the BTF struct layouts of vmlinux, so that
 * `kernel_long(addr)`, `$file->f_path->dentry->d_name->name` and `@cast(p, "task_struct")->comm`
 * all read the same consistent bytes.
 *
 * Addresses are JS numbers holding the signed 64-bit value, as in kallsyms.ts
 * (0xffff888100000000 is -0x777f00000000); every kernel address used here is exact.
 *
 *   const a = kmem.allocStruct('struct dentry');           // zeroed, BTF-sized, 64-byte aligned
 *   kmem.setField(a, 'struct dentry', 'd_name.name', kmem.strdup('passwd'));
 *   kmem.setField(f, 'struct file', 'f_path.dentry', a);
 *   kmem.bind(fileObj, f);                                  // a JS object now "is" that struct file
 *   kmem.readU64(f + off)                                   // KernelFault when unmapped
 *
 * JS objects passed as kernel function arguments (kcall args) are turned into addresses with
 * `addrOf(obj, btfType)`: an object bound with bind() gives its address; otherwise the
 * registered materializers are asked (the machine can install one for its Task/OpenFile/...
 * classes with `addMaterializer`); the built-in one lays out task-like objects
 * ({pid, tid, comm}) as `struct task_struct` (pid/tgid/comm/prio/cred/real_parent).
 *
 * User memory: one sparse space per process (key: tgid) — `userSpace(tgid)`; `user_string()`
 * and friends read the space of the current task's process.
 */
import { btfLookupType, btfResolveChain, btfSizeof, btfResolve, btfType, BtfKind } from './btf';
import { addrHex } from './kallsyms';

const PAGE = 4096;

/** A read of an unmapped address. */
export class KernelFault extends Error {
  constructor(public addr: number, public user = false) {
    super(`${user ? 'user' : 'kernel'} fault at 0x${addrHex(addr)}`);
    this.name = 'KernelFault';
  }
}

function pageKey(addr: number): number {
  return Math.floor(addr / PAGE);
}

/** Sparse paged byte memory. */
export class AddressSpace {
  private pages = new Map<number, Uint8Array>();
  private dv = new Map<Uint8Array, DataView>();
  constructor(public readonly user: boolean) {}

  /** Map (zero-filled) every page touching [addr, addr+len). */
  map(addr: number, len: number): void {
    for (let p = pageKey(addr); p <= pageKey(addr + Math.max(len, 1) - 1); p++) {
      if (!this.pages.has(p)) this.pages.set(p, new Uint8Array(PAGE));
    }
  }

  unmap(addr: number, len: number): void {
    for (let p = pageKey(addr); p <= pageKey(addr + Math.max(len, 1) - 1); p++) this.pages.delete(p);
  }

  isMapped(addr: number): boolean {
    return this.pages.has(pageKey(addr));
  }

  private page(addr: number): Uint8Array {
    const k = pageKey(addr);
    const pg = this.pages.get(k);
    if (!pg) throw new KernelFault(addr, this.user);
    if (this.live !== null && !this.refreshing) {
      const l = this.live.get(k);
      if (l !== undefined) this.refresh(l);
    }
    return pg;
  }

  /** Live values by page: refreshed before any read or write of that page (see defineLive). */
  private live: Map<number, LiveValue[]> | null = null;
  private refreshing = false;

  /**
   * Keep [addr, addr+size) current: before kernel memory on its page is accessed, `read()` (an
   * integer of `size` bytes) is written there. The simulated kernel's changing globals (jiffies,
   * nr_threads) are such values: nothing writes them on every tick, a reader sees them current.
   */
  defineLive(addr: number, size: number, read: () => number | bigint): void {
    this.map(addr, size);
    const v: LiveValue = { addr, size, read };
    this.live ??= new Map();
    for (let p = pageKey(addr); p <= pageKey(addr + size - 1); p++) {
      const l: LiveValue[] | undefined = this.live.get(p);
      if (!l) this.live.set(p, [v]);
      else {
        const i = l.findIndex((x: LiveValue) => x.addr === addr);
        if (i >= 0) l[i] = v;
        else l.push(v);
      }
    }
  }

  private refresh(l: LiveValue[]): void {
    this.refreshing = true;
    try {
      for (const v of l) this.writeUnsigned(v.addr, v.size, v.read());
    } finally {
      this.refreshing = false;
    }
  }

  readU8(addr: number): number {
    const pg = this.page(addr);
    return pg[addr - pageKey(addr) * PAGE];
  }

  writeU8(addr: number, v: number): void {
    const pg = this.page(addr);
    pg[addr - pageKey(addr) * PAGE] = v & 255;
  }

  /** Little-endian unsigned read of 1..8 bytes as a bigint. */
  readUnsigned(addr: number, size: number): bigint {
    const off = addr - pageKey(addr) * PAGE;
    if (off + size <= PAGE) {
      const pg = this.page(addr);
      let dv = this.dv.get(pg);
      if (!dv) this.dv.set(pg, (dv = new DataView(pg.buffer)));
      switch (size) {
        case 1: return BigInt(pg[off]);
        case 2: return BigInt(dv.getUint16(off, true));
        case 4: return BigInt(dv.getUint32(off, true));
        case 8: return dv.getBigUint64(off, true);
      }
    }
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.readU8(addr + i));
    return v;
  }

  writeUnsigned(addr: number, size: number, v: bigint | number): void {
    let x = BigInt.asUintN(size * 8, intOf(v));
    for (let i = 0; i < size; i++) {
      this.writeU8(addr + i, Number(x & 255n));
      x >>= 8n;
    }
  }

  /** Signed 64-bit read as a JS number when exact, else bigint (stap Long canonical form). */
  readS64(addr: number): number | bigint {
    const v = BigInt.asIntN(64, this.readUnsigned(addr, 8));
    return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
  }

  /** A pointer value (signed-number address). */
  readPtr(addr: number): number {
    return Number(BigInt.asIntN(64, this.readUnsigned(addr, 8)));
  }

  writePtr(addr: number, p: number): void {
    this.writeUnsigned(addr, 8, BigInt.asUintN(64, BigInt(p)));
  }

  /** NUL-terminated string of at most `max` bytes (latin1). */
  readString(addr: number, max: number): string {
    let s = '';
    for (let i = 0; i < max; i++) {
      const b = this.readU8(addr + i);
      if (b === 0) break;
      s += String.fromCharCode(b);
    }
    return s;
  }

  writeBytes(addr: number, s: string, nul = true): void {
    for (let i = 0; i < s.length; i++) this.writeU8(addr + i, s.charCodeAt(i) & 255);
    if (nul) this.writeU8(addr + s.length, 0);
  }
}

interface LiveValue {
  addr: number;
  size: number;
  read: () => number | bigint;
}

export type Materializer = (obj: object, mem: KernelMemory, btfType: number | null) => number | null;

/** The kernel address space with a bump allocator (direct map) and object bindings. */
/**
 * A machine value as the integer a kernel field holds: the machine's clocks advance by
 * fractional nanoseconds (costs scaled per CPU), a task's start_time or a timestamp stored from
 * them keeps the whole nanoseconds, as the kernel's u64 would.
 */
function intOf(v: bigint | number): bigint {
  return typeof v === 'bigint' ? v : BigInt(Number.isInteger(v) ? v : Number.isFinite(v) ? Math.floor(v) : 0);
}

export class KernelMemory extends AddressSpace {
  /** next free address in the direct map (page_offset_base + 4 GiB) */
  private brk = Number(BigInt.asIntN(64, 0xffff888100000000n));
  private bound = new WeakMap<object, number>();
  private materializers: Materializer[] = [];
  private typeCache = new Map<string, number>();

  constructor() {
    super(false);
  }

  /** kmalloc(): zeroed memory, aligned (default 64 like a slab object). */
  alloc(size: number, align = 64): number {
    const a = Math.ceil(this.brk / align) * align;
    this.brk = a + Math.max(size, 1);
    this.map(a, Math.max(size, 1));
    return a;
  }

  /** kstrdup() */
  strdup(s: string): number {
    const a = this.alloc(s.length + 1, 8);
    this.writeBytes(a, s);
    return a;
  }

  /** BTF type id of a C type name ("struct file", "task_struct", "char *"); throws if unknown. */
  typeId(name: string): number {
    let id = this.typeCache.get(name);
    if (id === undefined) {
      let t = btfLookupType(name);
      if (t === null && !/^(struct|union|enum)\s/.test(name)) t = btfLookupType('struct ' + name);
      if (t === null) throw new Error(`kernel memory: unknown type ${name}`);
      id = t;
      this.typeCache.set(name, id);
    }
    return id;
  }

  /** Allocate a zeroed object of a BTF struct type. */
  allocStruct(type: string | number): number {
    const id = typeof type === 'number' ? type : this.typeId(type);
    return this.alloc(btfSizeof(id), 64);
  }

  /**
   * The object of BTF struct type `type` standing for `key`: allocated and laid out by `fill` the
   * first time it is asked for, the same address after. `memo` holds the address before `fill`
   * runs, so a fill that reaches the object again (a parent chain, a disk's own part0) gets it.
   */
  structFor<K>(memo: { get(k: K): number | undefined; set(k: K, a: number): unknown }, key: K, type: string, fill: (a: number) => void): number {
    let a = memo.get(key);
    if (a !== undefined) return a;
    a = this.allocStruct(type);
    memo.set(key, a);
    fill(a);
    return a;
  }

  /** Address and type of a (dotted, embedded) member path inside an object: 'f_path.dentry'. */
  fieldOf(type: string | number, path: string): { offset: number; type: number; bitSize: number; bitOffset: number } {
    const id = typeof type === 'number' ? type : this.typeId(type);
    // memoized per (type, path): materializers lay out the same members for every object
    const key = `${id}:${path}`;
    const hit = this.fieldCache.get(key);
    if (hit) return hit;
    const f = this.resolveField(id, path);
    this.fieldCache.set(key, f);
    return f;
  }
  private readonly fieldCache = new Map<string, Readonly<{ offset: number; type: number; bitSize: number; bitOffset: number }>>();
  private resolveField(id: number, path: string): { offset: number; type: number; bitSize: number; bitOffset: number } {
    const steps = btfResolveChain(id, path.split('.').map((s) => (/^\d+$/.test(s) ? `[${s}]` : s)));
    let off = 0;
    for (const s of steps) {
      if (s.deref) throw new Error(`kernel memory: path ${path} goes through a pointer`);
      off += s.offset;
    }
    const last = steps[steps.length - 1];
    return { offset: off, type: last.type, bitSize: last.bitSize, bitOffset: last.bitOffset };
  }

  /**
   * Store a value into a member: numbers/bigints as integers or pointers of the member's size,
   * strings copied into char arrays (truncated, NUL-terminated) or kstrdup'ed for char pointers,
   * objects as pointers (addrOf).
   */
  setField(addr: number, type: string | number, path: string, value: number | bigint | string | object): void {
    const f = this.fieldOf(type, path);
    const r = btfResolve(f.type);
    const t = btfType(r);
    const at = addr + f.offset;
    if (typeof value === 'string') {
      if (t.kind === BtfKind.ARRAY) {
        const n = btfSizeof(r);
        const s = value.slice(0, Math.max(0, n - 1));
        for (let i = 0; i < n; i++) this.writeU8(at + i, 0);
        this.writeBytes(at, s);
      } else this.writePtr(at, this.strdup(value));
      return;
    }
    if (typeof value === 'object') {
      this.writePtr(at, this.addrOf(value, t.kind === BtfKind.PTR ? t.type : null));
      return;
    }
    if (f.bitSize) {
      const size = btfSizeof(r);
      const old = this.readUnsigned(at, size);
      const mask = ((1n << BigInt(f.bitSize)) - 1n) << BigInt(f.bitOffset);
      const v = (old & ~mask) | ((intOf(value) << BigInt(f.bitOffset)) & mask);
      this.writeUnsigned(at, size, v);
      return;
    }
    const size = t.kind === BtfKind.PTR ? 8 : btfSizeof(r);
    this.writeUnsigned(at, size, BigInt.asUintN(size * 8, intOf(value)));
  }

  /** Make `obj` stand for the object at `addr` (future addrOf(obj) returns addr). */
  bind(obj: object, addr: number): void {
    this.bound.set(obj, addr);
  }

  boundAddr(obj: object): number | undefined {
    return this.bound.get(obj);
  }

  /** Try materializers in reverse registration order (last added wins). */
  addMaterializer(m: Materializer): void {
    this.materializers.unshift(m);
  }

  /**
   * The kernel address of a JS object: bound address, or materialized (and bound) on first use.
   * Numbers/bigints are addresses already. Null/undefined give 0.
   */
  addrOf(v: unknown, pointee: number | null = null): number {
    if (v === null || v === undefined) return 0;
    if (typeof v === 'number') return v;
    if (typeof v === 'bigint') return Number(BigInt.asIntN(64, v));
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string') return this.strdup(v);
    if (typeof v !== 'object' && typeof v !== 'function') return 0;
    const o = v as object;
    const a = this.bound.get(o);
    if (a !== undefined) return a;
    for (const m of this.materializers) {
      const r = m(o, this, pointee);
      if (r !== null) {
        this.bound.set(o, r);
        return r;
      }
    }
    // unknown object: an opaque, zeroed allocation of the pointee's size so reads are consistent
    const size = pointee !== null ? safeSize(pointee) : 64;
    const addr = this.alloc(Math.max(size, 8), 64);
    this.bound.set(o, addr);
    if (pointee !== null) fillFromObject(this, addr, pointee, o);
    return addr;
  }
}

function safeSize(t: number): number {
  try {
    return btfSizeof(t);
  } catch {
    return 64;
  }
}

/** Copy same-named scalar/string properties of a JS object into a fresh struct. */
function fillFromObject(mem: KernelMemory, addr: number, type: number, o: object): void {
  const r = btfResolve(type);
  const t = btfType(r);
  if (t.kind !== BtfKind.STRUCT && t.kind !== BtfKind.UNION) return;
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'bigint') continue;
    try {
      mem.setField(addr, r, k, v);
    } catch {
      /* no such member */
    }
  }
}

// ---------------------------------------------------------------------------------------------
// task_struct layout for task-like objects

interface TaskLike {
  pid: number;
  tid: number;
  comm: string;
  uid?: number; gid?: number; euid?: number; egid?: number;
  prio?: number;
  state?: number;
  cpu?: number;
  proc?: { parent?: { threads?: TaskLike[]; tgid?: number } | null; tgid?: number; threads?: TaskLike[] } | null;
  parent?: TaskLike | null;
}

function isTaskLike(o: object): o is TaskLike {
  const t = o as Partial<TaskLike>;
  return typeof t.pid === 'number' && typeof t.tid === 'number' && typeof t.comm === 'string';
}

/**
 * The built-in materializer: `struct task_struct` for {pid, tid, comm}-objects (the kernel's
 * pid = thread id, tgid = process id), with prio, __state, a `struct cred` (uid/gid/euid/egid),
 * real_parent/parent (the parent process' first thread; init_task for init and kthreadd, the idle
 * task itself) and group_leader.
 */
function taskMaterializer(o: object, mem: KernelMemory): number | null {
  if (!isTaskLike(o)) return null;
  return layoutTask(mem, o, mem.allocStruct('struct task_struct'));
}

/**
 * Make the task-like object `o` the `struct task_struct` at `addr` (a static one: init_task is
 * the boot CPU's idle task), laid out as the built-in materializer lays tasks out.
 */
export function placeTask(o: object, addr: number): void {
  if (!isTaskLike(o)) throw new Error('kernel memory: not a task');
  kmem.map(addr, btfSizeof(kmem.typeId('struct task_struct')));
  layoutTask(kmem, o, addr);
  initTaskAddr = addr;
}
/** init_task's address once placed: the real_parent of the tasks the kernel started itself (init, kthreadd) */
let initTaskAddr = 0;

function layoutTask(mem: KernelMemory, o: TaskLike, a: number): number {
  const T = 'struct task_struct';
  mem.bind(o, a);
  mem.setField(a, T, 'pid', o.tid);
  mem.setField(a, T, 'tgid', o.pid);
  mem.setField(a, T, 'comm', o.comm);
  mem.setField(a, T, 'prio', o.prio ?? 120);
  mem.setField(a, T, 'static_prio', o.prio ?? 120);
  mem.setField(a, T, 'normal_prio', o.prio ?? 120);
  // __state changes as the task runs and sleeps: kept live (task_state(), $prev->__state at sched_switch)
  const self = new WeakRef(o);
  mem.defineLive(a + mem.fieldOf(T, '__state').offset, 4, () => self.deref()?.state ?? 0);
  mem.setField(a, T, 'stack', kernelStack(o));
  const cred = mem.allocStruct('struct cred');
  for (const [f, v] of [['uid', o.uid], ['gid', o.gid], ['euid', o.euid], ['egid', o.egid],
    ['suid', o.uid], ['sgid', o.gid], ['fsuid', o.euid], ['fsgid', o.egid]] as [string, number | undefined][]) {
    mem.setField(cred, 'struct cred', `${f}.val`, v ?? 0);
  }
  mem.setField(a, T, 'cred', cred);
  mem.setField(a, T, 'real_cred', cred);
  const parentTask = o.parent ?? o.proc?.parent?.threads?.[0] ?? null;
  const pa = parentTask && parentTask !== o ? mem.addrOf(parentTask) : o.pid > 0 && initTaskAddr ? initTaskAddr : a;
  mem.setField(a, T, 'real_parent', pa);
  mem.setField(a, T, 'parent', pa);
  const leader = o.proc?.threads?.[0];
  mem.setField(a, T, 'group_leader', leader && leader !== o ? mem.addrOf(leader) : a);
  // signal->rlim[]: the process' limits (`rlimits` as [cur, max] pairs when the object has them,
  // else Debian 12's defaults for a login session); shared by the threads of a process
  const leaderAddr = leader && leader !== o ? mem.boundAddr(leader) : undefined;
  const sig = leaderAddr !== undefined
    ? Number(BigInt.asIntN(64, mem.readUnsigned(leaderAddr + mem.fieldOf(T, 'signal').offset, 8)))
    : 0;
  mem.setField(a, T, 'signal', sig || materializeSignal(mem, (o as { rlimits?: [number, number][] }).rlimits));
  taskObjects.set(a, new WeakRef(o));
  for (const f of taskLayouts) f(o, a, mem);
  return a;
}

/** Further task_struct fields laid out by other layers (fs, mm, files: src/probes/task_objects.ts). */
const taskLayouts: ((task: object, addr: number, mem: KernelMemory) => void)[] = [];
export function addTaskLayout(f: (task: object, addr: number, mem: KernelMemory) => void): void {
  if (!taskLayouts.includes(f)) taskLayouts.push(f);
}

const RLIM_INFINITY = -1;
/** RLIMIT_CPU .. RLIMIT_RTTIME: [soft, hard] as `ulimit -a` shows them on a Debian 12 login. */
export const DEFAULT_RLIMITS: readonly [number, number][] = [
  [RLIM_INFINITY, RLIM_INFINITY], [RLIM_INFINITY, RLIM_INFINITY], [RLIM_INFINITY, RLIM_INFINITY],
  [8388608, RLIM_INFINITY], [0, RLIM_INFINITY], [RLIM_INFINITY, RLIM_INFINITY], [15497, 15497],
  [1024, 524288], [8388608, 8388608], [RLIM_INFINITY, RLIM_INFINITY], [RLIM_INFINITY, RLIM_INFINITY],
  [15497, 15497], [819200, 819200], [0, 0], [0, 0], [RLIM_INFINITY, RLIM_INFINITY],
];

function materializeSignal(mem: KernelMemory, rlimits: readonly [number, number][] | undefined): number {
  const S = 'struct signal_struct';
  const s = mem.allocStruct(S);
  const base = s + mem.fieldOf(S, 'rlim').offset;
  const lims = rlimits ?? DEFAULT_RLIMITS;
  for (let i = 0; i < DEFAULT_RLIMITS.length; i++) {
    const [cur, max] = lims[i] ?? DEFAULT_RLIMITS[i];
    mem.writeUnsigned(base + 16 * i, 8, BigInt.asUintN(64, BigInt(cur)));
    mem.writeUnsigned(base + 16 * i + 8, 8, BigInt.asUintN(64, BigInt(max)));
  }
  return s;
}

/** THREAD_SIZE: x86_64 kernel stacks are 16 KiB (4 pages), vmalloc'ed with a guard page (VMAP_STACK). */
export const THREAD_SIZE = 16384;
const STACKS_START = Number(BigInt.asIntN(64, 0xffffc90000010000n));
let nextStack = STACKS_START;
const stacks = new WeakMap<object, number>();

/** The kernel stack (task->stack, its lowest address) of a task object: 16 KiB, zeroed, mapped on first use. */
export function kernelStack(task: object): number {
  let s = stacks.get(task);
  if (s === undefined) {
    s = nextStack;
    nextStack += THREAD_SIZE + 4096;
    kmem.map(s, THREAD_SIZE);
    stacks.set(task, s);
  }
  return s;
}

const taskObjects = new Map<number, WeakRef<object>>();
/** The task-like object a materialized `struct task_struct` stands for (live data: fd table). */
export function taskObjectAt(addr: number): object | undefined {
  return taskObjects.get(addr)?.deref();
}

// ---------------------------------------------------------------------------------------------
// the singletons

export const kmem = new KernelMemory();
kmem.addMaterializer(taskMaterializer);

const userSpaces = new Map<number, AddressSpace>();

/** The user address space of a process (created empty on first use). */
export function userSpace(tgid: number): AddressSpace {
  let s = userSpaces.get(tgid);
  if (!s) userSpaces.set(tgid, (s = new AddressSpace(true)));
  return s;
}

/** Drop a process' user space (exit). */
export function dropUserSpace(tgid: number): void {
  userSpaces.delete(tgid);
}

/** x86_64's vmemmap_base (no KASLR of it on the machine) and sizeof(struct page): struct page * of a frame */
export const VMEMMAP = Number(BigInt.asIntN(64, 0xffffea0000000000n));
export const STRUCT_PAGE = 64;
/** page_to_pfn / folio_pfn: the frame of struct page * `page` */
export const pageToPfn = (page: number): number => Math.round((page - VMEMMAP) / STRUCT_PAGE);
