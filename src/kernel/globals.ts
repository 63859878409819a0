/**
 * The kernel's global variables: vmlinux's DWARF variable definitions (data/kernel/globals.gz,
 * scripts/kernel-data/globals.py) with their address, DWARF type and compile unit, for
 * `@var("name[@cu]")`, and the values the kernel keeps in them.
 *
 *   findGlobal('pid_max')                       -> { name, addr, dwarfType: 'int', cu: 'kernel/pid.c' }
 *   findGlobal('avenrun', 'kernel/sched/*.c')   -> the definition in a unit matching the glob
 *   globalBtfType(g)                            -> BTF type id (pointer/array types derived as needed)
 *
 * Values: the bytes at a global's address are kernel memory (src/kernel/memory.ts). What the
 * simulated kernel changes as it runs (jiffies, nr_threads, ...) is installed by the machine with
 * `defineGlobalValue(name, read)`: the variable's bytes are refreshed from `read()` whenever
 * kernel memory there is read (kmem.defineLive), so `@var("jiffies")`, `kernel_long(&@var(...))`
 * and pointer chains into it all see the current value. A global with no such definition holds
 * its boot-time bytes (zero unless `setGlobalInitial` wrote them).
 */
import { readDataText, noteParseTime } from './data';
import { btfLookupType, btfPointerTo, btfArrayOf, btfSizeof, btfType, BtfKind } from './btf';
import { fileMatches } from './kallsyms';
import { kmem, placeTask } from './memory';
import { jiffiesAt } from './jiffies';

export interface KGlobal {
  name: string;
  /** signed 64-bit address as a number (as kallsyms) */
  addr: number;
  /** the type as DWARF names it ('long unsigned int', 'task_struct *', 'atomic_long_t[43]') */
  dwarfType: string;
  /** compile unit source file; '*' for an extern-only variable (any unit that declares it) */
  cu: string;
}

let table: Map<string, KGlobal[]> | null = null;

function load(): Map<string, KGlobal[]> {
  if (table) return table;
  const text = readDataText('globals.gz');
  const t0 = Date.now();
  table = new Map();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [name, addr, dwarfType, cu] = line.split('\t');
    const g: KGlobal = { name, addr: Number(BigInt.asIntN(64, BigInt('0x' + addr))), dwarfType, cu };
    let l = table.get(name);
    if (!l) table.set(name, (l = []));
    l.push(g);
  }
  noteParseTime('globals.gz', Date.now() - t0);
  return table;
}

/**
 * The first definition of `name` (compile unit order, as stap's search meets them) whose unit
 * matches `cu` (a glob against the whole unit path or its trailing components, as stap's
 * @var("sys_tz@time.c") finds kernel/time/time.c), or null.
 */
export function findGlobal(name: string, cu?: string): KGlobal | null {
  const l = load().get(name);
  if (!l) return null;
  if (cu === undefined) return l[0];
  return l.find((g) => g.cu === '*' || fileMatches(cu, g.cu)) ?? null;
}

const typeCache = new Map<string, number | null>();

/** The BTF type of a global (null: DWARF names a type BTF cannot express, e.g. an anonymous union). */
export function globalBtfType(g: KGlobal): number | null {
  return dwarfTypeToBtf(g.dwarfType);
}

/**
 * Map a type as llvm-dwarfdump names it onto BTF: 'T', 'T *', 'T *const', 'T[4][14]',
 * 'const const char *const[8]', function pointers 'void (*)(u64)' (a pointer to void here).
 */
export function dwarfTypeToBtf(dwarf: string): number | null {
  if (typeCache.has(dwarf)) return typeCache.get(dwarf)!;
  const id = parseDwarfType(dwarf);
  typeCache.set(dwarf, id);
  return id;
}

function parseDwarfType(dwarf: string): number | null {
  let s = dwarf.trim();
  const dims: number[] = [];
  // function pointer (or array of them, 'int (*[16])(int)'): a pointer to void stands for it
  const fp = s.indexOf('(*');
  if (fp >= 0) {
    let id = btfPointerTo(0);
    const close = s.indexOf(')', fp);
    const d = s.slice(fp + 2, close < 0 ? undefined : close).match(/\[(\d*)\]/g) ?? [];
    for (let i = d.length - 1; i >= 0; i--) id = btfArrayOf(id, Number(d[i].slice(1, -1)) || 0);
    return id;
  }
  for (let m = /\[(\d*)\]$/.exec(s); m; m = /\[(\d*)\]$/.exec(s)) {
    dims.unshift(m[1] === '' ? 0 : Number(m[1]));
    s = s.slice(0, m.index).trim();
  }
  let ptr = 0;
  for (;;) {
    s = s.replace(/\s*\b(const|volatile|restrict)\s*$/, '').trim();
    if (!s.endsWith('*')) break;
    ptr++;
    s = s.slice(0, -1).trim();
  }
  s = s.replace(/\b(const|volatile|restrict)\b/g, '').replace(/\s+/g, ' ').trim();
  if (!s || /^(struct|union|enum) ?$/.test(s)) return null;
  let id = s === 'void' ? 0 : btfLookupType(s);
  if (id === null) return null;
  for (let i = 0; i < ptr; i++) id = btfPointerTo(id);
  for (let i = dims.length - 1; i >= 0; i--) id = btfArrayOf(id, dims[i]);
  return id;
}

// ---------------------------------------------------------------------------------------------
// values

/**
 * Keep global `name` current: whenever kernel memory at it is read, its bytes are refreshed from
 * `read()` (an integer of the variable's size, or a struct's fields through `fill(addr)`).
 */
export function defineGlobalValue(name: string, read: () => number | bigint): void {
  const g = findGlobal(name);
  if (!g) throw new Error(`kernel globals: no variable ${name}`);
  const t = globalBtfType(g);
  const size = t === null ? 8 : btfSizeof(t);
  kmem.defineLive(g.addr, size, () => read());
}

/** Write a global's boot-time value (an integer of its size). */
export function setGlobalInitial(name: string, value: number | bigint): void {
  const g = findGlobal(name);
  if (!g) throw new Error(`kernel globals: no variable ${name}`);
  const t = globalBtfType(g);
  const size = t === null ? 8 : btfSizeof(t);
  kmem.map(g.addr, size);
  kmem.writeUnsigned(g.addr, size, BigInt(value));
}

/** Is this BTF type a struct/union (after typedefs/qualifiers)? */
export function isAggregate(id: number): boolean {
  let t = btfType(id);
  for (let n = 0; n < 16 && (t.kind === BtfKind.TYPEDEF || t.kind === BtfKind.CONST || t.kind === BtfKind.VOLATILE); n++) t = btfType(t.type);
  return t.kind === BtfKind.STRUCT || t.kind === BtfKind.UNION;
}

// ---------------------------------------------------------------------------------------------
// the simulated kernel's own values

/** What the kernel's globals reflect, as the machine knows it. */
export interface KernelState {
  /** ns since boot */
  uptimeNs(): number;
  ncpus: number;
  /** threads alive (idle tasks excepted) */
  nrThreads(): number;
  /** RAM pages the kernel manages (totalram_pages()) */
  totalPages: number;
  /** free pages at boot (files_maxfiles_init() sizes file-max from them) */
  freePagesAtBoot: number;
  /** CPU 0's idle task (swapper/0): the kernel's init_task */
  idleTask: object;
  /** /proc/sys/kernel/pid_max */
  pidMax: number;
}

const PAGE_SIZE = 4096;
/** include/linux/fs.h NR_FILE */
const NR_FILE = 8192;
/** THREAD_SIZE on x86_64 (16 KiB stacks, KASAN off) */
const THREAD_SIZE = 16384;

/**
 * Point the kernel's globals at the machine: jiffies/jiffies_64 count ticks of its uptime,
 * nr_threads its threads, nr_cpu_ids/__num_online_cpus its CPUs, _totalram_pages its RAM,
 * init_task is its swapper/0, and the boot-time sizes follow from its memory as 6.1 computes them
 * (fork_init()'s set_max_threads(), files_maxfiles_init()).
 */
export function installKernelGlobals(k: KernelState): void {
  defineGlobalValue('jiffies_64', () => jiffiesAt(k.uptimeNs()));
  defineGlobalValue('jiffies', () => jiffiesAt(k.uptimeNs()));
  defineGlobalValue('nr_threads', () => k.nrThreads());
  setGlobalInitial('nr_cpu_ids', k.ncpus);
  setGlobalInitial('__num_online_cpus', k.ncpus);
  setGlobalInitial('pid_max', k.pidMax);
  setGlobalInitial('_totalram_pages', k.totalPages);
  setGlobalInitial('max_threads', Math.min(Math.floor(k.totalPages * PAGE_SIZE / (THREAD_SIZE * 8)), 0x3fffffff));
  // files_maxfiles_init(): 10% of the memory not reserved at boot, 1 KiB per file
  const reserve = Math.min(Math.floor((k.totalPages - k.freePagesAtBoot) * 3 / 2), k.totalPages - 1);
  const g = findGlobal('files_stat');
  if (g) {
    kmem.map(g.addr, 24);
    kmem.setField(g.addr, 'struct files_stat_struct', 'max_files', Math.max(Math.floor((k.totalPages - reserve) * (PAGE_SIZE / 1024) / 10), NR_FILE));
  }
  const it = findGlobal('init_task');
  if (it) placeTask(k.idleTask, it.addr);
}
