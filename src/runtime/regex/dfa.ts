/**
 * Does the pattern match anywhere in the text?  A DFA built lazily from the NFA (subset
 * construction, one state per set of NFA states met), unanchored: the start set is added again
 * at every position.  Each byte costs one table lookup once its transition is known, at most one
 * subset step (linear in the NFA) when not, so a match is linear in the text whatever the
 * pattern.  The table is capped (MAX_DFA_STATES); when full it is emptied and rebuilt as needed.
 */
import { Kind, Nfa } from './nfa';

const MAX_DFA_STATES = 2000;

export class Dfa {
  /** byte -> class (bytes no set tells apart share a class) */
  private cls = new Uint8Array(256);
  private nclasses: number;
  private ids = new Map<string, number>();
  private setsOf: Int32Array[] = [];
  /** transitions: state * nclasses + class -> state, -1 unknown */
  private trans = new Int32Array(0);
  /** per state: 1 holds the match state, 2 dead (empty set, nothing injected) */
  private flags: number[] = [];
  /** per state: matches if the text ends here (lazily: -1 unknown) */
  private atEnd: number[] = [];
  private start0 = -1;
  private resets = 0;
  private inject: Int32Array;
  private mark: Int32Array;
  private gen = 0;
  private stack: number[] = [];
  private readonly match: number;

  constructor(private nfa: Nfa) {
    this.match = nfa.root.exit;
    // byte classes: bytes with the same membership in every set
    const sig = new Map<string, number>();
    let n = 0;
    for (let c = 0; c < 256; c++) {
      let key = '';
      for (const s of nfa.sets) key += s[c] ? '1' : '0';
      let k = sig.get(key);
      if (k === undefined) sig.set(key, (k = n++));
      this.cls[c] = k;
    }
    this.nclasses = n;
    this.mark = new Int32Array(nfa.nstates);
    this.inject = this.closure([nfa.root.entry], false);
  }

  /** The CHAR states, EOL states and match state reachable by epsilon steps (BOL only at 0). */
  private closure(seeds: ArrayLike<number>, atStart: boolean): Int32Array {
    const nfa = this.nfa;
    const gen = ++this.gen;
    const mark = this.mark;
    const stack = this.stack;
    const core: number[] = [];
    for (let i = 0; i < seeds.length; i++) {
      const s = seeds[i];
      if (mark[s] !== gen) { mark[s] = gen; stack.push(s); }
    }
    while (stack.length) {
      const q = stack.pop()!;
      const k = nfa.kind[q];
      if (k === Kind.CHAR || k === Kind.EOL || q === this.match) {
        core.push(q); // EOL: passed only when the text ends (endMatch)
        continue;
      }
      if (k === Kind.BOL && !atStart) continue;
      for (let e = nfa.outStart[q]; e < nfa.outStart[q + 1]; e++) {
        const t = nfa.out[e];
        if (mark[t] !== gen) { mark[t] = gen; stack.push(t); }
      }
    }
    core.sort((a, b) => a - b);
    return Int32Array.from(core);
  }

  private stateFor(set: Int32Array): number {
    const key = set.join(',');
    let id = this.ids.get(key);
    if (id !== undefined) return id;
    if (this.setsOf.length >= MAX_DFA_STATES) this.reset();
    id = this.setsOf.length;
    this.ids.set(key, id);
    this.setsOf.push(set);
    let f = 0;
    for (let i = 0; i < set.length; i++) if (set[i] === this.match) f |= 1;
    if (set.length === 0 && this.inject.length === 0) f |= 2;
    this.flags.push(f);
    this.atEnd.push(-1);
    const need = (id + 1) * this.nclasses;
    if (this.trans.length < need) {
      const t = new Int32Array(Math.max(need, this.trans.length * 2, 64 * this.nclasses)).fill(-1);
      t.set(this.trans);
      this.trans = t;
    }
    return id;
  }

  private reset(): void {
    this.resets++;
    this.ids.clear();
    this.setsOf = [];
    this.flags = [];
    this.atEnd = [];
    this.trans.fill(-1);
    this.start0 = -1;
  }

  private step(d: number, c: number): number {
    const nfa = this.nfa;
    const set = this.setsOf[d];
    const next: number[] = [];
    for (let i = 0; i < set.length; i++) {
      const q = set[i];
      if (nfa.kind[q] === Kind.CHAR && nfa.sets[nfa.setOf[q]][c]) next.push(nfa.out[nfa.outStart[q]]);
    }
    for (let i = 0; i < this.inject.length; i++) next.push(this.inject[i]);
    const resets = this.resets;
    const t = this.stateFor(this.closure(next, false));
    // a reset inside stateFor dropped `d`: its transition is not recorded then
    if (resets === this.resets) this.trans[d * this.nclasses + this.cls[c]] = t;
    return t;
  }

  /** Does the text end in a match from state d (the EOL states of d lead to the match)? */
  private endMatch(d: number, atStart: boolean): boolean {
    const nfa = this.nfa;
    const set = this.setsOf[d];
    const gen = ++this.gen;
    const mark = this.mark;
    const stack = this.stack;
    for (let i = 0; i < set.length; i++) {
      const q = set[i];
      if (q === this.match) { stack.length = 0; return true; }
      if (nfa.kind[q] === Kind.EOL) { mark[q] = gen; stack.push(q); }
    }
    while (stack.length) {
      const q = stack.pop()!;
      if (q === this.match) { stack.length = 0; return true; }
      const k = nfa.kind[q];
      if (k === Kind.CHAR || (k === Kind.BOL && !atStart)) continue;
      for (let e = nfa.outStart[q]; e < nfa.outStart[q + 1]; e++) {
        const t = nfa.out[e];
        if (mark[t] !== gen) { mark[t] = gen; stack.push(t); }
      }
    }
    return false;
  }

  /** 1 if the pattern matches somewhere in s (which ends at its first NUL, as a C string). */
  test(s: string): boolean {
    let d = this.start0;
    if (d < 0) d = this.start0 = this.stateFor(this.closure([this.nfa.root.entry], true));
    if (this.flags[d] & 1) return true;
    const n = s.length;
    const nc = this.nclasses;
    const cls = this.cls;
    let p = 0;
    for (; p < n; p++) {
      const c = s.charCodeAt(p) & 255;
      if (c === 0) break;
      let t = this.trans[d * nc + cls[c]];
      if (t < 0) t = this.step(d, c);
      d = t;
      const f = this.flags[d];
      if (f !== 0) return (f & 1) !== 0;
    }
    let e = this.atEnd[d];
    if (p > 0 && e >= 0) return e === 1;
    const r = this.endMatch(d, p === 0);
    if (p > 0) this.atEnd[d] = r ? 1 : 0;
    return r;
  }
}
