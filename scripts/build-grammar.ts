/** Build step: compile lang/stap.ohm into an ohm recipe (fast to load at startup). */
import * as fs from 'fs';
import * as path from 'path';
import * as ohm from 'ohm-js';

const root = path.join(__dirname, '..', '..');
const src = path.join(root, 'lang', 'stap.ohm');
const outDir = path.join(root, 'dist', 'lang');
fs.mkdirSync(outDir, { recursive: true });
const g = ohm.grammar(fs.readFileSync(src, 'utf8'));
fs.writeFileSync(path.join(outDir, 'stap.recipe.json'), (g as unknown as { toRecipe(): string }).toRecipe());
