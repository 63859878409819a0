/**
 * Build step: parse every tapset in stdlib/ once into the tapset cache (see
 * src/elaborate/tapsets.ts), so the first `stap` run after a build does not pay for parsing
 * the whole library.  The cache stays correct on its own when stdlib/ or -I content changes.
 */
import { Diagnostics } from '../src/diag';
import { TapsetLibrary, stdlibDir } from '../src/elaborate';

const t0 = Date.now();
const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
const lib = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag });
process.stderr.write(`tapset cache: ${lib.allFiles().length} stdlib files indexed in ${Date.now() - t0} ms\n`);
