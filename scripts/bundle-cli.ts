/**
 * Build step: bundle the compiled `stap` command (dist/src/cli/stap.js and its imports,
 * commander included) into dist/src/cli/stap.bundle.js with a source map chained to the .ts
 * sources, then run it once so src/cli/launch.ts stores its V8 code cache.  The bundle sits in
 * the directory of the modules it replaces, so their `__dirname`-relative data paths
 * (lang/, stdlib/, data/kernel/) resolve the same.  Without esbuild (an install without
 * devDependencies) the step removes any stale bundle and the command loads its modules directly.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';

const cliDir = path.join(__dirname, '..', 'src', 'cli');
const entry = path.join(cliDir, 'stap.js');
const out = path.join(cliDir, 'stap.bundle.js');
/** the `tapsim` command (tapsim shell): the same modules plus src/cli/tapsim.ts, its own cache */
const tapsimEntry = path.join(cliDir, 'tapsim.js');
const tapsimOut = path.join(cliDir, 'tapsim.bundle.js');

function removeStale(): void {
  for (const f of [out, out + '.map', tapsimOut, tapsimOut + '.map']) fs.rmSync(f, { force: true });
}

/**
 * commander requires node:child_process at load time (loading net, dgram and streams) only to
 * run external subcommands, which stap never does: inside the bundle it gets a stand-in that
 * requires the real module on first use.
 */
const lazyChildProcess: import('esbuild').Plugin = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes(`${path.sep}commander${path.sep}`) ? { path: 'child_process', namespace: 'lazy-child-process' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, k) => require('node:child_process')[k] });",
      loader: 'js',
    }));
  },
};

/**
 * tsc's `import * as fs from 'fs'` is `__importStar(require("fs"))`: a new object with a getter for
 * each of the module's ~100 exports, built again in every module that imports it (~50 such imports,
 * ~5-15 ms of a start).  A Node built-in module is a plain CommonJS object whose properties the
 * namespace would only mirror, so inside the bundle the import is the module itself.  The compiled
 * modules (dist/src, loaded without a bundle) are unchanged.
 */
const BUILTIN_IMPORT_STAR = /__importStar\(require\("(node:)?(fs|path|os|vm|readline)"\)\)/g;
const builtinNamespaces: import('esbuild').Plugin = {
  name: 'builtin-namespaces',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf8');
      if (!text.includes('__importStar(require("')) return undefined;
      // padded to the same length: the columns of the module's source map stay right
      const contents = text.replace(BUILTIN_IMPORT_STAR, (m, node: string | undefined, name: string) => `require("${node ?? ''}${name}")`.padEnd(m.length));
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

async function main(): Promise<void> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = require('esbuild') as typeof import('esbuild');
  } catch {
    removeStale();
    process.stderr.write('bundle: esbuild not installed; stap will load its modules one by one (slower start)\n');
    return;
  }
  const t0 = Date.now();
  for (const [from, to] of [[entry, out], [tapsimEntry, tapsimOut]]) {
    await esbuild.build({
      entryPoints: [from],
      outfile: to,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: 'linked',
      minifyWhitespace: true,
      // non-ASCII characters escaped: src/cli/launch.ts reads the bundle as latin1
      charset: 'ascii',
      external: ['source-map-support'],
      logLevel: 'warning',
      plugins: [lazyChildProcess, builtinNamespaces],
    });
  }
  // Warm the code cache (written by the loader when the run ends, with what that run compiled).
  // The script boots the machine and probes a tracepoint and a kernel function: a kernel script
  // then finds the machine's code compiled too (~7% of a syscall probe's start), and a
  // begin-only script pays nothing measurable for the larger cache.
  const warm = 'global n probe syscall.read { n++ } probe kernel.function("vfs_read") { n++ } ' +
    'probe begin { n = strlen(sprintf("%d", 42)); println("hi") } probe timer.ms(1) { exit() }';
  execFileSync(process.execPath, [path.join(cliDir, 'main.js'), '-e', warm], { stdio: 'ignore' });
  // tapsim's cache: a shell running a tracing file read, the function tracer and stap in it
  execFileSync(process.execPath, [path.join(cliDir, 'tapsim_main.js'), 'shell', '-c',
    'cat /sys/kernel/tracing/available_tracers > /dev/null; echo function > /sys/kernel/tracing/current_tracer; ' +
    "stap -e 'probe begin { exit() }'; head -3 /sys/kernel/tracing/trace > /dev/null"], { stdio: 'ignore' });
  process.stderr.write(`bundle: ${path.relative(process.cwd(), out)} (${Math.round(fs.statSync(out).size / 1024)} KB) in ${Date.now() - t0} ms\n`);
}

main().catch((e: unknown) => {
  removeStale();
  process.stderr.write(`bundle: failed (${e instanceof Error ? e.message : String(e)}); stap will load its modules one by one\n`);
});
