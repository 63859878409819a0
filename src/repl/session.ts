/**
 * The REPL's session script: an ordered list of declarations (globals, functions, probes,
 * aliases, embedded-C blocks, loaded files), numbered as `list` shows them, and the values of
 * the globals, which persist across runs until `reset`.
 *
 * Every change is checked at once by passes 1-3 over the whole session ("armed"): a change
 * that does not elaborate or translate is rejected with stap's diagnostics and the session
 * stays as it was.  Redefinitions replace: a global or function of the same name, a probe on
 * the same probe point(s), an alias of the same name.  `add` appends without replacing.
 */
import * as fs from 'fs';
import type * as A from '../ast';
import { Diagnostics, PassFailed } from '../diag';
import { parseFile } from '../parse';
import { probePoint } from '../parse/print';
import { elaborate, TapsetLibrary, stdlibDir } from '../elaborate';
import { translate, Translated, GlobalMeta } from '../translate';
import type { Module } from '../runtime/engine';
import { StapMap, autoPrintMap, scalarLine, MapValue, Key } from '../runtime/maps';
import { Stat, StatPart } from '../runtime/stats';
import { Long } from '../runtime/int64';
import { splitDecls, splitGlobals } from './scan';

export type ItemKind = 'global' | 'function' | 'probe' | 'alias' | 'embed' | 'file';

export interface Item {
  kind: ItemKind;
  /** Replacement key (`global:x`, `function:f`, `probe:timer.s(1)`, ...). */
  key: string;
  text: string;
  /** File name diagnostics use for this item (`<input>` for typed text, else the loaded file). */
  origin: string;
}

/** Settings that shape passes 1-3 (the `set` options and command-line flags). */
export interface CompileSettings {
  guru: boolean;
  suppressWarnings: boolean;
  /** `panic_warnings` / -W */
  warningsAreErrors: boolean;
  unoptimized: boolean;
  verbose: number;
  args: string[];
  defines: Map<string, string>;
  compatible?: string;
  privilege: string;
}

type Writer = (s: string) => void;

/** Diagnostics for the wrapped input of an evaluation: line numbers of `<eval>` shown one less, as `<input>`. */
export class ShiftedDiagnostics extends Diagnostics {
  private shown: A.SourceFile;
  constructor(opts: ConstructorParameters<typeof Diagnostics>[0], write: Writer, private wrapper: A.SourceFile, private shift: number) {
    super(opts, write);
    this.shown = { name: '<input>', text: wrapper.text, isTapset: false };
  }
  override renderToken(tok: A.Token): string {
    if (tok.file !== this.wrapper) return super.renderToken(tok);
    return super.renderToken({ ...tok, file: this.shown, line: tok.line - this.shift });
  }
}

/** Passes 1-3 with one tapset library for the whole REPL session. */
export class Compiler {
  readonly library: TapsetLibrary;

  constructor(public settings: CompileSettings, includeDirs: string[], err: Writer) {
    const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, err);
    this.library = new TapsetLibrary({
      dirs: [stdlibDir(), ...includeDirs],
      parse: { args: settings.args, guru: settings.guru, compatible: settings.compatible, privilege: settings.privilege },
      diag,
      warn: err,
    });
  }

  diagnostics(err: Writer, quietWarnings = false): Diagnostics {
    const s = this.settings;
    return new Diagnostics({ verbose: s.verbose, suppressWarnings: quietWarnings || s.suppressWarnings, warningsAreErrors: s.warningsAreErrors }, err);
  }

  /** Parsed items by origin and text (pass 2 types the AST in place, so users get a copy). */
  private parsed = new Map<string, A.StapFile>();

  /** Parse with a cache: a session's items are re-elaborated on every change. */
  parseCached(src: A.SourceFile, diag: Diagnostics): A.StapFile | null {
    const key = src.name + '\0' + src.text;
    const hit = this.parsed.get(key);
    if (hit) return cloneAst(hit);
    const f = this.parse(src, diag);
    if (!f) return null;
    if (this.parsed.size > 2000) this.parsed.clear();
    this.parsed.set(key, cloneAst(f));
    return f;
  }

  parse(src: A.SourceFile, diag: Diagnostics): A.StapFile | null {
    const s = this.settings;
    return parseFile(src, { args: s.args, guru: s.guru, compatible: s.compatible, privilege: s.privilege, usedArgs: new Set(),
      libraryMacros: this.library.macros() as never }, diag);
  }

  /** Parse errors as the CLI ends pass 1. */
  parseFailed(diag: Diagnostics, err: Writer): void {
    if (diag.errorCount > 0) err(`${diag.errorCount} parse error${diag.errorCount === 1 ? '' : 's'}.\n`);
    diag.footer();
    err('Pass 1: parse failed.  [man error::pass1]\n');
  }

  /** Passes 2 and 3 over parsed files; prints diagnostics and the `Pass N: ... failed` line. */
  build(files: A.StapFile[], diag: Diagnostics, err: Writer, upTo = 3): { program: A.Program; tr?: Translated } | null {
    const s = this.settings;
    const program = elaborate(files, { guru: s.guru, unoptimized: s.unoptimized, args: s.args, usedArgs: new Set(), library: this.library,
      verbose: s.verbose, compatible: s.compatible, privilege: s.privilege }, diag);
    if (!program || (s.warningsAreErrors && diag.warningCount > 0)) {
      diag.footer();
      err(!program && diag.fatal !== undefined ? diag.fatal + '\n' : 'Pass 2: analysis failed.  [man error::pass2]\n');
      return null;
    }
    if (upTo < 3) return { program };
    try {
      const tr = translate(program, { diag, defines: s.defines, compatible: s.compatible });
      return { program, tr };
    } catch (e) {
      if (!(e instanceof PassFailed)) throw e;
      diag.footer();
      err('Pass 3: translation failed.  [man error::pass3]\n');
      return null;
    }
  }
}

/**
 * Copy a parsed file's AST: nodes are copied, tokens and source files are shared (they are
 * never changed after parsing, and diagnostics compare source files by identity).
 */
export function cloneAst<T>(v: T): T {
  const copy = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) return x.map(copy);
    const o = x as Record<string, unknown>;
    if ('isTapset' in o && 'text' in o) return o; // SourceFile
    if ('offset' in o && 'file' in o && 'line' in o) return o; // Token
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) out[k] = copy(o[k]);
    return out;
  };
  return copy(v) as T;
}

// ---------------------------------------------------------------------------------------------
// Global values across runs

function sig(g: GlobalMeta): string {
  return `${g.type}/${g.arity}/${g.indexTypes.join(',')}`;
}

function copyPart(dst: StatPart, src: StatPart, srcStat: Stat, dstStat: Stat): void {
  dst.n = src.n;
  dst.s = src.s;
  dst.lo = src.lo;
  dst.hi = src.hi;
  dst.avgS = src.avgS;
  dst.m2 = src.m2;
  if (dst.hist && src.hist) {
    // keep the buckets of every histogram both programs use
    dstStat.spec.hists.forEach((h, i) => {
      const j = srcStat.spec.histIndex(h);
      if (j >= 0 && dst.hist && src.hist && src.hist[j].length === dst.hist[i].length) dst.hist[i].set(src.hist[j]);
    });
  }
}

/** Copy a Stat's per-CPU data into another (fresh) Stat of the new module. */
function copyStat(dst: Stat, src: Stat): void {
  copyPart(dst, src, src, dst);
  if (src.others) {
    dst.others = src.others.map((p) => {
      if (!p) return undefined;
      const q = new StatPart(dst.spec);
      copyPart(q, p, src, dst);
      return q;
    });
  }
}

/** Values of the session's globals, carried from one run's module to the next. */
export class GlobalStore {
  private values = new Map<string, { sig: string; meta: GlobalMeta; value: unknown }>();

  clear(): void {
    this.values.clear();
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  delete(name: string): void {
    this.values.delete(name);
  }

  /** Put kept values into a freshly loaded module (same name and type only). */
  restore(mod: Module, tr: Translated): void {
    for (const g of tr.globals) {
      const kept = this.values.get(g.name);
      const acc = mod.globals.get(g.name)!;
      if (!kept || !acc || kept.sig !== sig(g)) continue;
      if (g.arity === 0) {
        if (g.type === 'stats') copyStat(acc.get() as Stat, kept.value as Stat);
        else if (acc.set) acc.set(kept.value);
        continue;
      }
      const dst = acc.get() as StapMap;
      const src = kept.value as StapMap;
      for (const row of src.rows()) {
        const keys = [...row.keys] as Key[];
        if (row.v instanceof Stat) {
          const s = new Stat(dst.statSpec);
          s.inMap = true;
          copyStat(s, row.v);
          dst.setN(keys, s);
        } else dst.setN(keys, row.v as MapValue);
      }
    }
  }

  /** Keep the values a module ended with. */
  save(mod: Module, tr: Translated): void {
    for (const g of tr.globals) {
      const acc = mod.globals.get(g.name)!;
      if (acc) this.values.set(g.name, { sig: sig(g), meta: g, value: acc.get() });
    }
  }

  /** stap's end-of-run display of one global (nothing for an empty array). */
  display(name: string, meta: GlobalMeta | undefined): string {
    const kept = this.values.get(name);
    const m = kept?.meta ?? meta;
    if (!m) return '';
    let v = kept?.value;
    if (v === undefined) {
      if (m.arity > 0) return '';
      v = m.type === 'string' ? '' : m.type === 'stats' ? new Stat() : 0;
    }
    if (m.arity > 0) return autoPrintMap(name, v as StapMap);
    return scalarLine(name, v as Long | string | Stat);
  }
}

// ---------------------------------------------------------------------------------------------
// The session script

export interface AddResult {
  ok: boolean;
  added: number;
  replaced: number;
}

export class ReplSession {
  items: Item[] = [];
  readonly store = new GlobalStore();
  /** Globals of the last successful full compile (types for `globals`). */
  meta = new Map<string, GlobalMeta>();
  private embedSeq = 0;

  constructor(public compiler: Compiler) {}

  private source(it: Item): A.SourceFile {
    return { name: it.origin, text: it.text, isTapset: false };
  }

  /** Parse the session items (errors printed). */
  parseItems(items: Item[], diag: Diagnostics): A.StapFile[] | null {
    const out: A.StapFile[] = [];
    for (const it of items) {
      const f = this.compiler.parseCached(this.source(it), diag);
      if (!f) return null;
      out.push(f);
    }
    return out;
  }

  /** Classify one declaration piece (already known to parse). */
  private classify(text: string, origin: string): Item | null {
    const quiet = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
    const f = this.compiler.parseCached({ name: origin, text, isTapset: false }, quiet);
    if (!f) return null;
    if (f.globals.length) return { kind: 'global', key: `global:${f.globals[0].name}`, text, origin };
    if (f.functions.length) return { kind: 'function', key: `function:${f.functions[0].name}`, text, origin };
    if (f.aliases.length) return { kind: 'alias', key: `alias:${f.aliases[0].names.map(probePoint).join('=')}`, text, origin };
    if (f.probes.length) return { kind: 'probe', key: `probe:${f.probes[0].points.map(probePoint).join(',')}`, text, origin };
    if (f.embeds.length) return { kind: 'embed', key: `embed:${++this.embedSeq}`, text, origin };
    return null;
  }

  /**
   * Turn declaration text into items: the whole text is parsed first (errors are reported
   * against it as typed), then split into one item per declaration / global variable.
   */
  analyze(text: string, origin: string, err: Writer): Item[] | null {
    const diag = this.compiler.diagnostics(err, true);
    const whole = this.compiler.parse({ name: origin, text, isTapset: false }, diag);
    if (!whole) {
      this.compiler.parseFailed(diag, err);
      return null;
    }
    // files using the preprocessor's @define or top-level %( %) stay one item
    if (/@define\b/.test(text) || /^\s*%\(/m.test(text)) {
      return [{ kind: 'file', key: `file:${origin}:${++this.embedSeq}`, text, origin }];
    }
    const items: Item[] = [];
    for (const piece of splitDecls(text)) {
      for (const g of splitGlobals(piece)) {
        const it = this.classify(g, origin);
        if (!it) return [{ kind: 'file', key: `file:${origin}:${++this.embedSeq}`, text, origin }];
        items.push(it);
      }
    }
    return items;
  }

  /** Check a candidate session with passes 1-3 (errors printed); returns the translation. */
  check(items: Item[], err: Writer): Translated | null {
    const diag = this.compiler.diagnostics(err, true);
    const files = this.parseItems(items, diag);
    if (!files) {
      this.compiler.parseFailed(diag, err);
      return null;
    }
    if (!items.some((i) => i.kind === 'probe' || i.kind === 'file')) {
      // globals and functions alone: check them under a probe that never fires
      const f = this.compiler.parse({ name: '<repl>', text: 'probe begin { exit() }', isTapset: false }, diag);
      if (f) files.push(f);
    }
    // the types the globals had so far (runs and evaluations) must still fit
    const hint = typeHints(this);
    if (hint) {
      const h = this.compiler.parse({ name: '<repl>', text: hint, isTapset: false }, diag);
      if (h) files.push(h);
    }
    const r = this.compiler.build(files, diag, err);
    return r?.tr ?? null;
  }

  /** Add declarations; `replace` = typed redefinitions replace (the `add` command appends). */
  add(text: string, origin: string, err: Writer, replace = true): AddResult {
    const fresh = this.analyze(text, origin, err);
    if (!fresh) return { ok: false, added: 0, replaced: 0 };
    const next = [...this.items];
    let replaced = 0;
    let added = 0;
    for (const it of fresh) {
      const at = replace && it.kind !== 'embed' && it.kind !== 'file' ? next.findIndex((x) => x.key === it.key) : -1;
      if (at >= 0) {
        next[at] = it;
        replaced++;
        if (it.kind === 'global') this.forget(it.key.slice('global:'.length)); // a redeclared global starts afresh
      } else {
        next.push(it);
        added++;
      }
    }
    const tr = this.check(next, err);
    if (!tr) return { ok: false, added: 0, replaced: 0 };
    this.items = next;
    this.noteMeta(tr);
    return { ok: true, added, replaced };
  }

  /** Drop a global's value and known type. */
  forget(name: string): void {
    this.store.delete(name);
    this.meta.delete(name);
  }

  noteMeta(tr: Translated): void {
    for (const g of tr.globals) this.meta.set(g.name, g);
  }

  /** `delete` / `delete N` / `delete A-B` (1-based, as `list` numbers them). */
  remove(spec: string): string {
    const t = spec.trim();
    if (t === '') {
      const n = this.items.length;
      this.items = [];
      return `${n} item${n === 1 ? '' : 's'} deleted\n`;
    }
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(t);
    if (!m) return `delete: expected N or A-B, not "${t}"\n`;
    const a = Number(m[1]);
    const b = m[2] !== undefined ? Number(m[2]) : a;
    if (a < 1 || b < a || b > this.items.length) {
      return this.items.length === 0 ? 'delete: the session is empty\n' : `delete: no item ${a > this.items.length ? a : b} (1-${this.items.length})\n`;
    }
    const gone = this.items.splice(a - 1, b - a + 1);
    for (const g of gone) if (g.kind === 'global') this.forget(g.key.slice('global:'.length));
    return gone.map((g) => `deleted ${summary(g)}\n`).join('');
  }

  /** `list`: numbered items, `N: text` (continuation lines indented). */
  list(): string {
    if (this.items.length === 0) return '';
    const w = String(this.items.length).length;
    return this.items.map((it, i) => {
      const [first, ...rest] = it.text.split('\n');
      const pad = ' '.repeat(w + 2);
      return `${String(i + 1).padStart(w)}: ${first}\n` + rest.map((l) => pad + l + '\n').join('');
    }).join('');
  }

  /** The session as one script (what `save` writes). */
  script(): string {
    return this.items.map((it) => it.text + '\n').join('');
  }

  save(file: string): string {
    fs.writeFileSync(file, this.script(), 'latin1');
    return `saved ${this.items.length} item${this.items.length === 1 ? '' : 's'} to ${file}\n`;
  }

  /** `load FILE`: its declarations are added (redefinitions replace). */
  load(file: string, err: Writer): AddResult | null {
    let text: string;
    try {
      if (fs.statSync(file).isDirectory()) {
        err(`Input file '${file}' is a directory.\n`);
        return null;
      }
      text = fs.readFileSync(file, 'latin1');
    } catch {
      err(`Input file '${file}' is missing.\n`);
      return null;
    }
    if (text.trim() === '') {
      err(`Input file '${file}' is empty.\n`);
      return null;
    }
    return this.add(text, file, err);
  }

  /** Names of the session's globals and functions (for completion and command disambiguation). */
  globalNames(): string[] {
    return this.items.filter((i) => i.kind === 'global').map((i) => i.key.slice('global:'.length));
  }

  functionNames(): string[] {
    return this.items.filter((i) => i.kind === 'function').map((i) => i.key.slice('function:'.length));
  }

  /** `globals`: every session global as stap's end-of-run display prints it. */
  globals(): string {
    let s = '';
    for (const name of this.globalNames()) s += this.store.display(name, this.meta.get(name));
    return s;
  }
}

/**
 * A probe that never fires and writes each session global with the type it is known to have
 * (from the last compile or evaluation): programs that do not use a global then still type it.
 */
export function typeHints(session: ReplSession): string {
  const lit = (t: string): string => (t === 'string' ? '""' : '0');
  const stmts: string[] = [];
  for (const name of session.globalNames()) {
    const g = session.meta.get(name);
    if (!g || g.type === 'unknown' || g.indexTypes.some((t) => t !== 'long' && t !== 'string')) continue;
    const target = g.arity > 0 ? `${name}[${g.indexTypes.map(lit).join(', ')}]` : name;
    stmts.push(g.type === 'stats' ? `${target} <<< 0` : `${target} = ${lit(g.type)}`);
  }
  return stmts.length ? `probe never { ${stmts.join('; ')} }` : '';
}

/** One-line description of an item. */
export function summary(it: Item): string {
  const first = it.text.split('\n')[0];
  return first.length > 60 ? first.slice(0, 57) + '...' : first;
}
