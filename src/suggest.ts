/**
 * stap's "similar:" suggestions (util.cxx levenshtein / levenshtein_suggest), the one place every
 * `(similar: ...)` list is made: probe point mismatches of every family and alias level,
 * unresolved functions, never-assigned variables, kernel functions and tracepoints.
 *
 * The measure, fitted to stap 4.8 (`../shared/tools/real-stap`, test/oracle/suggest.json): an
 * edit distance whose first row and column count 1 a character but whose insertions, deletions
 * and substitutions inside cost 2, a substitution of the same letter in the other case 1
 * (`timer.xyz` gives `hz, s, ms, ns, us`: hz 3, s 4, ms/ns/us 5, sec 6).
 *
 * The list: the candidates taken in byte order (stap's std::set<string>), kept in a multimap by
 * score (ties in insertion order), at most `max` of them, none scoring above `threshold` (stap's
 * callers give none: every candidate is a suggestion once it is among the best five).
 */

/** stap's weighted Levenshtein distance of two names. */
export function levenshtein(a: string, b: string): number {
  const n = b.length;
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a[i - 1];
    for (let j = 1; j <= n; j++) {
      const cb = b[j - 1];
      if (ca === cb) cur[j] = prev[j - 1];
      else {
        const sub = ca.toLowerCase() === cb.toLowerCase() ? 1 : 2;
        cur[j] = Math.min(prev[j - 1] + sub, prev[j] + 2, cur[j - 1] + 2);
      }
    }
    [prev, cur] = [cur, prev];
  }
  return prev[n];
}

/** Byte order of names (C++'s std::string <), the order stap's sets hold them in. */
export function cmpBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The `a, b, c` list stap appends as `(similar: ...)`: the best `max` of `elems` (duplicates and
 * empty names ignored) by distance to `target`, equal distances in byte order.
 */
export function suggest(target: string, elems: Iterable<string>, max = 5, threshold = Infinity): string {
  const sorted = [...new Set(elems)].filter((s) => s !== '').sort(cmpBytes);
  const scores: { score: number; name: string }[] = [];
  for (const name of sorted) {
    // (the distance is at least the length difference: stap's cheap pre-check)
    const minScore = Math.abs(target.length - name.length);
    if (minScore > threshold) continue;
    if (scores.length === max && scores[scores.length - 1].score <= minScore) continue;
    const score = levenshtein(target, name);
    if (score > threshold) continue;
    // a full multimap takes a name only in place of its last (worst) entry, and only if better
    if (scores.length === max && scores[max - 1].score <= score) continue;
    // multimap insert: after all entries with score <= this one
    let at = scores.length;
    while (at > 0 && scores[at - 1].score > score) at--;
    scores.splice(at, 0, { score, name });
    if (scores.length > max) scores.pop();
  }
  return scores.map((s) => s.name).join(', ');
}

/** `msg (similar: sugg)`, or `msg` when there is nothing to suggest. */
export function withSimilar(msg: string, sugg: string): string {
  return sugg ? `${msg} (similar: ${sugg})` : msg;
}
