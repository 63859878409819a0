/**
 * Test reference for the regex engine: every parse of a pattern over a (tiny) text enumerated,
 * and the POSIX-best one picked straight from the definition (Sulzmann & Lu's order of parse
 * trees: parts compared left to right, a longer part wins, equal lengths compare inside, an
 * earlier alternative wins at equal length; `r{0,n}` is `r{1,n}|()`).  Exponential: only for
 * property tests on short texts.
 */
import type { Node } from '../../src/runtime/regex/syntax';

interface Val {
  s: number;
  e: number;
  kids?: Val[];
  alt?: number;
  /** rep: iterations; null = the empty alternative of r{0,n} */
  iters?: Val[] | null;
}

const LIMIT = 20000;

export function allParses(node: Node, text: string, i: number, budget = { n: 0 }): Val[] {
  const n = text.length;
  if (++budget.n > LIMIT) throw new Error('reference: too many parses');
  switch (node.t) {
    case 'empty': return [{ s: i, e: i }];
    case 'set': return i < n && node.set[text.charCodeAt(i)] ? [{ s: i, e: i + 1 }] : [];
    case 'bol': return i === 0 ? [{ s: i, e: i }] : [];
    case 'eol': return i === n ? [{ s: i, e: i }] : [];
    case 'group': return allParses(node.body, text, i, budget).map((v) => ({ s: i, e: v.e, kids: [v] }));
    case 'cat': {
      let partial: Val[][] = [[]];
      for (const it of node.items) {
        const next: Val[][] = [];
        for (const p of partial) {
          const from = p.length ? p[p.length - 1].e : i;
          for (const v of allParses(it, text, from, budget)) next.push([...p, v]);
        }
        partial = next;
      }
      return partial.map((kids) => ({ s: i, e: kids.length ? kids[kids.length - 1].e : i, kids }));
    }
    case 'alt': {
      const out: Val[] = [];
      node.items.forEach((it, k) => { for (const v of allParses(it, text, i, budget)) out.push({ s: i, e: v.e, alt: k, kids: [v] }); });
      return out;
    }
    case 'rep': {
      const out: Val[] = [];
      const min = Math.max(node.min, 1);
      const max = node.max;
      const go = (iters: Val[], from: number): void => {
        if (iters.length >= min) out.push({ s: i, e: from, iters: [...iters] });
        if (max >= 0 && iters.length >= max) return;
        for (const v of allParses(node.body, text, from, budget)) {
          if (iters.length >= min && v.e === v.s) continue; // optional iterations are never empty
          go([...iters, v], v.e);
        }
      };
      if (max !== 0) go([], i);
      if (node.min === 0) out.push({ s: i, e: i, iters: null });
      return out;
    }
  }
}

/** > 0 if a is the better parse (same node, same span). */
export function compare(node: Node, a: Val, b: Val): number {
  switch (node.t) {
    case 'group': return compare(node.body, a.kids![0], b.kids![0]);
    case 'cat':
      for (let k = 0; k < node.items.length; k++) {
        const x = a.kids![k];
        const y = b.kids![k];
        if (x.e !== y.e) return x.e - y.e;
        const r = compare(node.items[k], x, y);
        if (r) return r;
      }
      return 0;
    case 'alt':
      if (a.alt !== b.alt) return b.alt! - a.alt!;
      return compare(node.items[a.alt!], a.kids![0], b.kids![0]);
    case 'rep': {
      if (a.iters === null || b.iters === null) return a.iters === b.iters ? 0 : a.iters === null ? -1 : 1;
      const m = Math.min(a.iters!.length, b.iters!.length);
      for (let k = 0; k < m; k++) {
        const x = a.iters![k];
        const y = b.iters![k];
        if (x.e !== y.e) return x.e - y.e;
        const r = compare(node.body, x, y);
        if (r) return r;
      }
      return a.iters!.length - b.iters!.length;
    }
    default: return 0;
  }
}

function groups(node: Node, v: Val, out: number[]): void {
  switch (node.t) {
    case 'group':
      out[2 * node.index] = v.s;
      out[2 * node.index + 1] = v.e;
      groups(node.body, v.kids![0], out);
      return;
    case 'cat': node.items.forEach((it, k) => groups(it, v.kids![k], out)); return;
    case 'alt': groups(node.items[v.alt!], v.kids![0], out); return;
    case 'rep':
      if (v.iters && v.iters.length) groups(node.body, v.iters[v.iters.length - 1], out);
      return;
    default: return;
  }
}

/** Group spans of the POSIX match of `root` (group 0) in text, or null. */
export function referenceMatch(root: Node, ngroups: number, text: string): number[] | null {
  for (let i = 0; i <= text.length; i++) {
    const vals = allParses(root, text, i);
    if (!vals.length) continue;
    const end = Math.max(...vals.map((v) => v.e));
    let best: Val | null = null;
    for (const v of vals) if (v.e === end && (!best || compare(root, v, best) > 0)) best = v;
    const out = new Array(2 * ngroups).fill(-1);
    groups(root, best!, out);
    return out;
  }
  return null;
}
