/**
 * The elaboration session: included files, the global/function/alias tables (with private
 * scoping), and on-demand inclusion of tapset files through the library index.
 */
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { MatchNode, ProbeRegistry, Provider, hasWildcard, globMatch, AliasEntry } from './probes';
import { attachAliases, KnownExpansion } from './aliases';
import type { ElisionContext, ExpansionShards, UseContext } from './alias_expansions';
import type { TapsetLibrary } from './tapsets';
import type { TargetSpec } from './process_target';
import { isDeferred } from './tapset_ast';
import { stapChildNames } from '../stap_points';

export interface ElabOptions {
  guru: boolean;
  /** -u: no elision. */
  unoptimized?: boolean;
  /** Command-line script arguments and the ones the parser saw used ($N/@N). */
  args?: string[];
  usedArgs?: Set<number>;
  /** Tapset library (stdlib + -I); null/undefined = none. */
  library?: TapsetLibrary | null;
  /** Probe registry; default = kernel-free families (+ whatever providers registered). */
  registry?: ProbeRegistry;
  verbose?: number;
  /** Listing mode (-l/-L/dumps): no `no probes found`, no elision. */
  listing?: boolean;
  compatible?: string;
  /** -c COMMAND / -x PID (unspecified `process` probe points need one). */
  target?: TargetSpec;
  /** --privilege (`stapusr`, `stapsys`, `stapdev`, the default): what pass 2 lets the script use (privilege.ts). */
  privilege?: string;
  /** --skip-badvars: unresolvable `$var`s become 0 with a warning. */
  skipBadvars?: boolean;
}

export class Session {
  files: A.StapFile[] = [];
  private includedFiles = new Set<A.SourceFile>();
  private includedPaths = new Set<string>();
  globals = new Map<string, A.VarDecl>();
  privGlobals = new Map<A.SourceFile, Map<string, A.VarDecl>>();
  functions = new Map<string, A.FunctionDecl[]>();
  privFunctions = new Map<A.SourceFile, Map<string, A.FunctionDecl[]>>();
  allGlobals: A.VarDecl[] = [];
  allFunctions: A.FunctionDecl[] = [];
  embeds: A.EmbeddedCode[] = [];
  /** Probe declarations waiting to be derived, in inclusion order. */
  pendingProbes: A.ProbeDecl[] = [];
  tree: MatchNode;
  registry: ProbeRegistry;
  libraryFileCount = 0;
  private loadedAliasRoots = new Set<string>();
  private providers = new Map<string, Provider | undefined>();
  failed = false;

  constructor(public opts: ElabOptions, public diag: Diagnostics) {
    this.registry = opts.registry!;
    this.tree = this.registry.cloneTree();
  }

  get library(): TapsetLibrary | null {
    return this.opts.library ?? null;
  }

  include(f: A.StapFile): void {
    if (this.includedFiles.has(f.file)) return;
    this.includedFiles.add(f.file);
    this.files.push(f);
    if (f.file.isTapset) this.libraryFileCount++;
    for (const g of f.globals) {
      g.file = f.file;
      g.kind = 'global';
      if (g.isPrivate) {
        let m = this.privGlobals.get(f.file);
        if (!m) this.privGlobals.set(f.file, (m = new Map()));
        if (!m.has(g.name)) m.set(g.name, g);
      } else if (!this.globals.has(g.name)) this.globals.set(g.name, g);
      this.allGlobals.push(g);
    }
    for (const fn of f.functions) {
      let m: Map<string, A.FunctionDecl[]>;
      if (fn.isPrivate) {
        let pm = this.privFunctions.get(f.file);
        if (!pm) this.privFunctions.set(f.file, (pm = new Map()));
        m = pm;
      } else m = this.functions;
      let list = m.get(fn.name);
      if (!list) m.set(fn.name, (list = []));
      list.push(fn);
      this.allFunctions.push(fn);
      // (a script body still in the tapset cache is not read here: it cannot be embedded code)
      if (!isDeferred(fn, 'body') && fn.body.k === 'embedded') {
        fn.pragmas = pragmasOf(fn.body.code);
        // `/* impl:NAME */`: the runtime's builtin NAME implements this body (a version's variant)
        fn.builtin = fn.pragmas.find((p) => p.startsWith('impl:'))?.slice(5) ?? fn.name;
      }
    }
    if (!f.file.isTapset) {
      // stap registers a user alias in pass 2 and refuses one whose name has a parameter
      const bad = f.aliases.filter((a) => a.names.some((n) => n.components.some((c) => c.arg)));
      for (const a of bad) {
        const c = a.names.flatMap((n) => n.components).find((x) => x.arg)!;
        this.diag.semanticError(new SemanticError('while registering probe alias', a.tok,
          [new SemanticError(`alias component ${c.name} contains illegal parameter`)], `alias-param:${c.name}`));
      }
      if (bad.length) f = { ...f, aliases: f.aliases.filter((a) => !bad.includes(a)) };
      for (const a of f.aliases) for (const n of a.names) this.ownAliasRoots.add(n.components[0].name);
      this.tableHolds = undefined;
    }
    if (!f.file.isTapset || (this.library && !this.library.isStdlibFile(f.file.name))) {
      for (const a of f.aliases) for (const n of a.names) this.userAliasNames.push(n.components.map((c) => c.name));
    }
    attachAliases(this.tree, f);
    this.embeds.push(...f.embeds);
    this.pendingProbes.push(...f.probes);
  }

  includePath(path: string): A.StapFile | null {
    if (this.includedPaths.has(path)) return null;
    this.includedPaths.add(path);
    const lib = this.library;
    if (!lib) return null;
    const f = lib.load(path);
    if (f) {
      // (the aliases of this file the build found to resolve to nothing: skipped where optional)
      const table = this.opts.guru || !f.aliases.length ? null : lib.builtAliasTable();
      const fails = table?.failures(path, lib.fileStamp(path));
      if (fails) for (const i of fails) if (i < f.aliases.length) this.silentAliases.add(f.aliases[i]);
      // (where the build's records of what its aliases derive are: knownExpansion)
      this.libraryFiles.set(path, f);
      const layout = table?.layout(path);
      if (layout) {
        const of = layout.of;
        const n = Math.min(of.length, f.aliases.length);
        for (let i = 0; i < n; i++) if (of.charCodeAt(i) !== 32) this.aliasPlaces.set(f.aliases[i], { shards: layout.shards, of, index: i });
      }
      this.include(f);
    }
    return f;
  }

  /** Library aliases that derive no probe and say nothing when expanded (alias_table.ts). */
  private silentAliases = new WeakSet<A.AliasDecl>();
  /** First components of the alias names of the script (and other non-library) files included. */
  private ownAliasRoots = new Set<string>();
  /** Alias names of the script and -I tapsets (not tapsim's stdlib), as component names. */
  private userAliasNames: string[][] = [];

  /**
   * Does expanding this alias (optionally, without a suffix) derive no probe and print nothing?
   * True only for an alias of the build's table while nothing of this session can change that:
   * no alias of the script or of a -I directory under the roots the table's expansions tried.
   */
  failsSilently(decl: A.AliasDecl): boolean {
    if (!this.silentAliases.has(decl)) return false;
    return this.failsSilentlyHolds();
  }

  /** Whether the alias table holds for this session (failsSilently), once asked; reset by a script's aliases. */
  private tableHolds: boolean | undefined;

  /** The library files loaded, by path. */
  private libraryFiles = new Map<string, A.StapFile>();
  /** Library aliases the build recorded expansions of: which alias of its file, and where the records are. */
  private aliasPlaces = new WeakMap<A.AliasDecl, { shards: string[]; of: string; index: number }>();
  /** The records' shards while they describe this session (null: they do not), once asked. */
  private shards: ExpansionShards | null | undefined;

  /**
   * What expanding this library alias derives (a use of it with no suffix or condition, optional
   * or not: alias_expansions.ts), as the build recorded it; null when it did not, or when the
   * records do not describe this session (guru, another privilege, a changed or differently
   * parsed stdlib file, other kernel data, an alias of the script or a -I directory under the
   * roots the expansions tried).
   */
  knownExpansion(entry: AliasEntry, context: UseContext): KnownExpansion | null {
    const place = this.aliasPlaces.get(entry.decl);
    if (!place) return null;
    if (this.shards === undefined || this.tableHolds === undefined) this.shards = this.expansionShards();
    if (!this.shards) return null;
    const found = this.shards.record(place.shards[place.of.charCodeAt(place.index) - 48], place.index, entry.nameIndex, context);
    if (!found) return null;
    const { shard, rec } = found;
    const shards = this.shards;
    return {
      chain: shard.strings[rec.c],
      roots: rec.r.map((i) => { const [name, key] = shard.strings[i].split('\0'); return [name, key ?? name] as const; }),
      replay: (body) => {
        const decls: A.AliasDecl[] = [];
        for (const [file, index] of rec.l) {
          const d = this.libraryFiles.get(this.stdlibPath(shard.strings[file]))?.aliases[index];
          if (!d) return null;
          decls.push(d);
        }
        return shards.replay(shard, rec, decls, body, this.elisionContext());
      },
    };
  }

  /**
   * Leave the bodies of the probes the build found elided unmade (alias_expansions.ts)?  Only
   * where the optimiser runs as the build's did: not -u, -l/-L, --skip-badvars or -W (which
   * stops it at the first warning).
   */
  private elisionContext(): ElisionContext | undefined {
    const o = this.opts;
    if (o.unoptimized || o.listing || o.skipBadvars || this.diag.opts.warningsAreErrors) return undefined;
    if (this.elision) return this.elision;
    const lib = this.library!;
    // (the names the script declares; a -I tapset's are found in the library's index)
    const own = new Set<string>();
    for (const f of this.files) {
      if (f.file.isTapset && lib.isStdlibFile(f.file.name)) continue;
      for (const g of f.globals) own.add(g.name);
      for (const fn of f.functions) own.add(fn.name);
    }
    const outside = (files: readonly string[]): boolean => files.some((f) => !lib.isStdlibFile(f));
    const known = new Map<string, boolean>();
    const stdlibName = (n: string): boolean => {
      let ok = known.get(n);
      if (ok === undefined) known.set(n, (ok = !own.has(n) && !outside(lib.filesDefiningGlobal(n)) && !outside(lib.filesDefiningFunction(n))));
      return ok;
    };
    return (this.elision = {
      stdlibOnly: (names) => names.every(stdlibName),
      file: (rel) => this.libraryFiles.get(this.stdlibPath(rel))?.file,
      path: (rel) => this.stdlibPath(rel),
    });
  }

  private stdlibPaths = new Map<string, string>();

  /** The path of a stdlib file named relative to the stdlib directory, as the library names it (the build's tables). */
  private stdlibPath(rel: string): string {
    let p = this.stdlibPaths.get(rel);
    if (p === undefined) this.stdlibPaths.set(rel, (p = this.library!.builtAliasTable()!.absolute(rel)));
    return p;
  }

  private elision: ElisionContext | undefined;

  private expansionShards(): ExpansionShards | null {
    const lib = this.library;
    const table = lib?.builtAliasTable();
    const privilege = this.opts.privilege ?? 'stapdev';
    if (!lib || !table || this.opts.guru || privilege !== 'stapdev' || !this.failsSilentlyHolds()) return null;
    if (!table.expansionsHold(lib.allFiles(), (f) => lib.fileStamp(f), (f) => lib.parsedAsBuilt(f))) return null;
    const m = require('./alias_expansions') as typeof import('./alias_expansions');
    return new m.ExpansionShards();
  }

  /** Does the alias table hold for this session (kernel data, the roots its expansions tried)? */
  private failsSilentlyHolds(): boolean {
    if (this.tableHolds === undefined) {
      const lib = this.library!;
      this.tableHolds = lib.builtAliasTable()!.holds((r) => lib.filesDefiningAliasRoot(r), this.ownAliasRoots);
    }
    return this.tableHolds;
  }

  /**
   * Global lookup: private of `from`, then public, then the tapset library.  `at`: the token
   * that names it; a private of the file the token comes from wins (an alias body expanded into
   * a user probe names its own file's privates, which stap mangles per file when parsing).
   */
  findGlobal(name: string, from: A.SourceFile, at?: A.Token): A.VarDecl | undefined {
    const p = (at && at.file !== from ? this.privGlobals.get(at.file)?.get(name) : undefined) ?? this.privGlobals.get(from)?.get(name);
    if (p) return p;
    const g = this.globals.get(name);
    if (g) return g;
    const lib = this.library;
    if (!lib) return undefined;
    for (const path of lib.filesDefiningGlobal(name)) {
      this.includePath(path);
      const found = this.globals.get(name);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * findFunctions' answers while no file has been included since (`functions`: how many
   * functions the session had), for the look-ups of elided probes (Resolver.replayLookups).
   */
  private foundFunctions = { functions: -1, found: new Map<string, A.FunctionDecl[]>() };

  /** findFunctions, the same answer as one made again while no file has been included. */
  findFunctionsAgain(name: string, from: A.SourceFile, at: A.Token): readonly A.FunctionDecl[] {
    const memo = this.foundFunctions;
    if (memo.functions !== this.allFunctions.length) {
      memo.functions = this.allFunctions.length;
      memo.found.clear();
    }
    const key = `${name}\0${from.name}\0${at.file.name}`;
    let r = memo.found.get(key);
    if (!r) {
      r = this.findFunctions(name, from, at);
      // (it may have included a file: the answer is kept once nothing more is)
      if (memo.functions === this.allFunctions.length) memo.found.set(key, r);
    }
    return r;
  }

  /**
   * Functions of a name visible from `from` (private first; `at` as for findGlobal), loading the
   * tapsets that define it.  A script's function does not hide a tapset's of the same name: both
   * are overloads (stap 4.8's find_functions goes over every `NAME__overload_N` the parser
   * counted, the library's first, parsed first: real-stap -u -p2 -e 'function log(s) { } probe
   * begin { log("a") }' lists `log:unknown (msg:string)` then `log:unknown (s:string)`, and a
   * script's `function pid() { return "x" }` mismatches the tapset's pid:long).
   */
  findFunctions(name: string, from: A.SourceFile, at?: A.Token): A.FunctionDecl[] {
    const own = at && at.file !== from ? this.privFunctions.get(at.file)?.get(name) : undefined;
    const priv = own ?? this.privFunctions.get(from)?.get(name) ?? [];
    const lib = this.library;
    if (lib) for (const path of lib.filesDefiningFunction(name)) this.includePath(path);
    const pub = this.functions.get(name) ?? [];
    const library = pub.filter((f) => f.file?.isTapset);
    return [...priv, ...(library.length && library.length < pub.length ? [...library, ...pub.filter((f) => !f.file?.isTapset)] : pub)];
  }

  /**
   * The function names an unresolved call suggests: stap's collect_functions takes the session's
   * functions (those resolved so far: `used`) and every library function, so a script function
   * nothing has called yet is not among them (real-stap: `function foo() {} probe begin { fob() }`).
   */
  functionNames(used: readonly A.FunctionDecl[]): string[] {
    const s = new Set<string>(used.map((f) => f.name));
    for (const f of this.allFunctions) if (f.tok.file.isTapset) s.add(f.name);
    const lib = this.library;
    if (lib) for (const n of lib.functionNames()) s.add(n);
    return [...s];
  }

  /** Load tapset files whose aliases could match a first component. */
  ensureAliases(key: string): void {
    const lib = this.library;
    if (!lib) return;
    if (this.loadedAliasRoots.has(key)) return;
    this.loadedAliasRoots.add(key);
    // `pre**post` may span components: its root is what `pre*` matches
    const root = key.includes('**') ? key.slice(0, key.indexOf('**')) + '*' : key;
    for (const path of lib.filesDefiningAliasRoot(root, hasWildcard(root) ? globMatch : undefined)) this.includePath(path);
  }

  /**
   * The names a probe point mismatch below `keys` (tree keys of the components matched) suggests:
   * the children stap 4.8's tree has there (stap_points.ts) and those the script's and -I
   * tapsets' aliases add; where stap's tree has no such path (below a user alias, or a family
   * only tapsim has), the children of tapsim's node.
   */
  similarProbeNames(keys: readonly string[], node: MatchNode): string[] {
    const stap = stapChildNames(keys);
    if (!stap) return [...node.children.values()].map((c) => c.name);
    const out = new Set(stap);
    for (const n of this.userAliasNames) {
      if (n.length > keys.length && keys.every((k, i) => k === n[i])) out.add(n[keys.length]);
    }
    return [...out];
  }

  aliasRootNames(): string[] {
    const s = new Set<string>();
    for (const ch of this.tree.children.values()) if (ch.aliases.length || ch.children.size) s.add(ch.name);
    const lib = this.library;
    if (lib) for (const r of lib.aliasRoots()) s.add(r);
    for (const r of this.registry.suggestionRoots) s.add(r);
    return [...s];
  }

  /**
   * The provider of a family: the first in the registry's tree (the session's tree is a copy of
   * it plus aliases, which have no providers), once per family.
   */
  providerFor(family: string): Provider | undefined {
    if (this.providers.has(family)) return this.providers.get(family);
    const find = (n: MatchNode): Provider | undefined => {
      if (n.provider && n.provider.family === family) return n.provider;
      for (const c of n.children.values()) {
        const p = find(c);
        if (p) return p;
      }
      return undefined;
    };
    const p = find(this.registry.root);
    this.providers.set(family, p);
    return p;
  }
}

/** Pragmas of an embedded-C function body: `/* pure *\/`, `/* unprivileged *\/`, `/* pragma:read:x *\/`... */
export function pragmasOf(code: string): string[] {
  const out: string[] = [];
  const re = /\/\*\s*([a-z_:-]+[a-zA-Z0-9_:-]*)\s*\*\//g;
  let m: RegExpExecArray | null;
  const known = /^(pure|stable|unprivileged|myproc-unprivileged|guru|string|unmangled|unmodified-fnargs|pragma:.*|impl:.*)$/;
  while ((m = re.exec(code))) if (known.test(m[1]) && !out.includes(m[1])) out.push(m[1]);
  return out;
}
