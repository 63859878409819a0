/**
 * The FPU register state of user tasks (arch/x86/kernel/fpu/core.c, arch/x86/include/asm/fpu/sched.h,
 * fpu/context.h), as Linux 6.1 defers it: a CPU's registers keep the state of the user task that last
 * ran there (fpu_fpregs_owner_ctx, `Cpu.fpuOwner`) while kernel threads and the idle task run.
 * - __switch_to's switch_fpu_prepare saves a user task's registers when they are its own (no
 *   TIF_NEED_FPU_LOAD) and traces x86_fpu_regs_deactivated, in its context; fpu->last_cpu = this CPU
 *   (kernel/sched/core.ts switchTo); switch_fpu_finish sets TIF_NEED_FPU_LOAD on the next task (RW_FPU).
 * - The return to user mode with TIF_NEED_FPU_LOAD calls switch_fpu_return: fpregs_restore_userregs
 *   reloads the registers (restore_fpregs_from_fpstate) and traces x86_fpu_regs_activated only when
 *   this CPU's registers do not hold the task's state (fpregs_state_valid: owner and last_cpu), so a
 *   task that slept and comes back on its CPU after the idle task or a kernel thread reloads nothing.
 * - fpregs_mark_activate (signal delivery's fpu__clear_user_states, sigreturn's __fpu_restore_sig)
 *   makes the registers the task's own; fpu__drop (exit) and exec's fpu_flush_thread leave the CPU
 *   without an owner, the latter setting TIF_NEED_FPU_LOAD.
 */
import type { CpuMachine, Cpu } from '../../include/cpu';
import { Task, RW_FPU } from '../../include/sched';
import { Semantics } from '../../paths/semantics';
import { H_CONT } from '../../paths/kexec';

export const fpu = new Semantics<CpuMachine>('arch/x86/kernel/fpu');

/** fpregs_state_valid(): CPU `c`'s registers hold task `t`'s FPU state. */
export function fpregsValid(c: Cpu, t: Task): boolean {
  return c.fpuOwner === t && t.fpuLastCpu === c.id;
}

/** The registers are task `t`'s on `c` (fpregs_activate + last_cpu, TIF_NEED_FPU_LOAD cleared). */
function activate(c: Cpu, t: Task): number {
  c.fpuOwner = t;
  t.fpuLastCpu = c.id;
  t.resumeWork &= ~RW_FPU;
  return H_CONT;
}

// switch_fpu_prepare (__switch_to, prev = c.curr): a user task whose registers are live
fpu.cond('fpu_save', (_m, c) => !c.curr.kthread && !c.curr.idle && (c.curr.resumeWork & RW_FPU) === 0);
// fpregs_restore_userregs: the registers must be reloaded
fpu.cond('fpregs_stale', (_m, c, t) => !fpregsValid(c, t));
fpu.hook('fpregs_restored', (_m, c, t) => activate(c, t));
fpu.hook('fpregs_mark_activate', (_m, c, t) => activate(c, t));
fpu.at('fpregs_mark_activate', 'fpregs_mark_activate');
// fpu__drop's fpregs_deactivate: this CPU's registers are nobody's
fpu.hook('fpu_drop', (_m, c) => { c.fpuOwner = null; return H_CONT; });
fpu.at('fpu__drop', 'fpu_drop');
// fpu_flush_thread (exec): fpu_reset_fpregs leaves the registers nobody's and sets TIF_NEED_FPU_LOAD (the
// new program's state, from memory), tracing nothing (the recordings: no x86_fpu event in an execve, then
// x86_fpu_regs_activated on its return)
fpu.hook('fpu_flush', (_m, c, t) => { c.fpuOwner = null; t.resumeWork |= RW_FPU; return H_CONT; });
fpu.at('fpu_flush_thread', 'fpu_flush', 'exit');
