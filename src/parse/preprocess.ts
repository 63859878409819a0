/**
 * Pass 1b: the preprocessor, on tokens (spec §2).  First `@define` macros are collected and
 * expanded (so a macro defined inside a false conditional is still defined, as in stap), then
 * `%( COND %? A %: B %)` conditionals are resolved against the simulated kernel's identity
 * (src/kernel/config.ts) and the session (guru mode, privilege, runtime, --compatible).
 */
import type { Token } from '../ast';
import { ParseError } from '../diag';
import { ARCH, KERNEL_RELEASE, KERNEL_VERSION, kconfig } from '../kernel/config';

import { STAP_VERSION, strverscmp } from './version';
import { pendingErrors } from './lexer';

export { STAP_VERSION, strverscmp };

export interface Macro {
  name: string;
  params: string[];
  body: Token[];
  tok: Token;
}

export interface PreprocessOptions {
  guru: boolean;
  compatible?: string;
  privilege?: string;
  runtime?: string;
  /** Library macros from .stpm files on the tapset path. */
  libraryMacros?: Map<string, Macro>;
  /** Filled with the session options a condition consulted (the tapset cache keys on them). */
  usedOptions?: Set<SessionOption>;
  errors: ParseError[];
  /**
   * A bad `@define` as stap's scanner raises it in a script (parseFile): an error left in the
   * token stream (ppErrors) where the scan stood, the scan going on after the offending token
   * (its parser then skips to the next declaration); else the error goes to `errors` and ends
   * the file (a library's .stpm).
   */
  defineErrorsInStream?: boolean;
  /** Filled with pass-1 warnings (`macro redefines built-in operator`), printed after the scan. */
  warnings?: { message: string; tok: Token }[];
}

/** Session options a `%( %)` condition can test: --compatible, --privilege, -g. */
export type SessionOption = 'compatible' | 'privilege' | 'guru';

/** The operators a macro of the same name warns about (real-stap -p1 `@define NAME %( 1 %)` each). */
const BUILTIN_AT_OPS = new Set(['@cast', '@var', '@entry', '@defined', '@count', '@sum', '@min', '@max', '@avg',
  '@variance', '@hist_log', '@hist_linear', '@kderef', '@uderef', '@kregister', '@uregister', '@perf',
  '@probewrite', '@const']);

function isOp(t: Token | undefined, text: string): boolean {
  return !!t && t.kind === 'operator' && t.text === text;
}

/** Collect macro definitions (returned, for .stpm files) and expand invocations. */
export function expandMacros(toks: Token[], opts: PreprocessOptions, defined = new Map<string, Macro>()): Token[] {
  // the output is a copy only from the first definition or invocation on (most files have none)
  let out: Token[] | null = null;
  let i = 0;
  while (i < toks.length) {
    const t = toks[i];
    if (t.kind === 'operator' && t.text.charCodeAt(0) === 64 /* @ */ && t.text.length > 1) {
      if (t.text === '@define') {
        out ??= toks.slice(0, i);
        const r = defineMacro(toks, i, opts, defined);
        if (opts.defineErrorsInStream) for (const e of r.errors) out.push(errorToken(e, e.tok ?? t));
        else opts.errors.push(...r.errors);
        i = r.next;
        continue;
      }
      const name = t.text.slice(1);
      const m = defined.get(name) ?? opts.libraryMacros?.get(name);
      if (m) {
        out ??= toks.slice(0, i);
        const r = invokeMacro(toks, i, m, opts, defined, 0);
        if (!r) return out; // error already recorded
        for (const x of r.tokens) out.push(x);
        i = r.next;
        continue;
      }
    }
    if (out) out.push(t);
    i++;
  }
  return out ?? toks;
}

/**
 * A `@define NAME(PARAMS) %( BODY %)` at toks[i]: the index after it, or after the token a
 * failure names (stap's scanner goes on from there: real-stap -p1 `@define x(a,) %( a %)` then
 * reports the `%(` as a conditional), with the errors (no token: at the end of the file).
 */
function defineMacro(toks: Token[], i: number, opts: PreprocessOptions, defined: Map<string, Macro>): { next: number; errors: ParseError[] } {
  const defTok = toks[i];
  const inStream = !!opts.defineErrorsInStream;
  const fail = (message: string, at: Token | undefined, j: number): { next: number; errors: ParseError[] } =>
    ({ next: at && inStream ? j + 1 : toks.length, errors: [at ? new ParseError(message, at) : new ParseError(message, undefined, true, defTok.file)] });
  i++;
  const nameTok = toks[i];
  if (!nameTok || nameTok.kind !== 'identifier' && nameTok.kind !== 'keyword') return fail('expected identifier', nameTok, i);
  const name = nameTok.text;
  if (name === 'define') return fail("attempt to redefine '@define'", nameTok, i);
  if (BUILTIN_AT_OPS.has('@' + name)) opts.warnings?.push({ message: `macro redefines built-in operator '@${name}'`, tok: nameTok });
  const prev = defined.get(name);
  const redefined = prev ? [new ParseError(`attempt to redefine macro '@${name}' in the same file`, nameTok),
    new ParseError(`macro '@${name}' first defined here`, prev.tok)] : [];
  // (stap's scanner goes on after the name, the body read as ordinary tokens)
  if (prev && inStream) return { next: i + 1, errors: redefined };
  i++;
  const params: string[] = [];
  if (isOp(toks[i], '(')) {
    i++;
    for (;;) {
      const p = toks[i];
      if (!p || (p.kind !== 'identifier' && p.kind !== 'keyword')) return fail('expected identifier', p, i);
      params.push(p.text);
      i++;
      if (isOp(toks[i], ',')) { i++; continue; }
      if (isOp(toks[i], ')')) { i++; break; }
      return fail("expected ',' or ')'", toks[i], i);
    }
  }
  if (!isOp(toks[i], '%(')) return fail(params.length ? "expected '%('" : "expected '%(' or '('", toks[i], i);
  i++;
  const body: Token[] = [];
  let depth = 1;
  for (; i < toks.length; i++) {
    const t = toks[i];
    if (isOp(t, '%(')) depth++;
    else if (isOp(t, '%)')) {
      depth--;
      if (depth === 0) break;
    }
    body.push(t);
  }
  if (i >= toks.length) return { next: toks.length, errors: [new ParseError("incomplete macro definition - missing '%)'", nameTok)] };
  if (prev) return { next: i + 1, errors: redefined.slice(0, 1) };
  defined.set(name, { name, params, body, tok: nameTok });
  return { next: i + 1, errors: [] };
}

/** A token of a macro's expansion; a `$N` out of range stays an error where it lands. */
function expansionCopy(t: Token, chain: Token, expansion: Token): Token {
  const copy: Token = { ...t, chain, expansion };
  const e = t.kind === 'junk' ? pendingErrors.get(t) : undefined;
  if (e) pendingErrors.set(copy, new ParseError(e.message, copy, e.saw, e.eof));
  return copy;
}

function invokeMacro(toks: Token[], i: number, m: Macro, opts: PreprocessOptions, defined: Map<string, Macro>,
  depth: number): { tokens: Token[]; next: number } | null {
  const inv = toks[i];
  if (depth > 100) {
    opts.errors.push(new ParseError(`recursive macro invocation '@${m.name}'`, inv));
    return null;
  }
  i++;
  const args: Token[][] = [];
  if (m.params.length > 0) {
    if (!isOp(toks[i], '(')) {
      opts.errors.push(new ParseError(
        `expected '(' in invocation of macro '@${m.name}' taking ${m.params.length} parameter${m.params.length === 1 ? '' : 's'}`,
        toks[i] ?? inv));
      return null;
    }
    i++;
    let cur: Token[] = [];
    let nest = 0;
    // (stap names the `,` that starts a parameter too many, or the `)` that ends too few)
    let extraComma: Token | undefined;
    let close: Token | undefined;
    for (;;) {
      const t = toks[i];
      if (!t) {
        opts.errors.push(new ParseError('could not find end of macro invocation', inv));
        return null;
      }
      if (nest === 0 && isOp(t, ',')) {
        args.push(cur);
        if (args.length === m.params.length) extraComma ??= t;
        cur = [];
        i++;
        continue;
      }
      if (nest === 0 && isOp(t, ')')) { args.push(cur); close = t; i++; break; }
      if (isOp(t, '(') || isOp(t, '[')) nest++;
      if (isOp(t, ')') || isOp(t, ']')) nest--;
      cur.push(t);
      i++;
    }
    if (args.length > m.params.length) {
      opts.errors.push(new ParseError(`too many parameters for macro '@${m.name}' (expected ${m.params.length})`, extraComma ?? inv));
      return null;
    }
    if (args.length < m.params.length) {
      opts.errors.push(new ParseError(`too few parameters for macro '@${m.name}' (expected ${m.params.length})`, close ?? inv));
      return null;
    }
  }
  // substitute parameters, then expand nested macros in the result
  const subst: Token[] = [];
  for (const t of m.body) {
    if (t.kind === 'operator' && t.text === '@define') {
      // (refused where the expansion has it, not in the definition: real-stap -p1)
      const e = new ParseError("'@define' forbidden inside macro body", expansionCopy(t, inv, inv));
      if (!opts.defineErrorsInStream) {
        opts.errors.push(e);
        return null;
      }
      subst.push(errorToken(e, e.tok!));
      continue;
    }
    if (t.kind === 'operator' && t.text.startsWith('@')) {
      const idx = m.params.indexOf(t.text.slice(1));
      if (idx >= 0) {
        const use: Token = { ...t, chain: inv, expansion: inv };
        for (const a of args[idx]) subst.push(expansionCopy(a, inv, use));
        continue;
      }
    }
    subst.push(expansionCopy(t, inv, inv));
  }
  const expanded: Token[] = [];
  let j = 0;
  while (j < subst.length) {
    const t = subst[j];
    if (t.kind === 'operator' && t.text.startsWith('@') && t.text !== '@define') {
      const inner = defined.get(t.text.slice(1)) ?? opts.libraryMacros?.get(t.text.slice(1));
      if (inner) {
        const r = invokeMacro(subst, j, inner, opts, defined, depth + 1);
        if (!r) return null;
        for (const x of r.tokens) expanded.push(x);
        j = r.next;
        continue;
      }
    }
    expanded.push(t);
    j++;
  }
  return { tokens: expanded, next: i };
}

// ---------------------------------------------------------------------------------------------
// Conditionals

/** Where a conditional stands (stap's pp_state_t): which branch is kept, which skipped. */
type PpState = 'keep-then' | 'skip-then' | 'keep-else' | 'skip-else';

/**
 * Resolve `%( %? %: %)` as stap's scanner does (parser::scan_pp): a stack of open
 * conditionals, each keeping or skipping its current branch, read one token at a time.  An
 * error goes into the token stream where stap's scanner raises it (a `junk` token the parser
 * raises when it reaches it, ppErrors) and the scan goes on from where that scanner stood,
 * the stack as it was: a bad condition inside a taken branch leaves the outer conditional
 * open, so its `%:` still switches to skipping and its `%)` still closes it; a stray `%?`, or a
 * `%:`/`%)` with nothing open, is an error of its own ("incomplete conditional - missing '%('").
 */
export function resolveConditionals(toks: Token[], opts: PreprocessOptions, args: string[]): Token[] {
  if (!toks.some((t) => t.kind === 'operator' && t.text.length === 2 && t.text.charCodeAt(0) === 37 /* %( %? %: %) */)) return toks;
  void args;
  const out: Token[] = [];
  const stack: { tok: Token; pp: PpState }[] = [];
  const n = toks.length;
  let i = 0;
  const missingOpen = (t: Token): void => {
    // (stap raises it from three places, one per marker: one of each is shown, and repeats
    // are counted as similar; real-stap -p1)
    const e = new ParseError("incomplete conditional - missing '%('", t);
    e.similar = `${e.message} ${t.text}`;
    out.push(errorToken(e, t));
  };
  for (;;) {
    const top = stack.length ? stack[stack.length - 1] : null;
    let t: Token | undefined;
    if (top && (top.pp === 'skip-then' || top.pp === 'skip-else')) {
      // skip_pp: over nested conditionals whole, to this one's next marker
      let nesting = 0;
      while (i < n) {
        const x = toks[i++];
        if (isOp(x, '%(')) nesting++;
        else if (nesting && isOp(x, '%)')) nesting--;
        else if (!nesting && (isOp(x, '%:') || isOp(x, '%?') || isOp(x, '%)'))) { t = x; break; }
      }
    } else if (i < n) t = toks[i++];
    if (!t) {
      if (!top) break;
      stack.pop();
      out.push(errorToken(new ParseError('incomplete conditional at end of file', top.tok), top.tok));
      continue;
    }
    if (t.kind !== 'operator' || t.text.length !== 2 || t.text.charCodeAt(0) !== 37) { out.push(t); continue; }
    if (t.text === '%?') { missingOpen(t); continue; }
    if (t.text === '%:') {
      if (!top) missingOpen(t);
      else if (top.pp === 'keep-else' || top.pp === 'skip-else') out.push(errorToken(new ParseError("invalid conditional - duplicate '%:'", t), t));
      else top.pp = top.pp === 'skip-then' ? 'keep-else' : 'skip-else';
      continue;
    }
    if (t.text === '%)') {
      if (!top) missingOpen(t);
      else stack.pop();
      continue;
    }
    if (t.text !== '%(') { out.push(t); continue; }
    const c = readCondition(toks, i - 1, opts);
    if (c instanceof LexicalCastError) {
      // (an exception out of stap's preprocessor: the run stops there)
      opts.errors.push(c);
      return out;
    }
    if (c.error) {
      out.push(errorToken(c.error, t));
      i = c.next;
      continue;
    }
    i = c.next;
    stack.push({ tok: t, pp: c.value ? 'keep-then' : 'skip-then' });
  }
  return out;
}

/**
 * Read and evaluate the condition of the `%(` at `start` as stap does: three tokens (a
 * comparison), then one (`&&`, `||` or the `%?` that must end it), whatever they are.  `next`
 * is where the scanner stands afterwards, also after an error (the tokens it had read are gone).
 */
function readCondition(toks: Token[], start: number, opts: PreprocessOptions):
  { value: boolean; next: number; error?: ParseError } | LexicalCastError {
  const n = toks.length;
  let j = start + 1;
  let result = false;
  let conj = true;
  let m: Token | undefined;
  for (;;) {
    if (j + 3 > n) return { value: false, next: n, error: new ParseError("incomplete condition after '%('", toks[start]) };
    const [l, op, r] = [toks[j], toks[j + 1], toks[j + 2]];
    j += 3;
    try {
      // (no short cut: stap evaluates every comparison, `&=`)
      conj = evalAtom(l, op, r, opts) && conj;
    } catch (e) {
      if (e instanceof LexicalCastError) return e;
      if (e instanceof ParseError) return { value: false, next: j, error: e };
      throw e;
    }
    m = j < n ? toks[j++] : undefined;
    if (isOp(m, '&&')) continue;
    result = result || conj;
    conj = true;
    if (!isOp(m, '||')) break;
  }
  if (!isOp(m, '%?')) return { value: false, next: j, error: new ParseError("expected '%?' marker for conditional", toks[start]) };
  return { value: result, next: j };
}

/** The errors the preprocessor left in the token stream for the parser (see resolveConditionals). */
export const ppErrors = new WeakMap<Token, ParseError>();

function errorToken(e: ParseError, at: Token): Token {
  const t: Token = { ...at, kind: 'junk', text: '' };
  ppErrors.set(t, e);
  return t;
}

const CMP_OPS = ['<', '<=', '==', '!=', '>', '>='];

function cmp(op: string, c: number): boolean {
  switch (op) {
    case '<': return c < 0;
    case '<=': return c <= 0;
    case '==': return c === 0;
    case '!=': return c !== 0;
    case '>': return c > 0;
    default: return c >= 0;
  }
}

const CONDITION_NAMES = new Set(['kernel_v', 'kernel_vr', 'systemtap_v', 'arch', 'runtime', 'systemtap_privilege', 'guru_mode']);

function evalAtom(l: Token, op: Token, r: Token, opts: PreprocessOptions): boolean {
  // (a `$1` past the arguments is the lexer's error, raised when the condition reads it)
  for (const t of [l, op, r]) {
    const pending = t.kind === 'junk' ? pendingErrors.get(t) : undefined;
    if (pending) throw pending;
  }
  // (what the left side is decides first: `%( 1 %? begin` is not a comparison at all, while
  // `%( 1 %? 1` has a bad operator; real-stap -p1)
  // (literals: two of a kind compare; a string and a number with an operator between them
  // name the right side; anything else is not a condition: real-stap -p1 '%( 1 == "a" ...',
  // '%( "a" == x ...', '%( "a" begin 1 ...')
  const named = l.kind === 'identifier' && (CONDITION_NAMES.has(l.text) || l.text.startsWith('CONFIG_'));
  const sameLiterals = (l.kind === 'string' || l.kind === 'number') && r.kind === l.kind;
  if (!named && !sameLiterals && op.kind === 'operator') {
    if (l.kind === 'string' && r.kind === 'number') throw new ParseError('expected string literal as right value', r);
    if (l.kind === 'number' && r.kind === 'string') throw new ParseError('expected number literal as right value', r);
  }
  if (!named && !sameLiterals) {
    throw new ParseError("expected 'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',\n" +
      "             'runtime', 'systemtap_privilege', 'CONFIG_...', or\n" +
      '             comparison between strings or integers', l);
  }
  if (op.kind !== 'operator' || !CMP_OPS.includes(op.text)) throw new ParseError('expected comparison operator', op);
  const eqOnly = () => {
    if (op.text !== '==' && op.text !== '!=') throw new ParseError("expected '==' or '!='", op);
  };
  const strLit = (t: Token): string => {
    if (t.kind !== 'string') throw new ParseError('expected string literal', t);
    return unescapeRaw(t.text);
  };
  if (l.kind === 'identifier') {
    const name = l.text;
    if (name === 'kernel_v' || name === 'kernel_vr' || name === 'systemtap_v') {
      if (name === 'systemtap_v') opts.usedOptions?.add('compatible');
      const target = strLit(r);
      const have = name === 'kernel_v' ? KERNEL_VERSION : name === 'kernel_vr' ? KERNEL_RELEASE
        : (opts.compatible ?? STAP_VERSION);
      if (/[*?[]/.test(target)) {
        if (op.text !== '==' && op.text !== '!=') {
          throw new ParseError('wildcard not allowed with order comparison operators', op);
        }
        return fnmatch(target, have) === (op.text === '==');
      }
      return cmp(op.text, strverscmp(have, target));
    }
    // (the right side's kind is checked before the operator: real-stap -p1 `%( arch < 1 ...`)
    if (name === 'arch') {
      const v = strLit(r);
      eqOnly();
      return fnmatch(v, ARCH) === (op.text === '==');
    }
    if (name === 'runtime') {
      const v = strLit(r);
      eqOnly();
      return fnmatch(v, opts.runtime ?? 'kernel') === (op.text === '==');
    }
    if (name === 'systemtap_privilege') {
      opts.usedOptions?.add('privilege');
      const v = strLit(r);
      eqOnly();
      return fnmatch(v, opts.privilege ?? 'stapdev') === (op.text === '==');
    }
    if (name === 'guru_mode') {
      opts.usedOptions?.add('guru');
      if (r.kind !== 'number') throw new ParseError('expected number', r);
      eqOnly();
      if (r.kind !== 'number' || (r.text !== '0' && r.text !== '1')) throw new ParseError('expected 0 or 1', r);
      return (Number(r.text) === (opts.guru ? 1 : 0)) === (op.text === '==');
    }
    if (name.startsWith('CONFIG_')) {
      const have = kconfig(name);
      if (r.kind === 'string') {
        eqOnly();
        return fnmatch(unescapeRaw(r.text), have) === (op.text === '==');
      }
      if (r.kind === 'number') {
        // an option that is not set compares as 0 (stap); a set non-numeric one is an error
        if (have !== '' && !/^-?\d+$/.test(have) && !/^0x[0-9a-f]+$/i.test(have)) throw new ParseError('Config option value not a number', l);
        return cmp(op.text, Math.sign(Number(have === '' ? '0' : have) - Number(r.text)));
      }
      if (r.kind === 'identifier' && r.text.startsWith('CONFIG_')) {
        eqOnly();
        return (have === kconfig(r.text)) === (op.text === '==');
      }
      throw new ParseError('expected string, number literal or other CONFIG_... as right side operand', r);
    }
  }
  if (l.kind === 'string') {
    const a = unescapeRaw(l.text);
    const b = unescapeRaw(r.text);
    return cmp(op.text, a < b ? -1 : a > b ? 1 : 0);
  }
  if (l.kind === 'number' && r.kind === 'number') {
    const a = lexicalCastInt64(l);
    const b = lexicalCastInt64(r);
    return cmp(op.text, a < b ? -1 : a > b ? 1 : 0);
  }
  throw new Error('unreachable: a condition of an unknown kind');
}

/**
 * stap compares `%( N op M %)` numbers with boost::lexical_cast<int64_t>: decimal digits only
 * (`010` is ten), in range, or the whole run stops with `bad lexical cast`.
 */
export class LexicalCastError extends ParseError {
  constructor(tok: Token) {
    super('bad lexical cast', tok);
  }
}

function lexicalCastInt64(t: Token): bigint {
  if (!/^[0-9]+$/.test(t.text)) throw new LexicalCastError(t);
  const v = BigInt(t.text);
  if (v > 0x7fffffffffffffffn) throw new LexicalCastError(t);
  return v;
}

/** C escapes in a raw string token (spec §1). */
export function unescapeRaw(raw: string): string {
  if (raw.indexOf('\\') < 0) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c !== '\\' || i + 1 >= raw.length) { out += c; continue; }
    const d = raw[++i];
    switch (d) {
      case 'a': out += '\x07'; break;
      case 'b': out += '\b'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'v': out += '\v'; break;
      case 'f': out += '\f'; break;
      case 'r': out += '\r'; break;
      case 'x': {
        let h = '';
        while (h.length < 2 && /[0-9a-fA-F]/.test(raw[i + 1] ?? '')) h += raw[++i];
        out += h ? String.fromCharCode(parseInt(h, 16)) : 'x';
        break;
      }
      default:
        if (d >= '0' && d <= '7') {
          let o = d;
          while (o.length < 3 && /[0-7]/.test(raw[i + 1] ?? '')) o += raw[++i];
          out += String.fromCharCode(parseInt(o, 8) & 255);
        } else out += d;
    }
  }
  return out;
}

/** fnmatch(3) with `*`, `?`, `[...]`. */
export function fnmatch(pattern: string, s: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) { re += '\\['; continue; }
      let cls = pattern.slice(i + 1, end);
      if (cls.startsWith('!')) cls = '^' + cls.slice(1);
      re += '[' + cls.replace(/\\/g, '\\\\') + ']';
      i = end;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(re + '$', 's').test(s);
}
