/**
 * Event `print fmt` evaluation: the format string and argument list of an event's format file
 * (TP_printk after macro expansion) parsed once into a C expression tree, then evaluated on a
 * record's fields: REC->field, integer arithmetic in 64 bits, casts, ternaries, the trace helpers
 * (__print_flags, __print_symbolic, __get_str, __get_dynamic_array(_len), __print_hex(_str),
 * __print_array, __get_bitmask) and the kernel's printf (%d %u %x %lx %llx %Lu %zu %s %c %p and
 * the %pS %ps %pK %pM %pI4 %pU extensions). Shared by the `trace` file, trace-cmd report and perf.
 */
import { lookupAddr, symbolName, symbolModule, addrHex } from '../kallsyms';
import { btfTypeCount, btfType, btfEnumValues, BtfKind } from '../btf';

export type Val = bigint | string | Uint8Array | BigInt64Array | null;

/** What an expression reads: a field's value by name, the record's dynamic data. */
export interface Rec {
  field(name: string): Val;
  /** dynamic array bytes of a __data_loc field */
  dyn(name: string): Uint8Array | null;
}

/** How %p and symbols print (tracefs: hashed pointers, %pS with sizes; trace-cmd: its own). */
export interface PrintEnv {
  /** %p with no extension: the value printed (16 hex digits) */
  ptr(v: bigint): string;
  /** %pS / %pB: "sym+0xoff/0xsize [mod]"; %ps / %pf: "sym [mod]" */
  sym(v: bigint, offset: boolean): string;
}

type Node =
  | { k: 'num'; v: bigint }
  | { k: 'str'; v: string }
  | { k: 'field'; name: string }
  | { k: 'id'; name: string }
  | { k: 'un'; op: string; a: Node }
  | { k: 'bin'; op: string; a: Node; b: Node }
  | { k: 'cond'; c: Node; a: Node; b: Node }
  | { k: 'cast'; type: string; a: Node }
  | { k: 'call'; name: string; args: Node[] }
  | { k: 'list'; items: Node[] }
  | { k: 'index'; a: Node; i: Node };

export interface ParsedPrintFmt {
  fmt: string;
  args: Node[];
  /** parse failure: the raw text is shown instead (as libtraceevent's "[FAILED TO PARSE]") */
  error?: string;
}

const M64 = (1n << 64n) - 1n;
const s64 = (v: bigint): bigint => BigInt.asIntN(64, v);

// ---------------------------------------------------------------- tokenizer / parser

type Tok = { t: 'num'; v: bigint } | { t: 'str'; v: string } | { t: 'id'; v: string } | { t: 'op'; v: string } | { t: 'chr'; v: bigint };

function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    switch (e[0]) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'x': return String.fromCharCode(parseInt(e.slice(1), 16));
      default: return /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8)) : e;
    }
  });
}

const OPS = ['->', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '+', '-', '*', '/', '%', '<', '>', '&', '|', '^', '!', '~', '?', ':', '(', ')', '{', '}', '[', ']', ',', '.'];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '"') {
      let j = i + 1, s = '';
      while (j < src.length && src[j] !== '"') { if (src[j] === '\\') { s += src.slice(j, j + 2); j += 2; } else s += src[j++]; }
      out.push({ t: 'str', v: unescape(s) });
      i = j + 1;
      continue;
    }
    if (c === "'") {
      let j = i + 1, s = '';
      while (j < src.length && src[j] !== "'") { if (src[j] === '\\') { s += src.slice(j, j + 2); j += 2; } else s += src[j++]; }
      out.push({ t: 'chr', v: BigInt(unescape(s).charCodeAt(0) || 0) });
      i = j + 1;
      continue;
    }
    const m = /^(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)/.exec(src.slice(i));
    if (m) {
      const t = m[1];
      const v = /^0[xX]/.test(t) ? BigInt(t) : t.length > 1 && t[0] === '0' ? BigInt('0o' + t.slice(1)) : BigInt(t);
      out.push({ t: 'num', v });
      i += m[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) { out.push({ t: 'id', v: id[0] }); i += id[0].length; continue; }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new Error(`unexpected '${c}'`);
    out.push({ t: 'op', v: op });
    i += op.length;
  }
  return out;
}

const TYPE_WORDS = new Set(['unsigned', 'signed', 'long', 'int', 'char', 'short', 'void', 'const', 'volatile', 'struct', 'enum', 'union',
  'bool', '_Bool', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', '__u8', '__u16', '__u32', '__u64', '__s8', '__s16', '__s32', '__s64',
  'size_t', 'ssize_t', 'gfp_t', 'pid_t', 'dev_t', 'loff_t', 'sector_t', 'umode_t', 'ino_t', 'uid_t', 'gid_t', 'phys_addr_t', 'dma_addr_t',
  'uintptr_t', 'ptrdiff_t', 'fmode_t', 'blk_opf_t', 'xfs_ino_t', 'ktime_t', 'time64_t', 'clockid_t', 'resource_size_t', '__le16', '__le32',
  '__be16', '__be32', '__le64', '__be64', '__kernel_size_t', 'slab_flags_t', 'vm_fault_t', 'irq_hw_number_t', 'nfs4_stateid', 'fl_owner_t']);

class Parser {
  private p = 0;
  constructor(private readonly toks: Tok[]) {}
  peek(o = 0): Tok | undefined { return this.toks[this.p + o]; }
  isOp(v: string, o = 0): boolean { const t = this.peek(o); return !!t && t.t === 'op' && t.v === v; }
  eat(v: string): void {
    if (!this.isOp(v)) throw new Error(`expected '${v}'`);
    this.p++;
  }
  done(): boolean { return this.p >= this.toks.length; }
  /** a parenthesised type name at the cursor (after '('): its text and token count */
  typeAt(): { name: string; n: number } | null {
    let i = 0;
    const words: string[] = [];
    for (;;) {
      const t = this.peek(i);
      if (!t) return null;
      if (t.t === 'id' && (TYPE_WORDS.has(t.v) || /_t$/.test(t.v) || (words.length && ['struct', 'enum', 'union'].includes(words[words.length - 1])))) { words.push(t.v); i++; continue; }
      if (t.t === 'op' && t.v === '*' && words.length) { words.push('*'); i++; continue; }
      break;
    }
    if (!words.length || !this.isOp(')', i)) return null;
    return { name: words.join(' ').replace(/ \*/g, ' *'), n: i };
  }
  expr(): Node { return this.cond(); }
  cond(): Node {
    const c = this.bin(0);
    if (this.isOp('?')) {
      this.p++;
      const a = this.expr();
      this.eat(':');
      const b = this.cond();
      return { k: 'cond', c, a, b };
    }
    return c;
  }
  private static PREC: Record<string, number> = {
    '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '<=': 7, '>': 7, '>=': 7, '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
  };
  bin(min: number): Node {
    let a = this.unary();
    for (;;) {
      const t = this.peek();
      if (!t || t.t !== 'op') return a;
      const pr = Parser.PREC[t.v];
      if (pr === undefined || pr <= min) return a;
      this.p++;
      const b = this.bin(pr);
      a = { k: 'bin', op: t.v, a, b };
    }
  }
  unary(): Node {
    const t = this.peek();
    if (t && t.t === 'op' && ['-', '!', '~', '*', '&', '+'].includes(t.v)) { this.p++; return { k: 'un', op: t.v, a: this.unary() }; }
    if (t && t.t === 'op' && t.v === '(') {
      this.p++;
      const ty = this.typeAt();
      if (ty) { this.p += ty.n + 1; return { k: 'cast', type: ty.name, a: this.unary() }; }
      const e = this.expr();
      this.eat(')');
      return this.postfix(e);
    }
    if (t && t.t === 'id' && t.v === 'sizeof') {
      this.p++;
      this.eat('(');
      const ty = this.typeAt();
      if (ty) this.p += ty.n; else this.expr();
      this.eat(')');
      return { k: 'num', v: BigInt(sizeOfType(ty ? ty.name : 'long')) };
    }
    return this.postfix(this.primary());
  }
  postfix(e: Node): Node {
    for (;;) {
      if (this.isOp('[')) { this.p++; const i = this.expr(); this.eat(']'); e = { k: 'index', a: e, i }; continue; }
      if (this.isOp('.') || this.isOp('->')) { this.p++; this.p++; continue; }
      return e;
    }
  }
  primary(): Node {
    const t = this.peek();
    if (!t) throw new Error('unexpected end');
    this.p++;
    if (t.t === 'num' || t.t === 'chr') return { k: 'num', v: t.v };
    if (t.t === 'str') {
      let s = t.v;
      while (this.peek()?.t === 'str') s += (this.toks[this.p++] as { v: string }).v;
      return { k: 'str', v: s };
    }
    if (t.t === 'op' && t.v === '{') {
      const items: Node[] = [];
      while (!this.isOp('}')) { items.push(this.expr()); if (this.isOp(',')) this.p++; }
      this.p++;
      return { k: 'list', items };
    }
    if (t.t !== 'id') throw new Error(`unexpected '${t.v}'`);
    if (t.v === 'REC' && this.isOp('->')) {
      this.p++;
      const f = this.peek();
      if (!f || f.t !== 'id') throw new Error('field name expected');
      this.p++;
      return { k: 'field', name: f.v };
    }
    if (this.isOp('(')) {
      this.p++;
      const args: Node[] = [];
      while (!this.isOp(')')) {
        args.push(this.expr());
        if (this.isOp(',')) this.p++; else if (!this.isOp(')')) throw new Error("expected ')'");
      }
      this.p++;
      return { k: 'call', name: t.v, args };
    }
    return { k: 'id', name: t.v };
  }
}

function sizeOfType(t: string): number {
  if (t.endsWith('*')) return 8;
  if (/\b(char|u8|s8|__u8|bool)\b/.test(t)) return 1;
  if (/\b(short|u16|s16|__u16|__le16|__be16|umode_t)\b/.test(t)) return 2;
  if (/\blong\b|64|size_t|loff_t|sector_t|ktime_t/.test(t)) return 8;
  return 4;
}

/** Parse the text after "print fmt: " of a format file. */
export function parsePrintFmt(text: string): ParsedPrintFmt {
  try {
    const toks = tokenize(text);
    if (!toks.length || toks[0].t !== 'str') throw new Error('no format string');
    let fmt = toks[0].v;
    let i = 1;
    while (toks[i]?.t === 'str') fmt += (toks[i++] as { v: string }).v;
    const p = new Parser(toks.slice(i));
    const args: Node[] = [];
    while (!p.done()) {
      p.eat(',');
      args.push(p.expr());
    }
    return { fmt, args };
  } catch (e) {
    return { fmt: '', args: [], error: (e as Error).message };
  }
}

// ---------------------------------------------------------------- evaluation

function num(v: Val): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string') return 0n;
  if (v instanceof Uint8Array) return v.length ? BigInt(v[0]) : 0n;
  if (v instanceof BigInt64Array) return v.length ? v[0] : 0n;
  return 0n;
}

function truncCast(type: string, v: bigint): bigint {
  if (type.endsWith('*')) return BigInt.asUintN(64, v);
  const size = sizeOfType(type);
  const unsigned = /unsigned|\bu(8|16|32|64)\b|__u|size_t|gfp_t|umode_t|dev_t|sector_t|uintptr_t|__le|__be|bool/.test(type);
  const bits = BigInt(size * 8);
  if (/\bbool\b|_Bool/.test(type)) return v ? 1n : 0n;
  return unsigned ? BigInt.asUintN(Number(bits), v) : BigInt.asIntN(Number(bits), v);
}

/** the named constants of the kernel's enums (BTF), built on first use */
let enumConsts: Map<string, bigint> | null = null;
function enumConstant(name: string): bigint {
  if (!enumConsts) {
    enumConsts = new Map();
    for (let id = 1; id < btfTypeCount(); id++) {
      const k = btfType(id).kind;
      if (k !== BtfKind.ENUM && k !== BtfKind.ENUM64) continue;
      for (const v of btfEnumValues(id)) if (!enumConsts.has(v.name)) enumConsts.set(v.name, v.value);
    }
  }
  return enumConsts.get(name) ?? 0n;
}

class Evaluator {
  constructor(private readonly rec: Rec, private readonly env: PrintEnv) {}
  ev(n: Node): Val {
    switch (n.k) {
      case 'num': return n.v;
      case 'str': return n.v;
      case 'field': return this.rec.field(n.name);
      // an enum constant the kernel left in the format (no TRACE_DEFINE_ENUM: the kernel's own printing has its
      // value, e.g. mm_vmscan_lru_isolate's LRU_ACTIVE_ANON) from the BTF; an unexpanded macro is 0
      case 'id': return enumConstant(n.name);
      case 'list': return 0n;
      case 'index': {
        const a = this.ev(n.a);
        const i = Number(num(this.ev(n.i)));
        if (a instanceof Uint8Array) return BigInt(a[i] ?? 0);
        if (a instanceof BigInt64Array) return a[i] ?? 0n;
        if (typeof a === 'string') return BigInt(a.charCodeAt(i) || 0);
        return 0n;
      }
      case 'cast': {
        const v = this.ev(n.a);
        if (typeof v !== 'bigint') return v;
        return truncCast(n.type, v);
      }
      case 'un': {
        const v = this.ev(n.a);
        switch (n.op) {
          case '-': return s64(-num(v));
          case '+': return num(v);
          case '!': return truthy(v) ? 0n : 1n;
          case '~': return s64(~num(v));
          default: return v; // '*' and '&' of fields: the value itself
        }
      }
      case 'cond': return truthy(this.ev(n.c)) ? this.ev(n.a) : this.ev(n.b);
      case 'bin': return this.bin(n.op, n.a, n.b);
      case 'call': return this.call(n.name, n.args);
    }
  }
  private bin(op: string, an: Node, bn: Node): Val {
    if (op === '&&') return truthy(this.ev(an)) && truthy(this.ev(bn)) ? 1n : 0n;
    if (op === '||') return truthy(this.ev(an)) || truthy(this.ev(bn)) ? 1n : 0n;
    const a = num(this.ev(an)), b = num(this.ev(bn));
    switch (op) {
      case '+': return s64(a + b);
      case '-': return s64(a - b);
      case '*': return s64(a * b);
      case '/': return b === 0n ? 0n : s64(a / b);
      case '%': return b === 0n ? 0n : s64(a % b);
      case '<<': return s64(a << (b & 63n));
      case '>>': return a >> (b & 63n);
      case '&': return s64(a & b);
      case '|': return s64(a | b);
      case '^': return s64(a ^ b);
      case '<': return a < b ? 1n : 0n;
      case '<=': return a <= b ? 1n : 0n;
      case '>': return a > b ? 1n : 0n;
      case '>=': return a >= b ? 1n : 0n;
      case '==': return a === b ? 1n : 0n;
      case '!=': return a !== b ? 1n : 0n;
    }
    return 0n;
  }
  private call(name: string, args: Node[]): Val {
    switch (name) {
      case '__get_str': case '__get_rel_str': {
        const f = args[0];
        const b = f && f.k === 'id' ? this.rec.dyn(f.name) : f && f.k === 'field' ? this.rec.dyn(f.name) : null;
        if (!b) return '';
        const z = b.indexOf(0);
        return Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1');
      }
      case '__get_dynamic_array': case '__get_rel_dynamic_array': case '__get_bitmask': case '__get_rel_bitmask': case '__get_cpumask': {
        const f = args[0];
        const b = f && (f.k === 'id' || f.k === 'field') ? this.rec.dyn(f.name) : null;
        if (name.includes('bitmask') || name.includes('cpumask')) return bitmaskString(b ?? new Uint8Array(0));
        return b ?? new Uint8Array(0);
      }
      case '__get_dynamic_array_len': case '__get_rel_dynamic_array_len': {
        const f = args[0];
        const b = f && (f.k === 'id' || f.k === 'field') ? this.rec.dyn(f.name) : null;
        return BigInt(b ? b.length : 0);
      }
      case '__print_flags': case '__print_flags_u64': {
        const v = BigInt.asUintN(64, num(this.ev(args[0])));
        const delim = String(this.ev(args[1]));
        return printFlags(v, delim, this.pairs(args.slice(2)));
      }
      case '__print_symbolic': case '__print_symbolic_u64': {
        const v = num(this.ev(args[0]));
        for (const [k, s] of this.pairs(args.slice(1))) if (k === BigInt.asUintN(64, v) || k === v) return s;
        return `0x${BigInt.asUintN(64, v).toString(16)}`;
      }
      case '__print_hex': case '__print_hex_str': {
        const b = this.bytes(this.ev(args[0]), Number(num(this.ev(args[1]))));
        return [...b].map((x) => x.toString(16).padStart(2, '0')).join(name === '__print_hex' ? ' ' : '');
      }
      case '__print_array': {
        const a = this.ev(args[0]);
        const count = Number(num(this.ev(args[1])));
        const el = Number(num(this.ev(args[2])));
        const b = this.bytes(a, count * el);
        const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
        const out: string[] = [];
        for (let i = 0; i < count && (i + 1) * el <= b.length; i++) {
          const x = el === 1 ? dv.getUint8(i) : el === 2 ? dv.getUint16(i * 2, true) : el === 4 ? dv.getUint32(i * 4, true) : Number(dv.getBigUint64(i * 8, true));
          out.push('0x' + x.toString(16));
        }
        return '{' + out.join(',') + '}';
      }
      case 'jiffies_to_msecs': return num(this.ev(args[0])) * 4n;
      case '__le16_to_cpu': case '__le32_to_cpu': case '__le64_to_cpu': case 'le16_to_cpu': case 'le32_to_cpu': return num(this.ev(args[0]));
      default:
        // an unknown kernel helper: its first argument (libtraceevent prints what it can)
        return args.length ? this.ev(args[0]) : 0n;
    }
  }
  private pairs(items: Node[]): [bigint, string][] {
    const out: [bigint, string][] = [];
    for (const it of items) {
      if (it.k !== 'list' || it.items.length < 2) continue;
      out.push([BigInt.asUintN(64, num(this.ev(it.items[0]))), String(this.ev(it.items[1]))]);
    }
    return out;
  }
  private bytes(v: Val, len: number): Uint8Array {
    if (v instanceof Uint8Array) return v.subarray(0, Math.max(0, len));
    if (typeof v === 'string') return Buffer.from(v, 'latin1').subarray(0, len);
    return new Uint8Array(0);
  }
}

function truthy(v: Val): boolean {
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'string') return true;
  return v !== null;
}

/** trace_print_flags_seq(): names of the masks contained in v in table order, the rest as 0x..; "" for 0. */
export function printFlags(v: bigint, delim: string, table: [bigint, string][]): string {
  const parts: string[] = [];
  let rest = v;
  for (let i = 0; i < table.length && rest !== 0n; i++) {
    const [mask, name] = table[i];
    if ((rest & mask) !== mask) continue;
    parts.push(name);
    rest &= ~mask;
  }
  if (rest !== 0n) parts.push(`0x${rest.toString(16)}`);
  return parts.join(delim);
}

function bitmaskString(b: Uint8Array): string {
  // trace_print_bitmask_seq(): "%*pb" of the mask, 32-bit chunks, most significant first
  const words: string[] = [];
  for (let i = Math.ceil(b.length / 4) - 1; i >= 0; i--) {
    let w = 0;
    for (let k = 3; k >= 0; k--) w = (w * 256) + (b[i * 4 + k] ?? 0);
    words.push(w.toString(16).padStart(words.length ? 8 : 1, '0'));
  }
  return words.join(',') || '0';
}

// ---------------------------------------------------------------- printf

/** Format with the kernel's vsnprintf rules, taking values from `vals` in order. */
export function kprintf(fmt: string, vals: Val[], env: PrintEnv): string {
  let out = '';
  let ai = 0;
  const next = (): Val => (ai < vals.length ? vals[ai++] : 0n);
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== '%') { out += c; continue; }
    const m = /^%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|L|z|j|t|q)?([diouxXcspn%])/.exec(fmt.slice(i));
    if (!m) { out += c; continue; }
    i += m[0].length - 1;
    const flags = m[1];
    let width = m[2] === '*' ? Number(num(next())) : m[2] ? Number(m[2]) : -1;
    const prec = m[3] === '*' ? Number(num(next())) : m[3] !== undefined ? Number(m[3]) : -1;
    const len = m[4] ?? '';
    const conv = m[5];
    let left = flags.includes('-');
    if (width < 0 && m[2] === '*') { left = true; width = -width; }
    if (conv === '%') { out += '%'; continue; }
    let s: string;
    if (conv === 'p') {
      const v = next();
      // %p extensions: the letters after p
      const ext = /^[A-Za-z0-9]*/.exec(fmt.slice(i + 1))![0];
      const x = pointerExt(ext, v, env);
      i += x.used;
      s = x.text;
    } else if (conv === 's') {
      const v = next();
      s = typeof v === 'string' ? v : v instanceof Uint8Array ? cstr(v) : v === null ? '(null)' : String(v);
      if (prec >= 0) s = s.slice(0, prec);
    } else if (conv === 'c') {
      s = String.fromCharCode(Number(BigInt.asUintN(8, num(next()))));
    } else {
      s = formatInt(num(next()), conv, len, flags, prec);
      if (flags.includes('0') && !left && prec < 0 && width > s.length) {
        const neg = s.startsWith('-') || s.startsWith('+') || s.startsWith(' ');
        const pre = neg ? s[0] : /^0[xX]/.test(s) ? s.slice(0, 2) : '';
        const body = s.slice(pre.length);
        s = pre + body.padStart(width - pre.length, '0');
      }
    }
    if (width > s.length) s = left ? s.padEnd(width) : s.padStart(width);
    out += s;
  }
  return out;
}

function cstr(b: Uint8Array): string {
  const z = b.indexOf(0);
  return Buffer.from(z >= 0 ? b.subarray(0, z) : b).toString('latin1');
}

function formatInt(v: bigint, conv: string, len: string, flags: string, prec: number): string {
  const bits = len === 'll' || len === 'L' || len === 'q' || len === 'l' || len === 'z' || len === 'j' || len === 't' ? 64 : len === 'h' ? 16 : len === 'hh' ? 8 : 32;
  const signed = conv === 'd' || conv === 'i';
  const x = signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
  let s: string;
  if (conv === 'x' || conv === 'X') s = x.toString(16);
  else if (conv === 'o') s = x.toString(8);
  else s = (x < 0n ? -x : x).toString(10);
  if (conv === 'X') s = s.toUpperCase();
  if (prec >= 0 && s.length < prec) s = s.padStart(prec, '0');
  if (flags.includes('#') && x !== 0n) s = (conv === 'x' ? '0x' : conv === 'X' ? '0X' : conv === 'o' ? '0' : '') + s;
  if (signed && x < 0n) s = '-' + s;
  else if (signed && flags.includes('+')) s = '+' + s;
  else if (signed && flags.includes(' ')) s = ' ' + s;
  return s;
}

function pointerExt(ext: string, v: Val, env: PrintEnv): { text: string; used: number } {
  const n = BigInt.asUintN(64, num(v));
  const e = ext[0] ?? '';
  switch (e) {
    case 'S': case 'B': return { text: env.sym(n, true), used: /^[SB]R?/.exec(ext)![0].length };
    case 's': case 'f': case 'F': return { text: env.sym(n, e === 'F'), used: 1 };
    case 'K': case 'x': return { text: n.toString(16).padStart(16, '0'), used: 1 };
    case 'M': case 'm': {
      const b = v instanceof Uint8Array ? v : new Uint8Array(6);
      const sep = e === 'M' ? ':' : '';
      const used = ext[1] === 'R' || ext[1] === 'F' ? 2 : 1;
      return { text: [...b.subarray(0, 6)].map((x) => x.toString(16).padStart(2, '0')).join(sep), used };
    }
    case 'I': case 'i': {
      const b = v instanceof Uint8Array ? v : new Uint8Array(16);
      if (ext[1] === '4') return { text: [...b.subarray(0, 4)].join('.'), used: 2 };
      if (ext[1] === '6') {
        const words: string[] = [];
        for (let k = 0; k < 16; k += 2) words.push(((b[k] << 8) | b[k + 1]).toString(16).padStart(e === 'I' && ext[2] !== 'c' ? 4 : 1, '0'));
        return { text: words.join(':'), used: ext[2] === 'c' ? 3 : 2 };
      }
      if (ext[1] === 'S') return { text: [...b.subarray(4, 8)].join('.'), used: /^[Ii]S[pcsfh]*/.exec(ext)![0].length };
      return { text: env.ptr(n), used: 1 };
    }
    case 'U': {
      const b = v instanceof Uint8Array ? v : new Uint8Array(16);
      const h = [...b.subarray(0, 16)].map((x) => x.toString(16).padStart(2, '0')).join('');
      return { text: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`, used: /^U[bBlL]?/.exec(ext)![0].length };
    }
    default: return { text: env.ptr(n), used: 0 };
  }
}

/** Evaluate a parsed print fmt on a record. */
export function renderPrintFmt(pf: ParsedPrintFmt, rec: Rec, env: PrintEnv): string {
  if (pf.error !== undefined) return '[FAILED TO PARSE]';
  const ev = new Evaluator(rec, env);
  const vals = pf.args.map((a) => ev.ev(a));
  return kprintf(pf.fmt, vals, env);
}

/** Symbol text of an address: "name+0xoff/0xsize [mod]" (offset=true) or "name [mod]". */
export function kernelSym(v: bigint, offset: boolean): string {
  const a = Number(BigInt.asIntN(64, v));
  const p = lookupAddr(a);
  if (!p) return `0x${BigInt.asUintN(64, v).toString(16)}`;
  const mod = symbolModule(p.id);
  const name = symbolName(p.id);
  const base = offset ? `${name}+0x${p.offset.toString(16)}/0x${p.size.toString(16)}` : name;
  return mod ? `${base} [${mod}]` : base;
}

/** A pointer's 64-bit hex text. */
export function ptrHex(v: bigint): string {
  return addrHex(Number(BigInt.asIntN(64, v))).padStart(16, '0');
}

export const M64MASK = M64;
