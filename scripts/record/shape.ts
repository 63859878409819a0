/**
 * Path shapes: a recorded call tree as a compact string over a recording's interned function ids
 * (FORMAT.md, "Shapes"):
 *
 *   shape := node (' ' node)*            a sequence of calls (the top-level calls of one kernel entry)
 *   node  := FN ['(' shape ')'] ['*' N]  function id FN, its callees, repeated N times in a row
 *          | '@' S ['*' N]               the recording's shape S ran here (an interrupt or a softirq)
 *          | '!' E ['*' N]               tracepoint event E fired here (event-table index; graph runs
 *                                        record only sched_process_fork/exec/exit)
 *
 * e.g. `12(34 56(7)*3 @5) 8` : 12 called 34, then 56 three times (each calling 7), then an interrupt
 * whose calls are shape 5; then 8.
 */

export type ShapeNode =
  | { kind: 'call'; fn: number; children: ShapeNode[]; repeat: number }
  | { kind: 'ref'; shape: number; repeat: number }
  | { kind: 'event'; event: number; repeat: number };

/** Join sibling tokens, folding runs of identical ones into `tok*N`. */
export function joinSiblings(tokens: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    let j = i + 1;
    while (j < tokens.length && tokens[j] === tokens[i]) j++;
    const n = j - i;
    out.push(n > 1 ? `${tokens[i]}*${n}` : tokens[i]);
    i = j;
  }
  return out.join(' ');
}

/** The token of one call with its callees' tokens. */
export function callToken(fn: number, children: string[]): string {
  return children.length ? `${fn}(${joinSiblings(children)})` : String(fn);
}

export class ShapeSyntaxError extends Error {}

/** Parse a shape string into its top-level nodes. */
export function parseShape(text: string): ShapeNode[] {
  let i = 0;
  const num = (): number => {
    const s = i;
    while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    if (s === i) throw new ShapeSyntaxError(`shape: number expected at ${s} in ${text.slice(0, 80)}`);
    return Number(text.slice(s, i));
  };
  const seq = (): ShapeNode[] => {
    const nodes: ShapeNode[] = [];
    for (;;) {
      let node: ShapeNode;
      const c = text[i];
      if (c === '@') { i++; node = { kind: 'ref', shape: num(), repeat: 1 }; }
      else if (c === '!') { i++; node = { kind: 'event', event: num(), repeat: 1 }; }
      else {
        const fn = num();
        let children: ShapeNode[] = [];
        if (text[i] === '(') {
          i++;
          children = seq();
          if (text[i] !== ')') throw new ShapeSyntaxError(`shape: ')' expected at ${i}`);
          i++;
        }
        node = { kind: 'call', fn, children, repeat: 1 };
      }
      if (text[i] === '*') { i++; node.repeat = num(); }
      nodes.push(node);
      if (text[i] !== ' ') return nodes;
      i++;
    }
  };
  if (text === '') return [];
  const nodes = seq();
  if (i !== text.length) throw new ShapeSyntaxError(`shape: unexpected '${text[i]}' at ${i}`);
  return nodes;
}

/**
 * Per-function call counts of one shape, `@` references expanded through `shapes` (an interrupt inside
 * a syscall counts where it ran), multiplied by `times`, added into `into` (indexed by function id).
 */
export function countShapeCalls(shapes: readonly string[], id: number, times: number, into: Map<number, number>,
  parsed: Map<number, ShapeNode[]> = new Map(), depth = 0): void {
  if (depth > 64) throw new ShapeSyntaxError(`shape: @ references nest deeper than 64 (cycle at ${id}?)`);
  let nodes = parsed.get(id);
  if (!nodes) { nodes = parseShape(shapes[id]); parsed.set(id, nodes); }
  const walk = (ns: ShapeNode[], k: number): void => {
    for (const n of ns) {
      const m = k * n.repeat;
      if (n.kind === 'call') { into.set(n.fn, (into.get(n.fn) ?? 0) + m); walk(n.children, m); }
      else if (n.kind === 'ref') countShapeCalls(shapes, n.shape, m, into, parsed, depth + 1);
    }
  };
  walk(nodes, times);
}

/** A shape with names for ids (for reading and tests): `x64_sys_call(__x64_sys_close) @3 !sched_process_exit`. */
export function shapeWithNames(text: string, functions: readonly string[], events: readonly string[] = []): string {
  return text.replace(/(^|[ (])([@!]?)(\d+)/g, (_m, pre: string, sigil: string, d: string) =>
    `${pre}${sigil}${sigil === '@' ? d : sigil === '!' ? (events[Number(d)] ?? d) : (functions[Number(d)] ?? d)}`);
}
