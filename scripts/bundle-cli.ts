/**
 * Build step: bundle the compiled commands into two files with source maps chained to the .ts
 * sources, then run each once so src/cli/launch.ts stores their V8 code caches:
 *
 *   dist/src/cli/tapsim.bundle.js  `tapsim shell` and the simulated machine (src/cli/tapsim.js
 *                                  and its imports), commander not among them
 *   dist/src/cli/stap.bundle.js    the stap pipeline (src/cli/pipeline.js: options, parse,
 *                                  elaborate, translate, runtime, probes, the REPL)
 *
 * A module both reach (the machine, the kernel's tables, ...) must be one instance in a process:
 * stap inside a `tapsim shell` machine probes that machine.  So the stap bundle leaves every
 * module of the shell's bundle out and requires it as `tapsim-host:PATH` (PATH under dist/), and
 * the shell's bundle exports those modules by PATH (its entry, generated here, lists them
 * explicitly); the loader answers one with the other (src/cli/launch.ts), loading the shell's
 * bundle only when the pipeline first uses one of them.  A shell that never runs stap never
 * loads the pipeline, and a begin-only stap script never loads the machine.
 *
 * The shell's bundle holds only the modules a plain start (`tapsim shell -c true`: the machine's
 * boot, the shell, its exit) loads, found by running one at build time; the others (programs
 * under /usr/bin, awk, perf and trace-cmd, the tracefs, ...) go in dist/src/cli/tapsim-lazy.bundle.js,
 * which the loader reads when one of them is first required (`tapsim-lazy:PATH`), its own
 * imports of the shell's modules answered as the stap bundle's are.  A start so reads and keeps
 * ~60% of the shell's code instead of all of it.
 *
 * Each bundle sits in the directory of the modules it replaces, so their `__dirname`-relative
 * data paths (lang/, stdlib/, data/kernel/) resolve the same.  Without esbuild (an install
 * without devDependencies) the step removes any stale bundle and the commands load their
 * modules directly.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';

const distDir = path.join(__dirname, '..');
const cliDir = path.join(distDir, 'src', 'cli');
const out = path.join(cliDir, 'stap.bundle.js');
const pipelineEntry = path.join(cliDir, 'pipeline.js');
/** the `tapsim` command (tapsim shell), its own bundle and cache */
const tapsimEntry = path.join(cliDir, 'tapsim.js');
const tapsimOut = path.join(cliDir, 'tapsim.bundle.js');
/** the shell's modules a plain start does not load */
const lazyOut = path.join(cliDir, 'tapsim-lazy.bundle.js');
/** src/cli/launch.ts's HOST_PREFIX and LAZY_PREFIX */
const HOST_PREFIX = 'tapsim-host:';
const LAZY_PREFIX = 'tapsim-lazy:';

function removeStale(): void {
  for (const f of [out, tapsimOut, lazyOut]) for (const g of [f, f + '.map']) fs.rmSync(g, { force: true });
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

const common: import('esbuild').BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minifyWhitespace: true,
  // non-ASCII characters escaped: src/cli/launch.ts reads the bundle as latin1
  charset: 'ascii',
  external: ['source-map-support'],
  logLevel: 'warning',
};

/**
 * The two bundles are written inside the CommonJS wrapper (what Module.wrap adds): the loader
 * (src/cli/launch.ts) compiles the file's text as read, instead of a wrapped copy that V8
 * flattens into a second ~650 KB string (one young-generation collection less a start).
 */
const wrapped: import('esbuild').BuildOptions = {
  banner: { js: '(function (exports, require, module, __filename, __dirname) { ' },
  footer: { js: '\n});' },
};

/** A module's path under dist/ with forward slashes (the name the two bundles agree on). */
const distName = (file: string): string => path.relative(distDir, file).split(path.sep).join('/');

/**
 * Modules each bundle carries a copy of, though both reach them: leaves the pipeline uses
 * without the machine (a begin-only script), whose state is at most a memo of read-only data,
 * so two copies answer alike (the cache directory's verdict is shared through globalThis:
 * src/cachedir.ts).  And src/cli/stdio.ts, the process's output: a process writes through one
 * copy only (`stap` through the pipeline's, `tapsim shell` through the shell's; stap inside
 * the shell writes to the machine's fds).
 */
const DUPLICATED = new Set(['src/binding.js', 'src/cachedir.js', 'src/kernel/config.js', 'src/kernel/timekeeping.js',
  'src/machine/core/events.js', 'src/cli/stdio.js']);

/**
 * A bundle's imports of another's modules: an import that resolves to one of `shared` (files
 * under dist/src) becomes `require(PREFIX + PATH)`; `used` collects the PATHs.  The stap bundle
 * and the lazy one import the shell's modules so (`tapsim-host:`, the DUPLICATED ones apart in
 * the stap bundle), the shell's bundle the lazy one's (`tapsim-lazy:`).
 */
function imports(prefix: string, shared: Set<string>, used: Set<string>, duplicated = new Set<string>()): import('esbuild').Plugin {
  return {
    name: `imports-${prefix}`,
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData === prefix) return undefined;
        const r = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: prefix });
        if (r.errors.length || !shared.has(r.path)) return undefined;
        const name = distName(r.path);
        if (duplicated.has(name)) return undefined;
        used.add(name);
        return { path: prefix + name, external: true };
      });
    },
  };
}

/**
 * The files under dist/src a plain start (`tapsim shell -c true`, each module its own file) loads.
 * (Run before the bundles are written: src/cli/launch.ts then finds none current.)
 */
function plainStartModules(): Set<string> {
  const tmp = fs.mkdtempSync(path.join(require('os').tmpdir() as string, 'tapsim-bundle-'));
  try {
    const probe = path.join(tmp, 'probe.js');
    const list = path.join(tmp, 'loaded.json');
    fs.writeFileSync(probe, `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache))));\n`);
    execFileSync(process.execPath, ['-r', probe, path.join(cliDir, 'tapsim_main.js'), 'shell', '-c', 'true'],
      { stdio: 'ignore', env: { ...process.env, TAPSIM_NO_BUNDLE: '1' } });
    const src = path.join(distDir, 'src') + path.sep;
    return new Set((JSON.parse(fs.readFileSync(list, 'utf8')) as string[]).filter((f) => f.startsWith(src)));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A bundle's entry: `modules`, each of `names` (paths under dist/) by a function that requires it. */
function modulesEntry(names: Iterable<string>): string {
  const rel = (name: string): string => JSON.stringify('./' + path.relative(cliDir, path.join(distDir, name)).split(path.sep).join('/'));
  return 'exports.modules = {\n' + [...names].sort().map((name) => `  ${JSON.stringify(name)}: () => require(${rel(name)}),\n`).join('') + '};\n';
}

/**
 * The commands' entry points (dist/src/cli/main.js, tapsim_main.js) are rewritten with the loader
 * and the cache directory's modules inlined: a start resolves, reads and compiles one file
 * before its bundle instead of four (~1.5 ms of CPU).  The modules the loader requires by name
 * for a run without bundles (src/cli/pipeline.ts, tapsim.ts) stay requires.
 */
const launcherOnly: import('esbuild').Plugin = {
  name: 'launcher-only',
  setup(build) {
    build.onResolve({ filter: /^\.\/(tapsim|pipeline)$/ }, (args) => ({ path: args.path, external: true }));
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
  const plugins = [lazyChildProcess, builtinNamespaces];
  removeStale();
  // 1. what the shell's two bundles hold: src/cli/tapsim.js and its imports, split into what a
  //    plain start loads and the rest
  const probe = await esbuild.build({ ...common, entryPoints: [tapsimEntry], outfile: tapsimOut, write: false, metafile: true, plugins });
  const shared = new Set(Object.keys(probe.metafile!.inputs).map((f) => path.resolve(f))
    .filter((f) => f.startsWith(path.join(distDir, 'src') + path.sep)));
  const plain = plainStartModules();
  const lazy = new Set([...shared].filter((f) => !plain.has(f)));
  const eager = new Set([...shared].filter((f) => plain.has(f)));
  // 2. the stap bundle, the shell's modules left out
  const used = new Set<string>();
  await esbuild.build({ ...common, ...wrapped, entryPoints: [pipelineEntry], outfile: out, sourcemap: 'linked', plugins: [imports(HOST_PREFIX, shared, used, DUPLICATED), ...plugins] });
  // 3. the lazy bundle: every one of its modules exported, its imports of the shell's left out
  const usedByLazy = new Set<string>();
  await esbuild.build({
    ...common, ...wrapped, stdin: { contents: modulesEntry([...lazy].map(distName)), resolveDir: cliDir, sourcefile: 'tapsim-lazy.bundle-entry.js', loader: 'js' },
    outfile: lazyOut, sourcemap: 'linked', plugins: [imports(HOST_PREFIX, eager, usedByLazy), ...plugins],
  });
  // 4. the shell's bundle, exporting the modules the other two ask for (the stap bundle's lazy
  //    ones come from the lazy bundle: src/cli/launch.ts)
  const exported = [...used, ...usedByLazy].filter((name) => eager.has(path.join(distDir, name)));
  await esbuild.build({
    ...common, ...wrapped, stdin: { contents: "exports.tapsim = require('./tapsim.js');\n" + modulesEntry(new Set(exported)), resolveDir: cliDir, sourcefile: 'tapsim.bundle-entry.js', loader: 'js' },
    outfile: tapsimOut, sourcemap: 'linked', plugins: [imports(LAZY_PREFIX, lazy, new Set()), ...plugins],
  });
  for (const f of ['main.js', 'tapsim_main.js']) {
    const file = path.join(cliDir, f);
    await esbuild.build({ ...common, entryPoints: [file], outfile: file, allowOverwrite: true, sourcemap: 'linked', plugins: [launcherOnly, builtinNamespaces] });
  }
  // Warm the code caches (each written by the loader when its first run ends, with what that run
  // compiled).  The shell's first: a plain start (`tapsim shell -c true`: the machine's boot, the
  // shell, its exit).  V8 restores every function the cache holds at each start, whether the run
  // calls it or not: a cache warmed by a shell that also used tracefs and the function tracer held
  // ~200 KB more (999 KB against 798 KB) and took a start ~2-4 ms longer to restore; a command that
  // uses them compiles what it calls on first use instead.  (The lazy part's cache is made by the
  // first run that loads it; stap's own run below keeps a cache of the shell's bundle of its own,
  // under its own V8 flags: src/cli/launch.ts flagsTag.)
  execFileSync(process.execPath, [path.join(cliDir, 'tapsim_main.js'), 'shell', '-c', 'true'], { stdio: 'ignore' });
  // The pipeline's: a script that probes a tracepoint and a kernel function (its kernel-probe
  // code compiled; the machine's code is in the shell's cache).
  const warm = 'global n probe syscall.read { n++ } probe kernel.function("vfs_read") { n++ } ' +
    'probe begin { n = strlen(sprintf("%d", 42)); println("hi") } probe timer.ms(1) { exit() }';
  execFileSync(process.execPath, [path.join(cliDir, 'main.js'), '-e', warm], { stdio: 'ignore' });
  const kb = (f: string): number => Math.round(fs.statSync(f).size / 1024);
  process.stderr.write(`bundle: ${path.relative(process.cwd(), out)} (${kb(out)} KB, ${used.size} modules from the shell's), ` +
    `${path.relative(process.cwd(), tapsimOut)} (${kb(tapsimOut)} KB, ${eager.size} modules), ` +
    `${path.relative(process.cwd(), lazyOut)} (${kb(lazyOut)} KB, ${lazy.size} modules) in ${Date.now() - t0} ms\n`);
}

main().catch((e: unknown) => {
  removeStale();
  process.stderr.write(`bundle: failed (${e instanceof Error ? e.message : String(e)}); stap will load its modules one by one\n`);
});
