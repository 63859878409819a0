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

/** A row whose argument list is split when first read (a start looks up a few syscalls by name). */
class Row implements Syscall {
  private parsed: Syscall['args'] | undefined;
  constructor(readonly nr: number, readonly abi: string, readonly name: string, readonly entry: string,
    readonly tableSymbol: string, private readonly nb: string, private readonly rawArgs: string | undefined) {}

  get args(): Syscall['args'] {
    if (this.parsed === undefined) {
      this.parsed = this.nb === '' ? null : (this.rawArgs ? this.rawArgs.split(',').map((a) => {
        const i = a.lastIndexOf(':');
        return { type: a.slice(0, i), name: a.slice(i + 1) };
      }) : []);
    }
    return this.parsed;
  }
}

let rows: Syscall[] | null = null;
let nrSyscalls = 0;
/** Native (abi common/64) rows by name and by number, the first of each in file order. */
const byName = new Map<string, Syscall>();
const byNr = new Map<number, Syscall>();

function load(): Syscall[] {
  if (rows) return rows;
  rows = [];
  // the rows syscallByNr and syscallByName made from the text give way to the table's (one object per row)
  byNr.clear();
  byName.clear();
  const lines = (text ?? readDataText('syscalls.tsv')).split('\n');
  text = null;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    if (!line) continue;
    if (line.startsWith('# NR_syscalls ')) { nrSyscalls = Number(line.slice(14)); continue; }
    if (line.startsWith('#')) continue;
    const f = line.split('\t');
    const row = new Row(Number(f[0]), f[1], f[2], f[3], f[4], f[5], f[6]);
    rows.push(row);
    if (row.abi !== 'x32') {
      if (!byName.has(row.name)) byName.set(row.name, row);
      if (!byNr.has(row.nr)) byNr.set(row.nr, row);
    }
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
  if (rows) return byNr.get(nr) ?? null;
  // before the table is parsed (a start asks a dozen numbers): the row found in its text, made once
  let r = byNr.get(nr);
  if (r === undefined) {
    const f = rowIn(tableText(), `\n${nr}\t`, (g) => g[1] !== 'x32');
    r = f ? rowOf(f) : NOT_A_ROW;
    byNr.set(nr, r);
  }
  return r === NOT_A_ROW ? null : r;
}

/** byNr's answer for a number the text has no native row of (until the table is parsed) */
const NOT_A_ROW = new Row(-1, '', '', '', '', '', undefined);

const rowOf = (f: string[]): Row => new Row(Number(f[0]), f[1], f[2], f[3], f[4], f[5], f[6]);

/** The fields of the first line of `t` (a newline in front) that holds `needle` and passes `ok`. */
function rowIn(t: string, needle: string, ok: (f: string[]) => boolean): string[] | null {
  for (let at = t.indexOf(needle); at >= 0; at = t.indexOf(needle, at + 1)) {
    const start = t.lastIndexOf('\n', at) + 1;
    const end = t.indexOf('\n', at + 1);
    const f = t.slice(start, end < 0 ? t.length : end).split('\t');
    if (!f[0].startsWith('#') && ok(f)) return f;
  }
  return null;
}

let text: string | null = null;
/** The table's text with a newline in front (until the table is parsed). */
const tableText = (): string => (text ??= '\n' + readDataText('syscalls.tsv'));
/**
 * The number of the native 64-bit syscall `name` (syscallByName(name)?.nr), -1 when none.  Before the
 * table is parsed, its row is found in the text: a shell's start asks for the numbers of the dozen
 * syscalls its programs make and nothing else of the table.
 */
export function syscallNumber(name: string): number {
  if (rows) return byName.get(name)?.nr ?? -1;
  return syscallNumberIn(tableText(), name);
}

/** syscallByName's answer from the table's text `t` (with a newline in front): the first native row of the name. */
export function syscallRowIn(t: string, name: string): Syscall | null {
  const f = rowIn(t, `\t${name}\t`, (g) => g[2] === name && g[1] !== 'x32');
  return f ? rowOf(f) : null;
}

/** syscallNumber's answer from the table's text `t` (with a newline in front). */
export function syscallNumberIn(t: string, name: string): number {
  const f = rowIn(t, `\t${name}\t`, (g) => g[2] === name && g[1] !== 'x32');
  return f ? Number(f[0]) : -1;
}

/**
 * The native 64-bit syscall with this name ("read", "openat"), or null.  Before the table is parsed
 * (a shell's start asks for the argument names of the dozen syscalls its programs make: paths/features.ts
 * argRoles), the row is found in the table's text and made once, as syscallByNr does.
 */
export function syscallByName(name: string): Syscall | null {
  if (rows) return byName.get(name) ?? null;
  let r = byName.get(name);
  if (r === undefined) {
    r = syscallRowIn(tableText(), name) ?? NOT_A_ROW;
    byName.set(name, r);
  }
  return r === NOT_A_ROW ? null : r;
}
