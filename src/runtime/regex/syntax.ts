/**
 * The syntax of stap's regular expressions (the right operand of `=~` / `!~`): POSIX ERE as
 * SystemTap's own regex compiler (stapregex, translate time) accepts it, parsed into a tree.
 *
 * Input is the string literal as written between the quotes, escapes unresolved: stap hands the
 * raw literal to its regex parser, whose cursor first resolves the C escapes (`\n`, `\t`,
 * `\ooo` with exactly three octal digits, `\xhh` with exactly two hex digits); any other escaped
 * character stands for itself *with* its regex meaning (`"\."` is `.`, any byte), and a
 * backslash that survives that level (`"\\."`) escapes the next character at the regex level
 * (a literal `.`).  Then the grammar: alternation `|` of concatenations of factors (literal,
 * `.`, `[...]` with `[:class:]` names, `(...)`, `^`, `$`, `\c`), each followed by any number of
 * `*` `+` `?` `{m}` `{m,}` `{m,n}` (counts up to 12344).  Empty alternatives and groups are
 * allowed; a `)` that is the last character of the pattern is ignored, as stap does.
 *
 * Errors carry stap's text and the byte position stap reports (positions were checked against
 * stap 4.8 with `stap -p2`; see test/runtime/regex.test.ts).
 */

/** A set of bytes: 256 flags. */
export type ByteSet = Uint8Array;

export type Node =
  | { t: 'empty' }
  | { t: 'set'; set: ByteSet }
  | { t: 'bol' }
  | { t: 'eol' }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  /** max -1: unbounded */
  | { t: 'rep'; body: Node; min: number; max: number }
  | { t: 'group'; body: Node; index: number };

export interface RegexError {
  error: string;
  /** byte offset in the literal (absent for the errors stap reports without one) */
  position?: number;
}

export interface ParsedRegex {
  /** the whole pattern as group 0 */
  root: Node;
  /** number of groups including group 0 */
  ngroups: number;
}

/** Largest repetition count stap accepts (`{12345}` is "12345 is too large"). */
export const MAX_REPEAT = 12344;
/** Deepest nesting of groups and postfix operators parsed (a bound on recursion). */
export const MAX_NESTING = 1000;

class Fail {
  constructor(readonly error: string, readonly position?: number) {}
}

const END = -1;

/**
 * stapregex's cursor: one decoded character preloaded (`cur`), C escapes resolved when a
 * character is loaded (so an escape error is raised when the character before it is consumed).
 */
class Cursor {
  private pos = 0;
  cur = END;
  curStart = 0;
  curEnd = 0;
  prevStart = 0;
  prevEnd = 0;

  constructor(private readonly raw: string) {
    this.load();
  }

  private load(): void {
    const raw = this.raw;
    if (this.pos >= raw.length) {
      this.cur = END;
      return;
    }
    const start = this.pos;
    let c = raw.charCodeAt(this.pos);
    if (c === 92 /* \ */) {
      this.pos++;
      if (this.pos >= raw.length) throw new Fail('unexpected end of regex', this.pos);
      const e = raw.charCodeAt(this.pos);
      c = e;
      switch (e) {
        case 97: c = 7; break; // a
        case 98: c = 8; break; // b
        case 116: c = 9; break; // t
        case 110: c = 10; break; // n
        case 118: c = 11; break; // v
        case 102: c = 12; break; // f
        case 114: c = 13; break; // r
        case 120: { // x: exactly two hex digits
          if (this.pos >= raw.length - 2) throw new Fail('two hex digits required in escape sequence', this.pos);
          const d1 = hexDigit(raw.charCodeAt(this.pos + 1));
          const d2 = hexDigit(raw.charCodeAt(this.pos + 2));
          if (d1 < 0 || d2 < 0) throw new Fail('two hex digits required in escape sequence', this.pos + (d1 >= 0 ? 1 : 2));
          c = d1 * 16 + d2;
          this.pos += 2;
          break;
        }
        case 52: case 53: case 54: case 55: // 4-7
          throw new Fail('octal escape sequence out of range', this.pos);
        case 48: case 49: case 50: case 51: { // 0-3: exactly three octal digits
          if (this.pos >= raw.length - 2) throw new Fail('three octal digits required in escape sequence', this.pos);
          const d1 = octDigit(raw.charCodeAt(this.pos + 1));
          const d2 = octDigit(raw.charCodeAt(this.pos + 2));
          if (d1 < 0 || d2 < 0) throw new Fail('three octal digits required in escape sequence', this.pos + (d1 >= 0 ? 1 : 2));
          c = (e - 48) * 64 + d1 * 8 + d2;
          this.pos += 2;
          break;
        }
        default:
          break; // the backslash goes, the character stays (with its regex meaning)
      }
    }
    this.pos++;
    this.cur = c & 255;
    this.curStart = start;
    this.curEnd = this.pos;
  }

  peek(): number {
    return this.cur;
  }

  next(): number {
    if (this.cur === END) throw new Fail('unexpected end of regex', this.pos);
    const c = this.cur;
    this.prevStart = this.curStart;
    this.prevEnd = this.curEnd;
    this.load();
    return c;
  }

  /** No character after the preloaded one. */
  get finished(): boolean {
    return this.cur === END || this.curEnd >= this.raw.length;
  }

  /** The position just after the preloaded character (the end of the pattern if none). */
  get after(): number {
    return this.cur === END ? this.pos : this.curEnd;
  }
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  c |= 32;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

function octDigit(c: number): number {
  return c >= 48 && c <= 55 ? c - 48 : -1;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function charName(c: number): string {
  return String.fromCharCode(c);
}

function setOf(...codes: number[]): ByteSet {
  const s = new Uint8Array(256);
  for (const c of codes) s[c] = 1;
  return s;
}

function range(s: ByteSet, lo: number, hi: number): void {
  for (let c = lo; c <= hi; c++) s[c] = 1;
}

/** The C-locale classes stapregex knows. */
const CLASSES: Record<string, (s: ByteSet) => void> = {
  alpha: (s) => { range(s, 65, 90); range(s, 97, 122); },
  upper: (s) => range(s, 65, 90),
  lower: (s) => range(s, 97, 122),
  digit: (s) => range(s, 48, 57),
  xdigit: (s) => { range(s, 48, 57); range(s, 65, 70); range(s, 97, 102); },
  alnum: (s) => { range(s, 48, 57); range(s, 65, 90); range(s, 97, 122); },
  space: (s) => { range(s, 9, 13); s[32] = 1; },
  blank: (s) => { s[9] = 1; s[32] = 1; },
  punct: (s) => { range(s, 33, 47); range(s, 58, 64); range(s, 91, 96); range(s, 123, 126); },
  graph: (s) => range(s, 33, 126),
  print: (s) => range(s, 32, 126),
  cntrl: (s) => { range(s, 0, 31); s[127] = 1; },
};

/** Any byte but NUL (stap's strings end at NUL; `.` and negated classes match newline). */
function anyByte(): ByteSet {
  const s = new Uint8Array(256).fill(1);
  s[0] = 0;
  return s;
}

class Parser {
  private cur: Cursor;
  private groups = 1;
  private depth = 0;

  constructor(raw: string) {
    this.cur = new Cursor(raw);
  }

  parse(): ParsedRegex {
    const body = this.expr();
    if (!this.cur.finished) {
      // the only way to stop early is a ')' without its '(' (a last ')' is ignored, as in stap)
      throw new Fail("unbalanced ')'", this.cur.after);
    }
    return { root: { t: 'group', body, index: 0 }, ngroups: this.groups };
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) throw new Fail(`regular expression nested more than ${MAX_NESTING} levels deep`, this.cur.curStart);
  }

  private expr(): Node {
    const items = [this.term()];
    while (this.cur.cur === 124 /* | */) {
      this.cur.next();
      items.push(this.term());
    }
    return items.length === 1 ? items[0] : { t: 'alt', items };
  }

  private term(): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.cur.cur;
      if (c === END || c === 124 || c === 41 /* ) */) break;
      items.push(this.factor());
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? items[0] : { t: 'cat', items };
  }

  private factor(): Node {
    const cur = this.cur;
    const c = cur.cur;
    if (c === 42 || c === 43 || c === 63 || c === 123) throw new Fail(`unexpected '${charName(c)}'`, cur.curStart);
    let node: Node;
    let anchor = false;
    cur.next();
    switch (c) {
      case 94: node = { t: 'bol' }; anchor = true; break; // ^
      case 36: node = { t: 'eol' }; anchor = true; break; // $
      case 46: node = { t: 'set', set: anyByte() }; break; // .
      case 91: node = { t: 'set', set: this.bracket() }; break; // [
      case 40: { // (
        // `(?:...)` groups without capturing (not counted by matched(n)); any other `(?` is refused
        // as stap refuses it ("unexpected '(?a'", at the character after the `?`)
        let capture = true;
        if (cur.cur === 63) {
          cur.next();
          const q = cur.cur as number;
          if (q !== 58) throw new Fail(`unexpected '(?${q === END ? '' : charName(q)}'`, cur.curStart);
          cur.next();
          capture = false;
        }
        this.enter();
        const index = capture ? this.groups++ : -1;
        const body = this.expr();
        this.expect(41);
        this.depth--;
        node = capture ? { t: 'group', body, index } : body;
        break;
      }
      case 92: // \ (a backslash left after the C escapes): the next character, literally
        node = { t: 'set', set: setOf(cur.next()) };
        break;
      default:
        node = { t: 'set', set: setOf(c) };
    }
    let wrapped = 0;
    for (;;) {
      const p = cur.cur;
      let min: number;
      let max: number;
      if (p === 42 || p === 43 || p === 63) {
        if (anchor) throw new Fail(`postfix closure '${charName(p)}' applied to anchoring operator`, cur.curStart);
        cur.next();
        min = p === 43 ? 1 : 0;
        max = p === 63 ? 1 : -1;
      } else if (p === 123) {
        if (anchor) throw new Fail(`postfix closure '{' applied to anchoring operator`, cur.curStart);
        cur.next();
        [min, max] = this.counts();
      } else break;
      this.enter();
      wrapped++;
      node = { t: 'rep', body: node, min, max };
    }
    this.depth -= wrapped;
    return node;
  }

  /** After `{`: `m}`, `m,}` or `m,n}`. */
  private counts(): [number, number] {
    const cur = this.cur;
    const min = this.number();
    const c = cur.next();
    if (c === 44 /* , */) {
      if (cur.cur === 125 /* } */) {
        cur.next();
        return [min, -1];
      }
      if (cur.cur !== END && isDigit(cur.cur)) {
        const at = cur.after;
        const max = this.number();
        this.expect(125);
        if (max < min) throw new Fail(`repetition count ${max} is smaller than ${min}`, at);
        return [min, max];
      }
      throw new Fail("expected '}' or number", cur.after);
    }
    if (c === 125) return [min, min];
    throw new Fail("expected ',' or '}'", cur.prevStart);
  }

  private number(): number {
    const cur = this.cur;
    if (cur.cur === END || !isDigit(cur.cur)) throw new Fail('expected number', cur.after);
    let digits = '';
    while (cur.cur !== END && isDigit(cur.cur)) digits += charName(cur.next());
    const n = Number(digits);
    if (n > MAX_REPEAT) throw new Fail(`${digits} is too large`, cur.after);
    return n;
  }

  private expect(c: number): void {
    const cur = this.cur;
    if (cur.cur === c) {
      cur.next();
      return;
    }
    if (cur.cur === END) throw new Fail(`expected ${charName(c)}, found end of regex`, cur.prevStart);
    throw new Fail(`expected ${charName(c)}, found ${charName(cur.cur)}`, cur.curStart);
  }

  /** After `[`: the class up to its `]` (a `]` first is literal; `\` escapes; ranges; `[:name:]`). */
  private bracket(): ByteSet {
    const cur = this.cur;
    const set = new Uint8Array(256);
    let negate = false;
    if (cur.peek() === 94) {
      cur.next();
      negate = true;
    }
    let first = true;
    let lastNamed = '';
    for (;;) {
      if (cur.peek() === END) {
        if (lastNamed) throw new Fail(`unclosed character class '[:${lastNamed}:'`, cur.after);
        throw new Fail('unclosed character class', cur.prevStart);
      }
      let c = cur.next();
      if (c === 93 /* ] */ && !first) break;
      first = false;
      lastNamed = '';
      if (c === 91 /* [ */ && cur.peek() === 58 /* : */) {
        cur.next();
        let name = '';
        for (;;) {
          if (cur.peek() === END) throw new Fail("unclosed character class '[:'", cur.after);
          const d = cur.next();
          if (d === 58 && cur.peek() === 93) {
            cur.next();
            break;
          }
          name += charName(d);
        }
        const add = Object.prototype.hasOwnProperty.call(CLASSES, name) ? CLASSES[name] : undefined;
        if (!add) throw new Fail(`unknown character class '${name}'`);
        add(set);
        lastNamed = name;
        continue;
      }
      if (c === 92) {
        if (cur.peek() === END) throw new Fail('unclosed character class', cur.prevStart);
        c = cur.next();
      }
      if (cur.peek() !== 45 /* - */) {
        set[c] = 1;
        continue;
      }
      cur.next();
      if (cur.peek() === 93 || cur.peek() === END) {
        // `a-]`: the dash is literal (the loop reports a missing `]`)
        set[c] = 1;
        set[45] = 1;
        continue;
      }
      let hi = cur.next();
      if (hi === 92) {
        if (cur.peek() === END) throw new Fail('unclosed character class', cur.prevStart);
        hi = cur.next();
      }
      if (hi < c) throw new Fail(`Inverted character range ${charName(c)}-${charName(hi)}`, cur.prevEnd);
      range(set, c, hi);
    }
    if (negate) for (let i = 0; i < 256; i++) set[i] ^= 1;
    set[0] = 0;
    return set;
  }
}

/** Parse a regex literal (raw text between the quotes). */
export function parseRegex(raw: string): ParsedRegex | RegexError {
  try {
    return new Parser(raw).parse();
  } catch (e) {
    if (e instanceof Fail) return e.position === undefined ? { error: e.error } : { error: e.error, position: e.position };
    throw e;
  }
}

/** stap's text: `regex compilation error (at position N): MESSAGE`. */
export function regexErrorText(e: RegexError): string {
  return e.position === undefined ? `regex compilation error: ${e.error}` : `regex compilation error (at position ${e.position}): ${e.error}`;
}

/**
 * The raw literal text of a pattern whose raw form is unknown (a synthetic string): the bytes
 * escaped so that the cursor gives them back (a backslash becomes `\\`, a control byte `\ooo`).
 */
export function rawOfValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i) & 255;
    if (c === 92) out += '\\\\';
    else if (c === 34) out += '\\"';
    else if (c < 32 || c >= 127) out += '\\' + c.toString(8).padStart(3, '0');
    else out += value[i];
  }
  return out;
}
