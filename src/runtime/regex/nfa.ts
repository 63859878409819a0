/**
 * A regex tree as a Thompson NFA over bytes, with the tree kept alongside: every node of the
 * tree (counted repetitions expanded into copies of their body) is an *instance* owning a
 * contiguous range of states, entered only at its `entry` and left only from its `exit`.  That
 * lets the submatch pass (submatch.ts) simulate any sub-expression on its own, forwards or
 * backwards, in time linear in the text.
 *
 * States: CHAR (one byte set, one successor), EPS (any number of successors), BOL / EOL (an
 * epsilon step allowed only at the start / end of the text).  The number of states is bounded
 * (MAX_STATES): a pattern that expands past it is a compilation error.
 */
import type { ByteSet, Node } from './syntax';

export const enum Kind { EPS = 0, CHAR = 1, BOL = 2, EOL = 3 }

/** Most NFA states a pattern may expand to (`(a{1000}){1000}` would need a million). */
export const MAX_STATES = 200000;

export class TooLarge extends Error {}

export interface Inst {
  kind: Node['t'];
  entry: number;
  exit: number;
  /** a group (other than 0) inside */
  groups: boolean;
  /** cat/alt children, the group body */
  items: Inst[];
  /** group number */
  index: number;
  // rep:
  /** mandatory copies, in order */
  mand: Inst[];
  /** optional copies (bounded max), each entered from its choice state */
  opt: Inst[];
  choice: number[];
  /** the state after the mandatory copies */
  afterMand: number;
  /** unbounded: the loop body and its head */
  loop: Inst | null;
  loopHead: number;
}

export class Nfa {
  kind: Uint8Array;
  /** CHAR: index into `sets` */
  setOf: Int32Array;
  sets: ByteSet[] = [];
  /** successors (CSR) */
  outStart: Int32Array;
  out: Int32Array;
  /** predecessors (CSR) */
  inStart: Int32Array;
  inList: Int32Array;
  root: Inst;
  nstates: number;

  constructor(tree: Node) {
    const b = new Builder();
    this.root = b.build(tree);
    this.nstates = b.kinds.length;
    const n = this.nstates;
    this.kind = Uint8Array.from(b.kinds);
    this.setOf = Int32Array.from(b.setIdx);
    this.sets = b.sets;
    const outCount = new Int32Array(n + 1);
    const inCount = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      for (const t of b.outs[i]) {
        outCount[i + 1]++;
        inCount[t + 1]++;
      }
    }
    for (let i = 0; i < n; i++) {
      outCount[i + 1] += outCount[i];
      inCount[i + 1] += inCount[i];
    }
    this.outStart = outCount;
    this.inStart = inCount;
    this.out = new Int32Array(outCount[n]);
    this.inList = new Int32Array(inCount[n]);
    const fill = inCount.slice();
    for (let i = 0; i < n; i++) {
      let k = outCount[i];
      for (const t of b.outs[i]) {
        this.out[k++] = t;
        this.inList[fill[t]++] = i;
      }
    }
  }
}

class Builder {
  kinds: number[] = [];
  setIdx: number[] = [];
  outs: number[][] = [];
  sets: ByteSet[] = [];
  private setIds = new Map<string, number>();

  private state(kind: Kind, set = -1): number {
    if (this.kinds.length >= MAX_STATES) throw new TooLarge();
    this.kinds.push(kind);
    this.setIdx.push(set);
    this.outs.push([]);
    return this.kinds.length - 1;
  }

  private edge(from: number, to: number): void {
    this.outs[from].push(to);
  }

  private setId(s: ByteSet): number {
    const key = String.fromCharCode(...s);
    let id = this.setIds.get(key);
    if (id === undefined) {
      id = this.sets.push(s) - 1;
      this.setIds.set(key, id);
    }
    return id;
  }

  /**
   * Builds `nodes` one after another from state `prev` (each instance's entry follows the previous
   * exit), appending the instances to `into`; returns the last exit.
   */
  private chain(inst: Inst, prev: number, nodes: readonly Node[], into: Inst[]): number {
    for (const it of nodes) {
      const c = this.build(it);
      into.push(c);
      this.edge(prev, c.entry);
      prev = c.exit;
      inst.groups ||= c.groups;
    }
    return prev;
  }

  build(node: Node): Inst {
    const inst: Inst = {
      kind: node.t, entry: -1, exit: -1, groups: false, items: [], index: 0,
      mand: [], opt: [], choice: [], afterMand: -1, loop: null, loopHead: -1,
    };
    switch (node.t) {
      case 'empty':
        inst.entry = this.state(Kind.EPS);
        inst.exit = this.state(Kind.EPS);
        this.edge(inst.entry, inst.exit);
        break;
      case 'set':
        inst.entry = this.state(Kind.CHAR, this.setId(node.set));
        inst.exit = this.state(Kind.EPS);
        this.edge(inst.entry, inst.exit);
        break;
      case 'bol':
      case 'eol':
        inst.entry = this.state(node.t === 'bol' ? Kind.BOL : Kind.EOL);
        inst.exit = this.state(Kind.EPS);
        this.edge(inst.entry, inst.exit);
        break;
      case 'group': {
        inst.index = node.index;
        inst.entry = this.state(Kind.EPS);
        const body = this.build(node.body);
        inst.items = [body];
        inst.exit = this.state(Kind.EPS);
        this.edge(inst.entry, body.entry);
        this.edge(body.exit, inst.exit);
        inst.groups = node.index > 0 || body.groups;
        break;
      }
      case 'cat': {
        inst.entry = this.state(Kind.EPS);
        const prev = this.chain(inst, inst.entry, node.items, inst.items);
        inst.exit = this.state(Kind.EPS);
        this.edge(prev, inst.exit);
        break;
      }
      case 'alt': {
        inst.entry = this.state(Kind.EPS);
        for (const it of node.items) {
          const c = this.build(it);
          inst.items.push(c);
          this.edge(inst.entry, c.entry);
          inst.groups ||= c.groups;
        }
        inst.exit = this.state(Kind.EPS);
        for (const c of inst.items) this.edge(c.exit, inst.exit);
        break;
      }
      case 'rep': {
        inst.entry = this.state(Kind.EPS);
        const mandExit = this.chain(inst, inst.entry, Array<Node>(node.min).fill(node.body), inst.mand);
        inst.afterMand = this.state(Kind.EPS);
        this.edge(mandExit, inst.afterMand);
        let prev = inst.afterMand;
        const tails: number[] = [];
        if (node.max < 0) {
          inst.loopHead = this.state(Kind.EPS);
          this.edge(prev, inst.loopHead);
          const c = this.build(node.body);
          inst.loop = c;
          this.edge(inst.loopHead, c.entry);
          this.edge(c.exit, inst.loopHead);
          tails.push(inst.loopHead);
          inst.groups ||= c.groups;
        } else {
          for (let i = node.min; i < node.max; i++) {
            const ch = this.state(Kind.EPS);
            this.edge(prev, ch);
            const c = this.build(node.body);
            inst.choice.push(ch);
            inst.opt.push(c);
            this.edge(ch, c.entry);
            tails.push(ch);
            prev = c.exit;
            inst.groups ||= c.groups;
          }
          tails.push(prev);
        }
        inst.exit = this.state(Kind.EPS);
        for (const t of tails) this.edge(t, inst.exit);
        break;
      }
    }
    return inst;
  }
}
