/** Address-space system calls (mm/mmap.c, mm/memory.c): mmap, brk, munmap (unmap_pages, free_swap_cache). */
import type { MmMachine } from './mm';
import { Semantics } from '../paths/semantics';
import { pushPath, H_CONT, H_PUSHED } from '../paths/kexec';
import { PAGE } from '../include/fs';
import { P_PRESENT } from '../include/mm_types';
import { fdOf } from '../include/fdtable';

const EINVAL = 22;

export const mmap = new Semantics<MmMachine>('mm/mmap');

mmap.syscall('mmap', (m, _c, t, e) => {
  const mm = t.proc.mm;
  if (!mm) { e.ret = -EINVAL; return H_CONT; }
  const pages = Math.ceil(Number(e.a[1]) / PAGE);
  const fd = Number(e.a[4]);
  const file = fd >= 0 ? fdOf(t, fd)?.inode ?? null : null;
  mm.region(String(e.region ?? `map${m.rand.int(1e6)}`), pages, file, Number(e.a[5]));
  e.ret = 0x7f0000000000 + m.rand.int(1 << 20) * PAGE;
  return H_CONT;
});
mmap.syscall('brk', (m, _c, t, e) => {
  const mm = t.proc.mm;
  if (mm) mm.region('heap', Math.ceil(Number(e.a[0]) / PAGE));
  e.ret = 0x55550000000 + Number(e.a[0]);
  return H_CONT;
});
mmap.hook('unmap', (m, _c, t, e) => {
  const mm = t.proc.mm;
  const region = e.region as string | undefined;
  if (mm && region) {
    const r = mm.regions.get(region);
    if (r) {
      let freed = 0;
      for (let i = 0; i < r.pages.length; i++) {
        if (r.pages[i] === P_PRESENT && !r.file) { m.mm.anonPages--; m.mm.freePages++; freed++; }
        r.pages[i] = 0;
      }
      e.freed = freed;
      mm.regions.delete(region);
    }
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
