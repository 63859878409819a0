/**
 * Build step: parse every tapset in stdlib/ once into the build's read-only tapset cache,
 * dist/tapset-cache (see src/elaborate/tapsets.ts), so no `stap` run after a build pays for
 * parsing the whole library (or its macro files), even with an empty or unwritable cache
 * directory.  Entries are checked against the tapsets' times and sizes and the parser, so a
 * stale one is only unused; the directory is emptied first so old entries do not pile up.
 */
import * as fs from 'fs';
import { Diagnostics } from '../src/diag';
import { TapsetLibrary, stdlibDir, builtCacheDir } from '../src/elaborate';

const t0 = Date.now();
const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
fs.rmSync(builtCacheDir(), { recursive: true, force: true });
const lib = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: builtCacheDir(), builtCacheDir: null });
lib.macros();
process.stderr.write(`tapset cache: ${lib.allFiles().length} stdlib files indexed in ${Date.now() - t0} ms\n`);
