/**
 * Helpers shared by the elaboration modules: AST traversal, deep copy, synthetic tokens,
 * stap's Levenshtein "similar:" suggestions and probe-point rendering.
 */
import type * as A from '../ast';
import type { SemanticError } from '../diag';

// ---------------------------------------------------------------------------------------------
// Traversal

/** Calls `fe` for each direct sub-expression and `fs` for each direct sub-statement of a node. */
export function exprChildren(e: A.Expr, fe: (c: A.Expr) => void): void {
  switch (e.k) {
    case 'num': case 'str': case 'sym': case 'embedded':
      return;
    case 'binary': case 'logical': case 'compare': case 'concat':
      fe(e.left); fe(e.right); return;
    case 'regex':
      fe(e.left); fe(e.right); return;
    case 'unary': fe(e.operand); return;
    case 'incdec': fe(e.operand); return;
    case 'ternary': fe(e.cond); fe(e.then); fe(e.else); return;
    case 'assign': fe(e.target); fe(e.value); return;
    case 'index':
      fe(e.base);
      for (const i of e.indexes) if (i) fe(i);
      return;
    case 'call': for (const a of e.args) fe(a); return;
    case 'print':
      for (const a of e.args) fe(a);
      if (e.hist) fe(e.hist);
      return;
    case 'statop': fe(e.operand); return;
    case 'hist': fe(e.operand); return;
    case 'in':
      for (const k of e.keys) if (k) fe(k);
      fe(e.array);
      return;
    case 'target': case 'atvar':
      for (const c of e.components) if (c.k === 'index') fe(c.index);
      return;
    case 'cast': case 'autocast':
      fe(e.operand);
      for (const c of e.components) if (c.k === 'index') fe(c.index);
      return;
    case 'entry': case 'defined': fe(e.operand); return;
    case 'atop': for (const a of e.args) fe(a); return;
  }
}

export function stmtChildren(s: A.Stmt, fe: (c: A.Expr) => void, fs: (c: A.Stmt) => void): void {
  switch (s.k) {
    case 'block': for (const c of s.stmts) fs(c); return;
    case 'expr': fe(s.expr); return;
    case 'if': fe(s.cond); fs(s.then); if (s.else) fs(s.else); return;
    case 'while': fe(s.cond); fs(s.body); return;
    case 'for':
      if (s.init) fe(s.init);
      if (s.cond) fe(s.cond);
      if (s.incr) fe(s.incr);
      fs(s.body);
      return;
    case 'foreach':
      for (const k of s.keys) fe(k);
      if (s.value) fe(s.value);
      fe(s.array);
      if (s.slice) for (const x of s.slice) if (x) fe(x);
      if (s.limit) fe(s.limit);
      fs(s.body);
      return;
    case 'return': if (s.value) fe(s.value); return;
    case 'delete': fe(s.target); return;
    case 'try':
      fs(s.body);
      if (s.catchVar) fe(s.catchVar);
      fs(s.handler);
      return;
    case 'next': case 'break': case 'continue': case 'null':
      return;
  }
}

/** Visit every expression (pre-order) under a statement. */
export function walkStmt(s: A.Stmt, onExpr: (e: A.Expr) => void, onStmt?: (s: A.Stmt) => void): void {
  const fe = (e: A.Expr): void => {
    onExpr(e);
    exprChildren(e, fe);
  };
  const fs = (st: A.Stmt): void => {
    if (onStmt) onStmt(st);
    stmtChildren(st, fe, fs);
  };
  fs(s);
}

export function walkExpr(e: A.Expr, onExpr: (e: A.Expr) => void): void {
  const fe = (x: A.Expr): void => {
    onExpr(x);
    exprChildren(x, fe);
  };
  fe(e);
}

// ---------------------------------------------------------------------------------------------
// Deep copy (tokens, files and declarations are shared; pass-2 fields are dropped)

const SHARED_KEYS = new Set(['tok', 'file', 'ref']);

/** A copy of an AST; `keep(node)` true: that subtree is the copy's own as it is (not copied). */
export function deepCopy<T>(node: T, keep?: (node: object) => boolean): T {
  return copyValue(node, keep) as T;
}

function copyValue(v: unknown, keep?: (node: object) => boolean): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (keep && keep(v)) return v;
  if (Array.isArray(v)) return v.map((x) => copyValue(x, keep));
  const out: Record<string, unknown> = {};
  const o = v as Record<string, unknown>;
  // (for-in over a plain AST node: its own enumerable keys in order, without Object.entries' arrays)
  for (const k in o) {
    if (k === 'ref' || k === 'type') continue;
    const x = o[k];
    out[k] = x === null || typeof x !== 'object' || SHARED_KEYS.has(k) ? x : copyValue(x, keep);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Levenshtein suggestions: src/suggest.ts (stap's util.cxx levenshtein_suggest)

export { levenshtein, suggest, withSimilar, cmpBytes } from '../suggest';

// ---------------------------------------------------------------------------------------------
// Probe-point rendering

export function quoteString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    if (c === '"' || c === '\\') out += '\\' + c;
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '\r') out += '\\r';
    else if (c === '\v') out += '\\v';
    else if (c === '\f') out += '\\f';
    else if (c === '\x07') out += '\\a';
    else if (c === '\b') out += '\\b';
    else if (code < 32 || code >= 127) out += '\\' + code.toString(8).padStart(3, '0');
    else out += c;
  }
  return out + '"';
}

export function renderLiteral(lit: A.NumberLit | A.StringLit): string {
  return lit.k === 'num' ? String(lit.value) : quoteString(lit.value);
}

export function renderComponent(c: A.ProbePointComponent): string {
  return c.arg ? `${c.name}(${renderLiteral(c.arg)})` : c.name;
}

export function renderComponents(cs: A.ProbePointComponent[]): string {
  return cs.map(renderComponent).join('.');
}

/** A probe point as stap prints it in chains (`foo.bar(1)?`, with `!`, and ` if (...)` omitted). */
export function renderPoint(p: A.ProbePoint): string {
  return renderComponents(p.components) + (p.sufficient ? '!' : p.optional ? '?' : '');
}

/** A token for synthesised nodes, positioned like `like`. */
export function synthToken(like: A.Token, kind: A.TokenKind, text: string): A.Token {
  return { ...like, kind, text };
}

/** The `long`/`string` decimal form of a Long. */
export function longValue(v: A.Long): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** Turn an expression node into the number literal `value` in place (its token kept). */
export function fold(e: A.Expr, value: number): void {
  const n = e as unknown as Record<string, unknown>;
  for (const k of Object.keys(n)) if (k !== 'tok') delete n[k];
  n.k = 'num';
  n.value = value;
  n.type = 'long';
}

/** Does the function's body say `next` (STAP_NEXT in embedded C)? */
export function containsNext(fn: A.FunctionDecl): boolean {
  if (fn.body.k === 'embedded') return /STAP_NEXT/.test(fn.body.code);
  let found = false;
  walkStmt(fn.body, () => {}, (s) => {
    if (s.k === 'next') found = true;
  });
  return found;
}

/**
 * Assignments whose left side is no lvalue (`1 = x`, `f() = 2`, `@defined(x) = 1`): symbol
 * resolution lets them through and records the error, which stap 4.8 raises in its optimiser's
 * dead-assignment pass (opt4, after the never-assigned warnings and the assignments it elided
 * before): never under -u (real-stap -u -p2 'probe begin { 1 = y }' passes).
 */
export const notLvalue = new WeakMap<A.Expr, SemanticError>();

/**
 * `@entry(...)` where it means nothing (outside a .return probe, or in a function): the
 * optimiser may drop it as any side-effect-free expression (real-stap -p2 'probe begin { x = 1;
 * ++@entry(x); println(1) }' passes), and what is left of it is an error of the type resolution.
 */
export const invalidEntry = new WeakSet<A.Expr>();
