/**
 * Run time of target expressions (`__tv`): walks a Plan (src/probes/targets.ts, passes 2-3) over
 * the hit's registers and the simulated kernel memory (src/kernel/memory.ts), and the pretty
 * printing of `$x$`, `$x$$`, `$$vars`; writes of guru-mode assignments (`$return = v`, `$p->f = v`).
 * Faults become stap's `read fault` / `write fault` errors.
 */
import {
  btfType, btfResolve, btfIntInfo, btfArrayInfo, btfMembers, BtfKind,
} from '../kernel/btf';
import { kmem, KernelFault, kernelStack, THREAD_SIZE } from '../kernel/memory';
import { evalLocation, LocationError } from '../kernel/locals';
import { StapError } from '../runtime/errors';
import type { ProbeContext } from '../runtime/context';
import type { KHit } from './hit';
import { retvalOf } from '../kernel/current';
import { safeSizeof, type Plan, type Base } from './targets';


export function readFault(addr: number): StapError {
  return new StapError(`read fault [man error::fault] at 0x${BigInt.asUintN(64, BigInt(addr)).toString(16)}`);
}

/** A JS value (kcall arg / return) of a BTF type as a stap long or address. */
export function valueOf(v: unknown, type: number): number | bigint {
  const r = type ? btfResolve(type) : 0;
  const t = r ? btfType(r) : null;
  if (t && t.kind === BtfKind.PTR) return kmem.addrOf(v, t.type);
  if (v === undefined || v === null) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'bigint') {
    if (t && (t.kind === BtfKind.INT || t.kind === BtfKind.ENUM)) {
      const size = t.size || 8;
      const signed = t.kind === BtfKind.INT ? btfIntInfo(r).signed : t.kflag;
      if (size < 8 || !signed) {
        const b = BigInt(typeof v === 'number' ? Math.trunc(v) : v);
        const x = signed ? BigInt.asIntN(size * 8, b) : BigInt.asUintN(size * 8, b);
        const y = BigInt.asIntN(64, x);
        return y >= -9007199254740991n && y <= 9007199254740991n ? Number(y) : y;
      }
    }
    return typeof v === 'number' ? Math.trunc(v) : BigInt.asIntN(64, v);
  }
  if (typeof v === 'object' || typeof v === 'function') return kmem.addrOf(v, null);
  return 0;
}

function hitOf(c: ProbeContext): KHit {
  return c.data as KHit;
}

/** The hit's arguments; an inline function's (`fn`) from the registers of its shared site. */
function argsFor(h: KHit, fn: string | undefined): readonly unknown[] {
  if (h.entryArgs) return h.entryArgs;
  return fn !== undefined && h.regs.argsOf ? h.regs.argsOf(fn) : h.args;
}

function baseValue(c: ProbeContext, p: Plan, operand: unknown): number | bigint {
  const b = p.base;
  switch (b.k) {
    case 'arg': return valueOf(argsFor(hitOf(c), b.fn)[b.i], p.baseType);
    case 'ret': return valueOf(retvalOf(hitOf(c).regs), p.baseType);
    case 'addr': return b.addr;
    case 'operand': return typeof operand === 'bigint' ? Number(BigInt.asIntN(64, operand)) : Number(operand);
    case 'local': return localValue(c, b);
  }
}

/** A DWARF local's value (or address, for a memory location) at the entry pc of this hit. */
function localValue(c: ProbeContext, b: { expr: string; args: number[] }): number | bigint {
  const h = hitOf(c);
  const args = h.entryArgs ?? h.args;
  const top = BigInt.asUintN(64, BigInt(kernelStack(h.cpuCtx.task) + THREAD_SIZE));
  try {
    const v = evalLocation(b.expr, {
      arg: (i) => BigInt.asUintN(64, BigInt(valueOf(args[i], b.args[i] ?? 0))),
      // the entry frame sits below the pt_regs at the top of the task's kernel stack
      cfa: top - 168n - 0x400n,
      read: (a) => kmem.readUnsigned(Number(BigInt.asIntN(64, a)), 8),
    });
    const s = BigInt.asIntN(64, v);
    return s >= -9007199254740991n && s <= 9007199254740991n ? Number(s) : s;
  } catch (e) {
    if (e instanceof LocationError) throw new StapError(`${e.message} [man error::dwarf]`);
    if (e instanceof KernelFault) throw readFault(e.addr);
    throw e;
  }
}

function toNum(v: number | bigint): number {
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : v;
}

function readInt(addr: number, size: number, signed: boolean, bitSize: number, bitOffset: number): number | bigint {
  let u = kmem.readUnsigned(addr, size);
  if (bitSize) u = (u >> BigInt(bitOffset)) & ((1n << BigInt(bitSize)) - 1n);
  const bits = bitSize || size * 8;
  const x = signed ? BigInt.asIntN(bits, u) : u;
  const y = BigInt.asIntN(64, x);
  return y >= -9007199254740991n && y <= 9007199254740991n ? Number(y) : y;
}

/**
 * The address a plan's steps lead to (its base is a value or a variable in memory): each step
 * dereferences and/or adds an offset (a dynamic index from `rest`, from `ri` on).
 */
function walk(p: Plan, base: number | bigint, rest: unknown[], ri: number, addressOnly: boolean): number {
  const inMemory = p.base.k === 'addr' || (p.base.k === 'local' && p.base.mem);
  let addr = inMemory ? toNum(base) : 0;
  let isValue = !inMemory;
  const val = toNum(base);
  let cur = 0;
  for (const s of p.steps) {
    if (s.deref) {
      cur = isValue ? val : kmem.readPtr(addr);
      // `&@cast(P, "T")->m` computes an address without reading at P (@offsetof, @container_of)
      if ((cur === 0 || !kmem.isMapped(cur)) && !(isValue && addressOnly)) throw new KernelFault(cur);
      addr = cur;
    } else if (isValue) {
      addr = val;
    }
    isValue = false;
    addr += s.dyn !== undefined ? Number(rest[ri++] as number) * s.dyn : s.off;
  }
  return addr;
}

/** `__tv(c, plan, [operand], ...indexes)`: evaluate a target expression. */
export function evalTarget(c: ProbeContext, p: Plan, ...rest: unknown[]): number | bigint | string {
  const fin = p.final;
  if (fin.k === 'vars') return varsText(c, p, fin.what, fin.deep);
  if (fin.k === 'tpname') return hitOf(c).tp?.name ?? '';
  if (fin.k === 'tpsystem') return hitOf(c).tp?.system ?? '';
  let ri = 0;
  const operand = p.base.k === 'operand' ? rest[ri++] : undefined;
  const base = baseValue(c, p, operand);
  // a global: the base is the variable in memory (an lvalue), not a value
  const inMemory = p.base.k === 'addr' || (p.base.k === 'local' && p.base.mem);
  if (p.steps.length === 0 && !inMemory) {
    if (fin.k === 'pretty') {
      if (p.base.k === 'operand') return prettyAt(toNum(base), fin.type, fin.deep, 0);
      return prettyValue(base, fin.type, fin.deep);
    }
    return base;
  }
  try {
    const addr = walk(p, base, rest, ri, fin.k === 'addr');
    switch (fin.k) {
      case 'addr': return addr;
      case 'ptr': return kmem.readPtr(addr);
      case 'int': return readInt(addr, fin.size, fin.signed, fin.bitSize, fin.bitOffset);
      case 'chars': return kmem.readString(addr, Math.min(fin.len, c.engine.maxStringLen - 1));
      case 'pretty': {
        const pt = btfType(btfResolve(fin.type));
        if (pt.kind === BtfKind.PTR) return prettyValue(kmem.readPtr(addr), fin.type, fin.deep, true);
        return prettyAt(addr, fin.type, fin.deep, 0);
      }
    }
  } catch (e) {
    if (e instanceof KernelFault) throw readFault(e.addr);
    throw e;
  }
  return 0;
}

/**
 * `__tvset(c, plan, value, [operand], ...indexes)`: a guru-mode assignment (`$return = v`,
 * `$param = v`, `$p->member = v`, `@cast(...)->m = v`), as stap's generated setter does it: a
 * parameter or `$return` is the register the probe saw (later handlers of the hit and the
 * return path read the new value), a member is written into the simulated kernel memory.
 */
export function writeTarget(c: ProbeContext, p: Plan, value: number | bigint, ...rest: unknown[]): number | bigint {
  const fin = p.final;
  let ri = 0;
  const operand = p.base.k === 'operand' ? rest[ri++] : undefined;
  const inMemory = p.base.k === 'addr' || (p.base.k === 'local' && p.base.mem);
  const h = hitOf(c);
  if (p.steps.length === 0 && !inMemory) {
    if (p.base.k === 'ret') {
      h.regs.retval = value;
      return value;
    }
    if (p.base.k === 'arg') {
      const args = [...argsFor(h, p.base.fn)];
      args[p.base.i] = value;
      h.regs.args = args;
      if (h.entryArgs) h.entryArgs = args;
      else if (Object.getOwnPropertyDescriptor(Object.getPrototypeOf(h), 'args')?.set) (h as { args: readonly unknown[] }).args = args;
      return value;
    }
    throw new StapError('write to this target variable is not supported [man error::dwarf]');
  }
  let addr = 0;
  try {
    addr = walk(p, baseValue(c, p, operand), rest, ri, false);
    if (fin.k === 'int') {
      let u = BigInt.asUintN(64, BigInt(value));
      if (fin.bitSize) {
        const mask = ((1n << BigInt(fin.bitSize)) - 1n) << BigInt(fin.bitOffset);
        u = (kmem.readUnsigned(addr, fin.size) & ~mask) | ((u << BigInt(fin.bitOffset)) & mask);
      }
      kmem.writeUnsigned(addr, fin.size, u);
    } else if (fin.k === 'ptr') {
      kmem.writePtr(addr, toNum(value));
    } else {
      throw new StapError('write to this target variable is not supported [man error::dwarf]');
    }
  } catch (e) {
    if (e instanceof KernelFault) throw new StapError(`write fault [man error::fault] at 0x${BigInt.asUintN(64, BigInt(e.addr)).toString(16)}`);
    throw e;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Pretty printing ($x$, $x$$, $$vars)

function hex(v: number | bigint): string {
  const b = BigInt.asUintN(64, BigInt(v));
  return '0x' + b.toString(16);
}

function quoteChars(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (code < 32 || code >= 127) out += '\\' + code.toString(8).padStart(3, '0');
    else out += ch;
  }
  return out + '"';
}

function isCharType(id: number): boolean {
  const t = btfType(btfResolve(id));
  return t.kind === BtfKind.INT && t.size === 1;
}

/** A scalar value (not in memory) of a type, pretty. */
function prettyValue(v: number | bigint, type: number, deep: boolean, top = true): string {
  const r = btfResolve(type);
  const t = btfType(r);
  if (t.kind === BtfKind.PTR) {
    if (isCharType(t.type) && v !== 0) {
      try {
        return quoteChars(kmem.readString(toNum(v), 200));
      } catch {
        return hex(v);
      }
    }
    if (top) {
      // `$ptr$` / `$ptr$$` show the pointed-to struct
      const pt = btfType(btfResolve(t.type));
      if ((pt.kind === BtfKind.STRUCT || pt.kind === BtfKind.UNION) && v !== 0) {
        try {
          return prettyAt(toNum(v), t.type, deep, 0);
        } catch {
          return hex(v);
        }
      }
    }
    return hex(v);
  }
  if (t.kind === BtfKind.INT) {
    const info = btfIntInfo(r);
    if (info.bool) return String(v);
    if (t.size === 1 && info.char) return `'${String.fromCharCode(Number(BigInt.asUintN(8, BigInt(v))))}'`;
    return String(v);
  }
  return String(v);
}

/** Pretty text of an object in memory at addr. */
function prettyAt(addr: number, type: number, deep: boolean, depth: number): string {
  const r = btfResolve(type);
  const t = btfType(r);
  try {
    switch (t.kind) {
      case BtfKind.STRUCT: case BtfKind.UNION: {
        if (depth > 0 && !deep) return '{...}';
        if (depth > 4) return '{...}';
        const parts: string[] = [];
        for (const m of btfMembers(r)) {
          const at = addr + Math.floor(m.bitOffset / 8);
          const body = memberPretty(at, m.type, deep, depth + 1, m.bitSize, m.bitOffset % 8);
          parts.push(m.name ? `.${m.name}=${body}` : body);
        }
        return `{${parts.join(', ')}}`;
      }
      default:
        return memberPretty(addr, type, deep, depth, 0, 0);
    }
  } catch (e) {
    if (e instanceof KernelFault) throw readFault(e.addr);
    throw e;
  }
}

function memberPretty(at: number, type: number, deep: boolean, depth: number, bitSize: number, bitOffset: number): string {
  const r = btfResolve(type);
  const t = btfType(r);
  switch (t.kind) {
    case BtfKind.STRUCT: case BtfKind.UNION:
      return prettyAt(at, r, deep, depth);
    case BtfKind.ARRAY: {
      const a = btfArrayInfo(r);
      if (isCharType(a.elemType)) return quoteChars(kmem.readString(at, a.nelems));
      if (!deep && depth > 1) return '[...]';
      const es = safeSizeof(a.elemType);
      const items: string[] = [];
      for (let i = 0; i < Math.min(a.nelems, 8); i++) items.push(memberPretty(at + i * es, a.elemType, deep, depth + 1, 0, 0));
      if (a.nelems > 8) items.push('...');
      return `[${items.join(', ')}]`;
    }
    case BtfKind.PTR:
      return prettyValue(kmem.readPtr(at), r, false, false);
    case BtfKind.INT: {
      const info = btfIntInfo(r);
      return prettyValue(readInt(at, t.size, info.signed, bitSize, bitOffset), r, false, false);
    }
    case BtfKind.ENUM: case BtfKind.ENUM64:
      return String(readInt(at, t.size || 4, t.kflag, bitSize, bitOffset));
    default:
      return '?';
  }
}

function varsText(c: ProbeContext, p: Plan, what: 'vars' | 'parms' | 'locals' | 'return', deep: number): string {
  const h = hitOf(c);
  const parts: string[] = [];
  if (what === 'return') {
    if (p.retType === undefined) return '';
    const v = valueOf(retvalOf(h.regs), p.retType);
    return `return=${deep ? prettyValue(v, p.retType, deep > 1) : hex(v)}`;
  }
  for (const v of p.vars ?? []) {
    const t = btfType(btfResolve(v.type));
    let text: string;
    if (v.base.k === 'local') {
      const b = v.base;
      // a struct local in plain $$vars/$$locals is `{...}`: its value is not read (nor its frame address)
      if (!deep && b.mem && (t.kind === BtfKind.STRUCT || t.kind === BtfKind.UNION)) {
        parts.push(`${v.name}={...}`);
        continue;
      }
      try {
        text = localText(c, b, v.type, t.kind, deep);
      } catch (e) {
        if (!(e instanceof StapError)) throw e;
        continue;   // not computable here (a register the entry does not know)
      }
      parts.push(`${v.name}=${text}`);
      continue;
    }
    if (v.base.k !== 'arg') continue;
    const raw = argsFor(h, v.base.fn)[v.base.i];
    if (t.kind === BtfKind.STRUCT || t.kind === BtfKind.UNION) text = deep ? prettyAt(valueAddr(raw, v.type), v.type, deep > 1, 0) : '{...}';
    else {
      const val = valueOf(raw, v.type);
      text = deep ? prettyValue(val, v.type, deep > 1) : hex(val);
    }
    parts.push(`${v.name}=${text}`);
  }
  return parts.join(' ');
}

/** `name=...` text of a DWARF local in $$vars/$$locals. */
function localText(c: ProbeContext, b: Extract<Base, { k: 'local' }>, type: number, kind: BtfKind, deep: number): string {
  const v = localValue(c, b);
  if (!b.mem) return deep ? prettyValue(v, type, deep > 1) : hex(v);
  const addr = toNum(v);
  if (kind === BtfKind.STRUCT || kind === BtfKind.UNION) return deep ? prettyAt(addr, type, deep > 1, 0) : '{...}';
  try {
    const val = kind === BtfKind.PTR ? kmem.readPtr(addr) : readInt(addr, Math.min(8, safeSizeof(type)) || 8, false, 0, 0);
    return deep ? prettyValue(val, type, deep > 1) : hex(val);
  } catch (e) {
    if (e instanceof KernelFault) throw readFault(e.addr);
    throw e;
  }
}


function valueAddr(raw: unknown, type: number): number {
  return kmem.addrOf(raw, type);
}
