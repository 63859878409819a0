/**
 * Pass 3: translate the typed `Program` into JavaScript source text.
 *
 *   translate(program, opts): Translated
 *
 * The result's `source` is the body of a function `(R) => Module` (src/runtime/sandbox.ts
 * loads it with nothing but R in scope): it declares the script's globals as closure variables, one JS function per
 * stap function (`f_NAME`) and per derived probe (`p_N`), and returns their table.  It is
 * readable on purpose: `stap -p3` prints it, and every statement carries a `// FILE:LINE`
 * comment pointing back at the .stp source.  Nothing walks the AST at run time.  No text of the
 * script (names, file names, literals) is ever code in it: emit.ts is the one path text takes.
 *
 * The generator is split by kind of construct: gen_base.ts (names, side tables) -> exprs.ts ->
 * printing.ts -> stmts.ts -> translator.ts (declarations, specialised bodies); limits.ts holds
 * the -D limits, walk.ts the tree visits, hooks.ts the probes layer's target-expression hooks.
 *
 * Conventions of the generated code (the runtime object `R` is built by the engine):
 *  - longs are canonical `number | bigint` operated on through src/runtime/int64.ts, or by
 *    plain JS operators where the range analysis (ranges.ts, arith.ts) proves them exact;
 *  - a handler or function whose code gets faster when some long globals/parameters are known
 *    small on entry comes in two versions: `p_N` / `f_NAME` checks those values first (the
 *    `// fast version: ...` comment says which ranges) and otherwise calls the generic
 *    `p_N$generic` / `f_NAME$generic`, compiled for any int64 values;
 *    strings are latin1 JS strings truncated to MAXSTRINGLEN-1 (`T(s)`);
 *  - `c` is the probe context (pp, pn, cpu, task, regex/tokenize state) passed to every
 *    stap function and builtin;
 *  - `act` is the remaining action budget (MAXACTION accounting: each block subtracts its
 *    statement count on entry, each loop test subtracts 1); `depth` the function nesting;
 *  - `L` is the id of the token "near" which a runtime error would be reported (set just
 *    before operations that can fail); functions add their call site while unwinding.
 *
 * Pass-3 errors (`cannot 'break' outside loop`, `cannot print a raw stats object`, ...) are
 * reported through opts.diag as semantic errors, then PassFailed(3) is thrown.
 */
import type * as A from '../ast';
import { PassFailed, Diagnostics, SemanticError } from '../diag';
import { computeLimits } from './limits';
import { Translator } from './translator';
import { MalformedTree } from './emit';
import { Translated, TranslateErrors } from './meta';

export type { Limits, ProbeMeta, GlobalMeta, Translated } from './meta';
export { TranslateErrors } from './meta';
export type { TargetCodegenApi, TargetCodegen, TargetAssignCodegen } from './hooks';
export { setTargetCodegen, setTargetAssignCodegen } from './hooks';
export { computeLimits, defaultMaxNesting, limitDefineErrors } from './limits';

export interface TranslateOptions {
  /** Receives pass-3 semantic errors.  Without one, the first error is thrown as SemanticError. */
  diag?: Diagnostics;
  /** `-D NAME[=VALUE]` definitions (limits are fixed at translation, as stap fixes them in C). */
  defines?: Map<string, string>;
  /** `--compatible` version: older semantics where translation differs (@sum of an empty aggregate). */
  compatible?: string;
}

export function translate(program: A.Program, opts: TranslateOptions = {}): Translated {
  const limits = computeLimits(program, opts.defines);
  try {
    return new Translator(program, limits, opts.defines, opts.compatible).run();
  } catch (e) {
    const errors = e instanceof TranslateErrors ? e.errors : e instanceof MalformedTree ? [new SemanticError(e.message)] : null;
    if (!errors) throw e;
    if (!opts.diag) throw errors[0];
    for (const se of errors) opts.diag.semanticError(se);
    throw new PassFailed(3);
  }
}
