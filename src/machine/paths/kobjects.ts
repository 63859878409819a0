/**
 * Kernel objects that a path creates, as the functions creating them return them.
 *
 * The machine models opens, execs and allocations with its own JS objects (OpenFile, Inode ...)
 * made where the semantics are computed (the `%open` hook inside do_dentry_open); in 6.1 the
 * objects exist earlier, and `.return` probes of the allocating functions see their addresses:
 *
 *  - the struct file of an open: path_openat allocates it (alloc_empty_file: f_flags, f_mode =
 *    OPEN_FMODE(flags), f_count 1) before the walk and vfs_open(path, file); its `%slab_filp`
 *    marks the environment, `openingFile(e)` gives its address (allocated on first need only), and
 *    `%open` binds the OpenFile it creates to that address (fs/layout.ts fillFile lays it out);
 *  - slab objects: `%slab_<cache>` before a kmem_cache_alloc's tracepoint names the cache the
 *    call allocates from (names_cache: getname's struct filename; filp: the struct file;
 *    task_struct ...); `slabObject(e)` is the object's address for $return and the tracepoint;
 *  - kmalloc'ed buffers (`%kmalloc_<site>` before __kmalloc's tracepoint: requested size and
 *    caller), `kmallocObject(e)`;
 *  - pages: `%new_page` at each __alloc_pages, `pageOf(e)` a struct page in vmemmap (page
 *    frame numbers handed out in allocation order).
 *
 * Nothing is allocated in kernel memory unless a probe asks for an address.
 */
import { kmem, VMEMMAP, STRUCT_PAGE } from '../../kernel/memory';
import { lookupName, isFunction, symbolAddr } from '../../kernel/kallsyms';
import { stackRetIp } from '../../kernel/callsites';
import type { Env } from '../include/kstack';
import { O_LARGEFILE } from '../include/fs';
import type { MachineCore } from '../core/machine';
import { Semantics } from './semantics';
import { H_CONT } from './kexec';
import { filenameAddr } from './args';

// ---------------------------------------------------------------- struct file of an open

/** OPEN_FMODE(flag): FMODE_READ / FMODE_WRITE from O_ACCMODE */
export function openFmode(flags: number): number {
  return (flags + 1) & 3;
}

/** The struct file path_openat allocated for the open in progress (0: none). */
export function openingFile(e: Env): number {
  const a = e.filpAddr;
  if (typeof a === 'number') return a;
  if (e.filpFlags === undefined) return 0;
  const T = 'struct file';
  const f = kmem.allocStruct(T);
  const flags = Number(e.filpFlags);
  kmem.setField(f, T, 'f_flags', flags);
  kmem.setField(f, T, 'f_mode', openFmode(flags));
  kmem.setField(f, T, 'f_count.counter', 1);
  e.filpAddr = f;
  return f;
}

// ---------------------------------------------------------------- slab objects

const CACHE_SIZES: Record<string, number> = {
  names_cache: 4096, filp: 256, task_struct: 9792, vm_area_struct: 200, mm_struct: 1088,
};

/** The object the latest kmem_cache_alloc of the environment returned. */
export function slabObject(e: Env): number {
  const cache = typeof e.slab === 'string' ? e.slab : 'kmalloc-256';
  if (cache === 'names_cache') return filenameAddr(e);
  if (cache === 'filp') return openingFile(e);
  if (typeof e.slabObj === 'number') return e.slabObj;
  const a = kmem.alloc(CACHE_SIZES[cache] ?? 256);
  e.slabObj = a;
  return a;
}

function callSite(fn: string, off: number): number {
  const id = lookupName(fn).find(isFunction);
  return id === undefined ? 0 : symbolAddr(id) + off;
}

const SLAB_CALLERS: Record<string, [string, number]> = {
  names_cache: ['getname_flags', 0x2e], filp: ['alloc_empty_file', 0x45], task_struct: ['copy_process', 0x1a7],
};

// ---------------------------------------------------------------- kmalloc

/** kmalloc size classes (kmalloc_slab) */
export function kmallocSize(n: number): number {
  if (n <= 8) return 8;
  if (n <= 96 && n > 64) return 96;
  if (n <= 192 && n > 128) return 192;
  let s = 8;
  while (s < n) s *= 2;
  return s;
}

const KMALLOC_SITES: Record<string, { size: (e: Env) => number; caller: [string, number] }> = {
  // load_elf_phdrs: kmalloc(sizeof(struct elf_phdr) * e_phnum) — 13 program headers of a
  // dynamically linked x86_64 executable, 11 of ld.so
  elf_phdrs: { size: (e) => 56 * (e.phdrsLoaded ? 11 : 13), caller: ['load_elf_phdrs', 0x4f] },
  // load_elf_binary: elf_interpreter = kmalloc(PT_INTERP p_filesz): "/lib64/ld-linux-x86-64.so.2"
  elf_interp: { size: () => 28, caller: ['load_elf_binary', 0x1e2] },
};

/** The buffer the latest __kmalloc of the environment returned. */
export function kmallocObject(e: Env): number {
  if (typeof e.kmObj === 'number') return e.kmObj;
  const a = kmem.alloc(kmallocSize(Number(e.kmSize ?? 8)));
  e.kmObj = a;
  return a;
}

// ---------------------------------------------------------------- pages

const nextPfn = new WeakMap<MachineCore, number>();

/** The page frame the latest __alloc_pages of the environment returned. */
export function pfnOf(e: Env): number {
  return typeof e.pfn === 'number' ? e.pfn : 0;
}

/** struct page * of that frame (vmemmap + pfn * sizeof(struct page)) */
export function pageOf(e: Env): number {
  if (typeof e.pageAddr === 'number' && e.pagePfn === e.pfn) return e.pageAddr;
  const a = pfnPage(pfnOf(e));
  e.pageAddr = a;
  e.pagePfn = e.pfn;
  return a;
}
/** struct page * (a folio's too) of frame `pfn`, readable: a page in use has one reference */
export function pfnPage(pfn: number): number {
  const a = VMEMMAP + pfn * STRUCT_PAGE;
  kmem.map(a, STRUCT_PAGE);
  kmem.setField(a, 'struct page', '_refcount.counter', 1);
  return a;
}

// ---------------------------------------------------------------- hooks and tracepoint arguments

export const kobjects = new Semantics<MachineCore>('paths/kobjects');

for (const cache of Object.keys(CACHE_SIZES)) {
  kobjects.hook(`slab_${cache}`, (_m, _c, _t, e) => {
    e.slab = cache;
    e.slabObj = undefined;
    // alloc_empty_file(open_flag): the struct file of the open in progress
    if (cache === 'filp') { e.filpFlags = e.name === 'openat' ? Number(e.a[2] ?? 0) : O_LARGEFILE; e.filpAddr = undefined; }
    return H_CONT;
  });
}
// where the recorded trees allocate them: getname's struct filename, path_openat's (and do_open_execat's) struct file
kobjects.at('getname_flags.part.0', 'slab_names_cache');
kobjects.at('getname_flags', 'slab_names_cache');
kobjects.at('alloc_empty_file', 'slab_filp');

// kmem_cache_alloc(call_site, ptr, s, gfp_flags, node)
kobjects.tpArgs('kmem_cache_alloc', (_m, _c, _t, e) => {
  const cache = typeof e.slab === 'string' ? e.slab : 'kmalloc-256';
  const size = CACHE_SIZES[cache] ?? 256;
  const [fn, off] = SLAB_CALLERS[cache] ?? ['', 0];
  return [fn ? callSite(fn, off) : 0, slabObject(e), { name: cache, size, object_size: size }, 0xcc0, -1];
});

for (const [site, info] of Object.entries(KMALLOC_SITES)) {
  kobjects.hook(`kmalloc_${site}`, (_m, _c, _t, e) => {
    e.kmSite = site;
    e.kmObj = undefined;
    e.kmSize = info.size(e);
    if (site === 'elf_phdrs') e.phdrsLoaded = true;
    return H_CONT;
  });
}

// where the recorded exec does them: load_elf_phdrs' buffer, then (after it returns) load_elf_binary's
// interpreter name; no site once the loader is done
kobjects.at('load_elf_phdrs', 'kmalloc_elf_phdrs');
kobjects.at('load_elf_phdrs', 'kmalloc_elf_interp', 'exit');
kobjects.hook('kmalloc_no_site', (_m, _c, _t, e) => { e.kmSite = undefined; e.kmSize = undefined; e.kmObj = undefined; return H_CONT; });
kobjects.at('load_elf_binary', 'kmalloc_no_site', 'exit');
// every __kmalloc call returns a buffer of its own
kobjects.hook('kmalloc_new', (_m, _c, _t, e) => { e.kmObj = undefined; return H_CONT; });
kobjects.at('__kmalloc', 'kmalloc_new');

// kmalloc(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node): a site the machine sizes, else the
// return address in the function calling the allocator (the kernel stack below it)
kobjects.tpArgs('kmalloc', (_m, c, _t, e) => {
  const info = KMALLOC_SITES[String(e.kmSite)];
  const n = Number(e.kmSize ?? 8);
  const ks = c.ks;
  const site = info ? callSite(info.caller[0], info.caller[1]) : stackRetIp(ks.fn, ks.sp);
  return [site, kmallocObject(e), n, kmallocSize(n), 0xcc0, -1];
});

// kfree(call_site, ptr): the buffer kmalloc'ed last on this path
kobjects.tpArgs('kfree', (_m, _c, _t, e) => [callSite('load_elf_binary', 0x2b0), typeof e.kmObj === 'number' ? e.kmObj : 0]);

/** Page frames handed out in allocation order, per machine (deterministic whatever is probed). */
export function allocPfn(m: MachineCore): number {
  const p = nextPfn.get(m) ?? 0x10a000;
  nextPfn.set(m, p + 1);
  return p;
}
kobjects.hook('new_page', (m, _c, _t, e) => {
  e.pfn = allocPfn(m);
  return H_CONT;
});

// mm_page_alloc(page, order, gfp_flags, migratetype)
kobjects.tpArgs('mm_page_alloc', (_m, _c, _t, e) => [pageOf(e), 0, 0x100cca, 1]);
kobjects.tpArgs('kmem_cache_free', () => [0, 0, 'kmalloc-256']);

// arguments of type struct kmem_cache *: the cache the environment allocates from
kobjects.structArg('kmem_cache', () => (_m, _c, _t, e) => ({ name: String(e.cache ?? (e.name === 'openat' ? 'filp' : 'kmalloc-256')), object_size: 256, size: 256 }));
