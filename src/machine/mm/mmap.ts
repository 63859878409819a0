/** Address-space system calls (mm/mmap.c, mm/memory.c): mmap, brk, munmap (unmap_pages, free_swap_cache). */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pushPath, H_CONT, H_PUSHED } from '../paths/kexec';
import { PAGE } from '../include/fs';
import { P_PRESENT, P_SWAPPED } from '../include/mm_types';
import { fdOf } from '../include/fdtable';

const EINVAL = 22;

export const mmap = new Semantics<MmMachine>('mm/mmap');

const MAP_SHARED = 0x01, MAP_FIXED = 0x10, MAP_ANONYMOUS = 0x20;
const pagesOf = (len: number): number => Math.ceil(len / PAGE);

/**
 * mmap (mm/mmap.c do_mmap): a hint with MAP_FIXED replaces what is there; otherwise the range is
 * taken top-down below the mmap base (a program's named region keeps its name for munmap by name).
 * The N-th anonymous mapping without a hint is remembered as `anonN` (the loader's and libc's early
 * mappings, where the recorded faults of mm.bases land).
 */
mmap.syscall('mmap', (m, _c, t, e) => {
  const mm = t.proc.mm;
  if (!mm) { e.ret = -EINVAL; return H_CONT; }
  const addr = Number(e.a[0]), len = Number(e.a[1]), prot = Number(e.a[2]), flags = Number(e.a[3]), fd = Number(e.a[4]), off = Number(e.a[5]);
  const pages = pagesOf(len);
  if (!pages) { e.ret = -EINVAL; return H_CONT; }
  const anon = (flags & MAP_ANONYMOUS) !== 0 || fd < 0;
  const f = anon ? null : fdOf(t, fd);
  if (!anon && !f) { e.ret = -9; return H_CONT; } // EBADF
  const file = f?.inode ?? null;
  const label = file ? m.fs.pathOf(file) : '';
  const start = flags & MAP_FIXED ? addr : mm.place(pages);
  // a program's named mapping (dd's buffer, munmap'd by name) replaces an earlier one of that name
  if (e.region !== undefined) mm.regions.delete(String(e.region));
  const r = mm.mapAt(String(e.region ?? (file ? 'file' : 'anon')), start, pages, prot, file, anon ? 0 : off, label);
  r.shared = (flags & MAP_SHARED) !== 0;
  if (anon && !(flags & MAP_FIXED)) mm.bases.set(`anon${mm.anonMaps++}`, start);
  if (typeof e.base === 'string') mm.bases.set(e.base, start);
  e.ret = start;
  return H_CONT;
});
/** brk (mm/mmap.c): the break moves within [brkStart, ...); the heap VMA grows or shrinks with it. */
mmap.syscall('brk', (_m, _c, t, e) => {
  const mm = t.proc.mm;
  if (!mm) { e.ret = 0; return H_CONT; }
  const want = Number(e.a[0]);
  if (want > mm.brkStart && want < mm.brkStart + (1 << 30)) {
    const pages = pagesOf(want - mm.brkStart);
    const heap = mm.regions.get('heap');
    if (!heap) { const r = mm.mapAt('heap', mm.brkStart, pages, 3, null, 0, '[heap]'); void r; } else mm.region('heap', pages);
    mm.brk = want;
  }
  e.ret = mm.brk;
  return H_CONT;
});
/** mprotect (mm/mprotect.c): the range's VMAs split at its bounds take the new protection. */
mmap.syscall('mprotect', (_m, _c, t, e) => {
  const mm = t.proc.mm;
  if (!mm) { e.ret = -EINVAL; return H_CONT; }
  const start = Number(e.a[0]);
  const inside = mm.carve(start, start + pagesOf(Number(e.a[1])) * PAGE);
  if (!inside.length) { e.ret = -12; return H_CONT; } // ENOMEM
  for (const r of inside) r.prot = Number(e.a[2]);
  e.ret = 0;
  return H_CONT;
});
mmap.hook('unmap', (m, _c, t, e) => {
  const mm = t.proc.mm;
  const region = e.region as string | undefined;
  if (mm) {
    const named = region ? mm.regions.get(region) : undefined;
    const rs = named ? [named] : region ? [] : mm.carve(Number(e.a[0]), Number(e.a[0]) + pagesOf(Number(e.a[1])) * PAGE);
    let freed = 0;
    let mapped = 0;
    for (const r of rs) {
      for (let i = 0; i < r.pages.length; i++) {
        if (r.pages[i] !== 0 && r.pages[i] !== P_SWAPPED) mapped++;
        if (r.pages[i] === P_PRESENT && !r.fileBacked) { m.mm.anonPages--; m.mm.freePages++; freed++; }
        if (r.pages[i] !== 0) mm.rss = Math.max(0, mm.rss - 1);
        r.pages[i] = 0;
      }
      mm.regions.delete(r.name);
    }
    e.freed = freed;
    // the pages the recorded munmap tree zaps (paths/entry.ts chooses it by them)
    e.zapPages = mapped;
  }
  e.ret = 0;
  return H_CONT;
});
mmap.hook('free_swap_cache', (m, _c, t, e) => {
  const mm = t.proc.mm;
  const n = Math.min(32, Math.max(1, mm ? mm.rss : (e.freed as number) ?? 8));
  for (let i = 0; i < n; i++) pushPath(t.ks, 'free_swap_cache', e);
  return H_PUSHED;
});

// arguments of type struct mm_struct *: the address space of the task
mmap.structArg('mm_struct', () => (_m, _c, t) => t.proc.mm ?? 0);

// rss_stat(mm, member, count): the counter add_mm_counter changed, read after the change: the file pages
// of the address space (MM_FILEPAGES; /proc/PID/status's RssFile of the same mm)
mmap.tpArgs('rss_stat', (_m, _c, t, e) => {
  const mm = t.proc.mm;
  const member = typeof e.rssMember === 'number' ? e.rssMember : 0;
  return [mm ?? 0, member, mm ? (member === 2 ? mm.swapents : member === 1 ? Math.min(mm.rss, 28) : Math.max(0, mm.rss - 28)) : 0];
});
