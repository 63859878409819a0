/**
 * Pass 3: translate the typed `Program` into JavaScript source text.
 *
 *   translate(program, opts): Translated
 *
 * The result's `source` is the body of a function `(R) => Module` (see src/runtime/engine.ts
 * `loadModule`): it declares the script's globals as closure variables, one JS function per
 * stap function (`f_NAME`) and per derived probe (`p_N`), and returns their table.  It is
 * readable on purpose: `stap -p3` prints it, and every statement carries a `// FILE:LINE`
 * comment pointing back at the .stp source.  Nothing walks the AST at run time.
 *
 * Conventions of the generated code (the runtime object `R` is built by the engine):
 *  - longs are canonical `number | bigint` operated on through src/runtime/int64.ts, or by
 *    plain JS operators where the range analysis (ranges.ts, arith.ts) proves them exact;
 *  - a handler or function whose code gets faster when some long globals/parameters are known
 *    small on entry comes in two versions: `p_N` / `f_NAME` checks those values first (the
 *    `// fast version: ...` comment says which ranges) and otherwise calls the generic
 *    `p_N$generic` / `f_NAME$generic`, compiled for any int64 values;
 *    strings are latin1 JS strings truncated to MAXSTRINGLEN-1 (`T(s)`);
 *  - `c` is the probe context (pp, pn, cpu, task, regex/tokenize state) passed to every
 *    stap function and builtin;
 *  - `act` is the remaining action budget (MAXACTION accounting: each block subtracts its
 *    statement count on entry, each loop test subtracts 1); `depth` the function nesting;
 *  - `L` is the id of the token "near" which a runtime error would be reported (set just
 *    before operations that can fail); functions add their call site while unwinding.
 *
 * Pass-3 errors (`cannot 'break' outside loop`, `cannot print a raw stats object`, ...) are
 * reported through opts.diag as semantic errors, then PassFailed(3) is thrown.
 */
import type * as A from '../ast';
import { strverscmp } from '../parse/preprocess';
import { SemanticError, PassFailed, Diagnostics } from '../diag';
import { parseFormat, FormatConv } from '../runtime/format';
import { compileEre, regexErrorText, rawOfValue } from '../runtime/regex';
import { longestChain } from '../elaborate/callgraph';
import { renderTokenFull, tokenWhere } from './tokens';
import { constValue } from './consts';
import { analyzeHandler, assignBinaryOp, RangeMap, Range, TOP, INT32, SAFE, exact, addR, subR, tracked, within, hasZero } from './ranges';
import { fastBinary, fastUnary, low32Able } from './arith';

export interface TranslateOptions {
  /** Receives pass-3 semantic errors.  Without one, the first error is thrown as SemanticError. */
  diag?: Diagnostics;
  /** `-D NAME[=VALUE]` definitions (limits are fixed at translation, as stap fixes them in C). */
  defines?: Map<string, string>;
  /** `--compatible` version: older semantics where translation differs (@sum of an empty aggregate). */
  compatible?: string;
}

// ---- kernel probe layer hook (added by the probes engineer, issue 6; see src/probes/targets.ts)
/** What the target-expression code generator may use while compiling one expression. */
export interface TargetCodegenApi {
  /** The derived probe being translated (null inside a function body). */
  probe: A.DerivedProbe | null;
  ex(e: A.Expr): string;
  /** Compile an expression into a standalone arrow-function body `(c) => ...` (own temporaries). */
  standalone(e: A.Expr): string;
  loc(tok: A.Token): number;
  builtin(name: string): string;
  /** Hoist `const NAME = js;` to the module head; returns NAME. */
  constant(js: string): string;
  /** Emit a line after the current probe's handler function (e.g. `p_3.entry = ...`). */
  afterProbe(line: string): void;
  /** JS name of the current probe handler (`p_N`), or null inside functions. */
  handlerName: string | null;
  err(msg: string, tok?: A.Token): void;
}
export type TargetCodegen = (e: A.Target | A.Cast | A.AtVar | A.Autocast | A.Entry, api: TargetCodegenApi) => string;
let targetCodegen: TargetCodegen | null = null;
/** Installed by src/probes/setup.ts: compiles `$var`, `@cast`, `@var`, `@entry` and autocasts. */
export function setTargetCodegen(f: TargetCodegen | null): void {
  targetCodegen = f;
}
/** Assignment to a target expression (procfs `$value = ...`): JS, or null when not writable. */
export type TargetAssignCodegen = (e: A.Assign, api: TargetCodegenApi) => string | null;
let targetAssignCodegen: TargetAssignCodegen | null = null;
/** Installed by src/probes/setup.ts (src/probes/procfs.ts). */
export function setTargetAssignCodegen(f: TargetAssignCodegen | null): void {
  targetAssignCodegen = f;
}
// ---- end of hook

export interface Limits {
  /** Effective per-handler statement budget (MAXACTION_INTERRUPTIBLE unless INTERRUPTIBLE=0). */
  maxAction: number;
  maxNesting: number;
  maxStringLen: number;
  maxMapEntries: number;
  maxErrors: number;
  maxSkipped: number;
  histElision: number;
}

export interface ProbeMeta {
  index: number;
  family: string;
  pp: string;
  pn: string;
  data: Record<string, unknown>;
  chain: string[];
  /** `FILE:LINE:COL` of the user's `probe` keyword. */
  where: string;
  /** Name of the handler in the generated module. */
  fn: string;
}

export interface GlobalMeta {
  name: string;
  js: string;
  type: A.Type;
  /** 0 scalar, N array arity */
  arity: number;
  indexTypes: A.Type[];
  /** written but never read in a user file: printed at the end of the run */
  autoPrint: boolean;
  /** -G may set it (scalar long/string) */
  settable: boolean;
  /** histogram descriptors (for module-init checks) */
  hists: { kind: 'log' | 'linear'; params: A.Long[] }[];
}

export interface Translated {
  source: string;
  program: A.Program;
  probes: ProbeMeta[];
  globals: GlobalMeta[];
  /** Rendered "near" tokens; index 0 = no location. */
  locs: string[];
  limits: Limits;
}

// ---------------------------------------------------------------------------------------------

function defineNum(defines: Map<string, string> | undefined, name: string): number | undefined {
  if (!defines || !defines.has(name)) return undefined;
  const v = defines.get(name) ?? '';
  if (v === '') return 1;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

export function computeLimits(program: A.Program, defines?: Map<string, string>): Limits {
  const maxActionBase = defineNum(defines, 'MAXACTION') ?? 1000;
  const interruptible = defineNum(defines, 'INTERRUPTIBLE') ?? 1;
  const maxActionInt = defineNum(defines, 'MAXACTION_INTERRUPTIBLE') ?? maxActionBase * 10;
  return {
    maxAction: interruptible ? maxActionInt : maxActionBase,
    maxNesting: defineNum(defines, 'MAXNESTING') ?? defaultMaxNesting(program),
    maxStringLen: Math.max(2, defineNum(defines, 'MAXSTRINGLEN') ?? 512),
    maxMapEntries: defineNum(defines, 'MAXMAPENTRIES') ?? 2048,
    maxErrors: defineNum(defines, 'MAXERRORS') ?? 0,
    maxSkipped: defineNum(defines, 'MAXSKIPPED') ?? 100,
    histElision: defineNum(defines, 'HIST_ELISION') ?? 2,
  };
}

/** Deepest static call depth + 1, plus 10 if any recursion (spec §9.2). */
export function defaultMaxNesting(program: A.Program): number {
  const callees = new Map<A.FunctionDecl, Set<A.FunctionDecl>>();
  const collect = (root: A.Stmt | A.Expr, into: Set<A.FunctionDecl>) => {
    walk(root, (e) => {
      if (e.k === 'call' && e.ref) {
        for (let f: A.FunctionDecl | undefined = e.ref; f; f = f.nextOverload) into.add(f);
      }
    });
  };
  const fnsOf = (f: A.FunctionDecl): Set<A.FunctionDecl> => {
    let s = callees.get(f);
    if (!s) {
      s = new Set();
      callees.set(f, s);
      if (f.body.k === 'block') collect(f.body, s);
    }
    return s;
  };
  // the call graph may be deeper than the JavaScript stack: walked without recursion
  const memo = new Map<A.FunctionDecl, number>();
  let recursive = false;
  let deepest = 0;
  for (const p of program.probes) {
    const s = new Set<A.FunctionDecl>();
    collect(p.body, s);
    if (p.condition) collect(p.condition, s);
    const r = longestChain(s, fnsOf, memo);
    deepest = Math.max(deepest, r.depth);
    recursive ||= r.recursive;
  }
  return deepest + 1 + (recursive ? 10 : 0);
}

/** Visit every expression below a statement or expression (pre-order). */
export function walk(node: A.Stmt | A.Expr, fe: (e: A.Expr) => void): void {
  const se = (e: A.Expr | null | undefined) => {
    if (!e) return;
    fe(e);
    exprKids(e, se);
  };
  const ss = (s: A.Stmt | undefined) => {
    if (!s) return;
    switch (s.k) {
      case 'block': s.stmts.forEach(ss); return;
      case 'expr': se(s.expr); return;
      case 'if': se(s.cond); ss(s.then); ss(s.else); return;
      case 'while': se(s.cond); ss(s.body); return;
      case 'for': se(s.init); se(s.cond); se(s.incr); ss(s.body); return;
      case 'foreach':
        s.keys.forEach(se); se(s.value); se(s.array);
        if (s.slice) s.slice.forEach(se);
        se(s.limit); ss(s.body);
        return;
      case 'return': se(s.value); return;
      case 'delete': se(s.target); return;
      case 'try': ss(s.body); se(s.catchVar); ss(s.handler); return;
      default: return;
    }
  };
  if (isStmt(node)) ss(node);
  else se(node);
}

const STMT_KINDS = new Set(['block', 'expr', 'if', 'while', 'for', 'foreach', 'return', 'next', 'break', 'continue', 'delete', 'try', 'null']);
function isStmt(n: A.Stmt | A.Expr): n is A.Stmt {
  return STMT_KINDS.has(n.k);
}

function exprKids(e: A.Expr, f: (c: A.Expr | null) => void): void {
  switch (e.k) {
    case 'binary': case 'logical': case 'compare': case 'concat': case 'regex':
      f(e.left); f(e.right); return;
    case 'unary': case 'incdec': case 'statop': case 'hist': case 'entry': case 'defined':
      f(e.operand); return;
    case 'ternary': f(e.cond); f(e.then); f(e.else); return;
    case 'assign': f(e.target); f(e.value); return;
    case 'index': f(e.base); e.indexes.forEach(f); return;
    case 'call': case 'atop': e.args.forEach(f); return;
    case 'print': e.args.forEach(f); if (e.hist) f(e.hist); return;
    case 'in': e.keys.forEach(f); f(e.array); return;
    case 'cast': case 'autocast': f(e.operand); return;
    default: return;
  }
}

// ---------------------------------------------------------------------------------------------
// Source text helpers

/** A JS string literal for a latin1 string (non-printables escaped). */
export function jsStr(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += '\\\\';
    else if (c === 10) out += '\\n';
    else if (c === 9) out += '\\t';
    else if (c === 13) out += '\\r';
    else if (c >= 32 && c < 127) out += s[i];
    else out += '\\x' + c.toString(16).padStart(2, '0');
  }
  return out + '"';
}

function jsLong(v: A.Long): string {
  if (typeof v === 'bigint') return `${v}n`;
  return v < 0 ? `(${v})` : `${v}`;
}

function jsIdent(name: string): string {
  return name.replace(/[^A-Za-z0-9_$]/g, '_');
}

const WHERE = (tok: A.Token) => `${tok.file.name}:${tok.line}`;

// ---------------------------------------------------------------------------------------------

type HistRef = { decl: A.VarDecl; h: number };
type BodyVersion = { cond?: string; lines: string[]; temps: number };
/** A run-time entry assumption of a specialised body: `decl` holds a value in `range`. */
type Guard = { decl: A.VarDecl; range: Range };
/** Entry assumptions tried for a guard, widest first (then int32). */
const GUARD_RANGES: Range[] = [SAFE, ...[50, 44, 36].map((k) => ({ lo: -(2n ** BigInt(k)), hi: 2n ** BigInt(k) }))];
const bitLength = (x: bigint) => x.toString(2).length - 1;

interface FnCtx {
  kind: 'probe' | 'function';
  fn?: A.FunctionDecl;
  loopDepth: number;
  temps: number;
  locals: Map<A.VarDecl, string>;
  /** stap `try` nesting (for temporaries names of catch vars) */
  tryDepth: number;
}

class Translator {
  private lines: string[] = [];
  private errors: SemanticError[] = [];
  private globalNames = new Map<A.VarDecl, string>();
  private fnNames = new Map<A.FunctionDecl, string>();
  private locs: string[] = [''];
  private locIds = new Map<A.Token, number>();
  private consts: string[] = [];
  private regexIds = new Map<string, string>();
  private builtinsUsed = new Set<string>();
  private histSpecs = new Map<A.VarDecl, { kind: 'log' | 'linear'; params: A.Long[] }[]>();
  private varianceShift = new Map<A.VarDecl, number>();
  private usesVariance = new Set<A.VarDecl>();
  private f!: FnCtx;
  private maxStr: number;
  // target codegen hook state (issue 6)
  private curProbe: A.DerivedProbe | null = null;
  private curHandler: string | null = null;
  private afterLines: string[] = [];
  private nConsts = 0;
  /** Ranges of the long expressions of the body being generated (src/translate/ranges.ts). */
  private rm: RangeMap = new Map();
  /** Variable ranges at the end of the last body generated. */
  private exitRanges = new Map<A.VarDecl, Range>();

  constructor(private program: A.Program, private limits: Limits, private defines?: Map<string, string>, private compatible?: string) {
    this.maxStr = limits.maxStringLen - 1;
  }

  err(msg: string, tok?: A.Token): void {
    this.errors.push(new SemanticError(msg, tok));
  }

  loc(tok: A.Token): number {
    let id = this.locIds.get(tok);
    if (id === undefined) {
      id = this.locs.length;
      this.locs.push(renderTokenFull(tok));
      this.locIds.set(tok, id);
    }
    return id;
  }

  // ------------------------------------------------------------------ declarations

  run(): Translated {
    const P = this.program;
    this.scanStats();
    // names
    const used = new Set<string>();
    const uniq = (base: string) => {
      let n = base;
      for (let i = 2; used.has(n); i++) n = `${base}_${i}`;
      used.add(n);
      return n;
    };
    for (const g of P.globals) this.globalNames.set(g, uniq('g_' + jsIdent(g.name)));
    for (const fn of P.functions) this.fnNames.set(fn, uniq('f_' + jsIdent(fn.name)));

    const body: string[] = [];
    const out = (s = '') => body.push(s);

    // globals
    const gmeta: GlobalMeta[] = [];
    if (P.globals.length) out('// ---- globals');
    for (const g of P.globals) {
      const js = this.globalNames.get(g)!;
      const arity = Math.max(0, g.arity ?? 0);
      const type = g.type ?? 'unknown';
      const hists = this.histSpecs.get(g) ?? [];
      const userFile = !!g.file && P.userFiles.includes(g.file);
      const autoPrint = !!g.written && !g.read && !g.synthetic && (g.file ? userFile : true);
      gmeta.push({
        name: g.name, js, type, arity, indexTypes: g.indexTypes ?? [], autoPrint,
        settable: arity === 0 && (type === 'long' || type === 'string'), hists,
      });
      const where = `// ${WHERE(g.tok)}`;
      if (arity > 0) {
        const opts: string[] = [`arity: ${arity}`, `valueType: ${jsStr(type === 'unknown' ? 'long' : type)}`, `name: ${jsStr(g.name)}`,
          `maxMapEntries: R.lim.maxMapEntries`];
        if (g.maxSize !== undefined) opts.push(`size: ${g.maxSize}`);
        if (g.wrap) opts.push('wrap: true');
        if (type === 'stats') opts.push(`stat: ${this.statSpecSrc(g)}`);
        out(`const ${js} = R.newMap({ ${opts.join(', ')} }); ${where}`);
      } else if (type === 'stats') {
        out(`const ${js} = R.newStat(${this.statSpecSrc(g)}); ${where}`);
      } else if (type === 'string') {
        const init = g.init && g.init.k === 'str' ? this.strLit(g.init.value) : '""';
        out(`let ${js} = ${init}; ${where}`);
      } else {
        const init = g.init && g.init.k === 'num' ? jsLong(g.init.value) : '0';
        out(`let ${js} = ${init}; ${where}`);
      }
    }

    // functions
    for (const fn of P.functions) {
      if (fn.body.k !== 'block') continue; // builtins live in the runtime
      out();
      body.push(...this.genFunction(fn));
    }

    // probes
    const pmeta: ProbeMeta[] = [];
    for (const p of P.probes) {
      const name = `p_${p.index}`;
      out();
      body.push(...this.genProbe(p, name));
      pmeta.push({
        index: p.index, family: p.point.family, pp: p.point.pp, pn: p.pn, data: p.point.data,
        chain: p.chain, where: tokenWhere(p.tok), fn: name,
      });
    }

    // module table
    out();
    out('return {');
    out(`  probes: [${pmeta.map((m) => m.fn).join(', ')}],`);
    out('  globals: {');
    for (const g of gmeta) {
      const setter = g.arity === 0 && g.type !== 'stats' ? `, set: (v) => { ${g.js} = v; }` : '';
      out(`    ${jsStr(g.name)}: { get: () => ${g.js}${setter} },`);
    }
    out('  },');
    out('  loc: () => L,');
    out('};');

    const head: string[] = [];
    head.push(`// tapsim pass 3: ${P.probes.length} probe(s), ${P.functions.filter((f) => f.body.k === 'block').length} function(s), ${P.globals.length} global(s)`);
    head.push('"use strict";');
    head.push('const { add, sub, mul, div, mod, neg, bitAnd, bitOr, bitXor, bitNot, shl, shr, ushr } = R.I;');
    head.push('const { shlS, shrS, ushrS } = R; // shifts: a negative count leaves the value unchanged');
    head.push('const { T, out, maxact, nestErr, frame, caught, B, fI, fS, fC, fB, fM, star, LOC } = R;');
    head.push('const MAXACT = R.lim.maxAction, MAXNEST = R.lim.maxNesting, MAXSTR = R.lim.maxStringLen - 1;');
    head.push('let L = 0, act = 0, depth = 0;');
    for (const b of [...this.builtinsUsed].sort()) head.push(`const b_${jsIdent(b)} = B[${jsStr(b)}];`);
    head.push(...this.consts);
    head.push('');

    if (this.errors.length) throw new TranslateErrors(this.errors);
    return { source: head.concat(body).join('\n') + '\n', program: P, probes: pmeta, globals: gmeta, locs: this.locs, limits: this.limits };
  }

  private scanStats(): void {
    const roots: (A.Stmt | A.Expr)[] = [];
    for (const p of this.program.probes) {
      roots.push(p.body);
      if (p.condition) roots.push(p.condition);
    }
    for (const fn of this.program.functions) if (fn.body.k === 'block') roots.push(fn.body);
    for (const r of roots) {
      walk(r, (e) => {
        if (e.k === 'hist') {
          const d = this.statDecl(e.operand);
          if (!d) return;
          const list = this.histSpecs.get(d) ?? [];
          if (!list.some((h) => h.kind === e.kind && sameParams(h.params, e.params))) list.push({ kind: e.kind, params: e.params });
          this.histSpecs.set(d, list);
        } else if (e.k === 'statop' && e.op === 'variance') {
          const d = this.statDecl(e.operand);
          if (!d) return;
          this.usesVariance.add(d);
          if (e.shift !== undefined) this.varianceShift.set(d, e.shift);
        }
      });
    }
    for (const g of this.program.globals) {
      if (g.histograms) {
        const list = this.histSpecs.get(g) ?? [];
        for (const h of g.histograms) if (!list.some((x) => x.kind === h.kind && sameParams(x.params, h.params))) list.push(h);
        this.histSpecs.set(g, list);
      }
      if (g.varianceShift !== undefined && !this.varianceShift.has(g)) this.varianceShift.set(g, g.varianceShift);
    }
  }

  private statDecl(e: A.Expr): A.VarDecl | undefined {
    if (e.k === 'sym') return e.ref;
    if (e.k === 'index' && e.base.k === 'sym') return e.base.ref;
    return undefined;
  }

  private statSpecSrc(g: A.VarDecl): string {
    const hs = (this.histSpecs.get(g) ?? []).map((h) =>
      h.kind === 'log' ? 'R.logHist()' : `R.linearHist(${h.params.map(jsLong).join(', ')})`);
    const parts = [`hists: [${hs.join(', ')}]`];
    if (!this.usesVariance.has(g)) parts.push('variance: false');
    const sh = this.varianceShift.get(g);
    if (sh) parts.push(`varianceShift: ${sh}`);
    return `R.statSpec({ ${parts.join(', ')} })`;
  }

  private histIndex(h: A.Hist): HistRef | undefined {
    const d = this.statDecl(h.operand);
    if (!d) return undefined;
    const list = this.histSpecs.get(d) ?? [];
    const i = list.findIndex((x) => x.kind === h.kind && sameParams(x.params, h.params));
    return i < 0 ? undefined : { decl: d, h: i };
  }

  private strLit(s: string): string {
    return jsStr(s.length > this.maxStr ? s.slice(0, this.maxStr) : s);
  }

  // ------------------------------------------------------------------ functions and probes

  private localName(d: A.VarDecl): string {
    let n = this.f.locals.get(d);
    if (!n) {
      const taken = new Set(this.f.locals.values());
      let base = 'l_' + jsIdent(d.name);
      n = base;
      for (let i = 2; taken.has(n); i++) n = `${base}_${i}`;
      this.f.locals.set(d, n);
    }
    return n;
  }

  private collectLocals(root: A.Stmt, extra: A.VarDecl[] | undefined, params: A.VarDecl[]): A.VarDecl[] {
    const seen = new Set<A.VarDecl>(params);
    const out: A.VarDecl[] = [];
    const add = (d: A.VarDecl | undefined) => {
      if (d && d.kind !== 'global' && !seen.has(d)) {
        seen.add(d);
        out.push(d);
      }
    };
    for (const d of extra ?? []) add(d);
    walk(root, (e) => {
      if (e.k === 'sym') add(e.ref);
    });
    return out;
  }

  private localInit(d: A.VarDecl): string {
    return d.type === 'string' ? '""' : '0';
  }

  private genFunction(fn: A.FunctionDecl): string[] {
    const name = this.fnNames.get(fn)!;
    this.f = { kind: 'function', fn, loopDepth: 0, temps: 0, locals: new Map(), tryDepth: 0 };
    const params = fn.paramDecls ?? [];
    const pnames = params.map((p) => this.localName(p));
    const locals = this.collectLocals(fn.body as A.Block, fn.locals, params);
    for (const d of locals) this.localName(d);
    const v = this.specialise({ body: fn.body as A.Block }, locals, params, '    ');
    const o: string[] = [];
    const sig = `${fn.name}:${fn.type ?? 'unknown'} (${params.map((p) => `${p.name}:${p.type ?? 'unknown'}`).join(', ')})`;
    o.push(`// function ${sig}  ${tokenWhere(fn.tok)}`);
    const args = `c${pnames.map((p) => ', ' + p).join('')}, site`;
    const ret = `return ${fn.type === 'string' ? '""' : '0'};`;
    const one = (fname: string, ver: BodyVersion, guard?: string) => {
      const f = [`function ${fname}(${args}) {`];
      if (guard) f.push(guard);
      f.push('  if (depth >= MAXNEST) nestErr(site);');
      f.push('  depth++;');
      if (locals.length) f.push(`  let ${locals.map((x) => `${this.localName(x)} = ${this.localInit(x)}`).join(', ')};`);
      if (ver.temps) f.push(`  let ${range(ver.temps).map((i) => `t${i}`).join(', ')};`);
      f.push('  try {', ...ver.lines, `    ${ret}`);
      f.push('  } catch (e) {', '    throw frame(e, L, site);', '  } finally {', '    depth--;', '  }', '}');
      return f;
    };
    if (v.fast) {
      o.push(`// fast version: ${this.guardNote(v.guards)}`);
      o.push(...one(name, v.fast, `  if (!(${this.guardSrc(v.guards)})) return ${name}$generic(${args});`));
      o.push(`// generic version of ${name} (any int64 values)`);
      o.push(...one(`${name}$generic`, v.generic));
    } else o.push(...one(name, v.generic));
    return o;
  }

  private genProbe(p: A.DerivedProbe, name: string): string[] {
    this.f = { kind: 'probe', loopDepth: 0, temps: 0, locals: new Map(), tryDepth: 0 };
    this.curProbe = p; this.curHandler = name; this.afterLines = []; // target codegen hook (issue 6)
    const locals = this.collectLocals(p.body, p.locals, []);
    for (const d of locals) this.localName(d);
    const v = this.specialise({ cond: p.condition, body: p.body }, locals, [], '  ');
    const o: string[] = [];
    o.push(`// probe ${p.point.pp}${p.chain.length ? ' /* <- ' + p.chain.join(' <- ') + ' */' : ''}  ${tokenWhere(p.tok)}`);
    const one = (fname: string, ver: BodyVersion, guard?: string) => {
      const f = [`function ${fname}(c) {`];
      if (guard) f.push(guard);
      f.push('  act = MAXACT; depth = 0; L = 0;');
      if (locals.length) f.push(`  let ${locals.map((d) => `${this.localName(d)} = ${this.localInit(d)}`).join(', ')};`);
      if (ver.temps) f.push(`  let ${range(ver.temps).map((i) => `t${i}`).join(', ')};`);
      if (ver.cond) f.push(`  if (${ver.cond} === 0) return; // probe condition`);
      f.push(...ver.lines, '}');
      return f;
    };
    if (v.fast) {
      o.push(`// fast version: ${this.guardNote(v.guards)}`);
      o.push(...one(name, v.fast, `  if (!(${this.guardSrc(v.guards)})) return ${name}$generic(c);`));
      o.push(`// generic version of ${name} (any int64 values)`);
      o.push(...one(`${name}$generic`, v.generic));
    } else o.push(...one(name, v.generic));
    o.push(...this.afterLines); // target codegen hook (issue 6)
    this.curProbe = null; this.curHandler = null; this.afterLines = [];
    return o;
  }

  // ------------------------------------------------------------------ range-specialised bodies

  /** One generated body: probe condition (JS), lines, number of temporaries. */
  private bodyVersion(roots: { cond?: A.Expr; body: A.Block }, init: Map<A.VarDecl, Range>, ind: string): BodyVersion {
    const an = analyzeHandler(roots, init);
    this.rm = an.ranges;
    this.exitRanges = an.exit;
    this.f.temps = 0;
    const cond = roots.cond ? this.ex(roots.cond) : undefined;
    const lines = this.block(roots.body, ind);
    this.rm = new Map();
    return { cond, lines, temps: this.f.temps };
  }

  /**
   * The generic body (locals start at 0, everything else unknown) and, when it saves at
   * least two int64 helper calls, a fast body compiled assuming some long globals/parameters lie in given
   * ranges on entry (`guards`, checked at run time).  The guards are those whose assumption
   * changes the code (each one dropped in turn while the fast code stays the same).  They
   * assume int32 values, except for a global the body may move out of int32 (a growing
   * total): its guard is widened as far as the fast code stays the same, so that the fast
   * version keeps running as long as it can.
   */
  private specialise(roots: { cond?: A.Expr; body: A.Block }, locals: A.VarDecl[], params: A.VarDecl[], ind: string):
    { generic: BodyVersion; fast?: BodyVersion; guards: Guard[] } {
    const base = new Map<A.VarDecl, Range>();
    for (const d of locals) if (tracked(d)) base.set(d, exact(0n));
    const generic = this.bodyVersion(roots, base, ind);
    const cands = this.guardCandidates(roots, params);
    if (!cands || !cands.length || this.errors.length) return { generic, guards: [] };
    const nErr = this.errors.length;
    const assuming = (gs: Guard[]) => {
      const m = new Map(base);
      for (const g of gs) m.set(g.decl, g.range);
      return this.bodyVersion(roots, m, ind);
    };
    const key = (v: BodyVersion) => `${v.cond ?? ''}\n${v.lines.join('\n')}`;
    let guards: Guard[] = cands.map((d) => ({ decl: d, range: INT32 }));
    const fast = assuming(guards);
    const fk = key(fast);
    const exit = this.exitRanges;
    // the guards cost about one helper call: not worth a second version for less than two
    if (helperCalls(key(generic)) - helperCalls(fk) < 2) {
      this.errors.length = nErr; // extra versions report the same errors again
      return { generic, guards: [] };
    }
    if (cands.length <= 12) {
      if (cands.length > 1) {
        for (const d of cands) {
          const fewer = guards.filter((x) => x.decl !== d);
          if (key(assuming(fewer)) === fk) guards = fewer;
        }
      }
      // one guard at a time, each trial with the widenings already accepted: the fast code is
      // proven for the final set of guards as a whole
      for (let i = 0; i < guards.length; i++) {
        const g = guards[i];
        if (g.decl.kind !== 'global' || within(exit.get(g.decl) ?? TOP, INT32)) continue;
        for (const r of GUARD_RANGES) {
          const wider = guards.slice();
          wider[i] = { decl: g.decl, range: r };
          if (key(assuming(wider)) === fk) {
            guards = wider;
            break;
          }
        }
      }
    }
    this.errors.length = nErr;
    return { generic, fast, guards };
  }

  /**
   * Long scalar globals and long parameters a body reads (first-use order), or null when the
   * body must be generated once only (target expressions register per-compile state).
   */
  private guardCandidates(roots: { cond?: A.Expr; body: A.Block }, params: A.VarDecl[]): A.VarDecl[] | null {
    const out: A.VarDecl[] = [];
    let once = false;
    const visit = (e: A.Expr) => {
      if (e.k === 'target' || e.k === 'cast' || e.k === 'atvar' || e.k === 'autocast' || e.k === 'entry') once = true;
      if (e.k === 'sym' && tracked(e.ref) && (e.ref.kind === 'global' || params.includes(e.ref)) && !out.includes(e.ref)) out.push(e.ref);
    };
    if (roots.cond) walk(roots.cond, visit);
    walk(roots.body, visit);
    return once ? null : out;
  }

  private guardSrc(gs: Guard[]): string {
    return gs.map((g) => {
      const x = g.decl.kind === 'global' ? this.globalNames.get(g.decl)! : this.localName(g.decl);
      const t = `typeof ${x} === "number"`;
      return g.range === SAFE ? t : `${t} && ${x} >= ${g.range.lo} && ${x} <= ${g.range.hi}`;
    }).join(' && ');
  }

  private guardNote(gs: Guard[]): string {
    const say = (r: Range) => (r === SAFE ? 'a number (safe integer)' : r === INT32 ? 'int32' : `within +-2^${bitLength(r.hi)}`);
    return `when on entry ${gs.map((g) => `${g.decl.name} is ${say(g.range)}`).join(', ')} (plain JS arithmetic where proven exact), else the generic version`;
  }

  // ------------------------------------------------------------------ statements

  /** Number of actions a statement costs on entry to its enclosing block (spec §9.2). */
  private cost(s: A.Stmt): number {
    switch (s.k) {
      case 'block': case 'null': case 'try':
        return 0;
      case 'for':
        return s.init ? 2 : 1;
      default:
        return 1;
    }
  }

  private block(b: A.Block, ind: string): string[] {
    return this.seq(b.stmts, ind, b.tok);
  }

  private seq(stmts: A.Stmt[], ind: string, tok: A.Token, extraCost = 0): string[] {
    const o: string[] = [];
    let n = extraCost;
    for (const s of stmts) n += this.cost(s);
    if (n > 0) o.push(`${ind}if ((act -= ${n}) <= 0) maxact(${this.loc(stmts[0]?.tok ?? tok)});`);
    for (const s of stmts) o.push(...this.stmt(s, ind));
    return o;
  }

  /** A statement in a position that is not a block (if/loop body): counted separately. */
  private sub(s: A.Stmt, ind: string): string[] {
    if (s.k === 'block') return this.block(s, ind);
    return this.seq([s], ind, s.tok);
  }

  private stmt(s: A.Stmt, ind: string): string[] {
    const c = ` // ${WHERE(s.tok)}`;
    switch (s.k) {
      case 'null':
        return [];
      case 'block':
        return [`${ind}{`, ...this.block(s, ind + '  '), `${ind}}`];
      case 'expr':
        return [`${ind}${this.exStmt(s.expr)};${c}`];
      case 'if': {
        const o = [`${ind}if (${this.cond(s.cond)}) {${c}`, ...this.sub(s.then, ind + '  ')];
        if (s.else) {
          if (s.else.k === 'if') {
            o.push(`${ind}} else {`, ...this.seq([s.else], ind + '  ', s.else.tok), `${ind}}`);
          } else o.push(`${ind}} else {`, ...this.sub(s.else, ind + '  '), `${ind}}`);
        } else o.push(`${ind}}`);
        return o;
      }
      case 'while': {
        this.f.loopDepth++;
        const body = this.sub(s.body, ind + '  ');
        this.f.loopDepth--;
        return [
          `${ind}for (;;) {${c}`,
          `${ind}  if (--act <= 0) maxact(${this.loc(s.tok)});`,
          `${ind}  if (!(${this.cond(s.cond)})) break;`,
          ...body,
          `${ind}}`,
        ];
      }
      case 'for': {
        const init = s.init ? this.exStmt(s.init) : '';
        const incr = s.incr ? this.exStmt(s.incr) : '';
        this.f.loopDepth++;
        const body = this.sub(s.body, ind + '  ');
        this.f.loopDepth--;
        const o = [`${ind}for (${init}; ; ${incr}) {${c}`, `${ind}  if (--act <= 0) maxact(${this.loc(s.tok)});`];
        if (s.cond) o.push(`${ind}  if (!(${this.cond(s.cond)})) break;`);
        o.push(...body, `${ind}}`);
        return o;
      }
      case 'foreach':
        return this.foreach(s, ind);
      case 'return': {
        if (this.f.kind !== 'function') {
          this.err("found 'return' not in function context", s.tok);
          return [];
        }
        if (!s.value) return [`${ind}return ${this.f.fn?.type === 'string' ? '""' : '0'};${c}`];
        return [`${ind}return ${this.ex(s.value)};${c}`];
      }
      case 'next': {
        if (this.f.kind === 'probe') return [`${ind}return;${c}`];
        const fn = this.f.fn!;
        const params = (fn.paramDecls ?? []).map((p) => this.localName(p));
        if (fn.nextOverload && fn.nextOverload.body.k === 'block') {
          return [`${ind}return ${this.fnNames.get(fn.nextOverload)}(c${params.map((p) => ', ' + p).join('')}, site);${c}`];
        }
        if (fn.nextOverload && fn.nextOverload.builtin) {
          const b = this.useBuiltin(fn.nextOverload.builtin);
          return [`${ind}return ${b}(c${params.map((p) => ', ' + p).join('')});${c}`];
        }
        return [`${ind}L = ${this.loc(s.tok)}; R.exhausted();${c}`];
      }
      case 'break':
      case 'continue':
        if (this.f.loopDepth === 0) {
          this.err(`cannot '${s.k}' outside loop`, s.tok);
          return [];
        }
        return [`${ind}${s.k};${c}`];
      case 'delete':
        return [`${ind}${this.del(s)};${c}`];
      case 'try': {
        const o = [`${ind}try {${c}`, ...this.block(s.body, ind + '  ')];
        const ev = `e${this.f.tryDepth}`;
        this.f.tryDepth++;
        o.push(`${ind}} catch (${ev}) {`);
        const msg = `caught(${ev})`;
        if (s.catchVar && s.catchVar.ref) o.push(`${ind}  ${this.localName(s.catchVar.ref)} = ${msg};`);
        else o.push(`${ind}  ${msg};`);
        o.push(...this.seq(s.handler.stmts, ind + '  ', s.handler.tok, 1));
        this.f.tryDepth--;
        o.push(`${ind}}`);
        return o;
      }
    }
  }

  private foreach(s: A.Foreach, ind: string): string[] {
    const c = ` // ${WHERE(s.tok)}`;
    const o: string[] = [];
    const it = `it${this.f.loopDepth}`;
    const ix = `i${this.f.loopDepth}`;
    const keyVars = s.keys.map((k) => (k.ref ? this.symLhs(k) : undefined));
    const valVar = s.value && s.value.ref ? this.symLhs(s.value) : undefined;
    if (s.array.k === 'hist') {
      const hr = this.histIndex(s.array);
      if (!hr) {
        this.err('Invalid indexing of histogram', s.array.tok);
        return [];
      }
      const stat = this.statExpr(s.array.operand);
      o.push(`${ind}{${c}`);
      o.push(`${ind}  const st = ${stat};`);
      o.push(`${ind}  L = ${this.loc(s.array.tok)};`);
      o.push(`${ind}  let ${it} = st.histIndices(${hr.h});`);
      if (s.sortDirection !== undefined) {
        if (s.sortColumn === 0) o.push(`${ind}  { const hc = st.histCounts(${hr.h}); ${it} = ${it}.slice().sort((a, b) => ${s.sortDirection} * (hc[a] - hc[b])); }`);
        else if (s.sortDirection < 0) o.push(`${ind}  ${it}.reverse();`);
      }
      if (s.limit) o.push(`${ind}  { const lim = ${this.ex(s.limit)}; if (lim < ${it}.length) ${it}.length = lim <= 0 ? 0 : Number(lim); }`);
      if (valVar) o.push(`${ind}  const hc = st.histCounts(${hr.h});`);
      this.f.loopDepth++;
      const body = this.sub(s.body, ind + '    ');
      this.f.loopDepth--;
      o.push(`${ind}  for (let ${ix} = 0; ; ${ix}++) {`);
      o.push(`${ind}    if (--act <= 0) maxact(${this.loc(s.tok)});`);
      o.push(`${ind}    if (${ix} >= ${it}.length) break;`);
      if (keyVars[0]) o.push(`${ind}    ${keyVars[0]} = ${it}[${ix}];`);
      if (valVar) o.push(`${ind}    ${valVar} = hc[${it}[${ix}]];`);
      o.push(...body, `${ind}  }`, `${ind}}`);
      return o;
    }
    const decl = s.array.ref;
    if (!decl || decl.kind !== 'global') {
      this.err('unresolved array in foreach', s.array.tok);
      return [];
    }
    const m = this.globalNames.get(decl)!;
    const arity = Math.max(1, decl.arity ?? s.keys.length);
    const spec: string[] = [];
    if (s.sortDirection !== undefined) {
      spec.push(`by: ${s.sortColumn ?? 0}`);
      if (s.sortDirection < 0) spec.push('desc: true');
      if (s.sortAggregate && s.sortAggregate !== 'count') {
        if (s.sortAggregate === 'variance') spec.push(`statOp: "count"`);
        else spec.push(`statOp: ${jsStr(s.sortAggregate)}`);
      }
    }
    o.push(`${ind}{${c}`);
    if (s.slice) {
      o.push(`${ind}  const slice = [${s.slice.map((x) => (x ? this.ex(x) : 'null')).join(', ')}];`);
      spec.push('slice');
    }
    if (s.limit) {
      o.push(`${ind}  const limit = ${this.ex(s.limit)};`);
      spec.push('limit');
    }
    const specSrc = spec.length ? `{ ${spec.join(', ')} }` : '';
    const simple = arity === 1 && !valVar;
    o.push(`${ind}  const ${it} = ${m}.${simple ? 'keys1' : 'entries'}(${specSrc});`);
    this.f.loopDepth++;
    const body = this.sub(s.body, ind + '    ');
    this.f.loopDepth--;
    o.push(`${ind}  for (let ${ix} = 0; ; ${ix}++) {`);
    o.push(`${ind}    if (--act <= 0) maxact(${this.loc(s.tok)});`);
    o.push(`${ind}    if (${ix} >= ${it}.length) break;`);
    if (simple) {
      if (keyVars[0]) o.push(`${ind}    ${keyVars[0]} = ${it}[${ix}];`);
    } else {
      o.push(`${ind}    const en = ${it}[${ix}];`);
      keyVars.forEach((kv, i) => {
        if (kv) o.push(`${ind}    ${kv} = en.keys[${i}];`);
      });
      if (valVar) o.push(`${ind}    ${valVar} = en.v;`);
    }
    o.push(...body, `${ind}  }`, `${ind}}`);
    return o;
  }

  private del(s: A.Delete): string {
    const t = s.target;
    if (t.k === 'sym') {
      const d = t.ref;
      if (!d) {
        this.err('unresolved array in delete statement', t.tok);
        return '0';
      }
      if (d.kind === 'global' && (d.arity ?? 0) > 0) return `${this.globalNames.get(d)}.clear()`;
      if (d.type === 'stats') return `${this.symRead(t)}.clear()`;
      return `${this.symLhs(t)} = ${d.type === 'string' ? '""' : '0'}`;
    }
    if (t.k === 'index' && t.base.k === 'sym') {
      const d = t.base.ref;
      if (!d || d.kind !== 'global') {
        this.err('unresolved array in delete statement', t.tok);
        return '0';
      }
      const m = this.globalNames.get(d)!;
      if (t.indexes.some((x) => x === null)) return `${m}.deleteSlice([${t.indexes.map((x) => (x ? this.ex(x) : 'null')).join(', ')}])`;
      if (t.indexes.length === 1) return `${m}.delete(${this.ex(t.indexes[0]!)})`;
      return `${m}.deleteN([${t.indexes.map((x) => this.ex(x!)).join(', ')}])`;
    }
    this.err('unresolved array in delete statement', t.tok);
    return '0';
  }

  // ------------------------------------------------------------------ expressions

  private temp(): string {
    return `t${this.f.temps++}`;
  }

  private cond(e: A.Expr): string {
    return `${this.ex(e)} !== 0`;
  }

  /** An expression evaluated for effect (statement position): avoids computing unused results. */
  private exStmt(e: A.Expr): string {
    if (e.k === 'assign' && e.op === '<<<') return this.statAdd(e, false);
    if (e.k === 'incdec') return this.incdec(e, true);
    if (e.k === 'assign' && (e.op === '+=' || e.op === '-=') && e.target.k === 'index') return this.assign(e);
    return this.ex(e);
  }

  /** Can evaluating this expression run user code or throw (so L must be set after it)? */
  private mayThrow(e: A.Expr | null): boolean {
    if (!e) return false;
    let r = false;
    walk(e, (x) => {
      if (x.k === 'call' || x.k === 'print' || x.k === 'statop' || x.k === 'hist' || x.k === 'regex' ||
        (x.k === 'binary' && (x.op === '/' || x.op === '%') && hasZero(this.rng(x.right))) || (x.k === 'index' && x.base.k === 'hist') ||
        (x.k === 'assign') || x.k === 'incdec') r = true;
    });
    return r;
  }

  /** `(L = id, op(args))` with args evaluated before L is set when they could move it. */
  private located(tok: A.Token, args: A.Expr[], mk: (a: string[]) => string): string {
    const id = this.loc(tok);
    if (!args.some((a) => this.mayThrow(a))) return `(L = ${id}, ${mk(args.map((a) => this.ex(a)))})`;
    const ts = args.map(() => this.temp());
    return `(${args.map((a, i) => `${ts[i]} = ${this.ex(a)}`).join(', ')}, L = ${id}, ${mk(ts)})`;
  }

  ex(e: A.Expr): string {
    switch (e.k) {
      case 'num':
        return jsLong(e.value);
      case 'str':
        return this.strLit(e.value);
      case 'binary':
        return this.binary(e);
      case 'logical':
        return e.op === '&&'
          ? `(${this.cond(e.left)} && ${this.cond(e.right)} ? 1 : 0)`
          : `(${this.cond(e.left)} || ${this.cond(e.right)} ? 1 : 0)`;
      case 'compare': {
        const op = e.op === '==' ? '===' : e.op === '!=' ? '!==' : e.op;
        return `(${this.ex(e.left)} ${op} ${this.ex(e.right)} ? 1 : 0)`;
      }
      case 'concat':
        return `T(${this.ex(e.left)} + ${this.ex(e.right)})`;
      case 'regex': {
        const re = this.regex(e.right.raw ?? rawOfValue(e.right.value), e.right.tok);
        const m = `R.ereMatch(${re}, ${this.ex(e.left)}, c)`;
        return e.op === '=~' ? m : `(1 - ${m})`;
      }
      case 'unary': {
        const fast = e.op === '-' || e.op === '~' ? fastUnary(e.op, this.rng(e.operand), this.rng(e)) : null;
        const v = this.ex(e.operand);
        if (fast) return fast(v);
        switch (e.op) {
          case '-': return `neg(${v})`;
          case '+': return v;
          case '!': return `(${v} === 0 ? 1 : 0)`;
          case '~': return `bitNot(${v})`;
        }
        break;
      }
      case 'incdec':
        return this.incdec(e, false);
      case 'ternary':
        return `(${this.cond(e.cond)} ? ${this.ex(e.then)} : ${this.ex(e.else)})`;
      case 'assign':
        if (e.op === '<<<') return this.statAdd(e, true);
        return this.assign(e);
      case 'sym':
        if (e.type === 'stats' || (e.ref && e.ref.type === 'stats')) {
          this.err('cannot print a raw stats object', e.tok);
          return '0';
        }
        return this.symRead(e);
      case 'index':
        return this.indexRead(e);
      case 'call':
        return this.call(e);
      case 'print':
        return this.print(e);
      case 'statop':
        return this.statop(e);
      case 'hist':
        this.err('base histogram operator where expression expected', e.tok);
        return '0';
      case 'in': {
        const d = e.array.ref;
        if (!d || d.kind !== 'global') {
          this.err('unresolved array in in-expression', e.array.tok);
          return '0';
        }
        const m = this.globalNames.get(d)!;
        if (e.keys.some((k) => k === null)) return `(${m}.hasSlice([${e.keys.map((k) => (k ? this.ex(k) : 'null')).join(', ')}]) ? 1 : 0)`;
        if (e.keys.length === 1) return `(${m}.has(${this.ex(e.keys[0]!)}) ? 1 : 0)`;
        return `(${m}.hasN([${e.keys.map((k) => this.ex(k!)).join(', ')}]) ? 1 : 0)`;
      }
      case 'defined':
        return '0';
      case 'entry':
      case 'target':
      case 'cast':
      case 'autocast':
      case 'atvar':
        // kernel probe layer hook (issue 6): src/probes/targets.ts compiles these
        if (targetCodegen) return targetCodegen(e, this.targetApi());
        if (e.k === 'entry') this.err('internal error: @entry is only valid in .return probes', e.tok);
        else if (e.k === 'atvar') this.err('unresolved @var() expression', e.tok);
        else if (e.k === 'target') this.err('unresolved target-symbol expression', e.tok);
        else this.err('type definition not available for @cast in this runtime', e.tok);
        return '0';
      case 'atop':
        if (e.name === '@const') {
          const a = e.args[0];
          const v = a?.k === 'str' && e.args.length === 1 ? constValue(a.value, this.defines) : null;
          if (v !== null) return jsLong(v);
          this.err(a?.k === 'str' ? `@const("${a.value}"): constant not known to this kernel` : 'expected literal string', e.tok);
          return '0';
        }
        if ((e.name === '@kderef' || e.name === '@uderef') && e.args.length === 2) {
          // raw memory reads of 1, 2, 4 or 8 bytes (guru; loc2c's kderef/uderef)
          const size = e.args[0].k === 'num' ? Number(e.args[0].value) : 0;
          if (![1, 2, 4, 8].includes(size)) {
            this.err(`${e.name} size must be 1, 2, 4 or 8`, e.args[0].tok);
            return '0';
          }
          const b = this.useBuiltin(e.name === '@kderef' ? '__kderef' : '__uderef');
          return this.located(e.tok, [e.args[1]], (a) => `${b}(c, ${size}, ${a[0]})`);
        }
        this.err(`unsupported operator ${e.name} in this runtime`, e.tok);
        return '0';
      case 'embedded':
        this.err('embedded expression code is not executable in this runtime', e.tok);
        return '0';
    }
    this.err('internal error: unhandled expression', (e as A.Expr).tok);
    return '0';
  }

  private binary(e: A.Binary): string {
    const fn: Record<A.BinaryOp, string> = {
      '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'mod', '&': 'bitAnd', '|': 'bitOr', '^': 'bitXor',
      '<<': 'shlS', '>>': 'shrS', '>>>': 'ushrS',
    };
    const f = fn[e.op];
    const ra = this.rng(e.left);
    const rb = this.rng(e.right);
    if (e.op === '&') {
      // a 31-bit mask: only the low 32 bits of the other operand matter
      const rangeOf = (x: A.Expr) => this.rng(x);
      if ((within31(rb) && low32Able(e.left, rangeOf)) || (within31(ra) && low32Able(e.right, rangeOf))) {
        return `(${this.low32(e.left)} & ${this.low32(e.right)})`;
      }
    }
    const fast = fastBinary(e.op, ra, rb, this.rng(e));
    if (fast) return fast(this.ex(e.left), this.ex(e.right));
    if ((e.op === '/' || e.op === '%') && hasZero(rb)) return this.located(e.tok, [e.left, e.right], (a) => `${f}(${a[0]}, ${a[1]})`);
    return `${f}(${this.ex(e.left)}, ${this.ex(e.right)})`; // (a nonzero divisor cannot fail: no location)
  }

  private rng(e: A.Expr): Range {
    return this.rm.get(e) ?? TOP;
  }

  /** JS int32 code for `e` whose low 32 bits are right (see arith.ts low32Able). */
  private low32(e: A.Expr): string {
    const rangeOf = (x: A.Expr) => this.rng(x);
    if (e.k === 'binary' && (e.op === '&' || e.op === '|' || e.op === '^') && low32Able(e.left, rangeOf) && low32Able(e.right, rangeOf)) {
      return `(${this.low32(e.left)} ${e.op} ${this.low32(e.right)})`;
    }
    if (e.k === 'unary' && e.op === '~' && low32Able(e.operand, rangeOf)) return `(~${this.low32(e.operand)})`;
    return this.ex(e); // a safe integer (a JS number)
  }

  private regex(pat: string, tok: A.Token): string {
    let id = this.regexIds.get(pat);
    if (!id) {
      const r = compileEre(pat);
      if ('error' in r) this.err(regexErrorText(r), tok);
      id = `RE${this.regexIds.size}`;
      this.regexIds.set(pat, id);
      this.consts.push(`const ${id} = R.ere(${jsStr(pat)});`);
    }
    return id;
  }

  private symLhs(s: A.Sym): string {
    const d = s.ref;
    if (!d) {
      this.err(`unresolved symbol '${s.name}'`, s.tok);
      return 'undefined';
    }
    if (d.kind === 'global') return this.globalNames.get(d)!;
    return this.localName(d);
  }

  private symRead(s: A.Sym): string {
    return this.symLhs(s);
  }

  private isArrayDecl(d: A.VarDecl | undefined): boolean {
    return !!d && d.kind === 'global' && (d.arity ?? 0) > 0;
  }

  private keysSrc(idx: (A.Expr | null)[], tok: A.Token): string[] {
    return idx.map((x) => {
      if (!x) {
        this.err('wildcard not allowed in array index', tok);
        return '0';
      }
      return this.ex(x);
    });
  }

  private indexRead(e: A.Index): string {
    if (e.base.k === 'hist') {
      const hr = this.histIndex(e.base);
      if (!hr || e.indexes.length !== 1 || !e.indexes[0]) {
        this.err('Invalid indexing of histogram', e.tok);
        return '0';
      }
      const stat = this.statExpr(e.base.operand);
      return this.located(e.base.tok, [e.indexes[0]], (a) => `${stat}.histBucket(${hr.h}, ${a[0]})`);
    }
    const d = e.base.ref;
    if (!this.isArrayDecl(d)) {
      this.err(`unresolved arity-${e.indexes.length} global array ${e.base.name}, missing global declaration?`, e.base.tok);
      return '0';
    }
    if (d!.type === 'stats') {
      this.err('cannot print a raw stats object', e.tok);
      return '0';
    }
    const m = this.globalNames.get(d!)!;
    const ks = this.keysSrc(e.indexes, e.tok);
    return ks.length === 1 ? `${m}.get(${ks[0]})` : `${m}.getN([${ks.join(', ')}])`;
  }

  /** Stat object for an operand of @count/@hist (global scalar or array element). */
  private statExpr(e: A.Expr): string {
    if (e.k === 'sym' && e.ref) return this.symLhs(e);
    if (e.k === 'index' && e.base.k === 'sym' && this.isArrayDecl(e.base.ref)) {
      const m = this.globalNames.get(e.base.ref!)!;
      const ks = this.keysSrc(e.indexes, e.tok);
      return ks.length === 1 ? `${m}.get(${ks[0]})` : `${m}.getN([${ks.join(', ')}])`;
    }
    this.err('expected a statistics variable', e.tok);
    return 'R.EMPTY_STAT';
  }

  private statop(e: A.StatOp): string {
    const s = this.statExpr(e.operand);
    const method = e.op === 'variance' ? 'variance' : e.op;
    // before 1.5, stap's @sum of an empty aggregate was an error like @min's (PR10822 made it 0)
    if (e.op === 'sum' && this.compatible !== undefined && strverscmp(this.compatible, '1.5') < 0) return `(L = ${this.loc(e.tok)}, ${s}.sumNonEmpty())`;
    if (e.op === 'count' || e.op === 'sum') return `${s}.${method}()`;
    return `(L = ${this.loc(e.tok)}, ${s}.${method}())`;
  }

  private statAdd(e: A.Assign, wantValue: boolean): string {
    const t = e.target;
    const cpu = 'c.cpu';
    if (t.k === 'sym' && t.ref) {
      const g = this.symLhs(t);
      if (!wantValue) return `${g}.add(${this.ex(e.value)}, ${cpu})`;
      const v = this.temp();
      return `(${v} = ${this.ex(e.value)}, ${g}.add(${v}, ${cpu}), ${v})`;
    }
    if (t.k === 'index' && t.base.k === 'sym' && this.isArrayDecl(t.base.ref)) {
      const m = this.globalNames.get(t.base.ref!)!;
      const args = [...t.indexes.map((x) => x!), e.value];
      const r = this.located(t.base.tok, args, (a) => {
        const v = a[a.length - 1];
        const ks = a.slice(0, -1);
        return ks.length === 1 ? `${m}.stat(${ks[0]}, ${v}, ${cpu})` : `${m}.statN([${ks.join(', ')}], ${v}, ${cpu})`;
      });
      if (!wantValue) return r;
      const v = this.temp();
      // re-evaluate value into a temp first to return it
      const ks = t.indexes.map((x) => this.ex(x!));
      return `(${v} = ${this.ex(e.value)}, L = ${this.loc(t.base.tok)}, ${ks.length === 1 ? `${m}.stat(${ks[0]}, ${v}, ${cpu})` : `${m}.statN([${ks.join(', ')}], ${v}, ${cpu})`}, ${v})`;
    }
    this.err('stat locals not supported, missing global declaration? ', t.tok);
    return '0';
  }

  private opFn(op: A.AssignOp): string | undefined {
    const m: Partial<Record<A.AssignOp, string>> = {
      '+=': 'add', '-=': 'sub', '*=': 'mul', '/=': 'div', '%=': 'mod', '<<=': 'shlS', '>>=': 'shrS',
      '&=': 'bitAnd', '^=': 'bitXor', '|=': 'bitOr',
    };
    return m[op];
  }

  private assign(e: A.Assign): string {
    const t = e.target;
    const fn = this.opFn(e.op);
    const isDiv = e.op === '/=' || e.op === '%=';
    if (t.k === 'sym') {
      const d = t.ref;
      if (d && d.type === 'stats') {
        this.err('type mismatch: stats variable assigned', t.tok);
        return '0';
      }
      const x = this.symLhs(t);
      if (e.op === '=') return `(${x} = ${this.ex(e.value)})`;
      if (e.op === '.=') return `(${x} = T(${x} + ${this.ex(e.value)}))`;
      const bop = assignBinaryOp(e.op);
      const fast = bop && fastBinary(bop, this.rng(t), this.rng(e.value), this.rng(e));
      if (fast) {
        if (!isDiv || !this.mayThrow(e.value)) return `(${x} = ${fast(x, this.ex(e.value))})`;
        // `/=` `%=` read the target after the value (as the helper form below does)
        const v = this.temp();
        return `(${v} = ${this.ex(e.value)}, ${x} = ${fast(x, v)})`;
      }
      if (isDiv) {
        const v = this.temp();
        return `(${v} = ${this.ex(e.value)}, L = ${this.loc(e.tok)}, ${x} = ${fn}(${x}, ${v}))`;
      }
      return `(${x} = ${fn}(${x}, ${this.ex(e.value)}))`;
    }
    if (t.k === 'index' && t.base.k === 'sym' && this.isArrayDecl(t.base.ref)) {
      const d = t.base.ref!;
      const m = this.globalNames.get(d)!;
      const idx = t.indexes.map((x) => {
        if (!x) this.err('wildcard not allowed in array index', t.tok);
        return x ?? ({ k: 'num', value: 0, tok: t.tok } as A.NumberLit);
      });
      const one = idx.length === 1;
      const sym = t.base.tok;
      if (e.op === '=') {
        return this.located(sym, [...idx, e.value], (a) => {
          const v = a[a.length - 1];
          const ks = a.slice(0, -1);
          return one ? `${m}.set(${ks[0]}, ${v})` : `${m}.setN([${ks.join(', ')}], ${v})`;
        });
      }
      if ((e.op === '+=' || e.op === '-=') && d.type !== 'string') {
        return this.located(sym, [...idx, e.value], (a) => {
          let v = a[a.length - 1];
          if (e.op === '-=') v = `neg(${v})`;
          const ks = a.slice(0, -1);
          return one ? `${m}.addLong(${ks[0]}, ${v})` : `${m}.addLongN([${ks.join(', ')}], ${v})`;
        });
      }
      // general read-modify-write
      const kt = idx.map(() => this.temp());
      const vt = this.temp();
      const key = one ? kt[0] : `[${kt.join(', ')}]`;
      const kk = one ? this.temp() : this.temp();
      const get = one ? `${m}.get(${kk})` : `${m}.getN(${kk})`;
      const newv = e.op === '.=' ? `T(${get} + ${vt})` : `${fn}(${get}, ${vt})`;
      const set = one ? `${m}.set(${kk}, ${newv})` : `${m}.setN(${kk}, ${newv})`;
      return `(${idx.map((x, i) => `${kt[i]} = ${this.ex(x)}`).join(', ')}, ${kk} = ${key}, ${vt} = ${this.ex(e.value)}, L = ${this.loc(isDiv ? e.tok : sym)}, ${set})`;
    }
    if (t.k === 'index' && t.base.k === 'sym') {
      this.err(`unresolved arity-${t.indexes.length} global array ${t.base.name}, missing global declaration?`, t.base.tok);
      return '0';
    }
    if (t.k === 'target' && targetAssignCodegen) {
      const js = targetAssignCodegen(e, this.targetApi());
      if (js !== null) return js;
    }
    this.err('assignment to a non-lvalue', t.tok);
    return '0';
  }

  private incdec(e: A.IncDec, discard: boolean): string {
    const t = e.operand;
    const d = e.op === '++' ? 1 : -1;
    const back = e.op === '++' ? 'sub' : 'add';
    if (t.k === 'sym') {
      const x = this.symLhs(t);
      const old = this.rng(t);
      const nw = e.op === '++' ? addR(old, exact(1n)) : subR(old, exact(1n));
      if (tracked(t.ref) && withinSafe(old) && withinSafe(nw)) {
        // plain JS: both the old and the new value are safe integers
        const upd = `${x} = ${x} ${e.op === '++' ? '+' : '-'} 1`;
        if (discard || e.prefix) return `(${upd})`;
        return `(${upd}, ${x} ${e.op === '++' ? '-' : '+'} 1)`;
      }
      const upd = `${x} = ${e.op === '++' ? 'add' : 'sub'}(${x}, 1)`;
      if (discard || e.prefix) return `(${upd})`;
      return `(${upd}, ${back}(${x}, 1))`;
    }
    if (t.k === 'index' && t.base.k === 'sym' && this.isArrayDecl(t.base.ref)) {
      const m = this.globalNames.get(t.base.ref!)!;
      const idx = t.indexes.map((x) => x ?? ({ k: 'num', value: 0, tok: t.tok } as A.NumberLit));
      const r = this.located(t.base.tok, idx, (ks) =>
        ks.length === 1 ? `${m}.addLong(${ks[0]}, ${d})` : `${m}.addLongN([${ks.join(', ')}], ${d})`);
      if (discard || e.prefix) return r;
      return `${back}(${r}, 1)`;
    }
    this.err('operand of ++/-- must be an lvalue', t.tok);
    return '0';
  }

  /** The API handed to the target codegen hook (issue 6). */
  private targetApi(): TargetCodegenApi {
    return {
      probe: this.f.kind === 'probe' ? this.curProbe : null,
      ex: (x) => this.ex(x),
      standalone: (x) => {
        const saved = this.f.temps;
        this.f.temps = 0;
        const code = this.ex(x);
        const n = this.f.temps;
        this.f.temps = saved;
        const decl = n ? `let ${range(n).map((i) => `t${i}`).join(', ')}; ` : '';
        return `(c) => { ${decl}return ${code}; }`;
      },
      loc: (tok) => this.loc(tok),
      builtin: (name) => this.useBuiltin(name),
      constant: (js) => {
        const name = `K_${this.nConsts++}`;
        this.consts.push(`const ${name} = ${js};`);
        return name;
      },
      afterProbe: (line) => this.afterLines.push(line),
      handlerName: this.f.kind === 'probe' ? this.curHandler : null,
      err: (msg, tok) => this.err(msg, tok),
    };
  }

  private useBuiltin(name: string): string {
    this.builtinsUsed.add(name);
    return `b_${jsIdent(name)}`;
  }

  private call(e: A.Call): string {
    const fn = e.ref;
    if (!fn) {
      this.err(`unresolved function ${e.name}`, e.tok);
      return '0';
    }
    if (fn.body.k !== 'block') {
      const name = fn.builtin ?? fn.name;
      const b = this.useBuiltin(name);
      return this.located(e.tok, e.args, (a) => `${b}(c${a.map((x) => ', ' + x).join('')})`);
    }
    const name = this.fnNames.get(fn)!;
    return `${name}(c${e.args.map((a) => ', ' + this.ex(a)).join('')}, ${this.loc(e.tok)})`;
  }

  // ------------------------------------------------------------------ printing

  private printArg(a: A.Expr): string {
    if (a.type === 'stats' || (a.k === 'sym' && a.ref?.type === 'stats')) {
      this.err('print format actual argument evaluation type unsupported', a.tok);
      return '""';
    }
    if (a.k === 'str') return this.strLit(a.value);
    const v = this.ex(a);
    return a.type === 'string' ? v : `("" + ${v})`;
  }

  private print(e: A.Print): string {
    const toStr = e.name.startsWith('s');
    let text: string;
    if (e.hist) {
      const hr = this.histIndex(e.hist);
      if (!hr) {
        this.err('Invalid indexing of histogram', e.hist.tok);
        return '0';
      }
      const stat = this.statExpr(e.hist.operand);
      text = `(L = ${this.loc(e.hist.tok)}, ${stat}.histText(${hr.h}, ${this.limits.histElision}))`;
    } else if (e.name === 'printf' || e.name === 'sprintf') {
      text = this.formatted(e);
    } else {
      const nl = e.name.endsWith('ln');
      const isD = e.name === 'printd' || e.name === 'printdln' || e.name === 'sprintd' || e.name === 'sprintdln';
      const parts = e.args.map((a) => this.printArg(a));
      let joined: string;
      if (isD) {
        const dl = this.strLit(e.delim ?? '');
        joined = parts.join(` + ${dl} + `);
      } else joined = parts.join(' + ');
      if (nl) joined = joined ? `${joined} + "\\n"` : '"\\n"';
      if (!joined) joined = '""';
      text = joined;
    }
    if (toStr) return `T(${text})`;
    return `(out(${text}), 0)`;
  }

  private formatted(e: A.Print): string {
    const parts = parseFormat(e.format ?? '');
    if (typeof parts === 'string') {
      this.err(parts, e.tok);
      return '""';
    }
    const args = e.args.slice();
    let ai = 0;
    const need = parts.reduce((n, p) => n + (typeof p === 'string' ? 0 : 1 + (p.widthStar ? 1 : 0) + (p.precStar ? 1 : 0)), 0);
    if (need !== args.length) {
      this.err('Wrong number of args to formatted print operator', e.tok);
      return '""';
    }
    const pieces: string[] = [];
    for (const p of parts) {
      if (typeof p === 'string') {
        pieces.push(jsStr(p));
        continue;
      }
      const w = p.widthStar ? `star(${this.ex(args[ai++])})` : `${p.width}`;
      const pr = p.precStar ? `star(${this.ex(args[ai++])})` : `${p.prec}`;
      const a = args[ai++];
      if (a.type === 'stats' || (a.k === 'sym' && a.ref?.type === 'stats')) {
        this.err('print format actual argument evaluation type unsupported', a.tok);
        pieces.push('""');
        continue;
      }
      pieces.push(this.conv(p, a, w, pr));
    }
    if (!pieces.length) return '""';
    return pieces.join(' + ');
  }

  private conv(p: FormatConv, a: A.Expr, w: string, pr: string): string {
    const v = this.ex(a);
    const plain = !p.widthStar && !p.precStar && p.width < 0 && p.prec < 0 && p.flag === '';
    const isStr = a.type === 'string';
    switch (p.conv) {
      case 's':
        if (plain) return isStr ? v : `("" + ${v})`;
        return `fS(${isStr ? v : `("" + ${v})`}, ${jsStr(p.flag)}, ${w}, ${pr})`;
      case 'c':
        return `fC(${isStr ? 0 : v}, ${jsStr(p.flag)}, ${w})`;
      case 'b':
        return `fB(${isStr ? 0 : v}, ${jsStr(p.flag)}, ${w}, ${pr})`;
      case 'm':
      case 'M':
        return `(L = ${this.loc(a.tok)}, fM(${jsStr(p.conv)}, ${isStr ? 0 : v}, ${jsStr(p.flag)}, ${w}, ${pr}, c.mem))`;
      default:
        if (plain && (p.conv === 'd' || p.conv === 'i')) return isStr ? v : `("" + ${v})`;
        return `fI(${jsStr(p.conv)}, ${isStr ? 0 : v}, ${jsStr(p.flag)}, ${w}, ${pr})`;
    }
  }
}

const withinSafe = (r: Range) => r.lo >= -9007199254740991n && r.hi <= 9007199254740991n;
const within31 = (r: Range) => r.lo >= 0n && r.hi <= 2147483647n;

const HELPER_CALL = /\b(?:add|sub|mul|div|mod|neg|bitAnd|bitOr|bitXor|bitNot|shlS|shrS|ushrS)\(/g;
/** Number of int64 helper calls in generated code. */
function helperCalls(js: string): number {
  return js.match(HELPER_CALL)?.length ?? 0;
}

function sameParams(a: A.Long[], b: A.Long[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

export class TranslateErrors extends Error {
  constructor(public errors: SemanticError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}

export function translate(program: A.Program, opts: TranslateOptions = {}): Translated {
  const limits = computeLimits(program, opts.defines);
  try {
    return new Translator(program, limits, opts.defines, opts.compatible).run();
  } catch (e) {
    if (e instanceof TranslateErrors) {
      if (!opts.diag) throw e.errors[0];
      for (const se of e.errors) opts.diag.semanticError(se);
      throw new PassFailed(3);
    }
    throw e;
  }
}
