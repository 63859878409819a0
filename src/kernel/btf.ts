/**
 * BTF: the vmlinux .BTF section of Debian's 6.1.0-56-amd64 kernel, parsed in place.
 * Gives function prototypes with parameter names and types (FUNC -> FUNC_PROTO), and every
 * struct/union/enum/typedef with member offsets, for `-L` listings, `$var->a->b` chains and @cast.
 *
 * Type ids are the kernel's BTF ids (0 = void). Nothing is decoded until first use.
 */
import { readDataBuffer, noteParseTime } from './data';

export enum BtfKind {
  UNKN = 0, INT = 1, PTR = 2, ARRAY = 3, STRUCT = 4, UNION = 5, ENUM = 6, FWD = 7, TYPEDEF = 8,
  VOLATILE = 9, CONST = 10, RESTRICT = 11, FUNC = 12, FUNC_PROTO = 13, VAR = 14, DATASEC = 15,
  FLOAT = 16, DECL_TAG = 17, TYPE_TAG = 18, ENUM64 = 19,
}

export class BtfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BtfError';
  }
}

export interface BtfType {
  id: number;
  kind: BtfKind;
  name: string;
  /** size in bytes for INT/STRUCT/UNION/ENUM/FLOAT/DATASEC */
  size: number;
  /** referenced type for PTR/TYPEDEF/CONST/VOLATILE/RESTRICT/FUNC/FUNC_PROTO(return)/VAR/TYPE_TAG */
  type: number;
  vlen: number;
  kflag: boolean;
}

export interface BtfMember {
  name: string;
  type: number;
  /** offset from the start of the containing struct, in bits */
  bitOffset: number;
  /** bitfield width, 0 for a normal member */
  bitSize: number;
}

export interface BtfParam {
  name: string;
  type: number;
}

export interface BtfFunc {
  id: number;
  name: string;
  /** 0 static, 1 global, 2 extern */
  linkage: number;
  ret: number;
  params: BtfParam[];
  variadic: boolean;
}

interface Parsed {
  dv: DataView;
  buf: Buffer;
  strOff: number;
  /** byte offset of each type record, indexed by id (0 unused) */
  offs: Uint32Array;
  count: number;
  byName: NameTable | null;
  /** vmlinux string section length: offsets at or above it are in the modules' strings */
  vmStrLen: number;
  modStrOff: number;
}

let P: Parsed | null = null;

function extraLen(kind: number, vlen: number): number {
  switch (kind) {
    case BtfKind.INT: return 4;
    case BtfKind.ARRAY: return 12;
    case BtfKind.STRUCT: case BtfKind.UNION: return 12 * vlen;
    case BtfKind.ENUM: return 8 * vlen;
    case BtfKind.FUNC_PROTO: return 8 * vlen;
    case BtfKind.VAR: return 4;
    case BtfKind.DATASEC: return 12 * vlen;
    case BtfKind.DECL_TAG: return 4;
    case BtfKind.ENUM64: return 12 * vlen;
    default: return 0;
  }
}

function parsed(): Parsed {
  if (P) return P;
  const buf = readDataBuffer('vmlinux.btf.gz');
  const t0 = Date.now();
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (dv.getUint16(0, true) !== 0xeb9f) throw new BtfError('bad BTF magic');
  const hdrLen = dv.getUint32(4, true);
  const typeOff = hdrLen + dv.getUint32(8, true);
  const typeLen = dv.getUint32(12, true);
  const strOff = hdrLen + dv.getUint32(16, true);
  const offs: number[] = [0];
  let p = typeOff;
  const end = typeOff + typeLen;
  while (p < end) {
    offs.push(p);
    const info = dv.getUint32(p + 4, true);
    p += 12 + extraLen((info >>> 24) & 0x1f, info & 0xffff);
  }
  // loaded modules' split BTF (modules.gz.btf: ids and string offsets continue vmlinux's)
  let all = buf;
  let modStrOff = 0;
  const vmStrLen = dv.getUint32(20, true);
  let mod: Buffer | null = null;
  try { mod = readDataBuffer('modules.btf.gz'); } catch { mod = null; }
  if (mod && mod.length > 24) {
    all = Buffer.concat([buf, mod]);
    const mdv = new DataView(all.buffer, all.byteOffset, all.byteLength);
    const base = buf.length;
    const mh = mdv.getUint32(base + 4, true);
    const mt = base + mh + mdv.getUint32(base + 8, true);
    const mtl = mdv.getUint32(base + 12, true);
    modStrOff = base + mh + mdv.getUint32(base + 16, true);
    let q = mt;
    while (q < mt + mtl) {
      offs.push(q);
      const info = mdv.getUint32(q + 4, true);
      q += 12 + extraLen((info >>> 24) & 0x1f, info & 0xffff);
    }
    P = { dv: mdv, buf: all, strOff, offs: Uint32Array.from(offs), count: offs.length, byName: null, vmStrLen, modStrOff };
  } else P = { dv, buf, strOff, offs: Uint32Array.from(offs), count: offs.length, byName: null, vmStrLen, modStrOff };
  noteParseTime('vmlinux.btf.gz', Date.now() - t0);
  return P;
}

function str(off: number): string {
  const p = parsed();
  const start = off < p.vmStrLen ? p.strOff + off : p.modStrOff + (off - p.vmStrLen);
  const end = p.buf.indexOf(0, start);
  return p.buf.toString('latin1', start, end);
}

/** Number of type ids (including id 0 = void). */
export function btfTypeCount(): number {
  return parsed().count;
}

export function btfType(id: number): BtfType {
  const p = parsed();
  if (id === 0) return { id: 0, kind: BtfKind.UNKN, name: 'void', size: 0, type: 0, vlen: 0, kflag: false };
  if (id >= p.count && id - p.count < derived.length) return derived[id - p.count].t;
  if (!(id > 0 && id < p.count)) throw new BtfError(`no BTF type id ${id}`);
  const o = p.offs[id];
  const info = p.dv.getUint32(o + 4, true);
  const st = p.dv.getUint32(o + 8, true);
  const kind = (info >>> 24) & 0x1f;
  const sized = kind === BtfKind.INT || kind === BtfKind.STRUCT || kind === BtfKind.UNION ||
    kind === BtfKind.ENUM || kind === BtfKind.ENUM64 || kind === BtfKind.FLOAT || kind === BtfKind.DATASEC;
  return {
    id, kind, name: str(p.dv.getUint32(o, true)), size: sized ? st : 0, type: sized ? 0 : st,
    vlen: info & 0xffff, kflag: (info >>> 31) === 1,
  };
}

/**
 * The type ids by name, without decoding a name: the ids chained per bucket of a hash of their
 * name's bytes (FNV-1a), found by comparing bytes.  (A map of decoded names cost ~100k strings
 * to answer the few names a script's $vars ask for.)
 */
interface NameTable {
  mask: number;
  /** the last id of each bucket (0: none), and each id's previous one in its bucket */
  heads: Int32Array;
  next: Int32Array;
}

/** Where the name at string offset `off` starts in the buffer. */
function strStart(p: Parsed, off: number): number {
  return off < p.vmStrLen ? p.strOff + off : p.modStrOff + (off - p.vmStrLen);
}

function nameTable(): NameTable {
  const p = parsed();
  if (p.byName) return p.byName;
  const t0 = Date.now();
  let size = 1;
  while (size < p.count * 2) size <<= 1;
  const t: NameTable = { mask: size - 1, heads: new Int32Array(size), next: new Int32Array(p.count) };
  const buf = p.buf;
  for (let id = 1; id < p.count; id++) {
    const no = p.dv.getUint32(p.offs[id], true);
    if (!no) continue;
    let h = 0x811c9dc5;
    for (let i = strStart(p, no); buf[i] !== 0; i++) h = Math.imul(h ^ buf[i], 16777619);
    const b = h & t.mask;
    t.next[id] = t.heads[b];
    t.heads[b] = id;
  }
  p.byName = t;
  noteParseTime('vmlinux.btf.gz', Date.now() - t0);
  return t;
}

/** Type ids with this name, in id order. */
function idsNamed(name: string): number[] {
  const p = parsed();
  const t = nameTable();
  const want = Buffer.from(name, 'latin1');
  let h = 0x811c9dc5;
  for (let i = 0; i < want.length; i++) h = Math.imul(h ^ want[i], 16777619);
  const out: number[] = [];
  for (let id = t.heads[h & t.mask]; id; id = t.next[id]) {
    const no = p.dv.getUint32(p.offs[id], true);
    const at = strStart(p, no);
    if (p.buf[at + want.length] === 0 && p.buf.compare(want, 0, want.length, at, at + want.length) === 0) out.push(id);
  }
  // (chained last id first)
  return out.reverse();
}

/** Type ids with this name, optionally of one kind. */
export function btfFindByName(name: string, kind?: BtfKind): number[] {
  // (a name with a NUL is no BTF name)
  const ids = name.includes('\0') ? [] : idsNamed(name);
  return kind === undefined ? ids : ids.filter((id) => btfType(id).kind === kind);
}

/** Names of all BTF entries of a kind (e.g. every FUNC), in id order. */
export function btfNamesOfKind(kind: BtfKind): string[] {
  const p = parsed();
  const out: string[] = [];
  for (let id = 1; id < p.count; id++) {
    const o = p.offs[id];
    if (((p.dv.getUint32(o + 4, true) >>> 24) & 0x1f) === kind) out.push(str(p.dv.getUint32(o, true)));
  }
  return out;
}

/** INT encoding: signed / char / bool flags and bit size. */
export function btfIntInfo(id: number): { signed: boolean; char: boolean; bool: boolean; bits: number; offset: number } {
  const t = btfType(id);
  if (t.kind !== BtfKind.INT) throw new BtfError(`type ${id} is not an INT`);
  const v = parsed().dv.getUint32(parsed().offs[id] + 12, true);
  const enc = (v >>> 24) & 0xf;
  return { signed: (enc & 1) !== 0, char: (enc & 2) !== 0, bool: (enc & 4) !== 0, bits: v & 0xff, offset: (v >>> 16) & 0xff };
}

export function btfArrayInfo(id: number): { elemType: number; indexType: number; nelems: number } {
  const t = btfType(id);
  if (t.kind !== BtfKind.ARRAY) throw new BtfError(`type ${id} is not an ARRAY`);
  if (id >= parsed().count) return derived[id - parsed().count].array!;
  const o = parsed().offs[id] + 12;
  const dv = parsed().dv;
  return { elemType: dv.getUint32(o, true), indexType: dv.getUint32(o + 4, true), nelems: dv.getUint32(o + 8, true) };
}

/** Direct members of a struct/union (anonymous members appear with name ''). */
export function btfMembers(id: number): BtfMember[] {
  const t = btfType(id);
  if (t.kind !== BtfKind.STRUCT && t.kind !== BtfKind.UNION) throw new BtfError(`type ${id} is not a struct/union`);
  const p = parsed();
  const out: BtfMember[] = [];
  let o = p.offs[id] + 12;
  for (let i = 0; i < t.vlen; i++, o += 12) {
    const off = p.dv.getUint32(o + 8, true);
    out.push({
      name: str(p.dv.getUint32(o, true)), type: p.dv.getUint32(o + 4, true),
      bitOffset: t.kflag ? off & 0xffffff : off, bitSize: t.kflag ? off >>> 24 : 0,
    });
  }
  return out;
}

export function btfEnumValues(id: number): { name: string; value: bigint }[] {
  const t = btfType(id);
  const p = parsed();
  const out: { name: string; value: bigint }[] = [];
  let o = p.offs[id] + 12;
  if (t.kind === BtfKind.ENUM) {
    for (let i = 0; i < t.vlen; i++, o += 8) {
      const v = t.kflag ? BigInt(p.dv.getInt32(o + 4, true)) : BigInt(p.dv.getUint32(o + 4, true));
      out.push({ name: str(p.dv.getUint32(o, true)), value: v });
    }
  } else if (t.kind === BtfKind.ENUM64) {
    for (let i = 0; i < t.vlen; i++, o += 12) {
      const v = (BigInt(p.dv.getUint32(o + 8, true)) << 32n) | BigInt(p.dv.getUint32(o + 4, true));
      out.push({ name: str(p.dv.getUint32(o, true)), value: t.kflag ? BigInt.asIntN(64, v) : v });
    }
  } else throw new BtfError(`type ${id} is not an enum`);
  return out;
}

export function btfProtoParams(protoId: number): { params: BtfParam[]; variadic: boolean } {
  const t = btfType(protoId);
  if (t.kind !== BtfKind.FUNC_PROTO) throw new BtfError(`type ${protoId} is not a FUNC_PROTO`);
  const p = parsed();
  const params: BtfParam[] = [];
  let variadic = false;
  let o = p.offs[protoId] + 12;
  for (let i = 0; i < t.vlen; i++, o += 8) {
    const nameOff = p.dv.getUint32(o, true);
    const type = p.dv.getUint32(o + 4, true);
    if (i === t.vlen - 1 && nameOff === 0 && type === 0) { variadic = true; break; }
    params.push({ name: str(nameOff), type });
  }
  return { params, variadic };
}

/** Prototype of a kernel function by name (the BTF FUNC record), or null when BTF lacks it. */
export function btfFunc(name: string): BtfFunc | null {
  const ids = btfFindByName(name, BtfKind.FUNC);
  if (!ids.length) return null;
  const f = btfType(ids[0]);
  const proto = btfType(f.type);
  const { params, variadic } = btfProtoParams(proto.id);
  return { id: f.id, name, linkage: f.vlen, ret: proto.type, params, variadic };
}

/** Skip typedef/const/volatile/restrict/type_tag. */
export function btfResolve(id: number): number {
  for (let n = 0; n < 64; n++) {
    const t = btfType(id);
    if (t.kind === BtfKind.TYPEDEF || t.kind === BtfKind.CONST || t.kind === BtfKind.VOLATILE ||
      t.kind === BtfKind.RESTRICT || t.kind === BtfKind.TYPE_TAG) id = t.type;
    else return id;
  }
  throw new BtfError(`type chain too deep at ${id}`);
}

/** sizeof(type) in bytes. */
export function btfSizeof(id: number): number {
  const r = btfResolve(id);
  const t = btfType(r);
  switch (t.kind) {
    case BtfKind.INT: case BtfKind.STRUCT: case BtfKind.UNION: case BtfKind.ENUM: case BtfKind.ENUM64:
    case BtfKind.FLOAT: return t.size;
    case BtfKind.PTR: return 8;
    case BtfKind.ARRAY: { const a = btfArrayInfo(r); return a.nelems * btfSizeof(a.elemType); }
    case BtfKind.UNKN: return 0;
    default: throw new BtfError(`sizeof of ${BtfKind[t.kind]} ${t.name}`);
  }
}

/** Find a named member, looking through anonymous struct/union members as C does. */
export function btfFindMember(structId: number, name: string): BtfMember | null {
  const sid = btfResolve(structId);
  const t = btfType(sid);
  if (t.kind !== BtfKind.STRUCT && t.kind !== BtfKind.UNION) return null;
  for (const m of btfMembers(sid)) {
    if (m.name === name) return m;
    if (m.name === '') {
      const inner = btfFindMember(m.type, name);
      if (inner) return { ...inner, bitOffset: inner.bitOffset + m.bitOffset };
    }
  }
  return null;
}

function findComposite(kindName: string, name: string): number {
  const kind = kindName === 'struct' ? BtfKind.STRUCT : kindName === 'union' ? BtfKind.UNION :
    kindName === 'enum' ? BtfKind.ENUM : BtfKind.TYPEDEF;
  let ids = btfFindByName(name, kind);
  if (!ids.length && kind === BtfKind.ENUM) ids = btfFindByName(name, BtfKind.ENUM64);
  if (!ids.length) return -1;
  // prefer a complete definition (non-zero size / members)
  return ids.find((id) => btfType(id).vlen > 0 || btfType(id).size > 0) ?? ids[0];
}

/** Resolve a C type name: "struct file", "union x", "enum y", "task_struct" (struct), typedefs, base ints, "T *". */
export function btfLookupType(cname: string): number | null {
  let s = cname.trim();
  let ptr = 0;
  while (s.endsWith('*')) { ptr++; s = s.slice(0, -1).trim(); }
  s = s.replace(/\bconst\b|\bvolatile\b/g, '').replace(/\s+/g, ' ').trim();
  let id = -1;
  const m = /^(struct|union|enum)\s+(\w+)$/.exec(s);
  if (m) id = findComposite(m[1], m[2]);
  else {
    const ids = btfFindByName(s).filter((i) => {
      const k = btfType(i).kind;
      return k === BtfKind.TYPEDEF || k === BtfKind.INT || k === BtfKind.FLOAT || k === BtfKind.STRUCT ||
        k === BtfKind.UNION || k === BtfKind.ENUM;
    });
    const kinds = [BtfKind.TYPEDEF, BtfKind.INT, BtfKind.FLOAT, BtfKind.STRUCT, BtfKind.UNION, BtfKind.ENUM];
    for (const k of kinds) {
      const c = ids.filter((i) => btfType(i).kind === k);
      if (c.length) { id = c.find((i) => btfType(i).size > 0 || btfType(i).vlen > 0) ?? c[0]; break; }
    }
    if (s === 'void') id = 0;
  }
  if (id < 0) return null;
  if (ptr === 0) return id;
  // find a PTR type pointing at id (BTF only has the pointer types the kernel uses)
  for (let n = 0; n < ptr; n++) {
    const p = findPointerTo(id);
    if (p === null) return null;
    id = p;
  }
  return id;
}

// ---------------------------------------------------------------- derived types

/**
 * Pointer and array types BTF does not carry (BTF only has the ones the kernel's own types use):
 * made on demand for DWARF-typed values (a global `kmem_cache *[4][14]`), with ids after the
 * last BTF id. btfType/btfArrayInfo/btfSizeof/btfTypeName treat them as any other type.
 */
const derived: { t: BtfType; array?: { elemType: number; indexType: number; nelems: number } }[] = [];
const derivedKeys = new Map<string, number>();

/** A pointer type to `id` (BTF's own when it has one). */
export function btfPointerTo(id: number): number {
  const p = findPointerTo(id);
  if (p !== null) return p;
  return derive(`*${id}`, { id: 0, kind: BtfKind.PTR, name: '', size: 0, type: id, vlen: 0, kflag: false });
}

/** An array type of `n` elements of `elem`. */
export function btfArrayOf(elem: number, n: number): number {
  return derive(`[${n}]${elem}`, { id: 0, kind: BtfKind.ARRAY, name: '', size: 0, type: 0, vlen: 0, kflag: false },
    { elemType: elem, indexType: 0, nelems: n });
}

function derive(key: string, t: BtfType, array?: { elemType: number; indexType: number; nelems: number }): number {
  const have = derivedKeys.get(key);
  if (have !== undefined) return have;
  const id = parsed().count + derived.length;
  derived.push({ t: { ...t, id }, array });
  derivedKeys.set(key, id);
  return id;
}

let ptrIndex: Map<number, number> | null = null;
function findPointerTo(id: number): number | null {
  if (!ptrIndex) {
    ptrIndex = new Map();
    const p = parsed();
    for (let i = 1; i < p.count; i++) {
      const o = p.offs[i];
      if (((p.dv.getUint32(o + 4, true) >>> 24) & 0x1f) === BtfKind.PTR) {
        const to = p.dv.getUint32(o + 8, true);
        if (!ptrIndex.has(to)) ptrIndex.set(to, i);
      }
    }
  }
  return ptrIndex.get(id) ?? null;
}

export type TypeStyle = 'c' | 'stap';

/**
 * Type name. 'c' style: "const char *", "struct file *", "char [16]".
 * 'stap' style (SystemTap -L): qualifiers after, no space before '*': "char const*", "struct file*".
 */
export function btfTypeName(id: number, style: TypeStyle = 'c'): string {
  return style === 'stap' ? stapName(id, 0) : cDecl(id, '');
}

function baseName(t: BtfType): string {
  switch (t.kind) {
    case BtfKind.STRUCT: return 'struct ' + (t.name || '{...}');
    case BtfKind.UNION: return 'union ' + (t.name || '{...}');
    case BtfKind.ENUM: case BtfKind.ENUM64: return 'enum ' + (t.name || '{...}');
    case BtfKind.FWD: return (t.kflag ? 'union ' : 'struct ') + t.name;
    case BtfKind.UNKN: return 'void';
    default: return t.name;
  }
}

function cDecl(id: number, inner: string): string {
  const t = btfType(id);
  const sp = (s: string) => (s ? ' ' + s : '');
  switch (t.kind) {
    case BtfKind.PTR: {
      const target = btfType(t.type);
      const needParen = target.kind === BtfKind.ARRAY || target.kind === BtfKind.FUNC_PROTO;
      return cDecl(t.type, needParen ? `(*${inner})` : `*${inner}`);
    }
    case BtfKind.CONST: case BtfKind.VOLATILE: case BtfKind.RESTRICT: {
      const q = t.kind === BtfKind.CONST ? 'const' : t.kind === BtfKind.VOLATILE ? 'volatile' : 'restrict';
      const target = btfType(t.type);
      if (target.kind === BtfKind.PTR) return cDecl(t.type, `${q}${sp(inner)}`.trim());
      return `${q} ${cDecl(t.type, inner)}`;
    }
    case BtfKind.TYPE_TAG: return cDecl(t.type, inner);
    case BtfKind.ARRAY: {
      const a = btfArrayInfo(id);
      return cDecl(a.elemType, `${inner}[${a.nelems}]`);
    }
    case BtfKind.FUNC_PROTO: {
      const { params, variadic } = btfProtoParams(id);
      const ps = params.map((p) => cDecl(p.type, ''));
      if (variadic) ps.push('...');
      return cDecl(t.type, `${inner}(${ps.length ? ps.join(', ') : 'void'})`);
    }
    default: {
      const b = baseName(t);
      if (!inner) return b;
      return inner.startsWith('*') || inner.startsWith('(') ? `${b} ${inner}` : `${b} ${inner}`;
    }
  }
}

function stapName(id: number, depth: number): string {
  if (depth > 16) return '...';
  const t = btfType(id);
  switch (t.kind) {
    case BtfKind.PTR: {
      const target = btfType(t.type);
      // (stap 4.8's -L sunrpc.svc.create: `$threadfn:int (*) (void*)`)
      if (target.kind === BtfKind.FUNC_PROTO) return stapName(target.type, depth + 1) + ' (*) (' +
        btfProtoParams(target.id).params.map((p) => stapName(p.type, depth + 1)).join(', ') + ')';
      return stapName(t.type, depth + 1) + '*';
    }
    case BtfKind.CONST: return stapName(t.type, depth + 1) + ' const';
    case BtfKind.VOLATILE: return stapName(t.type, depth + 1) + ' volatile';
    case BtfKind.RESTRICT: return stapName(t.type, depth + 1) + ' restrict';
    case BtfKind.TYPE_TAG: return stapName(t.type, depth + 1);
    case BtfKind.ARRAY: {
      const a = btfArrayInfo(id);
      return `${stapName(a.elemType, depth + 1)}[${a.nelems}]`;
    }
    case BtfKind.FUNC_PROTO: return stapName(t.type, depth + 1) + ' ()';
    default: return baseName(t);
  }
}

export interface FieldStep {
  name: string;
  /** type of the value reached by this step */
  type: number;
  /** byte offset of the member inside the struct it was taken from */
  offset: number;
  bitSize: number;
  bitOffset: number;
  /** true when this step dereferenced a pointer first ("->" through a pointer) */
  deref: boolean;
}

/**
 * Resolve a member chain as `$var->a->b` / `@cast(p, "T")->a->b` do: each step auto-dereferences
 * a pointer to struct/union (SystemTap treats -> and . alike). Array index steps are "[N]".
 * Throws BtfError naming the first missing member.
 */
export function btfResolveChain(startType: number, path: readonly string[]): FieldStep[] {
  const out: FieldStep[] = [];
  let cur = startType;
  for (const name of path) {
    let r = btfResolve(cur);
    let deref = false;
    let t = btfType(r);
    const idx = /^\[(\d+)\]$/.exec(name);
    if (idx) {
      if (t.kind === BtfKind.ARRAY) {
        const a = btfArrayInfo(r);
        const es = btfSizeof(a.elemType);
        out.push({ name, type: a.elemType, offset: Number(idx[1]) * es, bitSize: 0, bitOffset: 0, deref: false });
        cur = a.elemType;
        continue;
      }
      if (t.kind === BtfKind.PTR) {
        const es = btfSizeof(t.type);
        out.push({ name, type: t.type, offset: Number(idx[1]) * es, bitSize: 0, bitOffset: 0, deref: true });
        cur = t.type;
        continue;
      }
      throw new BtfError(`cannot index non-array type ${btfTypeName(cur)}`);
    }
    if (t.kind === BtfKind.PTR) {
      r = btfResolve(t.type);
      t = btfType(r);
      deref = true;
    }
    if (t.kind === BtfKind.FWD) {
      // a declaration only (vmlinux's `struct rpc_iostats;`): its definition, as DWARF consumers
      // find it in another compile unit (the module's own: sunrpc's rpc_clnt->cl_metrics)
      const def = findComposite(t.kflag ? 'union' : 'struct', t.name);
      if (def >= 0 && btfType(def).kind !== BtfKind.FWD) { r = def; t = btfType(def); }
    }
    if (t.kind !== BtfKind.STRUCT && t.kind !== BtfKind.UNION) {
      throw new BtfError(`'${name}': ${btfTypeName(cur)} is not a struct or union`);
    }
    const m = btfFindMember(r, name);
    if (!m) throw new BtfError(`unable to find member '${name}' for ${baseName(t)}`);
    out.push({ name, type: m.type, offset: Math.floor(m.bitOffset / 8), bitSize: m.bitSize, bitOffset: m.bitOffset % 8, deref });
    cur = m.type;
  }
  return out;
}
