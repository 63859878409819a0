/**
 * glibc's strerror texts for the errnos the machine's programs report (`cat: /etc: Is a directory`),
 * one table for every program; an errno without its text here reads as EIO's.
 */
const TEXT: Record<number, string> = {
  1: 'Operation not permitted', 2: 'No such file or directory', 3: 'No such process', 13: 'Permission denied', 17: 'File exists',
  20: 'Not a directory', 21: 'Is a directory', 22: 'Invalid argument', 39: 'Directory not empty',
  // the socket calls' (tbench: `failed to connect to localhost - Connection refused`)
  32: 'Broken pipe', 101: 'Network is unreachable', 104: 'Connection reset by peer', 111: 'Connection refused',
};

/** strerror(-r) for a syscall's negative return `r`. */
export const errStr = (r: number): string => TEXT[-r] ?? 'Input/output error';
