/**
 * Walks of the call graph without recursion: a script may chain thousands of functions
 * (f0 calls f1 calls f2 ...), far deeper than the JavaScript stack, so reachability, transitive
 * properties and the longest call chain are computed with explicit stacks.
 */
import type * as A from '../ast';

/**
 * Depth-first over the graph from `roots`, pre-order: `visit` is called once per function, in the
 * order a recursive walk would reach it (successors in the order `succ` lists them).
 */
export function preorder(roots: Iterable<A.FunctionDecl>, succ: (f: A.FunctionDecl) => A.FunctionDecl[],
  visit: (f: A.FunctionDecl) => void, seen = new Set<A.FunctionDecl>()): void {
  const stack: { list: A.FunctionDecl[]; i: number }[] = [];
  const enter = (f: A.FunctionDecl): void => {
    if (seen.has(f)) return;
    seen.add(f);
    visit(f);
    stack.push({ list: succ(f), i: 0 });
  };
  for (const r of roots) {
    enter(r);
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.i < top.list.length) enter(top.list[top.i++]);
      else stack.pop();
    }
  }
}

/** Every function reachable from `f` (f included). */
export function reachableFrom(f: A.FunctionDecl, succ: (f: A.FunctionDecl) => A.FunctionDecl[]): A.FunctionDecl[] {
  const out: A.FunctionDecl[] = [];
  preorder([f], succ, (g) => out.push(g));
  return out;
}

/**
 * The longest call chain below `roots`, as a recursive depth-first walk with memoised depths
 * counts it: a function's depth is one more than its deepest callee's; a call back into a
 * function still being walked counts 0 and marks the graph recursive.
 */
export function longestChain(roots: Iterable<A.FunctionDecl>, succ: (f: A.FunctionDecl) => Iterable<A.FunctionDecl>,
  memo = new Map<A.FunctionDecl, number>()): { depth: number; recursive: boolean } {
  let recursive = false;
  const onStack = new Set<A.FunctionDecl>();
  let deepest = 0;
  for (const root of roots) {
    let d = memo.get(root);
    if (d === undefined) {
      const stack: { f: A.FunctionDecl; it: Iterator<A.FunctionDecl>; d: number }[] = [];
      onStack.add(root);
      stack.push({ f: root, it: succ(root)[Symbol.iterator](), d: 0 });
      while (stack.length) {
        const top = stack[stack.length - 1];
        const n = top.it.next();
        if (n.done) {
          stack.pop();
          onStack.delete(top.f);
          memo.set(top.f, top.d + 1);
          if (stack.length) stack[stack.length - 1].d = Math.max(stack[stack.length - 1].d, top.d + 1);
          continue;
        }
        const g = n.value;
        const m = memo.get(g);
        if (m !== undefined) top.d = Math.max(top.d, m);
        else if (onStack.has(g)) recursive = true;
        else {
          onStack.add(g);
          stack.push({ f: g, it: succ(g)[Symbol.iterator](), d: 0 });
        }
      }
      d = memo.get(root)!;
    }
    deepest = Math.max(deepest, d);
  }
  return { depth: deepest, recursive };
}
