/**
 * Probe-point families: the provider registry (the seam kernel/process families plug into) and the
 * families that need no kernel: begin/end/error, never, timer.*.
 *
 * A provider registers patterns such as `timer.ms(number).randomize(number)` with a builder.  The
 * registry is a tree of components (name + argument kind) like stap's match_node; aliases are
 * attached to the same tree by aliases.ts so that `timer.profile` (a tapset alias) and
 * `timer.profile.tick` (a built-in family) live side by side.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { suggest, withSimilar, renderComponents, longValue } from './util';

export type ArgKind = 'none' | 'number' | 'string';

/**
 * The names of a file's aliases as a trie, for attaching them to the probe-point tree one level
 * at a time (MatchNode.addAliasLevel): per level, in order of first appearance, entries
 * [component name, argument kind (KIND_CHAR), the aliases named by the path ending here as
 * (alias index, name index) pairs, the next level or 0].  A script using syscall.read then
 * spreads the `syscall` level of syscalls.stp and the `read` level, not all 686 names.
 */
export type AliasTrieLevel = AliasTrieEntry[];
export type AliasTrieEntry = [string, string, number[], AliasTrieLevel | 0];

/** What a builder gets: the concrete components (wildcards already matched). */
export interface BuildRequest {
  components: A.ProbePointComponent[];
  point: A.ProbePoint;
  guru: boolean;
  /** print a pass-2 warning (e.g. `cannot probe .return of N inlined functions ...`) */
  warn?: (msg: string) => void;
}

/** A builder returns one or more registrations, or throws SemanticError (`throw new SemanticError(msg, tok?)`). */
export type ProbeBuilder = (req: BuildRequest) => A.ResolvedPoint[];

/** Lists what -L shows for a family's point (variables and their types). */
export type ProbeVarLister = (rp: A.ResolvedPoint) => { name: string; type: string }[];

export interface Provider {
  family: string;
  build: ProbeBuilder;
  /** Context variables for -L (optional). */
  vars?: ProbeVarLister;
  /**
   * Kernel families: is a `$var`/`@cast`/`@var` expression resolvable at this point (`@defined`)?
   * Families without context variables leave it undefined (never defined).
   */
  targetDefined?: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast) => boolean;
  /**
   * Kernel families: type of a resolvable target expression (`long`/`string`), or a SemanticError
   * to report.  Without it every target expression is `unresolved target-symbol expression`.
   */
  targetType?: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast) => A.Type | SemanticError;
  /**
   * Kernel families: the BTF type a resolvable target expression's value points to, if it is a
   * typed pointer; locals, function returns and `->` on such values are then autocasts.
   */
  targetPointee?: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast) => number | undefined;
  /**
   * Families whose return points are not spelled `.return` (tracepoint-based syscall returns):
   * may a probe reached as `pn` (e.g. `syscall.read.return`) use `@entry` at this point?
   */
  entryValid?: (rp: A.ResolvedPoint, pn: string) => boolean;
  /**
   * May this target expression be read (`read`), assigned (`write`: `=`) or updated (`update`:
   * `.=`, `+=` ...) here?  A SemanticError to report, or null (procfs `$value`).
   */
  targetAccess?: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast, access: TargetAccess, how: TargetAccessHow) => SemanticError | null;
}

export type TargetAccess = 'read' | 'write' | 'update';
/** How a target expression is accessed: guru mode (-g), and the operator token of a write. */
export interface TargetAccessHow { guru: boolean; op?: A.Token }

export interface PatternPart { name: string; arg: ArgKind; }

/** A registered alias at a tree node (filled by aliases.ts). */
export interface AliasEntry {
  decl: A.AliasDecl;
  /** Which of decl.names this entry is for. */
  nameIndex: number;
}

/** Alias names of a tapset file waiting to be spread into a node's children (tapset_ast.ts). */
interface PendingLevel {
  level: AliasTrieLevel;
  decls: readonly A.AliasDecl[];
}

/** Aliases of a tapset file named by the path ending at a node, not yet made entries. */
interface PendingEntries {
  pairs: number[];
  decls: readonly A.AliasDecl[];
}

const TRIE_KIND: Record<string, ArgKind> = { '-': 'none', '#': 'number', $: 'string' };

export class MatchNode {
  private kids: Map<string, MatchNode> = new Map();
  private own: AliasEntry[] = [];
  /** Alias-name tries attached here whose first level is not in `kids` yet, in attach order. */
  private pendingLevels: PendingLevel[] | null = null;
  private pendingEntries: PendingEntries[] | null = null;
  provider?: Provider;
  pattern?: string;
  constructor(public name: string, public arg: ArgKind) {}

  /**
   * The child nodes.  A level of attached alias tries is spread here on first use, whole and in
   * attach order, so the tree (with its insertion orders) is the one attaching every name at
   * once would build.
   */
  get children(): Map<string, MatchNode> {
    if (this.pendingLevels) this.spread();
    return this.kids;
  }

  /** A tree's root: its children come from `kids` (ProbeRegistry's lazy families). */
  lazyRoot(kids: RootChildren): void {
    this.kids = kids;
  }

  /** The root's children without loading anything (null: not a registry tree's root). */
  get rootChildren(): RootChildren | null {
    return this.kids instanceof RootChildren ? this.kids : null;
  }

  /** The aliases whose name ends here, in attach order. */
  get aliases(): AliasEntry[] {
    const pend = this.pendingEntries;
    if (pend) {
      this.pendingEntries = null;
      for (const { pairs, decls } of pend) {
        for (let i = 0; i < pairs.length; i += 2) this.own.push({ decl: decls[pairs[i]], nameIndex: pairs[i + 1] });
      }
    }
    return this.own;
  }

  /** Attach the aliases of a trie (names relative to this node) without walking it yet. */
  addAliasLevel(level: AliasTrieLevel, decls: readonly A.AliasDecl[]): void {
    (this.pendingLevels ??= []).push({ level, decls });
  }

  private spread(): void {
    const levels = this.pendingLevels!;
    this.pendingLevels = null;
    for (const { level, decls } of levels) {
      for (let i = 0; i < level.length; i++) {
        const e = level[i];
        const c = this.child(e[0], TRIE_KIND[e[1]]);
        // (entries after any pushed to `own` already: those were attached earlier)
        if (e[2].length) (c.pendingEntries ??= []).push({ pairs: e[2], decls });
        if (e[3]) c.addAliasLevel(e[3], decls);
      }
    }
  }

  static key(name: string, arg: ArgKind): string {
    return arg === 'none' ? name : `${name}(${arg})`;
  }

  child(name: string, arg: ArgKind): MatchNode {
    const k = MatchNode.key(name, arg);
    const kids = this.children;
    let c = kids.get(k);
    if (!c) {
      c = new MatchNode(name, arg);
      kids.set(k, c);
    }
    return c;
  }
}

export function parsePattern(pattern: string): PatternPart[] {
  const parts: PatternPart[] = [];
  // split on '.' outside parentheses
  let depth = 0;
  let cur = '';
  for (const ch of pattern) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === '.' && depth === 0) {
      parts.push(part(cur));
      cur = '';
    } else cur += ch;
  }
  parts.push(part(cur));
  return parts;
  function part(s: string): PatternPart {
    const m = /^([^(]+)(?:\((number|string)\))?$/.exec(s);
    if (!m) throw new Error(`bad probe pattern ${pattern}`);
    return { name: m[1], arg: (m[2] as ArgKind | undefined) ?? 'none' };
  }
}

export function argKind(c: A.ProbePointComponent): ArgKind {
  return !c.arg ? 'none' : c.arg.k === 'num' ? 'number' : 'string';
}

/**
 * A family of probe points registered when a probe point first names one of its root names
 * (`kernel`, `kprobe`, `procfs` ...): `load` registers its patterns.
 */
export interface LazyFamily {
  roots: string[];
  load: (r: ProbeRegistry) => void;
}

/** The root name of a child key (`procfs(string)` -> `procfs`). */
function rootOfKey(k: string): string {
  const p = k.indexOf('(');
  return p < 0 ? k : k.slice(0, p);
}

/**
 * The children of a tree's root: a lookup of a root name first loads the lazy families of that
 * name (ensure); anything that enumerates them loads every family once it goes past the ones
 * loaded (a wildcard root, a `similar:` list, --dump-probe-types).  After each load the entries
 * are put in the order loading every family at once gives (`rank`, then insertion order), so
 * what a lazy tree enumerates is what the eager one did.
 */
class RootChildren extends Map<string, MatchNode> {
  constructor(private ensure: (root: string | null) => boolean, private rank: (k: string) => number) {
    super();
  }

  /** Load the families of `root` (null: all); reorder when any was loaded. */
  load(root: string | null): void {
    if (!this.ensure(root)) return;
    const all = [...super.entries()];
    const order = all.map(([k], i) => ({ i, r: this.rank(k) }));
    order.sort((a, b) => a.r - b.r || a.i - b.i);
    super.clear();
    for (const { i } of order) super.set(all[i][0], all[i][1]);
  }

  /** Without loading: the number of entries, and the entries. */
  peekSize(): number { return super.size; }
  peekEntries(): MapIterator<[string, MatchNode]> { return super.entries(); }

  override get(k: string): MatchNode | undefined { this.load(rootOfKey(k)); return super.get(k); }
  override has(k: string): boolean { this.load(rootOfKey(k)); return super.has(k); }
  override get size(): number { this.load(null); return super.size; }
  override keys(): MapIterator<string> { return this.lazy((e) => e[0]); }
  override values(): MapIterator<MatchNode> { return this.lazy((e) => e[1]); }
  override entries(): MapIterator<[string, MatchNode]> { return this.lazy((e) => e); }
  override [Symbol.iterator](): MapIterator<[string, MatchNode]> { return this.entries(); }
  override forEach(f: (v: MatchNode, k: string, m: Map<string, MatchNode>) => void, self?: unknown): void {
    for (const [k, v] of this.entries()) f.call(self, v, k, this);
  }

  /** The entries loaded now, then (if the caller reads on) those of every other family. */
  private *lazy<T>(pick: (e: [string, MatchNode]) => T): MapIterator<T> {
    const seen = new Set<string>();
    for (const e of [...super.entries()]) {
      seen.add(e[0]);
      yield pick(e);
    }
    this.load(null);
    for (const e of [...super.entries()]) if (!seen.has(e[0])) yield pick(e);
  }
}

/** The registry of probe families.  One per session; `defaultRegistry()` has the kernel-free ones. */
export class ProbeRegistry {
  root: MatchNode;
  private registered: string[] = [];
  /** Extra root names used only for `(similar: ...)` suggestions. */
  suggestionRoots = new Set<string>();
  /** Families not loaded yet, by root name (a family may have several). */
  private lazy = new Map<string, LazyFamily[]>();
  private families: LazyFamily[] = [];
  private loaded = new Set<LazyFamily>();
  /** Rank of each root key: its family's place in `families` (eager ones 0), for RootChildren. */
  private rootRank = new Map<string, number>();
  /** The family being loaded (its root keys take its rank). */
  private loading = 0;
  private registeredProviders: Provider[] = [];

  constructor() {
    this.root = new MatchNode('', 'none');
    this.root.lazyRoot(new RootChildren((r) => this.ensure(r), (k) => this.rootRank.get(k) ?? Infinity));
  }

  register(pattern: string, provider: Provider): void {
    let n = this.root;
    const parts = parsePattern(pattern);
    const key = MatchNode.key(parts[0].name, parts[0].arg);
    if (!this.rootRank.has(key)) this.rootRank.set(key, this.loading);
    for (const p of parts) n = n.child(p.name, p.arg);
    n.provider = provider;
    n.pattern = pattern;
    this.registered.push(pattern);
    this.registeredProviders.push(provider);
  }

  /** The providers registered so far, in order (one entry per pattern); loads nothing. */
  providers(): readonly Provider[] {
    return this.registeredProviders;
  }

  /** Every registered pattern (all families loaded). */
  get patterns(): string[] {
    this.ensure(null);
    return this.registered;
  }

  /** Register `f`'s patterns when a probe point first names one of its roots. */
  addFamily(f: LazyFamily): void {
    this.families.push(f);
    for (const r of f.roots) {
      let l = this.lazy.get(r);
      if (!l) this.lazy.set(r, (l = []));
      l.push(f);
    }
  }

  /** Load the families of root name `root` (null: all); were any loaded? */
  private ensure(root: string | null): boolean {
    // (a family's own registrations look its roots up: nothing else loads meanwhile)
    if (this.loading !== 0) return false;
    const todo = root === null ? this.families.filter((f) => !this.loaded.has(f)) : this.lazy.get(root)?.filter((f) => !this.loaded.has(f));
    if (!todo?.length) return false;
    // (in the order addFamily saw them: one family's patterns never precede an earlier one's)
    todo.sort((a, b) => this.families.indexOf(a) - this.families.indexOf(b));
    for (const f of todo) {
      if (this.loaded.has(f)) continue;
      this.loaded.add(f);
      const was = this.loading;
      this.loading = this.families.indexOf(f) + 1;
      try {
        f.load(this);
      } finally {
        this.loading = was;
      }
    }
    return true;
  }

  /**
   * A fresh tree containing the registered patterns (aliases are attached per session): a root
   * child is copied from the registry's when first looked up, so families load as the session
   * names them.
   */
  cloneTree(): MatchNode {
    const copy = (n: MatchNode): MatchNode => {
      const c = new MatchNode(n.name, n.arg);
      c.provider = n.provider;
      c.pattern = n.pattern;
      for (const [k, ch] of n.children) c.children.set(k, copy(ch));
      return c;
    };
    const root = new MatchNode('', 'none');
    const src = this.root.rootChildren!;
    /** registry root keys copied into this tree */
    const copied = new Set<string>();
    let known = -1;
    const kids: RootChildren = new RootChildren((r) => {
      src.load(r);
      if (src.peekSize() === known) return false; // (nothing new: registry roots only grow)
      known = src.peekSize();
      let added = false;
      for (const [k, ch] of src.peekEntries()) {
        if (copied.has(k)) continue;
        copied.add(k);
        kids.set(k, copy(ch));
        added = true;
      }
      return added;
    }, (k) => this.rootRank.get(k) ?? Infinity);
    root.lazyRoot(kids);
    return root;
  }
}

// ---------------------------------------------------------------------------------------------
// begin / end / error / never

function numArg(c: A.ProbePointComponent): bigint {
  return c.arg && c.arg.k === 'num' ? longValue(c.arg.value) : 0n;
}

function seqBuilder(family: string): Provider {
  return {
    family,
    build(req) {
      const c = req.components[0];
      const seq = c.arg ? numArg(c) : 0n;
      return [{ family, pp: renderComponents(req.components), data: { seq: Number(seq) } }];
    },
  };
}

// ---------------------------------------------------------------------------------------------
// timers (tapset-timers.cxx)

const MIN_NS = 100000n;
const MAX_NS = 86400n * 1000000000n;
const UNIT_SCALE: Record<string, bigint> = {
  s: 1000000000n, sec: 1000000000n, ms: 1000000n, msec: 1000000n, us: 1000n, usec: 1000n, ns: 1n, nsec: 1n,
};

function hrtimerBuilder(unit: string): Provider {
  const scale = UNIT_SCALE[unit];
  return {
    family: 'timer',
    build(req) {
      const interval = numArg(req.components[1]);
      const rand = req.components.length > 2 ? numArg(req.components[2]) : 0n;
      const period = interval * scale;
      if (period < MIN_NS || MAX_NS < period) {
        const lo = scale < MIN_NS ? String(MIN_NS / scale) : '1';
        throw new SemanticError(`interval value out of range (${lo}, ${MAX_NS / scale})`, undefined, [], 'timer-interval');
      }
      const randNs = rand * scale;
      if (rand < 0n || randNs > period) throw new SemanticError('randomization value out of range', undefined, [], 'timer-randomize');
      return [{
        family: 'timer',
        pp: renderComponents(req.components),
        data: { kind: 'hrtimer', intervalNs: Number(period), randomizeNs: Number(randNs) },
      }];
    },
  };
}

const jiffiesBuilder: Provider = {
  family: 'timer',
  build(req) {
    const period = numArg(req.components[1]);
    const rand = req.components.length > 2 ? numArg(req.components[2]) : 0n;
    if (period < 1n || period > 1000000n) throw new SemanticError('invalid interval for jiffies timer', undefined, [], 'timer-jiffies');
    if (rand < 0n || rand > period) throw new SemanticError('invalid randomize for jiffies timer', undefined, [], 'timer-jiffies-rand');
    return [{ family: 'timer', pp: renderComponents(req.components), data: { kind: 'jiffies', jiffies: Number(period), randomizeJiffies: Number(rand) } }];
  },
};

const hzBuilder: Provider = {
  family: 'timer',
  build(req) {
    const hz = numArg(req.components[1]);
    if (hz <= 0n) throw new SemanticError('frequency must be greater than 0', undefined, [], 'timer-hz');
    // an hrtimer of period 1e9/hz ns, within the hrtimer bounds (real-stap -p2 'timer.hz(1000000)')
    const period = 1000000000n / hz;
    if (period < MIN_NS || MAX_NS < period) throw new SemanticError(`interval value out of range (${MIN_NS}, ${MAX_NS})`, undefined, [], 'timer-interval');
    return [{ family: 'timer', pp: renderComponents(req.components), data: { kind: 'hz', hz: Number(hz) } }];
  },
};

/**
 * timer.profile.tick needs register_timer_hook(), removed from Linux in 3.4: on the 6.1 kernel
 * stap refuses it in pass 2, and the tapset alias timer.profile resolves to its perf alternative
 * (perf.sw.cpu_clock.sample(1000000), src/probes/perf.ts).
 */
const profileBuilder: Provider = {
  family: 'timer.profile',
  build() {
    throw new SemanticError('profiling timer support (register_timer_hook) not found in kernel!', undefined, [], 'timer-profile-tick');
  },
};

/** Top-level probe names stap 4.8 knows (families and common tapset alias roots), for suggestions only. */
export const STAP_ROOT_NAMES = [
  'begin', 'end', 'error', 'never', 'timer', 'kernel', 'module', 'process', 'kprobe', 'perf', 'procfs',
  'netfilter', 'java', 'python2', 'python3', 'input', 'hwbkpt',
];

let defaultReg: ProbeRegistry | undefined;
const extraProviders: ((r: ProbeRegistry) => void)[] = [];

/** Kernel/process families register themselves here (called before the first elaboration). */
export function addProviderSetup(setup: (r: ProbeRegistry) => void): void {
  extraProviders.push(setup);
  if (defaultReg) setup(defaultReg);
}

export function defaultRegistry(): ProbeRegistry {
  if (defaultReg) return defaultReg;
  const r = new ProbeRegistry();
  for (const f of ['begin', 'end', 'error']) {
    r.register(f, seqBuilder(f));
    r.register(`${f}(number)`, seqBuilder(f));
  }
  r.register('never', {
    family: 'never', build: (req) => [{ family: 'never', pp: 'never', data: {} }],
    // `syscall.exit.return = never`: a return alias that never fires may still name @entry
    entryValid: (rp, pn) => /\.return\b/.test(pn),
  });
  for (const u of Object.keys(UNIT_SCALE)) {
    r.register(`timer.${u}(number)`, hrtimerBuilder(u));
    r.register(`timer.${u}(number).randomize(number)`, hrtimerBuilder(u));
  }
  r.register('timer.jiffies(number)', jiffiesBuilder);
  r.register('timer.jiffies(number).randomize(number)', jiffiesBuilder);
  r.register('timer.hz(number)', hzBuilder);
  r.register('timer.profile.tick', profileBuilder);
  for (const n of STAP_ROOT_NAMES) r.suggestionRoots.add(n);
  for (const s of extraProviders) s(r);
  defaultReg = r;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Matching helpers used by aliases.ts

export function hasWildcard(name: string): boolean {
  return /[*?[]/.test(name);
}

/** fnmatch-style glob for one component (`*`, `?`, `[...]`). */
export function globMatch(pat: string, s: string): boolean {
  let re = '^';
  for (let i = 0; i < pat.length; i++) {
    const c = pat[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = pat.indexOf(']', i + 2);
      if (j < 0) re += '\\[';
      else {
        let body = pat.slice(i + 1, j);
        if (body.startsWith('!')) body = '^' + body.slice(1);
        re += '[' + body.replace(/\\/g, '\\\\') + ']';
        i = j;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(re + '$', 's').test(s);
}

/** What a component's name is compared with: a glob's text before its first `*` (stap's suggest_functors). */
function suggestionTarget(name: string): string {
  const star = name.indexOf('*');
  return star < 0 ? name : name.slice(0, star);
}

/**
 * stap's `probe point mismatch` at component `c` below `node`, with the names `similar` gives (the
 * session's: stap 4.8's tree there), or else the node's children (and `extraRoots` at the root).
 */
export function mismatchError(node: MatchNode, c: A.ProbePointComponent, extraRoots: Iterable<string>,
  similar?: () => Iterable<string>): SemanticError {
  const candidates = (): Iterable<string> => {
    if (similar) return similar();
    const names = new Set<string>();
    for (const ch of node.children.values()) names.add(ch.name);
    if (node.name === '') for (const n of extraRoots) names.add(n);
    return names;
  };
  const wild = hasWildcard(c.name);
  const base = wild ? "probe point mismatch: didn't find any wildcard matches" : 'probe point mismatch';
  const e = new SemanticError(base, c.tok, [], wild ? 'pp-wild-mismatch' : 'pp-mismatch');
  // the suggestions (an edit distance over the names) only when the message is read: a
  // flavour an optional alias point names and no alias defines (nd2_syscall.NAME of a syscall
  // without one) is tried and dropped by the hundred in a `syscall.*` elaboration
  let msg: string | undefined;
  Object.defineProperty(e, 'message', {
    configurable: true,
    get: () => (msg ??= withSimilar(base, suggest(suggestionTarget(c.name), candidates()))),
    set: (v: string) => {
      msg = v;
    },
  });
  return e;
}

export function truncatedError(node: MatchNode, tok: A.Token): SemanticError {
  const keys = [...node.children.keys()].sort();
  return new SemanticError(`probe point truncated (follow: ${keys.map((k) => ' ' + k).join('')})`, tok, [], 'pp-truncated');
}
