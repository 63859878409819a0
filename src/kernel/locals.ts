/**
 * Parameters and local variables of the kernel functions the machine model runs, from the -dbg
 * vmlinux's DWARF (data/kernel/locals.gz, scripts/kernel-data/inline_sites.py): for each function
 * the variables in scope at its entry probe's pc (address + 5, past the __fentry__ call) with their
 * DWARF type and where they are there — optimized out, not available at that pc, a constant, or a
 * location expression — and a small DWARF expression evaluator that computes a variable's value or
 * address from the entry registers (the arguments) and the frame.
 *
 *   functionLocals('filemap_read')   -> [{ kind: 'P', name: 'iocb', dwarfType: 'kiocb *', loc: { k: 'expr', expr: 'reg5' } }, ...,
 *                                        { kind: 'V', name: 'fbatch', dwarfType: 'folio_batch', loc: { k: 'expr', expr: 'fbreg -192' } }, ...]
 *   evalLocation('fbreg -192', { arg: (i) => ..., cfa: 0xffffc900... })  -> { memory: true, value: cfa - 192 }
 */
import { readDataText, noteParseTime } from './data';

export type LocalLoc =
  /** no DW_AT_location: optimized out */
  | { k: 'none' }
  /** a location list without an entry at the pc */
  | { k: 'unavailable' }
  | { k: 'const'; value: bigint }
  | { k: 'expr'; expr: string };

export interface LocalVar {
  /** 'P' formal parameter, 'V' variable */
  kind: 'P' | 'V';
  name: string;
  dwarfType: string;
  loc: LocalLoc;
  /** DIE offset in the vmlinux DWARF (stap names it in its messages) */
  die: number;
}

let table: Map<string, LocalVar[]> | null = null;

function load(): Map<string, LocalVar[]> {
  if (table) return table;
  const text = readDataText('locals.gz');
  const t0 = Date.now();
  table = new Map();
  let cur: LocalVar[] | null = null;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.split('\t');
    if (f[0] === 'L') {
      table.set(f[1], (cur = []));
      continue;
    }
    if (!cur) continue;
    const l = f[3];
    const loc: LocalLoc = l === 'o' ? { k: 'none' } : l === 'n' ? { k: 'unavailable' }
      : l.startsWith('c ') ? { k: 'const', value: BigInt(l.slice(2)) } : { k: 'expr', expr: l.slice(2) };
    cur.push({ kind: f[0] === 'P' ? 'P' : 'V', name: f[1], dwarfType: f[2], loc, die: parseInt(f[4] ?? '0', 16) });
  }
  noteParseTime('locals.gz', Date.now() - t0);
  return table;
}

/** The parameters and variables in scope at `name`'s entry, DWARF order; null when the data lacks the function. */
export function functionLocals(name: string): readonly LocalVar[] | null {
  return load().get(name) ?? null;
}

/** Is the variable readable at the entry pc? */
export function isAvailable(v: LocalVar): boolean {
  return v.loc.k === 'const' || v.loc.k === 'expr';
}

// ---------------------------------------------------------------------------------------------
// location expressions

/** What a location expression needs at the pc: argument registers, the frame, memory. */
export interface LocationContext {
  /** value of the i-th integer argument register at entry (rdi, rsi, rdx, rcx, r8, r9) */
  arg(i: number): bigint;
  /** the canonical frame address (DW_OP_call_frame_cfa: rsp before the call pushed its return address) */
  cfa: bigint;
  /** 8-byte read of kernel memory */
  read(addr: bigint): bigint;
}

/** DWARF register number -> argument index (x86-64 SysV: rdi rsi rdx rcx r8 r9). */
const ARG_OF_REG: Record<number, number> = { 5: 0, 4: 1, 1: 2, 2: 3, 8: 4, 9: 5 };

export class LocationError extends Error {}

/** Does the expression name a value (a register, DW_OP_stack_value) rather than a memory location? */
export function isValueExpr(expr: string): boolean {
  return /^reg\d+$/.test(expr) || /(^|,)stack_value$/.test(expr) || /^entry_value\(reg\d+\)$/.test(expr);
}

/**
 * Evaluate a location expression: the variable's value (a value expression) or the address it lives
 * at. Registers other than the argument registers are not known at entry (LocationError).
 */
/** x86_64's DWARF number of rsp */
const RSP_REG = 7;

export function evalLocation(expr: string, c: LocationContext): bigint {
  const ops = expr.split(/,(?![^()]*\))/);
  const st: bigint[] = [];
  const reg = (n: number): bigint => {
    // rsp (DWARF register 7) at the entry: the call's return address is just below the CFA
    if (n === RSP_REG) return BigInt.asUintN(64, c.cfa - 8n);
    const i = ARG_OF_REG[n];
    if (i === undefined) throw new LocationError(`register ${n} is not known at the entry`);
    return c.arg(i);
  };
  const pop = (): bigint => {
    const v = st.pop();
    if (v === undefined) throw new LocationError('DWARF expression stack underflow');
    return v;
  };
  const U = (v: bigint) => BigInt.asUintN(64, v);
  for (const raw of ops) {
    const op = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^reg(\d+)$/.exec(op))) st.push(reg(Number(m[1])));
    else if ((m = /^entry_value\(reg(\d+)\)$/.exec(op))) st.push(reg(Number(m[1])));
    else if ((m = /^breg(\d+) ([+-]\d+)$/.exec(op))) st.push(U(reg(Number(m[1])) + BigInt(m[2])));
    else if ((m = /^fbreg ([+-]?\d+)$/.exec(op))) st.push(U(c.cfa + BigInt(m[1])));
    else if (op === 'call_frame_cfa') st.push(c.cfa);
    else if ((m = /^lit(\d+)$/.exec(op))) st.push(BigInt(m[1]));
    else if ((m = /^(?:const[1248]?[us]|constu|consts) (-?(?:0x[0-9a-f]+|\d+))$/.exec(op))) st.push(U(BigInt(m[1])));
    else if ((m = /^plus_uconst (0x[0-9a-f]+|\d+)$/.exec(op))) st.push(U(pop() + BigInt(m[1])));
    else if (op === 'deref') st.push(c.read(pop()));
    else if (op === 'plus') { const b = pop(); st.push(U(pop() + b)); }
    else if (op === 'minus') { const b = pop(); st.push(U(pop() - b)); }
    else if (op === 'mul') { const b = pop(); st.push(U(pop() * b)); }
    else if (op === 'and') { const b = pop(); st.push(pop() & b); }
    else if (op === 'or') { const b = pop(); st.push(pop() | b); }
    else if (op === 'xor') { const b = pop(); st.push(pop() ^ b); }
    else if (op === 'shl') { const b = pop(); st.push(U(pop() << b)); }
    else if (op === 'shr') { const b = pop(); st.push(pop() >> b); }
    else if (op === 'neg') st.push(U(-pop()));
    else if (op === 'not') st.push(U(~pop()));
    else if (op === 'dup') { const v = pop(); st.push(v, v); }
    else if (op === 'stack_value') break;
    else throw new LocationError(`unsupported DWARF operation ${op}`);
  }
  return pop();
}
