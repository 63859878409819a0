/**
 * The "kernel module" a script becomes: its name and the file pass 4 leaves, as stap names them.
 *
 *   moduleName(source, options)         // "stap_<32 hex>_<n>"
 *   moduleFile(name, explicit, cacheDir) // where pass 4 writes it and what `-p4` prints
 *
 * stap names a module `stap_` + the hash of what it compiled (the elaborated script and the
 * options that change the build) + `_` + the length of that hashed text, unless `-m NAME`
 * gives the name.  `-p4` prints the module's path: in the cache
 * (`<cache>/<first two hex digits>/stap_<hash>_<n>.ko`), or with `-m` the copy stap makes in
 * the current directory (`NAME.ko`).  The name is what module_name() returns and where procfs
 * probes put their files (/proc/systemtap/NAME/).
 */
import * as path from 'path';
import { digestHex } from '../cachedir';

/** `stap_<hash>_<n>` of the generated module source and the build-relevant options. */
export function moduleName(source: string, options = ''): string {
  const text = `tapsim module\n${options}\n${source}`;
  return `stap_${digestHex(text)}_${text.length}`;
}

/**
 * The file pass 4 writes and prints: `NAME.ko` in the current directory with `-m NAME`
 * (`explicit`), else `<cacheDir>/cache/<hh>/NAME.ko`.
 */
export function moduleFile(name: string, explicit: boolean, cacheDir: string): string {
  if (explicit) return `${name}.ko`;
  return path.join(cacheDir, 'cache', name.slice(5, 7), `${name}.ko`);
}
