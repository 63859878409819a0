/**
 * The kernel probe layer's hooks into pass 3 (issue 6; installed by src/probes/setup.ts):
 * target expressions (`$var`, `@cast`, `@var`, `@entry`, autocasts) and assignments to them
 * (procfs `$value = ...`) are compiled by src/probes/targets.ts and src/probes/procfs.ts
 * through the API below.
 */
import type * as A from '../ast';

/** What the target-expression code generator may use while compiling one expression. */
export interface TargetCodegenApi {
  /** The derived probe being translated (null inside a function body). */
  probe: A.DerivedProbe | null;
  ex(e: A.Expr): string;
  /** Compile an expression into a standalone arrow-function body `(c) => ...` (own temporaries). */
  standalone(e: A.Expr): string;
  loc(tok: A.Token): number;
  builtin(name: string): string;
  /**
   * A value the module needs (a plan of plain data): kept in the module's side table, never
   * pasted as source; returns the JS expression that reads it.
   */
  data(value: unknown): string;
  /** Emit a line after the current probe's handler function (e.g. `p_3.entry = ...`). */
  afterProbe(line: string): void;
  /** JS name of the current probe handler (`p_N`), or null inside functions. */
  handlerName: string | null;
  err(msg: string, tok?: A.Token): void;
}
export type TargetCodegen = (e: A.Target | A.Cast | A.AtVar | A.Autocast | A.Entry, api: TargetCodegenApi) => string;
let targetCodegen: TargetCodegen | null = null;
/** Installed by src/probes/setup.ts: compiles `$var`, `@cast`, `@var`, `@entry` and autocasts. */
export function setTargetCodegen(f: TargetCodegen | null): void {
  targetCodegen = f;
}
export function getTargetCodegen(): TargetCodegen | null {
  return targetCodegen;
}
/** Assignment to a target expression (procfs `$value = ...`): JS, or null when not writable. */
export type TargetAssignCodegen = (e: A.Assign, api: TargetCodegenApi) => string | null;
let targetAssignCodegen: TargetAssignCodegen | null = null;
/** Installed by src/probes/setup.ts (src/probes/procfs.ts). */
export function setTargetAssignCodegen(f: TargetAssignCodegen | null): void {
  targetAssignCodegen = f;
}
export function getTargetAssignCodegen(): TargetAssignCodegen | null {
  return targetAssignCodegen;
}
