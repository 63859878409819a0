/**
 * The bookkeeping of type inference (stap's typeresolution_info): counts of newly resolved and
 * still unresolved expressions for the fixed-point loop, where each declaration's type was first
 * inferred, and the messages of the assertion pass in stap's words (`type mismatch ...`,
 * `unresolved type `, `invalid type T`), repeated per iteration as stap's are.
 * src/elaborate/types.ts (the visitor) extends it.
 */
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { walkStmt, invalidEntry } from './util';

export type Decl = A.VarDecl | A.FunctionDecl;

/** The site of an error that ends pass 2 at once (TypeBookkeeping.assertEntries). */
export const ENDS_PASS2 = 'while-processing|entry-not-return';
export interface HasType { type?: A.Type; tok: A.Token; }

/** Sites of the errors stap's type resolution raises on every iteration. */
const REPEATING = /^(mismatch-|unresolved-type$|invalid-type$)/;

export abstract class TypeBookkeeping {
  protected assert = false;
  protected newly = 0;
  protected still = 0;
  /** (decl, index) -> token where the type was first inferred. */
  protected firstInferred = new Map<Decl, Map<number, A.Token>>();
  errors = 0;

  constructor(protected diag: Diagnostics) {}

  protected reported = new Set<string>();

  protected report(e: SemanticError): void {
    this.errors++;
    // (an error before the asserting pass, as a mismatch, leaves the unresolved unsaid:
    // real-stap -p2 'probe begin { println(y) } probe end { z = sprintf("%d"); println(z) }'
    // says only that sprintf lacks an argument)
    if (!this.assert) this.mismatched = true;
    // Type mismatches and unresolved/invalid types are raised again on each iteration of the
    // fixed-point loop, as stap's are: its print_error shows one and counts the repeats
    // (`Number of similar error messages suppressed`), and so does Diagnostics.  The other
    // checks stap makes once: report those once.
    if (!REPEATING.test(e.site)) {
      const key = `${e.message}@${e.tok ? `${e.tok.file.name}:${e.tok.line}:${e.tok.col}` : ''}`;
      if (this.reported.has(key)) return;
      this.reported.add(key);
    }
    this.diag.semanticError(e);
  }

  // ------------------------------------------------------------------ bookkeeping (stap names)

  protected resolved(tok: A.Token, _type: A.Type, decl?: Decl, index = -1): void {
    this.newly++;
    if (decl) {
      let m = this.firstInferred.get(decl);
      if (!m) this.firstInferred.set(decl, (m = new Map()));
      if (!m.has(index)) m.set(index, tok);
    }
  }

  /**
   * An @entry outside a .return probe (or in a function): stap 4.8's type resolution leaves it
   * (and its operand) untyped, and when it asserts the types (after the constant folding:
   * `if (0) println(@entry(1))` passes, also under -u) throws an internal error that ends pass 2
   * at the first function, else probe, that has one.  A mismatch found before is reported
   * instead (real-stap -p2 'probe begin { println(@entry(1) + "a") }'); `@entry(1) . "a"` and
   * 'function f() { return @entry(1) } probe begin { println(f(), @entry(2)) }' ("while
   * processing function f") are the entry's error, before what else the unit leaves unresolved.
   */
  protected assertEntries(body: A.Block, what: string): void {
    if (!this.assert || this.mismatched) return;
    let e: A.Expr | undefined;
    walkStmt(body, (x) => { if (!e && x.k === 'entry' && invalidEntry.has(x)) e = x; });
    if (!e) return;
    const inner = new SemanticError('internal error: @entry is only valid in .return probes', e.tok, [], 'entry-not-return');
    throw new SemanticError(`while processing ${what}`, undefined, [inner], ENDS_PASS2);
  }


  protected unresolved(tok: A.Token): void {
    this.still++;
    // (after a mismatch stap's asserting pass reports the mismatches alone, with -v too:
    // `println(x); println(1 + "a")` says nothing of x; checked against real-stap)
    if (this.assert && !this.mismatched) this.report(new SemanticError('unresolved type ', tok, [], 'unresolved-type'));
  }

  /**
   * A target expression its probe point cannot resolve (stap's visit_target_symbol; `node`: an
   * @var in a context that gives it no type, said again before the asserting pass): still
   * unresolved until the asserting pass, which says why (its saved conversion error) and goes on
   * with the body, unless a mismatch was seen.
   */
  protected unresolvedTarget(err: SemanticError, node?: A.Expr): void {
    this.still++;
    if (!this.assert && node?.k === 'atvar' && !this.untypedAtvars.has(node)) this.untypedAtvars.set(node, err);
    if (this.assert && !this.mismatched) this.report(err);
  }

  /**
   * Before the asserting pass, stap says once more why each @var its context left untyped is
   * unresolved (real-stap -v -p2 'probe begin { println(@var("x")) }': that error twice).
   */
  protected sayUntypedAtvars(): void {
    if (!this.mismatched) for (const [node, err] of this.untypedAtvars) if ((node.type ?? 'unknown') === 'unknown') this.diag.semanticError(err);
  }

  /**
   * An autocast whose operand has no pointee type, after a mismatch: the asserting pass says it
   * cannot dereference before the mismatch (real-stap -p2 'probe begin { println("s"->a) }').
   */
  protected derefBeforeMismatch(e: A.Autocast, typed: boolean): void {
    if (this.assert && this.mismatched && !typed) this.report(new SemanticError('unknown type in dereference', e.tok, [], 'unresolved-target'));
  }

  protected invalid(tok: A.Token, type: A.Type): void {
    this.still++;
    if (this.assert) {
      const msg = tok.kind === 'operator' ? 'invalid operator' : `invalid type ${type}`;
      this.report(new SemanticError(msg, tok, [], 'invalid-type'));
    }
  }

  /**
   * stap's mismatch_complexity: the kinds of mismatch seen before the final (asserting) pass,
   * 1 both sides of a binary operator, 2 an expression against its context, 3 a symbol
   * against its declaration.  The final pass reports only the kinds at least as complex as the
   * most complex one seen (`"s" + sv` reports sv's declaration, not the literal; with -v all;
   * checked against real-stap).
   */
  protected complexity = 0;
  /** A mismatch, or another error, was seen before the asserting pass (which then reports mismatches only). */
  protected mismatched = false;
  /** The @var expressions found unresolvable before the asserting pass where the context gives no type, in the order met, with why. */
  protected untypedAtvars = new Map<A.AtVar, SemanticError>();

  protected mismatchTypes(tok: A.Token, t1: A.Type, t2: A.Type): void {
    this.still++;
    if (!this.assert) {
      this.complexity = Math.max(this.complexity, 2);
      this.mismatched = true;
    }
    else if (this.complexity <= 2) {
      let msg = `type mismatch: expected ${t1}`;
      if (t2 !== 'unknown') msg += ` but found ${t2}`;
      this.report(new SemanticError(msg, tok, [], 'mismatch-expected'));
    }
  }

  protected mismatchBinary(e: { tok: A.Token; left: HasType; right: HasType }): void {
    this.still++;
    if (!this.assert) {
      this.complexity = Math.max(this.complexity, 1);
      this.mismatched = true;
    }
    else if (this.complexity <= 1) {
      this.report(new SemanticError(
        `type mismatch: left and right sides don't agree (${ty(e.left)} vs ${ty(e.right)})`, e.tok, [], 'mismatch-binary'));
    }
  }

  protected mismatchDecl(tok: A.Token, type: A.Type, decl: Decl, index = -1): void {
    this.still++;
    if (!this.assert) {
      this.complexity = 3;
      this.mismatched = true;
      return;
    }
    const m = this.firstInferred.get(decl);
    let orig = m?.get(index);
    if (!orig && index < 0 && m && m.size && (decl as A.VarDecl).kind === 'param') {
      // a parameter's type was recorded with its position in the call
      const [i, tok] = [...m.entries()][0];
      index = i;
      orig = tok;
    }
    const msg = index >= 0 ? `index ${index} type mismatch (${type})` : `type mismatch (${type})`;
    const idx = (decl as A.VarDecl).indexTypes;
    const declType = index >= 0 && idx && (decl as A.VarDecl).kind !== 'param' ? idx[index] ?? 'unknown' : decl.type ?? 'unknown';
    if (!orig) {
      // a type the resolution did not infer (a global's initialiser, a declared type): stap
      // reports it as the context's expectation against that type
      let m2 = `type mismatch: expected ${type}`;
      if (declType !== 'unknown') m2 += ` but found ${declType}`;
      this.report(new SemanticError(m2, tok, [], 'mismatch-expected'));
      return;
    }
    // (stap 4.8 names the declaration's own type in the chained message, for an index too: the
    // value type of the array, real-stap -p2 `ia["s"] = 1; ia[1] = 1` says "type of index 0 was
    // first inferred here (long)" at the "s", and with `sa["a"] = "b"; sa[1] = "x"` "(string)")
    const firstType = index >= 0 ? decl.type ?? 'unknown' : declType;
    const cmsg = index >= 0 ? `type of index ${index} was first inferred here (${firstType})` : `type was first inferred here (${declType})`;
    const chain = [new SemanticError(cmsg, orig, [], 'mismatch-first')];
    this.report(new SemanticError(msg, tok, chain, index >= 0 ? 'mismatch-index' : 'mismatch-decl'));
  }

  /** resolve_2types: referrer expression vs referent declaration vs context type. */
  protected resolve2(re: HasType, te: { type?: A.Type }, decl: Decl, t: A.Type, acceptUnknown = false): void {
    const reT = re.type ?? 'unknown';
    const teT = te.type ?? 'unknown';
    if (t !== 'unknown' && reT === t && reT === teT) return;
    if (t === 'unknown' && reT !== 'unknown' && reT === teT) return;
    if (reT !== 'unknown' && teT !== 'unknown' && reT !== teT) this.mismatchDecl(re.tok, reT, decl);
    else if (reT !== 'unknown' && t !== 'unknown' && reT !== t) this.mismatchDecl(re.tok, t, decl);
    else if (teT !== 'unknown' && t !== 'unknown' && teT !== t) this.mismatchDecl(re.tok, t, decl);
    else if (reT === 'unknown' && t !== 'unknown') {
      re.type = t;
      this.resolved(re.tok, t);
    } else if (reT === 'unknown' && teT !== 'unknown') {
      re.type = teT;
      this.resolved(re.tok, teT);
    } else if (reT !== 'unknown' && teT === 'unknown') {
      te.type = reT;
      this.resolved(re.tok, reT, decl);
    } else if (!acceptUnknown) this.unresolved(re.tok);
  }
}

export function ty(e: { type?: A.Type }): A.Type {
  return e.type ?? 'unknown';
}
