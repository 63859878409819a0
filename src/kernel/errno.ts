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

/** Every Linux errno name (asm-generic/errno-base.h, errno.h), as strace and perror name them. */
const NAMES: Record<number, string> = {
  1: 'EPERM', 2: 'ENOENT', 3: 'ESRCH', 4: 'EINTR', 5: 'EIO', 6: 'ENXIO', 7: 'E2BIG', 8: 'ENOEXEC', 9: 'EBADF',
  10: 'ECHILD', 11: 'EAGAIN', 12: 'ENOMEM', 13: 'EACCES', 14: 'EFAULT', 15: 'ENOTBLK', 16: 'EBUSY', 17: 'EEXIST',
  18: 'EXDEV', 19: 'ENODEV', 20: 'ENOTDIR', 21: 'EISDIR', 22: 'EINVAL', 23: 'ENFILE', 24: 'EMFILE', 25: 'ENOTTY',
  26: 'ETXTBSY', 27: 'EFBIG', 28: 'ENOSPC', 29: 'ESPIPE', 30: 'EROFS', 31: 'EMLINK', 32: 'EPIPE', 33: 'EDOM',
  34: 'ERANGE', 35: 'EDEADLK', 36: 'ENAMETOOLONG', 37: 'ENOLCK', 38: 'ENOSYS', 39: 'ENOTEMPTY', 40: 'ELOOP',
  42: 'ENOMSG', 43: 'EIDRM', 61: 'ENODATA', 62: 'ETIME', 71: 'EPROTO', 74: 'EBADMSG', 75: 'EOVERFLOW', 84: 'EILSEQ',
  88: 'ENOTSOCK', 89: 'EDESTADDRREQ', 90: 'EMSGSIZE', 91: 'EPROTOTYPE', 92: 'ENOPROTOOPT', 93: 'EPROTONOSUPPORT',
  94: 'ESOCKTNOSUPPORT', 95: 'EOPNOTSUPP', 97: 'EAFNOSUPPORT', 98: 'EADDRINUSE', 99: 'EADDRNOTAVAIL', 100: 'ENETDOWN',
  101: 'ENETUNREACH', 103: 'ECONNABORTED', 104: 'ECONNRESET', 105: 'ENOBUFS', 106: 'EISCONN', 107: 'ENOTCONN',
  110: 'ETIMEDOUT', 111: 'ECONNREFUSED', 113: 'EHOSTUNREACH', 114: 'EALREADY', 115: 'EINPROGRESS', 122: 'EDQUOT',
  125: 'ECANCELED', 512: 'ERESTARTSYS', 513: 'ERESTARTNOINTR', 514: 'ERESTARTNOHAND', 516: 'ERESTART_RESTARTBLOCK',
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
