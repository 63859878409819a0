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
import { shapeText, type MNode } from '../paths/compile';
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

/** One recorded tree of callback `name` (a bare call when no recording ran it). */
function callbackTree(name: string, rand: Prng): MNode {
  const fn = modelFunctionIndex(name);
  const p = loadPools().get(fn) ?? loadPools().get(modelFunctionIndex(UNTRACED));
  if (!p) return { fn: fn >= 0 ? fn : modelFunctionIndex(UNTRACED), kids: [], rep: 1, mark: '' };
  const text = p.trees[drawWeighted(p.cum, rand)];
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
  const first = recorded.findIndex((n) => n.fn === dequeue);
  if (first < 0) return [...recorded];
  let last = first;
  recorded.forEach((n, i) => { if (n.fn === dequeue) last = i; });
  const after = last + 1 < recorded.length && callbackAt(recorded, last + 1, dequeue) ? last + 2 : last + 1;
  const dq = (): MNode => ({ fn: dequeue, kids: [], rep: 1, mark: '' });
  const out = recorded.slice(0, first);
  for (const cb of cbs) out.push(dq(), cb);
  if (!stopped) out.push(dq());
  return out.concat(recorded.slice(after));
}

/** compiled trees by text (bounded: cleared when full; compiling again gives the same program) */
const compiled = new Map<string, CompiledPath>();
const COMPILED_MAX = 256;

/**
 * Variant `v` of RCU_CORE_KEY (its tree has rcu_do_batch) with the batch running callbacks `names`,
 * each one's tree drawn with `rand`; `stopped`: the batch limit ended the loop.
 */
export function batchTree(v: ModelVariant, names: readonly string[], stopped: boolean, rand: Prng): CompiledPath | null {
  const batch = modelFunctionIndex('rcu_do_batch');
  const cbs = names.map((n) => callbackTree(n, rand));
  let found = false;
  const walk = (ns: readonly MNode[]): MNode[] => ns.map((n) => {
    if (n.fn === batch && !found) { found = true; return { ...n, rep: 1, kids: batchKids(n.kids, cbs, stopped) } as MNode; }
    return n.kids.length ? { ...n, kids: walk(n.kids) } as MNode : n;
  });
  const nodes = walk(parseModelShape(v.shape));
  if (!found) return null;
  const inline = int3SiteCount() > 0;
  const text = shapeText(nodes);
  const id = inline ? `${text}+inline` : text;
  let c = compiled.get(id);
  if (!c) {
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    c = compileTree(RCU_CORE_KEY, text, modelFnId, inline, true).code;
    compiled.set(id, c);
  }
  return c;
}
