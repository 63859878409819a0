/**
 * Target expressions: `$param`, `$var->a->b[i]`, `&$x`, `$x$`/`$x$$`, `$$vars/$$parms/$$locals/
 * $$return`, `$return`, `@entry(e)`, `@cast(p, "T"[, "M"])`, `@var("name[@file]")`, tracepoint
 * `$args`, `$$name`, `$$system`.
 *
 * Pass 2 (types) and pass 3 (codegen) share one compilation: `planFor(rp, e)` resolves the
 * expression against the probe point's context (BTF prototypes / TP_PROTO) and the BTF struct
 * layouts into a Plan: a base value, a list of steps (dereference + offset, or a dynamic index)
 * and a final read (integer of a size/sign, pointer, char array -> string, address, pretty text).
 * At run time `__tv(c, plan, ...indexes)` walks the plan over the simulated kernel memory
 * (src/kernel/memory.ts); faults become stap's `read fault` errors.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import {
  btfFunc, btfType, btfResolve, btfSizeof, btfResolveChain, btfTypeName, btfIntInfo, btfArrayInfo,
  btfMembers, btfLookupType, BtfKind, BtfError, FieldStep,
} from '../kernel/btf';
import { tracepointProto } from '../kernel/tracepoint';
import { addrHex, symbolName } from '../kernel/kallsyms';
import { findGlobal, globalBtfType } from '../kernel/globals';
import { inlinedFunction, inlineParamBtf } from '../kernel/inline_sites';
import { kmem } from '../kernel/memory';
import { functionLocals, LocalVar, isValueExpr, isAvailable } from '../kernel/locals';
import { dwarfTypeToBtf } from '../kernel/globals';
import type { TargetCodegenApi } from '../translate';
import type { KHit } from './hit';

// ---------------------------------------------------------------------------------------------
// Context of a probe point

export interface CtxVar {
  name: string;
  type: number;
  base: Base;
}

export type Base =
  /** `fn`: an inline function's parameter (read with PtRegs.argsOf where instances share a pc) */
  | { k: 'arg'; i: number; fn?: string }
  | { k: 'ret' }
  | { k: 'addr'; addr: number }
  | { k: 'operand' }
  /** a DWARF variable at the entry pc: `expr` gives its value (`mem` false) or its address; `args` the parameters' BTF types */
  | { k: 'local'; expr: string; mem: boolean; args: number[] };

export interface TargetEnv {
  vars: CtxVar[];
  /** return type id when $return exists (return probes of non-void functions) */
  ret: number | null;
  isReturn: boolean;
  /** function name (for messages) */
  where: string;
  fnAddr: number;
  file: string;
  tracepoint?: { name: string; system: string };
  /** the function's DWARF parameters and variables in scope at the entry pc (model functions) */
  locals?: readonly LocalVar[];
}

const envCache = new WeakMap<A.ResolvedPoint, TargetEnv | null>();
const familyEnvs = new Map<string, (rp: A.ResolvedPoint) => TargetEnv | null>();
/** Other families with `$` context variables (netfilter): their environment, KHit.args-based. */
export function defineFamilyEnv(family: string, f: (rp: A.ResolvedPoint) => TargetEnv | null): void {
  familyEnvs.set(family, f);
}

/** The target-variable environment of a resolved point (null: no `$` context). */
export function envFor(rp: A.ResolvedPoint): TargetEnv | null {
  if (envCache.has(rp)) return envCache.get(rp)!;
  let env: TargetEnv | null = null;
  const d = rp.data as Record<string, unknown>;
  if (rp.family === 'kernel.function' && d.inline === true) {
    // an inline instance: the abstract definition's formal parameters (DWARF types mapped to BTF)
    const f = inlinedFunction(String(d.name), String(d.file ?? ''), Number(d.line ?? 0), String(d.module ?? ''));
    const vars: CtxVar[] = f ? f.params.map((p, i) => ({ name: p.name, type: inlineParamBtf(p.dwarfType), base: { k: 'arg', i, fn: f.name } as Base })) : [];
    env = { vars, ret: null, isReturn: false, where: String(d.name), fnAddr: Number(d.addr ?? 0), file: String(d.file ?? '') };
  } else if (rp.family === 'kernel.function' && typeof d.name === 'string') {
    const fn = typeof d.fn === 'number' && d.fn >= 0 ? d.fn : -1;
    const locals = d.module === 'kernel' || d.module === undefined ? functionLocals(fn >= 0 ? symbolName(fn) : d.name) ?? undefined : undefined;
    // a clone's (finish_task_switch.isra.0) parameters are its DWARF ones: BTF has the original's or none
    const f = fn >= 0 && symbolName(fn) !== d.name && locals ? null : btfFunc(d.name);
    const vars: CtxVar[] = f ? f.params.map((p, i) => ({ name: p.name, type: p.type, base: { k: 'arg', i } as Base }))
      : dwarfParams(locals);
    const isReturn = d.kind === 'return';
    const ret = isReturn && f && f.ret !== 0 ? f.ret : null;
    env = { vars, ret, isReturn, where: d.name, fnAddr: Number(d.addr ?? 0), file: String(d.file ?? ''), locals };
  } else if (rp.family === 'kernel.trace' && typeof d.name === 'string') {
    const proto = tracepointProto(d.name) ?? [];
    env = {
      vars: proto.map((a, i) => ({ name: a.name, type: a.btfType, base: { k: 'arg', i } as Base })),
      ret: null, isReturn: false, where: d.name, fnAddr: 0, file: '',
      tracepoint: { name: d.name, system: String(d.system ?? '') },
    };
  } else {
    const f = familyEnvs.get(rp.family);
    if (f) env = f(rp);
  }
  envCache.set(rp, env);
  return env;
}

// ---------------------------------------------------------------------------------------------
// Plans

export type Final =
  | { k: 'int'; size: number; signed: boolean; bitSize: number; bitOffset: number }
  | { k: 'ptr' }
  | { k: 'chars'; len: number }
  | { k: 'addr' }
  | { k: 'pretty'; type: number; deep: boolean }
  | { k: 'vars'; what: 'vars' | 'parms' | 'locals' | 'return'; deep: number }
  | { k: 'tpname' } | { k: 'tpsystem' };

export interface Step {
  deref: boolean;
  off: number;
  /** dynamic index: element size (the index value is the next extra argument) */
  dyn?: number;
}

export interface Plan {
  base: Base;
  /** BTF type of the base value */
  baseType: number;
  steps: Step[];
  final: Final;
  type: A.Type;
  /** text for messages (`$file->f_path`) */
  text: string;
  /** for $$vars: the variables */
  vars?: { name: string; type: number; base: Base }[];
  retType?: number;
  /** the value is a pointer to this BTF type (it carries that type into autocasts `x->f`) */
  pointee?: number;
}

type TExpr = A.Target | A.Cast | A.AtVar | A.Autocast;

function exprText(e: TExpr): string {
  const comps = e.components.map((c) => (c.k === 'member' ? `->${c.name}` : '[...]')).join('');
  if (e.k === 'target') return e.name + comps;
  if (e.k === 'cast') return `@cast(..., "${e.typeName}")${comps}`;
  if (e.k === 'atvar') return `@var("${e.varName}")${comps}`;
  return comps;
}

function memberNames(id: number, out: string[] = []): string[] {
  const r = btfResolve(id);
  const t = btfType(r);
  if (t.kind !== BtfKind.STRUCT && t.kind !== BtfKind.UNION) return out;
  for (const m of btfMembers(r)) {
    if (m.name) out.push(m.name);
    else memberNames(m.type, out);
  }
  return out;
}

function structName(id: number): string {
  let r = btfResolve(id);
  let t = btfType(r);
  if (t.kind === BtfKind.PTR) {
    r = btfResolve(t.type);
    t = btfType(r);
  }
  return btfTypeName(r, 'c');
}

/** Final read for a value of BTF type `id` (after all steps). */
function finalFor(id: number, pretty: 0 | 1 | 2, addressOf: boolean, tok: A.Token, text: string, bit?: FieldStep): Final | SemanticError {
  if (addressOf) return { k: 'addr' };
  if (pretty) return { k: 'pretty', type: id, deep: pretty === 2 };
  const r = btfResolve(id);
  const t = btfType(r);
  switch (t.kind) {
    case BtfKind.INT: {
      const info = btfIntInfo(r);
      return { k: 'int', size: t.size, signed: info.signed, bitSize: bit?.bitSize ?? 0, bitOffset: bit?.bitOffset ?? 0 };
    }
    case BtfKind.ENUM: case BtfKind.ENUM64:
      return { k: 'int', size: t.size || 4, signed: t.kflag, bitSize: bit?.bitSize ?? 0, bitOffset: bit?.bitOffset ?? 0 };
    case BtfKind.PTR:
      return { k: 'ptr' };
    case BtfKind.ARRAY:
      // arrays evaluate to their address (kernel_string($task->comm))
      return { k: 'addr' };
    case BtfKind.STRUCT: case BtfKind.UNION:
      return new SemanticError(`struct/union '${t.name}' is being accessed instead of a member of the struct/union`, tok, [], 'target-struct');
    case BtfKind.FLOAT:
      return new SemanticError(`cannot access floating point value '${text}'`, tok, [], 'target-float');
    default:
      return new SemanticError(`unsupported type of '${text}'`, tok, [], 'target-type');
  }
}

/** The BTF type a value of `final` points to, if it is a typed pointer (arrays decay to their element). */
function pointeeOf(fin: Final, type: number, addressOf: boolean): number | undefined {
  if (addressOf) return type;
  const r = btfResolve(type);
  const t = btfType(r);
  if (fin.k === 'ptr' && t.kind === BtfKind.PTR) return t.type;
  if (fin.k === 'addr' && t.kind === BtfKind.ARRAY) return btfArrayInfo(r).elemType;
  return undefined;
}

function stepsFor(startType: number, comps: A.TargetComponent[], text: string):
  { steps: Step[]; type: number; last?: FieldStep } | SemanticError {
  const steps: Step[] = [];
  let cur = startType;
  let last: FieldStep | undefined;
  for (const c of comps) {
    let name: string;
    let dyn = false;
    if (c.k === 'member') name = c.name;
    else if (c.index.k === 'num') name = `[${String(c.index.value)}]`;
    else {
      name = '[0]';
      dyn = true;
    }
    let fs: FieldStep[];
    try {
      fs = btfResolveChain(cur, [name]);
    } catch (err) {
      if (!(err instanceof BtfError)) throw err;
      if (c.k === 'member') {
        const r = btfResolve(cur);
        const t = btfType(r);
        const sid = t.kind === BtfKind.PTR ? btfResolve(t.type) : r;
        const st = btfType(sid);
        if (st.kind === BtfKind.STRUCT || st.kind === BtfKind.UNION) {
          const alts = memberNames(sid);
          return new SemanticError(`unable to find member '${c.name}' for ${structName(cur)}${alts.length ? ` (alternatives: ${alts.join(' ')})` : ''}`, c.tok, [], 'target-member');
        }
        return new SemanticError(`invalid access '->${c.name}' vs. ${btfTypeName(cur, 'c')}`, c.tok, [], 'target-member');
      }
      return new SemanticError(`invalid access '[...]' vs. ${btfTypeName(cur, 'c')}`, c.tok, [], 'target-index');
    }
    const s = fs[0];
    if (dyn) steps.push({ deref: s.deref, off: 0, dyn: btfSizeof(s.type) });
    else steps.push({ deref: s.deref, off: s.offset });
    last = s;
    cur = s.type;
  }
  void text;
  return { steps, type: cur, last };
}

const planCache = new WeakMap<A.ResolvedPoint, Map<TExpr, Plan | SemanticError>>();

/** Resolve a target expression at a probe point (cached per point and node). */
export function planFor(rp: A.ResolvedPoint | null, e: TExpr): Plan | SemanticError {
  if (!rp) return new SemanticError(e.k === 'atvar' ? 'unresolved @var() expression' : 'unresolved target-symbol expression', e.tok, [], 'unresolved-target');
  let m = planCache.get(rp);
  if (!m) planCache.set(rp, (m = new Map()));
  let p = m.get(e);
  // an autocast is planned once its operand's type is known
  if (!p) {
    p = makePlan(rp, e);
    if (e.k !== 'autocast' || e.operandType !== undefined) m.set(e, p);
  }
  return p;
}

function makePlan(rp: A.ResolvedPoint, e: TExpr): Plan | SemanticError {
  try {
    return makePlanInner(rp, e);
  } catch (err) {
    if (err instanceof BtfError) return new SemanticError(err.message, e.tok, [], 'target-btf');
    throw err;
  }
}

function makePlanInner(rp: A.ResolvedPoint, e: TExpr): Plan | SemanticError {
  const text = exprText(e);
  const env = envFor(rp);
  const pretty = e.k === 'autocast' ? 0 : e.pretty;
  const addressOf = !!e.addressOf;
  const build = (base: Base, baseType: number): Plan | SemanticError => {
    const st = stepsFor(baseType, e.components, text);
    if (st instanceof SemanticError) return st;
    if (addressOf && st.steps.length === 0 && base.k !== 'addr' && !(base.k === 'local' && base.mem)) return new SemanticError(`cannot take address of '${text}'`, e.tok, [], 'target-addressof');
    const fin = finalFor(st.type, pretty, addressOf, e.tok, text, st.last);
    if (fin instanceof SemanticError) return fin;
    const type: A.Type = fin.k === 'chars' || fin.k === 'pretty' ? 'string' : 'long';
    return { base, baseType, steps: st.steps, final: fin, type, text, pointee: pointeeOf(fin, st.type, addressOf) };
  };

  if (e.k === 'cast') {
    const tname = e.typeName.replace(/^\s+|\s+$/g, '');
    const mod = e.module ?? 'kernel';
    let id = btfLookupType(tname);
    if (id === null && !/^(struct|union|enum)\s/.test(tname) && !tname.endsWith('*')) id = btfLookupType('struct ' + tname) ?? btfLookupType('union ' + tname);
    if (id === null) return new SemanticError(`type definition '${tname}' not found in '${mod}'`, e.tok, [], 'cast-type');
    // @cast(p, "T") means p is a T*: the first member step dereferences p
    const st = stepsForCast(id, e.components, text);
    if (st instanceof SemanticError) return st;
    // no member access: the (typed) pointer value itself
    if (!e.components.length && !pretty) return { base: { k: 'operand' }, baseType: id, steps: [], final: { k: 'addr' }, type: 'long', text, pointee: id };
    const fin = e.components.length || !pretty ? finalFor(st.type, pretty, addressOf, e.tok, text, st.last) : { k: 'pretty' as const, type: id, deep: pretty === 2 };
    if (fin instanceof SemanticError) return fin;
    const type: A.Type = fin.k === 'chars' || fin.k === 'pretty' ? 'string' : 'long';
    return { base: { k: 'operand' }, baseType: id, steps: st.steps, final: fin, type, text, pointee: e.components.length ? pointeeOf(fin, st.type, addressOf) : undefined };
  }

  if (e.k === 'autocast' && e.operandType !== undefined) {
    // the operand carries a DWARF type: `x->f` is `@cast(x, T)->f` (stap's autocast)
    const st = stepsForCast(e.operandType, e.components, text);
    if (st instanceof SemanticError) return st;
    const fin = finalFor(st.type, 0, addressOf, e.tok, text, st.last);
    if (fin instanceof SemanticError) return fin;
    return { base: { k: 'operand' }, baseType: e.operandType, steps: st.steps, final: fin, type: 'long', text, pointee: pointeeOf(fin, st.type, addressOf) };
  }

  if (e.k === 'atvar') return planGlobal(rp, e, build);

  if (e.k === 'autocast') return new SemanticError('unknown type in dereference', e.tok, [], 'unresolved-target');

  if (!env) return new SemanticError('unresolved target-symbol expression', e.tok, [], 'unresolved-target');
  const name = e.name;
  if (name === '$$vars' || name === '$$parms' || name === '$$locals' || name === '$$return' ||
    name === '$$vars$' || name === '$$parms$' || name === '$$locals$' || name === '$$return$' ||
    name === '$$vars$$' || name === '$$parms$$' || name === '$$locals$$') {
    const m = /^\$\$(vars|parms|locals|return)(\$*)$/.exec(name)!;
    const what = m[1] as 'vars' | 'parms' | 'locals' | 'return';
    const extra = m[2].length + (e.pretty || 0);
    if (what === 'return' && !env.isReturn) return new SemanticError('unresolved target-symbol expression', e.tok, [], 'unresolved-target');
    return {
      base: { k: 'arg', i: 0 }, baseType: 0, steps: [], final: { k: 'vars', what, deep: extra }, type: 'string', text,
      vars: [...(what === 'locals' ? [] : env.vars), ...(what === 'parms' ? [] : availableLocals(env))], retType: env.ret ?? undefined,
    };
  }
  if (env.tracepoint && (name === '$$name' || name === '$$system')) {
    return { base: { k: 'arg', i: 0 }, baseType: 0, steps: [], final: { k: name === '$$name' ? 'tpname' : 'tpsystem' }, type: 'string', text };
  }
  if (name === '$return') {
    if (!env.isReturn || env.ret === null) return unableToFind(env, name, e.tok);
    return build({ k: 'ret' }, env.ret);
  }
  const v = env.vars.find((x) => '$' + x.name === name);
  if (v) return build(v.base, v.type);
  const l = env.locals?.find((x) => x.kind === 'V' && '$' + x.name === name);
  if (!l) return unableToFind(env, name, e.tok);
  const base = localBase(env, l, e.tok);
  if (base instanceof SemanticError) return base;
  return build(base.base, base.type);
}

/** Parameters from the DWARF (in argument-register order: those with a location; a clone drops the others). */
function dwarfParams(locals: readonly LocalVar[] | undefined): CtxVar[] {
  const out: CtxVar[] = [];
  for (const l of locals ?? []) {
    if (l.kind !== 'P' || l.loc.k === 'none') continue;
    const type = dwarfTypeToBtf(l.dwarfType);
    if (type !== null) out.push({ name: l.name, type, base: { k: 'arg', i: out.length } });
  }
  return out;
}

/** Where the debuginfo stap reads lives on a Debian 12 box with linux-image-6.1.0-56-amd64-dbg. */
const VMLINUX_DEBUG = '/usr/lib/debug/boot/vmlinux-6.1.0-56-amd64';

/** The plan base of a DWARF local at the entry pc, or stap's error when it cannot be read there. */
function localBase(env: TargetEnv, l: LocalVar, tok: A.Token): { base: Base; type: number } | SemanticError {
  const detail = [`dieoffset: 0x${l.die.toString(16)} from ${VMLINUX_DEBUG}`];
  if (l.loc.k === 'none') {
    return new SemanticError(`failed to retrieve location attribute for '${l.name}' [man error::dwarf]`, tok, [], 'target-optimized', detail);
  }
  const pc = BigInt.asUintN(64, BigInt(env.fnAddr)) + 5n;
  if (l.loc.k === 'unavailable') {
    return new SemanticError(`not accessible at this address (pc: 0x${pc.toString(16)}) [man error::dwarf]`, tok, [], 'target-unavailable', detail);
  }
  const type = dwarfTypeToBtf(l.dwarfType);
  if (type === null) return new SemanticError(`unsupported type of '$${l.name}'`, tok, [], 'target-type');
  const expr = l.loc.k === 'const' ? `consts ${l.loc.value},stack_value` : l.loc.expr;
  return { base: { k: 'local', expr, mem: !isValueExpr(expr), args: env.vars.map((v) => v.type) }, type };
}

/**
 * `@var("name[@cu]"[, "module"])` as stap 4.8 resolves it: in the module given, else in the probe
 * point's own module (kernel.function -> the kernel, module("M").function -> M); elsewhere (begin,
 * timer, dwarfless probes) it is unresolved. Function bodies look in the kernel. Without `@cu`
 * the first definition in compile-unit order; a struct accessed whole then reads as "unable to
 * find global" (stap tries the other units and reports that), with `@cu` the struct error shows.
 */
function planGlobal(rp: A.ResolvedPoint, e: A.AtVar, build: (base: Base, baseType: number) => Plan | SemanticError): Plan | SemanticError {
  const at = e.varName.indexOf('@');
  const name = at >= 0 ? e.varName.slice(0, at) : e.varName;
  const cu = at >= 0 ? e.varName.slice(at + 1) : undefined;
  const d = rp.data as Record<string, unknown>;
  const module = e.module ?? (rp.family === 'kernel.function' ? String(d.module || 'kernel')
    : d.contextFree === true ? 'kernel' : null);
  if (module === null) return new SemanticError('unresolved @var() expression', e.tok, [], 'unresolved-target');
  const missing = () => new SemanticError(`unable to find global '${name}' in ${module}${cu !== undefined ? `, in ${cu}` : ''}`, e.tok, [], 'atvar-missing');
  // module variables are not modelled: their DWARF is not part of the data
  const g = module === 'kernel' ? findGlobal(name, cu) : null;
  const type = g ? globalBtfType(g) : null;
  if (!g || type === null) return missing();
  kmem.map(g.addr, Math.max(8, safeSizeof(type)));
  const plan = build({ k: 'addr', addr: g.addr }, type);
  return plan instanceof SemanticError && cu === undefined && plan.site === 'target-struct' ? missing() : plan;
}

function stepsForCast(id: number, comps: A.TargetComponent[], text: string): { steps: Step[]; type: number; last?: FieldStep } | SemanticError {
  if (!comps.length) return { steps: [], type: id };
  // the operand is a pointer to `id`: `[i]` indexes it, the first member access dereferences it
  const first = comps[0];
  if (first.k === 'index') {
    const size = safeSizeof(id);
    const step: Step = first.index.k === 'num' ? { deref: true, off: Number(first.index.value) * size } : { deref: true, off: 0, dyn: size };
    const rest = stepsFor(id, comps.slice(1), text);
    if (rest instanceof SemanticError) return rest;
    return { steps: [step, ...rest.steps], type: rest.type, last: rest.last };
  }
  const st = stepsFor(id, comps, text);
  if (st instanceof SemanticError) return st;
  if (st.steps.length) st.steps[0] = { ...st.steps[0], deref: true };
  return st;
}

export function safeSizeof(t: number): number {
  try {
    return btfSizeof(t);
  } catch {
    return 8;
  }
}

function unableToFind(env: TargetEnv, name: string, tok: A.Token): SemanticError {
  const alts = env.vars.map((v) => '$' + v.name);
  for (const l of env.locals ?? []) if (l.kind === 'V') alts.push('$' + l.name);
  if (env.tracepoint) {
    return new SemanticError(`unable to find tracepoint variable '${name}' (alternatives: ${alts.join(' ')})`, tok, [], 'target-missing');
  }
  if (env.isReturn && env.ret !== null) alts.push('$return');
  const where = `${env.where} ${env.file}`.trim();
  return new SemanticError(
    `unable to find local '${name.slice(1)}', [man error::dwarf] in kernel, near pc 0x${addrHex(env.fnAddr)} in ${where} (alternatives: ${alts.join(' ')})`,
    tok, [], 'target-missing');
}

// ---------------------------------------------------------------------------------------------
// Provider hooks (pass 2)

export function targetType(rp: A.ResolvedPoint, e: TExpr): A.Type | SemanticError {
  const p = planFor(rp, e);
  return p instanceof SemanticError ? p : p.type;
}

/** The BTF type a target expression's value points to (autocast propagation), if any. */
export function targetPointee(rp: A.ResolvedPoint, e: TExpr): number | undefined {
  const p = planFor(rp, e);
  return p instanceof SemanticError ? undefined : p.pointee;
}

export function targetDefined(rp: A.ResolvedPoint, e: TExpr): boolean {
  return !(planFor(rp, e) instanceof SemanticError);
}

// ---------------------------------------------------------------------------------------------
// Codegen (pass 3)

const entryCounts = new WeakMap<object, number>();

/**
 * `syscall.NAME.return` aliases sit on the raw_syscalls:sys_exit tracepoint (stap's own are
 * kretprobes): `@entry` there is evaluated at the same task's sys_enter (src/probes/tracepoint.ts).
 */
export function syscallExitEntry(rp: A.ResolvedPoint, pn: string): boolean {
  return rp.family === 'kernel.trace' && rp.data.name === 'sys_exit' && rp.data.system === 'raw_syscalls' &&
    /\.return\b/.test(pn);
}

/** The point @cast/@var are planned at in function bodies (they need no probe context). */
const CONTEXT_FREE: A.ResolvedPoint = { family: 'begin', pp: 'begin', data: { seq: 0, contextFree: true } };

export function compileTarget(e: A.Target | A.Cast | A.AtVar | A.Autocast | A.Entry, api: TargetCodegenApi): string {
  const rp = api.probe?.point ?? (e.k === 'cast' || e.k === 'atvar' || e.k === 'autocast' ? CONTEXT_FREE : null);
  if (e.k === 'entry') {
    const pn = api.probe?.pn ?? '';
    if (!rp || !api.handlerName || !(/\.return\b/.test(rp.pp) || syscallExitEntry(rp, pn) || (rp.family === 'never' && /\.return\b/.test(pn)))) {
      api.err('internal error: @entry is only valid in .return probes', e.tok);
      return '0';
    }
    const key = api.probe!;
    const k = entryCounts.get(key) ?? 0;
    entryCounts.set(key, k + 1);
    api.afterProbe(`(${api.handlerName}.entry || (${api.handlerName}.entry = [])).push(${api.standalone(e.operand)});`);
    const dflt = e.type === 'string' ? '""' : '0';
    return `(c.data.entry ? c.data.entry[${k}] : ${dflt})`;
  }
  const p = planFor(rp, e);
  if (p instanceof SemanticError) {
    api.err(p.message, p.tok ?? e.tok);
    return '0';
  }
  const K = api.data(p);
  const idx: string[] = [];
  for (const c of e.components) if (c.k === 'index' && c.index.k !== 'num') idx.push(api.ex(c.index));
  if (e.k === 'cast' || e.k === 'autocast') idx.unshift(api.ex(e.operand));
  const fn = api.builtin('__tv');
  return `(L = ${api.loc(e.tok)}, ${fn}(c, ${K}${idx.map((x) => ', ' + x).join('')}))`;
}

/**
 * `$var = v`, `$p->m = v`, `@cast(...)->m = v` (guru mode; pass 2 refused it otherwise): null when
 * the target is not a kernel context's (procfs, netfilter have their own).
 */
export function compileTargetAssign(e: A.Assign, api: TargetCodegenApi): string | null {
  const t = e.target;
  if (t.k !== 'target' && t.k !== 'cast' && t.k !== 'autocast' && t.k !== 'atvar') return null;
  const rp = api.probe?.point ?? (t.k === 'target' ? null : CONTEXT_FREE);
  if (!rp || e.op !== '=') return null;
  const p = planFor(rp, t);
  if (p instanceof SemanticError) {
    api.err(p.message, p.tok ?? t.tok);
    return '0';
  }
  if (p.final.k === 'vars' || p.final.k === 'tpname' || p.final.k === 'tpsystem' || p.final.k === 'chars' || p.final.k === 'pretty' || p.final.k === 'addr') return null;
  const idx: string[] = [];
  if (t.k === 'cast' || t.k === 'autocast') idx.push(api.ex(t.operand));
  for (const c of t.components) if (c.k === 'index' && c.index.k !== 'num') idx.push(api.ex(c.index));
  const fn = api.builtin('__tvset');
  return `(L = ${api.loc(t.tok)}, ${fn}(c, ${api.data(p)}, ${api.ex(e.value)}${idx.map((x) => ', ' + x).join('')}))`;
}

/**
 * Pass-2 access check of kernel context variables (stap 4.8's words, from the oracle): a write
 * needs guru mode, and `=` is the only assignment operator on target variables.
 */
export function kernelTargetAccess(guru: boolean, e: A.Target | A.Cast | A.AtVar | A.Autocast, access: 'read' | 'write' | 'update', op?: A.Token): SemanticError | null {
  if (access === 'read' || e.k === 'autocast') return null;
  if (!guru) return new SemanticError('write to target variable not permitted; need stap -g', e.tok, [], 'target-write');
  if (access === 'update') return new SemanticError('Only the following assign operator is implemented on target variables:  =', op ?? e.tok, [], 'target-update');
  return null;
}

/** The DWARF locals readable at the entry pc, as context variables ($$locals, -L). */
export function availableLocals(env: TargetEnv): CtxVar[] {
  const out: CtxVar[] = [];
  for (const l of env.locals ?? []) {
    if (l.kind !== 'V' || !isAvailable(l) || env.vars.some((v) => v.name === l.name)) continue;
    const b = localBase(env, l, undefined as unknown as A.Token);
    if (!(b instanceof SemanticError)) out.push({ name: l.name, type: b.type, base: b.base });
  }
  return out;
}
