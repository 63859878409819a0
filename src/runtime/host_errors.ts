/** strerror(3) texts for the host file errors a user can cause (`-o FILE`, the REPL's save). */
const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory', EACCES: 'Permission denied', EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory', EROFS: 'Read-only file system', ENOSPC: 'No space left on device',
  ENAMETOOLONG: 'File name too long', ELOOP: 'Too many levels of symbolic links', EPERM: 'Operation not permitted',
  EEXIST: 'File exists', EMFILE: 'Too many open files', EDQUOT: 'Disk quota exceeded', EIO: 'Input/output error',
};

/** The strerror text of a failed host file operation (its message when the code is unknown). */
export function hostErrorText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return (code && ERRNO_TEXT[code]) || (e as Error).message;
}
