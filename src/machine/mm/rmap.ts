/**
 * Reverse mapping (mm/rmap.c): the pages an address space maps, counted where the real kernel maps and
 * unmaps them in the recorded trees: page_add_file_rmap (a file fault and its fault-around: one call per
 * page do_set_pte maps), page_add_new_anon_rmap (a new anonymous or copied page), page_add_anon_rmap (a
 * swap-in), page_remove_rmap (munmap's and COW's zap of one page); a fork copies the parent's present
 * ptes its copy_page_range finds (one vm_normal_page per copied pte) into the child's count.
 *
 * `Mm.mapped` is what exec (the old address space) and exit tear down: paths/entry.ts chooses the
 * recorded exec and exit trees whose zap work (one page_remove_rmap per page) is nearest to it.
 */
import type { MachineCore } from '../core/machine';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import type { Task } from '../include/sched';

export const rmap = new Semantics<MachineCore>('mm/rmap');

rmap.hook('rmap_add', (_m, _c, t) => {
  const mm = t.proc.mm;
  if (mm) mm.mapped++;
  return H_CONT;
});
// (exec's zap is of the old address space, exit's of one going away: the count was taken before: paths/entry.ts)
rmap.hook('rmap_remove', (_m, _c, t, e) => {
  if (e.name === 'execve' || e.name === 'exit_group' || e.name === 'exit') return H_CONT;
  const mm = t.proc.mm;
  if (mm && mm.mapped > 0) mm.mapped--;
  return H_CONT;
});
// a fork's copy_page_range: each present pte it copies (vm_normal_page) is mapped in the child too
rmap.hook('rmap_fork_pte', (_m, _c, _t, e) => {
  if (e.name !== 'clone' || e.thread === true) return H_CONT;
  const mm = (e.childTask as Task | undefined)?.proc.mm;
  if (mm) mm.mapped++;
  return H_CONT;
});
rmap.at('page_add_file_rmap', 'rmap_add');
rmap.at('page_add_new_anon_rmap', 'rmap_add');
rmap.at('page_add_anon_rmap', 'rmap_add');
rmap.at('page_remove_rmap', 'rmap_remove');
rmap.at('vm_normal_page', 'rmap_fork_pte');
