/**
 * perf report's call graphs (linux-perf 6.1, tools/perf/util/callchain.c and ui/stdio/hist.c): the
 * callchains of a report entry merged into a tree, printed in the default `graph,0.5,caller` (with
 * --children) or `graph,0.5,callee` (--no-children) style:
 *
 *             |
 *             ---entry_SYSCALL_64_after_hwframe      one root holding all the entry's samples:
 *                do_syscall_64                       its frames after "---", no percentage
 *                |
 *                |--52.37%--__x64_sys_statx          a branch: its share of all samples (absolute)
 *                |          do_statx                 the branch's frames up to its next split
 *                |
 *                 --47.63%--__x64_sys_getdents64     the last branch of a level closes its "|"
 *
 * Frames are merged by symbol (by address where there is none); a node's frames run until the chain
 * branches or a sample's chain ends there.  Branches are sorted by their samples, ties by symbol
 * address (highest first, as perf's rb-tree of children keeps them), and those below 0.5% of all
 * samples are left out.
 */

export interface ChainFrame {
  /** identity: frames with one key merge (the symbol, or the address without one) */
  readonly key: string;
  /** as printed */
  readonly name: string;
  /** the symbol's start (or the address), signed 64-bit as a number: the order of equal branches */
  readonly addr: number;
}

interface TrieNode {
  frame: ChainFrame | null;
  hit: number;
  childrenHit: number;
  kids: Map<string, TrieNode>;
}

interface GraphNode {
  frames: ChainFrame[];
  cumul: number;
  kids: GraphNode[];
}

const newNode = (frame: ChainFrame | null): TrieNode => ({ frame, hit: 0, childrenHit: 0, kids: new Map() });

/** The callchains of one report entry. */
export class CallchainTree {
  private readonly root = newNode(null);
  /** the longest chain appended */
  maxDepth = 0;

  /** Add a chain (in the order printed: outermost caller first for caller graphs) of `period`. */
  append(frames: readonly ChainFrame[], period: number): void {
    if (frames.length > this.maxDepth) this.maxDepth = frames.length;
    let n = this.root;
    for (const f of frames) {
      n.childrenHit += period;
      let k = n.kids.get(f.key);
      if (!k) { k = newNode(f); n.kids.set(f.key, k); }
      n = k;
    }
    n.hit += period;
  }

  /**
   * The graph as `perf report --stdio` prints it under the entry: `total` is every sample's period
   * (percentages are of it), `entryPeriod` the entry's own (children or self) period.
   */
  format(total: number, entryPeriod: number, minPercent = 0.5): string {
    const minHit = Math.trunc(total * (minPercent / 100));
    const roots = graphKids(this.root, minHit);
    let out = '';
    let margin = 0;
    let level = roots;
    if (roots.length === 1 && roots[0].cumul === entryPeriod) {
      // one root with all the entry's samples: its frames without a percentage
      out += `${pad(margin)}|\n`;
      roots[0].frames.forEach((f, i) => { out += i === 0 ? `${pad(margin)}---${f.name}\n` : `${pad(margin + 3)}${f.name}\n`; });
      margin += 3;
      level = roots[0].kids;
    }
    out += branches(level, total, 1, 1, margin);
    return out ? out + '\n' : out;
  }
}

function pad(margin: number): string {
  return ' '.repeat(12 + margin);
}

function graphKids(n: TrieNode, minHit: number): GraphNode[] {
  const out: GraphNode[] = [];
  for (const k of n.kids.values()) {
    const cumul = k.hit + k.childrenHit;
    if (cumul < minHit) continue;
    const frames = [k.frame!];
    let cur = k;
    while (cur.hit === 0 && cur.kids.size === 1) {
      cur = cur.kids.values().next().value as TrieNode;
      frames.push(cur.frame!);
    }
    out.push({ frames, cumul, kids: graphKids(cur, minHit) });
  }
  return out.sort((a, b) => b.cumul - a.cumul || b.frames[0].addr - a.frames[0].addr);
}

function pct(n: number, total: number): string {
  return `${(total ? (n * 100) / total : 0).toFixed(2)}%`;
}

/** __callchain__fprintf_graph: the branches of one level at `depth`; bit i of `mask`: column i's "|" */
function branches(kids: readonly GraphNode[], total: number, depth: number, mask: number, margin: number): string {
  let out = '';
  let newMask = mask;
  kids.forEach((k, idx) => {
    if (idx === kids.length - 1) newMask &= ~(1 << (depth - 1));
    // the separator line keeps the level's "|" up to its last branch
    out += pad(margin);
    for (let i = 0; i < depth; i++) out += mask & (1 << i) ? '|          ' : '           ';
    out += '\n';
    k.frames.forEach((f, n) => {
      out += pad(margin);
      for (let i = 0; i < depth; i++) {
        out += newMask & (1 << i) ? '|' : ' ';
        out += n === 0 && i === depth - 1 ? `--${pct(k.cumul, total)}--` : '          ';
      }
      out += `${f.name}\n`;
    });
    out += branches(k.kids, total, depth + 1, newMask | (1 << depth), margin);
  });
  return out;
}
