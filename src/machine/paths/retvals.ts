/**
 * Return values of the kernel functions on the syscall paths, for `.return` probes
 * (`$return`, returnval(), returnstr()).  kexec.ts asks these rules (semantics.ts retOf) only when a
 * function's return is probed; functions without a rule return their environment's `rv` (0).
 *
 * The syscall environment's `ret` is the syscall's result (bytes read/written, new fd, pid,
 * 0, or -errno), set by the hooks before the functions that compute it return: the
 * `__x64_sys_*` entry points, the `ksys_*`/`do_*` helpers and the VFS and file-operation
 * functions on the way (vfs_read, filemap_read, pipe_write ...).  The rules are made when a
 * return value is first asked for (listing every path's syscall entry points parses them all).
 */
import { Semantics } from './semantics';
import type { RetRule } from './semantics';
import type { MachineCore } from '../core/machine';
import type { Env } from '../include/kstack';
import { pathNames, pathItems } from './dsl';
import { kmem } from '../../kernel/memory';
import { openingFile, slabObject, kmallocObject, pageOf } from './kobjects';
import { filenameAddr } from './args';
import { OpenFile } from '../include/fs';
import { syscalls } from '../../kernel/syscalls';

const ret = (e: Env): unknown => e.ret;
/** int-returning helpers that succeed with 0 (the syscall's positive result is computed later) */
const zeroOrErr = (e: Env): unknown => (typeof e.ret === 'number' && e.ret < 0 ? e.ret : 0);

/** struct file * of path_openat / do_filp_open: the opened file, or ERR_PTR(-errno) */
const openedFile = (e: Env): unknown => {
  if (typeof e.ret === 'number' && e.ret < 0) return e.ret;
  if (e.file instanceof OpenFile) return kmem.addrOf(e.file);
  return openingFile(e);
};

/** Functions returning pointers to the objects the paths create (kobjects.ts). */
const POINTER_RULES: [string, RetRule][] = [
  ['getname', filenameAddr], ['getname_flags', filenameAddr],
  // an exec's open (do_open_execat): the binary's struct file is known from the start (bprm->file)
  ['alloc_empty_file', (e) => (e.name === 'execve' && e.file instanceof OpenFile ? kmem.addrOf(e.file) : openingFile(e))],
  ['path_openat', openedFile], ['do_filp_open', openedFile],
  ['kmem_cache_alloc', slabObject], ['__kmalloc', kmallocObject], ['__alloc_pages', pageOf],
];

const RESULT_FUNCTIONS = [
  // read / write
  'ksys_read', 'ksys_write', 'ksys_pread64', 'ksys_pwrite64', 'vfs_read', 'vfs_write',
  'filemap_read', 'generic_file_read_iter', 'ext4_file_read_iter', 'blkdev_read_iter',
  'pipe_read', 'pipe_write', 'seq_read', 'seq_read_iter',
  'ext4_file_write_iter', 'ext4_buffered_write_iter', 'generic_perform_write',
  'file_tty_write.constprop.0', 'n_tty_write',
  // open / close / stat / directories
  'do_sys_openat2', 'close_fd', 'filp_close', 'vfs_fstatat', 'vfs_statx',
  'do_mkdirat', 'vfs_mkdir', 'do_unlinkat', 'vfs_unlink', 'do_renameat2', 'vfs_rename',
  'ksys_lseek', 'generic_file_llseek', 'vfs_fsync_range', 'ext4_sync_file',
  // processes, time, signals, memory
  'kernel_clone', 'kernel_wait4', 'common_nsleep', 'hrtimer_nanosleep', 'do_nanosleep',
  'kill_pid_info', 'do_pipe2', 'ksys_mmap_pgoff', 'vm_mmap_pgoff', 'do_mmap', 'bprm_execve', '__x64_sys_execve',
];

export const returnValues = new Semantics<MachineCore>('paths/retvals');
returnValues.fnRetsLater(() => {
  const rules: [string, RetRule][] = [];
  const names = new Set(RESULT_FUNCTIONS);
  // every syscall entry point that a path calls, and those of the recorded trees (paths/entry.ts:
  // wait4, brk, mmap ... run the entry model's trees, whose __x64_sys_* the templates do not name)
  for (const p of pathNames()) {
    for (const it of pathItems(p)) if (it.startsWith('__x64_sys_')) names.add(it);
  }
  for (const sc of syscalls()) if (sc.tableSymbol.startsWith('__x64_sys_')) names.add(sc.tableSymbol);
  for (const n of names) rules.push([n, ret]);
  for (const n of ['vfs_open', 'do_dentry_open', 'security_file_open', 'rw_verify_area', 'security_file_permission']) rules.push([n, zeroOrErr]);
  rules.push(...POINTER_RULES);
  return rules;
});
