/**
 * `kernel.function("PAT[@FILE[:LINE]]")[.call|.exported|.inline|.return[.maxactive(N)]]`,
 * `module("M").function(...)`, `kernel.statement("PAT")`, and the dwarfless
 * `kprobe.function("F")[.call|.return[.maxactive(N)]]`, `kprobe.module("M").function("F")`,
 * `kprobe.statement(ADDR).absolute`.
 *
 * Pass 2: resolution against kallsyms + DWARF locations (one ResolvedPoint per function, pp
 * `kernel.function("vfs_read@fs/read_write.c:450")`), stap's `no match (similar functions: ...)`.
 * Pass 5: registration the way stap's module does it — one kprobe per probe on the function
 * entry (kprobes on ftrace: kprobe_ftrace_ops in the ftrace_ops list, entries in kprobe_table),
 * kretprobes (maxactive, nmissed -> skipped probes) for `.return`.  A wildcard resolving to more
 * than BULK_THRESHOLD addresses is armed like fprobe (register_fprobe_ips): ONE ftrace_ops whose
 * filter hash holds every entry site, dispatching by ip through a Map (no per-function closures
 * tested per call); functions without an fentry site still get int3 kprobes.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { BuildRequest, Provider } from '../elaborate/probes';
import { suggest, renderComponents } from '../elaborate/util';
import {
  matchFunctions, functionLocation, symbolName, symbolAddr, lookupName, isFunction, isFreedInitText,
  withinKprobeBlacklist, isInlineOnly, hasGlob, parseFuncPattern, symbolCount, isTextType, symbolType, lookupAddr,
  globToRegExp, kallsymsLookupName, inlineFunctions, inScope, symbolModule, SymbolScope, modulesMatching, dwarfName, dwarfNameOf,
} from '../kernel/kallsyms';
import type { SrcLoc } from '../kernel/kallsyms';
import {
  FtraceOps, FTRACE_OPS_FL_SAVE_REGS, registerFtraceFunction, unregisterFtraceFunction, recordOfFunction, isTraceable,
  ftraceTestRecursionTrylock, ftraceTestRecursionUnlock, TRACE_FTRACE_START, pushReturnHook, ftraceHitFn,
} from '../kernel/ftrace';
import {
  Kprobe, Kretprobe, registerKprobe, unregisterKprobe, registerKretprobe, unregisterKretprobe, defaultMaxactive,
  KretprobeInstance,
} from '../kernel/kprobes';
import type { CpuContext, PtRegs, RetFrame } from '../kernel/current';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import { Deliverer, entryValues, KHit } from './hit';
import { targetType, targetDefined, targetPointee, envFor, availableLocals, kernelTargetAccess } from './targets';
import { btfTypeName } from '../kernel/btf';
import { matchInlined, InlineInstance, INLINE_FN } from '../kernel/inline_sites';
import { stapBlacklisted } from './stap_blacklist';

export interface FuncPointData {
  kind: 'entry' | 'return';
  fn: number;
  name: string;
  addr: number;
  file: string;
  line: number;
  maxactive: number;
  /** 'dwarf' = kernel.function/module().function, 'kprobe' = kprobe.* */
  via: 'dwarf' | 'kprobe' | 'statement';
  module: string;
  optional: boolean;
  /** an inline instance (fn = INLINE_FN): `addr` is its entry pc inside the `caller` symbol */
  inline?: boolean;
  caller?: number;
}

// ---------------------------------------------------------------------------------------------
// resolution

const scopeFunctionNames = new Map<string, string[]>();
/** Function names of a scope ('kernel' = vmlinux, else a module glob), for "similar functions". */
function functionNames(scope: string = 'kernel'): string[] {
  let names = scopeFunctionNames.get(scope);
  if (names) return names;
  const s = new Set<string>();
  const n = symbolCount();
  for (let i = 0; i < n; i++) if (isTextType(symbolType(i)) && inScope(i, scope)) {
    const nm = symbolName(i);
    if (!nm.includes('.') && !nm.startsWith('__pfx_')) s.add(nm);
  }
  names = [...s];
  scopeFunctionNames.set(scope, names);
  return names;
}

/**
 * `no match`: raised and caught by the thousand in a `syscall.*` elaboration (each flavour that
 * finds no function), so made without a JavaScript stack (never shown: a user sees stap's message).
 */
function noMatchError(): SemanticError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new SemanticError('no match', undefined, [], 'pp-no-match');
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function noMatch(what: string, name: string, names: () => string[]): SemanticError {
  const e = noMatchError();
  if (!name || hasGlob(name)) return e;
  // the suggestions (an edit distance over every function name) only when the message is shown:
  // an optional or sufficient point that does not resolve (dw_syscall.* on 6.1) never shows it
  let msg: string | undefined;
  Object.defineProperty(e, 'message', {
    configurable: true,
    get: () => {
      if (msg === undefined) {
        const sugg = suggest(name, names());
        msg = sugg ? `no match (similar ${what}: ${sugg})` : 'no match';
      }
      return msg;
    },
    set: (v: string) => { msg = v; },
  });
  return e;
}

/** Names of inline-only functions (no out-of-line copy) matching a glob, sorted. */
function inlineOnlyMatching(glob: string): string[] {
  const re = globToRegExp(glob);
  const names = new Set<string>();
  for (const f of inlineFunctions()) if (re.test(f.name) && !lookupName(f.name).some(isFunction)) names.add(f.name);
  return [...names].sort();
}

function isExported(name: string): boolean {
  return lookupName('__ksymtab_' + name).length > 0;
}

/** Function ids a DWARF-style pattern resolves to (kernel.function). */
/** `func@file:*` (any line) and `func@file:A-B` (declared in that line range): the pattern without it, and the range. */
function splitLineRange(spec0: string): { spec: string; range: [number, number] | null } {
  const lm = /^(.*@[^:]*):(\*|(\d+)-(\d+))$/.exec(spec0);
  if (!lm) return { spec: spec0, range: null };
  return { spec: lm[1], range: lm[3] !== undefined ? [Number(lm[3]), Number(lm[4])] : null };
}

export function resolveDwarfFunctions(spec0: string, opts: { exported?: boolean; scope?: SymbolScope } = {}): number[] {
  const { spec, range } = splitLineRange(spec0);
  const p = parseFuncPattern(spec);
  const wild = hasGlob(p.func) || (p.file !== undefined && hasGlob(p.file));
  const pfx = p.func.startsWith('__pfx_');
  // the facts each step below needs, worked out once per symbol (a `*` keeps ~40 000)
  const kept: { id: number; name: string; dname: string; loc: SrcLoc | null }[] = [];
  for (const id of matchFunctions(spec, opts.scope ?? 'kernel')) {
    const name = symbolName(id);
    const loc = functionLocation(id);
    const dname = dwarfNameOf(name, loc);
    // a clone (foo.isra.0) with its own DWARF body is the function foo; .cold parts have none
    if (name.includes('.') && dname === name) continue;
    if (!pfx && name.startsWith('__pfx_')) continue;
    // no DWARF location: assembly (no fentry site either) — or a C function the data lacks the
    // location of (it has an fentry site): keep those, listed without @file:line
    if (loc === null && !isTraceable(id)) continue;
    const a = symbolAddr(id);
    if (isFreedInitText(a)) continue; // freed after boot
    if (wild && withinKprobeBlacklist(a)) continue; // stap skips blacklisted functions in wildcards
    if (stapBlacklisted(dname, loc?.file)) continue; // the translator's own list
    if (opts.exported && !isExported(name)) continue;
    if (range && (!loc || loc.line < range[0] || loc.line > range[1])) continue;
    kept.push({ id, name, dname, loc });
  }
  // one probe per (name, file, line); with wildcards, one per address (alias symbols of the same
  // code have no DWARF subprogram of their own); the body named as the function wins over a clone
  const seen = new Set<string>();
  const addrs = new Set<number>();
  const preferred = kept.slice().sort((a, b) => Number(a.dname !== a.name) - Number(b.dname !== b.name) || a.id - b.id);
  const keep = new Set<number>();
  for (const k of preferred) {
    if (wild) {
      const a = symbolAddr(k.id);
      if (addrs.has(a)) continue;
      addrs.add(a);
    }
    const key = k.loc ? `${k.dname}@${k.loc.file}:${k.loc.line}` : `${k.name}#${k.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    keep.add(k.id);
  }
  return kept.filter((k) => keep.has(k.id)).map((k) => k.id);
}

/**
 * Inline instances (DW_TAG_inlined_subroutine) a DWARF-style pattern resolves to, by function
 * (name, file, line) then address: stap's dwarf_query probes each instance of an inlined
 * function at its entry pc. Blacklisted / init-text instances are skipped as functions are.
 */
export function resolveInlineInstances(spec0: string, scope = 'kernel'): InlineInstance[] {
  const { spec, range } = splitLineRange(spec0);
  const p = parseFuncPattern(spec);
  const out: InlineInstance[] = [];
  for (const f of matchInlined(p, scope)) {
    if (range && (f.line < range[0] || f.line > range[1])) continue;
    if (stapBlacklisted(f.name, f.file)) continue;
    for (const inst of f.instances) {
      if (isFreedInitText(inst.addr) || withinKprobeBlacklist(inst.addr)) continue;
      out.push(inst);
    }
  }
  return out;
}

function lit(s: string): string {
  return JSON.stringify(s);
}

function suffixComponents(comps: A.ProbePointComponent[], from: number): string {
  const rest = comps.slice(from);
  return rest.length ? '.' + renderComponents(rest) : '';
}

function numArg(c: A.ProbePointComponent | undefined): number {
  if (!c || !c.arg || c.arg.k !== 'num') return 0;
  return Number(c.arg.value);
}

function dwarfBuilder(prefixLen: number, module: boolean): Provider['build'] {
  return (req: BuildRequest): A.ResolvedPoint[] => {
    const comps = req.components;
    // module("M"): M names loaded modules (a glob allowed); "kernel" is not a module
    const modArg = module ? String(comps[0].arg?.k === 'str' ? comps[0].arg.value : '') : 'kernel';
    if (module && modulesMatching(modArg).length === 0) {
      throw noMatchError();
    }
    const fc = comps[prefixLen - 1];
    const spec = fc.arg && fc.arg.k === 'str' ? fc.arg.value : '';
    const suffixes = comps.slice(prefixLen).map((c) => c.name);
    const isReturn = suffixes.includes('return');
    const isInline = suffixes.includes('inline');
    const isCall = suffixes.includes('call');
    const exported = suffixes.includes('exported');
    const maxactive = suffixes.includes('maxactive') ? numArg(comps[comps.length - 1]) : 0;
    if (fc.arg && fc.arg.k === 'num') throw noMatchError();
    const p = parseFuncPattern(spec);
    // .call: out-of-line bodies only; .return / .exported never match inline instances
    const insts = isCall || isReturn || exported ? [] : resolveInlineInstances(spec, modArg);
    const ids = isInline ? [] : resolveDwarfFunctions(spec, { exported, scope: modArg });
    const names = () => functionNames(modArg);
    if (isInline && !insts.length) throw noMatch('functions', p.func, names);
    if (!ids.length && !insts.length) {
      if (isReturn) {
        // dwarf_builder: a .return probe skips inlined functions, says so, then finds no match
        const inl = hasGlob(p.func)
          ? inlineOnlyMatching(p.func)
          : isInlineOnly(p.func) ? [p.func] : [];
        if (inl.length) {
          let quick = '';
          for (const n of inl) {
            quick += ' ' + n;
            if (quick.length > 80) { quick += ' ...'; break; }
          }
          // (stap's _NF: ngettext's singular for one; both texts are in Debian's stap 4.8 binary)
          req.warn?.(`cannot probe .return of ${inl.length} inlined function${inl.length === 1 ? '' : 's'} ${quick}`);
        }
      } else if (!hasGlob(p.func) && isInlineOnly(p.func)) {
        throw noMatchError();
      }
      throw noMatch('functions', p.func, names);
    }
    const suffix = suffixComponents(comps, prefixLen);
    const out = ids.map((id) => {
      const l = functionLocation(id);
      const name = dwarfName(id);
      const modName = module ? symbolModule(id) : 'kernel';
      const prefix = module ? `module(${lit(modName)}).function` : 'kernel.function';
      const data: FuncPointData = {
        kind: isReturn ? 'return' : 'entry', fn: id, name, addr: symbolAddr(id), file: l?.file ?? '', line: l?.line ?? 0,
        maxactive, via: 'dwarf', module: modName, optional: req.point.optional,
      };
      const where = l ? `${name}@${l.file}:${l.line}` : name;
      return { family: 'kernel.function', pp: `${prefix}(${lit(where)})${suffix}`, data: data as unknown as Record<string, unknown> };
    });
    for (const inst of insts) {
      const f = inst.fn;
      const modName = module ? symbolModule(inst.caller) : 'kernel';
      const prefix = module ? `module(${lit(modName)}).function` : 'kernel.function';
      const data: FuncPointData = {
        kind: 'entry', fn: INLINE_FN, name: f.name, addr: inst.addr, file: f.file, line: f.line,
        maxactive: 0, via: 'dwarf', module: modName, optional: req.point.optional, inline: true, caller: inst.caller,
      };
      out.push({ family: 'kernel.function', pp: `${prefix}(${lit(`${f.name}@${f.file}:${f.line}`)})${suffix}`, data: data as unknown as Record<string, unknown> });
    }
    return out;
  };
}

function statementBuilder(req: BuildRequest): A.ResolvedPoint[] {
  const comps = req.components;
  const c = comps[1];
  if (!c.arg) throw noMatchError();
  if (c.arg.k === 'num') {
    const addr = Number(BigInt.asIntN(64, BigInt(c.arg.value)));
    const pos = lookupAddr(addr);
    if (!pos || !comps.some((x) => x.name === 'absolute') && pos.offset !== 0) {
      throw noMatchError();
    }
    const data: FuncPointData = { kind: 'entry', fn: pos.offset === 0 ? pos.id : -1, name: symbolName(pos.id), addr, file: '', line: 0, maxactive: 0, via: 'statement', module: 'kernel', optional: req.point.optional };
    return [{ family: 'kprobe', pp: renderComponents(comps), data: data as unknown as Record<string, unknown> }];
  }
  // "func@file:line": the data has function start lines only; a statement at the function's
  // declaration line is its entry
  const spec = c.arg.value;
  const p = parseFuncPattern(spec);
  const ids = resolveDwarfFunctions(p.line !== undefined || p.file === undefined ? spec : spec);
  if (!ids.length) throw noMatch('functions', p.func, functionNames);
  return ids.map((id) => {
    const l = functionLocation(id);
    const name = dwarfName(id);
    const data: FuncPointData = { kind: 'entry', fn: id, name, addr: symbolAddr(id), file: l?.file ?? '', line: l?.line ?? 0, maxactive: 0, via: 'dwarf', module: 'kernel', optional: req.point.optional };
    const where = l ? `${name}@${l.file}:${l.line}` : name;
    return { family: 'kernel.function', pp: `kernel.statement(${lit(where)})${suffixComponents(comps, 2)}`, data: data as unknown as Record<string, unknown> };
  });
}

function kprobeBuilder(prefixLen: number): Provider['build'] {
  return (req: BuildRequest): A.ResolvedPoint[] => {
    const comps = req.components;
    const fc = comps[prefixLen - 1];
    const name = fc.arg && fc.arg.k === 'str' ? fc.arg.value : '';
    const suffixes = comps.slice(prefixLen).map((c) => c.name);
    const isReturn = suffixes.includes('return');
    const maxactive = suffixes.includes('maxactive') ? numArg(comps[comps.length - 1]) : 0;
    if (prefixLen === 3) return [kprobeModulePoint(req, name, isReturn, maxactive)];
    let ids: number[];
    const inKernel = (id: number) => isFunction(id) && inScope(id, 'kernel');
    if (hasGlob(name)) {
      const re = globToRegExp(name);
      ids = functionNames().filter((n) => re.test(n)).map((n) => lookupName(n).find(inKernel)!).filter((x) => x !== undefined);
      ids = ids.filter((id) => !isFreedInitText(symbolAddr(id)) && !withinKprobeBlacklist(symbolAddr(id)));
      ids.sort((a, b) => (symbolName(a) < symbolName(b) ? -1 : symbolName(a) > symbolName(b) ? 1 : 0));
    } else {
      const id = lookupName(name).find(inKernel);
      ids = id === undefined ? [] : [id];
    }
    if (!ids.length) throw noMatchError();
    const prefix = renderComponents(comps.slice(0, prefixLen - 1));
    const suffix = suffixComponents(comps, prefixLen);
    return ids.map((id) => {
      const nm = symbolName(id);
      // kprobe.function uses no debuginfo: no source location (a syscall.* elaboration makes
      // ~1400 of these, and must not parse every function's location for them)
      const data: FuncPointData = {
        kind: isReturn ? 'return' : 'entry', fn: id, name: nm, addr: symbolAddr(id), file: '', line: 0,
        maxactive, via: 'kprobe', module: 'kernel', optional: req.point.optional,
      };
      return { family: 'kprobe', pp: `${prefix}.function(${lit(nm)})${suffix}`, data: data as unknown as Record<string, unknown> };
    });
  };
}

/**
 * `kprobe.module("M").function("F")`: stap checks nothing in pass 2 (the pp is kept as written,
 * globs unexpanded) and its module looks "M:F" up in kallsyms when it starts; a symbol that is not
 * there (module not loaded, no such function, a glob) is skipped without a warning.
 */
function kprobeModulePoint(req: BuildRequest, name: string, isReturn: boolean, maxactive: number): A.ResolvedPoint {
  const comps = req.components;
  const mod = comps[1].arg && comps[1].arg.k === 'str' ? comps[1].arg.value : '';
  const id = hasGlob(name) || hasGlob(mod) ? undefined : lookupName(name).find((i) => isFunction(i) && symbolModule(i) === mod);
  const l = id !== undefined ? functionLocation(id) : null;
  const data: FuncPointData = {
    kind: isReturn ? 'return' : 'entry', fn: id ?? -1, name, addr: id !== undefined ? symbolAddr(id) : 0,
    file: l?.file ?? '', line: l?.line ?? 0, maxactive, via: 'kprobe', module: mod, optional: req.point.optional,
  };
  return { family: 'kprobe', pp: renderComponents(comps), data: data as unknown as Record<string, unknown> };
}

function varsOf(rp: A.ResolvedPoint): { name: string; type: string }[] {
  const labelVars = (rp.data as { labelVars?: { name: string; type: string }[] }).labelVars;
  if (labelVars) return labelVars;    // .label("L") (src/probes/kernel_scopes.ts)
  const env = envFor(rp);
  if (!env) return [];
  // as stap -L: $return first, then the parameters, then (entry probes) the locals readable at the entry pc
  const out = env.isReturn && env.ret !== null ? [{ name: '$return', type: btfTypeName(env.ret, 'stap') }] : [];
  for (const v of env.isReturn ? env.vars : [...env.vars, ...availableLocals(env)]) out.push({ name: '$' + v.name, type: btfTypeName(v.type, 'stap') });
  return out;
}

const targetAccess: Provider['targetAccess'] = (rp, e, access, how) => kernelTargetAccess(how.guru, e, access, how.op);

export const kernelFunctionProvider: Provider = { family: 'kernel.function', build: dwarfBuilder(2, false), vars: varsOf, targetType, targetDefined, targetPointee, targetAccess };
export const moduleFunctionProvider: Provider = { family: 'kernel.function', build: dwarfBuilder(2, true), vars: varsOf, targetType, targetDefined, targetPointee, targetAccess };
export const kernelStatementProvider: Provider = { family: 'kernel.function', build: statementBuilder, vars: varsOf, targetType, targetDefined, targetPointee, targetAccess };
export const kprobeProvider: Provider = { family: 'kprobe', build: kprobeBuilder(2) };
export const kprobeModuleProvider: Provider = { family: 'kprobe', build: kprobeBuilder(3) };
export const kprobeStatementProvider: Provider = { family: 'kprobe', build: statementBuilder };

/** Patterns registered for these families (as --dump-probe-types lists them). */
export const FUNCTION_PATTERNS: [string, Provider][] = [];
for (const base of ['kernel.function(string)', 'module(string).function(string)']) {
  const prov = base.startsWith('module') ? moduleFunctionProvider : kernelFunctionProvider;
  for (const suf of ['', '.call', '.exported', '.inline', '.return', '.return.maxactive(number)', '.exported.return', '.exported.return.maxactive(number)']) {
    FUNCTION_PATTERNS.push([base + suf, prov]);
  }
}
FUNCTION_PATTERNS.push(['kernel.statement(string)', kernelStatementProvider]);
FUNCTION_PATTERNS.push(['kernel.statement(string).nearest', kernelStatementProvider]);
FUNCTION_PATTERNS.push(['kernel.statement(number).absolute', kprobeStatementProvider]);
FUNCTION_PATTERNS.push(['module(string).statement(string)', { family: 'kernel.function', build: () => { throw noMatchError(); } }]);
for (const suf of ['', '.call', '.return', '.return.maxactive(number)']) {
  FUNCTION_PATTERNS.push(['kprobe.function(string)' + suf, kprobeProvider]);
  FUNCTION_PATTERNS.push(['kprobe.module(string).function(string)' + suf, kprobeModuleProvider]);
}
FUNCTION_PATTERNS.push(['kprobe.statement(number).absolute', kprobeStatementProvider]);

// ---------------------------------------------------------------------------------------------
// runtime

/** More resolved addresses than this in one session: one fprobe-style ftrace_ops for them. */
export let BULK_THRESHOLD = 256;
export function setBulkThreshold(n: number): void {
  BULK_THRESHOLD = n;
}

interface FprobeEntry {
  fn: number;
  ip: number;
  /** the entry probes on this site; their Deliverers made at the site's first hit (`entries`) */
  entryProbes: RegisteredProbe[];
  entries: Deliverer[] | null;
  returns: FprobeReturn[];
}

/** What one kernel.function/kprobe session registered (for tests / introspection). */
export interface FunctionRegistration {
  kprobes: Kprobe[];
  kretprobes: Kretprobe[];
  fprobe: FtraceOps | null;
  failed: { pp: string; rc: number }[];
}

interface FprobeReturn {
  p: RegisteredProbe;
  d: Deliverer;
  pool: { free: number; nmissed: number };
  withEntry: boolean;
  /** the handler can read the entry arguments (see handlerUsesContext) */
  withArgs: boolean;
  /** preallocated return hooks (the rethook pool: `free` of them) */
  frames: FprobeFrame[];
}

/** One fprobe exit hook (a rethook node): preallocated per return probe, refilled per entry. */
class FprobeFrame implements RetFrame {
  ip = 0.5;
  parentIp = 0.5;
  args: readonly unknown[] = NO_ARGS;
  entry: unknown[] | undefined = undefined;
  constructor(public fn: number, private readonly r: FprobeReturn) {}
  run(regs: PtRegs, ctx: CpuContext): void {
    const r = this.r;
    const args = this.args, entry = this.entry;
    this.args = NO_ARGS;
    this.entry = undefined;
    r.pool.free++;
    r.frames.push(this);
    // regs are the seam's transient return registers: show the entry's ip / return address
    const ip = regs.ip, pip = regs.parentIp;
    regs.ip = this.ip;
    regs.parentIp = this.parentIp;
    regs.args = NO_ARGS;
    try {
      r.d.fire(regs, ctx, NO_ARGS, args, entry);
    } catch (e) {
      regs.ip = ip;
      regs.parentIp = pip;
      throw e;
    }
    regs.ip = ip;
    regs.parentIp = pip;
  }
}

export class KernelFunctionFamily implements ProbeFamilyRuntime {
  reg: FunctionRegistration = { kprobes: [], kretprobes: [], fprobe: null, failed: [] };
  private engine: Engine | null = null;
  private armed = false;
  constructor(public family: string) {}

  register(probes0: RegisteredProbe[], engine: Engine): void {
    this.engine = engine;
    this.armed = true;
    const probes = shareHandlers(probes0);
    const addrs = new Set<number>();
    for (const p of probes) addrs.add(Number((p.meta.data as unknown as FuncPointData).addr));
    const bulk = addrs.size > BULK_THRESHOLD;
    const byIp = new Map<number, FprobeEntry>();
    // stap emits its kprobe array (stap_kprobe_probes[]) in reverse script order and registers
    // it in array order; the kernel runs the probes sharing an address newest first (aggregate
    // probe list), so entry probes run in script order and .return probes in reverse (kretprobe
    // instances are popped last-in first-out).  The fprobe-style bulk path keeps that order too.
    const single: RegisteredProbe[] = [];
    for (const p of probes) {
      const d = p.meta.data as unknown as FuncPointData;
      if (bulk && d.fn >= 0) {
        const rec = recordOfFunction(d.fn);
        if (rec && rec.ip === d.addr) {
          let e = byIp.get(d.addr);
          if (!e) byIp.set(d.addr, (e = { fn: d.fn, ip: d.addr, entryProbes: [], entries: null, returns: [] }));
          if (d.kind === 'return') {
            const free = d.maxactive > 0 ? d.maxactive : defaultMaxactive();
            const r: FprobeReturn = { p, d: new Deliverer(engine, p, 'kretprobe', true, d.fn, d.addr), pool: { free, nmissed: 0 },
              withEntry: hasEntryValues(p), withArgs: handlerUsesContext(p), frames: [] };
            for (let i = 0; i < free; i++) r.frames.push(new FprobeFrame(d.fn, r));
            e.returns.push(r);
          } else e.entryProbes.push(p);
          continue;
        }
      }
      single.push(p);
    }
    const lazy = single.length > BULK_THRESHOLD;
    for (let i = single.length - 1; i >= 0; i--) this.registerOne(single[i], single[i].meta.data as unknown as FuncPointData, engine, lazy);
    if (byIp.size) this.registerFprobe(byIp, engine);
  }

  private warnFailed(engine: Engine, p: RegisteredProbe, d: FuncPointData, rc: number): void {
    this.reg.failed.push({ pp: p.meta.pp, rc });
    // stap's runtime warns only about kernel probes: a module's may just not be loaded
    if (d.optional || (d.module !== 'kernel' && d.module !== '')) return;
    engine.warn(`probe ${p.meta.pp} (address 0x${BigInt.asUintN(64, BigInt(d.addr)).toString(16)}) registration error [man warning::pass5] (rc ${rc})`);
  }

  /** `lazy`: many probes (a wildcard's inline instances): each one's hit context is made at its first hit. */
  private registerOne(p: RegisteredProbe, d: FuncPointData, engine: Engine, lazy: boolean): void {
    const fn = d.fn;
    const addr = d.addr;
    if (d.kind === 'entry') {
      const kp = new Kprobe({ addr });
      kp.preHandlerName = 'stapkp_probe_prehandler';
      if (lazy) {
        // (most of a wildcard's probes never fire: no hit context made for them)
        let dl: Deliverer | null = null;
        kp.preHandler = (_k, regs, ctx) => {
          (dl ??= new Deliverer(engine, p, 'kprobe', false, fn, addr)).fireEntry(regs, ctx);
          return 0;
        };
      } else {
        const dl = new Deliverer(engine, p, 'kprobe', false, fn, addr);
        kp.preHandler = (_k, regs, ctx) => {
          dl.fireEntry(regs, ctx); // arguments read from regs only if the handler asks
          return 0;
        };
      }
      const rc = registerKprobe(kp);
      if (rc) this.warnFailed(engine, p, d, rc);
      else this.reg.kprobes.push(kp);
      return;
    }
    const dlr = new Deliverer(engine, p, 'kretprobe', true, fn, addr);
    const withEntry = hasEntryValues(p);
    const withArgs = withEntry || handlerUsesContext(p);
    const rp = new Kretprobe({
      addr,
      maxactive: d.maxactive > 0 ? d.maxactive : 0,
      entryHandler: (ri: KretprobeInstance, regs, ctx) => {
        const args = withArgs ? regs.args : NO_ARGS;
        if (ri.data.args !== args) ri.data.args = args;
        if (withEntry) {
          const hit: KHit = { regs, cpuCtx: ctx, args, fn, addr };
          ri.data.entry = entryValues(engine, p, hit);
        }
        return 0;
      },
      handler: (ri: KretprobeInstance, regs, ctx) => {
        dlr.fire(regs, ctx, regs.args, ri.data.args as readonly unknown[], ri.data.entry as unknown[] | undefined);
        return 0;
      },
    });
    rp.handlerName = 'stapkp_probe_handler';
    rp.entryHandlerName = 'stapkp_probe_entry_handler';
    const rc = registerKretprobe(rp);
    if (rc) this.warnFailed(engine, p, d, rc);
    else this.reg.kretprobes.push(rp);
  }

  private registerFprobe(byIp: Map<number, FprobeEntry>, engine: Engine): void {
    // dispatch table indexed by the kallsyms id of the function whose fentry site fired (the
    // ftrace seam reports it): a packed array load, no hashing of the (non-Smi) address
    const byFnId: (FprobeEntry | undefined)[] = new Array<FprobeEntry | undefined>(symbolCount()).fill(undefined);
    for (const e of byIp.values()) if (e.fn >= 0 && e.fn < byFnId.length) byFnId[e.fn] = e;
    // module-object loads hoisted out of the hit path
    const hitFnNow = ftraceHitFn, trylock = ftraceTestRecursionTrylock, unlock = ftraceTestRecursionUnlock;
    const pushRet = pushReturnHook, FTRACE_START = TRACE_FTRACE_START;
    const op = new FtraceOps('fprobe', (ip, parentIp, _op, regs, ctx) => {
      const fn = hitFnNow();
      let e = fn >= 0 ? byFnId[fn] : undefined;
      if (e === undefined || e.ip !== ip) e = byIp.get(ip); // an alias of a probed function
      if (e === undefined) return;
      const bit = trylock(ctx, FTRACE_START);
      if (bit < 0) return;
      // try/catch, not finally (cheaper on the hit path): handler errors never get here
      try {
        const ents = e.entries ?? (e.entries = entryDeliverers(engine, e));
        for (let i = 0; i < ents.length; i++) ents[i].fireEntry(regs, ctx);
        const rets = e.returns;
        for (let i = 0; i < rets.length; i++) {
          const r = rets[i];
          if (r.pool.free <= 0) {
            r.pool.nmissed++;
            continue;
          }
          r.pool.free--;
          const fr = r.frames.pop() as FprobeFrame;
          // entry arguments are saved only when the handler can read them (building them costs)
          const args = r.withArgs || r.withEntry ? regs.args : NO_ARGS;
          fr.ip = ip;
          fr.parentIp = parentIp;
          fr.args = args;
          fr.entry = r.withEntry ? entryValues(engine, r.p, { regs, cpuCtx: ctx, args, fn: e.fn, addr: ip }) : undefined;
          pushRet(ctx, fr);
        }
      } catch (err) {
        unlock(ctx, bit);
        throw err;
      }
      unlock(ctx, bit);
    }, FTRACE_OPS_FL_SAVE_REGS, 'fprobe_handler');
    for (const ip of byIp.keys()) op.filterHash.add(ip); // ftrace_set_filter_ips(): one batch
    const rc = registerFtraceFunction(op);
    if (rc) {
      for (const e of byIp.values()) for (const r of e.returns) this.warnFailed(engine, r.p, r.p.meta.data as unknown as FuncPointData, rc);
      return;
    }
    this.reg.fprobe = op;
    this.fprobeEntries = byIp;
  }

  private fprobeEntries: Map<number, FprobeEntry> | null = null;

  /** Kretprobe / fprobe-exit misses, added to the skipped-probe count at unregistration. */
  missed(): number {
    let n = 0;
    for (const rp of this.reg.kretprobes) n += rp.nmissed + rp.kp.nmissed;
    for (const kp of this.reg.kprobes) n += kp.nmissed;
    if (this.fprobeEntries) for (const e of this.fprobeEntries.values()) for (const r of e.returns) n += r.pool.nmissed;
    return n;
  }

  unregister(): void {
    if (!this.armed) return;
    this.armed = false;
    const miss = this.missed();
    if (this.engine && miss) this.engine.skippedCount += miss;
    for (const kp of this.reg.kprobes) unregisterKprobe(kp);
    for (const rp of this.reg.kretprobes) unregisterKretprobe(rp);
    if (this.reg.fprobe) {
      unregisterFtraceFunction(this.reg.fprobe);
      this.reg.fprobe.filterHash.clear();
    }
  }
}

const NO_ARGS: readonly unknown[] = [];

/** The hit contexts of a bulk site's entry probes (made at its first hit). */
function entryDeliverers(engine: Engine, e: FprobeEntry): Deliverer[] {
  return e.entryProbes.map((p) => {
    const d = p.meta.data as unknown as FuncPointData;
    return new Deliverer(engine, p, 'kprobe', false, d.fn, d.addr);
  });
}

/**
 * The probe's handler may read its context (arguments, registers, task ...): the generated
 * handler mentions its context parameter `c` anywhere (a call passing it, a builtin). A handler
 * that never mentions it cannot read the entry arguments, so return probes need not save them.
 */
function handlerUsesContext(p: RegisteredProbe): boolean {
  const src = p.handler.toString();
  const m = /^[^(]*\(\s*([\w$]+)[^)]*\)\s*\{/.exec(src);
  if (!m) return true;
  const body = src.slice(m[0].length);
  return new RegExp(`(^|[^\\w$.])${m[1].replace(/\$/g, '\\$')}([^\\w$]|$)`).test(body);
}

/** The probe's handler has @entry expressions to evaluate at function entry. */
function hasEntryValues(p: RegisteredProbe): boolean {
  const fns = (p.handler as unknown as { entry?: unknown[] }).entry;
  return !!fns && fns.length > 0;
}

/**
 * Wildcard probes derive one handler per function, but their generated code is usually the same
 * text (pp()/pn() come from the context, not the code): share one JS function among handlers with
 * identical source so a hot path over thousands of functions runs one optimized handler (stap's
 * probe-handler combining, at the JS level).  Handlers with different code are kept apart.
 */
export function shareHandlers(probes: RegisteredProbe[]): RegisteredProbe[] {
  if (probes.length < 2) return probes;
  const canon = new Map<string, RegisteredProbe['handler']>();
  // (pass 3 already names one function for all the probes with the same code: seen once here)
  const known = new Map<RegisteredProbe['handler'], RegisteredProbe['handler']>();
  return probes.map((p) => {
    const k = known.get(p.handler);
    if (k === p.handler) return p;
    if (k !== undefined) return { meta: p.meta, handler: k };
    const src = p.handler.toString().replace(/^function\s+[\w$]+\s*\(/, 'function (');
    const h = canon.get(src);
    if (!h) {
      canon.set(src, p.handler);
      known.set(p.handler, p.handler);
      return p;
    }
    const entry = (p.handler as unknown as { entry?: unknown[] }).entry;
    const hEntry = (h as unknown as { entry?: unknown[] }).entry;
    if ((entry?.length ?? 0) !== (hEntry?.length ?? 0)) {
      known.set(p.handler, p.handler);
      return p;
    }
    known.set(p.handler, h);
    return { meta: p.meta, handler: h };
  });
}
const fnByIp = new Map<number, number>();
function lookupFn(ip: number): number {
  let f = fnByIp.get(ip);
  if (f === undefined) {
    f = lookupAddr(ip)?.id ?? -1;
    fnByIp.set(ip, f);
  }
  return f;
}
