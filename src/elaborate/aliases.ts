/**
 * Probe derivation (stap's derive_probes / match_node::find_and_build / alias_expansion_builder):
 * walks the probe-point tree, expands aliases (prologue `=`, epilogue `+=`, both), wildcards over
 * aliases and families, suffix propagation (`alias.return`), `?`/`!`, ANDed conditions and the
 * recursion check, and hands low-level points to the family providers of probes.ts.
 */
import { checkUnspecifiedProcess, TargetSpec } from './process_target';
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { aliasTrieOf, freshDeferred } from './tapset_ast';
import { MatchNode, AliasEntry, argKind, hasWildcard, globMatch, mismatchError, truncatedError } from './probes';
import { probePointError } from './privilege';
import { deepCopy, renderComponents, renderPoint, synthToken, walkStmt, walkExpr, fold } from './util';

/** One derived registration before symbol resolution. */
export interface Expansion {
  rp: A.ResolvedPoint;
  /** Script-level name (pn()). */
  pn: string;
  /** Alias derivation entries, innermost first (`foo = begin, end(1)`); the user's entry is added by the caller. */
  chain: string[];
  body: A.Block;
  condition?: A.Expr;
  /** The user's probe point this came from (set at the outermost level). */
  loc?: A.ProbePoint;
  /** `?`/`!` as written on the location the point was built from (writtenMark). */
  mark?: string;
  /**
   * Further points of the same build whose probes are this one's in all but point and pn (the
   * body reads nothing of its point: see pointFree): pass 2 elaborates the body once for all.
   */
  more?: { rp: A.ResolvedPoint; pn: string }[];
  /**
   * A probe the build found pass 2's optimiser elides (alias_expansions.ts): `body` is an empty
   * block standing for the body, which is made only if the look-ups do not replay as recorded.
   */
  elided?: ElidedBody;
}

/**
 * What resolving an elided probe's body asks of the session, in order: a variable name that
 * found no global (it became a local), or a function name and the declarations found
 * (declarationsKey), with the call's argument count.  `file` is the file of the name's token.
 */
export type Lookup =
  | { fn: false; name: string; file: A.SourceFile }
  | { fn: true; name: string; file: A.SourceFile; nargs: number; cands: string };

/** How Lookup.cands names the declarations a function look-up found: `path:line:col` each, one a line. */
export function declarationsKey(found: readonly { tok: A.Token }[]): string {
  return found.map((f) => `${f.tok.file.name}:${f.tok.line}:${f.tok.col}`).join('\n');
}

/** A derived probe whose body the build found elided at iteration `at` of the optimiser's loop. */
export interface ElidedBody {
  at: number;
  lookups: readonly Lookup[];
  /** The body, made as the slow path makes it. */
  make(): A.Block;
}

/** The marks of locations an alias expansion made (its optionality is the use's too). */
const aliasPointMarks = new WeakMap<A.ProbePoint, string>();

/**
 * `?` or `!` as written on a location (`a = begin?` used as `a` shows `begin?`, `a = begin` used
 * as `a?` shows `begin`: real-stap -p2).
 */
export function writtenMark(loc: A.ProbePoint): string {
  return aliasPointMarks.get(loc) ?? (loc.sufficient ? '!' : loc.optional ? '?' : '');
}

/** One expansion per point: those sharing a body (Expansion.more) listed one by one. */
export function eachPoint(exps: Expansion[]): Expansion[] {
  if (!exps.some((x) => x.more)) return exps;
  const out: Expansion[] = [];
  for (const x of exps) {
    out.push(x.more ? { ...x, more: undefined } : x);
    if (x.more) for (const m of x.more) out.push({ ...x, rp: m.rp, pn: m.pn, more: undefined });
  }
  return out;
}

/** Expression kinds a probe body may hold and still mean the same at every point it is on. */
const POINT_FREE = new Set<A.Expr['k']>([
  'num', 'str', 'binary', 'logical', 'compare', 'concat', 'regex', 'unary', 'incdec', 'ternary', 'assign',
  'sym', 'index', 'call', 'print', 'statop', 'hist', 'in',
]);

/**
 * Does a body (and condition) read nothing that depends on the probe point: no `$var`, `@var`,
 * `@cast`, `@entry`, `@defined`, `@probewrite`, embedded C?  Such a body is elaborated once for
 * all the points one wildcard resolves to.
 */
function pointFree(body: A.Block, condition: A.Expr | undefined): boolean {
  let free = true;
  const onExpr = (e: A.Expr): void => {
    if (!POINT_FREE.has(e.k)) free = false;
  };
  walkStmt(body, onExpr);
  if (condition && free) walkExpr(condition, onExpr);
  return free;
}

export interface DeriveHooks {
  /** Called before matching a point, so tapset aliases for its first component (`root`) can be loaded. */
  ensureAliases(root: string): void;
  guru: boolean;
  suggestionRoots: Iterable<string>;
  /** The names a mismatch below these tree keys suggests (Session.similarProbeNames). */
  similarNames?: (keys: readonly string[], node: MatchNode) => Iterable<string>;
  /** -c / -x: what an unspecified `process` point means. */
  target?: TargetSpec;
  /** --privilege: the points a family provider may build (privilege.ts). */
  privilege?: string;
  /**
   * Does this alias derive no probe and say nothing when expanded optionally without a suffix
   * (the build's table, alias_table.ts)?  Such a use is skipped unread.
   */
  failsSilently?: (decl: A.AliasDecl) => boolean;
  /**
   * -l/-L: a point that does not resolve is left out silently, as stap's derive_probes does in
   * listing mode (4.8's `-L nfsd.proc.read` lists the v4 and v3 procedures without nfsd.proc2.read)
   */
  listing?: boolean;
  /**
   * What expanding this alias without a suffix or condition derives, as the build recorded it
   * (alias_expansions.ts), for a use that is optional (`o`) or not (`n`); null: not known, or
   * the record does not describe this run.  Such a use is replayed without reading the alias.
   */
  knownExpansion?: (entry: AliasEntry, context: 'o' | 'n') => KnownExpansion | null;
}

/** An alias expansion the build recorded (alias_expansions.ts). */
export interface KnownExpansion {
  /** The alias's own chain text (aliasChainText). */
  chain: string;
  /** The first components the expansion matched, in order: name (ensureAliases) and tree root key. */
  roots: readonly (readonly [string, string])[];
  /** The derived probes, given the body of the use (null: an alias of the record is not there). */
  replay(body: A.Block): Expansion[] | null;
}

/**
 * Records what an expansion derives, for the build's table (alias_expansions_make.ts): the
 * alias layer of each body made and the (uncopied) body each derived probe got.
 */
export interface ExpansionRecorder {
  layers: WeakMap<A.Block, { entry: AliasEntry; parent: A.Block }>;
  bodies: WeakMap<Expansion, A.Block>;
  /** Each point's first component as matched: its name (ensureAliases) and the tree root's key for it. */
  roots: [string, string][];
  /** Set when a provider built several points for one location (the body would be read: pointFree). */
  spoiled: boolean;
}

export function attachAlias(root: MatchNode, decl: A.AliasDecl): void {
  decl.names.forEach((name, nameIndex) => {
    let n = root;
    for (const c of name.components) n = n.child(c.name, argKind(c));
    const entry: AliasEntry = { decl, nameIndex };
    n.aliases.push(entry);
  });
}

/**
 * Attach a file's aliases: a tapset read from the cache through its name trie, a level at a time
 * as matching reaches it (its declarations stay unread until expanded); others name by name.
 */
export function attachAliases(root: MatchNode, f: A.StapFile): void {
  const trie = aliasTrieOf(f);
  if (trie) root.addAliasLevel(trie, f.aliases);
  else for (const a of f.aliases) attachAlias(root, a);
}

/** Text of an alias definition in a derivation chain: `foo = begin, end(1)`, `bar += foo`. */
export function aliasChainText(entry: AliasEntry): string {
  const d = entry.decl;
  const name = renderComponents(d.names[entry.nameIndex].components);
  // (what a fresh decode of the bodies found, if one was made: the declaration's stay unread)
  const shape = bodyShape.get(d);
  const op = (shape ? shape.epilogue && !shape.prologue : d.epilogue && !d.prologue) ? '+=' : '=';
  return `${name} ${op} ${d.points.map(pointWithCondition).join(', ')}`;
}

export function pointWithCondition(p: A.ProbePoint): string {
  return renderPoint(p) + (p.condition ? ` if (${conditionText(p.condition)})` : '');
}

/** Hook for printing conditions in chains; set by dump.ts (expression printer). */
export let conditionText: (e: A.Expr) => string = () => '...';
export function setConditionPrinter(f: (e: A.Expr) => string): void {
  conditionText = f;
}

function andConditions(a: A.Expr | undefined, b: A.Expr | undefined): A.Expr | undefined {
  if (!a) return b;
  if (!b) return a;
  return { k: 'logical', op: '&&', left: a, right: b, tok: synthToken(a.tok, 'operator', '&&') };
}

export class Deriver {
  private stack: AliasEntry[] = [];
  private parentOptional = false;

  constructor(private root: MatchNode, private diag: Diagnostics, private hooks: DeriveHooks, private recorder?: ExpansionRecorder) {}

  /**
   * derive_probes: resolve each location of a probe; errors are printed (as `while resolving probe
   * point`) unless `rethrow`, in which case the first one is thrown.
   */
  derive(locs: A.ProbePoint[], body: A.Block, optional: boolean, rethrow: boolean, out: Expansion[]): void {
    let undo = false;
    if (optional && !this.parentOptional) {
      this.parentOptional = true;
      undo = true;
    }
    try {
      for (const loc of locs) {
        try {
          const before = out.length;
          try {
            this.findAndBuild(loc, body, out);
            if (this.stack.length === 0) for (let k = before; k < out.length; k++) out[k].loc ??= loc;
          } catch (e) {
            if (!(e instanceof SemanticError)) throw e;
            if (e instanceof RecursiveExpansionError) throw e;
            if (!loc.optional && !this.parentOptional) throw e;
            continue;
          }
          if (!(loc.optional || this.parentOptional) && out.length === before) {
            throw new SemanticError('no match', undefined, [], 'pp-no-match');
          }
          if (loc.sufficient && out.length > before) break;
        } catch (e) {
          if (!(e instanceof SemanticError)) throw e;
          if (rethrow && !(e instanceof RecursiveExpansionError)) throw e;
          if (this.hooks.listing && !(e instanceof RecursiveExpansionError)) continue;
          const wrapped = new SemanticError('while resolving probe point', loc.components[0].tok, [e], 'resolve-pp|' + siteChain(e));
          this.diag.semanticError(wrapped);
        }
      }
    } finally {
      if (undo) this.parentOptional = false;
    }
  }

  private findAndBuild(loc: A.ProbePoint, body: A.Block, out: Expansion[]): void {
    const first = loc.components[0];
    this.hooks.ensureAliases(first.name);
    this.recorder?.roots.push([first.name, MatchNode.key(first.name, argKind(first))]);
    this.match(this.root, loc, 0, [], body, out);
  }

  private match(node: MatchNode, loc: A.ProbePoint, i: number, concrete: A.ProbePointComponent[], body: A.Block, out: Expansion[]): void {
    const comps = loc.components;
    if (i === comps.length) {
      if (node.aliases.length) {
        for (const a of node.aliases) this.expandAlias(a, loc, concrete, [], body, out);
        return;
      }
      if (node.provider) {
        // (stap's process builder checks for -c/-x once the point has matched a family pattern)
        checkUnspecifiedProcess(concrete[0], this.hooks.target ?? {}, concrete[1]);
        const denied = probePointError(this.hooks.privilege, node.provider.family, concrete, comps[comps.length - 1].tok);
        if (denied) throw denied;
        const rps = node.provider.build({ components: concrete, point: loc, guru: this.hooks.guru, warn: (m) => this.diag.warning(m) });
        // (a provider may name the point as written: kernel.data's pp adds .length(1))
        const pnOf = (rp: A.ResolvedPoint): string => (typeof rp.data?.pn === 'string' ? rp.data.pn : rp.pp);
        const mark = writtenMark(loc);
        if (this.recorder) {
          if (rps.length > 1) this.recorder.spoiled = true;
          for (const rp of rps) {
            const x: Expansion = { rp, pn: pnOf(rp), chain: [], body, condition: loc.condition, mark };
            this.recorder.bodies.set(x, body);
            out.push(x);
          }
          return;
        }
        if (rps.length > 1 && pointFree(body, loc.condition)) {
          // a wildcard's thousands of points: one body for all (not a copy each)
          out.push({ rp: rps[0], pn: pnOf(rps[0]), chain: [], body: copyBody(body), condition: loc.condition ? deepCopy(loc.condition) : undefined,
            more: rps.slice(1).map((rp) => ({ rp, pn: pnOf(rp) })), mark });
          return;
        }
        for (const rp of rps) {
          out.push({ rp, pn: pnOf(rp), chain: [], body: copyBody(body), condition: loc.condition ? deepCopy(loc.condition) : undefined, mark });
        }
        return;
      }
      throw truncatedError(node, comps[comps.length - 1].tok);
    }
    const c = comps[i];
    const kind = argKind(c);
    if (hasWildcard(c.name)) {
      const before = out.length;
      const kids = [...node.children.values()].filter((ch) => ch.arg === kind && globMatch(c.name, ch.name));
      kids.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // `**` also spans components
      for (const ch of kids) {
        // a wildcard last component never matches an inner node (netfilter.ip of netfilter.ip.local_out,
        // generic of generic.fop.open): stap reports no wildcard match rather than a truncated point
        if (i + 1 === comps.length && !ch.aliases.length && !ch.provider) continue;
        try {
          this.match(ch, loc, i + 1, [...concrete, { ...c, name: ch.name }], body, out);
        } catch (e) {
          // stap's match_node::find_and_build ignores a semantic error of one wildcard match
          // (perf.*.*: hw_cache.* has no leaf); none matching is reported below
          if (!(e instanceof SemanticError) || e instanceof RecursiveExpansionError) throw e;
        }
      }
      const dglob = c.name.indexOf('**');
      if (dglob >= 0) {
        // `pre**post` over `name.rest`: `pre*` matches a component name, `**post` goes on below it
        const pre = c.name.slice(0, dglob) + '*';
        const rest: A.ProbePointComponent = { ...c, name: '**' + c.name.slice(dglob + 2) };
        const sub: A.ProbePoint = { ...loc, components: [...comps.slice(0, i), rest, ...comps.slice(i + 1)] };
        aliasPointMarks.set(sub, writtenMark(loc));
        // (spanning needs a deeper component: a leaf was matched by the loop above)
        const spans = [...node.children.values()].filter((ch) => ch.arg === 'none' && ch.children.size > 0 && globMatch(pre, ch.name));
        spans.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const ch of spans) {
          try {
            this.match(ch, sub, i, [...concrete, { ...c, name: ch.name, arg: undefined }], body, out);
          } catch (e) {
            // a branch the double glob does not complete in
            if (!(e instanceof SemanticError) || e instanceof RecursiveExpansionError) throw e;
          }
        }
      }
      if (out.length === before) {
        // the alias with the rest as a suffix (real-stap: `foo.*` over `foo = begin` whose `foo.bar`
        // matched nothing says "invalid suffix for probe: operator '*'"); an alias over its own
        // wildcard whose matches resolved nothing, `scsi.ioentry = scsi.ioentry.* ?` on 6.1, would
        // expand into itself: stap reports no match, no loop
        if (node.aliases.length && i > 0) {
          try {
            this.expandWithSuffix(node, loc, concrete, i, body, out);
            return;
          } catch (e) {
            if (!(e instanceof RecursiveExpansionError) || !kids.some((ch) => i + 1 < comps.length || ch.aliases.length || ch.provider)) throw e;
          }
        }
        throw mismatchError(node, c, this.hooks.suggestionRoots, this.similar(node, concrete));
      }
      return;
    }
    const child = node.children.get(MatchNode.key(c.name, kind));
    if (child) {
      this.match(child, loc, i + 1, [...concrete, c], body, out);
      return;
    }
    if (node.aliases.length && i > 0) {
      this.expandWithSuffix(node, loc, concrete, i, body, out);
      return;
    }
    if (node.provider) throw new SemanticError('invalid suffix for probe', c.tok, [], 'pp-invalid-suffix');
    throw mismatchError(node, c, this.hooks.suggestionRoots, this.similar(node, concrete));
  }

  /**
   * The components from `i` on are a suffix of the aliases named at `node`: stap appends it to
   * their points, and when those resolve nothing without an error (all optional), reports a
   * mismatch at the suffix, without suggestions (real-stap: `probe a = begin? {} probe a.x {}`).
   */
  private expandWithSuffix(node: MatchNode, loc: A.ProbePoint, concrete: A.ProbePointComponent[], i: number, body: A.Block, out: Expansion[]): void {
    const before = out.length;
    for (const a of node.aliases) this.expandAlias(a, loc, concrete, loc.components.slice(i), body, out);
    if (out.length > before) return;
    const c = loc.components[i];
    throw hasWildcard(c.name)
      ? new SemanticError("probe point mismatch: didn't find any wildcard matches", c.tok, [], 'pp-wild-mismatch')
      : new SemanticError('probe point mismatch', c.tok, [], 'pp-mismatch');
  }

  /** The names a mismatch below `concrete` at `node` suggests, if the hooks say. */
  private similar(node: MatchNode, concrete: A.ProbePointComponent[]): (() => Iterable<string>) | undefined {
    const f = this.hooks.similarNames;
    if (!f) return undefined;
    // (made only if the message is read: optional alias points fail by the hundred in `syscall.*`)
    return () => f(concrete.map((x) => MatchNode.key(x.name, argKind(x))), node);
  }

  /**
   * Expand an alias as a `?` use of its own name would (`dw_syscall.read?`): what pass 2 does
   * with it where its failure is swallowed.  For the build's alias table and its test.
   */
  expandOptionally(entry: AliasEntry, out: Expansion[]): void {
    this.expandUse(entry, true, { k: 'block', stmts: [], tok: entry.decl.names[entry.nameIndex].tok }, out);
  }

  /**
   * Expand an alias as a use of its own name does, optional (`name?`) or not, outside any
   * optional use, around `body`: for the build's tables (alias_expansions_make.ts).
   */
  expandUse(entry: AliasEntry, optional: boolean, body: A.Block, out: Expansion[]): void {
    const name = entry.decl.names[entry.nameIndex];
    const use: A.ProbePoint = { components: name.components, optional, sufficient: false, tok: name.tok };
    this.expandAlias(entry, use, name.components, [], body, out);
  }

  private expandAlias(entry: AliasEntry, use: A.ProbePoint, concrete: A.ProbePointComponent[], suffix: A.ProbePointComponent[],
    body: A.Block, out: Expansion[]): void {
    const d = entry.decl;
    // an alias the build found to resolve to nothing here (dw_syscall.NAME on 6.1), used where
    // its failure is swallowed: it would derive nothing and print nothing (alias_table.ts)
    if (!suffix.length && (use.optional || this.parentOptional) && this.hooks.failsSilently?.(d)) return;
    // stap's check skips the outermost expansion, so a loop is reported one level deeper
    if (this.stack.slice(1).includes(entry)) {
      throw new RecursiveExpansionError(
        `recursive loop in alias expansion of ${renderComponents(use.components)} at ${use.components[0].tok.file.name}:${use.components[0].tok.line}:${use.components[0].tok.col}`);
    }
    // the build's record of this expansion (alias_expansions.ts): replayed, the alias unread
    // (recorded for a use that is optional and one that is not, outside any optional use)
    const context = use.optional ? 'o' : this.parentOptional ? null : 'n';
    const known = !suffix.length && !use.condition && context ? this.hooks.knownExpansion?.(entry, context) ?? null : null;
    if (known) {
      // (loading the same alias files and probe families in the same order as the slow path)
      for (const [name, key] of known.roots) {
        this.hooks.ensureAliases(name);
        this.root.children.get(key);
      }
      const subs = known.replay(body);
      if (subs) {
        if (subs.length) this.finish(subs, known.chain, [...concrete, ...suffix], out);
        return;
      }
    }
    const newBody = aliasLayer(d, body);
    this.recorder?.layers.set(newBody, { entry, parent: body });
    // Locations: the alias's points with the suffix appended, the use's optionality and condition.
    const locs: A.ProbePoint[] = d.points.map((p) => {
      const loc: A.ProbePoint = {
        components: [...p.components, ...suffix],
        optional: p.optional || use.optional,
        // stap's alias_expansion_builder copies the alias's points as they are: the use's `!`
        // stops its own list, not the alias's (nd_syscall.X = ..., nd2_syscall.X!, ... keeps both
        // kprobes of nd2_syscall.X = kprobe.function("__{ia32,x64}_sys_X"))
        sufficient: p.sufficient,
        condition: andConditions(p.condition, use.condition),
        tok: p.tok,
      };
      aliasPointMarks.set(loc, writtenMark(p));
      return loc;
    });
    const sub: Expansion[] = [];
    this.stack.push(entry);
    try {
      this.derive(locs, newBody, use.optional, suffix.length > 0, sub);
    } finally {
      this.stack.pop();
    }
    if (!sub.length) return; // (an optional alias that resolved nothing: no chain text to make)
    this.finish(sub, aliasChainText(entry), [...concrete, ...suffix], out);
  }

  /** An alias's derived probes, named as its use and with its definition added to their chains. */
  private finish(sub: Expansion[], chainEntry: string, named: A.ProbePointComponent[], out: Expansion[]): void {
    const name = renderComponents(named);
    for (const x of sub) {
      x.chain.push(chainEntry);
      x.pn = name;
      if (x.more) for (const m of x.more) m.pn = name;
      out.push(x);
    }
  }
}

/**
 * The body an alias expansion hands its points: { prologue; body } / { body; epilogue }, made
 * when a derived probe copies it: an alias whose points resolve nothing never reads its bodies
 * (tapset_ast.ts stores them apart).  (The alias's own blocks are not copied here: every
 * derived probe deep-copies its whole body.)
 */
export function aliasLayer(d: A.AliasDecl, body: A.Block, copied = false): A.Block {
  return lazyBlock(() => {
    // (a cached alias's first use decodes its bodies for this expansion alone: taken, not copied;
    // `copied`: the declaration's, which derived probes copy, whatever was elaborated before)
    const fresh = copied || usedOnce.has(d) ? null : freshDeferred(d, 'prologue');
    usedOnce.add(d);
    const prologue = fresh ? (fresh.prologue as A.Block | undefined) : d.prologue;
    const epilogue = fresh ? (fresh.epilogue as A.Block | undefined) : d.epilogue;
    if (fresh) {
      for (const b of [prologue, epilogue]) if (b) owned.add(b);
      bodyShape.set(d, { prologue: !!prologue, epilogue: !!epilogue });
    }
    const stmts: A.Stmt[] = [];
    if (prologue) stmts.push(prologue);
    stmts.push(body);
    if (epilogue) stmts.push(hasProbewrite(epilogue) ? resolveProbewrite(fresh ? epilogue : deepCopy(epilogue), body) : epilogue);
    return stmts.length === 1 ? body : { k: 'block', stmts, tok: (prologue ?? epilogue ?? body).tok };
  });
}

/** Which bodies a cached alias has, from the fresh decode of them (aliasChainText). */
const bodyShape = new WeakMap<A.AliasDecl, { prologue: boolean; epilogue: boolean }>();
/** Cached aliases whose bodies an expansion has decoded for itself once already. */
const usedOnce = new WeakSet<A.AliasDecl>();
/**
 * Alias bodies decoded for one expansion alone: the first derived probe that copies the
 * expansion's body takes them as they are (later ones copy them, before any is elaborated).
 */
const owned = new WeakSet<object>();

/** A derived probe's own copy of a body (taking the alias bodies decoded for it). */
export function copyBody(body: A.Block): A.Block {
  return deepCopy(body, (n) => owned.delete(n));
}

/** Does an alias epilogue use @probewrite (then each derived probe gets its own copy to fold)? */
const probewriteUse = new WeakMap<A.Block, boolean>();
function hasProbewrite(epilogue: A.Block): boolean {
  let r = probewriteUse.get(epilogue);
  if (r === undefined) {
    r = false;
    walkStmt(epilogue, (e) => {
      if (e.k === 'atop' && e.name === '@probewrite') r = true;
    });
    probewriteUse.set(epilogue, r);
  }
  return r;
}

/**
 * `@probewrite(var)` in an alias epilogue: 1 if the probe handler body (what the alias wraps)
 * writes `var` (assignment of any kind, ++/--, delete), else 0 (stap(1), "probe aliases").
 * Anywhere else pass 2 refuses it (symbols.ts).
 */
function resolveProbewrite(epilogue: A.Block, body: A.Block): A.Block {
  let written: Set<string> | null = null;
  const writes = (): Set<string> => {
    if (written) return written;
    const w = new Set<string>();
    const nameOf = (x: A.Expr): string | null =>
      x.k === 'sym' ? x.name : x.k === 'index' ? nameOf(x.base) : x.k === 'target' ? x.name : null;
    walkStmt(body, (e) => {
      const t = e.k === 'assign' ? e.target : e.k === 'incdec' ? e.operand : null;
      const n = t && nameOf(t);
      if (n) w.add(n);
    }, (st) => {
      const n = st.k === 'delete' ? nameOf(st.target) : null;
      if (n) w.add(n);
    });
    return (written = w);
  };
  walkStmt(epilogue, (e) => {
    if (e.k === 'atop' && e.name === '@probewrite') {
      const a = e.args[0];
      const n = a && (a.k === 'sym' || a.k === 'target') ? a.name : '';
      fold(e, writes().has(n) ? 1 : 0);
    }
  });
  return epilogue;
}

/** A block whose fields are computed on first read (then plain data). */
function lazyBlock(make: () => A.Block): A.Block {
  let made: A.Block | null = null;
  const get = (): A.Block => (made ??= make());
  const b = { k: 'block' } as A.Block;
  for (const key of ['stmts', 'tok'] as const) {
    Object.defineProperty(b, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const v = get()[key];
        Object.defineProperty(b, key, { value: v, enumerable: true, configurable: true, writable: true });
        return v;
      },
      set: (v: unknown) => Object.defineProperty(b, key, { value: v, enumerable: true, configurable: true, writable: true }),
    });
  }
  return b;
}

export class RecursiveExpansionError extends SemanticError {
  constructor(msg: string) {
    super(msg, undefined, [], 'pp-recursive');
  }
}

export function siteChain(e: SemanticError): string {
  let s = e.site || e.message;
  for (const c of e.chain) s += '|' + siteChain(c);
  return s;
}
