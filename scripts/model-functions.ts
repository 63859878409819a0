/**
 * Print the kernel functions the machine model runs (every function node of every call-path
 * template, includes expanded), one name per line, sorted. Input of
 * scripts/kernel-data/inline_sites.py (which DWARF compile units to scan for inline instances).
 * Usage: node dist/scripts/model-functions.js > WORK/model_funcs.txt
 */
import { pathNames, pathItems } from '../src/machine/paths/dsl';

const names = new Set<string>();
for (const p of pathNames()) {
  for (const it of pathItems(p)) if (/^[A-Za-z_][\w.]*$/.test(it)) names.add(it);
}
process.stdout.write([...names].sort().join('\n') + '\n');
