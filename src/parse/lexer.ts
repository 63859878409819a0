/**
 * Pass 1a: the stap lexer.  Bytes in, tokens out, with SystemTap's rules (spec §1): comments
 * `#` `//` `/* *\/`, identifiers with `$`, `@word` operators, numbers validated later, strings
 * with raw escapes, `%{ %}` embedded code, the preprocessor operators `%( %? %: %)`, and
 * command-line argument pasting `$1 @1 $# @#` (done here, before the preprocessor, as stap does).
 */
import type { Token, TokenKind, SourceFile } from '../ast';
import { ParseError } from '../diag';

const THREE = ['<<<', '>>>', '<<=', '>>='];
const TWO = ['==', '!=', '<=', '>=', '=~', '!~', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=', '.=',
  '&&', '||', '++', '--', '->', '<<', '>>', '%(', '%?', '%:', '%)'];

/**
 * Errors that only count if their token survives preprocessing (e.g. `@5` with 4 arguments
 * inside a conditional branch that is not taken).
 */
export const pendingErrors = new WeakMap<Token, ParseError>();

export interface LexOptions {
  args: string[];
  /** Filled with the 1-based argument numbers referenced by $N/@N. */
  usedArgs?: Set<number>;
  /** Collects errors (lexing continues after junk, as stap's parser recovers). */
  errors: ParseError[];
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

export function tokenize(file: SourceFile, opts: LexOptions, pasted?: { chain: Token }): Token[] {
  const text = file.text;
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;

  const make = (kind: TokenKind, t: string, start: number, startLine: number, startCol: number): Token => {
    const tok: Token = { kind, text: t, file, line: startLine, col: startCol, offset: start, length: i - start };
    if (pasted) tok.chain = pasted.chain;
    return tok;
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) { i++; line++; lineStart = i; continue; }
    if (isSpaceCode(c)) { i++; continue; }
    // comments
    if (c === 35 /* # */) { while (i < n && text.charCodeAt(i) !== 10) i++; continue; }
    if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) { while (i < n && text.charCodeAt(i) !== 10) i++; continue; }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      i += 2;
      while (i < n && !(text.charCodeAt(i) === 42 && text.charCodeAt(i + 1) === 47)) {
        if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
        i++;
      }
      i = Math.min(n, i + 2);
      continue;
    }
    const start = i;
    const sLine = line;
    const sCol = i - lineStart + 1;

    // command-line argument pasting: $1 @1 $# @#
    if ((c === 36 || c === 64) && (isDigit(text.charCodeAt(i + 1)) || text.charCodeAt(i + 1) === 35)) {
      i++;
      let numText = '';
      if (text.charCodeAt(i) === 35) { numText = '#'; i++; }
      else while (i < n && isDigit(text.charCodeAt(i))) numText += text[i++];
      const tok = make('operator', text.slice(start, i), start, sLine, sCol);
      if (pasted) {
        opts.errors.push(new ParseError('invalid nested substitution of command line arguments', tok));
        continue;
      }
      let value: string;
      if (numText === '#') value = String(opts.args.length);
      else {
        const k = Number(numText);
        if (k < 1 || k > opts.args.length) {
          const junk: Token = { ...tok, kind: 'junk', text: '' };
          pendingErrors.set(junk, new ParseError(`command line argument out of range [1-${opts.args.length}]`, junk));
          out.push(junk);
          continue;
        }
        opts.usedArgs?.add(k);
        value = opts.args[k - 1];
      }
      if (c === 64) {
        // @N: the argument as a string literal (escape so the raw text reinterprets to the value)
        out.push({ ...tok, kind: 'string', text: value.replace(/\\/g, '\\\\').replace(/"/g, '\\"') });
      } else {
        const sub: SourceFile = { name: file.name, text: value, isTapset: file.isTapset };
        const toks = tokenize(sub, opts, { chain: tok });
        for (const t of toks) {
          // pasted tokens report at the $N location
          out.push({ ...t, file, line: sLine, col: sCol, offset: start, length: 0, chain: tok });
        }
        if (toks.length > 0) {
          // keep adjacency information: first pasted token starts at $N, last ends after it
          out[out.length - toks.length].length = 0;
          out[out.length - 1].length = i - start;
          out[out.length - 1].offset = start;
        }
      }
      continue;
    }

    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentChar(text.charCodeAt(i))) i++;
      const word = text.slice(start, i);
      out.push(make(KEYWORDS.has(word) ? 'keyword' : 'identifier', word, start, sLine, sCol));
      continue;
    }
    if (c === 64 /* @ */ && isIdentChar(text.charCodeAt(i + 1))) {
      i++;
      while (i < n && isIdentChar(text.charCodeAt(i))) i++;
      out.push(make('operator', text.slice(start, i), start, sLine, sCol));
      continue;
    }
    if (isDigit(c)) {
      i++;
      while (i < n && isIdentChar(text.charCodeAt(i)) && text.charCodeAt(i) !== 36) i++;
      out.push(make('number', text.slice(start, i), start, sLine, sCol));
      continue;
    }
    if (c === 34 /* " */) {
      i++;
      let ok = false;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 10) break;
        if (d === 92 /* \ */ && i + 1 < n && text.charCodeAt(i + 1) !== 10) { i += 2; continue; }
        if (d === 34) { ok = true; break; }
        i++;
      }
      if (!ok) {
        const tok = make('junk', '', start, sLine, sCol);
        opts.errors.push(new ParseError('Could not find matching closing quote', tok));
        continue;
      }
      const t = make('string', text.slice(start + 1, i), start, sLine, sCol);
      i++;
      t.length = i - start;
      out.push(t);
      continue;
    }
    if (c === 37 /* % */ && text.charCodeAt(i + 1) === 123 /* { */) {
      i += 2;
      const codeStart = i;
      let ok = false;
      while (i < n) {
        if (text.charCodeAt(i) === 37 && text.charCodeAt(i + 1) === 125) { ok = true; break; }
        if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
        i++;
      }
      if (!ok) {
        const tok: Token = { kind: 'junk', text: '%{', file, line: sLine, col: sCol, offset: start, length: 2 };
        opts.errors.push(new ParseError("Could not find matching '%}' to close embedded function block", tok));
        break;
      }
      const code = text.slice(codeStart, i);
      i += 2;
      out.push(make('embedded', code, start, sLine, sCol));
      continue;
    }
    const three = text.substr(i, 3);
    if (THREE.includes(three)) { i += 3; out.push(make('operator', three, start, sLine, sCol)); continue; }
    const two = text.substr(i, 2);
    if (TWO.includes(two)) { i += 2; out.push(make('operator', two, start, sLine, sCol)); continue; }
    if ('{}[]()<>=+-*/%&|^!~?:;,.'.includes(text[i])) {
      i++;
      out.push(make('operator', text[i - 1], start, sLine, sCol));
      continue;
    }
    i++;
    const junk = make('junk', text[start], start, sLine, sCol);
    out.push(junk);
  }
  return out;
}

export const KEYWORDS = new Set(['probe', 'global', 'private', 'function', 'if', 'else', 'for', 'foreach', 'in',
  'limit', 'return', 'delete', 'while', 'break', 'continue', 'next', 'string', 'long', 'try', 'catch']);
