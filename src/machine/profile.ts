/**
 * The profiling tick: `profile_tick()` of each CPU's timer interrupt (tick_sched_handle) calls
 * the registered listener with that CPU's context (hardirq, the interrupted task current), as
 * SystemTap's timer.profile fires from the scheduler tick.  One listener (the script session's
 * timer.profile probes); null when none is attached.
 */
import type { CpuContext } from '../kernel/current';
import { defineHook, H_CONT } from './kexec';

let listener: ((ctx: CpuContext) => void) | null = null;

/** Install (or remove, null) the function called at every CPU's profile tick. */
export function setProfileTickListener(f: ((ctx: CpuContext) => void) | null): void {
  listener = f;
}

defineHook('profile', (_m, c) => {
  if (listener) listener(c.ctx);
  return H_CONT;
});
