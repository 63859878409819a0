/**
 * Pass 3, declarations: the module around the generated code — globals, one JS function per
 * stap function (`f_NAME`) and per derived probe (`p_N`), each in a generic version and, where
 * range analysis pays, a fast version guarded by the ranges it assumes (ranges.ts) — and the
 * table the module returns.  Functions with an embedded-C body are the runtime's builtins; one
 * the runtime has no counterpart for (any in a user script) is a pass-3 error: tapsim runs no C.
 */
import type * as A from '../ast';
import { builtinExists } from '../runtime/builtins';
import { tokenWhere } from './tokens';
import { analyzeHandler, RangeMap, Range, TOP, INT32, SAFE, exact, tracked, within } from './ranges';
import { jsStr, jsLong, jsInt, jsIdent, jsComment, whereComment, checkNode } from './emit';
import { walk } from './walk';
import { sameParams, range } from './gen_base';
import { StmtGen } from './stmts';
import { Translated, ProbeMeta, GlobalMeta, TranslateErrors } from './meta';

type BodyVersion = { cond?: string; lines: string[]; temps: number };
/** A body's generic version, its fast one (if any) with its guards, and (when it may be shared) its key. */
type Specialised = { generic: BodyVersion; fast?: BodyVersion; guards: Guard[]; shareKey: string | null };
/** A run-time entry assumption of a specialised body: `decl` holds a value in `range`. */
type Guard = { decl: A.VarDecl; range: Range };
/** Entry assumptions tried for a guard, widest first (then int32). */
const GUARD_RANGES: Range[] = [SAFE, ...[50, 44, 36].map((k) => ({ lo: -(2n ** BigInt(k)), hi: 2n ** BigInt(k) }))];
const bitLength = (x: bigint) => x.toString(2).length - 1;

const HELPER_CALL = /\b(?:add|sub|mul|div|mod|neg|bitAnd|bitOr|bitXor|bitNot|shlS|shrS|ushrS|shlF|shrF)\(/g;
/** Number of int64 helper calls in generated code. */
function helperCalls(js: string): number {
  return js.match(HELPER_CALL)?.length ?? 0;
}

/** The module table's handler list: a run of one shared handler as `...Array(N).fill(p_K)`. */
function handlerList(fns: string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < fns.length;) {
    let j = i + 1;
    while (j < fns.length && fns[j] === fns[i]) j++;
    if (j - i >= 4) parts.push(`...Array(${j - i}).fill(${fns[i]})`);
    else for (let k = i; k < j; k++) parts.push(fns[k]);
    i = j;
  }
  return parts.join(', ');
}

export class Translator extends StmtGen {
  private varianceShift = new Map<A.VarDecl, number>();
  private usesVariance = new Set<A.VarDecl>();

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
    for (const g of P.globals) this.globalNames.set(g, uniq(jsIdent('g_', g.name)));
    for (const fn of P.functions) this.fnNames.set(fn, uniq(jsIdent('f_', fn.name)));

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
      const where = `// ${whereComment(g.tok)}`;
      if (arity > 0) {
        const opts: string[] = [`arity: ${arity}`, `valueType: ${jsStr(type === 'unknown' ? 'long' : type)}`, `name: ${jsStr(g.name)}`,
          `maxMapEntries: R.lim.maxMapEntries`];
        if (g.maxSize !== undefined) opts.push(`size: ${jsInt(g.maxSize)}`);
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
      if (fn.body.k !== 'block') {
        this.checkEmbedded(fn);
        continue; // builtins live in the runtime
      }
      out();
      body.push(...this.genFunction(fn));
    }

    // probes: a handler whose code is the same as an earlier one's is that one (as stap emits a
    // duplicate probe body once): a wildcard over thousands of functions makes one function
    const pmeta: ProbeMeta[] = [];
    const first = new Map<string, { fn: string; at: number; n: number }>();
    // probes of one wildcard share their body object (pass 2 elaborated it once): not generated again
    const byBody = new Map<A.Block, { cond: A.Expr | undefined; f: { fn: string; n: number } }>();
    for (const p of P.probes) {
      let name = `p_${jsInt(p.index)}`;
      const known = byBody.get(p.body);
      if (known && known.cond === p.condition) {
        name = known.f.fn;
        known.f.n++;
      } else {
        const g = this.genProbe(p, name);
        const same = g.shareKey !== null ? first.get(g.shareKey) : undefined;
        if (same) {
          name = same.fn;
          same.n++;
        } else {
          out();
          body.push(...g.lines);
          if (g.shareKey !== null) first.set(g.shareKey, { fn: name, at: body.length - g.lines.length, n: 1 });
        }
        const f = g.shareKey !== null ? first.get(g.shareKey) : undefined;
        if (f) byBody.set(p.body, { cond: p.condition, f });
      }
      pmeta.push({
        index: p.index, family: p.point.family, pp: p.point.pp, pn: p.pn, data: p.point.data,
        chain: p.chain, where: tokenWhere(p.tok), fn: name,
      });
    }
    for (const f of first.values()) if (f.n > 1) body[f.at] += `\n// (also the handler of ${f.n - 1} more probe(s) with the same code)`;

    // module table
    out();
    out('return {');
    out(`  probes: [${handlerList(pmeta.map((m) => m.fn))}],`);
    out('  globals: [ // in the order of Translated.globals');
    for (const g of gmeta) {
      const setter = g.arity === 0 && g.type !== 'stats' ? `, set: (v) => { ${g.js} = v; }` : '';
      out(`    { get: () => ${g.js}${setter} },`);
    }
    out('  ],');
    out('  loc: () => L,');
    out('};');

    const head: string[] = [];
    head.push(`// tapsim pass 3: ${P.probes.length} probe(s), ${P.functions.filter((f) => f.body.k === 'block').length} function(s), ${P.globals.length} global(s)`);
    head.push('const { add, sub, mul, div, mod, neg, bitAnd, bitOr, bitXor, bitNot, shl, shr, ushr } = R.I;');
    head.push('const { shlS, shrS, ushrS, shlF, shrF } = R; // shifts: count & 63 (F: of constants, as folded)');
    head.push('const { T, Z, C, out, outH, maxact, nestErr, frame, caught, B, fI, fS, fC, fB, fM, fx, star, memPrec, D } = R;');
    head.push('const MAXACT = R.lim.maxAction, MAXNEST = R.lim.maxNesting, MAXSTR = R.lim.maxStringLen - 1;');
    head.push('let L = 0, act = 0, depth = 0;');
    for (const [b, js] of [...this.builtinsUsed].sort((x, y) => (x[1] < y[1] ? -1 : 1))) head.push(`const ${js} = B(${jsStr(b)});`);
    head.push(...this.consts);
    head.push('');

    if (this.errors.length) throw new TranslateErrors(this.errors);
    return {
      source: head.concat(body).join('\n') + '\n', program: P, probes: pmeta, globals: gmeta, locs: this.locs, data: this.data, limits: this.limits, readsKernel: this.readsKernel,
    };
  }

  /** Histograms and variance shifts of the stats globals; every node's fields checked (emit.ts checkNode). */
  protected scanStats(): void {
    // (a body shared by a wildcard's probes is scanned once)
    const bodies = new Set<A.Stmt | A.Expr>();
    for (const p of this.program.probes) {
      bodies.add(p.body);
      if (p.condition) bodies.add(p.condition);
    }
    const roots = [...bodies];
    for (const fn of this.program.functions) if (fn.body.k === 'block') roots.push(fn.body);
    for (const r of roots) {
      walk(r, (e) => {
        checkNode(e); // (the one walk over everything before code is generated)
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

  protected statSpecSrc(g: A.VarDecl): string {
    const hs = (this.histSpecs.get(g) ?? []).map((h) =>
      h.kind === 'log' ? 'R.logHist()' : `R.linearHist(${h.params.map(jsLong).join(', ')})`);
    const parts = [`hists: [${hs.join(', ')}]`];
    if (!this.usesVariance.has(g)) parts.push('variance: false');
    const sh = this.varianceShift.get(g);
    if (sh) parts.push(`varianceShift: ${jsInt(sh)}`);
    return `R.statSpec({ ${parts.join(', ')} })`;
  }

  // ------------------------------------------------------------------ functions and probes

  protected collectLocals(root: A.Stmt, extra: A.VarDecl[] | undefined, params: A.VarDecl[]): A.VarDecl[] {
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

  protected localInit(d: A.VarDecl): string {
    return d.type === 'string' ? '""' : '0';
  }

  protected genFunction(fn: A.FunctionDecl): string[] {
    const name = this.fnNames.get(fn)!;
    this.f = { kind: 'function', fn, loopDepth: 0, temps: 0, locals: new Map(), tryDepth: 0 };
    const params = fn.paramDecls ?? [];
    const pnames = params.map((p) => this.localName(p));
    const locals = this.collectLocals(fn.body as A.Block, fn.locals, params);
    for (const d of locals) this.localName(d);
    const v = this.specialise({ body: fn.body as A.Block }, locals, params, '    ');
    const o: string[] = [];
    const sig = `${fn.name}:${fn.type ?? 'unknown'} (${params.map((p) => `${p.name}:${p.type ?? 'unknown'}`).join(', ')})`;
    o.push(`// function ${jsComment(sig)}  ${jsComment(tokenWhere(fn.tok))}`);
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
      o.push(`// fast version: ${jsComment(this.guardNote(v.guards))}`);
      o.push(...one(name, v.fast, `  if (!(${this.guardSrc(v.guards)})) return ${name}$generic(${args});`));
      o.push(`// generic version of ${name} (any int64 values)`);
      o.push(...one(`${name}$generic`, v.generic));
    } else o.push(...one(name, v.generic));
    return o;
  }

  /**
   * A probe's handler `name` (lines, its comment first) and the key of its code apart from its
   * name and comment, or null when it must stay its own (target expressions register per-handler
   * state).  The code of a body seen before is not generated again.
   */
  protected genProbe(p: A.DerivedProbe, name: string): { lines: string[]; shareKey: string | null } {
    this.f = { kind: 'probe', loopDepth: 0, temps: 0, locals: new Map(), tryDepth: 0 };
    this.curProbe = p; this.curHandler = name; this.afterLines = []; // target codegen hook (issue 6)
    const locals = this.collectLocals(p.body, p.locals, []);
    for (const d of locals) this.localName(d);
    const v = this.specialise({ cond: p.condition, body: p.body }, locals, [], '  ');
    const shareKey = v.shareKey === null || this.afterLines.length ? null
      : `${locals.map((d) => `${this.localName(d)}=${this.localInit(d)}`).join(',')}\n${v.shareKey}`;
    const o: string[] = [];
    o.push(`// probe ${jsComment(p.point.pp + (p.chain.length ? ' <- ' + p.chain.join(' <- ') : '') + '  ' + tokenWhere(p.tok))}`);
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
      o.push(`// fast version: ${jsComment(this.guardNote(v.guards))}`);
      o.push(...one(name, v.fast, `  if (!(${this.guardSrc(v.guards)})) return ${name}$generic(c);`));
      o.push(`// generic version of ${name} (any int64 values)`);
      o.push(...one(`${name}$generic`, v.generic));
    } else o.push(...one(name, v.generic));
    o.push(...this.afterLines); // target codegen hook (issue 6)
    this.curProbe = null; this.curHandler = null; this.afterLines = [];
    return { lines: o, shareKey };
  }

  // ------------------------------------------------------------------ range-specialised bodies

  /** One generated body: probe condition (JS), lines, number of temporaries. */
  protected bodyVersion(roots: { cond?: A.Expr; body: A.Block }, init: Map<A.VarDecl, Range>, ind: string): BodyVersion {
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
  protected specialise(roots: { cond?: A.Expr; body: A.Block }, locals: A.VarDecl[], params: A.VarDecl[], ind: string):
    Specialised {
    const base = new Map<A.VarDecl, Range>();
    for (const d of locals) if (tracked(d)) base.set(d, exact(0n));
    const generic = this.bodyVersion(roots, base, ind);
    const cands = this.guardCandidates(roots, params);
    // (a function's guards name its own parameters: only probe bodies are shared)
    if (!cands || this.errors.length || this.f.kind !== 'probe') return { ...this.specialiseFresh(roots, base, generic, cands, ind), shareKey: null };
    // the same generic code over the same variables: the same specialisation (a wildcard's
    // thousands of copies of one body are specialised once)
    const shareKey = `${generic.cond ?? ''}\n${generic.temps}\n${generic.lines.join('\n')}`;
    const known = this.specialised.get(shareKey);
    if (known) return known;
    const res = this.specialiseFresh(roots, base, generic, cands, ind);
    const r: Specialised = { ...res, shareKey };
    this.specialised.set(shareKey, r);
    return r;
  }

  private specialised = new Map<string, Specialised>();

  private specialiseFresh(roots: { cond?: A.Expr; body: A.Block }, base: Map<A.VarDecl, Range>, generic: BodyVersion,
    cands: A.VarDecl[] | null, ind: string): { generic: BodyVersion; fast?: BodyVersion; guards: Guard[] } {
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
  protected guardCandidates(roots: { cond?: A.Expr; body: A.Block }, params: A.VarDecl[]): A.VarDecl[] | null {
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

  protected guardSrc(gs: Guard[]): string {
    return gs.map((g) => {
      const x = g.decl.kind === 'global' ? this.globalNames.get(g.decl)! : this.localName(g.decl);
      const t = `typeof ${x} === "number"`;
      return g.range === SAFE ? t : `${t} && ${x} >= ${g.range.lo} && ${x} <= ${g.range.hi}`;
    }).join(' && ');
  }

  protected guardNote(gs: Guard[]): string {
    const say = (r: Range) => (r === SAFE ? 'a number (safe integer)' : r === INT32 ? 'int32' : `within +-2^${bitLength(r.hi)}`);
    return `when on entry ${gs.map((g) => `${g.decl.name} is ${say(g.range)}`).join(', ')} (plain JS arithmetic where proven exact), else the generic version`;
  }

  /**
   * A function with an embedded-C body runs as the runtime's builtin of its name; one in a
   * user script (guru mode) or without a runtime counterpart is refused here, at translation.
   */
  private checkEmbedded(fn: A.FunctionDecl): void {
    if (!fn.tok.file.isTapset) {
      this.err('embedded-C function body is not executed by tapsim (no C code runs)', fn.tok);
      return;
    }
    const name = fn.builtin ?? fn.name;
    if (!builtinExists(name)) this.err(`embedded-C function '${name}' has no tapsim implementation (no C code runs)`, fn.tok);
  }
}
