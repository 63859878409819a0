/**
 * What the kernel subsystems attach to the call paths: hooks (`%name` nodes: the work done at that
 * point of a path), conditions (`?name` nodes), tracepoint and function arguments, return values,
 * system call implementations (run by the syscall path's `%impl`), argument getters by struct
 * type (args.ts) and kernel-memory setup.
 *
 * Each subsystem builds one `Semantics` object in its module (loading a module registers
 * nothing); the machine installs them from one explicit list (`KERNEL_SEMANTICS` in
 * src/machine/machine.ts), whose element type checks that the Machine class provides every
 * subsystem what its `Semantics<M>` says it needs.  The interpreter (kexec.ts) and the argument
 * builder (args.ts) look the installed entries up by name.
 */
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';

export type Hook<M = MachineCore> = (m: M, c: Cpu, t: Task, e: Env) => number;
export type Cond<M = MachineCore> = (m: M, c: Cpu, t: Task, e: Env) => boolean;
export type ArgBuilder<M = MachineCore> = (m: M, c: Cpu, t: Task, e: Env) => unknown[];
/** One argument of a function, from the path environment. */
export type Getter<M = MachineCore> = (m: M, c: Cpu, t: Task, e: Env) => unknown;
/** What a function returns, from its path environment (only asked when its return is probed). */
export type RetRule = (e: Env) => unknown;
/** The getter of a parameter pointing to a struct: by function name, parameter name and C type name. */
export type StructArg<M = MachineCore> = (fnName: string, pname: string, tname: string) => Getter<M>;

type RetDef = { name: string; r: RetRule } | { later: () => Iterable<[string, RetRule]> };
/** Where in a function's recorded calls a hook runs: after its entry (before its first callee) or before it returns. */
export type Where = 'entry' | 'exit';
/** How many times a repeated call runs (`FN*N` of a recorded tree; paths/model.ts OP_REPEAT); undefined: the recorded N. */
export type CountRule<M = MachineCore> = (m: M, c: Cpu, t: Task, e: Env) => number | undefined;
/** The feature vector of an entry of a model key (paths/model.ts chooses the variant by it). */
export type Features<M = MachineCore> = (m: M, c: Cpu, t: Task, e: Env) => string;
type Entries<T> = readonly (readonly [string, T])[];

/**
 * The entries of one subsystem as a machine of type `M` installs them: `Semantics<S>` is a
 * `SemanticsOf<M>` when M provides what S asks for (the entries take the machine first).
 */
export interface SemanticsOf<M> {
  readonly name: string;
  readonly hooks: Entries<Hook<M>>;
  readonly conds: Entries<Cond<M>>;
  readonly tpArgDefs: Entries<ArgBuilder<M>>;
  readonly fnArgDefs: Entries<ArgBuilder<M>>;
  readonly retDefs: readonly RetDef[];
  readonly syscalls: Entries<Hook<M>>;
  readonly structArgs: Entries<StructArg<M>>;
  readonly setups: readonly (() => void)[];
  readonly anchors: readonly (readonly [string, string, Where])[];
  readonly counts: Entries<CountRule<M>>;
  readonly featureDefs: Entries<Features<M>>;
  readonly inlineGates?: Entries<string>;
  readonly tpGates?: Entries<string>;
}

/** One subsystem's attachments, in definition order. */
export class Semantics<M extends MachineCore = MachineCore> implements SemanticsOf<M> {
  readonly hooks: [string, Hook<M>][] = [];
  readonly conds: [string, Cond<M>][] = [];
  readonly tpArgDefs: [string, ArgBuilder<M>][] = [];
  readonly fnArgDefs: [string, ArgBuilder<M>][] = [];
  readonly retDefs: RetDef[] = [];
  readonly syscalls: [string, Hook<M>][] = [];
  readonly structArgs: [string, StructArg<M>][] = [];
  readonly setups: (() => void)[] = [];
  readonly anchors: [string, string, Where][] = [];
  readonly counts: [string, CountRule<M>][] = [];
  readonly featureDefs: [string, Features<M>][] = [];
  readonly inlineGates: [string, string][] = [];
  readonly tpGates: [string, string][] = [];
  constructor(readonly name: string) {}

  /**
   * Run hook `hook` (defined with `hook()`, by any subsystem) wherever a recorded path calls kernel
   * function `fn`: at its entry (before its first callee) or at its exit (before it returns).
   */
  at(fn: string, hook: string, where: Where = 'entry'): void {
    this.anchors.push([fn, hook, where]);
  }
  /**
   * The inline instances of function `fn` run only where condition `cond` holds: a recorded caller
   * takes the branch holding them only then (complete_signal wakes nobody for an ignored signal),
   * so their int3 sites fire only then.
   */
  inlineIf(fn: string, cond: string): void {
    this.inlineGates.push([fn, cond]);
  }
  /**
   * Tracepoint `event` (a recorded tree's site, paths/tpsites.ts) fires only where condition `cond`
   * holds: the C code's test around its trace_X() call that the machine's state decides (folio_activate_fn
   * traces mm_lru_activate only for a folio not active yet).
   */
  tpIf(event: string, cond: string): void {
    this.tpGates.push([event, cond]);
  }
  /** Repeated calls of `fn` in a recorded path (`fn*N`) run as often as `rule` says. */
  count(fn: string, rule: CountRule<M>): void {
    this.counts.push([fn, rule]);
  }
  /** The feature vector of an entry of model key `key` (a non-syscall key: 'fault', 'schedule', 'irq:...'). */
  features(key: string, f: Features<M>): void {
    this.featureDefs.push([key, f]);
  }

  /** `%name`: run `h` there (a hook result of kexec.ts: H_CONT, H_SLEEP, H_PUSHED ...). */
  hook(name: string, h: Hook<M>): void {
    this.hooks.push([name, h]);
  }
  /** `?name` / `?!name`: the children run when `c` holds / fails. */
  cond(name: string, c: Cond<M>): void {
    this.conds.push([name, c]);
  }
  /** Arguments of a tracepoint (TP_PROTO order); without, TP_PROTO names are read from the environment. */
  tpArgs(name: string, b: ArgBuilder<M>): void {
    this.tpArgDefs.push([name, b]);
  }
  /** Arguments of one kernel function (for probes reading $args), instead of the generic builder (args.ts). */
  fnArgs(fnName: string, b: ArgBuilder<M>): void {
    this.fnArgDefs.push([fnName, b]);
  }
  /** The return value of kernel function `fnName` (default: the environment's `rv`, usually 0). */
  fnRet(fnName: string, r: RetRule): void {
    this.retDefs.push({ name: fnName, r });
  }
  /** fnRet for each rule `rules()` gives, made when a return value is first asked for. */
  fnRetsLater(rules: () => Iterable<[string, RetRule]>): void {
    this.retDefs.push({ later: rules });
  }
  /** The implementation of system call `name` (run by `%impl` of its path). */
  syscall(name: string, impl: Hook<M>): void {
    this.syscalls.push([name, impl]);
  }
  /** Arguments of type `struct sname *` (args.ts asks when it builds a function's arguments). */
  structArg(sname: string, f: StructArg<M>): void {
    this.structArgs.push([sname, f]);
  }
  /** One-time setup when installed (kernel-memory materializers of the subsystem's objects). */
  setup(f: () => void): void {
    this.setups.push(f);
  }
}

const hookByName = new Map<string, Hook>();
const condByName = new Map<string, Cond>();
const tpArgsByName = new Map<string, ArgBuilder>();
const fnArgsByName = new Map<string, ArgBuilder>();
const syscallByName = new Map<string, Hook>();
const structArgByName = new Map<string, StructArg>();
let fnArgsById: Map<number, ArgBuilder> | null = null;

const retByName = new Map<string, { r: RetRule; seq: number }>();
let retById: Map<number, RetRule> | null = null;
let retSeq = 0;
/** Rules made on first need; a later definition of the same function still wins. */
const laterRets: { seq: number; rules: () => Iterable<[string, RetRule]> }[] = [];

const installed = new WeakSet<SemanticsOf<never>>();

function add<T>(map: Map<string, T>, what: string, owner: string, entries: Entries<unknown>): void {
  // indexed, not destructured: every machine's boot runs this over ~1,000 entries in code not yet
  // optimised, where `const [a, b] = e` walks an iterator
  for (const e of entries) {
    const name = e[0];
    if (map.has(name)) throw new Error(`${owner}: ${what} ${name} is defined twice`);
    map.set(name, e[1] as T);
  }
}

/**
 * Attach a subsystem's semantics (once; a machine built later shares them: the entries take the
 * machine as their first argument).  Entries of one kind share one name space across subsystems.
 */
export function installSemantics(s: SemanticsOf<never>): void {
  if (installed.has(s)) return;
  installed.add(s);
  add(hookByName, 'hook', s.name, s.hooks);
  add(condByName, 'condition', s.name, s.conds);
  add(tpArgsByName, 'tracepoint arguments of', s.name, s.tpArgDefs);
  add(fnArgsByName, 'arguments of', s.name, s.fnArgDefs);
  add(syscallByName, 'system call', s.name, s.syscalls);
  add(structArgByName, 'arguments of struct', s.name, s.structArgs);
  if (s.fnArgDefs.length) fnArgsById = null;
  add(countByName, 'count rule of', s.name, s.counts);
  add(featuresByKey, 'features of', s.name, s.featureDefs);
  add(inlineGateByName, 'inline condition of', s.name, s.inlineGates ?? []);
  add(tpGateByName, 'tracepoint condition of', s.name, s.tpGates ?? []);
  for (const a of s.anchors) {
    let l = anchorsByName.get(a[0]);
    if (!l) anchorsByName.set(a[0], (l = []));
    l.push({ hook: a[1], where: a[2] });
  }
  if (s.anchors.length || s.counts.length) { anchorsById = null; countIdxById = null; }
  for (const d of s.retDefs) {
    if ('later' in d) laterRets.push({ seq: retSeq++, rules: d.later });
    else retByName.set(d.name, { r: d.r, seq: retSeq++ });
    retById = null;
  }
  for (const f of s.setups) f();
}

const anchorsByName = new Map<string, { hook: string; where: Where }[]>();
let anchorsById: Map<number, { hook: string; where: Where }[]> | null = null;
const countByName = new Map<string, CountRule>();
const countRules: CountRule[] = [];
let countIdxById: Map<number, number> | null = null;
const featuresByKey = new Map<string, Features>();
const NO_ANCHORS: { hook: string; where: Where }[] = [];

/** The hooks attached to kernel function `fn` (kallsyms id) with `Semantics.at`, in installation order. */
export function anchorsOf(fn: number): readonly { hook: string; where: Where }[] {
  if (!anchorsById) {
    anchorsById = new Map();
    for (const [n, l] of anchorsByName) {
      const id = functionIdOf(n);
      if (id >= 0) anchorsById.set(id, l);
    }
  }
  return anchorsById.get(fn) ?? NO_ANCHORS;
}
/** Every function name the installed semantics look up (hooks, count rules, arguments, return rules): for the build's known-symbols table. */
export function semanticsFunctionNames(): string[] {
  return [...anchorsByName.keys(), ...countByName.keys(), ...fnArgsByName.keys(), ...retByName.keys()];
}
/**
 * What compiled programs depend on besides the trees (paths/compile.ts compilerStamp): the hooks
 * attached to each function and the count rules, in installation order.
 */
export function compileInputs(): { anchors: [string, { hook: string; where: Where }[]][]; counts: string[] } {
  return { anchors: [...anchorsByName], counts: [...countByName.keys()] };
}
/** Every function name a hook is attached to (for checks). */
export function anchoredFunctions(): string[] {
  return [...anchorsByName.keys()];
}

/** The count rules by function id, made on first use (by a compile, or by a build program's OP_REPEAT). */
function countIndex(): Map<number, number> {
  if (!countIdxById) {
    countIdxById = new Map();
    countRules.length = 0;
    for (const [n, r] of countByName) {
      const id = functionIdOf(n);
      if (id >= 0) { countIdxById.set(id, countRules.length); countRules.push(r); }
    }
  }
  return countIdxById;
}
/** The index of the count rule of function `fn` (kallsyms id), or -1. */
export function countRuleIndex(fn: number): number {
  return countIndex().get(fn) ?? -1;
}
/** Count rule number `i` (countRuleIndex; the build's programs number them in the same installation order). */
export function countRuleAt(i: number): CountRule {
  if (!countIdxById) countIndex();
  return countRules[i];
}
/** The feature function of a model key, if a subsystem defined one. */
export function featuresOf(key: string): Features | undefined {
  return featuresByKey.get(key);
}

export function hookDefined(name: string): boolean {
  return hookByName.has(name);
}
export function condDefined(name: string): boolean {
  return condByName.has(name);
}
export function hookNamed(name: string): Hook | undefined {
  return hookByName.get(name);
}
const inlineGateByName = new Map<string, string>();
const tpGateByName = new Map<string, string>();
/** The condition the inline instances of `fn` run under (Semantics.inlineIf), or undefined. */
export function inlineGateOf(fn: string): Cond | undefined {
  const n = inlineGateByName.get(fn);
  return n === undefined ? undefined : condByName.get(n);
}
/** The condition tracepoint `event` fires under (Semantics.tpIf), if any. */
export function tpGateOf(event: string): Cond | undefined {
  const n = tpGateByName.get(event);
  return n === undefined ? undefined : condByName.get(n);
}
export function condNamed(name: string): Cond | undefined {
  return condByName.get(name);
}
export function tpArgsNamed(name: string): ArgBuilder | undefined {
  return tpArgsByName.get(name);
}
export function syscallImpl(name: string): Hook | undefined {
  return syscallByName.get(name);
}
export function structArgOf(sname: string): StructArg | undefined {
  return structArgByName.get(sname);
}

function functionIdOf(n: string): number {
  const { functionId } = require('../../kernel/ftrace') as typeof import('../../kernel/ftrace');
  return functionId(n);
}

/** The argument builder defined for function `fn` (kallsyms id), or undefined. */
export function fnArgsOf(fn: number): ArgBuilder | undefined {
  if (!fnArgsById) {
    fnArgsById = new Map();
    for (const [n, b] of fnArgsByName) {
      const id = functionIdOf(n);
      if (id >= 0) fnArgsById.set(id, b);
    }
  }
  return fnArgsById.get(fn);
}

/** The argument builder defined for function `name` (inline instances have no kallsyms id), or undefined. */
export function fnArgsNamed(name: string): ArgBuilder | undefined {
  return fnArgsByName.get(name);
}

/** What function `fn` returns in environment `e` (its rule, else `e.rv`). */
export function retOf(fn: number, e: Env): unknown {
  if (!retById) {
    for (const l of laterRets.splice(0)) {
      for (const [n, r] of l.rules()) {
        const cur = retByName.get(n);
        if (!cur || cur.seq <= l.seq) retByName.set(n, { r, seq: l.seq });
      }
    }
    retById = new Map();
    for (const [n, { r }] of retByName) {
      const id = functionIdOf(n);
      if (id >= 0) retById.set(id, r);
    }
  }
  const r = retById.get(fn);
  return r ? r(e) : e.rv;
}
