/**
 * Declarations: `global` (sizes, `%`, initialisers), `private`, `function` (types, parameters,
 * priority, embedded-C bodies), `probe` with probe points (components glued from adjacent
 * tokens like `sys**open`, arguments, `{a,b}` brace expansion, `?`, `!`, `if (cond)`) and
 * probe aliases (`=` prologue, `+=` epilogue, both), top-level `%{ %}`.
 */
import type * as A from '../ast';
import { ParseError } from '../diag';
import type { Cursor } from './cursor';
import { parseExpression } from './expr';
import { parseBlock } from './stmt';
import { parseNumber, literal, signedNumber, guruOnly } from './literals';
import { checkBody } from './checks';

/** Names declared so far in the file (true: private). */
export type Declared = Map<string, boolean>;

export function parseDecl(c: Cursor, out: A.StapFile, declared: Declared): void {
  const t = c.peek()!;
  if (t.kind === 'embedded') {
    c.next();
    guruOnly(c, t, 'embedded code');
    out.embeds.push({ code: t.text, tok: t });
    return;
  }
  if (t.kind === 'keyword') {
    switch (t.text) {
      case 'probe': return parseProbe(c, out);
      case 'function': out.functions.push(parseFunction(c)); return;
      case 'global':
        c.next();
        parseGlobals(c, out, declared, false);
        return;
      case 'private': {
        c.next();
        if (c.peekKw('global')) {
          c.next();
          parseGlobals(c, out, declared, true);
        } else if (c.peekKw('function')) {
          const fn = parseFunction(c);
          fn.isPrivate = true;
          out.functions.push(fn);
        } else {
          const id = c.peek();
          if (id && id.kind !== 'identifier') throw c.error("expected 'function' or identifier");
          parseGlobals(c, out, declared, true);
        }
        return;
      }
      default:
        break;
    }
  }
  throw c.error("expected 'probe', 'global', 'private', 'function', or '%{'");
}

function identifier(c: Cursor): A.Token {
  c.peek();
  const t = c.next();
  if (t.kind !== 'identifier') throw c.error('expected identifier');
  return t;
}

function parseGlobals(c: Cursor, out: A.StapFile, declared: Declared, isPrivate: boolean): void {
  for (;;) {
    const id = identifier(c);
    const v: A.VarDecl = { name: id.text, tok: id, kind: 'global' };
    if (c.peekOp('%')) {
      c.next();
      v.wrap = true;
    }
    if (c.peekOp('[')) {
      c.swallow();
      // (stap reads a literal with an optional '-'; a size out of range is reported without a
      // token, as at the end of the input: real-stap -p1 'global g[-1]', 'global g[0]')
      let n = c.next();
      const minus = c.isOp(n, '-');
      if (minus) n = c.next();
      if (n.kind !== 'number') throw c.error('expected number');
      const size = parseNumber(n.text, n);
      if (minus || typeof size === 'bigint' || size < 1 || size > 2147483647) throw new ParseError('array size out of range', undefined, true, c.file);
      v.maxSize = size;
      c.last = undefined; // (swallowed: `global x[1` ends with `saw: <input> EOF`)
      if (!c.isOp(c.next(), ']')) throw c.error("expected ']'");
    }
    if (c.peekOp('=')) {
      v.initTok = c.next();
      if (v.maxSize !== undefined || v.wrap) throw c.error('only scalar globals can be initialized');
      v.init = literal(c);
    }
    if (isPrivate) v.isPrivate = true;
    const prev = declared.get(v.name);
    if (prev !== undefined) {
      throw new ParseError(prev === isPrivate ? 'duplicate global name' : 'global versus private variable declaration conflict', id, true);
    }
    declared.set(v.name, isPrivate);
    out.globals.push(v);
    if (!c.peekOp(',')) break;
    c.next();
  }
  if (c.peekOp(';')) c.next();
}

function typeAnnotation(c: Cursor): A.Type {
  c.next(); // ':'
  const t = c.next();
  if (!c.isKw(t, 'long') && !c.isKw(t, 'string')) throw c.error("expected 'string' or 'long'");
  c.last = undefined; // (swallowed: `function f:long` ends with `saw: <input> EOF`)
  return t.text as A.Type;
}

function parseFunction(c: Cursor): A.FunctionDecl {
  c.next(); // function
  c.peek();
  const name = c.next();
  if (name.kind !== 'identifier' && !c.isKw(name, 'string') && !c.isKw(name, 'long')) throw c.error('expected identifier');
  // (stap takes the token after the name and after a parameter: `function f` ends with
  // `saw: identifier 'f'`)
  const returnType = c.isOp(c.peekQuiet(), ':') ? typeAnnotation(c) : undefined;
  if (!c.isOp(c.next(), '(')) throw c.error("expected '('");
  const params: A.Param[] = [];
  if (c.peekOp(')')) c.next();
  else {
    for (;;) {
      const id = identifier(c);
      if (params.some((p) => p.name === id.text)) throw c.error('duplicate parameter names');
      const p: A.Param = { name: id.text, tok: id };
      if (c.isOp(c.peekQuiet(), ':')) p.declaredType = typeAnnotation(c);
      params.push(p);
      const s = c.next();
      if (c.isOp(s, ')')) break;
      if (!c.isOp(s, ',')) throw c.error("expected ',' or ')'");
      // (stap accepts a trailing comma: `function f(a,)`)
      if (c.peekOp(')')) {
        c.next();
        break;
      }
    }
  }
  let priority = c.file.isTapset ? 1 : 0;
  if (c.peekOp(':')) {
    c.next();
    const v = signedNumber(c);
    if (Number(v.value) < 1 || typeof v.value === 'bigint') throw new ParseError('specified priority must be > 0', v.tok, true);
    priority = Number(v.value);
  }
  let body: A.FunctionDecl['body'];
  const b = c.peek();
  if (b && b.kind === 'embedded') {
    c.next();
    guruOnly(c, b, 'embedded code');
    body = { k: 'embedded', code: b.text, tok: b };
  } else {
    c.inFunction = true;
    body = parseBlock(c);
    c.inFunction = false;
    checkBody(c, body);
  }
  const fn: A.FunctionDecl = { name: name.text, tok: name, params, priority, body, file: c.file };
  if (returnType) fn.returnType = returnType;
  return fn;
}

// ---------------------------------------------------------------------------------------------
// Probes and aliases

function parseProbe(c: Cursor, out: A.StapFile): void {
  const kw = c.next();
  const names: A.ProbePoint[] = [];
  const points: A.ProbePoint[] = [];
  let epilogueOp = false;
  for (;;) {
    const pps = parseProbePoint(c);
    const t = c.peek();
    if (points.length === 0 && (c.isOp(t, '=') || c.isOp(t, '+='))) {
      const pp = pps[0];
      if (pp.optional || pp.sufficient) throw new ParseError('probe point alias name cannot be optional nor sufficient', pp.tok);
      if (pp.condition) throw new ParseError('probe point alias name cannot have a condition', pp.tok);
      // (a parameter in the name is refused by pass 2, `alias component b contains illegal parameter`)
      names.push(pp);
      epilogueOp = t.text === '+=';
      c.swallow(); // (`probe a =` ends with `saw: <input> EOF`)
      continue;
    }
    for (const p of pps) points.push(p);
    if (c.isOp(t, ',')) {
      c.swallow(); // (`probe begin,` ends with `saw: <input> EOF`)
      continue;
    }
    if (c.isOp(t, '{')) break;
    // (`}`, or a second alias `=`: parseProbePoint let them through)
    throw c.error('expected probe point specifier');
  }
  c.inFunction = false;
  const body = parseBlock(c);
  checkBody(c, body);
  if (!names.length) {
    out.probes.push({ points, body, tok: kw, file: c.file });
    return;
  }
  const decl: A.AliasDecl = { names, points, tok: kw, file: c.file };
  if (c.peekOp(',')) {
    if (epilogueOp) throw c.error("Combined prologue and epilogue cannot be defined with '+='");
    c.swallow();
    decl.prologue = body;
    decl.epilogue = parseBlock(c);
    checkBody(c, decl.epilogue);
  } else if (epilogueOp) decl.epilogue = body;
  else decl.prologue = body;
  out.aliases.push(decl);
}

/** Identifier, keyword or `*` tokens written without space between them make one component. */
function glues(t: A.Token): boolean {
  return t.kind === 'identifier' || t.kind === 'keyword' || (t.kind === 'operator' && t.text === '*');
}

/** Written with nothing between them (the text of a name token is its source text). */
function adjacent(p: A.Token, t: A.Token): boolean {
  return p.file === t.file && !p.chain && !t.chain && p.line === t.line && p.col + p.text.length === t.col;
}

function component(c: Cursor): A.ProbePointComponent {
  const first = c.next();
  if (!glues(first)) throw c.error("expected identifier or '*' or '{'");
  let name = first.text;
  let prev = first;
  {
    for (let t = c.tokAt(c.pos); t && glues(t) && adjacent(prev, t); t = c.tokAt(c.pos)) {
      c.next();
      name += t.text;
      prev = t;
    }
  }
  const tok = name === first.text ? first : { ...first, text: name };
  const comp: A.ProbePointComponent = { name, tok };
  if (c.peekOp('(')) {
    c.swallow(); // (`probe a(` ends with `saw: <input> EOF`)
    comp.arg = literal(c);
    if (!c.isOp(c.next(), ')')) throw c.error("expected ')'");
  }
  return comp;
}

/** The tokens that may follow a probe point (its alternatives in braces too). */
const POINT_ENDS = new Set([',', '{', '}', '=', '+=']);

interface Variant { components: A.ProbePointComponent[]; optional: boolean; sufficient: boolean; condition?: A.Expr }

/**
 * One probe point as written: the points it stands for after brace expansion (the cartesian
 * product of the alternatives; an alternative may carry its own `?`/`!`/condition only when
 * its group is the last component, stap's rule).
 */
function parseProbePoint(c: Cursor): A.ProbePoint[] {
  // (stap takes a component's first token: `probe` alone ends with `saw: keyword`)
  const start = c.peekQuiet();
  const parts: (A.ProbePoint[] | A.ProbePointComponent)[] = [];
  for (;;) {
    const t = c.peekQuiet();
    if (c.isOp(t, '{')) {
      c.swallow(); // (`probe {` ends with `saw: <input> EOF`, as `{a,` and `a.` do)
      c.enter(t);
      const list: A.ProbePoint[] = [];
      for (;;) {
        for (const p of parseProbePoint(c)) list.push(p);
        const s = c.next();
        if (c.isOp(s, '}')) break;
        if (!c.isOp(s, ',')) throw c.error("expected '}'");
        c.last = undefined;
      }
      c.leave();
      parts.push(list);
    } else parts.push(component(c));
    if (!c.peekOp('.')) break;
    c.swallow();
  }
  const t = c.peek();
  const sfx = c.isOp(t, '?') || c.isOp(t, '!') ? c.next() : undefined;
  let condition: A.Expr | undefined;
  if (c.peekKw('if')) {
    c.next();
    // (looked at, not taken: at the end of the file stap says "expected '('", not end-of-file)
    if (!c.isOp(c.peek(), '(')) throw c.error("expected '('");
    c.next();
    condition = parseExpression(c);
    if (!c.isOp(c.peek(), ')')) throw c.error("expected ')'");
    c.next();
  }
  // stap 4.8: one `?` or `!`, then a point ends at one of these (a second suffix is refused here)
  const end = c.peek();
  if (!end || end.kind !== 'operator' || !POINT_ENDS.has(end.text)) throw c.error("expected one of ', { } = +='");
  let variants: Variant[] = [{ components: [], optional: false, sufficient: false }];
  parts.forEach((alts, i) => {
    if (!Array.isArray(alts)) {
      for (const v of variants) v.components.push(alts);
      return;
    }
    for (const a of alts) {
      if ((a.optional || a.sufficient || a.condition) && i !== parts.length - 1) {
        throw new ParseError("'?', '!' or condition must only be specified in suffix", a.components[0]?.tok ?? start);
      }
    }
    const next: Variant[] = [];
    for (const v of variants) {
      for (const a of alts) {
        next.push({
          components: [...v.components, ...a.components],
          optional: v.optional || a.optional, sufficient: v.sufficient || a.sufficient, condition: a.condition ?? v.condition,
        });
      }
    }
    variants = next;
  });
  // (a `?`/`!` after a brace group whose alternatives carry one)
  if (sfx && variants.some((v) => v.optional)) throw new ParseError("'?' or '!' respecified", sfx, true);
  const optional = !!sfx;
  const sufficient = sfx?.text === '!';
  const tok = start!;
  return variants.map((v) => ({
    components: v.components, optional: optional || v.optional, sufficient: sufficient || v.sufficient,
    condition: condition ?? v.condition, tok,
  }));
}
