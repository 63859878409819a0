/**
 * Pass 3, expressions: the JS for every stap expression (values, operators, variables and
 * arrays, aggregates, calls, target expressions through the probes layer's hook).  Printing
 * (printing.ts) and statements (stmts.ts) build on it.
 */
import type * as A from '../ast';
import { strverscmp } from '../parse/preprocess';
import { foldable } from '../elaborate/optimize';
import { compileEre, regexErrorText, rawOfValue } from '../runtime/regex';
import { constValue } from './consts';
import { assignBinaryOp, TOP, exact, addR, subR, tracked, hasZero, Range } from './ranges';
import { fastBinary, fastUnary, low32Able } from './arith';
import { jsStr, jsLong, oneOf } from './emit';
import { walk } from './walk';
import { GenBase, range } from './gen_base';
import { getTargetCodegen, getTargetAssignCodegen, TargetCodegenApi } from './hooks';

const COMPARE = new Map<string, string>([['==', '==='], ['!=', '!=='], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>=']]);
const BINARY = new Map<string, string>([
  ['+', 'add'], ['-', 'sub'], ['*', 'mul'], ['/', 'div'], ['%', 'mod'], ['&', 'bitAnd'], ['|', 'bitOr'], ['^', 'bitXor'],
  ['<<', 'shlS'], ['>>', 'shrS'], ['>>>', 'ushrS'],
]);
const ASSIGN_OPS = new Map<string, string>([
  ['+=', 'add'], ['-=', 'sub'], ['*=', 'mul'], ['/=', 'div'], ['%=', 'mod'], ['<<=', 'shlS'], ['>>=', 'shrS'],
  ['&=', 'bitAnd'], ['^=', 'bitXor'], ['|=', 'bitOr'],
]);
const STAT_OPS = new Map<string, string>(['count', 'sum', 'min', 'max', 'avg', 'variance'].map((x) => [x, x]));

const withinSafe = (r: Range) => r.lo >= -9007199254740991n && r.hi <= 9007199254740991n;
const within31 = (r: Range) => r.lo >= 0n && r.hi <= 2147483647n;

export abstract class ExprGen extends GenBase {
  /** Printing (printing.ts). */
  protected abstract print(e: A.Print): string;

  protected cond(e: A.Expr): string {
    return `${this.ex(e)} !== 0`;
  }

  /** An expression evaluated for effect (statement position): avoids computing unused results. */
  protected exStmt(e: A.Expr): string {
    if (e.k === 'assign' && e.op === '<<<') return this.statAdd(e, false);
    if (e.k === 'incdec') return this.incdec(e, true);
    if (e.k === 'assign' && (e.op === '+=' || e.op === '-=') && e.target.k === 'index') return this.assign(e);
    return this.ex(e);
  }

  /** Can evaluating this expression run user code or throw (so L must be set after it)? */
  protected mayThrow(e: A.Expr | null): boolean {
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
  protected located(tok: A.Token, args: A.Expr[], mk: (a: string[]) => string): string {
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
        const op = oneOf(COMPARE, e.op, 'comparison');
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
        return this.symLhs(e);
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
        const targetCodegen = getTargetCodegen();
        if (e.k !== 'entry') this.readsKernel = true;
        if (targetCodegen) return targetCodegen(e, this.targetApi());
        if (e.k === 'entry') this.err('internal error: @entry is only valid in .return probes', e.tok);
        else if (e.k === 'atvar') this.err('unresolved @var() expression', e.tok);
        else if (e.k === 'target') this.err('unresolved target-symbol expression', e.tok);
        else this.err('type definition not available for @cast in this runtime', e.tok);
        return '0';
      case 'atop':
        if (e.name === '@const') {
          const a = e.args[0];
          const v = a?.k === 'str' && e.args.length === 1
            ? a.value === 'MAXSTRINGLEN' ? BigInt(this.limits.maxStringLen) : constValue(a.value, this.defines) : null;
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

  protected binary(e: A.Binary): string {
    const f = oneOf(BINARY, e.op, 'operator');
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
    if ((e.op === '<<' || e.op === '>>') && foldable(e)) {
      // stap's constant folder computed it (a count outside 0..63 leaves the value unchanged)
      return `${e.op === '<<' ? 'shlF' : 'shrF'}(${this.ex(e.left)}, ${this.ex(e.right)})`;
    }
    if ((e.op === '/' || e.op === '%') && hasZero(rb)) return this.located(e.tok, [e.left, e.right], (a) => `${f}(${a[0]}, ${a[1]})`);
    return `${f}(${this.ex(e.left)}, ${this.ex(e.right)})`; // (a nonzero divisor cannot fail: no location)
  }

  /** JS int32 code for `e` whose low 32 bits are right (see arith.ts low32Able). */
  protected low32(e: A.Expr): string {
    const rangeOf = (x: A.Expr) => this.rng(x);
    if (e.k === 'binary' && (e.op === '&' || e.op === '|' || e.op === '^') && low32Able(e.left, rangeOf) && low32Able(e.right, rangeOf)) {
      return `(${this.low32(e.left)} ${e.op} ${this.low32(e.right)})`;
    }
    if (e.k === 'unary' && e.op === '~' && low32Able(e.operand, rangeOf)) return `(~${this.low32(e.operand)})`;
    return this.ex(e); // a safe integer (a JS number)
  }

  protected regex(pat: string, tok: A.Token): string {
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

  protected keysSrc(idx: (A.Expr | null)[], tok: A.Token): string[] {
    return idx.map((x) => {
      if (!x) {
        this.err('wildcard not allowed in array index', tok);
        return '0';
      }
      return this.ex(x);
    });
  }

  protected indexRead(e: A.Index): string {
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
  protected statExpr(e: A.Expr): string {
    if (e.k === 'sym' && e.ref) return this.symLhs(e);
    if (e.k === 'index' && e.base.k === 'sym' && this.isArrayDecl(e.base.ref)) {
      const m = this.globalNames.get(e.base.ref!)!;
      const ks = this.keysSrc(e.indexes, e.tok);
      return ks.length === 1 ? `${m}.get(${ks[0]})` : `${m}.getN([${ks.join(', ')}])`;
    }
    this.err('expected a statistics variable', e.tok);
    return 'R.EMPTY_STAT';
  }

  protected statop(e: A.StatOp): string {
    const s = this.statExpr(e.operand);
    const method = oneOf(STAT_OPS, e.op, 'aggregate operator');
    // before 1.5, stap's @sum of an empty aggregate was an error like @min's (PR10822 made it 0)
    if (e.op === 'sum' && this.compatible !== undefined && strverscmp(this.compatible, '1.5') < 0) return `(L = ${this.loc(e.tok)}, ${s}.sumNonEmpty())`;
    if (e.op === 'count' || e.op === 'sum') return `${s}.${method}()`;
    return `(L = ${this.loc(e.tok)}, ${s}.${method}())`;
  }

  protected statAdd(e: A.Assign, wantValue: boolean): string {
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

  protected assign(e: A.Assign): string {
    const t = e.target;
    const fn = e.op === '=' || e.op === '.=' ? '' : oneOf(ASSIGN_OPS, e.op, 'assignment operator');
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
    const targetAssignCodegen = getTargetAssignCodegen();
    if (t.k === 'target' && targetAssignCodegen) {
      const js = targetAssignCodegen(e, this.targetApi());
      if (js !== null) return js;
    }
    // (only under -u: the optimiser refuses these in pass 2.  stap 4.8's translator says each
    // twice, the second counted as similar: real-stap -u -p3 'probe begin { 1 = y }')
    const msg = t.k === 'index' && t.base.k === 'hist' ? 'cannot assign to histogram buckets' : 'invalid lvalue type';
    const at = t.k === 'index' ? t.base.tok : t.tok;
    this.err(msg, at);
    this.err(msg, at);
    return '0';
  }

  protected incdec(e: A.IncDec, discard: boolean): string {
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
    this.err('invalid lvalue type', t.tok);
    return '0';
  }

  /** The API handed to the target codegen hook (issue 6). */
  protected targetApi(): TargetCodegenApi {
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
        // evaluated outside the handler (a return probe's @entry, at the function's entry): its own
        // action budget, as stap's entry handler has (the count left by whatever handler ran last, or
        // none yet, failed the first call of a function with 'MAXACTION exceeded')
        return `(c) => { act = MAXACT; depth = 0; ${decl}return ${code}; }`;
      },
      loc: (tok) => this.loc(tok),
      builtin: (name) => this.useBuiltin(name),
      data: (value) => this.dataRef(value),
      afterProbe: (line) => this.afterLines.push(line),
      handlerName: this.f.kind === 'probe' ? this.curHandler : null,
      err: (msg, tok) => this.err(msg, tok),
    };
  }

  protected call(e: A.Call): string {
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
}
