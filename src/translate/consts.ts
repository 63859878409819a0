/**
 * `@const("NAME")` (guru mode): the value of a C constant the module would be compiled with.
 * Names from `-D NAME[=VALUE]` (and `--skip-badvars`' STP_SKIP_BADVARS) come first, then the
 * simulated kernel's constants; anything else is not known to this runtime.
 */
import { kernelHz } from '../kernel/config';

const KERNEL_CONSTANTS = new Map<string, () => bigint>(Object.entries({
  STP_SKIP_BADVARS: () => 0n,
  HZ: () => BigInt(kernelHz()),
  PAGE_SIZE: () => 4096n,
  PAGE_SHIFT: () => 12n,
  RLIM_NLIMITS: () => 16n,
  TASK_COMM_LEN: () => 16n,
  PATH_MAX: () => 4096n,
  NSEC_PER_SEC: () => 1000000000n,
  USEC_PER_SEC: () => 1000000n,
  MSEC_PER_SEC: () => 1000n,
  SIGKILL: () => 9n,
  SIGTERM: () => 15n,
  SIGUSR1: () => 10n,
  SIGUSR2: () => 12n,
  EFAULT: () => 14n,
  ENOENT: () => 2n,
  EINVAL: () => 22n,
  ENOMEM: () => 12n,
}));

/** The value of constant `name`, or null when it is not known. */
export function constValue(name: string, defines?: Map<string, string>): bigint | null {
  const d = defines?.get(name);
  if (d !== undefined) {
    if (d === '') return 1n;
    if (/^-?(0x[0-9a-f]+|\d+)$/i.test(d)) return d.startsWith('-') ? -BigInt(d.slice(1)) : BigInt(d);
    return null;
  }
  const k = KERNEL_CONSTANTS.get(name);
  return k ? k() : null;
}
