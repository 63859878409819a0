/**
 * Token storage.  A machine-generated script can have millions of tokens; as objects they
 * would cost ~80 bytes each, most of them (`;`, `(`, `]`, ...) garbage once parsed.  The lexer
 * stores them column-wise instead (a byte of kind, line and column numbers, a shared text) and
 * the parser makes a Token object only for the token it is looking at: the ones the tree keeps
 * survive, the rest die young.
 */
import type { SourceFile, Token, TokenKind } from '../ast';

/** What the parser reads tokens from. */
export interface TokenSource {
  readonly length: number;
  /** The token at i (the same object for the same i only if the source stores objects). */
  get(i: number): Token;
  kind(i: number): TokenKind;
  text(i: number): string;
}

const KINDS: TokenKind[] = ['identifier', 'keyword', 'operator', 'number', 'string', 'embedded', 'junk'];
/** Kind codes for addCode(). */
export const enum K { identifier = 0, keyword = 1, operator = 2, number = 3 }
const CODE = new Map<TokenKind, number>(KINDS.map((k, i) => [k, i]));

/** The lexer's column-wise output. */
export class TokenTable implements TokenSource {
  length = 0;
  private kinds = new Uint8Array(256);
  private lines = new Int32Array(256);
  private cols = new Int32Array(256);
  private texts: string[] = [];
  /** tokens stored whole: pasted ones (with their chain) and ones an error is attached to */
  private whole = new Map<number, Token>();

  constructor(readonly file: SourceFile) {}

  add(kind: TokenKind, text: string, line: number, col: number): void {
    this.addCode(CODE.get(kind)!, text, line, col);
  }

  /** add() with the kind as its code (K.*): the lexer's fast path. */
  addCode(code: number, text: string, line: number, col: number): void {
    const n = this.length;
    if (n === this.kinds.length) {
      const grow = <T extends Uint8Array | Int32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.kinds = grow(this.kinds);
      this.lines = grow(this.lines);
      this.cols = grow(this.cols);
    }
    this.kinds[n] = code;
    this.lines[n] = line;
    this.cols[n] = col;
    this.texts.push(text);
    this.length = n + 1;
  }

  /** Add a token that must keep its identity (or carries a chain). */
  addWhole(t: Token): void {
    this.whole.set(this.length, t);
    this.add(t.kind, t.text, t.line, t.col);
  }

  kind(i: number): TokenKind {
    return KINDS[this.kinds[i]];
  }

  text(i: number): string {
    return this.texts[i];
  }

  get(i: number): Token {
    if (this.whole.size) {
      const w = this.whole.get(i);
      if (w) return w;
    }
    return { kind: KINDS[this.kinds[i]], text: this.texts[i], file: this.file, line: this.lines[i], col: this.cols[i] };
  }

  toArray(): Token[] {
    const out: Token[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.get(i);
    return out;
  }
}

/** Tokens as objects (after macro expansion or conditionals). */
export class TokenArray implements TokenSource {
  constructor(readonly toks: Token[]) {}

  get length(): number {
    return this.toks.length;
  }

  get(i: number): Token {
    return this.toks[i];
  }

  kind(i: number): TokenKind {
    return this.toks[i].kind;
  }

  text(i: number): string {
    return this.toks[i].text;
  }
}
