/**
 * The parser's view of the preprocessed tokens, with stap's conventions: `peek()` looks at the
 * next token, `next()` takes it ("unexpected end-of-file" past the end), and an error names the
 * last token looked at (`saw:` in the message) or the end of the file.  Also the explicit bound
 * on nesting (MAX_NESTING): parsing and every later walk of the tree recurse at most that deep.
 */
import type * as A from '../ast';
import { ParseError } from '../diag';
import type { ParseOptions } from './options';
import type { TokenSource } from './tokens';
import { ppErrors } from './preprocess';

/** Deepest nesting of statements and expressions accepted (far beyond hand-written scripts). */
export const MAX_NESTING = 1000;

export class Cursor {
  pos = 0;
  /** stap's last_t: the last token peeked at or taken (undefined after peeking past the end) */
  last: A.Token | undefined;
  private depth = 0;
  /** inside a function body (where `return` is allowed) */
  inFunction = false;
  /** next id for a rebalanced operator chain */
  chainIds = 0;
  /** the two tokens made last (a token source may make a new object per call) */
  private at0 = -1;
  private tok0: A.Token | undefined;
  private at1 = -1;
  private tok1: A.Token | undefined;

  constructor(readonly toks: TokenSource, readonly file: A.SourceFile, readonly opts: ParseOptions) {}

  /** The token at index i (the same object while the parser is near it), or undefined. */
  tokAt(i: number): A.Token | undefined {
    if (i === this.at0) return this.tok0;
    if (i === this.at1) return this.tok1;
    if (i >= this.toks.length) return undefined;
    const t = this.toks.get(i);
    if (t.kind === 'junk') {
      // an error the preprocessor left in the stream (a bad `%( )%`): raised where stap's
      // scanner would raise it, when the parser reaches it
      const e = ppErrors.get(t);
      if (e) {
        this.pos = i + 1;
        throw e;
      }
    }
    this.at1 = this.at0;
    this.tok1 = this.tok0;
    this.at0 = i;
    this.tok0 = t;
    return t;
  }

  peek(): A.Token | undefined {
    const t = this.tokAt(this.pos);
    this.last = t;
    return t;
  }

  /** The next token without counting as looked at (no effect on `last`): where stap takes the
   *  token rather than peeking, an end of the file there names the token before it. */
  peekQuiet(): A.Token | undefined {
    return this.tokAt(this.pos);
  }

  /** stap's swallow(): take the token and forget it, so that an end of the file right after it
   *  names no token (`saw: <input> EOF`), as after `global x[` or `catch (e)` in real-stap -p1. */
  swallow(): A.Token {
    const t = this.next();
    this.last = undefined;
    return t;
  }

  /** The token after the next one (no effect on `last`). */
  peek2(): A.Token | undefined {
    return this.tokAt(this.pos + 1);
  }

  next(): A.Token {
    const t = this.tokAt(this.pos);
    if (!t) throw this.error('unexpected end-of-file');
    this.pos++;
    this.last = t;
    return t;
  }

  isOp(t: A.Token | undefined, text: string): t is A.Token {
    return !!t && t.kind === 'operator' && t.text === text;
  }

  isKw(t: A.Token | undefined, text: string): t is A.Token {
    return !!t && t.kind === 'keyword' && t.text === text;
  }

  peekOp(text: string): boolean {
    return this.isOp(this.peek(), text);
  }

  peekKw(text: string): boolean {
    return this.isKw(this.peek(), text);
  }

  /** Take the operator `text` or fail with stap's "expected 'text'". */
  expectOp(text: string): A.Token {
    const t = this.next();
    if (t.kind !== 'operator' || t.text !== text) throw this.error(`expected '${text}'`);
    return t;
  }

  /** An error about the last token looked at (`saw:`), or the end of the file. */
  error(message: string): ParseError {
    const t = this.last;
    if (!t) return new ParseError(message, undefined, true, this.file);
    if (t.kind === 'junk') return new ParseError('unexpected junk', t);
    return new ParseError(message, t, true);
  }

  /** One level deeper (a nested statement or expression); refuses past MAX_NESTING. */
  enter(tok: A.Token | undefined): void {
    if (++this.depth > MAX_NESTING) throw this.tooDeep(tok);
  }

  tooDeep(tok = this.last): ParseError {
    this.depth = 0;
    return new ParseError(`statements and expressions nested more than ${MAX_NESTING} levels deep`, tok, false, this.file);
  }

  leave(): void {
    this.depth--;
  }

  resetDepth(): void {
    this.depth = 0;
  }
}
