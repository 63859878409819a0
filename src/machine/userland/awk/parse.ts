/**
 * awk's language as Debian 12's awk (mawk 1.3.4) reads it: the lexer (with the regex/division
 * ambiguity resolved by the previous token, newlines significant, `\` line continuation) and a
 * recursive-descent parser into the tree interp.ts runs. Covers POSIX awk without getline:
 * BEGIN/END, patterns and ranges, user functions, arrays,
 * the operators with their precedence, print/printf, the control statements.
 */

export type Expr =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 're'; v: string }
  | { k: 'var'; name: string }
  | { k: 'field'; e: Expr }
  | { k: 'index'; name: string; subs: Expr[] }
  | { k: 'assign'; op: string; lhs: Expr; rhs: Expr }
  | { k: 'cond'; c: Expr; a: Expr; b: Expr }
  | { k: 'bin'; op: string; a: Expr; b: Expr }
  | { k: 'and' | 'or'; a: Expr; b: Expr }
  | { k: 'match'; neg: boolean; a: Expr; re: Expr }
  | { k: 'in'; subs: Expr[]; name: string }
  | { k: 'not' | 'neg' | 'plus'; e: Expr }
  | { k: 'incdec'; op: '++' | '--'; pre: boolean; e: Expr }
  | { k: 'concat'; a: Expr; b: Expr }
  | { k: 'call'; name: string; args: Expr[] }
  | { k: 'builtin'; name: string; args: Expr[] }
  | { k: 'group'; e: Expr };

export type Stmt =
  | { k: 'expr'; e: Expr }
  | { k: 'print'; args: Expr[]; redir: Redirect | null }
  | { k: 'printf'; args: Expr[]; redir: Redirect | null }
  | { k: 'if'; c: Expr; t: Stmt; f: Stmt | null }
  | { k: 'while'; c: Expr; body: Stmt }
  | { k: 'do'; c: Expr; body: Stmt }
  | { k: 'for'; init: Stmt | null; c: Expr | null; step: Stmt | null; body: Stmt }
  | { k: 'forin'; v: Expr; arr: string; body: Stmt }
  | { k: 'block'; body: Stmt[] }
  | { k: 'next' | 'break' | 'continue' }
  | { k: 'exit' | 'return'; e: Expr | null }
  | { k: 'delete'; name: string; subs: Expr[] | null };

/** print > FILE, >> FILE (appending), | COMMAND */
export interface Redirect { op: '>' | '>>' | '|'; target: Expr }
export interface Rule { kind: 'begin' | 'end' | 'main'; pat: Expr | null; pat2: Expr | null; body: Stmt[] | null }
export interface Func { name: string; params: string[]; body: Stmt[] }
export interface Program { rules: Rule[]; funcs: Map<string, Func> }

export class AwkSyntaxError extends Error {}

const BUILTINS = new Set(['length', 'substr', 'index', 'split', 'sub', 'gsub', 'match', 'sprintf', 'sin', 'cos', 'atan2',
  'exp', 'log', 'sqrt', 'int', 'rand', 'srand', 'tolower', 'toupper', 'system', 'close', 'fflush']);
const KEYWORDS = new Set(['BEGIN', 'END', 'function', 'func', 'if', 'else', 'while', 'for', 'do', 'break', 'continue', 'next',
  'exit', 'return', 'delete', 'in', 'getline', 'print', 'printf']);

interface Tok { t: string; v: string; line: number }

/** Split `src` into tokens; `t` is the kind: num str re name func builtin kw nl eof or the punctuation itself. */
export function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0, line = 1;
  const operandEnd = () => {
    const p = out[out.length - 1];
    return !!p && (p.t === 'num' || p.t === 'str' || p.t === 'name' || p.t === 'builtin' || p.t === ')' || p.t === ']' || p.t === '$'
      || p.t === 'incdec' || (p.t === 'kw' && p.v === 'getline'));
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '\\' && src[i + 1] === '\n') { i += 2; line++; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '#') { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (c === '\n') { out.push({ t: 'nl', v: '\n', line }); line++; i++; continue; }
    if (/[0-9.]/.test(c) && (c !== '.' || /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(src.slice(i))!;
      out.push({ t: 'num', v: m[0], line });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      const w = m[0];
      i += w.length;
      if (KEYWORDS.has(w)) out.push({ t: 'kw', v: w === 'func' ? 'function' : w, line });
      else if (BUILTINS.has(w)) out.push({ t: 'builtin', v: w, line });
      else if (src[i] === '(') out.push({ t: 'func', v: w, line });
      else out.push({ t: 'name', v: w, line });
      continue;
    }
    if (c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length || src[i] === '\n') throw new AwkSyntaxError(`line ${line}: runaway string constant "${s.slice(0, 10)} ...`);
        const d = src[i];
        if (d === '"') { i++; break; }
        if (d === '\\') {
          const [ch, n] = escape(src, i + 1);
          s += ch;
          i = n;
          continue;
        }
        s += d;
        i++;
      }
      out.push({ t: 'str', v: s, line });
      continue;
    }
    if (c === '/' && !operandEnd()) {
      let s = '';
      let inBr = false;
      i++;
      for (;;) {
        if (i >= src.length || src[i] === '\n') throw new AwkSyntaxError(`line ${line}: runaway regular expression /${s.slice(0, 10)} ...`);
        const d = src[i];
        if (d === '/' && !inBr) { i++; break; }
        if (d === '[' && !inBr) { inBr = true; s += d; i++; if (src[i] === '^') { s += '^'; i++; } if (src[i] === ']') { s += ']'; i++; } continue; }
        if (d === ']' && inBr) inBr = false;
        if (d === '\\' && src[i + 1] === '/') { s += '/'; i += 2; continue; }
        if (d === '\\') { s += d + (src[i + 1] ?? ''); i += 2; continue; }
        s += d;
        i++;
      }
      out.push({ t: 're', v: s, line });
      continue;
    }
    const three = src.slice(i, i + 3), two = src.slice(i, i + 2);
    if (three === '**=') { out.push({ t: 'assignop', v: '^=', line }); i += 3; continue; }
    if (['+=', '-=', '*=', '/=', '%=', '^='].includes(two)) { out.push({ t: 'assignop', v: two, line }); i += 2; continue; }
    if (two === '**') { out.push({ t: '^', v: '^', line }); i += 2; continue; }
    if (two === '++' || two === '--') { out.push({ t: 'incdec', v: two, line }); i += 2; continue; }
    if (['==', '<=', '>=', '!=', '&&', '||', '>>', '!~'].includes(two)) { out.push({ t: two, v: two, line }); i += 2; continue; }
    if ('{}()[];,+-*/%^!<>|?:~$='.includes(c)) { out.push({ t: c, v: c, line }); i++; continue; }
    throw new AwkSyntaxError(`line ${line}: syntax error at or near ${c}`);
  }
  // mawk counts a program without a final newline as ending on the next line
  out.push({ t: 'eof', v: 'end of file', line: src.endsWith('\n') ? line : line + 1 });
  return out;
}

/** one escape after a backslash in a string constant (or a -v assignment): [char, next index] */
export function escape(s: string, i: number): [string, number] {
  const d = s[i];
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', '/': '/', a: '\x07', b: '\b', f: '\f', v: '\v' };
  if (d === undefined) return ['\\', i];
  if (map[d] !== undefined) return [map[d], i + 1];
  if (/[0-7]/.test(d)) {
    const m = /^[0-7]{1,3}/.exec(s.slice(i))![0];
    return [String.fromCharCode(parseInt(m, 8) & 0xff), i + m.length];
  }
  return ['\\' + d, i + 1];
}

/** Parse an awk program. */
export function parse(src: string): Program {
  return new Parser(lex(src)).program();
}

class Parser {
  private p = 0;
  private noIn = 0;
  private noGt = 0;
  readonly funcs = new Map<string, Func>();
  constructor(private readonly toks: Tok[]) {}

  private get cur(): Tok { return this.toks[this.p]; }
  private is(t: string, v?: string): boolean { const c = this.cur; return c.t === t && (v === undefined || c.v === v); }
  private kw(v: string): boolean { return this.is('kw', v); }
  private next(): Tok { return this.toks[this.p++]; }
  private fail(): never {
    const c = this.cur;
    if (c.t === 'eof') throw new AwkSyntaxError(`line ${c.line}: syntax error at or near end of file`);
    throw new AwkSyntaxError(`line ${c.line}: syntax error at or near ${c.t === 'nl' ? 'end of line' : c.v}`);
  }
  private expect(t: string, v?: string): Tok {
    if (!this.is(t, v)) {
      if (t === '}' && this.is('eof')) throw new AwkSyntaxError(`line ${this.cur.line}: missing } near end of file`);
      this.fail();
    }
    return this.next();
  }
  private nls(): void { while (this.is('nl')) this.p++; }
  private terms(): void { while (this.is('nl') || this.is(';')) this.p++; }

  program(): Program {
    const rules: Rule[] = [];
    this.terms();
    while (!this.is('eof')) {
      if (this.kw('function')) this.func();
      else if (this.kw('BEGIN') || this.kw('END')) {
        const kind = this.next().v === 'BEGIN' ? 'begin' : 'end';
        this.nls();
        if (!this.is('{')) this.fail();
        rules.push({ kind, pat: null, pat2: null, body: this.block() });
      } else {
        let pat: Expr | null = null, pat2: Expr | null = null;
        if (!this.is('{')) {
          pat = this.expr();
          if (this.is(',')) { this.next(); this.nls(); pat2 = this.expr(); }
        }
        const body = this.is('{') ? this.block() : null;
        rules.push({ kind: 'main', pat, pat2, body });
      }
      // after an action's `}` the next item may follow on the same line
      if (this.toks[this.p - 1].t !== '}' && !this.is('eof') && !this.is('nl') && !this.is(';')) this.fail();
      this.terms();
    }
    return { rules, funcs: this.funcs };
  }

  private func(): void {
    this.next();
    const n = this.next();
    if (n.t !== 'func' && n.t !== 'name') this.fail();
    this.expect('(');
    const params: string[] = [];
    while (!this.is(')')) {
      params.push(this.expect('name').v);
      if (this.is(',')) { this.next(); this.nls(); } else break;
    }
    this.expect(')');
    this.nls();
    this.funcs.set(n.v, { name: n.v, params, body: this.block() });
  }

  private block(): Stmt[] {
    this.expect('{');
    const body: Stmt[] = [];
    this.terms();
    while (!this.is('}')) {
      if (this.is('eof')) this.expect('}');
      body.push(this.stmt());
      this.terms();
    }
    this.next();
    return body;
  }

  /** the end of a simple statement: ; newline, or before } */
  private endSimple(): void {
    if (this.is(';') || this.is('nl')) { this.next(); return; }
    if (this.is('}') || this.is('eof')) return;
    this.fail();
  }

  private simpleOrBlock(): Stmt {
    this.nls();
    if (this.is(';')) { this.next(); return { k: 'block', body: [] }; }
    return this.stmt();
  }

  private stmt(): Stmt {
    if (this.is('{')) return { k: 'block', body: this.block() };
    if (this.kw('if')) {
      this.next();
      this.expect('(');
      const c = this.expr();
      this.expect(')');
      const t = this.simpleOrBlock();
      const save = this.p;
      this.terms();
      if (this.kw('else')) { this.next(); return { k: 'if', c, t, f: this.simpleOrBlock() }; }
      this.p = save;
      return { k: 'if', c, t, f: null };
    }
    if (this.kw('while')) {
      this.next();
      this.expect('(');
      const c = this.expr();
      this.expect(')');
      if (this.is(';')) { this.next(); return { k: 'while', c, body: { k: 'block', body: [] } }; }
      return { k: 'while', c, body: this.simpleOrBlock() };
    }
    if (this.kw('do')) {
      this.next();
      const body = this.simpleOrBlock();
      this.terms();
      this.expect('kw', 'while');
      this.expect('(');
      const c = this.expr();
      this.expect(')');
      this.endSimple();
      return { k: 'do', c, body };
    }
    if (this.kw('for')) {
      this.next();
      this.expect('(');
      if (this.is('name') && this.toks[this.p + 1].t === 'kw' && this.toks[this.p + 1].v === 'in') {
        const save = this.p;
        const v = this.next();
        this.next();
        const arr = this.next();
        if (arr.t === 'name' && this.is(')')) {
          this.next();
          return { k: 'forin', v: { k: 'var', name: v.v }, arr: arr.v, body: this.simpleOrBlock() };
        }
        this.p = save;
      }
      const init = this.is(';') ? null : this.simple();
      this.expect(';');
      this.nls();
      const c = this.is(';') ? null : this.expr();
      this.expect(';');
      this.nls();
      const step = this.is(')') ? null : this.simple();
      this.expect(')');
      if (this.is(';')) { this.next(); return { k: 'for', init, c, step, body: { k: 'block', body: [] } }; }
      return { k: 'for', init, c, step, body: this.simpleOrBlock() };
    }
    if (this.is(';')) { this.next(); return { k: 'block', body: [] }; }
    const s = this.simple();
    this.endSimple();
    return s;
  }

  private simple(): Stmt {
    const c = this.cur;
    if (c.t === 'kw') {
      switch (c.v) {
        case 'next': case 'break': case 'continue': this.next(); return { k: c.v };
        case 'exit': case 'return': {
          this.next();
          const e = this.is(';') || this.is('nl') || this.is('}') || this.is('eof') ? null : this.expr();
          return { k: c.v, e };
        }
        case 'delete': {
          this.next();
          const name = this.expect('name').v;
          if (!this.is('[')) return { k: 'delete', name, subs: null };
          return { k: 'delete', name, subs: this.subscripts() };
        }
        case 'print': case 'printf': {
          this.next();
          let args: Expr[] = [];
          this.noGt++;
          if (!(this.is(';') || this.is('nl') || this.is('}') || this.is('eof') || this.is('>') || this.is('>>') || this.is('|'))) {
            if (this.is('(')) {
              // print (a, b) or print (a) b
              const save = this.p;
              this.next();
              this.noGt--;
              const list = [this.expr()];
              while (this.is(',')) { this.next(); this.nls(); list.push(this.expr()); }
              this.noGt++;
              if (this.is(')') && this.endsPrint(this.p + 1)) { this.next(); args = list; } else {
                this.p = save;
                args = this.exprList();
              }
            } else args = this.exprList();
          }
          this.noGt--;
          let redir: Redirect | null = null;
          if (this.is('>') || this.is('>>') || this.is('|')) {
            const op = this.next().t as '>' | '>>' | '|';
            this.noGt++;
            const target = this.concat();
            this.noGt--;
            redir = { op, target };
          }
          if (c.v === 'printf' && !args.length) this.fail();
          return { k: c.v, args, redir };
        }
        case 'getline': throw new AwkSyntaxError(`line ${c.line}: getline is not supported here`);
        default: break;
      }
    }
    return { k: 'expr', e: this.expr() };
  }
  private endsPrint(i: number): boolean {
    const t = this.toks[i].t;
    return t === ';' || t === 'nl' || t === '}' || t === 'eof' || t === '>' || t === '>>' || t === '|';
  }
  private exprList(): Expr[] {
    const l = [this.expr()];
    while (this.is(',')) { this.next(); this.nls(); l.push(this.expr()); }
    return l;
  }
  private subscripts(): Expr[] {
    this.expect('[');
    const l = [this.expr()];
    while (this.is(',')) { this.next(); this.nls(); l.push(this.expr()); }
    this.expect(']');
    return l;
  }

  // ---------------------------------------------------------------- expressions, lowest first

  expr(): Expr {
    return this.ternary();
  }
  private isLvalue(e: Expr): boolean { return e.k === 'var' || e.k === 'field' || e.k === 'index'; }
  private ternary(): Expr {
    const c = this.or();
    if (this.is('?')) {
      this.next(); this.nls();
      const a = this.ternary();
      this.nls();
      this.expect(':'); this.nls();
      const b = this.ternary();
      return { k: 'cond', c, a, b };
    }
    if ((this.is('=') || this.is('assignop')) && this.isLvalue(c)) {
      const op = this.next().v;
      this.nls();
      return { k: 'assign', op, lhs: c, rhs: this.ternary() };
    }
    return c;
  }
  private or(): Expr {
    let a = this.and();
    while (this.is('||')) { this.next(); this.nls(); a = { k: 'or', a, b: this.and() }; }
    return a;
  }
  private and(): Expr {
    let a = this.inExpr();
    while (this.is('&&')) { this.next(); this.nls(); a = { k: 'and', a, b: this.inExpr() }; }
    return a;
  }
  private inExpr(): Expr {
    let a = this.matchExpr();
    while (this.kw('in') && !this.noIn) {
      this.next();
      const name = this.expect('name').v;
      a = { k: 'in', subs: a.k === 'group' && (a as { multi?: Expr[] }).multi ? (a as { multi?: Expr[] }).multi! : [a], name };
    }
    return a;
  }
  private matchExpr(): Expr {
    let a = this.comparison();
    while (this.is('~') || this.is('!~')) {
      const neg = this.next().t === '!~';
      a = { k: 'match', neg, a, re: this.comparison() };
    }
    return a;
  }
  private comparison(): Expr {
    const a = this.concat();
    const t = this.cur.t;
    if (t === '<' || t === '<=' || t === '==' || t === '!=' || t === '>=' || (t === '>' && !this.noGt)) {
      this.next();
      return { k: 'bin', op: t, a, b: this.concat() };
    }
    return a;
  }
  private startsOperand(): boolean {
    const t = this.cur.t;
    return t === 'num' || t === 'str' || t === 'name' || t === 'func' || t === 'builtin' || t === '$' || t === '(' || t === 'incdec'
      || t === '!' || t === 're' || t === '-' || t === '+';
  }
  private concat(): Expr {
    let a = this.additive();
    while (this.startsOperand() && this.cur.t !== '-' && this.cur.t !== '+' && this.cur.t !== '!' && !(this.kw('in'))) {
      a = { k: 'concat', a, b: this.additive() };
    }
    return a;
  }
  private additive(): Expr {
    let a = this.mul();
    while (this.is('+') || this.is('-')) { const op = this.next().t; a = { k: 'bin', op, a, b: this.mul() }; }
    return a;
  }
  private mul(): Expr {
    let a = this.unary();
    while (this.is('*') || this.is('/') || this.is('%')) { const op = this.next().t; a = { k: 'bin', op, a, b: this.unary() }; }
    return a;
  }
  private unary(): Expr {
    if (this.is('!')) { this.next(); return { k: 'not', e: this.unary() }; }
    if (this.is('-')) { this.next(); return { k: 'neg', e: this.unary() }; }
    if (this.is('+')) { this.next(); return { k: 'plus', e: this.unary() }; }
    return this.power();
  }
  private power(): Expr {
    const a = this.postfix();
    if (this.is('^')) {
      this.next();
      // right associative, and binds tighter than unary minus on its left only: 2^-1 is allowed
      const b = this.is('-') ? (this.next(), { k: 'neg' as const, e: this.powerOperand() }) : this.is('+') ? (this.next(), this.powerOperand()) : this.powerOperand();
      return { k: 'bin', op: '^', a, b };
    }
    return a;
  }
  private powerOperand(): Expr {
    if (this.is('!')) { this.next(); return { k: 'not', e: this.powerOperand() }; }
    return this.power();
  }
  private postfix(): Expr {
    if (this.is('incdec')) {
      const op = this.next().v as '++' | '--';
      const e = this.postfix();
      if (!this.isLvalue(e)) this.fail();
      return { k: 'incdec', op, pre: true, e };
    }
    const e = this.primary();
    if (this.is('incdec') && this.isLvalue(e)) {
      const op = this.next().v as '++' | '--';
      return { k: 'incdec', op, pre: false, e };
    }
    return e;
  }
  private primary(): Expr {
    const c = this.cur;
    switch (c.t) {
      case 'num': this.next(); return { k: 'num', v: Number(c.v) };
      case 'str': this.next(); return { k: 'str', v: c.v };
      case 're': this.next(); return { k: 're', v: c.v };
      case '$': {
        this.next();
        if (this.is('incdec')) {
          const op = this.next().v as '++' | '--';
          return { k: 'field', e: { k: 'incdec', op, pre: true, e: this.primary() } };
        }
        if (this.is('-')) { this.next(); return { k: 'field', e: { k: 'neg', e: this.primary() } }; }
        return { k: 'field', e: this.primary() };
      }
      case '(': {
        this.next();
        this.noIn++;
        const save = this.noGt;
        this.noGt = 0;
        this.noIn--;
        const first = this.expr();
        if (this.is(',')) {
          // (a, b) in arr
          const multi = [first];
          while (this.is(',')) { this.next(); this.nls(); multi.push(this.expr()); }
          this.expect(')');
          this.noGt = save;
          if (!this.kw('in')) this.fail();
          return { k: 'group', e: first, multi } as Expr;
        }
        this.expect(')');
        this.noGt = save;
        return { k: 'group', e: first };
      }
      case 'name': {
        this.next();
        if (this.is('[')) return { k: 'index', name: c.v, subs: this.subscripts() };
        return { k: 'var', name: c.v };
      }
      case 'func': {
        this.next();
        this.expect('(');
        const args: Expr[] = [];
        while (!this.is(')')) {
          args.push(this.expr());
          if (this.is(',')) { this.next(); this.nls(); } else break;
        }
        this.expect(')');
        return { k: 'call', name: c.v, args };
      }
      case 'builtin': {
        this.next();
        const args: Expr[] = [];
        if (this.is('(')) {
          this.next();
          while (!this.is(')')) {
            args.push(this.expr());
            if (this.is(',')) { this.next(); this.nls(); } else break;
          }
          this.expect(')');
        } else if (c.v !== 'length') this.fail();
        return { k: 'builtin', name: c.v, args };
      }
      case '-': this.next(); return { k: 'neg', e: this.unary() };
      case '+': this.next(); return { k: 'plus', e: this.unary() };
      case '!': this.next(); return { k: 'not', e: this.unary() };
      default: return this.fail();
    }
  }
}
