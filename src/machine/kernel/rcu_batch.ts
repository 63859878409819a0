/**
 * rcu_do_batch's body (kernel/rcu/tree.c) for the callbacks a CPU has ready: the recordings' rcu_core
 * trees with their callbacks replaced by the ones this CPU queued.  The real loop is
 *
 *   rcu_segcblist_extract_done_cbs ...; for (rhp = rcu_cblist_dequeue(&rcl); rhp; rhp = rcu_cblist_dequeue(&rcl))
 *     { f = rhp->func; f(rhp); if (++count >= bl && ...) break; } rcu_segcblist_insert_done_cbs ...
 *
 * so n callbacks run as `rcu_cblist_dequeue CB` n times, then the dequeue that finds the list empty
 * (none when the batch limit stopped the loop).  Each callback's own tree (file_free_rcu's
 * kmem_cache_free, __d_free's ...) is one the recordings show for that callback, drawn by recorded
 * frequency.  Which callback a call_rcu queues is fixed by its caller in the kernel source
 * (CALLBACK_OF); mt_free_rcu (maple-tree nodes) and radix_tree_node_rcu_free (xarray nodes) are not
 * traceable, so the recordings show their kmem_cache_free right under rcu_do_batch.
 */
import { modelFunctions, modelFunctionIndex, modelKey, variantAt, variantCount, compileTree, modelFnId, parseModelShape, type ModelVariant } from '../paths/model';
import { shapeText, compileWithHole, compileCallees, straightCode, type MNode } from '../paths/compile';
import { countRuleIndex } from '../paths/semantics';
import { int3SiteCount } from '../../kernel/kprobes';
import type { CompiledPath } from '../include/kstack';
import type { Prng } from '../core/prng';
import { drawWeighted } from './recorded';

/** the entry-model key of RCU_SOFTIRQ's trees */
export const RCU_CORE_KEY = 'softirq:rcu_core_si';

/**
 * The callback `call_rcu(head, func)` queues, by the function that calls call_rcu (6.1 sources:
 * fs/file_table.c __fput, fs/dcache.c dentry_free, fs/inode.c destroy_inode, security/security.c
 * security_inode_free, kernel/cred.c __put_cred, kernel/pid.c free_pid, kernel/exit.c
 * put_task_struct_rcu_user, net/core/sock.c sk_destruct, fs/ext4/mballoc.c ext4_mb_new_blocks).
 */
const CALLBACK_OF: Record<string, string> = {
  __fput: 'file_free_rcu',
  dentry_free: '__d_free',
  destroy_inode: 'i_callback',
  security_inode_free: 'inode_free_by_rcu',
  __put_cred: 'put_cred_rcu',
  free_pid: 'delayed_put_pid',
  put_task_struct_rcu_user: 'delayed_put_task_struct',
  sk_destruct: '__sk_destruct',
  ext4_mb_new_blocks: 'ext4_mb_pa_callback',
};
/**
 * What an untraceable callback shows: the maple tree's ma_free_rcu (mt_free_rcu, inlined into
 * vma_mas_store, do_mas_align_munmap, do_brk_flags ...) and the xarray's radix_tree_node_rcu_free
 * (delete_from_page_cache_batch, __delete_from_swap_cache ...) free their node with kmem_cache_free.
 */
const UNTRACED = 'kmem_cache_free';

/** The callback a call_rcu from `caller` queues (its traced function, or what an untraced one calls). */
export function callbackOf(caller: string): string {
  return CALLBACK_OF[caller] ?? UNTRACED;
}

/** rcu_do_batch's limit per invocation (rdp->blimit, DEFAULT_RCU_BLIMIT) */
export const RCU_BLIMIT = 10;
/** ... raised to the pending callbacks >> rcu_divisor when that is more (a long list drains faster) */
export const RCU_DIVISOR = 7;

interface Pool { trees: string[]; cum: Float64Array }
/** per callback (model function index): its recorded trees (shape text) and cumulative recorded counts */
let pools: Map<number, Pool> | null = null;
/** callback trees parsed when first drawn */
const parsedTrees = new Map<string, MNode>();

/** A top-level call of a shape text: its function (-1: a mark), its text without the repeat, the repeat. */
interface Token { fn: number; text: string; rep: number }
function topTokens(text: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < text.length; i++) {
    const s = i;
    let depth = 0;
    for (; i < text.length && (depth > 0 || text[i] !== ' '); i++) {
      if (text[i] === '(') depth++; else if (text[i] === ')') depth--;
    }
    const tok = text.slice(s, i);
    const star = tok.lastIndexOf('*');
    const body = star > tok.lastIndexOf(')') ? tok.slice(0, star) : tok;
    const fn = /^\d/.test(body) ? parseInt(body, 10) : -1;
    out.push({ fn, text: body, rep: body === tok ? 1 : Number(tok.slice(star + 1)) });
  }
  return out;
}

/**
 * The callees of every rcu_do_batch in the model's RCU_SOFTIRQ trees, each with the count of its
 * variant, read off the text (parsing the trees costs ~10x more).
 */
function forEachBatch(each: (kids: Token[], count: number) => void): void {
  const k = modelKey(RCU_CORE_KEY);
  const batch = modelFunctionIndex('rcu_do_batch');
  if (!k || batch < 0) return;
  const open = `${batch}(`;
  for (let i = 0; i < variantCount(k); i++) {
    const v = variantAt(k, i);
    const text = v.shape;
    for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
      if (at > 0 && text[at - 1] !== ' ' && text[at - 1] !== '(') continue;
      let depth = 0, end = at + open.length - 1;
      do {
        const ch = text[end++];
        if (ch === '(') depth++; else if (ch === ')') depth--;
      } while (depth > 0 && end < text.length);
      each(topTokens(text.slice(at + open.length, end - 1)), v.count);
    }
  }
}

/** Index of the callbacks in an rcu_do_batch node's callees: each call right after a rcu_cblist_dequeue that is not the loop's end. */
function callbackAt(kids: readonly { fn: number }[], i: number, dequeue: number): boolean {
  const n = kids[i];
  if (i === 0 || n.fn < 0 || n.fn === dequeue || kids[i - 1].fn !== dequeue) return false;
  return !modelFunctions()[n.fn].startsWith('rcu_segcblist_');
}

function loadPools(): Map<number, Pool> {
  if (pools) return pools;
  const dequeue = modelFunctionIndex('rcu_cblist_dequeue');
  const by = new Map<number, Map<string, number>>();
  forEachBatch((kids, w) => {
    kids.forEach((cb, i) => {
      if (!callbackAt(kids, i, dequeue)) return;
      let m = by.get(cb.fn);
      if (!m) by.set(cb.fn, (m = new Map()));
      m.set(cb.text, (m.get(cb.text) ?? 0) + w * cb.rep);
    });
  });
  pools = new Map();
  for (const [fn, m] of by) {
    const cum = new Float64Array(m.size);
    let acc = 0, i = 0;
    for (const n of m.values()) cum[i++] = acc += n;
    pools.set(fn, { trees: [...m.keys()], cum });
  }
  return pools;
}

/** One recorded tree of callback `name` (its shape text; a bare call when no recording ran it). */
export function callbackTree(name: string, rand: Prng): string {
  const fn = modelFunctionIndex(name);
  const p = loadPools().get(fn) ?? loadPools().get(modelFunctionIndex(UNTRACED));
  if (!p) return `${fn >= 0 ? fn : modelFunctionIndex(UNTRACED)}`;
  return p.trees[drawWeighted(p.cum, rand)];
}

/** A callback tree (callbackTree's text) parsed. */
function parsedTree(text: string): MNode {
  let t = parsedTrees.get(text);
  if (!t) parsedTrees.set(text, (t = parseModelShape(text)[0]));
  return t;
}

/**
 * rcu_do_batch's callees for `cbs` (in order): the recorded node's calls before its first dequeue,
 * `rcu_cblist_dequeue CB` per callback, the final dequeue unless the limit stopped the loop
 * (`stopped`), then the recorded calls after its last callback.
 */
export function batchKids(recorded: readonly MNode[], cbs: readonly MNode[], stopped: boolean): MNode[] {
  const dequeue = modelFunctionIndex('rcu_cblist_dequeue');
  const at = splitAt(recorded, dequeue);
  if (!at) return [...recorded];
  const dq = (): MNode => ({ fn: dequeue, kids: [], rep: 1, mark: '' });
  const out = recorded.slice(0, at.first);
  for (const cb of cbs) out.push(dq(), cb);
  if (!stopped) out.push(dq());
  return out.concat(recorded.slice(at.after));
}

/**
 * Where rcu_do_batch's recorded callees keep their calls: before `first` (its first dequeue) and from
 * `after` on (past its last callback); null when they have no dequeue.
 */
function splitAt(recorded: readonly MNode[], dequeue: number): { first: number; after: number } | null {
  const first = recorded.findIndex((n) => n.fn === dequeue);
  if (first < 0) return null;
  let last = first;
  recorded.forEach((n, i) => { if (n.fn === dequeue) last = i; });
  return { first, after: last + 1 < recorded.length && callbackAt(recorded, last + 1, dequeue) ? last + 2 : last + 1 };
}

/** compiled trees by text (bounded: cleared when full; compiling again gives the same program) */
const compiled = new Map<string, CompiledPath>();
const COMPILED_MAX = 256;

/**
 * Variant `v` of RCU_CORE_KEY (its tree has rcu_do_batch) with the batch running callbacks `names`,
 * each one's tree drawn with `rand`; `stopped`: the batch limit ended the loop.  The program is
 * joined from pieces compiled once (batchPlan, calleeCode); a variant or tree they cannot be joined
 * for compiles the whole tree (composedTree).
 */
export function batchTree(v: ModelVariant, names: readonly string[], stopped: boolean, rand: Prng): CompiledPath | null {
  const texts = names.map((n) => callbackTree(n, rand));
  const inline = int3SiteCount() > 0;
  const plan = batchPlan(v, inline);
  if (plan === null) return null;
  if (plan === SLOW) return composedTree(v, texts, stopped, inline);
  const cbs: Int32Array[] = [];
  let len = plan.skel.length + plan.pre.length + plan.post.length + (stopped ? 0 : plan.dq.length);
  for (const t of texts) {
    const c = calleeCode(t, inline);
    if (c === null) return composedTree(v, texts, stopped, inline);
    cbs.push(c);
    len += plan.dq.length + c.length;
  }
  // the program up to rcu_do_batch's callees, they (batchKids' order), the rest of the program
  const code = new Int32Array(len);
  code.set(plan.skel.subarray(0, plan.at));
  let o = plan.at;
  code.set(plan.pre, o);
  o += plan.pre.length;
  for (const c of cbs) {
    code.set(plan.dq, o);
    code.set(c, (o += plan.dq.length));
    o += c.length;
  }
  if (!stopped) { code.set(plan.dq, o); o += plan.dq.length; }
  code.set(plan.post, o);
  code.set(plan.skel.subarray(plan.at), o + plan.post.length);
  return { name: RCU_CORE_KEY, code };
}

/**
 * A variant's program in pieces: the program with its (first) rcu_do_batch's callees left out (`skel`,
 * `at` where they go) and the code of those callees before its first rcu_cblist_dequeue (`pre`), of a
 * dequeue (`dq`) and of those after its last callback (`post`).
 */
interface BatchPlan { skel: Int32Array; at: number; pre: Int32Array; dq: Int32Array; post: Int32Array }
/** the plan of a variant that joining cannot make (the whole tree is compiled per batch) */
export const SLOW = 'slow';
/** plans by variant, [without, with] inline sites; null: the variant has no rcu_do_batch */
const plans = new WeakMap<ModelVariant, (BatchPlan | typeof SLOW | null | undefined)[]>();
/** a mark no recording has, standing for the batch's callees in the skeleton's text */
const HOLE = 'rcu_batch_callees';

export function batchPlan(v: ModelVariant, inline: boolean): BatchPlan | typeof SLOW | null {
  let per = plans.get(v);
  if (!per) plans.set(v, (per = []));
  const i = inline ? 1 : 0;
  let plan = per[i];
  if (plan === undefined) per[i] = plan = makePlan(v, inline);
  return plan;
}

function makePlan(v: ModelVariant, inline: boolean): BatchPlan | typeof SLOW | null {
  const batch = modelFunctionIndex('rcu_do_batch');
  const dequeue = modelFunctionIndex('rcu_cblist_dequeue');
  let recorded: MNode[] = [];
  const nodes = withBatch(v, (kids) => { recorded = kids; return [{ fn: -1, kids: [], rep: 1, mark: '!', event: HOLE }]; });
  if (!nodes) return null;
  const text = shapeText(nodes);
  const at = splitAt(recorded, dequeue);
  const hole = text.indexOf(`(!${HOLE})`) + 1;
  if (!at || hole <= 0 || text.indexOf(`(!${HOLE})`, hole) >= 0) return SLOW;
  const pre = recorded.slice(0, at.first), post = recorded.slice(at.after);
  // a count rule's run (F*N) counts the other calls of F in its seq: the callees then compile together
  if ([...pre, ...post].some((n) => n.rep > 1 && n.fn >= 0 && countRuleIndex(modelFnId(n.fn)) >= 0)) return SLOW;
  const parent = modelFnId(batch);
  if (parent < 0) return SLOW;
  const skel = compileWithHole(RCU_CORE_KEY, text, hole, modelFnId, inline);
  const plan: BatchPlan = {
    skel: skel.code, at: skel.at,
    pre: compileCallees(shapeText(pre), parent, modelFnId, inline),
    dq: compileCallees(`${dequeue}`, parent, modelFnId, inline),
    post: compileCallees(shapeText(post), parent, modelFnId, inline),
  };
  return straightCode(plan.skel) && straightCode(plan.pre) && straightCode(plan.dq) && straightCode(plan.post) ? plan : SLOW;
}

/** callback trees' code as rcu_do_batch's callees, by text, [without, with] inline sites; null: not straight */
const calleeCodes = [new Map<string, Int32Array | null>(), new Map<string, Int32Array | null>()];

function calleeCode(text: string, inline: boolean): Int32Array | null {
  const m = calleeCodes[inline ? 1 : 0];
  let c = m.get(text);
  if (c === undefined) {
    const t = parsedTree(text);
    c = t.fn < 0 ? null : compileCallees(shapeText([t]), modelFnId(modelFunctionIndex('rcu_do_batch')), modelFnId, inline);
    if (c !== null && !straightCode(c)) c = null;
    m.set(text, c);
  }
  return c;
}

/**
 * Variant `v`'s tree with its first rcu_do_batch (repeat 1) calling `kids(its recorded callees)`; null
 * when the tree has no rcu_do_batch.
 */
function withBatch(v: ModelVariant, kids: (recorded: MNode[]) => MNode[]): MNode[] | null {
  const batch = modelFunctionIndex('rcu_do_batch');
  let found = false;
  const walk = (ns: readonly MNode[]): MNode[] => ns.map((n) => {
    if (n.fn === batch && !found) { found = true; return { ...n, rep: 1, kids: kids(n.kids) } as MNode; }
    return n.kids.length ? { ...n, kids: walk(n.kids) } as MNode : n;
  });
  const nodes = walk(parseModelShape(v.shape));
  return found ? nodes : null;
}

/** The shape text of batchTree's tree: variant `v` with its batch running the callback trees `texts` (callbackTree's). */
export function composedShape(v: ModelVariant, texts: readonly string[], stopped: boolean): string | null {
  const cbs = texts.map(parsedTree);
  const nodes = withBatch(v, (recorded) => batchKids(recorded, cbs, stopped));
  return nodes && shapeText(nodes);
}

/** batchTree's program compiled from the whole tree. */
function composedTree(v: ModelVariant, texts: readonly string[], stopped: boolean, inline: boolean): CompiledPath | null {
  const text = composedShape(v, texts, stopped);
  if (text === null) return null;
  const id = inline ? `${text}+inline` : text;
  let c = compiled.get(id);
  if (!c) {
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    c = compileTree(RCU_CORE_KEY, text, modelFnId, inline, true).code;
    compiled.set(id, c);
  }
  return c;
}
