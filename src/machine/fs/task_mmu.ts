/**
 * fs/proc/task_mmu.c task_mem: the memory lines of /proc/PID/status from an address space's VMAs
 * and resident pages: the RSS split into anonymous, file and shmem pages (MM_ANONPAGES, MM_FILEPAGES,
 * MM_SHMEMPAGES), and the VMA sizes by kind (data_vm, stack_vm, exec_vm, the program's text).
 */
import { Mm, P_COW, P_PRESENT, PROT_EXEC, PROT_WRITE } from '../include/mm_types';
import { anonPage, pageTablePages } from '../mm/mm';

export interface TaskMem {
  /** pages: total_vm, resident (anon + file + shmem), their kinds, and the VMA kinds */
  total: number; rss: number; anon: number; file: number; shmem: number;
  data: number; stack: number; exe: number; lib: number; pte: number; swap: number;
}

export function taskMem(mm: Mm): TaskMem {
  let total = 0, anon = 0, shmem = 0, data = 0, stack = 0, exec = 0, exe = 0;
  for (const r of mm.regions.values()) {
    const n = r.pages.length;
    total += n;
    const isStack = r.label === '[stack]';
    // (a mapping with no file is anonymous: shared, it is shmem; so is a deleted /dev/zero mapping. The
    // vDSO's pages count as file pages: vm_insert_page's mm_counter_file)
    const anonymous = !r.fileBacked && r.label !== '[vdso]' && r.label !== '[vvar]';
    const shm = r.shared && (anonymous || r.label.endsWith(' (deleted)'));
    if ((r.prot & PROT_WRITE) && !r.shared && !isStack) data += n;
    if (isStack) stack += n;
    if ((r.prot & PROT_EXEC) && !(r.prot & PROT_WRITE) && !isStack) exec += n;
    if (r.name === 'text') exe += n;
    for (let i = 0; i < n; i++) {
      const s = r.pages[i];
      if (s !== P_PRESENT && s !== P_COW) continue;
      if (shm) shmem++;
      else if (anonymous || anonPage(r, i)) anon++;
    }
  }
  const file = Math.max(0, mm.rss - anon - shmem);
  return { total, rss: mm.rss, anon, file, shmem, data, stack, exe, lib: Math.max(0, exec - exe), pte: pageTablePages(mm), swap: mm.swapents };
}
