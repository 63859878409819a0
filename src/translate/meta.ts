/**
 * What pass 3 produces (`Translated`): the generated module's source and the side tables the
 * engine hands it at load time (locations, data values), with the metadata of its probes and
 * globals and the limits fixed at translation.
 */
import type * as A from '../ast';
import type { SemanticError } from '../diag';

export interface Limits {
  /** Effective per-handler statement budget (MAXACTION_INTERRUPTIBLE unless INTERRUPTIBLE=0). */
  maxAction: number;
  maxNesting: number;
  maxStringLen: number;
  maxMapEntries: number;
  maxErrors: number;
  maxSkipped: number;
  histElision: number;
}

export interface ProbeMeta {
  index: number;
  family: string;
  pp: string;
  pn: string;
  data: Record<string, unknown>;
  chain: string[];
  /** `FILE:LINE:COL` of the user's `probe` keyword. */
  where: string;
  /** Name of the handler in the generated module (the module returns handlers in ProbeMeta order). */
  fn: string;
}

export interface GlobalMeta {
  name: string;
  js: string;
  type: A.Type;
  /** 0 scalar, N array arity */
  arity: number;
  indexTypes: A.Type[];
  /** written but never read in a user file: printed at the end of the run */
  autoPrint: boolean;
  /** -G may set it (scalar long/string) */
  settable: boolean;
  /** histogram descriptors (for module-init checks) */
  hists: { kind: 'log' | 'linear'; params: A.Long[] }[];
}

export interface Translated {
  /** Body of the module function `(R) => Module` (src/runtime/sandbox.ts loads it). */
  source: string;
  program: A.Program;
  probes: ProbeMeta[];
  globals: GlobalMeta[];
  /** Rendered "near" tokens; index 0 = no location. */
  locs: string[];
  /** Values the module reads as `D[i]` (target-expression plans ...), never pasted as source. */
  data: unknown[];
  limits: Limits;
  /**
   * The module reads kernel memory through a target expression (@var, @cast, $var, autocast): pass 5
   * then runs the simulated machine even when no probe is a kernel one, so `probe begin` reads the
   * running kernel's values (@var("jiffies", "kernel"), init_task's comm), as stap's module does.
   */
  readsKernel: boolean;
}

/** Pass-3 errors of one translation. */
export class TranslateErrors extends Error {
  constructor(public errors: SemanticError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}
