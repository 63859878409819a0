/**
 * Loading the `stap` command quickly.  The build bundles src/cli/stap.ts and everything it
 * imports into one file (dist/src/cli/stap.bundle.js, scripts/bundle-cli.ts); this loader runs
 * it with a V8 code cache kept in the tapsim cache directory, so a start neither resolves ~60
 * modules nor compiles them again.  The cache is made after a run (so it holds the functions
 * that run really compiled), keyed by Node's version and the bundle's size and time, sealed
 * with a CRC-32 (V8 itself does not checksum a code cache: a damaged one is discarded here), and
 * rewritten when V8 rejects it.  The source compiled is always the bundle's own; the cache only
 * lives in the checked, user-owned cache directory (src/cachedir.ts).  Without a bundle, or when the compiled modules are newer than
 * the bundle (a `tsc` after the last full build), the modules are required directly.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vm from 'vm';
import Module = require('module');
import { cacheDir, digestHex, readSealed, writeSealed } from '../cachedir';
import { quietBinding } from '../binding';

type Cli = typeof import('./stap');

export const BUNDLE = path.join(__dirname, 'stap.bundle.js');
const CACHE_PREFIX = 'stap-bundle-';

function direct(): Cli {
  return require('./stap') as Cli;
}

/** The code cache's file for a bundle, or null without a cache directory. */
export function cacheFileFor(st: fs.Stats, prefix = CACHE_PREFIX): string | null {
  const dir = cacheDir();
  return dir === null ? null : path.join(dir, `${prefix}${process.version}-${process.arch}-${st.size}-${Math.floor(st.mtimeMs)}.v8`);
}

/**
 * V8 starts with a 1 MB young generation and doubles it after each scavenge that finds it too
 * small; a start allocates ~15 MB (bundle, tables, ASTs, the machine's boot) and so paid ~5
 * scavenges, each copying the survivors again.  Growing 8x at a time reaches the same 16 MB
 * limit after one or two; the limit and the old generation are unchanged.  No effect on output.
 *
 * The flag is set through the v8 binding itself: the public `v8` module loads Node's whole
 * stream library at require time (for heap snapshots), ~20 modules a start never otherwise
 * uses (src/binding.ts); a Node without the binding gets the public module.
 */
export function growYoungGenerationFast(): void {
  const flag = '--semi-space-growth-factor=8';
  const b = quietBinding('v8');
  const set = typeof b?.setFlagsFromString === 'function' ? (b.setFlagsFromString as (f: string) => void).bind(b) : undefined;
  (set ?? (require('v8') as typeof import('v8')).setFlagsFromString)(flag);
}

export function loadCli(): Cli {
  return loadBundled<Cli>('stap', CACHE_PREFIX, direct);
}

/**
 * Load command NAME (src/cli/NAME.ts) from its bundle NAME.bundle.js with the code cache
 * (`prefix` names its cache files), or `fallback()` without a current bundle.  The `tapsim`
 * command loads its own bundle this way (src/cli/tapsim_main.ts).
 */
export function loadBundled<T>(name: string, prefix: string, fallback: () => T): T {
  if (process.env.TAPSIM_NO_BUNDLE) return fallback();
  const bundle = path.join(__dirname, `${name}.bundle.js`);
  let st: fs.Stats;
  try {
    st = fs.statSync(bundle);
    if (fs.statSync(path.join(__dirname, `${name}.js`)).mtimeMs > st.mtimeMs) return fallback();
  } catch {
    return fallback();
  }
  // the build writes the bundle in ASCII (scripts/bundle-cli.ts): read as latin1, it needs no UTF-8 decoding
  const code = fs.readFileSync(bundle, 'latin1');
  // one checkout's entries carry its bundle's path digest: a stale one of this checkout is
  // replaced, another checkout's (sharing the cache directory) is left alone
  const own = `${prefix}${digestHex(bundle).slice(0, 8)}-`;
  const cacheFile = cacheFileFor(st, own);
  const cached = (cacheFile && readSealed(cacheFile)) || undefined;
  const script = new vm.Script(Module.wrap(code), { filename: bundle, cachedData: cached });
  const fn = script.runInThisContext() as (...a: unknown[]) => void;
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.loaded = true;
  const req = Module.createRequire(bundle);
  fn.call(mod.exports, mod.exports, req, mod, bundle, __dirname);
  if (cacheFile && (!cached || script.cachedDataRejected)) {
    process.once('exit', () => {
      const dir = path.dirname(cacheFile);
      try {
        for (const f of fs.readdirSync(dir)) if (f.startsWith(own) || (f.startsWith(prefix) && !/^[0-9a-f]{8}-/.test(f.slice(prefix.length)))) fs.rmSync(path.join(dir, f), { force: true });
      } catch {
        // no cache directory yet
      }
      writeSealed(cacheFile, script.createCachedData());
    });
  }
  return mod.exports as T;
}
