/**
 * State shared by the parts of pass 3's code generator (exprs.ts -> printing.ts -> stmts.ts ->
 * translator.ts, each a subclass of the one before): the JS names given to globals, functions,
 * locals and builtins, the side tables of the module (locations, data values), the
 * per-function context and the error list.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { renderTokenFull } from './tokens';
import { jsStr, jsIdent } from './emit';
import type { Limits } from './meta';
import type { RangeMap, Range } from './ranges';
import { TOP } from './ranges';

export type HistRef = { decl: A.VarDecl; h: number };
export type HistSpec = { kind: 'log' | 'linear'; params: A.Long[] };

export interface FnCtx {
  kind: 'probe' | 'function';
  fn?: A.FunctionDecl;
  loopDepth: number;
  temps: number;
  locals: Map<A.VarDecl, string>;
  /** stap `try` nesting (for temporaries names of catch vars) */
  tryDepth: number;
}

export function sameParams(a: A.Long[], b: A.Long[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

export abstract class GenBase {
  protected errors: SemanticError[] = [];
  protected globalNames = new Map<A.VarDecl, string>();
  protected fnNames = new Map<A.FunctionDecl, string>();
  protected locs: string[] = [''];
  private locIds = new Map<A.Token, number>();
  /** Lines hoisted to the module head (regexes): translator-made JS only. */
  protected consts: string[] = [];
  /** The module's data side table (D[i]). */
  protected data: unknown[] = [];
  /** Whether the module reads kernel memory through a target expression (@var, @cast, $var, autocast). */
  protected readsKernel = false;
  protected regexIds = new Map<string, string>();
  /** Builtins used: stap name -> JS name (`b_NAME`, made unique). */
  protected builtinsUsed = new Map<string, string>();
  protected histSpecs = new Map<A.VarDecl, HistSpec[]>();
  protected f!: FnCtx;
  protected maxStr: number;
  // target codegen hook state (issue 6)
  protected curProbe: A.DerivedProbe | null = null;
  protected curHandler: string | null = null;
  protected afterLines: string[] = [];
  /** Ranges of the long expressions of the body being generated (src/translate/ranges.ts). */
  protected rm: RangeMap = new Map();
  /** Variable ranges at the end of the last body generated. */
  protected exitRanges = new Map<A.VarDecl, Range>();

  constructor(protected program: A.Program, protected limits: Limits, protected defines?: Map<string, string>, protected compatible?: string) {
    this.maxStr = limits.maxStringLen - 1;
  }

  err(msg: string, tok?: A.Token): void {
    this.errors.push(new SemanticError(msg, tok));
  }

  /** Id of a token in the module's location table (runtime messages' "near ..."). */
  loc(tok: A.Token): number {
    let id = this.locIds.get(tok);
    if (id === undefined) {
      id = this.locs.length;
      this.locs.push(renderTokenFull(tok));
      this.locIds.set(tok, id);
    }
    return id;
  }

  /** A value in the module's data side table; returns the JS expression reading it. */
  protected dataRef(value: unknown): string {
    return `D[${this.data.push(value) - 1}]`;
  }

  protected useBuiltin(name: string): string {
    let js = this.builtinsUsed.get(name);
    if (js === undefined) {
      const base = jsIdent('b_', name);
      const taken = new Set(this.builtinsUsed.values());
      js = base;
      for (let i = 2; taken.has(js); i++) js = `${base}_${i}`;
      this.builtinsUsed.set(name, js);
    }
    return js;
  }

  protected statDecl(e: A.Expr): A.VarDecl | undefined {
    if (e.k === 'sym') return e.ref;
    if (e.k === 'index' && e.base.k === 'sym') return e.base.ref;
    return undefined;
  }

  protected histIndex(h: A.Hist): HistRef | undefined {
    const d = this.statDecl(h.operand);
    if (!d) return undefined;
    const list = this.histSpecs.get(d) ?? [];
    const i = list.findIndex((x) => x.kind === h.kind && sameParams(x.params, h.params));
    return i < 0 ? undefined : { decl: d, h: i };
  }

  protected strLit(s: string): string {
    return jsStr(s.length > this.maxStr ? s.slice(0, this.maxStr) : s);
  }

  protected temp(): string {
    return `t${this.f.temps++}`;
  }

  protected rng(e: A.Expr): Range {
    return this.rm.get(e) ?? TOP;
  }

  protected localName(d: A.VarDecl): string {
    let n = this.f.locals.get(d);
    if (!n) {
      const taken = new Set(this.f.locals.values());
      const base = jsIdent('l_', d.name);
      n = base;
      for (let i = 2; taken.has(n); i++) n = `${base}_${i}`;
      this.f.locals.set(d, n);
    }
    return n;
  }

  protected symLhs(s: A.Sym): string {
    const d = s.ref;
    if (!d) {
      this.err(`unresolved symbol '${s.name}'`, s.tok);
      return 'undefined';
    }
    if (d.kind === 'global') return this.globalNames.get(d)!;
    return this.localName(d);
  }

  protected isArrayDecl(d: A.VarDecl | undefined): boolean {
    return !!d && d.kind === 'global' && (d.arity ?? 0) > 0;
  }
}
