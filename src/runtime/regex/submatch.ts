/**
 * Where the match is and what each subexpression matched, with POSIX's rules: the match starts
 * as early as possible and is as long as possible; then every part of the pattern, from left to
 * right (outer before inner), matches the longest string that still lets the whole match, an
 * alternation takes its first alternative among those that fit, a repetition's iterations are
 * each as long as possible in turn (an iteration beyond the required ones is never empty, but
 * `(a*)*` against "" does one empty iteration, as POSIX has it), and a group reports its last
 * iteration (groups inside a repetition are reset when it iterates again).
 *
 * The choices are made top-down on the pattern tree with a fixed span per node.  Which spans
 * are possible comes from simulating a node's sub-NFA (nfa.ts) forwards from its start (the
 * ends it can reach) and backwards from the span's end (the positions from which the rest of
 * the node can still finish there): linear in the text per node and tree level.  A repetition's
 * iterations come from one backwards pass that carries, for every start, the furthest feasible
 * end.  So the cost is O(text x states x depth), never exponential, never quadratic in the text.
 */
import { Inst, Kind, Nfa } from './nfa';

export class Submatcher {
  private mark: Int32Array;
  private gen = 0;
  private label: Int32Array;
  private stack: number[] = [];
  private s = '';
  private n = 0;

  constructor(private nfa: Nfa) {
    this.mark = new Int32Array(nfa.nstates);
    this.label = new Int32Array(nfa.nstates);
  }

  /** [start0, end0, start1, end1, ...] (-1 for a group that did not take part), or null. */
  run(s: string, ngroups: number): Int32Array | null {
    this.s = s;
    this.n = s.length;
    const root = this.nfa.root;
    const start = this.leftmostStart();
    if (start < 0) return null;
    const ends = this.fwd(root, start, this.n);
    let end = start;
    for (let b = this.n; b >= start; b--) if (ends[b - start]) { end = b; break; }
    const out = new Int32Array(2 * ngroups).fill(-1);
    out[0] = start;
    out[1] = end;
    this.decompose(root.items[0], start, end, out);
    return out;
  }

  // ------------------------------------------------------------------ simulations

  private matches(q: number, p: number): boolean {
    const nfa = this.nfa;
    return nfa.sets[nfa.setOf[q]][this.s.charCodeAt(p) & 255] === 1;
  }

  /** Forward epsilon closure at position p; keeps CHAR states and `stop` (not followed). */
  private closeFwd(seeds: number[], p: number, stop: number, into: number[]): void {
    const nfa = this.nfa;
    const gen = ++this.gen;
    const mark = this.mark;
    const stack = this.stack;
    for (const q of seeds) if (mark[q] !== gen) { mark[q] = gen; stack.push(q); }
    while (stack.length) {
      const q = stack.pop()!;
      const k = nfa.kind[q];
      if (q === stop || k === Kind.CHAR) { into.push(q); continue; }
      if ((k === Kind.BOL && p !== 0) || (k === Kind.EOL && p !== this.n)) continue;
      for (let e = nfa.outStart[q]; e < nfa.outStart[q + 1]; e++) {
        const t = nfa.out[e];
        if (mark[t] !== gen) { mark[t] = gen; stack.push(t); }
      }
    }
  }

  /** Flags over [a..j]: can `inst` match text[a..b)? */
  fwd(inst: Inst, a: number, j: number): Uint8Array {
    const nfa = this.nfa;
    const ends = new Uint8Array(j - a + 1);
    let set: number[] = [];
    this.closeFwd([inst.entry], a, inst.exit, set);
    for (let p = a; ; p++) {
      const seeds: number[] = [];
      for (const q of set) {
        if (q === inst.exit) ends[p - a] = 1;
        else if (p < j && this.matches(q, p)) seeds.push(nfa.out[nfa.outStart[q]]);
      }
      if (p >= j || seeds.length === 0) break;
      set = [];
      this.closeFwd(seeds, p + 1, inst.exit, set);
    }
    return ends;
  }

  /**
   * Backward epsilon closure at position p from `seeds` (alive there): every state of `inst`
   * from which an alive state is reachable without consuming.  Predecessors of inst.entry are
   * outside the instance and not followed.
   */
  private closeBwd(seeds: number[], p: number, entry: number, into: number[]): void {
    const nfa = this.nfa;
    const gen = ++this.gen;
    const mark = this.mark;
    const stack = this.stack;
    for (const q of seeds) if (mark[q] !== gen) { mark[q] = gen; stack.push(q); }
    while (stack.length) {
      const q = stack.pop()!;
      into.push(q);
      if (q === entry) continue;
      for (let e = nfa.inStart[q]; e < nfa.inStart[q + 1]; e++) {
        const y = nfa.inList[e];
        if (mark[y] === gen) continue;
        const k = nfa.kind[y];
        if (k === Kind.CHAR || (k === Kind.BOL && p !== 0) || (k === Kind.EOL && p !== this.n)) continue;
        mark[y] = gen;
        stack.push(y);
      }
    }
  }

  /** CHAR predecessors of the alive states that read text[p] (the alive set at p before closure). */
  private stepBwd(alive: number[], p: number, entry: number): number[] {
    const nfa = this.nfa;
    const seeds: number[] = [];
    for (const x of alive) {
      if (x === entry) continue;
      for (let e = nfa.inStart[x]; e < nfa.inStart[x + 1]; e++) {
        const y = nfa.inList[e];
        if (nfa.kind[y] === Kind.CHAR && this.matches(y, p)) seeds.push(y);
      }
    }
    return seeds;
  }

  /**
   * Backwards from inst.exit at j down to a: for each probe state, flags over [a..j] telling
   * whether the rest of `inst` from that state can match text[b..j).
   */
  bwd(inst: Inst, a: number, j: number, probes: number[]): Uint8Array[] {
    const flags = probes.map(() => new Uint8Array(j - a + 1));
    const index = new Map<number, number[]>();
    probes.forEach((q, i) => index.set(q, [...(index.get(q) ?? []), i]));
    let alive: number[] = [];
    this.closeBwd([inst.exit], j, inst.entry, alive);
    for (let p = j; ; p--) {
      for (const q of alive) {
        const ix = index.get(q);
        if (ix) for (const i of ix) flags[i][p - a] = 1;
      }
      if (p <= a) break;
      const seeds = this.stepBwd(alive, p - 1, inst.entry);
      alive = [];
      if (seeds.length === 0) break;
      this.closeBwd(seeds, p - 1, inst.entry, alive);
    }
    return flags;
  }

  /** The leftmost position where a match starts (-1: none). */
  private leftmostStart(): number {
    const root = this.nfa.root;
    let best = -1;
    let alive: number[] = [];
    this.closeBwd([root.exit], this.n, root.entry, alive);
    for (let p = this.n; ; p--) {
      if (alive.includes(root.entry)) best = p;
      if (p === 0) break;
      const seeds = this.stepBwd(alive, p - 1, root.entry);
      seeds.push(root.exit); // a match may end anywhere
      alive = [];
      this.closeBwd(seeds, p - 1, root.entry, alive);
    }
    return best;
  }

  /**
   * For every start b in [a..j): the furthest k > b such that `body` matches text[b..k) and
   * feasible[k - a] (-1 if none).  One backward pass: threads carry the end they started from,
   * and where threads meet the furthest end wins (seeds are closed in decreasing order).
   */
  private furthest(body: Inst, a: number, j: number, feasible: Uint8Array): Int32Array {
    const nfa = this.nfa;
    const res = new Int32Array(j - a + 1).fill(-1);
    const label = this.label;
    let alive: number[] = [];
    for (let p = j; p >= a; p--) {
      const seeds: number[] = [];
      if (p < j) {
        for (const x of alive) {
          if (x === body.entry) continue;
          for (let e = nfa.inStart[x]; e < nfa.inStart[x + 1]; e++) {
            const y = nfa.inList[e];
            if (nfa.kind[y] === Kind.CHAR && this.matches(y, p)) seeds.push(y);
          }
        }
      }
      const seedLabel = seeds.map((y) => label[nfa.out[nfa.outStart[y]]]);
      const order = seeds.map((_, i) => i).sort((x, y) => seedLabel[y] - seedLabel[x]);
      const next: number[] = [];
      const gen = ++this.gen;
      const mark = this.mark;
      const close = (seed: number, l: number): void => {
        if (mark[seed] === gen) return;
        mark[seed] = gen;
        const stack = [seed];
        while (stack.length) {
          const q = stack.pop()!;
          label[q] = l;
          next.push(q);
          if (q === body.entry) continue;
          for (let e = nfa.inStart[q]; e < nfa.inStart[q + 1]; e++) {
            const y = nfa.inList[e];
            if (mark[y] === gen) continue;
            const k = nfa.kind[y];
            if (k === Kind.CHAR || (k === Kind.BOL && p !== 0) || (k === Kind.EOL && p !== this.n)) continue;
            mark[y] = gen;
            stack.push(y);
          }
        }
      };
      for (const i of order) close(seeds[i], seedLabel[i]);
      if (feasible[p - a]) close(body.exit, p); // an iteration ending here: the smallest label
      alive = next;
      if (mark[body.entry] === gen && label[body.entry] > p) res[p - a] = label[body.entry];
    }
    return res;
  }

  // ------------------------------------------------------------------ choices

  private decompose(inst: Inst, i: number, j: number, out: Int32Array): void {
    if (!inst.groups) return;
    switch (inst.kind) {
      case 'group':
        out[2 * inst.index] = i;
        out[2 * inst.index + 1] = j;
        this.decompose(inst.items[0], i, j, out);
        return;
      case 'cat':
        this.sequence(inst, inst.items, inst.items.slice(1).map((c) => c.entry), i, j, out);
        return;
      case 'alt':
        for (const c of inst.items) {
          if (this.fwd(c, i, j)[j - i]) {
            this.decompose(c, i, j, out);
            return;
          }
        }
        return;
      case 'rep':
        this.repetition(inst, i, j, out);
        return;
      default:
        return;
    }
  }

  /**
   * Parts matched one after the other over [i, j): each the longest that lets the rest finish
   * at j (`rest[t]` is the state where the parts after part t start).  Returns the last part
   * with its span.
   */
  private sequence(owner: Inst, parts: Inst[], rest: number[], i: number, j: number, out: Int32Array | null,
    nonEmpty = false): { inst: Inst; a: number; b: number } | null {
    if (parts.length === 0) return null;
    const feasible = this.bwd(owner, i, j, rest);
    let pos = i;
    let last: { inst: Inst; a: number; b: number } | null = null;
    for (let t = 0; t < parts.length; t++) {
      if (out && !parts.slice(t).some((c) => c.groups)) break;
      if (nonEmpty && pos === j) break;
      let end = j;
      if (t < parts.length - 1 || owner.kind === 'rep') {
        const ends = this.fwd(parts[t], pos, j);
        const f = feasible[t];
        end = -1;
        for (let b = j; b >= pos + (nonEmpty ? 1 : 0); b--) if (ends[b - pos] && f[b - i]) { end = b; break; }
        if (end < 0) break; // not reached: the span is feasible
      }
      if (out) this.decompose(parts[t], pos, end, out);
      last = { inst: parts[t], a: pos, b: end };
      pos = end;
    }
    return last;
  }

  private repetition(inst: Inst, i: number, j: number, out: Int32Array): void {
    // mandatory copies: each the longest that lets the rest of the repetition finish at j
    let last = this.sequence(inst, inst.mand, [...inst.mand.slice(1).map((c) => c.entry), inst.afterMand], i, j, null);
    const pos = last ? last.b : i;
    if (inst.opt.length) {
      if (pos < j) {
        const rest = [...inst.choice.slice(1), inst.exit];
        last = this.sequence(inst, inst.opt, rest, pos, j, null, true) ?? last;
      } else if (inst.mand.length === 0 && this.fwd(inst.opt[0], pos, pos)[0]) last = { inst: inst.opt[0], a: pos, b: pos };
    } else if (inst.loop) {
      const body = inst.loop;
      if (pos < j) {
        const feasible = this.bwd(inst, pos, j, [inst.loopHead])[0];
        const furthest = this.furthest(body, pos, j, feasible);
        let a = pos;
        while (a < j && furthest[a - pos] > a) {
          const b = furthest[a - pos];
          last = { inst: body, a, b };
          a = b;
        }
      } else if (inst.mand.length === 0 && this.fwd(body, pos, pos)[0]) last = { inst: body, a: pos, b: pos };
    }
    if (last) this.decompose(last.inst, last.a, last.b, out);
  }
}
