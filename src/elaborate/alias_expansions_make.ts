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
import { Deriver, Expansion, ExpansionRecorder, aliasChainText } from './aliases';
import { AliasEntry, hasWildcard } from './probes';
import type { Diagnostics } from '../diag';
import type { Session } from './session';
import type { AliasTableData } from './alias_table';
import { EXPANSIONS_VERSION, ExpansionShard, RecordedExpansion, UseContext, entryKey, plainData } from './alias_expansions';

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
  return { deriver, rec, places };
}

/** A record in plain form (strings where the shard has indices). */
export interface Recording {
  chain: string;
  /** `name\0key` of each first component matched, in order */
  roots: string[];
  layers: [string, number, number][];
  out: [number, string, string, string[], A.ResolvedPoint][];
}

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
  return { chain, roots, layers, out: recorded };
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
      x: r.out.map(([l, pn, mark, chain, rp]) => [l, this.str(pn), this.str(mark), chain.map((c) => this.str(c)), rp]),
    };
    this.entries[key] = JSON.stringify(rec);
  }

  json(): ExpansionShard {
    return { version: EXPANSIONS_VERSION, strings: this.strings, entries: this.entries };
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
