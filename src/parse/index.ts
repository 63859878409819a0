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
import { tokenize, KEYWORDS, pendingErrors } from './lexer';
import { expandMacros, resolveConditionals, Macro } from './preprocess';
import { Cursor } from './cursor';
import { parseDecl, Declared } from './decl';
import type { ParseOptions } from './options';

export type { Macro, ParseOptions };
export { parseNumber } from './literals';
export { KEYWORDS };

const TOP_KEYWORDS = new Set(['probe', 'global', 'function', 'private']);

/** Lex and preprocess a file: the token stream the parser sees. */
export function preprocessFile(file: A.SourceFile, opts: ParseOptions, errors: ParseError[]): A.Token[] {
  const toks = tokenize(file, { args: opts.args, usedArgs: opts.usedArgs, errors });
  const popts = { guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, libraryMacros: opts.libraryMacros, usedOptions: opts.usedOptions, errors };
  const expanded = expandMacros(toks, popts);
  return resolveConditionals(expanded, popts, opts.args);
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
  const lexed = tokenize(file, { args: opts.args, usedArgs: opts.usedArgs, errors });
  if (lexed.length === 0 && errors.length === 0 && !file.isTapset) {
    diag.plain(`Input file '${file.name}' is empty.\n`);
    return null;
  }
  const popts = { guru: opts.guru, compatible: opts.compatible, privilege: opts.privilege, libraryMacros: opts.libraryMacros, usedOptions: opts.usedOptions, errors };
  const toks = resolveConditionals(expandMacros(lexed, popts), popts, opts.args);
  for (const t of toks) {
    const pending = pendingErrors.get(t);
    if (pending) { errors.push(pending); break; }
  }
  if (errors.length) {
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
  while (c.pos < toks.length) {
    const start = c.pos;
    c.resetDepth();
    try {
      parseDecl(c, result, declared);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      diag.parseError(e);
      failed = true;
      // resynchronise at the next top-level keyword (or embedded code) from the failure point
      let k = Math.max(c.pos, start + 1);
      while (k < toks.length && !(toks[k].kind === 'keyword' && TOP_KEYWORDS.has(toks[k].text)) && toks[k].kind !== 'embedded') k++;
      c.pos = k;
    }
  }
  return failed ? null : result;
}
