/**
 * Call trees of the entry model (scripts/paths/generate.ts): a recorded shape (scripts/record/shape.ts,
 * per-recording function ids) turned into a tree over function names, the cuts that separate what the
 * machine decides from what the recording shows, and the entry model's own shape text over the model's
 * global function ids (format in src/machine/paths/model.ts).
 */
import { parseShape, ShapeNode, callToken } from '../record/shape';

/** A call with its callees, or a cut point the machine fills in at run time. */
export type TNode =
  | { kind: 'call'; fn: string; kids: TNode[]; rep: number }
  | { kind: 'mark'; mark: Mark; rep: number }
  | { kind: 'event'; event: string; rep: number };

/**
 * Cut points (src/machine/paths/model.ts compiles each to a hook):
 *   '^'  a schedule point: the body of schedule() ran here (the task slept); the machine decides
 *   '~'  a page fault on user memory taken in kernel mode (copy to/from user)
 *   '&'  pending softirqs ran here (handle_softirqs / __do_softirq)
 *   'w'  the body of try_to_wake_up: whom it wakes, and how, is the machine's
 *   'S'  (in schedule bodies) the context switch: the next task runs from here, finish_task_switch
 *        follows when this task runs again
 * and events ('!sched_process_exec'): the tracepoints the graph run enabled, where they fired.
 */
export type Mark = '^' | '~' | '&' | 'w' | 'S';

/**
 * A shape of a recording as a tree over names; `@` references are dropped, and the tracers' own calls
 * (`__traceiter_X`, which run only because the recorder probed X) with their callees.
 */
export function shapeTree(text: string, functions: readonly string[], events: readonly string[] = []): TNode[] {
  const conv = (ns: ShapeNode[]): TNode[] => {
    const out: TNode[] = [];
    for (const n of ns) {
      if (n.kind === 'call') {
        const fn = functions[n.fn];
        if (!fn.startsWith('__traceiter_')) out.push({ kind: 'call', fn, kids: conv(n.children), rep: n.repeat });
        // the event the tracer's call was for stays where it fired
        else for (const k of conv(n.children)) if (k.kind === 'event') out.push(k);
      } else if (n.kind === 'event' && events[n.event]) out.push({ kind: 'event', event: events[n.event], rep: n.repeat });
    }
    return refold(out);
  };
  return conv(parseShape(text));
}

/** The `@` references of a shape (ids of interrupt and softirq shapes), with their multiplicity. */
export function shapeRefs(text: string): Map<number, number> {
  const refs = new Map<number, number>();
  const walk = (ns: ShapeNode[], k: number): void => {
    for (const n of ns) {
      if (n.kind === 'ref') refs.set(n.shape, (refs.get(n.shape) ?? 0) + k * n.repeat);
      else if (n.kind === 'call') walk(n.children, k * n.repeat);
    }
  };
  walk(parseShape(text), 1);
  return refs;
}

/** Functions whose callees are the scheduler's __schedule (notrace, so its callees show under them). */
export const SCHEDULE_CALLERS = new Set(['schedule', 'do_task_dead', 'schedule_idle', 'preempt_schedule_common',
  'preempt_schedule', 'preempt_schedule_notrace', 'preempt_schedule_irq']);
/** Preemption points: they call __schedule only when a reschedule is due; the machine checks at each. */
export const PREEMPT_POINTS = new Set(['__cond_resched', 'preempt_schedule_common', 'preempt_schedule',
  'preempt_schedule_notrace', 'preempt_schedule_irq']);
/** Softirq processing (its callees are the softirq actions). */
export const SOFTIRQ_RUNNERS = new Set(['handle_softirqs', '__do_softirq']);

/** What the cuts of one tree took out, for the keys of their own. */
export interface Cuts {
  /** bodies of __schedule (the callees of schedule() & co.) and the function that called it */
  schedules: { body: TNode[]; caller: string }[];
  /** page faults taken in kernel mode (lock_mm_and_find_vma .. up_read) */
  faults: TNode[][];
  /** softirq runs: the callees of handle_softirqs */
  softirqs: TNode[][];
  /** bodies of try_to_wake_up and the function that called it */
  wakeups: { body: TNode[]; caller: string }[];
}

export function newCuts(): Cuts {
  return { schedules: [], faults: [], softirqs: [], wakeups: [] };
}

/** Index of the end (exclusive) of a page fault sequence starting at kids[i] (lock_mm_and_find_vma), or -1. */
export function faultEnd(kids: readonly TNode[], i: number): number {
  const a = kids[i];
  if (a.kind !== 'call' || (a.fn !== 'lock_mm_and_find_vma' && a.fn !== 'do_user_addr_fault')) return -1;
  let j = i + 1;
  // lock_mm_and_find_vma handle_mm_fault [up_read] ; an error fault: lock_mm_and_find_vma bad_area_nosemaphore ...
  while (j < kids.length) {
    const k = kids[j];
    if (k.kind !== 'call') break;
    j++;
    if (k.fn === 'up_read' || k.fn === 'mmap_read_unlock') break;
    if (k.fn !== 'handle_mm_fault' && k.fn !== 'bad_area_nosemaphore' && k.fn !== 'bad_area' && k.fn !== 'fault_signal_pending' &&
      k.fn !== 'mm_account_fault' && k.fn !== '__bad_area_nosemaphore') { j--; break; }
  }
  return j;
}

/**
 * Cut what the machine decides out of a tree (recursively): __schedule bodies become '^' inside their
 * caller (at preemption points the callee list is dropped: the machine checks need_resched at every
 * one), kernel-mode faults become '~', softirq runs become '&'.  The cut parts go to `cuts`.
 */
export function cutTree(nodes: readonly TNode[], cuts: Cuts, top = false, caller = ''): TNode[] {
  const out: TNode[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (n.kind !== 'call') { out.push(n); continue; }
    if (!top) {
      const e = faultEnd(nodes, i);
      if (e > i + 1) {
        const seq = nodes.slice(i, e).map((x) => cutOne(x, cuts, caller));
        for (let r = 0; r < (n.rep || 1); r++) cuts.faults.push(seq);
        out.push({ kind: 'mark', mark: '~', rep: 1 });
        i = e - 1;
        continue;
      }
    }
    if (SOFTIRQ_RUNNERS.has(n.fn)) {
      const kids = cutTree(n.kids, cuts);
      for (let r = 0; r < n.rep; r++) cuts.softirqs.push(kids);
      out.push({ kind: 'mark', mark: '&', rep: 1 });
      continue;
    }
    out.push(cutOne(n, cuts, caller));
  }
  return refold(out);
}

function cutOne(n: TNode, cuts: Cuts, caller = ''): TNode {
  if (n.kind !== 'call') return n;
  if (n.fn === 'try_to_wake_up') {
    const body = cutTree(n.kids, cuts);
    for (let r = 0; r < n.rep; r++) cuts.wakeups.push({ body, caller });
    return { kind: 'call', fn: n.fn, kids: [{ kind: 'mark', mark: 'w', rep: 1 }], rep: n.rep };
  }
  if (SCHEDULE_CALLERS.has(n.fn) || n.fn === '__cond_resched') {
    if (n.kids.length) {
      const body = cutTree(n.kids, cuts);
      for (let r = 0; r < n.rep; r++) cuts.schedules.push({ body, caller: n.fn });
    }
    if (PREEMPT_POINTS.has(n.fn)) return { kind: 'call', fn: n.fn, kids: [], rep: n.rep };
    return { kind: 'call', fn: n.fn, kids: n.kids.length ? [{ kind: 'mark', mark: '^', rep: 1 }] : [], rep: n.rep };
  }
  return { kind: 'call', fn: n.fn, kids: cutTree(n.kids, cuts, false, n.fn), rep: n.rep };
}

/** A schedule body with its switch point marked (before finish_task_switch; none when it did not switch). */
export function markSwitch(body: readonly TNode[]): TNode[] {
  const i = body.findIndex((n) => n.kind === 'call' && n.fn.startsWith('finish_task_switch'));
  if (i < 0) return [...body];
  return [...body.slice(0, i), { kind: 'mark', mark: 'S', rep: 1 }, ...body.slice(i)];
}

/** Merge runs of identical siblings into one node with a repeat count. */
export function refold(nodes: TNode[]): TNode[] {
  const out: TNode[] = [];
  let prevKey = '';
  for (const n of nodes) {
    const key = treeKey([{ ...n, rep: 1 } as TNode]);
    const last = out[out.length - 1];
    if (last && key === prevKey) { last.rep += n.rep; continue; }
    out.push({ ...n });
    prevKey = key;
  }
  return out;
}

/** A tree's text over names (identity of trees; also readable). */
export function treeKey(nodes: readonly TNode[]): string {
  return nodes.map((n) => {
    const base = n.kind === 'mark' ? n.mark : n.kind === 'event' ? `!${n.event}` : n.kids.length ? `${n.fn}(${treeKey(n.kids)})` : n.fn;
    return n.rep > 1 ? `${base}*${n.rep}` : base;
  }).join(' ');
}

/** Interned function names of the model: name -> global id. */
export class Names {
  readonly list: string[] = [];
  private idx = new Map<string, number>();
  id(name: string): number {
    let i = this.idx.get(name);
    if (i === undefined) { i = this.list.length; this.list.push(name); this.idx.set(name, i); }
    return i;
  }
}

/** A tree as the model's shape text over global ids (node := ID ['(' seq ')'] ['*' N] | mark ['*' N]). */
export function modelShape(nodes: readonly TNode[], names: Names): string {
  const toks = nodes.map((n) => {
    if (n.kind === 'mark') return n.rep > 1 ? `${n.mark}*${n.rep}` : n.mark;
    if (n.kind === 'event') return n.rep > 1 ? `!${n.event}*${n.rep}` : `!${n.event}`;
    const t = callToken(names.id(n.fn), n.kids.length ? [modelShape(n.kids, names)] : []);
    return n.rep > 1 ? `${t}*${n.rep}` : t;
  });
  return toks.join(' ');
}

/** Calls of function `fn` in a tree (repeats multiplied). */
export function countCalls(nodes: readonly TNode[], fn: string): number {
  let n = 0;
  for (const x of nodes) if (x.kind === 'call') n += x.rep * ((x.fn === fn ? 1 : 0) + countCalls(x.kids, fn));
  return n;
}
