/**
 * Bare statements and expressions typed at the prompt run at once, as the body of a begin
 * probe of a program made of the session's globals and functions (not its probes), against
 * the globals' current values (changes persist).  An expression's value is printed with
 * println; statements (assignments, ++/--, print*, calls of functions without a value) are
 * just run.
 *
 * The input is wrapped as `probe begin {\nINPUT\n}` in a file `<eval>`; diagnostics show it as
 * `<input>` with the input's own line numbers.
 */
import type * as A from '../ast';
import { Diagnostics } from '../diag';
import type { Translated } from '../translate';
import { ReplSession, ShiftedDiagnostics, typeHints } from './session';
import type { SimSystem } from './run';

type Writer = (s: string) => void;

export interface EvalContext {
  session: ReplSession;
  sys: SimSystem;
  out: Writer;
  err: Writer;
  seed: number;
}

/** Expressions whose value is printed (not assignments, ++/--, or print statements). */
function printable(e: A.Expr): boolean {
  return e.k !== 'assign' && e.k !== 'incdec' && e.k !== 'print' && e.k !== 'embedded';
}

function wrap(text: string): A.SourceFile {
  return { name: '<eval>', text: `probe begin {\n${text}\n}\n`, isTapset: false };
}

/** Compile the wrapped input; `asValue` prints the single expression's value. */
function compileEval(ctx: EvalContext, text: string, asValue: boolean, err: Writer): Translated | null {
  const { session } = ctx;
  const compiler = session.compiler;
  const src = wrap(text);
  const s = compiler.settings;
  const diag: Diagnostics = new ShiftedDiagnostics({ verbose: s.verbose, suppressWarnings: true }, err, src, 1);
  const decls = session.items.filter((i) => i.kind !== 'probe');
  const files = session.parseItems(decls, diag);
  const f = files ? compiler.parse(src, diag) : null;
  if (!files || !f) {
    compiler.parseFailed(diag, err);
    return null;
  }
  if (asValue) {
    const st = f.probes[0].body.stmts[0] as A.ExprStmt;
    const e = st.expr;
    st.expr = { k: 'print', name: 'println', args: [e], tok: e.tok };
  }
  files.push(f);
  // the session's probes are not part of the program; their uses of the globals give the
  // types, so a probe that never fires writes each global with its known type
  const hint = typeHints(session);
  if (hint) {
    const h = compiler.parse({ name: '<repl>', text: hint, isTapset: false }, diag);
    if (h) files.push(h);
  }
  const r = compiler.build(files, diag, err);
  return r?.tr ?? null;
}


/** Parse only, to see the shape of the input (errors printed, as `<input>`). */
function shape(ctx: EvalContext, text: string): A.Stmt[] | null {
  const src = wrap(text);
  const s = ctx.session.compiler.settings;
  let errText = '';
  const diag = new ShiftedDiagnostics({ verbose: s.verbose, suppressWarnings: true }, (x) => (errText += x), src, 1);
  const f = ctx.session.compiler.parse(src, diag);
  if (!f || f.probes.length !== 1 || f.functions.length || f.globals.length || f.aliases.length) {
    if (!errText) errText = 'parse error: expected a statement or expression\n';
    ctx.err(errText);
    ctx.session.compiler.parseFailed(diag, ctx.err);
    return null;
  }
  return f.probes[0].body.stmts;
}

/** Evaluate one bare statement/expression input. Returns the run status (0 = fine). */
export async function evaluate(ctx: EvalContext, text: string): Promise<number> {
  const stmts = shape(ctx, text);
  if (!stmts) return 1;
  if (stmts.length === 0) return 0;
  const single = stmts.length === 1 && stmts[0].k === 'expr' ? (stmts[0] as A.ExprStmt).expr : null;
  // a bare array or statistics global prints as stap's global display does
  if (single && single.k === 'sym') {
    const meta = ctx.session.meta.get(single.name);
    if (meta && (meta.arity > 0 || meta.type === 'stats') && ctx.session.globalNames().includes(single.name)) {
      ctx.out(ctx.session.store.display(single.name, meta));
      return 0;
    }
  }
  let tr: Translated | null = null;
  if (single && printable(single)) {
    let quiet = '';
    tr = compileEval(ctx, text, true, (s) => (quiet += s));
    if (!tr && single.k !== 'call') {
      ctx.err(quiet);
      return 1;
    }
    // a call without a value to print (a function that returns nothing): run it as a statement
  }
  if (!tr) tr = compileEval(ctx, text, false, ctx.err);
  if (!tr) return 1;
  ctx.session.noteMeta(tr);
  fixLocs(tr);
  const r = await ctx.sys.run({ tr, store: ctx.session.store, out: ctx.out, err: ctx.err, pace: false, display: false, evalOnly: true, seed: ctx.seed });
  return r.status;
}

/** Runtime error locations of the wrapped input: `<eval>:L` -> `<input>:L-1`. */
function fixLocs(tr: Translated): void {
  for (let i = 0; i < tr.locs.length; i++) {
    tr.locs[i] = tr.locs[i].replace(/ at <eval>:(\d+):/, (_m, l: string) => ` at <input>:${Number(l) - 1}:`);
  }
}
