/**
 * The hand-written call-path templates (paths/dsl.ts format), in definition order: core.ts
 * (syscall entry/exit, schedule, wakeups, idle, timer interrupt, softirqs, fork/exit), sys.ts
 * (system calls, VFS, page cache), block.ts (bio submission, the plug's flush, mq-deadline, the
 * SCSI/AHCI driver, completion), mm.ts (faults, reclaim, swap, writeback), net.ts
 * (sockets, TCP/UDP/ICMP over loopback), unix.ts (AF_UNIX sockets).  paths/dsl.ts loads them on first use.
 */
import { corePaths } from './core';
import { sysPaths } from './sys';
import { blockPaths } from './block';
import { mmPaths } from './mm';
import { netPaths } from './net';
import { unixPaths } from './unix';

export const TEMPLATES: readonly Record<string, string>[] = [corePaths, sysPaths, blockPaths, mmPaths, netPaths, unixPaths];
