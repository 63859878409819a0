/**
 * Making the build's records of what stdlib aliases derive (alias_expansions.ts): every alias of
 * every stdlib file is expanded the slow way, for a use of its own name that is optional and one
 * that is not, by a deriver that notes the alias layer of each body it makes and the body each
 * point got, and every outcome that printed nothing and that replaying can reproduce is
 * recorded.  scripts/alias-table.ts writes the shards at build time;
 * test/elaborate/alias_expansions.test.ts checks records against this slow path.
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { Deriver, Expansion, ExpansionRecorder, aliasChainText, copyBody } from './aliases';
import { AliasEntry, hasWildcard } from './probes';
import type { Diagnostics } from '../diag';
import type { Session } from './session';
import type { AliasTableData } from './alias_table';
import { EXPANSIONS_VERSION, ExpansionShard, RecordedElision, RecordedExpansion, RecordedLookup, UseContext, entryKey, plainData } from './alias_expansions';
import { Resolver, Scope } from './symbols';
import { Optimizer, OptUnit, collectUse } from './optimize';
import { markUnresolvedTargets, reachableFunctions } from './index';
import { walkStmt } from './util';

/** What recording needs of a slow path (alias_table_make.ts): its session, messages and decoded stdlib files. */
export interface SlowPath {
  session: Session;
  diag: Diagnostics;
  files: Map<string, A.StapFile | null>;
}

/** A recording deriver over a slow path's session. */
export interface Recorder {
  deriver: Deriver;
  rec: ExpansionRecorder;
  /** Each stdlib alias: its file (relative to stdlib) and index there. */
  places: Map<A.AliasDecl, { rel: string; index: number }>;
  /** Resolves the functions derived probes reach, each once. */
  functions: Resolver;
  /** The stdlib directory. */
  stdlib: string;
}

/**
 * `failsSilently`: the aliases pass 2 skips unread where optional (the build's other table), so
 * the record loads what pass 2 would load without the record.
 */
export function recorder(sp: SlowPath, stdlib: string, failsSilently?: (d: A.AliasDecl) => boolean): Recorder {
  const rec: ExpansionRecorder = { layers: new WeakMap(), bodies: new WeakMap(), roots: [], spoiled: false };
  const deriver = new Deriver(sp.session.tree, sp.diag, {
    ensureAliases: (r) => sp.session.ensureAliases(r), guru: false, suggestionRoots: [], failsSilently,
  }, rec);
  const places = new Map<A.AliasDecl, { rel: string; index: number }>();
  for (const [f, ast] of sp.files) if (ast) ast.aliases.forEach((d, index) => places.set(d, { rel: path.relative(stdlib, f), index }));
  return { deriver, rec, places, functions: new Resolver(sp.session), stdlib };
}

/** A record in plain form (strings where the shard has indices). */
export interface Recording {
  chain: string;
  /** `name\0key` of each first component matched, in order */
  roots: string[];
  layers: [string, number, number][];
  out: ([number, string, string, string[], A.ResolvedPoint] | [number, string, string, string[], A.ResolvedPoint, Elision])[];
}

/** RecordedElision in plain form (strings where the shard has indices). */
export type Elision = [number, string[], ([string, string] | [string, string, number, [string, number, number][]])[]];

/**
 * The slow path's outcome for one use of an alias (its own name, no suffix, optional or not,
 * around an empty body) as a record; null when it cannot be one: it printed something or
 * failed, matched a wildcard or `process` root, met a condition or a point resolving to several.
 */
export function recordExpansion(sp: SlowPath, r: Recorder, entry: AliasEntry, context: UseContext): Recording | null {
  const before = sp.diag.activity;
  const body: A.Block = { k: 'block', stmts: [], tok: entry.decl.names[entry.nameIndex].tok };
  const out: Expansion[] = [];
  r.rec.spoiled = false;
  r.rec.roots = [];
  try {
    r.deriver.expandUse(entry, context === 'o', body, out);
  } catch (e) {
    if (e instanceof SemanticError) return null;
    throw e;
  }
  if (sp.diag.activity !== before || r.rec.spoiled) return null;
  const roots: string[] = [];
  for (const [name, key] of r.rec.roots) {
    if (hasWildcard(name) || name === 'process') return null;
    const k = `${name}\0${key}`;
    if (!roots.includes(k)) roots.push(k);
  }
  const chain = aliasChainText(entry);
  const layers: [string, number, number][] = [];
  const ids = new Map<A.Block, number>();
  const layerOf = (b: A.Block): number | null => {
    if (b === body) return -1;
    const id = ids.get(b);
    if (id !== undefined) return id;
    const l = r.rec.layers.get(b);
    const place = l && r.places.get(l.entry.decl);
    if (!l || !place) return null;
    const parent = layerOf(l.parent);
    if (parent === null) return null;
    const made = layers.push([place.rel, place.index, parent]) - 1;
    ids.set(b, made);
    return made;
  };
  const recorded: Recording['out'] = [];
  for (const x of out) {
    const b = r.rec.bodies.get(x);
    const layer = b ? layerOf(b) : null;
    const keys = Object.keys(x.rp).sort().join(',');
    if (x.condition || x.more || layer === null || layer < 0 || keys !== 'data,family,pp' || !plainData(x.rp)
      || x.chain[x.chain.length - 1] !== chain) return null;
    recorded.push([layer, x.pn, x.mark ?? '', x.chain.slice(0, -1), x.rp]);
  }
  // (the bodies copied before any is elaborated, as pass 2 copies them)
  const bodies = out.map((x) => copyBody(x.body));
  out.forEach((x, i) => {
    const e = elisionOf(sp, r, x, bodies[i], entry.decl.tok);
    if (e) recorded[i] = [...recorded[i].slice(0, 5) as [number, string, string, string[], A.ResolvedPoint], e];
  });
  return { chain, roots, layers, out: recorded };
}

/** The names a function's body resolves (its variables and the functions it calls). */
const namesOf = new WeakMap<A.FunctionDecl, string[]>();
function functionNames(f: A.FunctionDecl): string[] {
  let n = namesOf.get(f);
  if (!n) {
    const s = new Set<string>();
    if (f.body.k !== 'embedded') walkStmt(f.body, (e) => { if (e.k === 'sym' || e.k === 'call') s.add(e.name); }, (st) => {
      if (st.k === 'foreach') for (const k of [...st.keys, ...(st.value ? [st.value] : [])]) s.add(k.name);
      if (st.k === 'try' && st.catchVar) s.add(st.catchVar.name);
    });
    namesOf.set(f, (n = [...s]));
  }
  return n;
}

/**
 * Is a derived probe (its uncopied `body`) elided by pass 2's optimiser when the use's body is
 * empty, whatever else the script holds but declarations of the names it resolves?  Found as
 * pass 2 would find it: its body resolved for a script's probe (recording the session's
 * look-ups), checked, and optimised alone, without the functions it reaches, whose changes
 * cannot change it (they read none of its variables, and what they do not do, removing code
 * of no effect, does not change theirs).  Null: it is not elided, or it reads a global (then
 * other probes' look-ups and the globals' use could change the outcome), or its functions
 * do, or something printed a message.  `tok`: a token of the alias (the elision is not said).
 */
function elisionOf(sp: SlowPath, r: Recorder, x: Expansion, body: A.Block, tok: A.Token): Elision | null {
  const s = sp.session;
  const user: A.SourceFile = { name: '<input>', text: '', isTapset: false };
  const before = sp.diag.activity;
  const rel = (f: A.SourceFile): string | null => {
    const p = path.relative(r.stdlib, f.name);
    return p.startsWith('..') || path.isAbsolute(p) ? null : p;
  };
  const lookups: Elision[2] = [];
  let bad = false;
  const findGlobal = s.findGlobal;
  s.findGlobal = (name, from, at) => {
    const g = findGlobal.call(s, name, from, at);
    const f = at && rel(at.file);
    if (g || !f) bad = true;
    else lookups.push([name, f]);
    return g;
  };
  const resolver = new Resolver(s);
  resolver.onCall = (e, found) => {
    const f = rel(e.tok.file);
    const cands = found.map((d) => [rel(d.tok.file), d.tok.line, d.tok.col] as [string, number, number]);
    if (!f || cands.some((c) => c[0] === null)) bad = true;
    else lookups.push([e.name, f, e.args.length, cands]);
  };
  const locals: A.VarDecl[] = [];
  const scope: Scope = { file: user, locals, localMap: new Map(), point: x.rp, provider: s.providerFor(x.rp.family), pn: x.pn };
  try {
    resolver.resolveProbe(body, scope);
  } finally {
    s.findGlobal = findGlobal;
  }
  if (bad || sp.diag.activity !== before) return null;
  // the functions it reaches: resolved (once for all records), reading no global
  for (const f of resolver.usedFunctions) r.functions.use(f);
  r.functions.resolvePendingFunctions();
  if (sp.diag.activity !== before) return null;
  const names = new Set<string>(lookups.map((l) => l[0]));
  for (const f of reachableFunctions([body])) {
    if (f.body.k !== 'embedded') {
      const use = { read: new Set<A.VarDecl>(), written: new Set<A.VarDecl>() };
      collectUse(f.body, use);
      if ([...use.read, ...use.written].some((v) => v.kind === 'global')) return null;
    }
    for (const n of functionNames(f)) names.add(n);
  }
  // (checkStats reports on bodies before the optimiser: a body with none of it says nothing there)
  let stats = false;
  walkStmt(body, (e) => { if (e.k === 'statop' || e.k === 'hist') stats = true; });
  if (stats) return null;
  markUnresolvedTargets(body, scope);
  const unit: OptUnit = { body, locals, name: 'probe', tok, isUser: false };
  new Optimizer(sp.diag, [], new Set([user]), resolver.definedReads).run([unit], () => [], new Set());
  if (!unit.elided || unit.elidedAt === undefined || sp.diag.activity !== before) return null;
  return [unit.elidedAt, [...names].sort(), lookups];
}

/** A shard being made: its strings, each once. */
class ShardMaker {
  strings: string[] = [];
  private index = new Map<string, number>();
  entries: Record<string, string> = {};
  private texts = new Map<string, string>();

  str(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) this.index.set(s, (i = this.strings.push(s) - 1));
    return i;
  }

  add(key: string, r: Recording): void {
    const text = JSON.stringify(r);
    // (most aliases derive the same whether the use is optional or not: recorded once)
    const same = this.texts.get(text);
    if (same !== undefined) {
      this.entries[key] = same;
      return;
    }
    this.texts.set(text, key);
    const rec: RecordedExpansion = {
      c: this.str(r.chain), r: r.roots.map((x) => this.str(x)), l: r.layers.map(([f, i, p]) => [this.str(f), i, p]),
      x: r.out.map((x) => {
        const [l, pn, mark, chain, rp] = x;
        const made: [number, number, number, number[], A.ResolvedPoint] = [l, this.str(pn), this.str(mark), chain.map((c) => this.str(c)), rp];
        return x.length === 6 ? [...made, this.elision(x[5])] : made;
      }),
    };
    this.entries[key] = JSON.stringify(rec);
  }

  private lookups: RecordedLookup[] = [];
  private names: number[][] = [];
  private interned = new Map<string, number>();

  /** The index of a look-up or name set in its table (each once). */
  private intern<T>(table: T[], kind: string, v: T): number {
    const k = kind + JSON.stringify(v);
    let i = this.interned.get(k);
    if (i === undefined) this.interned.set(k, (i = table.push(v) - 1));
    return i;
  }

  private elision([at, names, lookups]: Elision): RecordedElision {
    return [at, this.intern(this.names, 'n', names.map((n) => this.str(n))), lookups.map((l) => this.intern<RecordedLookup>(this.lookups, 'l',
      l.length === 2 ? [this.str(l[0]), this.str(l[1])] : [this.str(l[0]), this.str(l[1]), l[2], l[3].map(([f, line, col]) => [this.str(f), line, col])]))];
  }

  json(): ExpansionShard {
    return { version: EXPANSIONS_VERSION, strings: this.strings, lookups: this.lookups, names: this.names, entries: this.entries };
  }
}

/**
 * Record every stdlib alias (sp.files under `stdlib`) into shards written to `dir` (emptied
 * first), one per stdlib file and root of the alias's first name; fills the table's stamps,
 * layout, parsed files and roots.  Returns the number of records.
 */
export function makeExpansions(sp: SlowPath, stdlib: string, table: AliasTableData, stampOf: (f: string) => string | undefined,
  failsSilently: (d: A.AliasDecl) => boolean, dir: string): number {
  const r = recorder(sp, stdlib, failsSilently);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const roots = new Set<string>(Object.keys(table.roots));
  const parsed = new Set<string>();
  let n = 0;
  const shardNames = new Set<string>();
  for (const [f, ast] of sp.files) {
    const rel = path.relative(stdlib, f);
    const stamp = stampOf(f);
    if (rel.startsWith('..') || stamp === undefined) continue;
    table.stamps[rel] = stamp;
    if (!ast || !ast.aliases.length) continue;
    parsed.add(rel);
    const makers = new Map<string, ShardMaker>();
    let of = '';
    ast.aliases.forEach((decl, index) => {
      // (a use of `syscall.*` reads the shard of syscall.NAME, not of syscall.NAME.return)
      const comps = decl.names[0].components;
      const root = comps[0].name + (comps.length > 2 && comps[comps.length - 1].name === 'return' ? '.return' : '');
      let any = false;
      decl.names.forEach((_, nameIndex) => {
        for (const context of ['n', 'o'] as const) {
          const rec = recordExpansion(sp, r, { decl, nameIndex }, context);
          if (!rec) continue;
          let m = makers.get(root);
          if (!m) makers.set(root, (m = new ShardMaker()));
          m.add(entryKey(index, nameIndex, context), rec);
          for (const x of rec.roots) roots.add(x.split('\0')[0]);
          for (const [lf] of rec.layers) parsed.add(lf);
          any = true;
          n++;
        }
      });
      of += any ? String.fromCharCode(48 + [...makers.keys()].indexOf(root)) : ' ';
    });
    if (!makers.size) continue;
    const shards: string[] = [];
    for (const [root, m] of makers) {
      let name = `${rel}-${root}`.replace(/[^A-Za-z0-9_.-]/g, '_');
      while (shardNames.has(name)) name += '_';
      shardNames.add(name);
      fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(m.json()));
      shards.push(`${name}.json`);
    }
    table.layout[rel] = { shards, of };
  }
  for (const root of [...roots].sort()) {
    const files = new Set(sp.session.library!.filesDefiningAliasRoot(root).map((f) => path.relative(stdlib, f)));
    table.roots[root] = [...files];
    for (const x of files) parsed.add(x);
  }
  table.parsed = [...parsed].sort();
  return n;
}
