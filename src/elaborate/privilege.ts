/**
 * The privilege levels of `--privilege=stapusr|stapsys|stapdev` (`--unprivileged` = stapusr),
 * checked at pass 2 as stap 4.8 checks them (checked against real-stap):
 *
 *  - probe points: stapusr may use only the points stap binds with pr_all — begin, end, error,
 *    never, the timers (not timer.profile) and the process probes (not `.absolute`); any other
 *    is `probe point is not allowed for --privilege=stapusr` at the last component of the point
 *    (probePointError, called by the deriver).  stapsys and stapdev may use every point.
 *  - embedded C of the tapsets: a function with an embedded-C body used by a stapusr script
 *    must carry `/* unprivileged *\/` or `/* myproc-unprivileged *\/` in its body, else `function
 *    may not be used when --privilege=stapusr is specified` (at the declaration); an embedded
 *    expression (`%{ ... %}` in a script function) likewise, `embedded expression may not be
 *    used ...` (checkPrivilege, on the functions and probes left after optimisation).  The
 *    marker is read from the tapset's source, so a function added to stdlib/ is classified by
 *    the comment it carries, as in stap's tapsets.
 *  - `-g` with stapusr or stapsys: refused by the command line (src/cli/options.ts).
 *
 * Not simulated: stap's run-time check of myproc-unprivileged functions (that the current task
 * belongs to the user) — the simulated user runs every process.
 */
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { walkStmt } from './util';

export type Privilege = 'stapusr' | 'stapsys' | 'stapdev';
export const PRIVILEGES: readonly Privilege[] = ['stapusr', 'stapsys', 'stapdev'];

/** Families stap binds with pr_all (allowed to stapusr). */
const UNPRIVILEGED_FAMILIES = new Set(['begin', 'end', 'error', 'never', 'timer']);

/** May `privilege` use a point of `family` with these (concrete) components? */
export function probePointAllowed(privilege: string | undefined, family: string, components: readonly A.ProbePointComponent[]): boolean {
  if (privilege !== 'stapusr') return true;
  if (family === 'timer') return components[1]?.name !== 'profile';
  if (family === 'process' || family.startsWith('process.')) return !components.some((c) => c.name === 'absolute');
  return UNPRIVILEGED_FAMILIES.has(family);
}

/** The error for a point `privilege` may not use (null: allowed); `tok` is its last component. */
export function probePointError(privilege: string | undefined, family: string, components: readonly A.ProbePointComponent[],
  tok: A.Token): SemanticError | null {
  if (probePointAllowed(privilege, family, components)) return null;
  return new SemanticError(`probe point is not allowed for --privilege=${privilege}`, tok, [], 'pp-privilege');
}

const MARKER = /\/\*\s*(unprivileged|myproc-unprivileged)\s*\*\//;

/** Does embedded code say it may run unprivileged (`/* unprivileged *\/`, `/* myproc-unprivileged *\/`)? */
export function unprivilegedCode(code: string): boolean {
  return MARKER.test(code);
}

/**
 * Report the embedded C a stapusr script would run: functions with embedded bodies and embedded
 * expressions without a marker.  Returns false when it reported something.
 */
export function checkPrivilege(bodies: readonly A.Block[], functions: readonly A.FunctionDecl[], privilege: string | undefined,
  diag: Diagnostics): boolean {
  if (privilege !== 'stapusr') return true;
  const before = diag.errorCount;
  const expr = (e: A.Expr) => {
    if (e.k === 'embedded' && !unprivilegedCode(e.code)) {
      diag.semanticError(new SemanticError(`embedded expression may not be used when --privilege=${privilege} is specified`, e.tok, [], 'embedded-privilege'));
    }
  };
  for (const f of functions) {
    if (f.body.k === 'embedded') {
      if (!unprivilegedCode(f.body.code)) {
        diag.semanticError(new SemanticError(`function may not be used when --privilege=${privilege} is specified`, f.tok, [], 'function-privilege'));
      }
    } else walkStmt(f.body, expr);
  }
  for (const b of bodies) walkStmt(b, expr);
  return diag.errorCount === before;
}
