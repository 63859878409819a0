/**
 * Autocast: the DWARF (BTF) types values carry in pass 2, as stap's type_details.  A value that
 * is a typed pointer (`$file`, `& @cast(p, "T")`, `@task(p)`, `$p->next`) passes its type on
 * through local variables, function returns, `=` and `?:`, so `x->f` on such a value resolves as
 * `@cast(x, T)->f`.  A local or function that is given two different types carries none.
 *
 * The TypeResolver records the pointee of every resolved target expression (`setTarget`), merges
 * assignments into locals and returns into functions (`mergeDecl`), and asks `of(operand)` when
 * it types an autocast.
 */
import type * as A from '../ast';

type Decl = A.VarDecl | A.FunctionDecl;

export class PointeeTypes {
  private targets = new WeakMap<A.Expr, number>();
  /** a BTF type id, or null once two different types were assigned */
  private decls = new Map<Decl, number | null>();

  /** A resolved target expression's value points to `t` (undefined: it is not a typed pointer). */
  setTarget(e: A.Target | A.Cast | A.AtVar | A.Autocast, t: number | undefined): void {
    if (t === undefined) this.targets.delete(e);
    else this.targets.set(e, t);
  }

  /** The BTF type `e`'s value points to, when known. */
  of(e: A.Expr): number | undefined {
    switch (e.k) {
      case 'target': case 'cast': case 'atvar': case 'autocast':
        return this.targets.get(e);
      case 'sym':
        return e.ref && e.ref.kind !== 'global' ? this.decls.get(e.ref) ?? undefined : undefined;
      case 'call':
        return e.ref && !e.ref.nextOverload ? this.decls.get(e.ref) ?? undefined : undefined;
      case 'assign':
        return e.op === '=' ? this.of(e.value) : undefined;
      case 'ternary': {
        const a = this.of(e.then);
        return a !== undefined && a === this.of(e.else) ? a : undefined;
      }
      default:
        return undefined;
    }
  }

  /** Merge a value's type into a local or function; true when the declaration's type changed. */
  mergeDecl(d: Decl, t: number | undefined): boolean {
    if (t === undefined) return false;
    if ((d as A.VarDecl).kind === 'global') return false;
    const cur = this.decls.get(d);
    if (cur === t || cur === null) return false;
    this.decls.set(d, cur === undefined ? t : null);
    return true;
  }
}
