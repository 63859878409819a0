/**
 * Build step: compile lang/stap.ohm into an ohm recipe (fast to load at startup).
 * The recipe is stored without the grammar's own source text and source intervals: ohm only
 * uses them to describe the grammar itself, never to report where an input fails to match,
 * and rebuilding the intervals costs several milliseconds on every start.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ohm from 'ohm-js';

const root = path.join(__dirname, '..', '..');
const src = path.join(root, 'lang', 'stap.ohm');
const outDir = path.join(root, 'dist', 'lang');
fs.mkdirSync(outDir, { recursive: true });
const g = ohm.grammar(fs.readFileSync(src, 'utf8'));

function stripSource(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stripSource);
  if (x && typeof x === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) if (k !== 'source' && k !== 'sourceInterval') o[k] = stripSource(v);
    return o;
  }
  return x;
}

const recipe = JSON.parse((g as unknown as { toRecipe(): string }).toRecipe()) as unknown;
fs.writeFileSync(path.join(outDir, 'stap.recipe.json'), JSON.stringify(stripSource(recipe)));
