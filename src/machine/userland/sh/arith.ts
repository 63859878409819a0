/**
 * Shell arithmetic ($(( )) as dash evaluates it): intmax_t (64-bit) integers, decimal / octal /
 * hex constants, variables by name (unset or empty = 0), the C operators with their precedence
 * (unary + - ! ~, * / %, + -, << >>, comparisons, == !=, & ^ |, && ||, ?:) and the assignment
 * operators (= += -= *= /= %= <<= >>= &= ^= |=).
 */

export class ArithError extends Error {}

const PREC: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '<=': 7, '>': 7, '>=': 7,
  '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};
const ASSIGN = ['<<=', '>>=', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=', '='];

type Tok = { t: 'n'; v: bigint } | { t: 'v'; name: string } | { t: 'o'; v: string };

function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const ops = ['<<=', '>>=', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=',
    '+', '-', '*', '/', '%', '<', '>', '&', '^', '|', '!', '~', '(', ')', '?', ':', '='];
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) { i++; continue; }
    const num = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(s.slice(i));
    if (num && !/[A-Za-z_]/.test(s[i + num[0].length] ?? '')) {
      const t = num[1];
      out.push({ t: 'n', v: t.length > 1 && t[0] === '0' && !/^0[xX]/.test(t) ? BigInt('0o' + t.slice(1)) : BigInt(t) });
      i += t.length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
    if (id) { out.push({ t: 'v', name: id[0] }); i += id[0].length; continue; }
    const op = ops.find((o) => s.startsWith(o, i));
    if (!op) throw new ArithError(`arithmetic expression: expecting primary: "${s}"`);
    out.push({ t: 'o', v: op });
    i += op.length;
  }
  return out;
}

const s64 = (v: bigint) => BigInt.asIntN(64, v);

/** Evaluate; `get` reads a variable, `set` assigns one. */
export function arith(src: string, get: (n: string) => string, set: (n: string, v: string) => void): bigint {
  const toks = lex(src);
  let p = 0;
  const fail = (): never => { throw new ArithError(`arithmetic expression: expecting primary: "${src}"`); };
  const varVal = (name: string): bigint => {
    const v = get(name).trim();
    if (v === '') return 0n;
    try {
      return arith(v, get, set);
    } catch {
      throw new ArithError(`Illegal number: ${v}`);
    }
  };
  const isOp = (v: string) => { const t = toks[p]; return !!t && t.t === 'o' && t.v === v; };
  const assignment = (): bigint => {
    const t = toks[p], n = toks[p + 1];
    if (t && t.t === 'v' && n && n.t === 'o' && ASSIGN.includes(n.v)) {
      p += 2;
      const rhs = assignment();
      let v = rhs;
      if (n.v !== '=') v = binop(n.v.slice(0, -1), varVal(t.name), rhs);
      set(t.name, String(v));
      return v;
    }
    return cond();
  };
  const cond = (): bigint => {
    const c = bin(0);
    if (isOp('?')) {
      p++;
      const a = assignment();
      if (!isOp(':')) fail();
      p++;
      const b = cond();
      return c ? a : b;
    }
    return c;
  };
  const binop = (op: string, a: bigint, b: bigint): bigint => {
    switch (op) {
      case '+': return s64(a + b);
      case '-': return s64(a - b);
      case '*': return s64(a * b);
      case '/': if (b === 0n) throw new ArithError('division by zero'); return s64(a / b);
      case '%': if (b === 0n) throw new ArithError('division by zero'); return s64(a % b);
      case '<<': return s64(a << (b & 63n));
      case '>>': return a >> (b & 63n);
      case '<': return a < b ? 1n : 0n;
      case '<=': return a <= b ? 1n : 0n;
      case '>': return a > b ? 1n : 0n;
      case '>=': return a >= b ? 1n : 0n;
      case '==': return a === b ? 1n : 0n;
      case '!=': return a !== b ? 1n : 0n;
      case '&': return a & b;
      case '^': return a ^ b;
      case '|': return a | b;
      case '&&': return a && b ? 1n : 0n;
      case '||': return a || b ? 1n : 0n;
    }
    return fail();
  };
  const bin = (min: number): bigint => {
    let a = unary();
    for (;;) {
      const t = toks[p];
      if (!t || t.t !== 'o') return a;
      const pr = PREC[t.v];
      if (pr === undefined || pr <= min) return a;
      p++;
      const b = bin(pr);
      a = binop(t.v, a, b);
    }
  };
  const unary = (): bigint => {
    const t = toks[p];
    if (!t) return fail();
    if (t.t === 'o') {
      p++;
      switch (t.v) {
        case '-': return s64(-unary());
        case '+': return unary();
        case '!': return unary() ? 0n : 1n;
        case '~': return s64(~unary());
        case '(': { const v = assignment(); if (!isOp(')')) fail(); p++; return v; }
      }
      return fail();
    }
    p++;
    return t.t === 'n' ? s64(t.v) : varVal(t.name);
  };
  if (!toks.length) return 0n;
  const v = assignment();
  if (p < toks.length) fail();
  return v;
}
