/**
 * Tiny builders for hand-made typed ASTs (what pass 2 would produce), used by the
 * translator/engine unit tests independently of the front end.
 */
import type * as A from '../../src/ast';

export const FILE: A.SourceFile = { name: 't.stp', text: '', isTapset: false };
/** A tapset file: where the runtime's builtins (embedded-C functions) are declared. */
export const TAPSET: A.SourceFile = { name: 'stdlib/t.stp', text: '', isTapset: true };
let col = 1;
export function tok(text: string, kind: A.TokenKind = 'operator'): A.Token {
  return { kind, text, file: FILE, line: 1, col: col++ };
}

export function v(name: string, type: A.Type, kind: A.VarDecl['kind'] = 'local', arity = 0, indexTypes: A.Type[] = []): A.VarDecl {
  return { name, tok: tok(name, 'identifier'), kind, type, arity, indexTypes, file: FILE, written: true, read: true };
}
export const num = (n: A.Long): A.NumberLit => ({ k: 'num', value: n, tok: tok(String(n), 'number'), type: 'long' });
export const str = (s: string): A.StringLit => ({ k: 'str', value: s, tok: tok(s, 'string'), type: 'string' });
export const sym = (d: A.VarDecl): A.Sym => ({ k: 'sym', name: d.name, ref: d, tok: tok(d.name, 'identifier'), type: d.type });
export const bin = (op: A.BinaryOp, l: A.Expr, r: A.Expr): A.Binary => ({ k: 'binary', op, left: l, right: r, tok: tok(op), type: 'long' });
export const cmp = (op: A.CompareOp, l: A.Expr, r: A.Expr): A.Compare => ({ k: 'compare', op, left: l, right: r, tok: tok(op), type: 'long' });
export const cat = (l: A.Expr, r: A.Expr): A.Concat => ({ k: 'concat', left: l, right: r, tok: tok('.'), type: 'string' });
export const assign = (t: A.Expr, val: A.Expr, op: A.AssignOp = '='): A.Assign => ({ k: 'assign', op, target: t, value: val, tok: tok(op), type: t.type });
export const idx = (d: A.VarDecl, ...keys: (A.Expr | null)[]): A.Index => ({ k: 'index', base: sym(d), indexes: keys, tok: tok('['), type: d.type });
export const incr = (t: A.Expr, op: '++' | '--' = '++', prefix = false): A.IncDec => ({ k: 'incdec', op, prefix, operand: t, tok: tok(op), type: 'long' });
export const statop = (op: A.StatOpName, operand: A.Expr): A.StatOp => ({ k: 'statop', op, operand, tok: tok('@' + op), type: 'long' });
export const hist = (kind: 'log' | 'linear', operand: A.Expr, params: A.Long[] = []): A.Hist => ({ k: 'hist', kind, operand, params, tok: tok('@hist_' + kind) });
export function print(name: A.PrintName, args: A.Expr[], extra: Partial<A.Print> = {}): A.Print {
  return { k: 'print', name, args, tok: tok(name, 'identifier'), type: name.startsWith('s') ? 'string' : 'long', ...extra };
}
export function call(fn: A.FunctionDecl, args: A.Expr[]): A.Call {
  return { k: 'call', name: fn.name, args, ref: fn, tok: tok(fn.name, 'identifier'), type: fn.type };
}
export const es = (e: A.Expr): A.ExprStmt => ({ k: 'expr', expr: e, tok: e.tok });
export const block = (...stmts: A.Stmt[]): A.Block => ({ k: 'block', stmts, tok: tok('{') });
export const ifs = (cond: A.Expr, then: A.Stmt, els?: A.Stmt): A.If => ({ k: 'if', cond, then, else: els, tok: tok('if', 'keyword') });
export const forS = (init: A.Expr | undefined, cond: A.Expr | undefined, inc: A.Expr | undefined, body: A.Stmt): A.For => ({ k: 'for', init, cond, incr: inc, body, tok: tok('for', 'keyword') });
export const whileS = (cond: A.Expr, body: A.Stmt): A.While => ({ k: 'while', cond, body, tok: tok('while', 'keyword') });
export const ret = (value?: A.Expr): A.Return => ({ k: 'return', value, tok: tok('return', 'keyword') });
export const brk = (): A.Break => ({ k: 'break', tok: tok('break', 'keyword') });
export const nxt = (): A.Next => ({ k: 'next', tok: tok('next', 'keyword') });
export const del = (target: A.Expr): A.Delete => ({ k: 'delete', target, tok: tok('delete', 'keyword') });
export const tryS = (body: A.Block, handler: A.Block, catchVar?: A.Sym): A.Try => ({ k: 'try', body, handler, catchVar, tok: tok('try', 'keyword') });
export function foreach(keys: A.VarDecl[], arr: A.VarDecl, body: A.Stmt, extra: Partial<A.Foreach> = {}): A.Foreach {
  return { k: 'foreach', keys: keys.map(sym), array: sym(arr), body, tok: tok('foreach', 'keyword'), ...extra };
}

export function fn(name: string, type: A.Type, params: A.VarDecl[], body: A.Block, extra: Partial<A.FunctionDecl> = {}): A.FunctionDecl {
  return {
    name, tok: tok(name, 'identifier'), params: params.map((p) => ({ name: p.name, tok: p.tok })), priority: 0, body, file: FILE,
    type, paramDecls: params, locals: [], ...extra,
  };
}
export function builtin(name: string, type: A.Type, nparams: number): A.FunctionDecl {
  const params = Array.from({ length: nparams }, (_, i) => v('a' + i, 'long', 'param'));
  return { name, tok: { ...tok(name, 'identifier'), file: TAPSET }, params: params.map((p) => ({ name: p.name, tok: p.tok })), priority: 1, file: TAPSET, type, paramDecls: params,
    body: { k: 'embedded', code: '', tok: tok('%{', 'embedded') }, builtin: name };
}

let probeIndex = 0;
export function probe(family: string, body: A.Block, data: Record<string, unknown> = {}, pp = family): A.DerivedProbe {
  const t = tok('probe', 'keyword');
  return {
    index: probeIndex++, point: { family, pp, data }, pn: pp, chain: [pp], body, locals: [], tok: t,
    decl: { points: [], body, tok: t, file: FILE },
  };
}

export function program(probes: A.DerivedProbe[], globals: A.VarDecl[] = [], functions: A.FunctionDecl[] = []): A.Program {
  probes.forEach((p, i) => (p.index = i));
  return { globals, functions, probes, embeds: [], userFiles: [FILE], libraryFileCount: 0 };
}
