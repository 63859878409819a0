/** Signal numbers, names and default actions (include/uapi/asm/signal.h, kernel/signal.c sig_kernel_*). */

export const SIGHUP = 1, SIGINT = 2, SIGQUIT = 3, SIGKILL = 9, SIGUSR1 = 10, SIGSEGV = 11, SIGUSR2 = 12,
  SIGPIPE = 13, SIGALRM = 14, SIGTERM = 15, SIGCHLD = 17, SIGCONT = 18, SIGSTOP = 19, SIGTSTP = 20, SIGTTIN = 21,
  SIGTTOU = 22;

/** fake user-space address of a program's handler (the programs' handlers are JS closures) */
export const USER_HANDLER = 0x55d4c6a01230;
/**
 * fake user-space address of the C library's __restore_rt: the sa_restorer (with SA_RESTORER) of
 * every sigaction glibc's sigaction() passes to rt_sigaction
 */
export const USER_RESTORER = 0x7f3d8c23b050;
export const SA_RESTORER = 0x04000000;

/** A signal's bit in a sigset_t word (sigmask(sig)). */
export const sigBit = (sig: number): number => 1 << (sig - 1);

export const SIGNAL_NAMES: Record<number, string> = {
  1: 'HUP', 2: 'INT', 3: 'QUIT', 4: 'ILL', 5: 'TRAP', 6: 'ABRT', 7: 'BUS', 8: 'FPE', 9: 'KILL', 10: 'USR1',
  11: 'SEGV', 12: 'USR2', 13: 'PIPE', 14: 'ALRM', 15: 'TERM', 16: 'STKFLT', 17: 'CHLD', 18: 'CONT', 19: 'STOP',
  20: 'TSTP', 21: 'TTIN', 22: 'TTOU', 23: 'URG', 24: 'XCPU', 25: 'XFSZ', 26: 'VTALRM', 27: 'PROF', 28: 'WINCH',
  29: 'IO', 30: 'PWR', 31: 'SYS',
};

/** default action: 'term' | 'ign' | 'stop' | 'cont' | 'core' */
export function sigDefault(sig: number): string {
  if (sig === SIGCHLD || sig === 23 || sig === 28) return 'ign';
  if (sig === SIGSTOP || sig === SIGTSTP || sig === SIGTTIN || sig === SIGTTOU) return 'stop';
  if (sig === SIGCONT) return 'cont';
  if ([3, 4, 5, 6, 7, 8, 11, 24, 25, 31].includes(sig)) return 'core';
  return 'term';
}
