/** Linux errno values (x86_64) used by the simulated kernel, and the error type carrying them. */
export const EPERM = 1;
export const ENOENT = 2;
export const ESRCH = 3;
export const EINTR = 4;
export const EIO = 5;
export const E2BIG = 7;
export const ENOMEM = 12;
export const EFAULT = 14;
export const EBUSY = 16;
export const EEXIST = 17;
export const ENODEV = 19;
export const EINVAL = 22;
export const ENOSPC = 28;
export const ENOSYS = 38;
export const ENODATA = 61;
export const EILSEQ = 84;
export const EOPNOTSUPP = 95;

const NAMES: Record<number, string> = {
  1: 'EPERM', 2: 'ENOENT', 3: 'ESRCH', 4: 'EINTR', 5: 'EIO', 7: 'E2BIG', 12: 'ENOMEM', 14: 'EFAULT',
  16: 'EBUSY', 17: 'EEXIST', 19: 'ENODEV', 22: 'EINVAL', 28: 'ENOSPC', 38: 'ENOSYS', 61: 'ENODATA',
  84: 'EILSEQ', 95: 'EOPNOTSUPP',
};

export function errnoName(e: number): string {
  return NAMES[Math.abs(e)] ?? `E${Math.abs(e)}`;
}

/** A kernel API failure: `errno` is positive, `ret` the negative value the C function returns. */
export class KernelError extends Error {
  readonly errno: number;
  constructor(errno: number, message?: string) {
    super(message ?? errnoName(errno));
    this.name = 'KernelError';
    this.errno = Math.abs(errno);
  }
  get ret(): number {
    return -this.errno;
  }
}
