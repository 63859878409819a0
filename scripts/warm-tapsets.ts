/**
 * Build step: parse every tapset in stdlib/ once into the build's read-only tapset cache,
 * dist/tapset-cache (see src/elaborate/tapsets.ts), so no `stap` run after a build pays for
 * parsing the whole library, even with an empty or unwritable cache directory.  Entries are
 * checked against the tapsets' times and sizes and the parser, so a stale one is only unused.
 */
import { Diagnostics } from '../src/diag';
import { TapsetLibrary, stdlibDir, builtCacheDir } from '../src/elaborate';

const t0 = Date.now();
const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
const lib = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: builtCacheDir(), builtCacheDir: null });
process.stderr.write(`tapset cache: ${lib.allFiles().length} stdlib files indexed in ${Date.now() - t0} ms\n`);
