/**
 * The shell language as dash parses it (POSIX sh): lists with `;` `&` and newlines, `&&` `||`,
 * pipelines with `!`, simple commands with assignments and redirections (`<` `>` `>>` `>|` `<>`
 * `<&` `>&` `n>&-` here-documents `<<` `<<-`), compound commands (`{ }`, `( )`, if/elif/else,
 * while, until, for, case) and function definitions. Words keep their quoting and expansions
 * ($NAME, ${NAME[op word]}, $(cmd), `cmd`, $((expr))) for the executor to expand.
 */

export type WordPart =
  | { k: 'lit'; s: string; q: boolean }
  | { k: 'param'; name: string; op: string; arg: Word | null; q: boolean }
  | { k: 'cmd'; src: string; q: boolean }
  | { k: 'arith'; src: string; q: boolean };

export interface Word { parts: WordPart[] }

export interface Redir {
  fd: number;
  op: '<' | '>' | '>>' | '>|' | '<>' | '<&' | '>&' | '<<' | '<<-';
  target: Word;
  /** here-document body (raw) and whether its delimiter was quoted (no expansion) */
  here?: { body: string; quoted: boolean };
}

export type Command =
  | { k: 'simple'; assigns: { name: string; value: Word }[]; words: Word[]; redirs: Redir[]; line: number }
  | { k: 'group'; body: List; redirs: Redir[] }
  | { k: 'subshell'; body: List; redirs: Redir[] }
  | { k: 'if'; clauses: { cond: List; body: List }[]; else: List | null; redirs: Redir[] }
  | { k: 'loop'; until: boolean; cond: List; body: List; redirs: Redir[] }
  | { k: 'for'; name: string; items: Word[] | null; body: List; redirs: Redir[] }
  | { k: 'case'; word: Word; items: { pats: Word[]; body: List | null }[]; redirs: Redir[] }
  | { k: 'func'; name: string; body: Command };

export interface Pipeline { bang: boolean; cmds: Command[] }
export interface AndOr { first: Pipeline; rest: { op: '&&' | '||'; p: Pipeline }[]; bg: boolean; src: string }
export type List = AndOr[];

export class ShSyntaxError extends Error {
  constructor(msg: string, readonly line: number) { super(msg); }
}

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', '{', '}', '!']);
const OPS = ['&&', '||', ';;', '<<-', '<<', '>>', '<&', '>&', '<>', '>|', '|', '&', ';', '<', '>', '(', ')'];

type Tok = { t: 'word'; w: Word; raw: string; line: number } | { t: 'op'; v: string; line: number; io?: number } | { t: 'nl'; line: number } | { t: 'eof'; line: number };

/** Lexer with the here-document bodies read at the next newline. */
class Lexer {
  private i = 0;
  line = 1;
  private pendingHere: Redir[] = [];
  constructor(private readonly s: string) {}

  /** the token just produced was a newline (its here-documents are due now) */
  private lastNl = false;

  /** `Redir`s whose bodies come after the current line */
  queueHere(r: Redir): void {
    this.pendingHere.push(r);
    // the parser's lookahead already passed the newline ending this line: read the body now
    if (this.lastNl) this.readHereBodies();
  }

  private readHereBodies(): void {
    for (const r of this.pendingHere) {
      const delim = r.here!.body;
      const strip = r.op === '<<-';
      let body = '';
      for (;;) {
        if (this.i >= this.s.length) break;
        let j = this.s.indexOf('\n', this.i);
        if (j < 0) j = this.s.length;
        let ln = this.s.slice(this.i, j);
        this.i = Math.min(j + 1, this.s.length);
        this.line++;
        if (strip) ln = ln.replace(/^\t+/, '');
        if (ln === delim) break;
        body += ln + '\n';
      }
      r.here!.body = body;
    }
    this.pendingHere = [];
  }

  next(): Tok {
    const t = this.lex1();
    this.lastNl = t.t === 'nl';
    return t;
  }

  private lex1(): Tok {
    const s = this.s;
    for (;;) {
      const c = s[this.i];
      if (c === ' ' || c === '\t') { this.i++; continue; }
      if (c === '\\' && s[this.i + 1] === '\n') { this.i += 2; this.line++; continue; }
      if (c === '#') { while (this.i < s.length && s[this.i] !== '\n') this.i++; continue; }
      break;
    }
    if (this.i >= s.length) return { t: 'eof', line: this.line };
    const c = s[this.i];
    if (c === '\n') {
      this.i++;
      const line = this.line++;
      if (this.pendingHere.length) this.readHereBodies();
      return { t: 'nl', line };
    }
    // an IO number: digits directly before < or >
    const io = /^(\d+)(?=[<>])/.exec(s.slice(this.i, this.i + 12));
    if (io) {
      this.i += io[1].length;
      const op = OPS.find((o) => s.startsWith(o, this.i))!;
      this.i += op.length;
      return { t: 'op', v: op, line: this.line, io: Number(io[1]) };
    }
    for (const o of OPS) {
      if (s.startsWith(o, this.i)) { this.i += o.length; return { t: 'op', v: o, line: this.line }; }
    }
    return this.word();
  }

  /** a word up to an unquoted blank or operator, with its expansions */
  private word(): Tok {
    const s = this.s;
    const start = this.i;
    const line = this.line;
    const parts: WordPart[] = [];
    let lit = '';
    const flush = (q: boolean) => { if (lit) { parts.push({ k: 'lit', s: lit, q }); lit = ''; } };
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '|' || c === '<' || c === '>' || c === '(' || c === ')') break;
      if (c === '\\') {
        if (s[this.i + 1] === '\n') { this.i += 2; this.line++; continue; }
        flush(false);
        if (this.i + 1 < s.length) parts.push({ k: 'lit', s: s[this.i + 1], q: true });
        this.i += 2;
        continue;
      }
      if (c === "'") {
        flush(false);
        const j = s.indexOf("'", this.i + 1);
        if (j < 0) throw new ShSyntaxError('Unterminated quoted string', this.line);
        const body = s.slice(this.i + 1, j);
        this.line += (body.match(/\n/g) ?? []).length;
        parts.push({ k: 'lit', s: body, q: true });
        this.i = j + 1;
        continue;
      }
      if (c === '"') {
        flush(false);
        this.i++;
        this.dquoted(parts);
        continue;
      }
      if (c === '$' || c === '`') {
        flush(false);
        const p = this.dollar(false);
        if (p) { parts.push(p); continue; }
        lit += c;
        this.i++;
        continue;
      }
      lit += c;
      this.i++;
    }
    flush(false);
    return { t: 'word', w: { parts }, raw: s.slice(start, this.i), line };
  }

  private dquoted(parts: WordPart[]): void {
    const s = this.s;
    let lit = '';
    const flush = () => { if (lit) { parts.push({ k: 'lit', s: lit, q: true }); lit = ''; } };
    let any = false;
    while (this.i < s.length && s[this.i] !== '"') {
      const c = s[this.i];
      any = true;
      if (c === '\\' && this.i + 1 < s.length) {
        const n = s[this.i + 1];
        if (n === '\n') { this.i += 2; this.line++; continue; }
        lit += '$`"\\'.includes(n) ? n : c + n;
        this.i += 2;
        continue;
      }
      if (c === '$' || c === '`') {
        flush();
        const p = this.dollar(true);
        if (p) { parts.push(p); continue; }
        lit += c;
        this.i++;
        continue;
      }
      if (c === '\n') this.line++;
      lit += c;
      this.i++;
    }
    if (this.i >= s.length) throw new ShSyntaxError('Unterminated quoted string', this.line);
    this.i++;
    flush();
    if (!any) parts.push({ k: 'lit', s: '', q: true });
  }

  /** $NAME, ${...}, $(...), $((...)), `...` at the cursor (null: a plain '$') */
  private dollar(q: boolean): WordPart | null {
    const s = this.s;
    if (s[this.i] === '`') {
      let j = this.i + 1, src = '';
      while (j < s.length && s[j] !== '`') {
        if (s[j] === '\\' && '$`\\'.includes(s[j + 1] ?? '')) { src += s[j + 1]; j += 2; continue; }
        src += s[j++];
      }
      if (j >= s.length) throw new ShSyntaxError('EOF in backquote substitution', this.line);
      this.i = j + 1;
      return { k: 'cmd', src, q };
    }
    const n = s[this.i + 1];
    if (n === '(' && s[this.i + 2] === '(') {
      const end = matchParen(s, this.i + 2);
      if (end > 0 && s[end + 1] === ')') {
        const src = s.slice(this.i + 3, end);
        this.i = end + 2;
        return { k: 'arith', src, q };
      }
    }
    if (n === '(') {
      const end = matchParen(s, this.i + 1);
      if (end < 0) throw new ShSyntaxError('Missing \'))\'', this.line);
      const src = s.slice(this.i + 2, end);
      this.line += (src.match(/\n/g) ?? []).length;
      this.i = end + 1;
      return { k: 'cmd', src, q };
    }
    if (n === '{') {
      const end = s.indexOf('}', this.i + 2);
      if (end < 0) throw new ShSyntaxError('Missing \'}\'', this.line);
      const body = s.slice(this.i + 2, end);
      this.i = end + 1;
      const m = /^(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-])(:?[-=?+]|%%|%|##|#)?([\s\S]*)$/.exec(body);
      if (!m) throw new ShSyntaxError(`\${${body}}: Bad substitution`, this.line);
      if (m[1]) return { k: 'param', name: m[2], op: 'len', arg: null, q };
      const arg = m[3] ? new Lexer(m[4]).argWord() : null;
      return { k: 'param', name: m[2], op: m[3] ?? '', arg, q };
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(s.slice(this.i + 1));
    if (!m) return null;
    this.i += 1 + m[1].length;
    return { k: 'param', name: m[1], op: '', arg: null, q };
  }

  /** the whole rest as one word (the argument of ${NAME-word}) */
  argWord(): Word {
    const parts: WordPart[] = [];
    let lit = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '$' || c === '`') {
        if (lit) { parts.push({ k: 'lit', s: lit, q: false }); lit = ''; }
        const p = this.dollar(false);
        if (p) { parts.push(p); continue; }
      }
      if (c === '"') { if (lit) { parts.push({ k: 'lit', s: lit, q: false }); lit = ''; } this.i++; this.dquoted(parts); continue; }
      if (c === "'") { const j = this.s.indexOf("'", this.i + 1); parts.push({ k: 'lit', s: this.s.slice(this.i + 1, j < 0 ? undefined : j), q: true }); this.i = j < 0 ? this.s.length : j + 1; continue; }
      lit += c;
      this.i++;
    }
    if (lit) parts.push({ k: 'lit', s: lit, q: false });
    return { parts };
  }
}

/** index of the ')' closing the '(' at `open`, skipping quotes and nesting (-1 if none) */
function matchParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') { i++; continue; }
    if (c === "'") { const j = s.indexOf("'", i + 1); if (j < 0) return -1; i = j; continue; }
    if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** The literal text of a word when it has no expansions (null otherwise). */
export function wordLiteral(w: Word): string | null {
  let s = '';
  for (const p of w.parts) { if (p.k !== 'lit') return null; s += p.s; }
  return s;
}

function wordUnquoted(w: Word): string | null {
  if (w.parts.length !== 1) return null;
  const p = w.parts[0];
  return p.k === 'lit' && !p.q ? p.s : null;
}

class Parser {
  private tok: Tok;
  private readonly lex: Lexer;
  constructor(private readonly src: string) {
    this.lex = new Lexer(src);
    this.tok = this.lex.next();
  }
  private adv(): Tok { const t = this.tok; this.tok = this.lex.next(); return t; }
  private isOp(v: string): boolean { return this.tok.t === 'op' && this.tok.v === v; }
  private isWord(v: string): boolean { return this.tok.t === 'word' && wordUnquoted(this.tok.w) === v; }
  private err(): never {
    const t = this.tok;
    const what = t.t === 'eof' ? 'end of file' : t.t === 'nl' ? 'newline' : t.t === 'op' ? t.v : t.raw;
    throw new ShSyntaxError(`Syntax error: ${t.t === 'eof' ? 'end of file unexpected' : `"${what}" unexpected`}`, t.line);
  }
  private linebreak(): void {
    while (this.tok.t === 'nl') this.adv();
  }
  private expectWord(v: string): void {
    if (!this.isWord(v)) {
      const t = this.tok;
      if (t.t === 'eof') throw new ShSyntaxError(`Syntax error: end of file unexpected (expecting "${v}")`, t.line);
      throw new ShSyntaxError(`Syntax error: "${t.t === 'word' ? t.raw : t.t === 'op' ? t.v : 'newline'}" unexpected (expecting "${v}")`, t.line);
    }
    this.adv();
  }

  program(): List {
    this.linebreak();
    const l = this.list(new Set());
    if (this.tok.t !== 'eof') this.err();
    return l;
  }

  /** compound_list: and-ors separated by ; & newlines, until one of `stops` (reserved words or ops) */
  list(stops: Set<string>): List {
    const out: List = [];
    for (;;) {
      this.linebreak();
      if (this.tok.t === 'eof') break;
      if (this.tok.t === 'word' && stops.has(wordUnquoted(this.tok.w) ?? '\0')) break;
      if (this.tok.t === 'op' && (stops.has(this.tok.v) || this.tok.v === ')' || this.tok.v === ';;')) break;
      const start = this.tokStart();
      const ao = this.andOr();
      ao.src = this.src.slice(start, this.tokStart()).trim().replace(/[;&]$/, '').trim();
      out.push(ao);
      if (this.isOp('&')) { ao.bg = true; this.adv(); continue; }
      if (this.isOp(';')) { this.adv(); continue; }
      if (this.tok.t === 'nl') continue;
      break;
    }
    return out;
  }

  private tokStart(): number {
    return (this.lex as unknown as { i: number }).i - (this.tok.t === 'word' ? this.tok.raw.length : this.tok.t === 'op' ? this.tok.v.length : 0);
  }

  private andOr(): AndOr {
    const first = this.pipeline();
    const rest: AndOr['rest'] = [];
    while (this.isOp('&&') || this.isOp('||')) {
      const op = (this.adv() as { v: '&&' | '||' }).v;
      this.linebreak();
      rest.push({ op, p: this.pipeline() });
    }
    return { first, rest, bg: false, src: '' };
  }

  private pipeline(): Pipeline {
    let bang = false;
    if (this.isWord('!')) { bang = true; this.adv(); }
    const cmds = [this.command()];
    while (this.isOp('|')) { this.adv(); this.linebreak(); cmds.push(this.command()); }
    return { bang, cmds };
  }

  private redirs(out: Redir[]): void {
    while (this.tok.t === 'op' && ['<', '>', '>>', '>|', '<>', '<&', '>&', '<<', '<<-'].includes(this.tok.v)) out.push(this.redir());
  }

  private redir(): Redir {
    const t = this.adv() as { v: Redir['op']; io?: number; line: number };
    if (this.tok.t !== 'word') this.err();
    const w = (this.adv() as { w: Word }).w;
    const fd = t.io ?? (t.v.startsWith('<') ? 0 : 1);
    const r: Redir = { fd, op: t.v, target: w };
    if (t.v === '<<' || t.v === '<<-') {
      const quoted = w.parts.some((p) => p.k === 'lit' && p.q);
      r.here = { body: (wordLiteral(w) ?? w.parts.map((p) => (p.k === 'lit' ? p.s : '')).join('')), quoted };
      this.lex.queueHere(r);
    }
    return r;
  }

  private command(): Command {
    const t = this.tok;
    if (t.t === 'op' && t.v === '(') {
      this.adv();
      const body = this.list(new Set([')']));
      if (!this.isOp(')')) this.err();
      this.adv();
      const redirs: Redir[] = [];
      this.redirs(redirs);
      return { k: 'subshell', body, redirs };
    }
    if (t.t === 'word') {
      const w = wordUnquoted(t.w);
      switch (w) {
        case '{': { this.adv(); const body = this.list(new Set(['}'])); this.expectWord('}'); return this.withRedirs({ k: 'group', body, redirs: [] }); }
        case 'if': return this.withRedirs(this.ifCmd());
        case 'while': case 'until': {
          this.adv();
          const cond = this.list(new Set(['do']));
          this.expectWord('do');
          const body = this.list(new Set(['done']));
          this.expectWord('done');
          return this.withRedirs({ k: 'loop', until: w === 'until', cond, body, redirs: [] });
        }
        case 'for': return this.withRedirs(this.forCmd());
        case 'case': return this.withRedirs(this.caseCmd());
        case 'then': case 'else': case 'elif': case 'fi': case 'do': case 'done': case 'esac': case '}': case 'in':
          this.err();
      }
      // NAME() compound: a function definition
      if (w && /^[A-Za-z_][A-Za-z0-9_]*$/.test(w) && this.peekFuncDef()) {
        this.adv(); this.adv(); this.adv();
        this.linebreak();
        return { k: 'func', name: w, body: this.command() };
      }
    }
    return this.simple();
  }

  private peekFuncDef(): boolean {
    const save = { tok: this.tok, i: (this.lex as unknown as { i: number }).i, line: this.lex.line };
    this.adv();
    const a = this.isOp('(');
    let b = false;
    if (a) { this.adv(); b = this.isOp(')'); }
    this.tok = save.tok;
    (this.lex as unknown as { i: number }).i = save.i;
    this.lex.line = save.line;
    return a && b;
  }

  private withRedirs<C extends Command & { redirs: Redir[] }>(c: C): C {
    this.redirs(c.redirs);
    return c;
  }

  private ifCmd(): Command & { redirs: Redir[] } {
    this.adv();
    const clauses: { cond: List; body: List }[] = [];
    let els: List | null = null;
    let cond = this.list(new Set(['then']));
    this.expectWord('then');
    let body = this.list(new Set(['elif', 'else', 'fi']));
    clauses.push({ cond, body });
    for (;;) {
      if (this.isWord('elif')) {
        this.adv();
        cond = this.list(new Set(['then']));
        this.expectWord('then');
        body = this.list(new Set(['elif', 'else', 'fi']));
        clauses.push({ cond, body });
        continue;
      }
      if (this.isWord('else')) { this.adv(); els = this.list(new Set(['fi'])); }
      this.expectWord('fi');
      break;
    }
    return { k: 'if', clauses, else: els, redirs: [] as Redir[] };
  }

  private forCmd(): Command & { redirs: Redir[] } {
    this.adv();
    if (this.tok.t !== 'word') this.err();
    const name = wordLiteral((this.adv() as { w: Word }).w) ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ShSyntaxError(`Syntax error: Bad for loop variable`, this.tok.line);
    this.linebreak();
    let items: Word[] | null = null;
    if (this.isWord('in')) {
      this.adv();
      items = [];
      while (this.tok.t === 'word') items.push((this.adv() as { w: Word }).w);
      if (this.isOp(';')) this.adv();
    } else if (this.isOp(';')) this.adv();
    this.linebreak();
    this.expectWord('do');
    const body = this.list(new Set(['done']));
    this.expectWord('done');
    return { k: 'for', name, items, body, redirs: [] };
  }

  private caseCmd(): Command & { redirs: Redir[] } {
    this.adv();
    if (this.tok.t !== 'word') this.err();
    const word = (this.adv() as { w: Word }).w;
    this.linebreak();
    this.expectWord('in');
    const items: { pats: Word[]; body: List | null }[] = [];
    for (;;) {
      this.linebreak();
      if (this.isWord('esac')) { this.adv(); break; }
      if (this.isOp('(')) this.adv();
      const pats: Word[] = [];
      for (;;) {
        if (this.tok.t !== 'word') this.err();
        pats.push((this.adv() as { w: Word }).w);
        if (this.isOp('|')) { this.adv(); continue; }
        break;
      }
      if (!this.isOp(')')) this.err();
      this.adv();
      const body = this.list(new Set(['esac', ';;']));
      items.push({ pats, body });
      if (this.isOp(';;')) { this.adv(); continue; }
      this.linebreak();
      this.expectWord('esac');
      break;
    }
    return { k: 'case', word, items, redirs: [] };
  }

  private simple(): Command {
    const line = this.tok.line;
    const assigns: { name: string; value: Word }[] = [];
    const words: Word[] = [];
    const redirs: Redir[] = [];
    for (;;) {
      const t = this.tok;
      if (t.t === 'op' && ['<', '>', '>>', '>|', '<>', '<&', '>&', '<<', '<<-'].includes(t.v)) { redirs.push(this.redir()); continue; }
      if (t.t !== 'word') break;
      if (!words.length) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(t.raw);
        const first = t.w.parts[0];
        if (m && first && first.k === 'lit' && !first.q && first.s.startsWith(m[0])) {
          this.adv();
          const rest: WordPart[] = [{ ...first, s: first.s.slice(m[0].length) }, ...t.w.parts.slice(1)];
          assigns.push({ name: m[1], value: { parts: rest.filter((p) => p.k !== 'lit' || p.s !== '' || p.q) } });
          continue;
        }
      }
      words.push((this.adv() as { w: Word }).w);
    }
    if (!assigns.length && !words.length && !redirs.length) this.err();
    return { k: 'simple', assigns, words, redirs, line };
  }
}

/** Parse a whole script (or `-c` string). Throws ShSyntaxError. */
export function parseScript(src: string): List {
  return new Parser(src).program();
}

export { RESERVED };
