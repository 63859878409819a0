/**
 * The x86_64 system call table of Debian's 6.1.0-56-amd64: arch/x86/entry/syscalls/syscall_64.tbl
 * (nr, abi, name, entry point) joined with the kernel's own syscall metadata (argument types and
 * names from SYSCALL_DEFINEx, the __syscalls_metadata section) and the sys_call_table contents.
 */
import { readDataText } from './data';

export interface Syscall {
  nr: number;
  /** "common", "64" or "x32" */
  abi: string;
  name: string;
  /** entry point named in syscall_64.tbl, e.g. "sys_read" ('' for unused slots) */
  entry: string;
  /** symbol sys_call_table[nr] points at, e.g. "__x64_sys_read" (x32 rows: '') */
  tableSymbol: string;
  /** SYSCALL_DEFINE arguments; null when the kernel has no metadata (e.g. sys_ni_syscall) */
  args: { type: string; name: string }[] | null;
}

let rows: Syscall[] | null = null;
let nrSyscalls = 0;

function load(): Syscall[] {
  if (rows) return rows;
  rows = [];
  for (const line of readDataText('syscalls.tsv').split('\n')) {
    if (!line) continue;
    if (line.startsWith('# NR_syscalls ')) { nrSyscalls = Number(line.slice(14)); continue; }
    if (line.startsWith('#')) continue;
    const [nr, abi, name, entry, tsym, nb, args] = line.split('\t');
    rows.push({
      nr: Number(nr), abi, name, entry, tableSymbol: tsym,
      args: nb === '' ? null : (args ? args.split(',').map((a) => {
        const i = a.lastIndexOf(':');
        return { type: a.slice(0, i), name: a.slice(i + 1) };
      }) : []),
    });
  }
  return rows;
}

/** NR_syscalls: size of sys_call_table. */
export function syscallTableSize(): number {
  load();
  return nrSyscalls;
}

/** All rows of syscall_64.tbl (including x32 ones), in file order. */
export function syscalls(): readonly Syscall[] {
  return load();
}

/** The native 64-bit syscall with this number (abi common/64), or null. */
export function syscallByNr(nr: number): Syscall | null {
  return load().find((s) => s.nr === nr && s.abi !== 'x32') ?? null;
}

/** The native 64-bit syscall with this name ("read", "openat"), or null. */
export function syscallByName(name: string): Syscall | null {
  return load().find((s) => s.name === name && s.abi !== 'x32') ?? null;
}
