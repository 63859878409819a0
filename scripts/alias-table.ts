/**
 * Build step: the table of stdlib probe aliases that resolve to nothing on the simulated kernel
 * (dw_syscall.NAME, nd1_syscall.NAME ... on 6.1), dist/alias-table.json, so pass 2 skips them
 * where their failure is swallowed instead of decoding and resolving each (src/elaborate/alias_table.ts).
 * Runs after the tapset cache and the kernel tables are built; made by expanding every candidate
 * alias the slow way (src/elaborate/alias_table_make.ts).
 */
import * as fs from 'fs';
import { Diagnostics } from '../src/diag';
import { TapsetLibrary, stdlibDir } from '../src/elaborate';
import { builtAliasTableFile } from '../src/elaborate/alias_table';
import { makeAliasTable } from '../src/elaborate/alias_table_make';
import { builtExpansionsDir } from '../src/elaborate/alias_expansions';
import { installKernelProbes } from '../src/probes/setup';


const t0 = Date.now();
installKernelProbes();
const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
const lib = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: null });
const file = builtAliasTableFile();
fs.rmSync(file, { force: true });
const table = makeAliasTable(lib, builtExpansionsDir());
fs.writeFileSync(file, JSON.stringify(table));
const n = Object.values(table.files).reduce((a, f) => a + f.fails.length, 0);
const shards = Object.values(table.layout).reduce((a, l) => a + l.shards.length, 0);
process.stderr.write(`alias table: ${n} aliases of ${Object.keys(table.files).length} stdlib files resolve to nothing; `
  + `expansions recorded in ${shards} shards, in ${Date.now() - t0} ms\n`);
