/**
 * Writes through `@cast` and `@var` without guru mode, refused as stap 4.8's expanders of those
 * operators refuse them: on each probe body before its symbols are resolved (so before the
 * optimiser, dead code included), the whole body's first `@cast` write before its first `@var`
 * write, one error a body; then, for the probes that passed, the functions they reach.  Pass 2
 * ends there (real-stap -p2 'probe begin { @var("x") = 1; @cast(0, "task_struct")->pid += 2 }'
 * names the @cast only, with no warning before it and no unresolved type after it).
 */
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { walkStmt } from './util';

/** The first write through `@cast` in the body, else the first through `@var`. */
function firstWrite(body: A.Block): A.Cast | A.AtVar | undefined {
  let cast: A.Cast | undefined;
  let atvar: A.AtVar | undefined;
  const written = (t: A.Expr): void => {
    if (t.k === 'cast') cast ??= t;
    else if (t.k === 'atvar') atvar ??= t;
  };
  walkStmt(body, (e) => {
    if (e.k === 'assign') written(e.target);
    else if (e.k === 'incdec') written(e.operand);
  }, (s) => {
    if (s.k === 'delete') written(s.target);
  });
  return cast ?? atvar;
}

/**
 * Reports the refused writes of `probes` (each body with the number of probes sharing it), then
 * of the functions `reach` finds from the probes that had none.  Returns whether any was refused.
 */
export function checkTargetWrites(probes: { body: A.Block; copies: number }[], reach: (bodies: A.Block[]) => A.FunctionDecl[],
  diag: Diagnostics): boolean {
  let refused = false;
  const report = (e: A.Cast | A.AtVar): void => {
    refused = true;
    diag.semanticError(new SemanticError(e.k === 'cast' ? 'write to @cast context variable not permitted; need stap -g'
      : 'write to @var variable not permitted; need stap -g', e.tok, [], 'target-write'));
  };
  const clean: A.Block[] = [];
  for (const p of probes) {
    const w = firstWrite(p.body);
    if (w) diag.asCopies(p.copies, () => report(w));
    else clean.push(p.body);
  }
  const fns = reach(clean).filter((f) => f.body.k !== 'embedded').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const f of fns) {
    const w = firstWrite(f.body as A.Block);
    if (w) report(w);
  }
  return refused;
}
