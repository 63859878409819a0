/**
 * What pass 2 knows about an elaborated program beyond its AST and `-p2` prints: whether a
 * probe has a condition (stap adds a begin probe for it) and which globals the end-of-run
 * display shows.  Written by index.ts (elaborate), read by dump.ts (printProgram).
 */
import type * as A from '../ast';

export interface ProgramInfo {
  hasConditions: boolean;
  displayGlobals: A.VarDecl[];
  /** the optimiser ran (not -u): stap's listing then shows the locals that cache calls of stable functions */
  optimized: boolean;
}

export const programInfo = new WeakMap<A.Program, ProgramInfo>();
