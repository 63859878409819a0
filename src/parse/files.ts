/**
 * The modules whose code decides what a file parses to: the AST cache (src/elaborate/tapsets.ts)
 * stamps its entries with their contents, so a parser change invalidates cached ASTs.
 */
import * as path from 'path';

const MODULES = ['index', 'lexer', 'preprocess', 'cursor', 'decl', 'stmt', 'expr', 'literals', 'checks'];

/**
 * Absolute paths of the parser's compiled modules.  Relative to `src/parse` through `..`, so
 * the same from the bundle in dist/src/cli (see scripts/bundle-cli.ts).
 */
export function parserFiles(): string[] {
  return MODULES.map((m) => path.join(__dirname, '..', 'parse', `${m}.js`));
}
