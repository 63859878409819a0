/**
 * The hand-written call-path templates (paths/dsl.ts format), in definition order: core.ts
 * (syscall entry/exit, schedule, wakeups, idle, timer interrupt, softirqs, fork/exit), sys.ts
 * (system calls, VFS, page cache, block), mm.ts (faults, reclaim, swap, writeback), net.ts
 * (sockets, TCP/UDP/ICMP over loopback), unix.ts (AF_UNIX sockets).  paths/dsl.ts loads them on first use.
 */
import { corePaths } from './core';
import { sysPaths } from './sys';
import { mmPaths } from './mm';
import { netPaths } from './net';
import { unixPaths } from './unix';

export const TEMPLATES: readonly Record<string, string>[] = [corePaths, sysPaths, mmPaths, netPaths, unixPaths];
