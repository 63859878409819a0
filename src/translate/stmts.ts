/**
 * Pass 3, statements: blocks with their MAXACTION accounting, conditionals, loops (each
 * iteration of every loop is counted, as stap counts it), foreach over arrays and histograms,
 * return/next/break/continue, delete and try/catch.
 */
import type * as A from '../ast';
import { jsStr, jsInt, whereComment } from './emit';
import { PrintGen } from './printing';

export abstract class StmtGen extends PrintGen {
  /** Number of actions a statement costs on entry to its enclosing block (spec §9.2). */
  protected cost(s: A.Stmt): number {
    switch (s.k) {
      case 'block': case 'null': case 'try':
        return 0;
      case 'for':
        return s.init ? 2 : 1;
      default:
        return 1;
    }
  }

  protected block(b: A.Block, ind: string): string[] {
    return this.seq(b.stmts, ind, b.tok);
  }

  protected seq(stmts: A.Stmt[], ind: string, tok: A.Token, extraCost = 0): string[] {
    const o: string[] = [];
    let n = extraCost;
    for (const s of stmts) n += this.cost(s);
    if (n > 0) o.push(`${ind}if ((act -= ${n}) <= 0) maxact(${this.loc(stmts[0]?.tok ?? tok)});`);
    for (const s of stmts) o.push(...this.stmt(s, ind));
    return o;
  }

  /** A statement in a position that is not a block (if/loop body): counted separately. */
  protected sub(s: A.Stmt, ind: string): string[] {
    if (s.k === 'block') return this.block(s, ind);
    return this.seq([s], ind, s.tok);
  }

  protected stmt(s: A.Stmt, ind: string): string[] {
    const c = ` // ${whereComment(s.tok)}`;
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
        return [`${ind}${s.k === 'break' ? 'break' : 'continue'};${c}`];
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

  protected foreach(s: A.Foreach, ind: string): string[] {
    const c = ` // ${whereComment(s.tok)}`;
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
        if (s.sortColumn === 0) o.push(`${ind}  { const hc = st.histCounts(${hr.h}); ${it} = ${it}.slice().sort((a, b) => ${s.sortDirection < 0 ? -1 : 1} * (hc[a] - hc[b])); }`);
        else if (s.sortDirection < 0) o.push(`${ind}  ${it}.reverse();`);
      }
      if (s.limit) o.push(`${ind}  { const lim = ${this.ex(s.limit)}; if (lim < ${it}.length) ${it}.length = lim <= 0 ? 0 : Number(lim); }`);
      if (valVar) o.push(`${ind}  const hc = st.histCounts(${hr.h});`);
      this.f.loopDepth++;
      const body = this.sub(s.body, ind + '    ');
      this.f.loopDepth--;
      o.push(...this.iterate(ind, ix, it, s.tok));
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
      spec.push(`by: ${jsInt(s.sortColumn ?? 0)}`);
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
    o.push(...this.iterate(ind, ix, it, s.tok));
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

  /** The head of a foreach loop over the array `it` (each iteration one action). */
  private iterate(ind: string, ix: string, it: string, tok: A.Token): string[] {
    return [`${ind}  for (let ${ix} = 0; ; ${ix}++) {`, `${ind}    if (--act <= 0) maxact(${this.loc(tok)});`, `${ind}    if (${ix} >= ${it}.length) break;`];
  }

  protected del(s: A.Delete): string {
    const t = s.target;
    if (t.k === 'sym') {
      const d = t.ref;
      if (!d) {
        this.err('unresolved array in delete statement', t.tok);
        return '0';
      }
      if (d.kind === 'global' && (d.arity ?? 0) > 0) return `${this.globalNames.get(d)}.clear()`;
      if (d.type === 'stats') return `${this.symLhs(t)}.clear()`;
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
    // (stap 4.8's translator words it with a newline: real-stap -p3 -e 'global s probe begin {
    // s <<< 1; delete @hist_log(s)[1] }')
    if (t.k === 'index' && t.base.k === 'hist') this.err('cannot delete histogram bucket entries\n', t.base.tok);
    else this.err('unresolved array in delete statement', t.tok);
    return '0';
  }
}
