/**
 * Pass 1: parse a stap file into the AST of src/ast.ts.
 *
 *   source --lexer.ts--> tokens --preprocess.ts--> tokens --decl/stmt/expr.ts--> AST
 *
 * The parser is hand-written recursive descent over the preprocessed tokens (lang/stap.ebnf
 * gives the grammar), with stap's messages.  It is linear in the input and bounded in depth:
 * nesting past MAX_NESTING is an error, long operator chains are built balanced, so neither
 * parsing nor any later pass can run out of stack on a machine-generated script.  After an
 * error it resynchronises at the next top-level keyword, as stap does, so several errors can
 * be reported.
 */
import type * as A from '../ast';
import { Diagnostics, ParseError } from '../diag';
import { tokenize, lex, KEYWORDS, pendingErrors } from './lexer';
import { TokenArray, TokenSource, TokenTable } from './tokens';
import { expandMacros, resolveConditionals, Macro, LexicalCastError, ppErrors } from './preprocess';
import { Cursor } from './cursor';
import { parseDecl, Declared } from './decl';
import { PrivilegeError } from './literals';
import type { ParseOptions } from './options';

export type { Macro, ParseOptions };
export { parseNumber } from './literals';
export { KEYWORDS };

const TOP_KEYWORDS = new Set(['probe', 'global', 'function', 'private']);

/** Lex and preprocess a file: the token stream the parser sees. */
export function preprocessFile(file: A.SourceFile, opts: ParseOptions, errors: ParseError[]): A.Token[] {
  const toks = tokenize(file, { args: opts.args, usedArgs: opts.usedArgs, errors, compatible: opts.compatible });
  const popts = { guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, runtime: opts.runtime, libraryMacros: opts.libraryMacros, usedOptions: opts.usedOptions, errors };
  const expanded = expandMacros(toks, popts);
  const out: A.Token[] = [];
  for (const t of resolveConditionals(expanded, popts, opts.args)) {
    const pe = t.kind === 'junk' ? ppErrors.get(t) : undefined;
    if (pe) errors.push(pe);
    else out.push(t);
  }
  return out;
}

/** Collect `@define`s of a library macro file (.stpm). */
export function parseMacroFile(file: A.SourceFile, opts: ParseOptions, diag: Diagnostics): Map<string, Macro> | null {
  const errors: ParseError[] = [];
  const toks = tokenize(file, { args: opts.args, errors });
  const defined = new Map<string, Macro>();
  expandMacros(toks, { guru: opts.guru, errors }, defined);
  for (const e of errors) diag.parseError(e);
  return errors.length ? null : defined;
}

/**
 * Parse one file.  Errors are printed through `diag`; returns null if there were any.
 */
export function parseFile(file: A.SourceFile, opts: ParseOptions, diag: Diagnostics): A.StapFile | null {
  const errors: ParseError[] = [];
  const warnings: { message: string; tok: A.Token }[] = [];
  const lexed = lex(file, { args: opts.args, usedArgs: opts.usedArgs, errors, compatible: opts.compatible, warnings });
  for (const w of warnings.splice(0)) diag.warning(w.message, w.tok);
  if (lexed.length === 0 && errors.length === 0 && !file.isTapset) {
    diag.plain(`Input file '${file.name}' is empty.\n`);
    return null;
  }
  let toks: TokenSource = lexed;
  if (needsPreprocessing(lexed, opts)) {
    const popts = { guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, runtime: opts.runtime, libraryMacros: opts.libraryMacros, usedOptions: opts.usedOptions, errors, warnings, defineErrorsInStream: true };
    toks = new TokenArray(resolveConditionals(expandMacros(lexed.toArray(), popts), popts, opts.args));
    for (const w of warnings) diag.warning(w.message, w.tok);
  }
  for (let i = 0; i < toks.length; i++) {
    // the lexer leaves a junk token where an error counts only if the token survives
    const pending = toks.kind(i) === 'junk' ? pendingErrors.get(toks.get(i)) : undefined;
    if (pending) { errors.push(pending); break; }
  }
  if (errors.length) {
    if (errors.some((e) => e instanceof LexicalCastError)) {
      // (an exception out of stap's preprocessor: its text alone, nothing else)
      diag.plain('bad lexical cast\n');
      diag.aborted = true;
      return null;
    }
    for (const e of errors) diag.parseError(e);
    return null;
  }
  if (toks.length === 0 && !file.isTapset) {
    diag.plain(`Input file '${file.name}' is empty after preprocessing.\n`);
    return null;
  }
  const result: A.StapFile = { file, globals: [], functions: [], probes: [], aliases: [], embeds: [] };
  const c = new Cursor(toks, file, opts);
  const declared: Declared = new Map();
  let failed = false;
  // (stap's `empty`: no declaration started, every token skipped after a preprocessor error;
  // it then says the file is empty after preprocessing instead of counting the errors)
  let empty = true;
  while (c.pos < toks.length) {
    const start = c.pos;
    c.resetDepth();
    if (!(toks.kind(start) === 'junk' && ppErrors.has(toks.get(start)))) empty = false;
    try {
      parseDecl(c, result, declared);
    } catch (e) {
      let err = e;
      // the nesting bound is meant to come first; a caller deep in its own stack may run out
      // before it (a worker thread, the REPL): the same error then, not an internal fault
      if (e instanceof RangeError && /call stack/.test(e.message)) err = c.tooDeep();
      if (!(err instanceof ParseError)) throw e;
      diag.parseError(err);
      failed = true;
      if (err instanceof PrivilegeError) {
        // stap goes on right there, without skipping (at least one token further)
        c.pos = Math.max(err.resume, start + 1);
        continue;
      }
      // resynchronise at the next top-level keyword (or embedded code) from the failure point
      let k = Math.max(c.pos, start + 1);
      while (k < toks.length && !(toks.kind(k) === 'keyword' && TOP_KEYWORDS.has(toks.text(k))) && toks.kind(k) !== 'embedded') {
        // (the preprocessor's errors on the way are reported, as stap's scanner raises them)
        const pe = toks.kind(k) === 'junk' ? ppErrors.get(toks.get(k)) : undefined;
        if (pe) diag.parseError(pe);
        k++;
      }
      c.pos = k;
    }
  }
  if (failed && empty && !file.isTapset) diag.plain(`Input file '${file.name}' is empty after preprocessing.\n`);
  return failed ? null : result;
}

/** Macro definitions or uses, or conditionals: the preprocessor has work (on token objects). */
function needsPreprocessing(t: TokenTable, opts: ParseOptions): boolean {
  for (let i = 0; i < t.length; i++) {
    if (t.kind(i) !== 'operator') continue;
    const s = t.text(i);
    if (s.charCodeAt(0) === 37 /* % */ && (s === '%(' || s === '%?' || s === '%:' || s === '%)')) return true;
    if (s.charCodeAt(0) === 64 /* @ */ && (s === '@define' || opts.libraryMacros?.has(s.slice(1)))) return true;
  }
  return false;
}
