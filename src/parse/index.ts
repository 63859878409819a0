/**
 * Pass 1: parse a stap file into the AST of src/ast.ts.
 *
 *   source --lexer.ts--> tokens --preprocess.ts--> tokens --(joined text)--> lang/stap.ohm --> AST
 *
 * The ohm grammar matches the preprocessed tokens re-joined with single spaces; every grammar
 * position maps back to its token, so AST nodes and diagnostics carry the original file:line:col.
 * Errors are reported in SystemTap's layout; after an error the parser resynchronises at the next
 * top-level keyword (as stap does) so several errors can be reported.
 */
import type * as ohm from 'ohm-js';
import type * as A from '../ast';
import { Diagnostics, ParseError } from '../diag';
import { tokenize, KEYWORDS, pendingErrors } from './lexer';
import { expandMacros, resolveConditionals, unescapeRaw, Macro, SessionOption } from './preprocess';
import { getGrammar } from './grammar';

export interface ParseOptions {
  args: string[];
  guru: boolean;
  compatible?: string;
  privilege?: string;
  /** Library macros (from .stpm files). */
  libraryMacros?: Map<string, Macro>;
  /** Filled with the argument numbers the script referenced ($N/@N). */
  usedArgs?: Set<number>;
  /** Filled with the session options its `%( %)` conditions consulted. */
  usedOptions?: Set<SessionOption>;
}

export type { Macro };

// ---------------------------------------------------------------------------------------------
// Token stream -> grammar input

interface Joined {
  text: string;
  toks: A.Token[];
  starts: number[];
}

const GLUE = (t: A.Token) => t.kind === 'identifier' || t.kind === 'keyword' || (t.kind === 'operator' && t.text === '*');

function tokenText(t: A.Token): string {
  if (t.kind === 'string') return '"s"';
  if (t.kind === 'embedded') return `%{${t.text}%}`;
  return t.text;
}

function join(toks: A.Token[]): Joined {
  let text = '';
  const starts: number[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (i > 0) {
      const p = toks[i - 1];
      const adjacent = p.file === t.file && !p.chain && !t.chain && p.offset + p.length === t.offset;
      if (!(adjacent && GLUE(p) && GLUE(t))) text += ' ';
    }
    starts.push(text.length);
    text += tokenText(t);
  }
  return { text, toks, starts };
}

/** Index of the token containing or following string position `pos`. */
function tokenIndexAt(j: Joined, pos: number): number {
  let lo = 0;
  let hi = j.starts.length - 1;
  if (hi < 0 || pos > j.starts[hi] + tokenText(j.toks[hi]).length - 1) return j.toks.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (j.starts[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  // pos in the gap after token lo -> next token
  if (pos >= j.starts[lo] + tokenText(j.toks[lo]).length) return lo + 1;
  return lo;
}

// ---------------------------------------------------------------------------------------------
// Semantics: CST -> AST

let cur: Joined;
let curFile: A.SourceFile;
let curOpts: ParseOptions;

function tokOf(node: ohm.Node): A.Token {
  const i = tokenIndexAt(cur, node.source.startIdx);
  return cur.toks[Math.min(i, cur.toks.length - 1)];
}

/** Token at a given offset inside a node (for multi-token lexical glue like `sys**open`). */
function lastTokOf(node: ohm.Node): A.Token {
  const i = tokenIndexAt(cur, Math.max(node.source.startIdx, node.source.endIdx - 1));
  return cur.toks[Math.min(i, cur.toks.length - 1)];
}

const LONG_MIN = -(1n << 63n);

function canonical(b: bigint): A.Long {
  const w = BigInt.asIntN(64, b);
  return w >= -9007199254740991n && w <= 9007199254740991n ? Number(w) : w;
}

/** C strtoull(text, 0) validation; values 2^63..2^64-1 wrap negative. */
export function parseNumber(text: string, tok: A.Token): A.Long {
  let v: bigint;
  try {
    if (/^0[xX][0-9a-fA-F]+$/.test(text)) v = BigInt(text);
    else if (/^0[0-7]*$/.test(text)) v = text.length > 1 ? BigInt('0o' + text.slice(1)) : 0n;
    else if (/^[1-9][0-9]*$/.test(text)) v = BigInt(text);
    else throw new Error();
  } catch {
    throw new ParseError('number invalid or out of range', tok, true);
  }
  if (v > (1n << 64n) - 1n) throw new ParseError('number invalid or out of range', tok, true);
  return canonical(v);
}

function negate(v: A.Long): A.Long {
  return canonical(-BigInt(v));
}

function strValue(nodes: ohm.Node): string {
  return nodes.children.map((c) => unescapeRaw(tokOf(c).text)).join('');
}

function strLit(nodes: ohm.Node): A.StringLit {
  const raw = nodes.children.map((c) => tokOf(c).text).join('');
  return { k: 'str', value: strValue(nodes), raw, tok: tokOf(nodes) };
}

const PRINT_NAMES = new Set(['print', 'println', 'sprint', 'sprintln', 'printd', 'printdln', 'sprintd', 'sprintdln', 'printf', 'sprintf']);
const STAT_OPS = new Set(['@count', '@sum', '@min', '@max', '@avg', '@variance']);
const OTHER_AT_OPS = new Set(['@kderef', '@uderef', '@kregister', '@uregister', '@perf', '@probewrite', '@const', '@enum', '@enumname']);

function isLvalue(e: A.Expr): boolean {
  return e.k === 'sym' || e.k === 'index' || e.k === 'target' || e.k === 'cast' || e.k === 'atvar' || e.k === 'autocast';
}

function splitPretty(name: string): { name: string; pretty: 0 | 1 | 2 } {
  if (name.endsWith('$$') && name.length > 2 && !/^\$+$/.test(name)) return { name: name.slice(0, -2), pretty: 2 };
  if (name.endsWith('$') && name.length > 1 && !/^\$+$/.test(name)) return { name: name.slice(0, -1), pretty: 1 };
  return { name, pretty: 0 };
}

/** Binding strength of binary operators (stap's table: `in` between `&` and comparisons, `.` between shifts and `+ -`). */
const BINARY_PRECEDENCE: Record<string, number> = {
  '||': 3, '&&': 4, '|': 5, '^': 6, '&': 7, in: 8,
  '<': 9, '>': 9, '<=': 9, '>=': 9, '==': 9, '!=': 9, '=~': 9, '!~': 9,
  '<<': 10, '>>': 10, '>>>': 10, '.': 11, '+': 12, '-': 12, '*': 13, '/': 13, '%': 13,
};

/** Precedence climbing over `operand (op operand | in ARRAY | =~ "re")*`; all levels left-associative. */
function buildBinary(first: A.Expr, tails: ohm.Node[]): A.Expr {
  if (tails.length === 0) return first;
  const operands: A.Expr[] = [first];
  const ops: { op: string; tok: A.Token; prec: number }[] = [];
  const reduce = () => {
    const o = ops.pop()!;
    const r = operands.pop()!;
    const l = operands.pop()!;
    operands.push(makeBinary(o.op, o.tok, l, r));
  };
  for (const t of tails) {
    const alt = t.child(0);
    if (alt.ctorName === 'BinTail_in') {
      while (ops.length && ops[ops.length - 1].prec > 8) reduce();
      const id = alt.child(1);
      const l = operands.pop()!;
      operands.push({ k: 'in', keys: [l], array: { k: 'sym', name: id.sourceString, tok: tokOf(id) }, tok: tokOf(alt.child(0)) });
      continue;
    }
    const opNode = alt.child(0);
    const op = opNode.sourceString;
    const prec = BINARY_PRECEDENCE[op];
    while (ops.length && ops[ops.length - 1].prec >= prec) reduce();
    ops.push({ op, tok: tokOf(opNode), prec });
    operands.push(alt.ctorName === 'BinTail_regex' ? strLit(alt.child(1)) : (alt.child(1).ast() as A.Expr));
  }
  while (ops.length) reduce();
  return operands[0];
}

function makeBinary(o: string, tok: A.Token, l: A.Expr, r: A.Expr): A.Expr {
  switch (o) {
    case '=~': case '!~': return { k: 'regex', op: o, left: l, right: r as A.StringLit, tok };
    case '&&': case '||': return { k: 'logical', op: o, left: l, right: r, tok };
    case '.': return { k: 'concat', left: l, right: r, tok };
    case '<': case '>': case '<=': case '>=': case '==': case '!=': return { k: 'compare', op: o, left: l, right: r, tok };
    default: return { k: 'binary', op: o as A.BinaryOp, left: l, right: r, tok };
  }
}

function targetWithComponents(base: A.Expr, comp: A.TargetComponent, pretty: 0 | 1 | 2, opTok?: A.Token): A.Expr {
  if (base.k === 'target' || base.k === 'cast' || base.k === 'atvar') {
    if (base.pretty) throw new ParseError('-> and [ are not accepted for a pretty-printing variable', comp.tok);
    base.components.push(comp);
    base.pretty = pretty;
    return base;
  }
  if (base.k === 'autocast') {
    base.components.push(comp);
    return base;
  }
  // stap locates an autocast at its first `->` (or `[`)
  return { k: 'autocast', operand: base, components: [comp], tok: opTok ?? comp.tok };
}

function atOp(nameNode: ohm.Node, argsNode: ohm.Node | null): A.Expr {
  const tok = tokOf(nameNode);
  const name = nameNode.sourceString;
  const args: (A.Expr | null)[] = argsNode ? argsNode.asIteration().children.map((c: ohm.Node) => c.ast()) : [];
  const need = (n: number, m = n) => {
    if (!argsNode || args.length < n || args.length > m || args.some((a) => a === null)) {
      throw new ParseError(`expected ${args.length < n ? "','" : "')'"}`, tok, true);
    }
  };
  if (STAT_OPS.has(name)) {
    const op = name.slice(1) as A.StatOpName;
    need(1, op === 'variance' ? 2 : 1);
    const e: A.StatOp = { k: 'statop', op, operand: args[0]!, tok };
    if (args.length === 2) {
      const s = args[1]!;
      if (s.k !== 'num') throw new ParseError('expected literal number', s.tok);
      e.shift = Number(s.value);
    }
    return e;
  }
  if (name === '@entry') { need(1); return { k: 'entry', operand: args[0]!, tok }; }
  if (name === '@defined') { need(1); return { k: 'defined', operand: args[0]!, tok }; }
  if (name === '@cast') {
    need(2, 3);
    const t = args[1]!;
    if (t.k !== 'str') throw new ParseError('expected literal string', t.tok, true);
    const m = args[2];
    if (m && m.k !== 'str') throw new ParseError('expected literal string', m.tok, true);
    return { k: 'cast', operand: args[0]!, typeName: t.value, module: m && m.k === 'str' ? m.value : undefined, components: [], pretty: 0, addressOf: false, tok };
  }
  if (name === '@task') {
    // stap's parser: @task(p) is @cast(p, "task_struct", "kernel<linux/sched.h>")
    need(1);
    return { k: 'cast', operand: args[0]!, typeName: 'task_struct', module: 'kernel<linux/sched.h>', components: [], pretty: 0, addressOf: false, tok };
  }
  if (name === '@var') {
    need(1, 2);
    const t = args[0]!;
    if (t.k !== 'str') throw new ParseError('expected literal string', t.tok, true);
    const m = args[1];
    if (m && m.k !== 'str') throw new ParseError('expected literal string', m.tok, true);
    return { k: 'atvar', varName: t.value, module: m && m.k === 'str' ? m.value : undefined, components: [], pretty: 0, addressOf: false, tok };
  }
  if (name === '@hist_log' || name === '@hist_linear') {
    throw new ParseError('base histogram operator where expression expected', tok);
  }
  if (OTHER_AT_OPS.has(name)) {
    // stap's parser: raw kernel access needs guru mode (outside tapsets)
    if (name === '@kregister' || name === '@kderef' || name === '@const') guruOnlyOp(tok, name);
    if (args.some((a) => a === null)) throw new ParseError('wildcard not allowed in array index', tok);
    if (name === '@perf' && args.length >= 1) {
      const a = args[0]!;
      if (a.k !== 'str') throw new ParseError('expected literal string', a.tok, true);
      if (a.value === '') throw new ParseError('expected non-empty string', cur.toks[cur.toks.indexOf(a.tok) + 1] ?? a.tok, true);
    }
    return { k: 'atop', name, args: args as A.Expr[], tok };
  }
  throw new ParseError(`unknown operator ${name}`, tok);
}

function printNode(nameTok: A.Token, name: string, args: A.Expr[]): A.Expr {
  if (args.length > 32) throw new ParseError(`too many arguments to print (${args.length})`, nameTok);
  const n = name as A.PrintName;
  const e: A.Print = { k: 'print', name: n, args, tok: nameTok };
  if (n === 'printf' || n === 'sprintf') {
    const f = args[0];
    if (!f || f.k !== 'str') throw new ParseError('expected literal string', f ? f.tok : nameTok, true);
    e.format = f.value;
    e.formatRaw = f.raw;
    e.args = args.slice(1);
  } else if (n === 'printd' || n === 'printdln' || n === 'sprintd' || n === 'sprintdln') {
    const f = args[0];
    if (!f || f.k !== 'str') throw new ParseError('expected literal string', f ? f.tok : nameTok, true);
    e.delim = f.value;
    e.formatRaw = f.raw;
    e.args = args.slice(1);
    if (e.args.length < 2) throw new ParseError('expected ","', nameTok, true);
  } else if (n === 'print' || n === 'sprint' || n === 'sprintln') {
    if (args.length < 1) throw new ParseError('expected expression', nameTok, true);
  }
  if ((n === 'print' || n === 'println' || n === 'sprint' || n === 'sprintln') && args.length === 1 && args[0].k === 'hist') {
    e.hist = args[0];
    e.args = [];
  }
  for (const a of e.args) if (a.k === 'hist') throw new ParseError('base histogram operator where expression expected', a.tok);
  return e;
}

function makeSemantics(g: ohm.Grammar): ohm.Semantics {
  const s = g.createSemantics();
  s.addOperation('ast', {
    File(decls) { return decls.children.map((d) => d.ast()); },

    Decl_embed(e) { guruOnly(tokOf(e), 'embedded code'); return { decl: 'embed', value: { code: tokOf(e).text, tok: tokOf(e) } }; },
    Decl_global(_kw, list, _semi) { return { decl: 'globals', value: list.ast() }; },
    Decl_privateGlobal(_p, _kw, list, _semi) { return { decl: 'globals', value: (list.ast() as A.VarDecl[]).map((v) => ({ ...v, isPrivate: true })) }; },
    Decl_privateFunction(_p, f) { const fn = f.ast() as A.FunctionDecl; fn.isPrivate = true; return { decl: 'function', value: fn }; },
    Decl_privateVar(_p, list, _semi) { return { decl: 'globals', value: (list.ast() as A.VarDecl[]).map((v) => ({ ...v, isPrivate: true })) }; },
    Decl_function(f) { return { decl: 'function', value: f.ast() }; },
    Decl_alias(kw, names, points, block, epi) {
      const tok = tokOf(kw);
      const nameList: A.ProbePoint[] = [];
      let epilogueOp = false;
      for (const n of names.children) {
        const pp = (n.child(0).ast() as A.ProbePoint[])[0];
        const op = n.child(1).sourceString;
        if (pp.optional || pp.sufficient) throw new ParseError('probe point alias name cannot be optional nor sufficient', pp.tok);
        if (pp.condition) throw new ParseError('probe point alias name cannot have a condition', pp.tok);
        for (const c of pp.components) {
          if (c.arg) throw new ParseError(`alias component ${c.name} contains illegal parameter`, c.tok);
        }
        nameList.push(pp);
        epilogueOp = op === '+=';
      }
      const body = block.ast() as A.Block;
      rejectReturn(body);
      checkHistStmt(body);
      const decl: A.AliasDecl = { names: nameList, points: points.ast(), tok, file: curFile };
      if (epi.children.length) {
        if (epilogueOp) throw new ParseError("Combined prologue and epilogue cannot be defined with '+='", tokOf(epi));
        decl.prologue = body;
        decl.epilogue = epi.child(0).child(1).ast();
      } else if (epilogueOp) decl.epilogue = body;
      else decl.prologue = body;
      return { decl: 'alias', value: decl };
    },
    Decl_probe(kw, points, block) {
      const body = block.ast() as A.Block;
      rejectReturn(body);
      checkHistStmt(body);
      return { decl: 'probe', value: { points: points.ast(), body, tok: tokOf(kw), file: curFile } as A.ProbeDecl };
    },

    GlobalList(list) { return list.asIteration().children.map((c) => c.ast()); },
    GlobalDecl(id, pct, size, init) {
      const v: A.VarDecl = { name: id.sourceString, tok: tokOf(id), kind: 'global' };
      if (pct.children.length) v.wrap = true;
      if (size.children.length) {
        const numNode = size.child(0).child(1);
        const n = parseNumber(numNode.sourceString, tokOf(numNode));
        if (typeof n === 'bigint' || n < 1 || n > 2147483647) throw new ParseError('array size out of range', tokOf(numNode));
        v.maxSize = n;
      }
      if (init.children.length) {
        if (v.maxSize !== undefined || v.wrap) throw new ParseError('only scalar globals can be initialized', tokOf(init));
        v.init = init.child(0).child(1).ast();
      }
      return v;
    },

    Function(_kw, name, rtype, _lp, params, _rp, prio, body) {
      const fn: A.FunctionDecl = {
        name: name.sourceString, tok: tokOf(name), params: params.asIteration().children.map((p) => p.ast()),
        priority: 0, body: body.ast(), file: curFile,
      };
      if (rtype.children.length) fn.returnType = rtype.child(0).ast();
      if (fn.body.k === 'block') checkHistStmt(fn.body);
      const seen = new Set<string>();
      for (const p of fn.params) {
        if (seen.has(p.name)) throw new ParseError('duplicate parameter names', p.tok);
        seen.add(p.name);
      }
      if (prio.children.length) {
        const v = prio.child(0).child(1).ast() as A.NumberLit;
        if (Number(v.value) < 1 || typeof v.value === 'bigint') throw new ParseError('specified priority must be > 0', v.tok);
        fn.priority = Number(v.value);
      } else if (curFile.isTapset) fn.priority = 1;
      return fn;
    },
    functionName(n) { return n.sourceString; },
    FunctionBody(b) {
      if (b.ctorName === 'Embedded' || b.child(0)?.ctorName === 'embedded') {
        const t = tokOf(b);
        guruOnly(t, 'embedded code');
        return { k: 'embedded', code: t.text, tok: t };
      }
      return b.ast();
    },
    FormalParam(id, type) {
      const p: A.Param = { name: id.sourceString, tok: tokOf(id) };
      if (type.children.length) p.declaredType = type.child(0).ast();
      return p;
    },
    TypeAnnot(_c, t) { return t.sourceString as A.Type; },

    ProbePointList(list) { return list.asIteration().children.flatMap((c) => c.ast()); },
    ProbePoint(comps, suffixes, cond) {
      // brace expansion: cartesian product of component alternatives; an alternative may carry
      // its own `?`/`!`/condition only when its group is the last component (stap's rule)
      interface Variant { components: A.ProbePointComponent[]; optional: boolean; sufficient: boolean; condition?: A.Expr }
      let variants: Variant[] = [{ components: [], optional: false, sufficient: false }];
      const parts = comps.asIteration().children;
      parts.forEach((c, i) => {
        const alts = c.ast() as A.ProbePoint[] | A.ProbePointComponent;
        if (Array.isArray(alts)) {
          const next: Variant[] = [];
          for (const a of alts) {
            if ((a.optional || a.sufficient || a.condition) && i !== parts.length - 1) {
              throw new ParseError("'?', '!' or condition must only be specified in suffix", tokOf(comps));
            }
          }
          for (const v of variants) {
            for (const a of alts) {
              next.push({
                components: [...v.components, ...a.components],
                optional: v.optional || a.optional, sufficient: v.sufficient || a.sufficient, condition: a.condition ?? v.condition,
              });
            }
          }
          variants = next;
        } else variants = variants.map((v) => ({ ...v, components: [...v.components, alts] }));
      });
      let optional = false;
      let sufficient = false;
      let seenSuffix = false;
      for (const sfx of suffixes.children) {
        if (seenSuffix || variants.some((v) => v.optional)) throw new ParseError("'?' or '!' respecified", tokOf(sfx), true);
        seenSuffix = true;
        if (sfx.sourceString === '?') optional = true;
        else { optional = true; sufficient = true; }
      }
      const condition = cond.children.length ? (cond.child(0).child(2).ast() as A.Expr) : undefined;
      const tok = tokOf(comps);
      return variants.map((v) => ({
        components: v.components, optional: optional || v.optional, sufficient: sufficient || v.sufficient,
        condition: condition ?? v.condition, tok,
      }));
    },
    PPComponent_braces(_l, list, _r) { return list.ast(); },
    PPComponent_name(name, arg) {
      // stap glues a component written as several tokens (`sys**open`, `*xyz`) into one token
      // whose text is the whole name (messages quote it: identifier 'sys**open')
      const first = tokOf(name);
      const tok = first.text === name.sourceString ? first : { ...first, text: name.sourceString, length: name.sourceString.length };
      const c: A.ProbePointComponent = { name: name.sourceString, tok };
      if (arg.children.length) c.arg = arg.child(0).child(1).ast();
      return c;
    },

    Literal_string(strs) { return strLit(strs); },
    Literal_number(n) { return n.ast(); },
    SignedNumber(minus, num) {
      const tok = tokOf(num);
      let v = parseNumber(num.sourceString, tok);
      if (minus.children.length) v = negate(v);
      return { k: 'num', value: v, tok: minus.children.length ? tokOf(minus) : tok } as A.NumberLit;
    },

    Block(l, stmts, _r) {
      const b: A.Block = { k: 'block', stmts: stmts.children.map((c) => c.ast()), tok: tokOf(l) };
      return b;
    },
    Stmt_null(s) { return { k: 'null', tok: tokOf(s) }; },
    Stmt_block(b) { return b.ast(); },
    Stmt_if(kw, _l, cond, _r, then, _else, els) {
      const st: A.If = { k: 'if', cond: cond.ast(), then: then.ast(), tok: tokOf(kw) };
      if (els.children.length) st.else = els.child(0).ast();
      return st;
    },
    Stmt_while(kw, _l, cond, _r, body) { return { k: 'while', cond: cond.ast(), body: body.ast(), tok: tokOf(kw) }; },
    Stmt_for(kw, _l, init, _s1, cond, _s2, incr, _r, body) {
      const st: A.For = { k: 'for', body: body.ast(), tok: tokOf(kw) };
      if (init.children.length) st.init = init.child(0).ast();
      if (cond.children.length) st.cond = cond.child(0).ast();
      if (incr.children.length) st.incr = incr.child(0).ast();
      return st;
    },
    Stmt_foreach(kw, _l, spec, _in, arr, sort, limit, _r, body) {
      const sp = spec.ast() as { value?: { sym: A.Sym; sort?: 1 | -1 }; keys: { sym: A.Sym; sort?: 1 | -1 }[] };
      const ar = arr.ast() as { array: A.Sym | A.Hist; slice?: (A.Expr | null)[] };
      const st: A.Foreach = { k: 'foreach', keys: sp.keys.map((k) => k.sym), array: ar.array, body: body.ast(), tok: tokOf(kw) };
      if (sp.value) st.value = sp.value.sym;
      if (ar.slice) st.slice = ar.slice;
      let sorts = 0;
      const mark = (col: number, dir: 1 | -1) => {
        sorts++;
        st.sortColumn = col;
        st.sortDirection = dir;
      };
      if (sp.value?.sort) mark(0, sp.value.sort);
      sp.keys.forEach((k, i) => { if (k.sort) mark(i + 1, k.sort); });
      if (sort.children.length) {
        const sn = sort.child(0);
        const agg = sn.child(0);
        if (agg.children.length) st.sortAggregate = agg.sourceString.slice(1) as A.StatOpName;
        mark(0, sn.child(1).sourceString === '+' ? 1 : -1);
      }
      if (sorts > 1) throw new ParseError('multiple sort directives', tokOf(kw));
      if (limit.children.length) st.limit = limit.child(0).child(1).ast();
      return st;
    },
    ForeachSpec_valueAndKeys(v, _eq, keys) { return { value: v.ast(), keys: keys.ast() }; },
    ForeachSpec_keys(keys) { return { keys: keys.ast() }; },
    ForeachKeys_tuple(_l, list, _r) { return list.asIteration().children.map((c) => c.ast()); },
    ForeachKeys_single(v) { return [v.ast()]; },
    ForeachVar(id, mark) {
      const sym: A.Sym = { k: 'sym', name: id.sourceString, tok: tokOf(id) };
      return { sym, sort: mark.children.length ? (mark.sourceString === '+' ? 1 : -1) : undefined };
    },
    ForeachArray_hist(h) { return { array: h.ast() }; },
    ForeachArray_array(id, _l, list, _r) {
      const r: { array: A.Sym; slice?: (A.Expr | null)[] } = { array: { k: 'sym', name: id.sourceString, tok: tokOf(id) } };
      if (list.children.length) r.slice = list.child(0).asIteration().children.map((c) => c.ast());
      return r;
    },
    Stmt_try(kw, body, _c, cv, handler) {
      const st: A.Try = { k: 'try', body: body.ast(), handler: handler.ast(), tok: tokOf(kw) };
      if (cv.children.length) {
        const id = cv.child(0).child(1);
        st.catchVar = { k: 'sym', name: id.sourceString, tok: tokOf(id) };
      }
      return st;
    },
    Stmt_returnVoid(kw, _la, _semi) { return { k: 'return', tok: tokOf(kw) }; },
    Stmt_return(kw, e, _semi) { return { k: 'return', value: e.ast(), tok: tokOf(kw) }; },
    Stmt_next(kw, _s) { return { k: 'next', tok: tokOf(kw) }; },
    Stmt_break(kw, _s) { return { k: 'break', tok: tokOf(kw) }; },
    Stmt_continue(kw, _s) { return { k: 'continue', tok: tokOf(kw) }; },
    Stmt_delete(kw, e, _s) { return { k: 'delete', target: e.ast(), tok: tokOf(kw) }; },
    Stmt_expr(e, _s) { const ex = e.ast() as A.Expr; return { k: 'expr', expr: ex, tok: ex.tok }; },

    Expr(e) { return e.ast(); },
    Assignment_assign(target, op, value) {
      const t = target.ast() as A.Expr;
      const o = op.sourceString as A.AssignOp;
      if (!isLvalue(t)) throw new ParseError('expected lvalue', t.tok);
      return { k: 'assign', op: o, target: t, value: value.ast(), tok: tokOf(op) } as A.Assign;
    },
    Ternary_cond(c, q, a, _colon, b) { return { k: 'ternary', cond: c.ast(), then: a.ast(), else: b.ast(), tok: tokOf(q) }; },
    Binary(first, tails) { return buildBinary(first.ast() as A.Expr, tails.children); },
    Unary_preinc(op, e) { return incdec(op, e, true); },
    Unary_predec(op, e) { return incdec(op, e, true); },
    Unary_neg(op, e) { return unary(op, e); },
    Unary_plus(op, e) { return unary(op, e); },
    Unary_not(op, e) { return unary(op, e); },
    Unary_bitnot(op, e) { return unary(op, e); },
    Unary_addr(op, e) {
      const x = e.ast() as A.Expr;
      if (x.k === 'target' || x.k === 'cast' || x.k === 'atvar' || x.k === 'autocast') { x.addressOf = true; return x; }
      throw new ParseError('expected @cast, @var or $var', x.tok, true);
    },
    Postfix_postinc(e, op) { return incdec(op, e, false); },
    Postfix_postdec(e, op) { return incdec(op, e, false); },
    Suffixed(primary, tails) {
      let e = primary.ast() as A.Expr;
      for (const t of tails.children) {
        const alt = t.child(0);
        if (alt.ctorName === 'SuffixTail_pretty') {
          // `@cast(p, "T")$`, `$v[0]$$`: pretty-printing after `)` or `]`
          const tok = tokOf(alt);
          if (e.k !== 'target' && e.k !== 'cast' && e.k !== 'atvar') throw new ParseError('expected @cast, @var or $var', tok, true);
          if (e.pretty) throw new ParseError('-> and [ are not accepted for a pretty-printing variable', tok);
          e.pretty = alt.sourceString.trim() === '$$' ? 2 : 1;
        } else if (alt.ctorName === 'SuffixTail_member') {
          const member = alt.child(1);
          const sp = splitPretty(member.sourceString);
          e = targetWithComponents(e, { k: 'member', name: sp.name, tok: lastTokOf(member) }, sp.pretty, tokOf(alt.child(0)));
        } else {
          const idx = alt.child(1).ast() as A.Expr;
          if (e.k === 'hist') e = { k: 'index', base: e, indexes: [idx], tok: e.tok };
          else e = targetWithComponents(e, { k: 'index', index: idx, tok: tokOf(alt.child(0)) }, 0);
        }
      }
      return e;
    },
    Primary_tuplein(_l, keys, _r, kw, id) {
      return { k: 'in', keys: keys.asIteration().children.map((c) => c.ast()), array: { k: 'sym', name: id.sourceString, tok: tokOf(id) }, tok: tokOf(kw) };
    },
    Primary_paren(_l, e, _r) { return e.ast(); },
    Primary_number(n) { return { k: 'num', value: parseNumber(n.sourceString, tokOf(n)), tok: tokOf(n) }; },
    Primary_string(strs) { return strLit(strs); },
    Primary_embedded(e) {
      const t = tokOf(e);
      guruOnly(t, 'embedded expression code');
      return { k: 'embedded', code: t.text, tok: t };
    },
    Primary_hist(h) { return h.ast(); },
    Primary_atop(name, _l, args, _r) { return atOp(name, args); },
    Primary_atbare(name) {
      const tok = tokOf(name);
      const n = name.sourceString;
      if (STAT_OPS.has(n) || n === '@entry' || n === '@defined' || n === '@cast' || n === '@task' || n === '@var' || OTHER_AT_OPS.has(n)) {
        throw new ParseError("expected '('", cur.toks[cur.toks.indexOf(tok) + 1] ?? tok, true);
      }
      throw new ParseError(`unknown operator ${n}`, tok);
    },
    Primary_call(id, _l, args, _r) {
      const tok = tokOf(id);
      const name = id.sourceString;
      const list = args.asIteration().children.map((c) => c.ast()) as A.Expr[];
      if (PRINT_NAMES.has(name)) return printNode(tok, name, list);
      for (const a of list) if (a.k === 'hist') throw new ParseError('base histogram operator where expression expected', a.tok);
      return { k: 'call', name, args: list, tok };
    },
    Primary_index(id, l, list, _r) {
      const items = list.asIteration().children;
      if (id.sourceString.startsWith('$') && items.length === 1) {
        // `$ptr[i]`: an index component of the target variable
        const idx = items[0].ast() as A.Expr | null;
        if (!idx) throw new ParseError('wildcard not allowed in array index', tokOf(l));
        const sp = splitPretty(id.sourceString);
        const base: A.Target = { k: 'target', name: sp.name, components: [], pretty: 0, addressOf: false, tok: tokOf(id) };
        return targetWithComponents(base, { k: 'index', index: idx, tok: tokOf(l) }, 0);
      }
      const base: A.Sym = { k: 'sym', name: id.sourceString, tok: tokOf(id) };
      return { k: 'index', base, indexes: list.asIteration().children.map((c) => c.ast()), tok: base.tok };
    },
    Primary_var(id) {
      const tok = tokOf(id);
      const name = id.sourceString;
      if (name.startsWith('$')) {
        const sp = splitPretty(name);
        return { k: 'target', name: sp.name, components: [], pretty: sp.pretty, addressOf: false, tok } as A.Target;
      }
      return { k: 'sym', name, tok };
    },
    HistOp_log(kw, _l, e, _r) { return { k: 'hist', kind: 'log', operand: e.ast(), params: [], tok: tokOf(kw) }; },
    HistOp_linear(kw, _l, e, _c1, lo, _c2, hi, _c3, w, _r) {
      return { k: 'hist', kind: 'linear', operand: e.ast(), params: [lo.ast().value, hi.ast().value, w.ast().value], tok: tokOf(kw) };
    },
    IndexOrStar_star(_s) { return null; },
    IndexOrStar(e) { return e.ast(); },
    Embedded(e) { return e.ast(); },
    embedded(_a, _b, _c) { return tokOf(this as unknown as ohm.Node); },
    NonemptyListOf(first, _sep, rest) { return [first.ast(), ...rest.children.map((c) => c.ast())]; },
    _iter(...children) { return children.map((c) => c.ast()); },
  });
  return s;
}

/** Histograms are values only as print arguments, indexed, or iterated by foreach. */
function checkHistExpr(e: A.Expr | null | undefined): void {
  if (!e) return;
  switch (e.k) {
    case 'hist': throw new ParseError('base histogram operator where expression expected', e.tok);
    case 'index': if (e.base.k === 'hist') checkHistExpr(e.base.operand); e.indexes.forEach(checkHistExpr); return;
    case 'print': if (e.hist) checkHistExpr(e.hist.operand); e.args.forEach(checkHistExpr); return;
    case 'binary': case 'logical': case 'compare': case 'concat': checkHistExpr(e.left); checkHistExpr(e.right); return;
    case 'regex': checkHistExpr(e.left); return;
    case 'unary': case 'incdec': case 'entry': case 'defined': case 'statop': checkHistExpr(e.operand); return;
    case 'ternary': checkHistExpr(e.cond); checkHistExpr(e.then); checkHistExpr(e.else); return;
    case 'assign': checkHistExpr(e.target); checkHistExpr(e.value); return;
    case 'call': case 'atop': e.args.forEach(checkHistExpr); return;
    case 'in': e.keys.forEach(checkHistExpr); return;
    case 'cast': case 'autocast': checkHistExpr(e.operand); return;
    default: return;
  }
}

function checkHistStmt(s: A.Stmt): void {
  switch (s.k) {
    case 'block': s.stmts.forEach(checkHistStmt); return;
    case 'expr': checkHistExpr(s.expr); return;
    case 'if': checkHistExpr(s.cond); checkHistStmt(s.then); if (s.else) checkHistStmt(s.else); return;
    case 'while': checkHistExpr(s.cond); checkHistStmt(s.body); return;
    case 'for': checkHistExpr(s.init); checkHistExpr(s.cond); checkHistExpr(s.incr); checkHistStmt(s.body); return;
    case 'foreach':
      if (s.array.k === 'hist') checkHistExpr(s.array.operand);
      s.slice?.forEach(checkHistExpr); checkHistExpr(s.limit); checkHistStmt(s.body); return;
    case 'return': checkHistExpr(s.value); return;
    case 'delete': checkHistExpr(s.target); return;
    case 'try': checkHistStmt(s.body); checkHistStmt(s.handler); return;
    default: return;
  }
}

/** `return` is only legal in functions (stap checks this while parsing). */
function rejectReturn(s: A.Stmt): void {
  switch (s.k) {
    case 'return': throw new ParseError("found 'return' not in function context", s.tok, true);
    case 'block': s.stmts.forEach(rejectReturn); break;
    case 'if': rejectReturn(s.then); if (s.else) rejectReturn(s.else); break;
    case 'while': case 'for': case 'foreach': rejectReturn(s.body); break;
    case 'try': rejectReturn(s.body); rejectReturn(s.handler); break;
    default: break;
  }
}

function unary(op: ohm.Node, e: ohm.Node): A.Expr {
  return { k: 'unary', op: op.sourceString as A.Unary['op'], operand: e.ast(), tok: tokOf(op) };
}

function incdec(op: ohm.Node, e: ohm.Node, prefix: boolean): A.Expr {
  const x = e.ast() as A.Expr;
  if (!isLvalue(x)) throw new ParseError('expected lvalue', x.tok);
  return { k: 'incdec', op: op.sourceString as '++' | '--', prefix, operand: x, tok: tokOf(op) };
}

function guruOnlyOp(t: A.Token, name: string): void {
  if (!curOpts.guru && !curFile.isTapset) throw new ParseError(`using ${name} operator not permitted; need stap -g`, t, true);
}

function guruOnly(t: A.Token, what: string): void {
  if (!curOpts.guru && !curFile.isTapset) throw new ParseError(`${what} in unprivileged script; need stap -g`, t, true);
}

let semantics: ohm.Semantics | null = null;

// ---------------------------------------------------------------------------------------------
// Entry points

const TOP_KEYWORDS = new Set(['probe', 'global', 'function', 'private']);

/** Lex and preprocess a file: the token stream the grammar sees. */
export function preprocessFile(file: A.SourceFile, opts: ParseOptions, errors: ParseError[]): A.Token[] {
  const toks = tokenize(file, { args: opts.args, usedArgs: opts.usedArgs, errors });
  const popts = { guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, libraryMacros: opts.libraryMacros, usedOptions: opts.usedOptions, errors };
  const expanded = expandMacros(toks, popts);
  return resolveConditionals(expanded, popts, opts.args);
}

/** Collect `@define`s of a library macro file (.stpm). */
export function parseMacroFile(file: A.SourceFile, opts: ParseOptions, diag: Diagnostics): Map<string, Macro> | null {
  const errors: ParseError[] = [];
  const toks = tokenize(file, { args: opts.args, errors });
  const defined = new Map<string, Macro>();
  expandMacros(toks, { guru: opts.guru, errors }, defined);
  for (const e of errors) diag.parseError(e);
  return errors.length ? null : defined;
}

/**
 * Parse one file.  Errors are printed through `diag`; returns null if there were any.
 */
export function parseFile(file: A.SourceFile, opts: ParseOptions, diag: Diagnostics): A.StapFile | null {
  const errors: ParseError[] = [];
  const lexed = tokenize(file, { args: opts.args, usedArgs: opts.usedArgs, errors });
  if (lexed.length === 0 && errors.length === 0 && !file.isTapset) {
    diag.plain(`Input file '${file.name}' is empty.\n`);
    return null;
  }
  const popts = { guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, libraryMacros: opts.libraryMacros, usedOptions: opts.usedOptions, errors };
  const toks = resolveConditionals(expandMacros(lexed, popts), popts, opts.args);
  for (const t of toks) {
    const pending = pendingErrors.get(t);
    if (pending) { errors.push(pending); break; }
  }
  const result: A.StapFile = { file, globals: [], functions: [], probes: [], aliases: [], embeds: [] };
  if (errors.length) {
    for (const e of errors) diag.parseError(e);
    return null;
  }
  if (toks.length === 0 && !file.isTapset) {
    diag.plain(`Input file '${file.name}' is empty after preprocessing.\n`);
    return null;
  }
  const g = getGrammar();
  if (!semantics) semantics = makeSemantics(g);
  const joined = join(toks);
  let start = 0; // token index where the current parse attempt starts
  let failed = false;
  while (start < toks.length) {
    const sub: Joined = start === 0 ? joined : join(toks.slice(start));
    const m = g.match(sub.text, 'File');
    cur = sub;
    curFile = file;
    curOpts = opts;
    if (m.succeeded()) {
      try {
        collect(semantics(m).ast(), result);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        diag.parseError(e);
        failed = true;
      }
      break;
    }
    failed = true;
    const pos = (m as ohm.FailedMatchResult).getRightmostFailurePosition();
    const ti = tokenIndexAt(sub, pos);
    diag.parseError(failureError(m, sub, ti, file));
    // resynchronise at the next top-level keyword after the failure point
    let k = Math.max(ti, 1);
    while (k < sub.toks.length && !(sub.toks[k].kind === 'keyword' && TOP_KEYWORDS.has(sub.toks[k].text)) && sub.toks[k].kind !== 'embedded') k++;
    if (k >= sub.toks.length) break;
    start += k;
  }
  void curOpts;
  return failed ? null : result;
}

function collect(decls: { decl: string; value: unknown }[], out: A.StapFile): void {
  const seen = new Map<string, boolean>(); // name -> private
  for (const d of decls) {
    switch (d.decl) {
      case 'embed': out.embeds.push(d.value as A.EmbeddedCode); break;
      case 'globals':
        for (const v of d.value as A.VarDecl[]) {
          const prev = seen.get(v.name);
          if (prev !== undefined) {
            throw new ParseError(prev === !!v.isPrivate ? 'duplicate global name' : 'global versus private variable declaration conflict', v.tok, true);
          }
          seen.set(v.name, !!v.isPrivate);
          out.globals.push(v);
        }
        break;
      case 'function': out.functions.push(d.value as A.FunctionDecl); break;
      case 'alias': out.aliases.push(d.value as A.AliasDecl); break;
      case 'probe': out.probes.push(d.value as A.ProbeDecl); break;
    }
  }
}

/** Turn an ohm failure into stap's message about the token at the failure point. */
function failureError(m: ohm.MatchResult, j: Joined, ti: number, file: A.SourceFile): ParseError {
  const tok = j.toks[ti];
  if (!tok) return new ParseError(expectedMessage(m, undefined), undefined, true, file);
  if (tok.kind === 'junk') return new ParseError('unexpected junk', tok);
  return new ParseError(expectedMessage(m, tok), tok, true);
}

function expectedMessage(m: ohm.MatchResult, tok: A.Token | undefined): string {
  let exp: string[] = [];
  try {
    exp = (m as ohm.FailedMatchResult).getExpectedText().split(/, or |, | or /).map((x: string) => x.trim()).filter(Boolean);
  } catch {
    exp = [];
  }
  const has = (s: string) => exp.includes(s);
  if (has('"probe"') || has('"global"') || has('"function"')) return "expected 'probe', 'global', 'private', 'function', or '%{'";
  if (tok && tok.kind === 'operator' && tok.text === ',' && !has('","')) return 'unexpected comma-separated expression list';
  if (has('"{"') && exp.length <= 3) return "expected '{'";
  if (has('"("') && exp.length <= 2) return "expected '('";
  if (has('")"') && exp.length <= 2) return "expected ')'";
  if (has('"]"') && exp.length <= 2) return "expected ']'";
  if (has('";"') && exp.length <= 2) return "expected ';'";
  if (has('an identifier') || has('ident')) return 'expected identifier';
  if (has('a number') || has('number')) return 'expected literal string or number';
  if (exp.length > 4) return 'expected literal string or number';
  return 'expected ' + exp.map((e) => e.replace(/^"(.*)"$/, "'$1'")).join(' or ');
}

export { KEYWORDS };
