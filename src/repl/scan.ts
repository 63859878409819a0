/**
 * Lexical helpers for the REPL: is a piece of input complete (braces, parens and brackets
 * closed, no open string/comment/embedded-C block; a `probe`/`function` declaration has its
 * body), and splitting input into top-level declarations (`global a, b` into one item per
 * variable).  These work on raw text without the parser so a half-typed line costs nothing.
 */

export interface ScanResult {
  /** Open `(`/`[`/`{`/`%(` minus closers (may go negative on stray closers). */
  depth: number;
  /** Inside a string, block comment or `%{ %}` block at the end of the text. */
  open: boolean;
  /** A `{...}` block or `%{...%}` body was closed at depth 0. */
  sawBody: boolean;
}

/** Top-level declaration keywords (where a new item starts). */
const TOP = new Set(['global', 'function', 'probe', 'private', '@define']);

interface Word {
  text: string;
  start: number;
  depth: number;
}

/** One pass over `text`: depth, open constructs, and the identifier-like words with their depth. */
function lex(text: string, words: Word[] | null): ScanResult {
  let depth = 0;
  let sawBody = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    const d = text[i + 1];
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\') i++;
        i++;
      }
      if (i >= n) return { depth, open: true, sawBody };
      i++;
      continue;
    }
    if (c === '#' || (c === '/' && d === '/')) {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && d === '*') {
      const e = text.indexOf('*/', i + 2);
      if (e < 0) return { depth, open: true, sawBody };
      i = e + 2;
      continue;
    }
    if (c === '%' && d === '{') {
      const e = text.indexOf('%}', i + 2);
      if (e < 0) return { depth, open: true, sawBody };
      if (depth === 0) sawBody = true;
      i = e + 2;
      continue;
    }
    if (c === '%' && d === '(') {
      depth++;
      i += 2;
      continue;
    }
    if (c === '%' && d === ')') {
      depth--;
      i += 2;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (c === '}' && depth === 0) sawBody = true;
    } else if (/[A-Za-z_@$]/.test(c)) {
      const start = i;
      i++;
      while (i < n && /[A-Za-z0-9_$]/.test(text[i])) i++;
      // `kernel.function`: a component, not the keyword
      if (words && text[start - 1] !== '.') words.push({ text: text.slice(start, i), start, depth });
      continue;
    }
    i++;
  }
  return { depth, open: false, sawBody };
}

export function scan(text: string): ScanResult {
  return lex(text, null);
}

/** The first word of the input (skipping blanks and comments), or ''. */
export function firstWord(text: string): string {
  const words: Word[] = [];
  lex(text, words);
  return words.length && /^\s*$/.test(stripComments(text.slice(0, words[0].start))) ? words[0].text : '';
}

function stripComments(s: string): string {
  return s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(#|\/\/)[^\n]*/g, '');
}

/** Whether input starts with a declaration keyword (global, function, probe, private, @define, %{). */
export function isDeclaration(text: string): boolean {
  const t = stripComments(text).trimStart();
  if (t.startsWith('%{')) return true;
  const w = firstWord(text);
  return TOP.has(w);
}

/**
 * Whether the input so far is a complete unit: nothing left open, and a `probe`/`function`
 * declaration has reached its body (stap's `add` keeps reading until the text parses).
 */
export function isComplete(text: string): boolean {
  const r = scan(text);
  if (r.open || r.depth > 0) return false;
  if (r.depth < 0) return true; // a stray closer: let the parser report it
  if (!isDeclaration(text)) return true; // commands and statements end with the line
  const words: Word[] = [];
  lex(text, words);
  const top = words.filter((w) => w.depth === 0);
  if (top.length === 0) return true;
  // the last top-level declaration must have its body
  let last: Word | null = null;
  for (const w of top) if (w.text === 'probe' || w.text === 'function' || w.text === 'global' || w.text === '@define') last = w;
  if (!last || last.text === 'global' || last.text === '@define') return true;
  return lex(text.slice(last.start), null).sawBody;
}

/** Split declarations at top-level keywords; each piece keeps its own text (trimmed). */
export function splitDecls(text: string): string[] {
  const words: Word[] = [];
  lex(text, words);
  const cuts: number[] = [];
  let prev = '';
  for (const w of words) {
    if (w.depth !== 0) {
      prev = '';
      continue;
    }
    if (TOP.has(w.text) && prev !== 'private') cuts.push(w.start);
    prev = w.text;
  }
  // embedded-C blocks at top level start items too
  const out: string[] = [];
  if (cuts.length === 0 || cuts[0] > 0) cuts.unshift(0);
  for (let i = 0; i < cuts.length; i++) {
    const piece = text.slice(cuts[i], i + 1 < cuts.length ? cuts[i + 1] : text.length).trim();
    if (piece && !/^\s*$/.test(stripComments(piece))) out.push(piece);
  }
  return out;
}

/** `global a, b[4], c = 5;` -> [`global a`, `global b[4]`, `global c = 5`] (prefix kept, e.g. `private global`). */
export function splitGlobals(piece: string): string[] {
  const m = /^((?:private\s+)?global)\s+/.exec(piece);
  if (!m) return [piece];
  const rest = piece.slice(m[0].length).replace(/;\s*$/, '');
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let inStr = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(rest.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(rest.slice(start).trim());
  if (parts.some((p) => p === '' || /[#/]/.test(p))) return [piece]; // comments or odd syntax: keep as typed
  return parts.map((p) => `${m[1]} ${p}`);
}
