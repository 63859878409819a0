/**
 * SystemTap 4.8's probe point tree, names only (data/tapset-names/stap-4.8-probe-points.txt,
 * written by scripts/tapset-names/probe_points.py from the real stap's --dump-probe-types and
 * -v --dump-probe-aliases): every built-in family pattern and every tapset alias name, the
 * internal ones too.
 *
 * stap makes the `(similar: ...)` list of a probe point mismatch from the children of the
 * match_node where matching stopped (elaborate.cxx suggest_functors): the built-in families and
 * the tapset aliases registered there, whatever of them tapsim models.  tapsim's own tree has
 * families stap 4.8 lacks and lacks some stap has, so the lists come from this tree instead
 * (with the script's own aliases added by the caller).
 */
import * as fs from 'fs';
import * as path from 'path';
import { MatchNode, parsePattern } from './elaborate/probes';
import { kernelDataDir, KernelDataError } from './kernel/data';

interface PointNode {
  kids: Map<string, PointNode>;
}

let tree: PointNode | null | undefined;

/** data/tapset-names/stap-4.8-probe-points.txt, beside the kernel data (null when it is missing). */
function dataFile(): string | null {
  try {
    const f = path.join(path.dirname(kernelDataDir()), 'tapset-names', 'stap-4.8-probe-points.txt');
    return fs.existsSync(f) ? f : null;
  } catch (e) {
    if (e instanceof KernelDataError) return null;
    throw e;
  }
}

/** The tree keys of a pattern (`procfs(string).read` -> `procfs(string)`, `read`), as MatchNode keys them. */
export function patternKeys(pattern: string): string[] {
  return parsePattern(pattern).map((p) => MatchNode.key(p.name, p.arg));
}

/** Build the tree from the pattern lines (comments `#` and blank lines skipped). */
export function parsePointTree(text: string): PointNode {
  const root: PointNode = { kids: new Map() };
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    let n = root;
    for (const k of patternKeys(line)) {
      let c = n.kids.get(k);
      if (!c) n.kids.set(k, (c = { kids: new Map() }));
      n = c;
    }
  }
  return root;
}

function loadTree(): PointNode | null {
  if (tree !== undefined) return tree;
  const f = dataFile();
  tree = f ? parsePointTree(fs.readFileSync(f, 'latin1')) : null;
  return tree;
}

/**
 * The names of the children stap 4.8's tree has below `keys` (tree keys: `name`,
 * `name(number)`, `name(string)`), parameters dropped as stap's suggest_functors does; null if
 * stap's tree has no such path (or the data file is missing).
 */
export function stapChildNames(keys: readonly string[]): string[] | null {
  let n = loadTree();
  for (const k of keys) {
    if (!n) return null;
    n = n.kids.get(k) ?? null;
  }
  if (!n) return null;
  const names = new Set<string>();
  for (const k of n.kids.keys()) {
    const p = k.indexOf('(');
    names.add(p < 0 ? k : k.slice(0, p));
  }
  return [...names];
}
