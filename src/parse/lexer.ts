/**
 * Pass 1a: the stap lexer.  Bytes in, tokens out, with SystemTap's rules (spec §1): comments
 * `#` `//` `/* *\/`, identifiers with `$`, `@word` operators, numbers validated later, strings
 * with raw escapes, `%{ %}` embedded code, the preprocessor operators `%( %? %: %)`, and
 * command-line argument pasting `$1 @1 $# @#` (done here, before the preprocessor, as stap does).
 */
import type { Token, TokenKind, SourceFile } from '../ast';
import { ParseError } from '../diag';
import { TokenTable, K } from './tokens';
import { compatBefore } from './version';

/** Operators by first character, longest first (the lexer takes the longest match). */
const OPS_BY_CHAR: string[][] = [];
for (const op of ['<<<', '>>>', '<<=', '>>=', '==', '!=', '<=', '>=', '=~', '!~', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=', '.=',
  '&&', '||', '++', '--', '->', '<<', '>>', '%(', '%?', '%:', '%)', ...'{}[]()<>=+-*/%&|^!~?:;,.']) {
  (OPS_BY_CHAR[op.charCodeAt(0)] ??= []).push(op);
}
for (const list of OPS_BY_CHAR) list?.sort((a, b) => b.length - a.length);

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
  /** --compatible VERSION: `private` is a keyword from 3.0, `\\x` an escape from 2.3 */
  compatible?: string;
  /** Filled with the scanner's warnings (a `}%` inside embedded code). */
  warnings?: { message: string; tok: Token }[];
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

/** The tokens of a file as objects. */
export function tokenize(file: SourceFile, opts: LexOptions): Token[] {
  return lex(file, opts).toArray();
}

/** The tokens of a file, column-wise (see tokens.ts). */
export function lex(file: SourceFile, opts: LexOptions, pasting = false): TokenTable {
  const text = file.text;
  const out = new TokenTable(file);
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  // one string per distinct identifier: machine-generated scripts repeat names a lot
  const names = new Map<string, string>();

  // user scripts only: the library's files are written for this version
  const noPrivate = !file.isTapset && compatBefore(opts.compatible, '3.0');
  const noHexEscape = !file.isTapset && compatBefore(opts.compatible, '2.3');
  const make = (kind: TokenKind, t: string, startLine: number, startCol: number): Token => ({ kind, text: t, file, line: startLine, col: startCol });

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) { i++; line++; lineStart = i; continue; }
    if (c === 32 || (c >= 9 && c <= 13)) { i++; continue; }
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
      const tok = make('operator', text.slice(start, i), sLine, sCol);
      if (pasting) {
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
          out.addWhole(junk);
          continue;
        }
        opts.usedArgs?.add(k);
        value = opts.args[k - 1];
      }
      if (c === 64) {
        // @N: the argument as a string literal (escape so the raw text reinterprets to the value)
        out.add('string', value.replace(/\\/g, '\\\\').replace(/"/g, '\\"'), sLine, sCol);
      } else {
        const sub: SourceFile = { name: file.name, text: value, isTapset: file.isTapset };
        const toks = lex(sub, opts, true).toArray();
        // pasted tokens report at the $N location (and never glue to a neighbour: see decl.ts)
        for (const t of toks) out.addWhole({ ...t, file, line: sLine, col: sCol, chain: tok });
      }
      continue;
    }

    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentChar(text.charCodeAt(i))) i++;
      const word = text.slice(start, i);
      let name = names.get(word);
      if (name === undefined) names.set(word, (name = word));
      out.addCode(KEYWORDS.has(name) && !(noPrivate && name === 'private') ? K.keyword : K.identifier, name, sLine, sCol);
      continue;
    }
    if (c === 64 /* @ */ && isIdentChar(text.charCodeAt(i + 1))) {
      i++;
      while (i < n && isIdentChar(text.charCodeAt(i))) i++;
      out.add('operator', text.slice(start, i), sLine, sCol);
      continue;
    }
    if (isDigit(c)) {
      i++;
      // (letters and digits: `1_000` is the number 1 then the identifier _000, as stap lexes it)
      while (i < n && isIdentChar(text.charCodeAt(i)) && text.charCodeAt(i) !== 36 && text.charCodeAt(i) !== 95) i++;
      const digits = text.slice(start, i);
      let num = names.get(digits);
      if (num === undefined) names.set(digits, (num = digits));
      out.addCode(K.number, num, sLine, sCol);
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
        const tok = make('junk', '', sLine, sCol);
        opts.errors.push(new ParseError('Could not find matching closing quote', tok));
        continue;
      }
      out.add('string', keptEscapes(text.slice(start + 1, i), noHexEscape), sLine, sCol);
      i++;
      continue;
    }
    if (c === 37 /* % */ && text.charCodeAt(i + 1) === 123 /* { */) {
      i += 2;
      const codeStart = i;
      let ok = false;
      while (i < n) {
        if (text.charCodeAt(i) === 37 && text.charCodeAt(i + 1) === 125) { ok = true; break; }
        if (text.charCodeAt(i) === 125 && text.charCodeAt(i + 1) === 37) {
          // (stap's scanner warns at each `}%` it passes, at the embedded code: real-stap -p1 '%{ }% %}')
          opts.warnings?.push({ message: "possible erroneous closing '}%', use '%}'?", tok: { kind: 'embedded', text: '', file, line: sLine, col: sCol } });
        }
        if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
        i++;
      }
      if (!ok) {
        // (stap's junk token there has no text: `at: junk ''`)
        const tok: Token = { kind: 'junk', text: '', file, line: sLine, col: sCol };
        opts.errors.push(new ParseError("Could not find matching '%}' to close embedded function block", tok));
        break;
      }
      const code = text.slice(codeStart, i);
      i += 2;
      out.add('embedded', code, sLine, sCol);
      continue;
    }
    const ops = OPS_BY_CHAR[c];
    if (ops) {
      let op: string | undefined;
      for (const o of ops) {
        if (text.startsWith(o, i)) {
          op = o;
          break;
        }
      }
      if (op) {
        i += op.length;
        out.addCode(K.operator, op, sLine, sCol);
        continue;
      }
    }
    i++;
    // (stap's lexer makes any other ASCII punctuation a one-character operator, which the parser
    // then refuses where it looks: `x = 'c'` "expected literal string or number", `@` alone
    // "unknown operator @"; real-stap -p1)
    out.add(isPunct(c) ? 'operator' : 'junk', text[start], sLine, sCol);
  }
  return out;
}

function isPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/**
 * A string literal's text as stap's lexer keeps it (parse.cxx lexer::scan): the C escapes
 * `\\a \\b \\t \\n \\v \\f \\r \\\\ \\"`, octal digits and (from 2.3) `\\x` keep their backslash; before
 * any other character the backslash is dropped (`"\\q"` is `"q"`).
 */
function keptEscapes(raw: string, noHex: boolean): string {
  if (raw.indexOf('\\') < 0) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch !== '\\' || i + 1 >= raw.length) { out += ch; continue; }
    const d = raw[++i];
    if ('abtnvfr\\"01234567'.includes(d) || (d === 'x' && !noHex)) out += '\\';
    out += d;
  }
  return out;
}

export const KEYWORDS = new Set(['probe', 'global', 'private', 'function', 'if', 'else', 'for', 'foreach', 'in',
  'limit', 'return', 'delete', 'while', 'break', 'continue', 'next', 'string', 'long', 'try', 'catch']);
