/**
 * Pass 2 in-process on a script text: the `-p2` listing (empty when elaboration failed) and what
 * stap would print on stderr (warnings, errors), with the standard library.  `u`: -u.
 */
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { elaborate, printProgram, TapsetLibrary, stdlibDir } from '../../src/elaborate';

let library: TapsetLibrary | null = null;

export function p2(text: string, u = false): { out: string; err: string } {
  let err = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { err += s; });
  library ??= new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: null, builtCacheDir: null });
  const f = parseFile({ name: '<input>', text, isTapset: false }, { args: [], guru: false, libraryMacros: library.macros() as never }, diag);
  if (!f) return { out: '', err };
  const prog = elaborate([f], { guru: false, unoptimized: u, library }, diag);
  return { out: prog ? printProgram(prog) : '', err };
}
