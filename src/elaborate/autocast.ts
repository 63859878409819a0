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
  /** where a type comes from: `@cast` modules are distinct type sources (as stap's cast modules) */
  private origin = new WeakMap<A.Expr | Decl, string>();

  /** A resolved target expression's value points to `t` (undefined: it is not a typed pointer). */
  setTarget(e: A.Target | A.Cast | A.AtVar | A.Autocast, t: number | undefined): void {
    if (t === undefined) this.targets.delete(e);
    else this.targets.set(e, t);
    this.origin.set(e, e.k === 'cast' ? e.module ?? 'kernel' : e.k === 'autocast' ? this.originOf(e.operand) : 'kernel');
  }

  private originOf(e: A.Expr): string {
    switch (e.k) {
      case 'sym': return (e.ref && this.origin.get(e.ref)) ?? 'kernel';
      case 'call': return (e.ref && this.origin.get(e.ref)) ?? 'kernel';
      case 'assign': return this.originOf(e.value);
      case 'ternary': return this.originOf(e.then);
      default: return this.origin.get(e) ?? 'kernel';
    }
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
  mergeDecl(d: Decl, t: number | undefined, from?: A.Expr): boolean {
    if (t === undefined) return false;
    if ((d as A.VarDecl).kind === 'global') return false;
    const cur = this.decls.get(d);
    const o = from ? this.originOf(from) : 'kernel';
    if (cur === null || (cur === t && this.origin.get(d) === o)) return false;
    this.decls.set(d, cur === undefined ? t : null);
    this.origin.set(d, o);
    return true;
  }
}
