/**
 * Recorded call trees (the entry model's shapes, paths/model.ts) compiled into the interpreter's
 * program (paths/dsl.ts opcodes, run by paths/kexec.ts).  A shape is text:
 *
 *   node := ID ['(' seq ')'] ['*' N]     a call (ID: model function index) with its callees, N in a row
 *         | '^' | '~' | '&' | 'w' | 'S'  cut points, run as hooks (MARK_HOOKS)
 *         | '!' NAME                     the sched event NAME fired here
 *   seq  := node (' ' node)*
 *
 * A call compiles to its function id, the tracepoints and hooks placed at its entry, the inline
 * instances the DWARF data places in it (when `inline`), its callees, the hooks and tracepoints of
 * its exit, and OP_RET.  The compiler reads the text directly, and compiles lazily: the callees of a
 * call whose text is longer than CHUNK_CHARS become an OP_SUB to a chunk compiled the first time it
 * runs (kexec pushes the chunk's program as a frame with the same environment, which is what running
 * the callees in place does: calls, time, tracepoints and hooks are the same, in the same order).
 * The start-up and exit of a program are recorded trees of ~10,000 calls of which one run needs each
 * once: a start compiles what it runs and no more, and a hot path (a short syscall tree) has no chunk.
 * The build compiles every variant whole with no inline sites (paths/model.ts programCompiler); a
 * process runs those programs (relocate) and compiles here only when they do not apply (an int3 site
 * armed, a stale table, a failure cut short: paths/model.ts).
 */
import { functionId } from '../../kernel/ftrace';
import { symbolName } from '../../kernel/kallsyms';
import { inlineInstancesIn } from '../../kernel/inline_sites';
import type { CompiledPath } from '../include/kstack';
import { OP_HOOK, OP_RET, OP_TP, OP_INLINE, OP_END, OP_REPEAT, OP_LOOP, OP_SUB, hookIndex, tpIndex, inlineRefIndex } from './dsl';
import { anchorsOf, countRuleIndex, compileInputs } from './semantics';
import { tracepointSitesOf, tracepointSiteTable } from './tpsites';

/** A parsed shape: call nodes (fn = model function index), cut marks and events ('!', `event` its name). */
export type Mark = '^' | '~' | '&' | 'w' | 'S';
export type MNode = { fn: number; kids: MNode[]; rep: number; mark: ''; event?: undefined }
  | { fn: -1; kids: MNode[]; rep: number; mark: Mark | '!'; event?: string };

/** Hooks run at the cut points (installed by the subsystems that decide them). */
export const MARK_HOOKS: Record<Mark, string> = { '^': 'sched_point', '~': 'kfault_point', '&': 'softirq_point', 'w': 'ttwu_point', 'S': 'switch' };

/** Callees longer than this (in shape text) compile when they first run. */
let chunkChars = 2048;
/** For tests: the lazy-compilation threshold (Infinity: compile everything at once); returns the old one. */
export function setChunkChars(n: number): number {
  const old = chunkChars;
  chunkChars = n;
  return old;
}

/**
 * What one compile works on: the shape's text, its function ids, whether inline instances are emitted,
 * and the ops of each model function (FnOps by model function index, shared by the compiles with `ids`).
 */
interface Src {
  readonly name: string;
  readonly text: string;
  readonly ids: (f: number) => number;
  readonly inline: boolean;
  readonly ops: (FnOps | undefined)[];
  /** closeOf's notes, kept while a chunk of the shape is still to compile */
  close?: Int32Array;
  /** chunks of the shape not compiled yet */
  pending: number;
  /** callees longer than this (in text) become a chunk (chunkChars; Infinity: compile whole) */
  limit: number;
  /** the text offset of callees left out (compileWithHole; -1: none) and where in the code they go */
  hole: number;
  holeAt: number;
}

/**
 * Tracepoints that fire right before a callee is called and right after it returns: callee kallsyms
 * id -> [before, after] OP_TP operands.
 */
type AfterSites = Map<number, [number[], number[]]> | null;

/** A lazily compiled run of callees (OP_SUB operand: its index). */
interface Chunk { src: Src; start: number; end: number; after: AfterSites; parent: number; code: CompiledPath | null }
const chunks: Chunk[] = [];

/** The program of chunk `i`, compiled on its first run. */
export function chunkCode(i: number): CompiledPath {
  const ch = chunks[i];
  if (ch.code) return ch.code;
  const code: number[] = [];
  emitSeq(ch.src, ch.start, ch.end, code, ch.after, ch.parent);
  code.push(OP_END);
  ch.code = { name: ch.src.name, code: Int32Array.from(code) };
  if (--ch.src.pending === 0) ch.src.close = undefined;
  return ch.code;
}

/** What a call of one function emits besides its callees (its kallsyms id, ops), made once per function. */
interface FnOps { id: number; pre: number[]; post: number[]; after: AfterSites; inl: number[] | null }
const fnOps = new Map<number, FnOps>();
const NOT_A_SYMBOL: FnOps = { id: -1, pre: [], post: [], after: null, inl: [] };
/** FnOps by model function index, per function-id mapping */
const opsByIds = new Map<(f: number) => number, (FnOps | undefined)[]>();

function opsOfModelFn(s: Src, f: number): FnOps {
  const id = s.ids(f);
  return (s.ops[f] = id < 0 ? NOT_A_SYMBOL : opsOf(id));
}

function opsOf(id: number): FnOps {
  let o = fnOps.get(id);
  if (o) return o;
  const anchors = anchorsOf(id);
  const tps = tracepointSitesOf(id);
  const pre: number[] = [];
  const post: number[] = [];
  for (const t of tps) if (t.where === 'entry') pre.push(OP_TP, tpIndex(t.event));
  for (const a of anchors) if (a.where === 'entry') pre.push(OP_HOOK, hookIndex(a.hook));
  for (const a of anchors) if (a.where === 'exit') post.push(OP_HOOK, hookIndex(a.hook));
  for (const t of tps) if (t.where === 'exit') post.push(OP_TP, tpIndex(t.event));
  o = { id, pre, post, after: tps.length ? afterSitesOf(id) : null, inl: null };
  fnOps.set(id, o);
  return o;
}

/** The tracepoints of `fn` that fire before one of its callees is called or after it returns. */
export function afterSitesOf(fn: number): AfterSites {
  let m: AfterSites = null;
  for (const t of tracepointSitesOf(fn)) {
    const after = t.where.startsWith('after:');
    if (!after && !t.where.startsWith('before:')) continue;
    const callee = functionId(t.where.slice(after ? 6 : 7));
    if (callee < 0) continue;
    if (!m) m = new Map();
    let l = m.get(callee);
    if (!l) m.set(callee, (l = [[], []]));
    l[after ? 1 : 0].push(tpIndex(t.event));
  }
  return m;
}

/**
 * The inline instances DWARF places in `id`: one int3 site per address (instances nested at one pc:
 * the outermost); DWARF also lists a few functions as inlined into their own out-of-line copy
 * (check_kill_permission in 6.1): the call itself is that function's entry, so no second hit is made there.
 */
function inlineOps(id: number, o: FnOps): number[] {
  if (o.inl) return o.inl;
  const self = symbolName(id);
  const seen = new Set<number>();
  const inl: number[] = [];
  for (const inst of inlineInstancesIn(id)) {
    if (seen.has(inst.addr)) continue;
    seen.add(inst.addr);
    if (inst.fn.name !== self) inl.push(OP_INLINE, inlineRefIndex(inst.fn.name, [inst.callLine]));
  }
  o.inl = inl;
  return inl;
}

const C_OPEN = 40, C_CLOSE = 41, C_STAR = 42, C_SPACE = 32, C_0 = 48, C_9 = 57;

/** The number at `i` of `text` and where it ends. */
let numEnd = 0;
function numAt(text: string, i: number): number {
  let n = 0;
  let c = text.charCodeAt(i);
  if (!(c >= C_0 && c <= C_9)) throw new Error(`entry model: number expected at ${i} in ${text.slice(0, 60)}`);
  do { n = n * 10 + (c - C_0); c = text.charCodeAt(++i); } while (c >= C_0 && c <= C_9);
  numEnd = i;
  return n;
}

/**
 * The ')' matching the '(' at `open` of the shape's text; `closeFar`: it lies more than `limit`
 * characters on.  A scan notes the ')' of every '(' it passes (`s.close`, position + 1), so each
 * part of a shape is scanned once however deep it nests.
 */
let closeFar = false;
function closeOf(s: Src, open: number, limit: number): number {
  const text = s.text;
  const memo = s.close ?? (s.close = new Int32Array(text.length));
  let at = memo[open] - 1;
  if (at < 0) {
    const stack: number[] = [];
    for (let i = open; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === C_OPEN) {
        const known = memo[i];
        if (known > 0 && i !== open) { i = known - 1; continue; }
        stack.push(i);
      } else if (c === C_CLOSE) {
        memo[stack.pop()!] = i + 1;
        if (stack.length === 0) { at = i; break; }
      }
    }
    if (at < 0) throw new Error('entry model: ) expected');
  }
  closeFar = at - open > limit;
  return at;
}

function newChunk(s: Src, start: number, end: number, after: AfterSites, parent: number): number {
  s.pending++;
  return chunks.push({ src: s, start, end, after, parent, code: null }) - 1;
}

/** Emit the callees text[start, end) of a call, through a chunk when they are long. */
function emitKids(s: Src, start: number, end: number, code: number[], after: AfterSites, chunk: number, parent: number): void {
  if (start === s.hole) s.holeAt = code.length;
  else if (chunk >= 0) code.push(OP_SUB, chunk);
  else emitSeq(s, start, end, code, after, parent);
}

/**
 * Emit the nodes of text[i, end) (a seq; `after`: the tracepoints of their caller that fire after
 * one of them returns; `parent`: the caller's kallsyms id, -1 unknown).
 */
function emitSeq(s: Src, i: number, end: number, code: number[], after: AfterSites, parent: number): void {
  const text = s.text;
  const seqStart = i;
  const pcp = parent >= 0 && parent === pcpSite().parent ? pcpSite() : null;
  while (i < end) {
    const ch = text.charCodeAt(i);
    const at = i;
    let rep = 1;
    if (ch >= C_0 && ch <= C_9) {
      const f = numAt(text, i);
      i = numEnd;
      let ks = i, ke = i, chunk = -1;
      if (text.charCodeAt(i) === C_OPEN) {
        ks = i + 1;
        ke = closeOf(s, i, s.limit);
        i = ke + 1;
        if (closeFar) chunk = -2;
      }
      if (text.charCodeAt(i) === C_STAR) { rep = numAt(text, i + 1); i = numEnd; }
      const o = s.ops[f] ?? opsOfModelFn(s, f);
      const id = o.id;
      if (id < 0) {
        if (chunk === -2) chunk = newChunk(s, ks, ke, after, parent);
        for (let r = 0; r < rep; r++) emitKids(s, ks, ke, code, after, chunk, parent);
      } else if (pcp && id === pcp.bulk) {
        // a recorded refill of the per-CPU list: the machine's lists decide (emitPcpRefill)
      } else if (id === lruSite().move && (parent === lruSite().add || parent === lruSite().drain) && callsFn(s, ks, ke, lruSite().fn)) {
        // a recorded move of the lru_add batch: the machine's batches decide (emitLruMove)
      } else {
        if (chunk === -2) chunk = newChunk(s, ks, ke, o.after, id);
        const around = after?.get(id);
        const rule = rep > 1 ? countRuleIndex(id) : -1;
        const run = rule >= 0 ? countedRun(s, seqStart, end, f) : null;
        if (run && run.at === at) {
          // OP_REPEAT rule, recorded count, the other calls, end: the body runs as often as the rule
          // says less the seq's other calls of the function (else the recorded N)
          code.push(OP_REPEAT, rule, rep, run.total - rep, 0);
          const fix = code.length - 1;
          const start = code.length;
          emitAround(s, id, o, ks, ke, code, chunk, around);
          code.push(OP_LOOP, start);
          code[fix] = code.length;
        } else {
          for (let r = 0; r < rep; r++) emitAround(s, id, o, ks, ke, code, chunk, around);
        }
        if (pcp && id === pcp.lock) emitPcpRefill(s, pcp, code);
      }
    } else if (ch === 33 /* ! */) {
      // the events the graph runs recorded (sched_process_fork/exec/exit), where they fired
      const st = ++i;
      for (let c = text.charCodeAt(i); (c >= 97 && c <= 122) || (c >= C_0 && c <= C_9) || c === 95; c = text.charCodeAt(++i));
      const tp = tpIndex(`sched:${text.slice(st, i)}`);
      if (text.charCodeAt(i) === C_STAR) { rep = numAt(text, i + 1); i = numEnd; }
      for (let r = 0; r < rep; r++) code.push(OP_TP, tp);
    } else {
      const mark = text[i++] as Mark;
      const hook = MARK_HOOKS[mark];
      if (hook === undefined) throw new Error(`entry model: bad node '${mark}' at ${i - 1} in ${text.slice(0, 60)}`);
      if (text.charCodeAt(i) === C_STAR) { rep = numAt(text, i + 1); i = numEnd; }
      // the context switch: sched_switch fires in __schedule right before it (trace_sched_switch)
      if (mark === 'S') code.push(OP_TP, tpIndex('sched:sched_switch'));
      const hi = hookIndex(hook);
      for (let r = 0; r < rep; r++) code.push(OP_HOOK, hi);
    }
    if (i < end && text.charCodeAt(i) === C_SPACE) i++;
    else if (i < end) throw new Error(`entry model: ' ' expected at ${i} in ${text.slice(0, 60)}`);
  }
}

/**
 * The calls of model function `f` among the nodes of the seq text[start, end) (its callers' other
 * callees not counted): all of them, and where the longest run (`F*N`, the first of the longest) starts.
 * A count rule says how many calls the whole seq makes (filemap_read's folio_mark_accessed of each folio
 * it copies, split by the recorded tree into runs where one of them drained a folio batch): the longest
 * run takes the difference, the others run as recorded.
 */
function countedRun(s: Src, start: number, end: number, f: number): { total: number; at: number } {
  const text = s.text;
  let total = 0, best = 0, at = -1;
  for (let i = start; i < end;) {
    const node = i;
    const ch = text.charCodeAt(i);
    let g = -1;
    if (ch >= C_0 && ch <= C_9) { g = numAt(text, i); i = numEnd; } else i++;
    if (text.charCodeAt(i) === C_OPEN) i = closeOf(s, i, chunkChars) + 1;
    else while (i < end && text.charCodeAt(i) !== C_SPACE && text.charCodeAt(i) !== C_STAR) i++;
    let rep = 1;
    if (text.charCodeAt(i) === C_STAR) { rep = numAt(text, i + 1); i = numEnd; }
    if (g === f) {
      total += rep;
      if (rep > best) { best = rep; at = node; }
    }
    if (text.charCodeAt(i) === C_SPACE) i++;
  }
  return { total, at };
}

/** pcp->batch: the pages rmqueue_bulk takes off the buddy lists per refill (every recorded refill of an order-0 page: check_new_pages*63) */
export const PCP_BATCH = 63;

/**
 * mm/page_alloc.c rmqueue_pcplist (inlined in get_page_from_freelist): the per-CPU list's lock
 * (pcp_spin_trylock: `lock`), then, when the list is empty, `bulk` (rmqueue_bulk: the zone lock,
 * check_new_pages per page taken, the zone's counters).  Ids of the kallsyms functions; -2: not resolved yet.
 */
interface PcpSite { parent: number; lock: number; bulk: number; kids: number[]; check: number }
let pcpSiteIds: PcpSite | null = null;
function pcpSite(): PcpSite {
  return pcpSiteIds ?? (pcpSiteIds = {
    parent: functionId('get_page_from_freelist'), lock: functionId('_raw_spin_trylock'), bulk: functionId('rmqueue_bulk'),
    kids: ['_raw_spin_lock_irqsave', 'check_new_pages', '__mod_zone_page_state', '_raw_spin_unlock_irqrestore'].map((n) => functionId(n)),
    check: functionId('check_new_pages'),
  });
}

/**
 * After get_page_from_freelist takes the per-CPU list's lock: rmqueue_bulk, as the recordings show
 * it (`rmqueue_bulk(_raw_spin_lock_irqsave check_new_pages*63 __mod_zone_page_state
 * _raw_spin_unlock_irqrestore)`), run as often as its count rule says (mm/page_alloc.ts: once when
 * the CPU's list is empty, else not).  The recorded trees' own rmqueue_bulk calls are left out.
 */
function emitPcpRefill(s: Src, p: PcpSite, code: number[]): void {
  const rule = countRuleIndex(p.bulk);
  if (rule < 0 || p.bulk < 0) return;
  code.push(OP_REPEAT, rule, 0, 0, 0);
  const fix = code.length - 1;
  const start = code.length;
  const o = opsOf(p.bulk);
  code.push(p.bulk);
  pushAll(code, o.pre);
  if (s.inline) pushAll(code, inlineOps(p.bulk, o));
  for (const k of p.kids) {
    if (k < 0) continue;
    const around = o.after?.get(k);
    if (k !== p.check) { emitAround(s, k, opsOf(k), 0, 0, code, -1, around); continue; }
    code.push(OP_REPEAT, -1, PCP_BATCH, 0, 0);
    const fixK = code.length - 1;
    const startK = code.length;
    emitAround(s, k, opsOf(k), 0, 0, code, -1, around);
    code.push(OP_LOOP, startK);
    code[fixK] = code.length;
  }
  pushAll(code, o.post);
  code.push(OP_RET);
  code.push(OP_LOOP, start);
  code[fix] = code.length;
}

/**
 * mm/swap.c's lru_add batch (mm/swap.ts): folio_add_lru (`add`) and lru_add_drain_cpu (`drain`) move it
 * with folio_batch_move_lru (`move`), one lru_add_fn (`fn`) per folio.  Kallsyms ids; -2: not resolved yet.
 */
interface LruSite { add: number; drain: number; move: number; fn: number }
let lruSiteIds: LruSite | null = null;
function lruSite(): LruSite {
  return lruSiteIds ?? (lruSiteIds = {
    add: functionId('folio_add_lru'), drain: functionId('lru_add_drain_cpu'), move: functionId('folio_batch_move_lru'), fn: functionId('lru_add_fn'),
  });
}

/** A call tree by function names: [name, callees]; `LRU_ADD_FN` marks the call repeated once per folio moved. */
type NamedTree = readonly [string, (readonly NamedTree[])?];
const LRU_ADD_FN = 'lru_add_fn';
/**
 * folio_batch_move_lru of the lru_add batch as every recording shows it (the fault's move of a full
 * batch: `lru_add_fn(...)*15`; the drains' with fewer): the lruvec lock, lru_add_fn per folio (its
 * statistics: __mod_lruvec_state, mem_cgroup_update_lru_size), the unlock, then release_pages dropping
 * the batch's references (no page freed: the folios stay mapped).
 */
const LRU_MOVE: NamedTree = ['folio_batch_move_lru', [
  ['folio_lruvec_lock_irqsave', [['_raw_spin_lock_irqsave']]],
  [LRU_ADD_FN, [['__rcu_read_lock'], ['folio_mapping'], ['__rcu_read_unlock'],
    ['__mod_lruvec_state', [['__mod_node_page_state'], ['__mod_memcg_lruvec_state', [['__cgroup_rstat_updated']]]]],
    ['__mod_zone_page_state'], ['mem_cgroup_update_lru_size']]],
  ['_raw_spin_unlock_irqrestore'],
  ['release_pages', [['__mem_cgroup_uncharge_list'], ['free_unref_page_list']]],
]];

/** Whether the seq text[start, end) calls kallsyms function `id` at any depth. */
function callsFn(s: Src, start: number, end: number, id: number): boolean {
  const text = s.text;
  for (let i = start; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (!(ch >= C_0 && ch <= C_9)) continue;
    const prev = i > 0 ? text.charCodeAt(i - 1) : C_SPACE;
    const f = numAt(text, i);
    const next = numEnd;
    if (prev !== C_STAR && s.ids(f) === id) return true;
    i = next - 1;
  }
  return false;
}

/**
 * At the entry of folio_add_lru or lru_add_drain_cpu (`site`): the move of the CPU's lru_add batch,
 * run as often as the site's count rule says (mm/swap.ts: once when the batch is moved here, else
 * not), its lru_add_fn as often as lru_add_fn's (the folios moved).  The recorded trees' own moves of
 * that batch are left out (emitSeq).
 */
function emitLruMove(s: Src, site: number, code: number[]): void {
  const rule = countRuleIndex(site);
  if (rule < 0 || lruSite().move < 0) return;
  code.push(OP_REPEAT, rule, 0, 0, 0);
  const fix = code.length - 1;
  const start = code.length;
  emitNamed(s, LRU_MOVE, code, opsOf(site).after);
  code.push(OP_LOOP, start);
  code[fix] = code.length;
}

/** Emit a call tree by names (`after`: its caller's before/after-callee tracepoints). */
function emitNamed(s: Src, [name, kids]: NamedTree, code: number[], after: AfterSites): void {
  const id = functionId(name);
  if (id < 0) return;
  const o = opsOf(id);
  const rule = name === LRU_ADD_FN ? countRuleIndex(id) : -1;
  let fix = -1, start = -1;
  if (rule >= 0) {
    code.push(OP_REPEAT, rule, 1, 0, 0);
    fix = code.length - 1;
    start = code.length;
  }
  const around = after?.get(id);
  if (around) for (const tp of around[0]) code.push(OP_TP, tp);
  code.push(id);
  pushAll(code, o.pre);
  if (s.inline) pushAll(code, inlineOps(id, o));
  for (const k of kids ?? []) emitNamed(s, k, code, o.after);
  pushAll(code, o.post);
  code.push(OP_RET);
  if (around) for (const tp of around[1]) code.push(OP_TP, tp);
  if (rule >= 0) {
    code.push(OP_LOOP, start);
    code[fix] = code.length;
  }
}

function pushAll(code: number[], ops: readonly number[]): void {
  for (let i = 0; i < ops.length; i++) code.push(ops[i]);
}

/** A call with its caller's tracepoints right before it and right after it returns. */
function emitAround(s: Src, id: number, o: FnOps, ks: number, ke: number, code: number[], chunk: number, around: [number[], number[]] | undefined): void {
  if (around) for (const tp of around[0]) code.push(OP_TP, tp);
  emitCall(s, id, o, ks, ke, code, chunk);
  if (around) for (const tp of around[1]) code.push(OP_TP, tp);
}

function emitCall(s: Src, id: number, o: FnOps, ks: number, ke: number, code: number[], chunk: number): void {
  code.push(id);
  if (o.pre.length) pushAll(code, o.pre);
  if (s.inline) pushAll(code, inlineOps(id, o));
  if (id === lruSite().add || id === lruSite().drain) emitLruMove(s, id, code);
  if (ke > ks) emitKids(s, ks, ke, code, o.after, chunk, id);
  if (o.post.length) pushAll(code, o.post);
  code.push(OP_RET);
}

/**
 * Compile text[start, end) of a shape (a seq) into a path ending with OP_END: `ids` maps the model's
 * function indices to kallsyms ids, `parent` is the function the nodes are the callees of (its entry,
 * exit and before/after-callee tracepoints apply; -1: none), `inline` whether inline-site operations are emitted.
 */
export function compileShape(name: string, text: string, start: number, end: number, parent: number, ids: (f: number) => number, inline: boolean): CompiledPath {
  const code: number[] = [];
  const s: Src = { name, text, ids, inline, ops: opsFor(ids), pending: 0, limit: chunkChars, hole: -1, holeAt: -1 };
  // the caller's call op is not in this program (the syscall path calls __x64_sys_*), its entry and
  // exit tracepoints are: before its first callee and after its last
  const tps = parent >= 0 ? tracepointSitesOf(parent) : [];
  for (const t of tps) if (t.where === 'entry') code.push(OP_TP, tpIndex(t.event));
  emitSeq(s, start, end, code, parent >= 0 ? afterSitesOf(parent) : null, parent);
  for (const t of tps) if (t.where === 'exit') code.push(OP_TP, tpIndex(t.event));
  if (s.pending === 0) s.close = undefined;
  code.push(OP_END);
  return { name, code: Int32Array.from(code) };
}

function opsFor(ids: (f: number) => number): (FnOps | undefined)[] {
  let ops = opsByIds.get(ids);
  if (!ops) opsByIds.set(ids, (ops = []));
  return ops;
}

/**
 * Compile a shape whole (no chunks: no OP_SUB) as compileShape does with `parent` -1, but for the callees
 * at text offset `hole` (right after a call's '('): they are left out, and `at` is where in the code
 * they would be.  Splicing there the callees' code (compileCallees of the call's function, with the
 * same `ids` and `inline`) gives the program of the shape with those callees, as compileShape makes
 * it (its chunks run in place).
 */
export function compileWithHole(name: string, text: string, hole: number, ids: (f: number) => number, inline: boolean): { code: Int32Array; at: number } {
  const code: number[] = [];
  const s: Src = { name, text, ids, inline, ops: opsFor(ids), pending: 0, limit: Infinity, hole, holeAt: -1 };
  emitSeq(s, 0, text.length, code, null, -1);
  code.push(OP_END);
  if (s.holeAt < 0) throw new Error(`entry model: no callees at ${hole} in ${text.slice(0, 60)}`);
  return { code: Int32Array.from(code), at: s.holeAt };
}

/**
 * The code of the seq `text` as the callees of a call of `parent` (kallsyms id) compile (its
 * before/after-callee tracepoints around them), whole (no chunks) and without OP_END: what a whole
 * compile of a tree emits for those callees when no count rule joins them with other calls (a node
 * `F*N` of a function with a count rule counts its siblings: compile the whole seq then).
 */
export function compileCallees(text: string, parent: number, ids: (f: number) => number, inline: boolean): Int32Array {
  const code: number[] = [];
  const s: Src = { name: '', text, ids, inline, ops: opsFor(ids), pending: 0, limit: Infinity, hole: -1, holeAt: -1 };
  emitSeq(s, 0, text.length, code, opsOf(parent).after, parent);
  return Int32Array.from(code);
}

/**
 * Whether a program runs straight through (no OP_REPEAT/OP_LOOP, whose operands are positions in it,
 * nor OP_SUB): pieces of such programs can be joined by copying.
 */
export function straightCode(code: Int32Array): boolean {
  for (let pc = 0; pc < code.length;) {
    const op = code[pc++];
    if (op >= 0 || op === OP_RET || op === OP_END) continue;
    if (op === OP_TP || op === OP_HOOK || op === OP_INLINE) pc++;
    else return false;
  }
  return true;
}

/**
 * What a program compiled without inline sites depends on besides its tree and the symbol table: the
 * hooks placed at functions, the tracepoint sites, the count rules, the cut points' hooks, and this
 * compiler's output format (bump COMPILER_FORMAT when emitSeq's output changes).  The build's
 * programs (paths/model_table.ts) are used only while it is the running process's.
 */
const COMPILER_FORMAT = 6;
let stamp: string | null = null;
export function compilerStamp(): string {
  return stamp ?? (stamp = JSON.stringify([COMPILER_FORMAT, MARK_HOOKS, compileInputs(), tracepointSiteTable()]));
}

/**
 * The positions of a program's hook and tracepoint operands (what `relocate` renumbers), for a
 * program compiled whole (no OP_SUB) without inline sites (no OP_INLINE): the build's.
 */
export function operandPositions(code: Int32Array): Int32Array {
  const at: number[] = [];
  for (let pc = 0; pc < code.length;) {
    const op = code[pc++];
    if (op >= 0 || op === OP_RET || op === OP_END) continue;
    if (op === OP_TP || op === OP_HOOK) at.push(pc++);
    else if (op === OP_REPEAT) pc += 4;
    else if (op === OP_LOOP) pc++;
    else throw new Error(`entry model table: opcode ${op} in a built program`);
  }
  return Int32Array.from(at);
}

/**
 * A program compiled by another process (the build), whose hook and tracepoint operands (at the
 * positions `at`: operandPositions) index `hooks` and `tps` there, with them renumbered in place to
 * this process's indices (hookIndex, tpIndex).
 */
export function relocate(code: Int32Array, at: Int32Array, hooks: readonly string[], tps: readonly string[], maps: { hook?: Int32Array; tp?: Int32Array }): Int32Array {
  const hm = maps.hook ?? (maps.hook = Int32Array.from(hooks, (n) => hookIndex(n)));
  const tm = maps.tp ?? (maps.tp = Int32Array.from(tps, (n) => tpIndex(n)));
  for (let i = 0; i < at.length; i++) {
    const pc = at[i];
    code[pc] = code[pc - 1] === OP_TP ? tm[code[pc]] : hm[code[pc]];
  }
  return code;
}

/** The first node of a shape when it is a call: its function index and its callees' text range. */
export function firstCall(text: string, i = 0): { fn: number; start: number; end: number } | null {
  const ch = text.charCodeAt(i);
  if (!(ch >= C_0 && ch <= C_9)) return null;
  const fn = numAt(text, i);
  const o = numEnd;
  if (text.charCodeAt(o) !== C_OPEN) return { fn, start: o, end: o };
  let depth = 0;
  for (let i = o; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === C_OPEN) depth++;
    else if (c === C_CLOSE && --depth === 0) return { fn, start: o + 1, end: i };
  }
  throw new Error('entry model: ) expected');
}

/** The calls of each function in parsed nodes: a node's repeat times its ancestors' (marks, fn -1, aside). */
export function shapeCallCounts(nodes: readonly MNode[], out = new Map<number, number>(), k = 1): Map<number, number> {
  for (const x of nodes) {
    if (x.fn >= 0) out.set(x.fn, (out.get(x.fn) ?? 0) + x.rep * k);
    shapeCallCounts(x.kids, out, k * x.rep);
  }
  return out;
}

/** A shape parsed into nodes (for rewriting it: truncateAtFailure). */
export function parseModelShape(text: string): MNode[] {
  let i = 0;
  const num = (): number => { const n = numAt(text, i); i = numEnd; return n; };
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

/** Nodes back to shape text (parseModelShape's inverse). */
export function shapeText(nodes: readonly MNode[]): string {
  return nodes.map((n) => {
    const head = n.mark === '!' ? `!${n.event}` : n.mark ? n.mark : n.kids.length ? `${n.fn}(${shapeText(n.kids)})` : `${n.fn}`;
    return n.rep > 1 ? `${head}*${n.rep}` : head;
  }).join(' ');
}
