/** What parsing depends on besides the text: arguments, guru mode, the session's options. */
import type { Macro, SessionOption } from './preprocess';

export interface ParseOptions {
  args: string[];
  guru: boolean;
  compatible?: string;
  privilege?: string;
  /** --runtime (a user script's `%( runtime == "bpf" %)`; kernel when unset). */
  runtime?: string;
  /** Library macros (from .stpm files). */
  libraryMacros?: Map<string, Macro>;
  /** Filled with the argument numbers the script referenced ($N/@N). */
  usedArgs?: Set<number>;
  /** Filled with the session options its `%( %)` conditions consulted. */
  usedOptions?: Set<SessionOption>;
}
