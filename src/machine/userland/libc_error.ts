/**
 * How coreutils report errors: gnulib's error() ("PROG: ", the message, ": strerror(errno)" when there
 * is one, "\n": each its own write, stderr being unbuffered), and usage(EXIT_FAILURE)'s pointer to
 * --help (one fprintf: one write).  strace of Debian 12's binaries: `rmdir /nonexist`, `md5sum
 * /nonexist`, `basename` with no operand.
 */
import type { U } from '../process/user';
import type { Op, SysResult } from '../include/sched';
import { errStr } from './libc_strerror';

type G<T> = Generator<Op, T, SysResult>;

/** gnulib error(): "PROG: ", the message, ": strerror" when errno is given, "\n" (each its own write to stderr) */
export function* error(u: U, prog: string, msg: string, errno = 0): G<void> {
  yield* u.err(`${prog}: `);
  yield* u.err(msg);
  if (errno) yield* u.err(`: ${errStr(-Math.abs(errno))}`);
  yield* u.err('\n');
}

/** usage(EXIT_FAILURE)'s "Try 'PROG --help' ..." line; the exit status 1 */
export function* tryHelp(u: U, prog: string): G<number> {
  yield* u.err(`Try '${prog} --help' for more information.\n`);
  return 1;
}
