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
 * A variant's program is the one the build compiled (dist/kernel-tables/paths-model.bin, paths/model_table.ts:
 * a start reads the programs it runs and compiles nothing), else it compiles (once, when first chosen;
 * its long subtrees when they first run: paths/compile.ts) to the interpreter's program (paths/dsl.ts opcodes): function ids, the hooks subsystems attach to functions (`Semantics.at`), the tracepoints that fire in
 * them (paths/tpsites.ts), the inline instances the DWARF data places in them, and the cut points as
 * hooks.  Choosing a variant (`chooseVariant`) scores the variants' features against the entry's and
 * takes one of the best, weighted by how often the recordings ran it, with the machine's path PRNG.
 */
import * as fs from 'fs';
import * as path from 'path';
import { functionId, isTraceable } from '../../kernel/ftrace';
import { lookupName } from '../../kernel/kallsyms';
import { int3SiteCount } from '../../kernel/kprobes';
import type { CompiledPath } from '../include/kstack';
import { featuresOf } from './semantics';
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { tracepointSiteTable } from './tpsites';
import { featureWeight, sameFamily } from './features';
import { builtModelTableFile, readModelTable, wholeModel, type KeyData, type ModelFile, type ModelSource, type ProgramCompiler, type Summariser, type VariantData } from './model_table';
import { compileShape, compilerStamp, firstCall, operandPositions, parseModelShape, relocate, setChunkChars, shapeCallCounts, shapeText, type MNode } from './compile';
import { hookNames, tpNames } from './dsl';

export { parseModelShape };

export interface ModelVariant {
  /** the tree (read from the model when asked for) */
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

/** data/paths/NAME found from this module's location (dist/src/machine/paths or src/machine/paths), or ''. */
export function pathsDataFile(name: string): string {
  let d = __dirname;
  for (let i = 0; i < 7; i++) {
    const f = path.join(d, 'data', 'paths', name);
    if (fs.existsSync(f)) return f;
    d = path.dirname(d);
  }
  return '';
}
/** The entry model's file. */
export const modelFile = (): string => pathsDataFile('entries.json.gz');

/** The model: the build's per-key table when current (paths/model_table.ts), else the file read whole. */
function load(): ModelSource {
  if (file) return file;
  const f = modelFile();
  file = (f && readModelTable(builtModelTableFile(), f, SUMMARY)) || wholeModel(f ? readModelFile(f) : { format: 1, recordings: [], functions: [], keys: {} }, SUMMARY);
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

/** function names' indexes in modelFunctions(), looked up once per name */
const fnIndexes = new Map<string, number>();
/** The index of function `name` in modelFunctions() (-1: the model has none), for lookups on a hot path. */
export function modelFunctionIndex(name: string): number {
  let i = fnIndexes.get(name);
  if (i === undefined) fnIndexes.set(name, (i = load().functions.indexOf(name)));
  return i;
}

/**
 * Features read off a variant's tree (before its recorded label): for each, the function whose presence
 * says yes; a position may hold alternatives (`a/b` with functions `fa/fb`: the first whose function the
 * tree calls, so that a new feature leaves the weights of the key's other positions as they were).  The
 * machine computes the same from its state (the key's `Semantics.features`).
 */
const TREE_FEATURES: Record<string, [string, string][]> = {
  // __schedule: switched to another task, the next is the idle task, the previous was dequeued (slept)
  schedule: [['sw', 'finish_task_switch.isra.0'], ['idle', 'pick_next_task_idle'], ['deq', 'dequeue_task_fair']],
  // try_to_wake_up: activated the task here (it was asleep: ttwu_do_activate, where sched_wakeup fires),
  // queued it for its CPU's IPI instead (the machine activates locally: never asked for), moved it to
  // another CPU, the task is a per-CPU kernel thread
  ttwu: [['woke', 'ttwu_do_activate'], ['ipi', '__smp_call_single_queue'], ['mig', 'set_task_cpu'], ['kt', 'kthread_is_per_cpu']],
  // read(2) of a regular file: filemap_get_pages started synchronous readahead (the first page was not
  // cached), asynchronous readahead (the batch reached the PG_readahead marker), readahead allocated
  // folios (not at the end of the file), an O_DIRECT read (iomap direct I/O), a folio read before was
  // activated (folio_mark_accessed); mm/filemap.ts readahead, markAccessed
  'sys:read': [['sra', 'page_cache_sync_ra'], ['ara', 'page_cache_async_ra'], ['rap', 'filemap_alloc_folio'], ['dio', 'iomap_dio_rw'], ['act', 'folio_activate']],
  // a page fault: the memory cgroup's charge reclaimed first (over memory.max), a swap-in read the swap
  // device (not in the swap cache), an anonymous fault took a transparent huge page, a swap-in's
  // free_swap_slot found its CPU's slots cache full, a write to a write-protected page copied it
  // (do_wp_page's wp_page_copy, not the reuse of an anonymous page only this address space maps), the
  // reclaim wrote folios out (pageout: it found too few clean ones to free) (mm/mm.ts faultPlan)
  fault: [['rc', 'try_to_free_mem_cgroup_pages'], ['sio', 'swapin_readahead'], ['thp', 'do_huge_pmd_anonymous_page'], ['sfe', 'swapcache_free_entries'],
    ['cp', 'wp_page_copy'], ['pw', '__swap_writepage']],
  // exit_group(2): the address space torn down had pages out on swap (zap_pte_range freeing their entries)
  'sys:exit_group': [['swp', 'free_swap_and_cache']],
  // write(2): an O_DIRECT write (iomap direct I/O: the bio submitted and waited for in the call)
  'sys:write': [['dio', 'iomap_dio_rw']],
  // openat(2) of a FIFO: its open method, fifo_open (fs/pipe.ts fifoOpen); a path walk that crossed a mount
  // point in ref-walk mode (__traverse_mounts' lookup_mnt: a tracefs or debugfs file by its path under
  // /sys, whose kernfs directories end the RCU walk; fs/open.ts).  The key's only tree features, they
  // leave the other opens' choice as it was (every variant without them scores the same there)
  'sys:openat': [['fifo/mnt', 'fifo_open/lookup_mnt']],
  // wait4(2) that reaped a process whose /proc/PID directory a lookup had instantiated: release_task's
  // proc_flush_pid invalidates its dentries (d_invalidate; fs/proc_pid.ts procPidLookedUp); one that reaped
  // at all runs release_task (a wait4 that returns a stopped child's pid, WUNTRACED, does not)
  'sys:wait4': [['pdc', 'd_invalidate'], ['rel', 'release_task']],
  // the deferred fput of a close: ext4_release_file's ext4_alloc_da_blocks flushed the file's delayed-allocation
  // pages (a file truncated to 0 and rewritten: EXT4_STATE_DA_ALLOC_CLOSE, fs/ext4.ts ext4ReleaseFile);
  // or the deferred fput of a directory read through the htree code: ext4_release_dir frees its fnames
  // (free_rb_tree_fname; fs/ext4.ts ext4DirFnames), which a directory never read has none of (one
  // position: a regular file's release and a directory's never meet)
  'tail:task_work_run': [['da/fn', 'ext4_alloc_da_blocks/free_rb_tree_fname']],
  // recvfrom(2) of a TCP socket: tcp_cleanup_rbuf sent an ACK (the delayed one, or a window update for a
  // blocked sender), the read used up a queued skb (freed: skb_attempt_defer_free); net/tcp.ts
  'sys:recvfrom': [['ack', 'tcp_send_ack'], ['free', 'skb_attempt_defer_free']],
};

/** How many tree features the variants of key `key` are labelled with first (TREE_FEATURES). */
export function treeFeatureCount(key: string): number {
  return TREE_FEATURES[key]?.length ?? 0;
}

/** A TREE_FEATURES position's alternatives: [name, function]. */
const alternatives = ([names, fns]: [string, string]): [string, string][] => {
  const f = fns.split('/');
  return names.split('/').map((n, i) => [n, f[i]]);
};

/** The tree-feature label of key `key` for the features `present` (names of TREE_FEATURES; '-' where absent), in the labels' order. */
export function treeFeatureLabel(key: string, present: readonly string[]): string {
  return (TREE_FEATURES[key] ?? []).map((pos) => alternatives(pos).find(([f]) => present.includes(f))?.[0] ?? '-').join('|');
}

/** The function a key's trees are the callees of (its tracepoint sites apply: sched_waking in try_to_wake_up ...). */
const KEY_PARENT: Record<string, string> = { ttwu: 'try_to_wake_up', schedule: '__schedule' };

/** Functions the compiler looks up by name besides the model's own (for the build's known-symbols table). */
export function compilerSymbolNames(): string[] {
  const tp = Object.entries(tracepointSiteTable()).flatMap(([fn, l]) => [fn, ...l.filter(([, w]) => w.includes(':')).map(([, w]) => w.slice(w.indexOf(':') + 1))]);
  return ['x64_sys_call', ...Object.values(KEY_PARENT), ...tp];
}

/** Whether the shape calls model function `i` (a pattern per function, made once). */
const fnRes = new Map<number, RegExp>();
function calls(shape: string, i: number): boolean {
  if (i < 0) return false;
  let re = fnRes.get(i);
  if (!re) { re = new RegExp(`(^|[ (])${i}([ ()*]|$)`); fnRes.set(i, re); }
  return re.test(shape);
}

/**
 * Keys whose machine semantics never read the disk: the machine's exec, page faults and directory
 * reads (getdents64: the dcache and the directory's buffer heads) find the
 * program's pages in the page cache (as on the real guest once a binary has run: no block I/O), and
 * make no block request.  Their variants recorded with a cold page cache (a `submit_bio` in the tree)
 * would hand the block layer bios without a request (`ioblock.request` with dev=N/A size=0), so they
 * are never drawn while the key has a variant that reads nothing.
 */
const CACHED_KEYS = new Set(['sys:execve', 'fault', 'sys:getdents64',
  // a read or write whose I/O is readahead or direct I/O takes the variants labelled so (TREE_FEATURES);
  // the other cold-cache trees (a metadata block read ...) are not drawn
  'sys:read', 'sys:write', 'tail:task_work_run',
  // the machine's copy_file_range copies without reading the disk (fs/read_write.ts): its cold trees'
  // bios would fire the block tracepoints (paths/tpsites.ts) for no request
  'sys:copy_file_range']);

/**
 * What choosing a variant needs to know of its tree, worked out once (by the build, for the model
 * table): 'b' when the task slept in it ('^'), else '-'; 'c' when it reads the disk (submit_bio), else
 * '-'; then its tree features ('|'-joined, '-' where absent).  The stamp changes with what it reads.
 */
const SUMMARY: Summariser = {
  stamp: JSON.stringify(['summary-2', 'submit_bio', TREE_FEATURES]),
  summarise(key, shape, functions) {
    const tf = (TREE_FEATURES[key] ?? []).map((pos) => alternatives(pos).find(([, fn]) => calls(shape, functions.indexOf(fn)))?.[0] ?? '-');
    return (shape.includes('^') ? 'b' : '-') + (calls(shape, functions.indexOf('submit_bio')) ? 'c' : '-') + tf.join('|');
  },
};

/** The summariser of the model's trees (for the build's table). */
export function modelSummariser(): Summariser {
  return SUMMARY;
}

/** Tree features that say nothing of the disk (a cold-cache variant labelled only with these is not drawn). */
const NO_IO_FEATURES = new Set(['-', 'thp', 'fn']);

/**
 * The variants of key `name` the machine's state can draw (CACHED_KEYS: those that read no disk, or whose
 * disk I/O a tree feature names: the readahead and direct I/O of a read or write, which the machine
 * chooses from its page cache and the file's flags), as indices into the key's data; null: all of them.
 */
function drawable(name: string, d: KeyData): number[] | null {
  // (a model without submit_bio summarises no tree as reading the disk: every variant is drawable)
  if (!CACHED_KEYS.has(name)) return null;
  const warm: number[] = [];
  // a key's hundreds of variants share a few dozen summaries: each judged once
  const judged = new Map<string, boolean>();
  for (let i = 0; i < d.n; i++) {
    const s = d.summary(i);
    let ok = judged.get(s);
    if (ok === undefined) judged.set(s, (ok = s[1] !== 'c' || (s.length > 2 && s.slice(2).split('|').some((f) => !NO_IO_FEATURES.has(f)))));
    if (ok) warm.push(i);
  }
  return warm.length && warm.length < d.n ? warm : null;
}

/** A variant of the model: its tree read from the model the first time it is asked for. */
class Variant implements ModelVariant {
  readonly count: number;
  readonly feat: readonly string[];
  readonly blocked: boolean;
  readonly recs: number;
  code: CompiledPath | null = null;
  codeInline?: boolean;
  failCode?: Map<string, CompiledPath>;
  innerFn?: number;
  constructor(private readonly d: VariantData, g: VariantGroup) {
    this.count = d.count;
    this.recs = d.recs;
    this.blocked = g.blocked;
    this.feat = g.feat;
  }
  get shape(): string {
    return this.d.shape();
  }
  /** the build's program of this variant (paths/model_table.ts), when usable: see builtPrograms */
  built(name: string): CompiledPath | null {
    const d = this.d;
    if (!d.program || !builtPrograms()) return null;
    const progs = load().progs!;
    const p = d.program();
    return { name, code: relocate(p.code, p.at, progs.hooks, progs.tps, relocation) };
  }
  /** the build's syscall function of this variant (-1: none; undefined: no build program) */
  builtInner(): number | undefined {
    return this.d.program && builtPrograms() ? this.d.inner : undefined;
  }
}

/** this process's numbers of the build programs' hook and tracepoint operands (compile.ts relocate) */
const relocation: { hook?: Int32Array; tp?: Int32Array } = {};
let programsUsable: boolean | null = null;
/**
 * Whether the build's programs can run: the table has them for this symbol table, they were compiled
 * with what this process would compile with (compilerStamp), and no int3 site is armed (the
 * programs hold no inline-site operations: see `current`).
 */
function builtPrograms(): boolean {
  if (int3SiteCount() > 0) return false;
  if (programsUsable === null) programsUsable = load().progs?.stamp === compilerStamp();
  return programsUsable;
}
/** The build's program of a variant, when there is a usable one. */
function builtCode(k: ModelKey, v: ModelVariant): CompiledPath | null {
  return v instanceof Variant ? v.built(k.name) : null;
}

/**
 * Variants of a key with the same features and sleep (`members`: their indices in the key's
 * variants, ascending): what choosing compares once for all of them.  A key's hundreds of variants
 * (fault, newfstatat) have a dozen or two feature vectors.
 */
interface VariantGroup { readonly blocked: boolean; readonly feat: readonly string[]; readonly members: number[] }
const variantGroups = new WeakMap<readonly ModelVariant[], VariantGroup[]>();

/** The groups of a key's variants (a key made elsewhere than modelKey: one group per variant). */
function groupsOf(vs: readonly ModelVariant[]): VariantGroup[] {
  let gs = variantGroups.get(vs);
  if (!gs) {
    gs = vs.map((v, i) => ({ blocked: v.blocked, feat: v.feat, members: [i] }));
    variantGroups.set(vs, gs);
  }
  return gs;
}

/**
 * A key of the model read from its data: its variants grouped by summary and features when read (the
 * feature vector split once per group), each variant made when it is first drawn or asked for (a
 * start draws one or two of fault's and newfstatat's ~500-650).
 */
class DataKey implements ModelKey {
  readonly cache = new Map<string, { list: ModelVariant[]; cum: Float64Array }>();
  /** the number of variants */
  readonly size: number;
  readonly groups: VariantGroup[] = [];
  /** each variant's group (an index into groups) */
  private readonly groupOf: Int32Array;
  private readonly made: (ModelVariant | undefined)[];
  private all: ModelVariant[] | null = null;
  /** `at`: the data indices of the drawable variants (null: all, in order) */
  constructor(readonly name: string, readonly rule: string | undefined, private readonly d: KeyData, private readonly at: number[] | null) {
    const n = this.size = at ? at.length : d.n;
    this.groupOf = new Int32Array(n);
    this.made = new Array<ModelVariant | undefined>(n);
    const newGroup = (sum: string, f: string): number => {
      const feat = f.split('|');
      this.groups.push({ blocked: sum[0] === 'b', feat: sum.length > 2 ? sum.slice(2).split('|').concat(feat) : feat, members: [] });
      return this.groups.length - 1;
    };
    // the data's own groups (the build's table), numbered here in order of first use; else by text
    const given = d.groups && d.groupOf ? new Int32Array(d.groups.length).fill(-1) : null;
    const byText = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const j = at ? at[i] : i;
      let g: number | undefined;
      if (given) {
        const dg = d.groupOf!(j);
        g = given[dg];
        if (g < 0) g = given[dg] = newGroup(d.groups![dg][0], d.groups![dg][1]);
      } else {
        const sum = d.summary(j);
        const f = d.feat(j);
        const text = `${sum}\n${f}`;
        g = byText.get(text);
        if (g === undefined) { g = newGroup(sum, f); byText.set(text, g); }
      }
      this.groups[g].members.push(i);
      this.groupOf[i] = g;
    }
  }
  /** variant `i` (made on first use) */
  variant(i: number): ModelVariant {
    return this.made[i] ??= new Variant(this.d.at(this.at ? this.at[i] : i), this.groups[this.groupOf[i]]);
  }
  get variants(): readonly ModelVariant[] {
    if (!this.all) {
      const vs: ModelVariant[] = new Array(this.size);
      for (let i = 0; i < this.size; i++) vs[i] = this.variant(i);
      variantGroups.set(vs, this.groups);
      this.all = vs;
    }
    return this.all;
  }
}

const featureSeen = new Map<string, boolean>();
/** Whether a variant of key `name` has the feature `value` (a file kind, at whatever position). */
export function keyHasFeature(name: string, value: string): boolean {
  const ck = `${name}\n${value}`;
  let r = featureSeen.get(ck);
  if (r === undefined) {
    const k = modelKey(name);
    r = !!k && (k instanceof DataKey ? k.groups : groupsOf(k.variants)).some((g) => g.feat.includes(value));
    featureSeen.set(ck, r);
  }
  return r;
}

/** The number of variants of a key. */
export function variantCount(k: ModelKey): number {
  return k instanceof DataKey ? k.size : k.variants.length;
}

/** Variant `i` of a key (a key read from the model makes only the variants asked for). */
export function variantAt(k: ModelKey, i: number): ModelVariant {
  return k instanceof DataKey ? k.variant(i) : k.variants[i];
}

/** A key of the model, or null when no recording has it. */
export function modelKey(name: string): ModelKey | null {
  let k = keys.get(name);
  if (k !== undefined) return k;
  const d = load().keyData(name);
  k = d ? new DataKey(name, d.rule, d, drawable(name, d)) : null;
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
  let top: VariantGroup[] = [];
  for (const g of k instanceof DataKey ? k.groups : groupsOf(k.variants)) {
    let s = g.blocked === blocked ? BLOCKED_WEIGHT : 0;
    const n = Math.min(q.length, g.feat.length);
    for (let i = 0; i < n; i++) {
      if (g.feat[i] === q[i]) { if (q[i] !== '?') s += featureWeight(i); } else if (sameFamily(g.feat[i], q[i])) s += featureWeight(i) >> 1;
    }
    if (s > best) { best = s; top = [g]; } else if (s === best) top.push(g);
  }
  // the best-scoring variants in the key's order
  const at = top.length === 1 ? top[0].members : top.flatMap((g) => g.members).sort((a, b) => a - b);
  const list = at.map((i) => variantAt(k, i));
  const cum = new Float64Array(list.length);
  let acc = 0;
  list.forEach((v, i) => { acc += v.count; cum[i] = acc; });
  c = { list, cum };
  k.cache.set(ck, c);
  return c;
}

/**
 * One of the best-matching variants, drawn with `r` in [0, 1) by recorded frequency; with `pages` (the
 * pages of the address space an exec or exit tears down: mm/rmap.ts), among those whose recorded zap
 * (one page_remove_rmap per page) is nearest to it; with `countFn`, among those whose calls of that
 * function are nearest to `pages` (a swap-in's swap_readpage per page it reads: mm/page_io.ts); with
 * `frees` (the pages a teardown frees: mm/mm.ts teardownFreedPages), of those the ones whose page frees
 * are nearest to it.
 */
export function chooseVariant(k: ModelKey, feat: string, blocked: boolean, r: number, pages?: number, countFn = 'page_remove_rmap', frees?: number): ModelVariant {
  const c = candidates(k, feat, blocked);
  let { list, cum } = pages !== undefined && c.list.length > 1 ? nearestZap(c.list, pages, countFn) : c;
  // (a teardown) of those, the ones whose page frees (free_pcp_prepare per page) are nearest to what it frees
  if (frees !== undefined && list.length > 1) ({ list, cum } = nearestZap(list, frees, 'free_pcp_prepare'));
  const x = r * cum[cum.length - 1];
  let lo = 0, hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] > x) hi = mid; else lo = mid + 1;
  }
  return list[lo];
}

/** The calls of function `fn` in a variant's tree (page_remove_rmap: the pages it unmaps), counted once per variant. */
const fnCalls = new Map<string, WeakMap<ModelVariant, number>>();
function zapOf(v: ModelVariant, fn: string): number {
  let memo = fnCalls.get(fn);
  if (!memo) fnCalls.set(fn, (memo = new WeakMap()));
  let n = memo.get(v);
  if (n === undefined) {
    const f = load().functions.indexOf(fn);
    n = f < 0 ? 0 : shapeCallCounts(parseModelShape(v.shape)).get(f) ?? 0;
    memo.set(v, n);
  }
  return n;
}
/** How much farther than the nearest (in log ratio) a variant's zap may be and still be drawn (~20%). */
const ZAP_SLACK = 0.2;
/**
 * The variants of `list` whose zap is nearest to `pages` in ratio (sizes of address spaces: a fork's
 * child of 60 pages is nearer to one of 200 than to none; variants within ZAP_SLACK of the nearest are
 * as near: the machine's count is not the real one to the page), with cumulative weights.
 */
function nearestZap(list: readonly ModelVariant[], pages: number, fn: string): { list: ModelVariant[]; cum: Float64Array } {
  // (a few calls are as near as none to a zap, ~16 pages off; not so for small counts of other functions)
  const o = fn === 'page_remove_rmap' ? 16 : 0.5;
  const d = list.map((v) => Math.abs(Math.log((zapOf(v, fn) + o) / (pages + o))));
  const best = Math.min(...d);
  const out = list.filter((_, i) => d[i] <= best + ZAP_SLACK);
  const cum = new Float64Array(out.length);
  let acc = 0;
  out.forEach((v, i) => { acc += v.count; cum[i] = acc; });
  return { list: out, cum };
}

/** The kallsyms id of model function `f`. */
export function modelFnId(f: number): number {
  // the names are read only for an id the build did not work out (the table's are read lazily)
  if (!fnIds) fnIds = load().fnIds ?? new Int32Array(load().functions.length).fill(-2);
  let id = fnIds[f];
  if (id === -2) id = fnIds[f] = modelSymbolId(load().functions[f]);
  return id;
}

/**
 * The kallsyms id a recorded function name stands for: the first text symbol of the name (`first`),
 * unless that one has no mcount site while another of the name has one, since the recordings' graph
 * tracer saw only traceable functions (io_serial_out and io_serial_in: early_printk.c's, __init and
 * never traced, come before 8250_port.c's, which the serial port's paths call).
 */
export function modelSymbolId(name: string, first: (n: string) => number = functionId): number {
  const id = first(name);
  if (id < 0 || isTraceable(id)) return id;
  return lookupName(name).find((i) => isTraceable(i)) ?? id;
}

/**
 * Whether programs compiled now carry the inline-site operations.  They only matter while an
 * int3 site is armed (kexec skips them otherwise), and finding them reads the whole inline-site
 * table (~80 ms): a machine without inline probes compiles without them, and a variant compiled
 * so is compiled again once a site is armed (`current`).
 */
const current = (inl: boolean | undefined): boolean => inl === true || int3SiteCount() === 0;

/**
 * A variant's tree of key `key` compiled from its text (functions' kallsyms ids `ids`): `whole`, the
 * tree (the callees of the key's parent function); else, for a syscall, the callees of its syscall
 * function, whose id is `inner` (-1: none; the program is empty).
 */
export function compileTree(key: string, shape: string, ids: (f: number) => number, inline: boolean, whole = !key.startsWith('sys:')): { inner: number; code: CompiledPath } {
  if (whole) return { inner: -1, code: compileShape(key, shape, 0, shape.length, KEY_PARENT[key] ? functionId(KEY_PARENT[key]) : -1, ids, inline) };
  const sysfn = syscallNode(shape, ids);
  const inner = sysfn ? ids(sysfn.fn) : -1;
  return { inner, code: sysfn ? compileShape(key, shape, sysfn.start, sysfn.end, inner, ids, inline) : compileShape(key, '', 0, 0, -1, ids, inline) };
}

/**
 * A variant of key `key` for an entry of the machine (features from the key's `Semantics.features`,
 * else none; one that slept when `e.blockedTree` names the key), compiled; null when no recording has the key.
 */
export function modelPath(m: MachineCore, c: Cpu, t: Task, e: Env, key: string, feat?: string): CompiledPath | null {
  const k = modelKey(key);
  if (!k || !variantCount(k)) return null;
  const f = feat ?? featuresOf(key)?.(m, c, t, e) ?? '';
  // an entry whose semantics decided it waits in its tree (`e.blockedTree` = the key: a swap-in's fault
  // waiting for its read, mm/page_io.ts) takes a variant that slept, when one has its very features
  // (`e.treeCount` [key, function, calls]: among those, the variants calling it nearest that often)
  const r = m.pathRand.next();
  const t3 = e.treeCount as [string, string, number] | undefined;
  const tc = t3 && t3[0] === key ? ([t3[1], t3[2]] as const) : undefined;
  const v = chooseVariant(k, f, e.blockedTree === key, r, tc?.[1], tc?.[0]);
  return variantCode(k, e.blockedTree === key && v.feat.join('|') !== f ? chooseVariant(k, f, false, r, tc?.[1], tc?.[0]) : v);
}

/** The compiled program of a variant (the whole tree), made on first use. */
export function variantCode(k: ModelKey, v: ModelVariant): CompiledPath {
  if (v.code && current(v.codeInline)) return v.code;
  const b = k.name.startsWith('sys:') ? null : builtCode(k, v);
  if (b) {
    v.code = b;
    v.codeInline = false;
    return b;
  }
  const inline = int3SiteCount() > 0;
  v.code = compileTree(k.name, v.shape, modelFnId, inline, true).code;
  v.codeInline = inline;
  return v.code;
}

/** The syscall function of a syscall variant's tree (under `x64_sys_call` when it is there): index and callees. */
function syscallNode(shape: string, ids: (f: number) => number = modelFnId): { fn: number; start: number; end: number } | null {
  const top = firstCall(shape);
  if (!top || ids(top.fn) !== functionId('x64_sys_call')) return top;
  return top.end > top.start ? firstCall(shape, top.start) : null;
}

/** The syscall function's kallsyms id of a syscall variant (-1: none), read off its tree without compiling it. */
export function syscallFn(v: ModelVariant): number {
  if (v.innerFn === undefined) {
    const b = v instanceof Variant ? v.builtInner() : undefined;
    if (b !== undefined) v.innerFn = b;
    else {
      const sysfn = syscallNode(v.shape);
      v.innerFn = sysfn ? modelFnId(sysfn.fn) : -1;
    }
  }
  return v.innerFn;
}

/**
 * For a syscall variant (`x64_sys_call(SYSFN(...))`): the syscall function's kallsyms id and the
 * program of its callees (what runs after the syscall's semantics chose the variant).
 */
export function syscallInner(k: ModelKey, v: ModelVariant): { fn: number; code: CompiledPath } {
  if (!v.code || !current(v.codeInline)) {
    const b = builtCode(k, v);
    if (b) {
      v.code = b;
      v.codeInline = false;
    } else {
      const inline = int3SiteCount() > 0;
      const c = compileTree(k.name, v.shape, modelFnId, inline, false);
      v.innerFn = c.inner;
      v.code = c.code;
      v.codeInline = inline;
    }
  }
  return { fn: syscallFn(v), code: v.code };
}

/**
 * The build's compiler of the variants' programs (paths/model_table.ts): what syscallInner (a `sys:`
 * key) or variantCode (the others) compile from a tree while no int3 site is armed, compiled whole
 * (no lazily compiled chunks: a chunk is this process's).
 */
export function programCompiler(): ProgramCompiler {
  return {
    stamp: compilerStamp(),
    compile(key, shape, ids) {
      const idOf = idsFns.get(ids) ?? ((f: number): number => ids[f]);
      idsFns.set(ids, idOf);
      const old = setChunkChars(Infinity);
      try {
        const c = compileTree(key, shape, idOf, false);
        return { inner: c.inner, code: c.code.code, at: operandPositions(c.code.code) };
      } finally {
        setChunkChars(old);
      }
    },
    names: () => ({ hooks: [...hookNames], tps: [...tpNames] }),
  };
}
/** one function per id table, so that compileShape's per-function operations are made once */
const idsFns = new WeakMap<Int32Array, (f: number) => number>();

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
  const shape = v.shape;
  const sysfn = syscallNode(shape);
  const kids = sysfn ? shapeText(truncateAtFailure(parseModelShape(shape.slice(sysfn.start, sysfn.end)), functionId(fail), functionId(upTo))) : '';
  c = compileShape(k.name, kids, 0, kids.length, sysfn ? modelFnId(sysfn.fn) : -1, modelFnId, int3SiteCount() > 0);
  (v.failCode ?? (v.failCode = new Map())).set(key, c);
  return c;
}
