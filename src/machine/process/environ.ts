/**
 * Each process's environment (what /proc/PID/environ shows): inherited by fork, replaced by the envp
 * an execve passes (programs that exec with glibc's execv/execvp pass their own, `environ`, so an exec
 * without one keeps it), the default of userland/environment.ts for a process spawned from outside.
 */
import type { Process } from '../include/sched';
import { defaultEnvironment } from '../userland/environment';

const environs = new WeakMap<Process, string[]>();

/** NAME=VALUE strings of `p`'s environment */
export function environOf(p: Process): string[] {
  return environs.get(p) ?? Object.entries(defaultEnvironment()).map(([k, v]) => `${k}=${v}`);
}

export function setEnviron(p: Process, env: string[]): void { environs.set(p, env); }

/** fork: the child's environment is its parent's */
export function inheritEnviron(child: Process, parent: Process): void {
  const e = environs.get(parent);
  if (e) environs.set(child, e);
}
