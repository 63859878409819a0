/**
 * Probe event fetch arguments (kernel/trace/trace_probe.c of Linux 6.1): `[NAME=]FETCHARG[:TYPE]`
 * with %REG, $argN, $stackN, $stack, $retval, $comm, @ADDR, @SYM[+|-off], +|-[u]OFF(FETCHARG),
 * \IMM and the types u8..u64, s8..s64, x8..x64 (default x64), string, ustring, symbol,
 * b<width>@<offset>/<size> and TYPE[N] arrays; each parse error carries the kernel's error text
 * and position (error_log). Evaluation reads the simulated registers and kernel / user memory.
 */
import { PtRegs, retvalOf, CpuContext } from '../current';
import { kmem, userSpace } from '../memory';
import { kallsymsLookupName, symbolName, lookupAddr } from '../kallsyms';

export interface FetchType { name: string; size: number; signed: boolean; fmt: string; fmttype: string; string: boolean }

const T = (name: string, size: number, signed: boolean, fmt: string, fmttype = name): FetchType => ({ name, size, signed, fmt, fmttype, string: false });
export const FETCH_TYPES: Record<string, FetchType> = {
  u8: T('u8', 1, false, '%u'), u16: T('u16', 2, false, '%u'), u32: T('u32', 4, false, '%u'), u64: T('u64', 8, false, '%Lu'),
  s8: T('s8', 1, true, '%d'), s16: T('s16', 2, true, '%d'), s32: T('s32', 4, true, '%d'), s64: T('s64', 8, true, '%Ld'),
  x8: T('x8', 1, false, '0x%x', 'u8'), x16: T('x16', 2, false, '0x%x', 'u16'), x32: T('x32', 4, false, '0x%x', 'u32'),
  x64: T('x64', 8, false, '0x%Lx', 'u64'), symbol: T('symbol', 8, false, '%pS', 'u64'),
  string: { name: 'string', size: 4, signed: true, fmt: '\\"%s\\"', fmttype: '__data_loc char[]', string: true },
  ustring: { name: 'ustring', size: 4, signed: true, fmt: '\\"%s\\"', fmttype: '__data_loc char[]', string: true },
  symstr: { name: 'symstr', size: 4, signed: true, fmt: '\\"%s\\"', fmttype: '__data_loc char[]', string: true },
};

/** x86_64 pt_regs names (regs_query_register_offset) */
export const REGS = ['r15', 'r14', 'r13', 'r12', 'bp', 'bx', 'r11', 'r10', 'r9', 'r8', 'ax', 'cx', 'dx', 'si', 'di', 'orig_ax', 'ip', 'cs', 'flags', 'sp', 'ss'];
const ARG_REGS = ['di', 'si', 'dx', 'cx', 'r8', 'r9'];

type Op =
  | { k: 'reg'; reg: string } | { k: 'arg'; n: number } | { k: 'stack'; n: number } | { k: 'stackp' } | { k: 'retval' }
  | { k: 'comm' } | { k: 'imm'; v: bigint } | { k: 'str'; s: string } | { k: 'deref'; off: number; user: boolean; inner: Op };

export interface ProbeArg {
  name: string;
  /** the argument text as written (after NAME=), shown by kprobe_events */
  comm: string;
  type: FetchType;
  /** array element count (0: not an array) */
  count: number;
  /** bitfield: width and offset */
  bf: { width: number; offset: number } | null;
  op: Op;
  /** offset of the field after the event's fixed header */
  offset: number;
}

export const ERR = {
  BAD_STACK_NUM: 'Invalid stack number', BAD_ARG_NUM: 'Invalid argument number', BAD_VAR: 'Invalid $-variable specified',
  BAD_REG_NAME: 'Invalid register name', BAD_MEM_ADDR: 'Invalid memory address', BAD_IMM: 'Invalid immediate value',
  RETVAL_ON_PROBE: '$retval is not available on probe', DEREF_NEED_BRACE: 'Dereference needs a brace', BAD_DEREF_OFFS: 'Invalid dereference offset',
  DEREF_OPEN_BRACE: 'Dereference brace is not closed', COMM_CANT_DEREF: '$comm can not be dereferenced', BAD_FETCH_ARG: 'Invalid fetch argument',
  ARRAY_NO_CLOSE: 'Array is not closed', BAD_ARRAY_SUFFIX: 'Array has wrong suffix', BAD_ARRAY_NUM: 'Invalid array size',
  BAD_TYPE: 'Unknown type is specified', BAD_STRING: 'String accepts only memory argument', BAD_BITFIELD: 'Invalid bitfield',
  ARG_NAME_TOO_LONG: 'Argument name is too long', NO_ARG_NAME: 'Argument name is not specified',
  BAD_ARG_NAME: 'Argument name must follow the same rules as C identifiers', USED_ARG_NAME: 'This argument name is already used',
  ARG_TOO_LONG: 'Argument expression is too long', NO_ARG_BODY: 'No argument expression', SYM_ON_UPROBE: 'Symbol is not available with uprobe',
  FILE_ON_KPROBE: 'File offset is not available with kprobe',
};

export class ProbeParseError extends Error {
  constructor(readonly text: string, readonly offset: number) { super(text); }
}

const RESERVED = ['common_type', 'common_flags', 'common_preempt_count', 'common_pid', 'common_tgid', '__probe_ip', '__probe_ret_ip', '__probe_func'];

function kstrtol(s: string): number | null {
  if (/^[+-]?0[xX][0-9a-fA-F]+$/.test(s) || /^[+-]?[0-9]+$/.test(s)) return Number(s.startsWith('+') ? s.slice(1) : s);
  return null;
}

/** parse_probe_arg(): the fetch program of one argument body. */
function parseOp(arg: string, flags: { ret: boolean; fentry: boolean; kernel: boolean }, offs: number): Op {
  switch (arg[0]) {
    case '$': {
      const v = arg.slice(1);
      if (v === 'retval') { if (!flags.ret) throw new ProbeParseError(ERR.RETVAL_ON_PROBE, offs); return { k: 'retval' }; }
      if (v === 'stack') return { k: 'stackp' };
      let m = /^stack(\d+)$/.exec(v);
      if (m) { if (Number(m[1]) > 64 && flags.kernel) throw new ProbeParseError(ERR.BAD_STACK_NUM, offs); return { k: 'stack', n: Number(m[1]) }; }
      if (v === 'comm' || v === 'COMM') return { k: 'comm' };
      m = /^arg(\d+)$/.exec(v);
      if (m && flags.kernel && flags.fentry) {
        const n = Number(m[1]);
        if (!n || n > 64) throw new ProbeParseError(ERR.BAD_ARG_NUM, offs);
        return { k: 'arg', n: n - 1 };
      }
      throw new ProbeParseError(ERR.BAD_VAR, offs);
    }
    case '%': {
      const r = arg.slice(1);
      if (!REGS.includes(r)) throw new ProbeParseError(ERR.BAD_REG_NAME, offs);
      return { k: 'reg', reg: r };
    }
    case '@': {
      if (/^[0-9]/.test(arg[1] ?? '')) {
        const v = kstrtol(arg.slice(1));
        if (v === null) throw new ProbeParseError(ERR.BAD_MEM_ADDR, offs);
        return { k: 'deref', off: 0, user: false, inner: { k: 'imm', v: BigInt(v) } };
      }
      if (arg[1] === '+') { if (flags.kernel) throw new ProbeParseError(ERR.FILE_ON_KPROBE, offs); return { k: 'imm', v: 0n }; }
      if (!flags.kernel) throw new ProbeParseError(ERR.SYM_ON_UPROBE, offs);
      const m = /^([^+-]+)([+-](?:0x[0-9a-f]+|\d+))?$/i.exec(arg.slice(1));
      const a = m ? kallsymsLookupName(m[1]) : null;
      if (!m || a === null) throw new ProbeParseError(ERR.BAD_FETCH_ARG, offs);
      return { k: 'deref', off: m[2] ? Number(m[2]) : 0, user: false, inner: { k: 'imm', v: BigInt(a) } };
    }
    case '+': case '-': {
      let s = arg;
      let user = false;
      if (s[1] === 'u') { user = true; s = s[0] + s.slice(2); }
      if (s[0] === '+') s = s.slice(1);
      const open = s.indexOf('(');
      if (open < 0) throw new ProbeParseError(ERR.DEREF_NEED_BRACE, offs);
      const off = kstrtol(s.slice(0, open));
      if (off === null) throw new ProbeParseError(ERR.BAD_DEREF_OFFS, offs);
      const noffs = offs + open + 1 + (s[0] !== '-' ? 1 : 0);
      const rest = s.slice(open + 1);
      const close = rest.lastIndexOf(')');
      if (close < 0) throw new ProbeParseError(ERR.DEREF_OPEN_BRACE, noffs + rest.length);
      const inner = parseOp(rest.slice(0, close), flags, noffs);
      if (inner.k === 'comm' || inner.k === 'str') throw new ProbeParseError(ERR.COMM_CANT_DEREF, noffs);
      return { k: 'deref', off, user, inner };
    }
    case '\\': {
      if (arg[1] === '"') {
        if (!arg.endsWith('"') || arg.length < 3) throw new ProbeParseError("String is not closed with '\"'", offs + arg.length);
        return { k: 'str', s: arg.slice(2, -1) };
      }
      const v = kstrtol(arg.slice(1));
      if (v === null) throw new ProbeParseError(ERR.BAD_IMM, offs + 1);
      return { k: 'imm', v: BigInt(v) };
    }
  }
  throw new ProbeParseError(ERR.BAD_FETCH_ARG, offs);
}

/** traceprobe_parse_probe_arg(): `[NAME=]BODY[:TYPE]` of argument i, at byte `size` of the record. */
export function parseProbeArg(text: string, i: number, size: number, used: Set<string>, flags: { ret: boolean; fentry: boolean; kernel: boolean }): ProbeArg {
  let name: string;
  let body = text;
  const eq = text.indexOf('=');
  if (eq >= 0) {
    name = text.slice(0, eq);
    if (name.length > 63) throw new ProbeParseError(ERR.ARG_NAME_TOO_LONG, 0);
    if (!name) throw new ProbeParseError(ERR.NO_ARG_NAME, 0);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ProbeParseError(ERR.BAD_ARG_NAME, 0);
    body = text.slice(eq + 1);
  } else name = `arg${i + 1}`;
  if (used.has(name) || RESERVED.includes(name)) throw new ProbeParseError(ERR.USED_ARG_NAME, 0);
  const offs = eq >= 0 ? eq + 1 : 0;
  if (body.length > 128) throw new ProbeParseError(ERR.ARG_TOO_LONG, offs);
  if (!body) throw new ProbeParseError(ERR.NO_ARG_BODY, offs);
  const colon = body.indexOf(':');
  let expr = body, tname: string | null = null, count = 0;
  if (colon >= 0) {
    expr = body.slice(0, colon);
    tname = body.slice(colon + 1);
    const br = tname.indexOf('[');
    if (br >= 0) {
      const close = tname.indexOf(']');
      if (close < 0) throw new ProbeParseError(ERR.ARRAY_NO_CLOSE, offs + body.length);
      if (close !== tname.length - 1) throw new ProbeParseError(ERR.BAD_ARRAY_SUFFIX, offs + colon + 1 + close + 1);
      const n = Number(tname.slice(br + 1, close));
      if (!(n > 0)) throw new ProbeParseError(ERR.BAD_ARRAY_NUM, offs + colon + 1 + br + 1);
      count = n;
      tname = tname.slice(0, br);
    }
  }
  let type: FetchType | undefined;
  let bf: ProbeArg['bf'] = null;
  if (expr === '$comm' || expr === '$COMM' || expr.startsWith('\\"')) {
    if (count || (tname && tname !== 'string')) throw new ProbeParseError(ERR.BAD_TYPE, offs);
    type = FETCH_TYPES.string;
  } else if (tname && /^b\d+@\d+\/\d+$/.test(tname)) {
    const m = /^b(\d+)@(\d+)\/(\d+)$/.exec(tname)!;
    const base = FETCH_TYPES[`u${m[3]}`];
    if (!base || Number(m[1]) + Number(m[2]) > base.size * 8 || !Number(m[1])) throw new ProbeParseError(ERR.BAD_BITFIELD, offs + colon + 1);
    type = base;
    bf = { width: Number(m[1]), offset: Number(m[2]) };
  } else type = FETCH_TYPES[tname ?? 'x64'];
  if (!type) throw new ProbeParseError(ERR.BAD_TYPE, offs + (colon >= 0 ? colon + 1 : 0));
  const op = parseOp(expr, flags, offs);
  if (type.string && op.k !== 'deref' && op.k !== 'imm' && op.k !== 'comm' && op.k !== 'str') {
    throw new ProbeParseError(ERR.BAD_STRING, offs + (colon >= 0 ? colon + 1 : 0));
  }
  used.add(name);
  return { name, comm: body, type, count, bf, op, offset: size };
}

/** The size an argument takes in the record. */
export function argSize(a: ProbeArg): number {
  return a.type.size * (a.count || 1);
}

// ---------------------------------------------------------------- evaluation

/** What a probe hit sees: its registers and context. */
export interface FetchCtx {
  regs: PtRegs;
  ctx: CpuContext;
  /** return probe */
  ret: boolean;
  /** the stack pointer the model gives this hit, and the words above it ([0] = return address) */
  sp: number;
  stackWords: readonly number[];
}

function toBig(v: unknown): bigint {
  if (typeof v === 'bigint') return BigInt.asUintN(64, v);
  if (typeof v === 'number') return BigInt.asUintN(64, BigInt(Math.trunc(v)));
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'string') return BigInt.asUintN(64, BigInt(kmem.addrOf(v)));
  return BigInt.asUintN(64, BigInt(kmem.addrOf(v)));
}

function regValue(f: FetchCtx, r: string): bigint {
  const ai = ARG_REGS.indexOf(r);
  if (ai >= 0 && !f.ret) return toBig(f.regs.args[ai]);
  switch (r) {
    case 'ax': return f.ret ? toBig(retvalOf(f.regs)) : 0n;
    case 'ip': return toBig(f.ret ? f.regs.parentIp : f.regs.ip + 1);
    case 'sp': return toBig(f.sp);
    case 'orig_ax': return 0xffffffffffffffffn;
    case 'cs': return 0x10n;
    case 'ss': return 0x18n;
    case 'flags': return 0x246n;
    default: return 0n;
  }
}

/** A fetch result: a number, or a string (or null for a fault). */
export type Fetched = bigint | string | null;

function evalOp(op: Op, f: FetchCtx): bigint | string | null {
  switch (op.k) {
    case 'reg': return regValue(f, op.reg);
    case 'arg': return toBig(f.regs.args[op.n]);
    case 'stackp': return toBig(f.sp);
    case 'stack': return BigInt.asUintN(64, BigInt(f.stackWords[op.n] ?? 0));
    case 'retval': return toBig(retvalOf(f.regs));
    case 'comm': return f.ctx.task.comm;
    case 'imm': return op.v;
    case 'str': return op.s;
    case 'deref': {
      const base = evalOp(op.inner, f);
      if (typeof base !== 'bigint') return null;
      return BigInt.asUintN(64, base + BigInt(op.off));
    }
  }
}

function readMem(addr: bigint, size: number, user: boolean, f: FetchCtx): bigint | null {
  const a = Number(BigInt.asIntN(64, addr));
  // copy_from_kernel_nofault() refuses user addresses; user reads go to the task's memory
  if (!user && addr < 0x8000000000000000n) return null;
  try {
    const mem = user ? userSpace(f.ctx.task.pid) : kmem;
    return mem.readUnsigned(a, size);
  } catch {
    return null;
  }
}

function readStr(addr: bigint, user: boolean, f: FetchCtx): string | null {
  const a = Number(BigInt.asIntN(64, addr));
  if (!user && addr < 0x8000000000000000n) return null;
  try {
    return (user ? userSpace(f.ctx.task.pid) : kmem).readString(a, 4096);
  } catch {
    return null;
  }
}

/** The value of an argument (or its elements); null = fault. */
export function fetchArg(a: ProbeArg, f: FetchCtx): Fetched[] {
  const n = a.count || 1;
  const out: Fetched[] = [];
  const op = a.op;
  for (let i = 0; i < n; i++) {
    if (a.type.string) {
      if (op.k === 'comm' || op.k === 'str') { out.push(op.k === 'comm' ? f.ctx.task.comm : op.s); continue; }
      const addr = evalOp(op, f);
      if (typeof addr !== 'bigint') { out.push(null); continue; }
      const user = a.type.name === 'ustring' || (op.k === 'deref' && op.user);
      // the string is read from the address the deref chain computed
      let p: bigint | null = addr;
      if (op.k === 'deref' && op.inner.k === 'deref') p = readMem(evalOp(op.inner, f) as bigint, 8, op.inner.user, f);
      out.push(p === null ? null : readStr(p + BigInt(i * 8), user, f));
      continue;
    }
    const v = evalOp(op, f);
    if (v === null || typeof v === 'string') { out.push(v === null ? null : 0n); continue; }
    let x: bigint | null = v;
    if (op.k === 'deref') x = readMem(v + BigInt(i * a.type.size), a.type.size, op.user, f);
    if (x === null) { out.push(null); continue; }
    if (a.bf) {
      const bits = BigInt(a.type.size * 8);
      x = (BigInt.asUintN(Number(bits), x << (bits - BigInt(a.bf.width + a.bf.offset)))) >> (bits - BigInt(a.bf.width));
    }
    out.push(BigInt.asUintN(a.type.size * 8, x));
  }
  return out;
}

/** print_type_*(): one value as the trace line shows it. */
export function printArgValue(t: FetchType, v: Fetched): string {
  if (v === null) return '(fault)';
  if (typeof v === 'string') return `"${v}"`;
  const x = BigInt.asUintN(t.size * 8, v);
  if (t.name === 'symbol') {
    const p = lookupAddr(Number(BigInt.asIntN(64, x)));
    return p ? `${symbolName(p.id)}+0x${p.offset.toString(16)}/0x${p.size.toString(16)}` : `0x${x.toString(16)}`;
  }
  if (t.name.startsWith('x')) return `0x${x.toString(16)}`;
  if (t.signed) return BigInt.asIntN(t.size * 8, x).toString();
  return x.toString();
}
