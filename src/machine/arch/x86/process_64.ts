/**
 * A task's FS segment base (arch/x86/kernel/process_64.c) and its MSR writes: do_arch_prctl_64's
 * ARCH_SET_FS writes MSR_FS_BASE for the calling task (x86_fsbase_write_cpu: wrmsrl, as the guest's CPU
 * has no FSGSBASE instructions; the write_msr tracepoint), __switch_to's x86_fsgsbase_load writes it
 * for a next task that has a base (load_seg_legacy; path `switch_to`, in the previous task's context),
 * copy_thread gives a child its parent's, and an exec's start_thread clears it (glibc's ld.so sets it
 * again).  Kernel threads and the idle task have none.
 */
import type { CpuMachine } from '../../include/cpu';
import { Semantics } from '../../paths/semantics';
import { H_CONT, H_PUSHED, pushPath, newEnv } from '../../paths/kexec';
import { definePaths } from '../../paths/dsl';
import type { Task } from '../../include/sched';

export const process64 = new Semantics<CpuMachine>('arch/x86/kernel/process_64');

/** arch/x86/include/asm/msr-index.h */
const MSR_FS_BASE = 0xc0000100;
/** arch/x86/include/uapi/asm/prctl.h */
const ARCH_SET_FS = 0x1002;

process64.setup(() => definePaths({ write_msr_event: '\n@msr:write_msr\n' }));

// x86_fsgsbase_load (next = c.next): load_seg_legacy writes the base of a next task that has one
process64.cond('fsbase_load', (_m, c) => c.next !== null && c.next.fsbase !== 0);
process64.tpArgs('write_msr', (_m, c, _t, e) => [MSR_FS_BASE, (e.msrVal as number | undefined) ?? c.next?.fsbase ?? 0, 0]);

process64.hook('arch_prctl_fs', (_m, c, t, e) => {
  if (Number(e.a[0]) !== ARCH_SET_FS) return H_CONT;
  t.fsbase = Number(e.a[1]);
  pushPath(c.ks, 'write_msr_event', newEnv('write_msr', { msrVal: t.fsbase }));
  return H_PUSHED;
});
process64.at('do_arch_prctl_64', 'arch_prctl_fs', 'exit');
// copy_thread: the child's thread.fsbase is its parent's (CLONE_SETTLS: the new thread's TLS)
process64.hook('copy_fsbase', (_m, _c, t, e) => {
  const child = e.childTask as Task | undefined;
  if (child) child.fsbase = t.fsbase;
  return H_CONT;
});
process64.at('copy_thread', 'copy_fsbase');
// start_thread (exec): the new program starts with no FS base
process64.hook('clear_fsbase', (_m, _c, t) => { t.fsbase = 0; return H_CONT; });
process64.at('start_thread', 'clear_fsbase');
