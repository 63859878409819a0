/**
 * The execution state of kernel code: the environment of one path execution (`Env`), the frames
 * of the paths being run (`Frame`) and the kernel stack of a task or of a CPU's interrupts
 * (`KStack`: frames plus the function/mark stacks backtraces and return probes read).  The path
 * interpreter (paths/kexec.ts) runs them; tasks (include/sched.ts) and CPUs (include/cpu.ts) own them.
 */

/** A compiled path: its name and its program (paths/dsl.ts compiles templates into these). */
export interface CompiledPath {
  name: string;
  code: Int32Array;
}

/** Environment of one kernel path execution (syscall arguments, results, hook data). */
export interface Env {
  /** syscall name or kernel path name */
  name: string;
  /** syscall number (-1 for non-syscall paths) */
  nr: number;
  /** syscall arguments */
  a: unknown[];
  /** syscall return value */
  ret: number;
  /** last return value (kretprobe retval of functions returning in this path) */
  rv: unknown;
  /** free-form per-path data used by hooks and conditions */
  [k: string]: unknown;
}

export interface Frame {
  code: Int32Array;
  pc: number;
  env: Env;
  path: CompiledPath;
  /** iterations left of the OP_REPEAT bodies being run (innermost last) */
  loops?: number[];
}

/** Depth of a kernel stack's function/mark stacks. */
export const KSTACK_DEPTH = 256;

/**
 * Function/mark stacks are views into shared slabs: a boot makes a few hundred tasks, and a
 * typed array of its own (an off-heap backing store the GC tracks) for each of two stacks per
 * task cost more than the rest of making the task.  Views never overlap; a slab is dropped by
 * the GC with its last stack.
 */
const SLAB_STACKS = 64;
let slab: Int32Array | null = null;
let slabNext = SLAB_STACKS;

function stackView(): Int32Array {
  if (slabNext === SLAB_STACKS) {
    slab = new Int32Array(SLAB_STACKS * KSTACK_DEPTH);
    slabNext = 0;
  }
  const off = KSTACK_DEPTH * slabNext++;
  return slab!.subarray(off, off + KSTACK_DEPTH);
}

/** Execution stack of kernel code: frames plus the function/mark stacks (per task, per CPU irq). */
export class KStack {
  frames: Frame[] = [];
  fn = stackView();
  mark = stackView();
  sp = 0;
}
