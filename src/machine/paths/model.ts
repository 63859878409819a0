/**
 * The entry model: the call trees the real Debian 12 kernel ran for each kernel entry, generated from
 * the recordings (data/recordings/) by scripts/paths/generate.ts into data/paths/entries.json.gz, read
 * here on first use (a machine that never enters the kernel reads nothing).
 *
 * File format 1: `{format, generator, recordings: [{name, command}], functions: [name], keys: {KEY: {rule?,
 * v: [[shape, count, features, recordings bitmask]]}}}`.  A shape is a call tree over `functions` ids:
 *
 *   node := ID ['(' seq ')'] ['*' N]     a call with its callees, N identical calls in a row
 *         | '^' | '~' | '&'              cut points: a schedule (the task slept), a page fault taken in
 *                                        kernel mode, pending softirqs run (scripts/paths/tree.ts)
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
import { inlineInstancesIn } from '../../kernel/inline_sites';
import type { CompiledPath } from '../include/kstack';
import { OP_HOOK, OP_RET, OP_TP, OP_INLINE, OP_END, OP_REPEAT, OP_LOOP, hookIndex, tpIndex, inlineRefIndex } from './dsl';
import { anchorsOf, countRuleIndex } from './semantics';
import { tracepointSitesOf } from './tpsites';
import { featureWeight } from './features';

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
}

export interface ModelKey {
  readonly name: string;
  readonly rule: string | undefined;
  readonly variants: readonly ModelVariant[];
  /** feature string (+ blocked) -> the best-scoring variants and their cumulative weights */
  readonly cache: Map<string, { list: ModelVariant[]; cum: Float64Array }>;
}

interface ModelFile {
  format: number;
  recordings: { name: string; command: string }[];
  functions: string[];
  keys: Record<string, { rule?: string; v: [string, number, string, number][] }>;
}

let file: ModelFile | null = null;
const keys = new Map<string, ModelKey | null>();
/** model function index -> kallsyms id (-1: not a symbol of this kernel), resolved on first use */
let fnIds: Int32Array | null = null;

/** data/paths/ found from this module's location (dist/src/machine/paths or src/machine/paths). */
function modelFile(): string {
  let d = __dirname;
  for (let i = 0; i < 7; i++) {
    const f = path.join(d, 'data', 'paths', 'entries.json.gz');
    if (fs.existsSync(f)) return f;
    d = path.dirname(d);
  }
  return '';
}

function load(): ModelFile {
  if (file) return file;
  const f = modelFile();
  if (!f) {
    file = { format: 1, recordings: [], functions: [], keys: {} };
    return file;
  }
  const zlib = require('zlib') as typeof import('zlib');
  file = JSON.parse(zlib.gunzipSync(fs.readFileSync(f)).toString('latin1')) as ModelFile;
  return file;
}

/** The recordings the model was made from. */
export function modelRecordings(): readonly { name: string; command: string }[] {
  return load().recordings;
}

/** Every key of the model. */
export function modelKeys(): string[] {
  return Object.keys(load().keys);
}

/** The model's function names (for checks: every one should be a kernel symbol). */
export function modelFunctions(): readonly string[] {
  return load().functions;
}

/** A key of the model, or null when no recording has it. */
export function modelKey(name: string): ModelKey | null {
  let k = keys.get(name);
  if (k !== undefined) return k;
  const d = load().keys[name];
  k = d ? {
    name,
    rule: d.rule,
    variants: d.v.map(([shape, count, feat, recs]) => ({
      shape, count, feat: feat.split('|'), blocked: shape.includes('^'), recs, code: null,
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

/** A parsed model shape: call nodes (fn = model function index) and cut marks. */
export type MNode = { fn: number; kids: MNode[]; rep: number; mark: '' } | { fn: -1; kids: MNode[]; rep: number; mark: '^' | '~' | '&' };

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
      if (ch === '^' || ch === '~' || ch === '&') { i++; n = { fn: -1, kids: [], rep: 1, mark: ch }; }
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
  if (!fnIds) fnIds = new Int32Array(names.length).fill(-2);
  let id = fnIds[f];
  if (id === -2) id = fnIds[f] = functionId(names[f]);
  return id;
}

/** Hooks run at the cut points (installed by the subsystems that decide them). */
export const MARK_HOOKS: Record<'^' | '~' | '&', string> = { '^': 'sched_point', '~': 'kfault_point', '&': 'softirq_point' };

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
    if (n.mark) {
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
  for (const inst of inlineInstancesIn(id)) code.push(OP_INLINE, inlineRefIndex(inst.fn.name, [inst.callLine]));
  emitNodes(kids, code, tps.length ? afterSitesOf(id) : null);
  for (const a of anchors) if (a.where === 'exit') code.push(OP_HOOK, hookIndex(a.hook));
  for (const t of tps) if (t.where === 'exit') code.push(OP_TP, tpIndex(t.event));
  code.push(OP_RET);
}

/** Compile a node list into a path (ending with OP_END). */
export function compileNodes(name: string, nodes: readonly MNode[], parent = ''): CompiledPath {
  const code: number[] = [];
  emitNodes(nodes, code, parent ? afterSitesOf(functionId(parent)) : null);
  code.push(OP_END);
  return { name, code: Int32Array.from(code) };
}

/** The compiled program of a variant (the whole tree), made on first use. */
export function variantCode(k: ModelKey, v: ModelVariant): CompiledPath {
  return v.code ?? (v.code = compileNodes(k.name, parseModelShape(v.shape)));
}

/**
 * For a syscall variant (`x64_sys_call(SYSFN(...))`): the syscall function's kallsyms id and the
 * program of its callees (what runs after the syscall's semantics chose the variant).
 */
export function syscallInner(k: ModelKey, v: ModelVariant): { fn: number; code: CompiledPath } {
  const nodes = parseModelShape(v.shape);
  const top = nodes[0];
  const sysfn = top && top.fn >= 0 && modelFnId(top.fn) === functionId('x64_sys_call') ? top.kids[0] : top;
  if (!v.code) v.code = compileNodes(k.name, sysfn ? sysfn.kids : [], sysfn ? load().functions[sysfn.fn] : '');
  return { fn: sysfn ? modelFnId(sysfn.fn) : -1, code: v.code };
}
