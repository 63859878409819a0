/**
 * Every operator on every kind of operand, in every context an expression can sit in
 * (assignment source, statement, condition, index, foreach limit, printf argument, return value,
 * aggregate operand), plus the lvalue rules of assignments, ++/--, <<<, delete and `in`.
 */
import { OracleCase, Table, p2 } from '../cases';

/** Operands: the text and the declarations it needs (globals, functions, a local set first). */
interface Operand {
  key: string;
  text: string;
  pre?: string;   // statement run first in the probe
  decl?: string;  // top-level declaration
}

const OPERANDS: Operand[] = [
  { key: 'L', text: '3' },
  { key: 'S', text: '"s"' },
  { key: 'lv', text: 'lv', pre: 'lv = 7;' },
  { key: 'sv', text: 'sv', pre: 'sv = "x";' },
  { key: 'gl', text: 'gl', decl: 'global gl = 5' },
  { key: 'gs', text: 'gs', decl: 'global gs = "g"' },
  { key: 'st', text: 'st', decl: 'global st', pre: 'st <<< 1;' },
  { key: 'ar', text: 'ar', decl: 'global ar', pre: 'ar[1] = 2;' },
  { key: 'ae', text: 'ar[1]', decl: 'global ar', pre: 'ar[1] = 2;' },
  { key: 'as', text: 'sa["k"]', decl: 'global sa', pre: 'sa["k"] = "v";' },
  { key: 'fl', text: 'fl()', decl: 'function fl() { return 1 }' },
  { key: 'fs', text: 'fs()', decl: 'function fs() { return "f" }' },
  { key: 'cnt', text: '@count(st)', decl: 'global st', pre: 'st <<< 1;' },
];

const BINARY = ['+', '-', '*', '/', '%', '<<', '>>', '>>>', '&', '|', '^', '&&', '||', '.', '<', '>', '<=', '>=', '==', '!=', '=~', '!~'];
const UNARY_PREFIX = ['-', '+', '!', '~', '++', '--'];
const UNARY_POSTFIX = ['++', '--'];
const ASSIGN = ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '>>>=', '&=', '|=', '^=', '.='];

function script(ops: Operand[], body: string, extraDecl: string[] = []): string {
  const decls = new Set<string>(extraDecl);
  let pre = '';
  for (const o of ops) {
    if (o.decl) decls.add(o.decl);
    if (o.pre && !pre.includes(o.pre)) pre += o.pre + ' ';
  }
  return [...decls].join('\n') + (decls.size ? '\n' : '') + `probe begin { ${pre}${body} }`;
}

/** Contexts an expression `E` can appear in (body text with E substituted). */
const CONTEXTS: { key: string; body: (e: string) => string; decl?: string }[] = [
  { key: 'assign', body: (e) => `x = ${e}; println(x)` },
  { key: 'stmt', body: (e) => `${e};` },
  { key: 'if', body: (e) => `if (${e}) println(1)` },
  { key: 'while', body: (e) => `while (${e}) break` },
  { key: 'index', body: (e) => `ix[${e}] = 1`, decl: 'global ix' },
  { key: 'printf', body: (e) => `printf("%d\\n", ${e})` },
  { key: 'print', body: (e) => `print(${e})` },
  { key: 'return', body: (e) => `println(r(${e}))`, decl: 'function r(v) { return v }' },
  { key: 'agg', body: (e) => `ag <<< ${e}`, decl: 'global ag' },
  { key: 'ternary', body: (e) => `println(${e} ? 1 : 2)` },
];

export const operators: Table = {
  name: 'operators',
  about: 'binary, unary, assignment and special operators on literals, locals, globals, stats, arrays, calls, in every context',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    // every binary operator on every operand pair, as an assignment source
    const cross = OPERANDS.filter((o) => ['L', 'S', 'lv', 'sv', 'st', 'ar', 'fs'].includes(o.key));
    for (const op of BINARY) {
      for (const a of cross) {
        for (const b of cross) {
          out.push(p2(`bin:${op}:${a.key}:${b.key}`, script([a, b], `x = ${a.text} ${op} ${b.text}; println(x)`)));
        }
      }
    }
    // every binary operator in every context, on the typed operand pairs
    const pairs: [string, string][] = [['lv', 'lv'], ['sv', 'sv'], ['lv', 'sv']];
    const byKey = new Map(OPERANDS.map((o) => [o.key, o]));
    for (const ctx of CONTEXTS) {
      if (ctx.key === 'assign') continue;
      for (const op of BINARY) {
        for (const [ka, kb] of pairs) {
          const a = byKey.get(ka)!;
          const b = byKey.get(kb)!;
          out.push(p2(`ctx:${ctx.key}:${op}:${ka}:${kb}`, script([a, b], ctx.body(`${a.text} ${op} ${b.text}`), ctx.decl ? [ctx.decl] : [])));
        }
      }
    }
    // unary operators on every operand, in two contexts
    for (const op of UNARY_PREFIX) {
      for (const a of OPERANDS) {
        out.push(p2(`pre:${op}:${a.key}`, script([a], `x = ${op}${a.text}; println(x)`)));
        out.push(p2(`pre-stmt:${op}:${a.key}`, script([a], `${op}${a.text};`)));
      }
    }
    for (const op of UNARY_POSTFIX) {
      for (const a of OPERANDS) {
        out.push(p2(`post:${op}:${a.key}`, script([a], `x = ${a.text}${op}; println(x)`)));
        out.push(p2(`post-stmt:${op}:${a.key}`, script([a], `${a.text}${op};`)));
      }
    }
    // assignment operators: every lvalue kind (and non-lvalues) with a long and a string source
    const targets: Operand[] = [
      ...OPERANDS,
      { key: 'expr', text: '(lv + 1)', pre: 'lv = 7;' },
      { key: 'new', text: 'nv' },
      { key: 'arg', text: '$1' },
      { key: 'atarg', text: '@1' },
      { key: 'ctx', text: '$ctx' },
    ];
    for (const op of ASSIGN) {
      for (const t of targets) {
        for (const src of ['2', '"t"']) {
          const args = t.key === 'arg' || t.key === 'atarg' ? ['-p2', '-e', script([t], `${t.text} ${op} ${src}; println(${t.text})`), 'A'] : null;
          const id = `asg:${op}:${t.key}:${src === '2' ? 'L' : 'S'}`;
          if (args) out.push({ id, args });
          else out.push(p2(id, script([t], `${t.text} ${op} ${src}; println(${t.text})`)));
        }
      }
    }
    // assignment as an expression (chained, in conditions, as an index)
    for (const op of ['=', '+=', '.=']) {
      out.push(p2(`asg-expr:chain:${op}`, `probe begin { a = 1; b = 2; a ${op} b ${op} 3; println(a, b) }`));
      out.push(p2(`asg-expr:if:${op}`, `probe begin { a = "1"; if (a ${op} "2") println(a) }`));
      out.push(p2(`asg-expr:index:${op}`, `global g; probe begin { a = 1; g[a ${op} 1] = 1; println(a) }`));
    }
    // <<< : every left side with a long and a string right side
    for (const t of targets) {
      for (const src of ['2', '"t"', 'lv', 'st']) {
        const o = OPERANDS.find((x) => x.text === src);
        out.push(p2(`agg:${t.key}:${src.replace(/"/g, '')}`, script(o ? [t, o] : [t], `${t.text} <<< ${src}`)));
      }
    }
    // aggregate extractors on every operand
    for (const ex of ['@count', '@sum', '@min', '@max', '@avg', '@variance', '@hist_log', '@hist_linear']) {
      for (const a of OPERANDS) {
        const args = ex === '@hist_linear' ? `${a.text}, 0, 10, 1` : a.text;
        const body = ex.startsWith('@hist') ? `print(${ex}(${args}))` : `x = ${ex}(${args}); println(x)`;
        out.push(p2(`extract:${ex}:${a.key}`, script([a], body)));
      }
    }
    // ternary: condition and branch kinds
    for (const c of OPERANDS) {
      out.push(p2(`tern-cond:${c.key}`, script([c], `x = ${c.text} ? 1 : 2; println(x)`)));
    }
    for (const a of OPERANDS) {
      for (const b of OPERANDS) {
        if (!['L', 'S', 'lv', 'sv', 'st', 'ar'].includes(a.key) || !['L', 'S', 'lv', 'sv', 'st', 'ar'].includes(b.key)) continue;
        out.push(p2(`tern:${a.key}:${b.key}`, script([a, b], `x = 1 ? ${a.text} : ${b.text}; println(x)`)));
      }
    }
    // `in`: key kinds and array kinds
    for (const k of OPERANDS) {
      out.push(p2(`in-key:${k.key}`, script([k], `if (${k.text} in ia) println(1); ia[1] = 1`, ['global ia'])));
    }
    for (const a of OPERANDS) {
      out.push(p2(`in-arr:${a.key}`, script([a], `if (1 in ${a.text}) println(1)`)));
    }
    out.push(p2('in-multi', 'global m; probe begin { m[1,"a"] = 1; if ([1, "a"] in m) println(1) }'));
    out.push(p2('in-multi-arity', 'global m; probe begin { m[1,"a"] = 1; if ([1] in m) println(1) }'));
    out.push(p2('in-multi-type', 'global m; probe begin { m[1,"a"] = 1; if (["a", 1] in m) println(1) }'));
    out.push(p2('in-slice', 'global m; probe begin { m[1,"a"] = 1; if ([*, "a"] in m) println(1) }'));
    out.push(p2('in-slice-all', 'global m; probe begin { m[1,"a"] = 1; if ([*, *] in m) println(1) }'));
    out.push(p2('in-local', 'probe begin { m[1] = 1; if (1 in m) println(1) }'));
    // delete on every operand
    for (const a of [...OPERANDS, { key: 'slice', text: 'm2[*, 1]', decl: 'global m2', pre: 'm2[1,1] = 1;' }, { key: 'elem2', text: 'm2[1, 1]', decl: 'global m2', pre: 'm2[1,1] = 1;' }]) {
      out.push(p2(`delete:${a.key}`, script([a], `delete ${a.text}`)));
    }
    // string vs long comparisons and concatenation of every pair in a condition
    for (const op of ['<', '==', '!=', '.']) {
      out.push(p2(`mix-cond:${op}`, `probe begin { a = 1; b = "x"; if (a ${op} b) println(1) }`));
    }
    // precedence corners
    const prec = [
      'x = 1 + 2 * 3', 'x = 1 << 2 + 1', 'x = "a" . "b" == "ab"', 'x = 1 < 2 < 3', 'x = !1 == 0', 'x = -1 >>> 1',
      'x = 1 ? 2 : 3 ? 4 : 5', 'x = 1 && 2 || 0', 'x = ~0 & 1', 'x = 2 ** 3', 'x = 1 +++ 2', 'x = 1 - -1', 'x = 1 --- 1',
      'x = (1, 2)', 'x = 1 ? "a" : 2', 'x = "a" < 1', 'x = 5 % -3', 'x = -5 / 2', 'x = 1 << 64', 'x = 1 << -1',
      'x = 0x7fffffffffffffff + 1', 'x = -9223372036854775808', 'x = 9223372036854775808', 'x = 18446744073709551615',
      'x = 18446744073709551616', 'x = 0777', 'x = 08', 'x = 0x', 'x = 1e3', 'x = 1.5',
    ];
    prec.forEach((p, i) => out.push(p2(`prec:${i}`, `probe begin { ${p}; println(x) }`)));
    return out;
  },
};
