/**
 * Loads the ohm grammar in lang/stap.ohm.  `npm run build` compiles it to a recipe
 * (dist/lang/stap.recipe.json, see scripts/build-grammar.ts) which loads in a few ms;
 * when the recipe is missing or older than the grammar, the .ohm source is compiled instead.
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as ohm from 'ohm-js';

/** ohm-js itself is loaded on the first parse (scripts read back from the AST cache never need it). */
function ohmLib(): typeof ohm {
  return require('ohm-js') as typeof ohm;
}

let grammar: ohm.Grammar | null = null;

export function grammarSourcePath(): string {
  // dist/src/parse -> repo/lang, or src/parse -> repo/lang
  const candidates = [path.join(__dirname, '..', '..', '..', 'lang', 'stap.ohm'), path.join(__dirname, '..', '..', 'lang', 'stap.ohm')];
  return candidates.find((p) => fs.existsSync(p)) ?? candidates[0];
}

export function recipePath(): string {
  return path.join(__dirname, '..', '..', 'lang', 'stap.recipe.json');
}

export function getGrammar(): ohm.Grammar {
  if (grammar) return grammar;
  const rp = recipePath();
  const src = grammarSourcePath();
  try {
    const rs = fs.statSync(rp);
    const ss = fs.existsSync(src) ? fs.statSync(src) : null;
    if (!ss || rs.mtimeMs >= ss.mtimeMs) {
      const g = (ohmLib() as unknown as { makeRecipe(r: string): ohm.Grammar }).makeRecipe(fs.readFileSync(rp, 'utf8'));
      grammar = g;
      return g;
    }
  } catch {
    // no recipe: compile the source below
  }
  const g = ohmLib().grammar(fs.readFileSync(src, 'utf8'));
  grammar = g;
  return g;
}
