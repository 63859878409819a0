/**
 * The entry model: the call trees the real Debian 12 kernel ran for each kernel entry, generated from
 * the recordings (data/recordings/) by scripts/paths/generate.ts into data/paths/entries.json.gz, read
 * here on first use (a machine that never enters the kernel reads nothing).
 *
 * File format 1: `{format, generator, recordings: [{name, command}], functions: [name], keys: {KEY: {rule?,
 * v: [[shape, count, features, recordings bitmask]]}}}`.  A shape is a call tree over `functions` ids:
 *
 *   node := ID ['(' seq ')'] ['*' N]     a call with its callees, N identical calls in a row
 *         | '^' | '~' | '&' | 'w'        cut points: a schedule (the task slept), a page fault taken in
 *                                        kernel mode, pending softirqs run, a wakeup's body (scripts/paths/tree.ts)
 *         | 'S'                          (schedule bodies) the context switch, before finish_task_switch
 *         | '!' NAME                     the sched event NAME fired here (the graph runs' sched_process_*)
 *   seq  := node (' ' node)*
 *
 * Keys: `sys:NAME` (its trees start `x64_sys_call(SYSFN(...))`), `fault`, `fork_return`, `schedule`,
 * `irq:HANDLER`, `softirq:ACTION`, `tail:FN`.  `features` is the variant's feature vector
 * (paths/features.ts for syscalls; 'user'/'kernel' for faults, the caller for schedule bodies), `rule`
 * a syscall's common outcome ('0', 'E:ERRNO', '=N', 'aI', '+').
 *
 * A variant compiles (once, when first chosen) to the interpreter's program (paths/dsl.ts opcodes):
 * function ids, the hooks subsystems attach to functions (`Semantics.at`), the tracepoints that fire in
 * them (paths/tpsites.ts), the inline instances the DWARF data places in them, and the cut points as
 * hooks.  Choosing a variant (`chooseVariant`) scores the variants' features against the entry's and
 * takes one of the best, weighted by how often the recordings ran it, with the machine's path PRNG.
 */
import * as fs from 'fs';
import * as path from 'path';
import { functionId } from '../../kernel/ftrace';
import { symbolName } from '../../kernel/kallsyms';
import { inlineInstancesIn } from '../../kernel/inline_sites';
import { int3SiteCount } from '../../kernel/kprobes';
import type { CompiledPath } from '../include/kstack';
import { OP_HOOK, OP_RET, OP_TP, OP_INLINE, OP_END, OP_REPEAT, OP_LOOP, hookIndex, tpIndex, inlineRefIndex } from './dsl';
import { anchorsOf, countRuleIndex, featuresOf } from './semantics';
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { tracepointSitesOf, tracepointSiteTable } from './tpsites';
import { featureWeight } from './features';
import { builtModelTableFile, readModelTable, wholeModel, type ModelFile, type ModelSource } from './model_table';

export interface ModelVariant {
  readonly shape: string;
  readonly count: number;
  /** the feature vector, split */
  readonly feat: readonly string[];
  /** the tree has a '^' (the task slept in this variant) */
  readonly blocked: boolean;
  /** recordings (bit i: recordings[i]) that ran it */
  readonly recs: number;
  code: CompiledPath | null;
  /** `code` holds the inline-site operations (compiled while an int3 site was armed) */
  codeInline?: boolean;
  /** programs of this variant cut short at a failure (failingInner), by failing function */
  failCode?: Map<string, CompiledPath>;
  /** the syscall function's kallsyms id (syscallInner), set with `code` */
  innerFn?: number;
}

export interface ModelKey {
  readonly name: string;
  readonly rule: string | undefined;
  readonly variants: readonly ModelVariant[];
  /** feature string (+ blocked) -> the best-scoring variants and their cumulative weights */
  readonly cache: Map<string, { list: ModelVariant[]; cum: Float64Array }>;
}

let file: ModelSource | null = null;
const keys = new Map<string, ModelKey | null>();
/** model function index -> kallsyms id (-1: not a symbol of this kernel), resolved on first use */
let fnIds: Int32Array | null = null;

/** data/paths/ found from this module's location (dist/src/machine/paths or src/machine/paths). */
export function modelFile(): string {
  let d = __dirname;
  for (let i = 0; i < 7; i++) {
    const f = path.join(d, 'data', 'paths', 'entries.json.gz');
    if (fs.existsSync(f)) return f;
    d = path.dirname(d);
  }
  return '';
}

/** The model: the build's per-key table when current (paths/model_table.ts), else the file read whole. */
function load(): ModelSource {
  if (file) return file;
  const f = modelFile();
  file = (f && readModelTable(builtModelTableFile(), f)) || wholeModel(f ? readModelFile(f) : { format: 1, recordings: [], functions: [], keys: {} });
  return file;
}

/** The model file's content, parsed. */
export function readModelFile(f: string): ModelFile {
  const zlib = require('zlib') as typeof import('zlib');
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(f)).toString('latin1')) as ModelFile;
}

/** The recordings the model was made from. */
export function modelRecordings(): readonly { name: string; command: string }[] {
  return load().recordings;
}

/** Every key of the model. */
export function modelKeys(): string[] {
  return load().keyNames();
}

/** The model's function names (for checks: every one should be a kernel symbol). */
export function modelFunctions(): readonly string[] {
  return load().functions;
}

/**
 * Features read off a variant's tree (before its recorded label): for each, the function whose presence
 * says yes.  The machine computes the same from its state (the key's `Semantics.features`).
 */
const TREE_FEATURES: Record<string, [string, string][]> = {
  // __schedule: switched to another task, the next is the idle task, the previous was dequeued (slept)
  schedule: [['sw', 'finish_task_switch.isra.0'], ['idle', 'pick_next_task_idle'], ['deq', 'dequeue_task_fair']],
  // try_to_wake_up: activated the task here (it was asleep: ttwu_do_activate, where sched_wakeup fires),
  // queued it for its CPU's IPI instead (the machine activates locally: never asked for), moved it to
  // another CPU, the task is a per-CPU kernel thread
  ttwu: [['woke', 'ttwu_do_activate'], ['ipi', '__smp_call_single_queue'], ['mig', 'set_task_cpu'], ['kt', 'kthread_is_per_cpu']],
};

/** The function a key's trees are the callees of (its tracepoint sites apply: sched_waking in try_to_wake_up ...). */
const KEY_PARENT: Record<string, string> = { ttwu: 'try_to_wake_up', schedule: '__schedule' };

/** Functions the compiler looks up by name besides the model's own (for the build's known-symbols table). */
export function compilerSymbolNames(): string[] {
  const tp = Object.entries(tracepointSiteTable()).flatMap(([fn, l]) => [fn, ...l.filter(([, w]) => w.startsWith('after:')).map(([, w]) => w.slice(6))]);
  return ['x64_sys_call', ...Object.values(KEY_PARENT), ...tp];
}

/** the pattern of a function index in a shape, made once per index */
const featureRes = new Map<number, RegExp>();

/** The tree features of a shape ('-' where absent). */
function treeFeatures(key: string, shape: string): string[] {
  const tf = TREE_FEATURES[key];
  if (!tf) return [];
  const names = load().functions;
  return tf.map(([f, fn]) => {
    const i = names.indexOf(fn);
    let re = featureRes.get(i);
    if (!re) { re = new RegExp(`(^|[ (])${i}([ ()*]|$)`); featureRes.set(i, re); }
    return i >= 0 && re.test(shape) ? f : '-';
  });
}

/**
 * Keys whose machine semantics never read the disk: the machine's exec and page faults find the
 * program's pages in the page cache (as on the real guest once a binary has run: no block I/O), and
 * make no block request.  Their variants recorded with a cold page cache (a `submit_bio` in the tree)
 * would hand the block layer bios without a request (`ioblock.request` with dev=N/A size=0), so they
 * are never drawn while the key has a variant that reads nothing.
 */
const CACHED_KEYS = new Set(['sys:execve', 'fault']);

/** The variants of key `name` the machine's state can draw (CACHED_KEYS: those that read no disk). */
function drawable(name: string, v: readonly [string, number, string, number][]): readonly [string, number, string, number][] {
  if (!CACHED_KEYS.has(name)) return v;
  const i = load().functions.indexOf('submit_bio');
  if (i < 0) return v;
  const re = new RegExp(`(^|[ (])${i}([ ()*]|$)`);
  const warm = v.filter(([shape]) => !re.test(shape));
  return warm.length ? warm : v;
}

/** A key of the model, or null when no recording has it. */
export function modelKey(name: string): ModelKey | null {
  let k = keys.get(name);
  if (k !== undefined) return k;
  const d = load().keyData(name);
  k = d ? {
    name,
    rule: d.rule,
    variants: drawable(name, d.v).map(([shape, count, feat, recs]) => ({
      shape, count, feat: [...treeFeatures(name, shape), ...feat.split('|')], blocked: shape.includes('^'), recs, code: null,
    })),
    cache: new Map(),
  } : null;
  keys.set(name, k);
  return k;
}

const BLOCKED_WEIGHT = 1 << 18;

/**
 * The variants of `k` that best match the feature vector `feat` ('|'-joined; '?' in a variant matches
 * nothing and costs nothing) and `blocked`, with cumulative weights (recorded counts).
 */
function candidates(k: ModelKey, feat: string, blocked: boolean): { list: ModelVariant[]; cum: Float64Array } {
  const ck = blocked ? `${feat}^` : feat;
  let c = k.cache.get(ck);
  if (c) return c;
  const q = feat.split('|');
  let best = -1;
  let list: ModelVariant[] = [];
  for (const v of k.variants) {
    let s = v.blocked === blocked ? BLOCKED_WEIGHT : 0;
    const n = Math.min(q.length, v.feat.length);
    for (let i = 0; i < n; i++) if (v.feat[i] === q[i] && q[i] !== '?') s += featureWeight(i);
    if (s > best) { best = s; list = [v]; } else if (s === best) list.push(v);
  }
  const cum = new Float64Array(list.length);
  let acc = 0;
  list.forEach((v, i) => { acc += v.count; cum[i] = acc; });
  c = { list, cum };
  k.cache.set(ck, c);
  return c;
}

/** One of the best-matching variants, drawn with `r` in [0, 1) by recorded frequency. */
export function chooseVariant(k: ModelKey, feat: string, blocked: boolean, r: number): ModelVariant {
  const { list, cum } = candidates(k, feat, blocked);
  const x = r * cum[cum.length - 1];
  let lo = 0, hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] > x) hi = mid; else lo = mid + 1;
  }
  return list[lo];
}

// ------------------------------------------------------------------ shapes

/** A parsed model shape: call nodes (fn = model function index), cut marks and events ('!', `event` its name). */
export type Mark = '^' | '~' | '&' | 'w' | 'S';
export type MNode = { fn: number; kids: MNode[]; rep: number; mark: ''; event?: undefined }
  | { fn: -1; kids: MNode[]; rep: number; mark: Mark | '!'; event?: string };

export function parseModelShape(text: string): MNode[] {
  let i = 0;
  const num = (): number => {
    const s = i;
    while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    if (s === i) throw new Error(`entry model: number expected at ${s} in ${text.slice(0, 60)}`);
    return Number(text.slice(s, i));
  };
  const seq = (): MNode[] => {
    const out: MNode[] = [];
    for (;;) {
      const ch = text[i];
      let n: MNode;
      if (ch === '^' || ch === '~' || ch === '&' || ch === 'w' || ch === 'S') { i++; n = { fn: -1, kids: [], rep: 1, mark: ch }; }
      else if (ch === '!') {
        const s = ++i;
        while (i < text.length && /[a-z0-9_]/.test(text[i])) i++;
        n = { fn: -1, kids: [], rep: 1, mark: '!', event: text.slice(s, i) };
      }
      else {
        n = { fn: num(), kids: [], rep: 1, mark: '' };
        if (text[i] === '(') { i++; n.kids = seq(); if (text[i] !== ')') throw new Error('entry model: ) expected'); i++; }
      }
      if (text[i] === '*') { i++; n.rep = num(); }
      out.push(n);
      if (text[i] !== ' ') return out;
      i++;
    }
  };
  return text === '' ? [] : seq();
}

/** The kallsyms id of model function `f`. */
export function modelFnId(f: number): number {
  const names = load().functions;
  if (!fnIds) fnIds = load().fnIds ?? new Int32Array(names.length).fill(-2);
  let id = fnIds[f];
  if (id === -2) id = fnIds[f] = functionId(names[f]);
  return id;
}

/** Hooks run at the cut points (installed by the subsystems that decide them). */
export const MARK_HOOKS: Record<Mark, string> = { '^': 'sched_point', '~': 'kfault_point', '&': 'softirq_point', 'w': 'ttwu_point', 'S': 'switch' };

/** Tracepoints that fire right after a callee returns: callee kallsyms id -> OP_TP operands. */
type AfterSites = Map<number, number[]> | null;

function afterSitesOf(fn: number): AfterSites {
  let m: AfterSites = null;
  for (const t of tracepointSitesOf(fn)) {
    if (!t.where.startsWith('after:')) continue;
    const callee = functionId(t.where.slice(6));
    if (callee < 0) continue;
    if (!m) m = new Map();
    const l = m.get(callee) ?? [];
    l.push(tpIndex(t.event));
    m.set(callee, l);
  }
  return m;
}

/** Opcodes for `nodes` appended to `code`: calls with their anchors, tracepoints and inline instances. */
export function emitNodes(nodes: readonly MNode[], code: number[], after: AfterSites = null): void {
  for (const n of nodes) {
    if (n.mark === '!') {
      // the events the graph runs recorded (sched_process_fork/exec/exit), where they fired
      for (let r = 0; r < n.rep; r++) code.push(OP_TP, tpIndex(`sched:${n.event}`));
      continue;
    }
    if (n.mark) {
      // the context switch: sched_switch fires in __schedule right before it (trace_sched_switch)
      if (n.mark === 'S') code.push(OP_TP, tpIndex('sched:sched_switch'));
      for (let r = 0; r < n.rep; r++) code.push(OP_HOOK, hookIndex(MARK_HOOKS[n.mark]));
      continue;
    }
    const id = modelFnId(n.fn);
    if (id < 0) { for (let r = 0; r < n.rep; r++) emitNodes(n.kids, code, after); continue; }
    const rule = n.rep > 1 ? countRuleIndex(id) : -1;
    const tail = after?.get(id);
    if (rule >= 0) {
      // OP_REPEAT rule, recorded count, end: the body runs as often as the rule says (else the recorded N)
      code.push(OP_REPEAT, rule, n.rep, 0);
      const fix = code.length - 1;
      const start = code.length;
      emitCall(id, n.kids, code);
      if (tail) for (const tp of tail) code.push(OP_TP, tp);
      code.push(OP_LOOP, start);
      code[fix] = code.length;
      continue;
    }
    for (let r = 0; r < n.rep; r++) {
      emitCall(id, n.kids, code);
      if (tail) for (const tp of tail) code.push(OP_TP, tp);
    }
  }
}

function emitCall(id: number, kids: readonly MNode[], code: number[]): void {
  code.push(id);
  const anchors = anchorsOf(id);
  const tps = tracepointSitesOf(id);
  for (const t of tps) if (t.where === 'entry') code.push(OP_TP, tpIndex(t.event));
  for (const a of anchors) if (a.where === 'entry') code.push(OP_HOOK, hookIndex(a.hook));
  // one int3 site per address (instances nested at one pc: the outermost); DWARF also lists a few
  // functions as inlined into their own out-of-line copy (check_kill_permission in 6.1): the call
  // itself is that function's entry, so no second hit is made there
  const self = symbolName(id);
  const seen = new Set<number>();
  if (withInline) for (const inst of inlineInstancesIn(id)) {
    if (seen.has(inst.addr)) continue;
    seen.add(inst.addr);
    if (inst.fn.name !== self) code.push(OP_INLINE, inlineRefIndex(inst.fn.name, [inst.callLine]));
  }
  emitNodes(kids, code, tps.length ? afterSitesOf(id) : null);
  for (const a of anchors) if (a.where === 'exit') code.push(OP_HOOK, hookIndex(a.hook));
  for (const t of tps) if (t.where === 'exit') code.push(OP_TP, tpIndex(t.event));
  code.push(OP_RET);
}

/** Compile a node list into a path (ending with OP_END). */
/**
 * Whether programs compiled now carry the inline-site operations.  They only matter while an
 * int3 site is armed (kexec skips them otherwise), and finding them reads the whole inline-site
 * table (~80 ms): a machine without inline probes compiles without them, and a variant compiled
 * so is compiled again once a site is armed (`current`).
 */
let withInline = false;
const current = (inl: boolean | undefined): boolean => inl === true || int3SiteCount() === 0;

export function compileNodes(name: string, nodes: readonly MNode[], parent: string | number = ''): CompiledPath {
  withInline = int3SiteCount() > 0;
  const code: number[] = [];
  const pid = typeof parent === 'number' ? parent : parent ? functionId(parent) : -1;
  emitNodes(nodes, code, pid >= 0 ? afterSitesOf(pid) : null);
  code.push(OP_END);
  return { name, code: Int32Array.from(code) };
}

/**
 * A variant of key `key` for an entry of the machine (features from the key's `Semantics.features`,
 * else none), compiled; null when no recording has the key.
 */
export function modelPath(m: MachineCore, c: Cpu, t: Task, e: Env, key: string, feat?: string): CompiledPath | null {
  const k = modelKey(key);
  if (!k || !k.variants.length) return null;
  const f = feat ?? featuresOf(key)?.(m, c, t, e) ?? '';
  return variantCode(k, chooseVariant(k, f, false, m.pathRand.next()));
}

/** The compiled program of a variant (the whole tree), made on first use. */
export function variantCode(k: ModelKey, v: ModelVariant): CompiledPath {
  if (v.code && current(v.codeInline)) return v.code;
  v.code = compileNodes(k.name, parseModelShape(v.shape), KEY_PARENT[k.name] ?? '');
  v.codeInline = withInline;
  return v.code;
}

/**
 * For a syscall variant (`x64_sys_call(SYSFN(...))`): the syscall function's kallsyms id and the
 * program of its callees (what runs after the syscall's semantics chose the variant).
 */
export function syscallInner(k: ModelKey, v: ModelVariant): { fn: number; code: CompiledPath } {
  const stale = !v.code || !current(v.codeInline);
  if (stale || v.innerFn === undefined) {
    const sysfn = syscallNode(v);
    v.innerFn = sysfn ? modelFnId(sysfn.fn) : -1;
    if (stale) {
      v.code = compileNodes(k.name, sysfn ? sysfn.kids : [], sysfn ? modelFnId(sysfn.fn) : '');
      v.codeInline = withInline;
    }
  }
  return { fn: v.innerFn, code: v.code! };
}

/** The syscall function's node of a syscall variant's tree (under `x64_sys_call` when it is there). */
function syscallNode(v: ModelVariant): MNode | undefined {
  const top = parseModelShape(v.shape)[0];
  return top && top.fn >= 0 && modelFnId(top.fn) === functionId('x64_sys_call') ? top.kids[0] : top;
}

/**
 * A call that fails where no recording failed: the recorded tree cut short where the failure returns
 * (the callees of `upTo` end with the one that holds `fail`, the function whose error ends the call;
 * what follows `upTo` runs, as the error unwinds through its callers' cleanup).
 */
export function truncateAtFailure(nodes: readonly MNode[], fail: number, upTo: number): MNode[] {
  const has = (n: MNode): boolean => (n.fn >= 0 && modelFnId(n.fn) === fail) || n.kids.some(has);
  const walk = (ns: readonly MNode[], below: boolean): MNode[] => {
    const out: MNode[] = [];
    for (const n of ns) {
      if (n.fn >= 0 && modelFnId(n.fn) === fail) { out.push(n); if (below) return out; continue; }
      if (has(n)) {
        out.push({ ...n, rep: 1, kids: walk(n.kids, below || (n.fn >= 0 && modelFnId(n.fn) === upTo)) } as MNode);
        if (below) return out;
        continue;
      }
      out.push(n);
    }
    return out;
  };
  return walk(nodes, false);
}

/** syscallInner of a variant cut short at `fail` (truncateAtFailure), compiled once. */
export function failingInner(k: ModelKey, v: ModelVariant, fail: string, upTo: string): CompiledPath {
  const key = `${fail}<${upTo}${int3SiteCount() > 0 ? '+inline' : ''}`;
  let c = v.failCode?.get(key);
  if (c) return c;
  const sysfn = syscallNode(v);
  const kids = sysfn ? truncateAtFailure(sysfn.kids, functionId(fail), functionId(upTo)) : [];
  c = compileNodes(k.name, kids, sysfn ? modelFnId(sysfn.fn) : '');
  (v.failCode ?? (v.failCode = new Map())).set(key, c);
  return c;
}
