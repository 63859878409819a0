/**
 * The fidelity arithmetic (issue 14, part 4): how close a tapsim run of a workload is to its recording
 * on the real kernel. Pure functions over counts and sequences; bench/fidelity.ts runs them.
 */

/** Weighted Jaccard similarity of two count maps: sum of minima over sum of maxima (1 when both are empty). */
export function weightedJaccard(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let min = 0;
  let max = 0;
  for (const [k, x] of a) {
    const y = b.get(k) ?? 0;
    min += Math.min(x, y);
    max += Math.max(x, y);
  }
  for (const [k, y] of b) if (!a.has(k)) max += y;
  return max === 0 ? 1 : min / max;
}

/** Levenshtein distance of two sequences (insert, delete, substitute each cost 1), O(|a|·|b|) time, O(|b|) memory. */
export function editDistance<T>(a: readonly T[], b: readonly T[]): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ai = a[i - 1];
    for (let j = 1; j <= b.length; j++) {
      const sub = prev[j - 1] + (ai === b[j - 1] ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/** Normalized edit similarity: 1 - distance / max(|a|, |b|) (1 when both are empty). */
export function editSimilarity<T>(a: readonly T[], b: readonly T[]): number {
  const n = Math.max(a.length, b.length);
  return n === 0 ? 1 : 1 - editDistance(a, b) / n;
}

/** The side of a comparison: what one run (recorded or simulated) did. */
export interface FidelitySide {
  /** function name -> calls by the workload's tasks */
  functions: Map<string, number>;
  /** event name (no system: 'sched_switch', 'sys_enter_openat') -> events of the workload's tasks */
  events: Map<string, number>;
  /** syscall names in order (all workload tasks) */
  syscalls: string[];
  /** false for a recording made without its strace run (catalogue flag `nostrace`): no syscall sequence to compare */
  straced?: boolean;
  /**
   * the same per task, the tasks in the order they were created (the root first, then each task its
   * parent's fork/vfork/clone made, in the order of those calls)
   */
  tasks?: string[][];
}

export interface FidelityRow {
  functionJaccard: number;
  eventJaccard: number;
  /** NaN when the recording has no strace run */
  syscallSimilarity: number;
  distinct: { sim: number; real: number };
  calls: { sim: number; real: number };
  syscalls: { sim: number; real: number };
  pageFaults: { sim: number; real: number };
  /** the functions that differ most (real calls - simulated calls), for a reader who wants to raise the figure */
  missing: [string, number][];
  extra: [string, number][];
}

const sum = (m: ReadonlyMap<string, number>): number => { let s = 0; for (const v of m.values()) s += v; return s; };
const distinct = (m: ReadonlyMap<string, number>): number => { let n = 0; for (const v of m.values()) if (v > 0) n++; return n; };

/**
 * Functions that run only because a tracer attached to a tracepoint (`__traceiter_X` calls X's probes):
 * the recorder's own (pid filters probe sched_switch/sched_wakeup; the graph run enables the
 * sched_process_* events) and the simulated side's counting probes. Left out on both sides.
 */
export function isTracerArtifact(fn: string): boolean {
  return fn.startsWith('__traceiter_');
}

function withoutArtifacts(m: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of m) if (!isTracerArtifact(k)) out.set(k, v);
  return out;
}

/**
 * The syscall-sequence similarity of two runs: per task (the i-th task created on one side against the
 * i-th on the other), 1 - Σ Levenshtein / Σ longer length; without per-task sequences, of the merged
 * sequences.  Per task, because the merged order of tasks that run at the same time is timing, and
 * the real system does not agree with itself on it: the recording's strace run (ptrace stops every
 * task at each syscall, so two children on two CPUs alternate call by call) and its events run (no
 * ptrace) interleave fork-wait's, cow's and pipe's tasks with a merged similarity of 0.59-0.69
 * between themselves, while their per-task sequences agree at 0.97-1.0.
 */
export function syscallSimilarity(sim: FidelitySide, real: FidelitySide): number {
  if (real.straced === false || sim.straced === false) return NaN;
  if (!sim.tasks || !real.tasks) return editSimilarity(sim.syscalls, real.syscalls);
  let dist = 0, len = 0;
  for (let i = 0; i < Math.max(sim.tasks.length, real.tasks.length); i++) {
    const a = sim.tasks[i] ?? [], b = real.tasks[i] ?? [];
    dist += editDistance(a, b);
    len += Math.max(a.length, b.length);
  }
  return len === 0 ? 1 : 1 - dist / len;
}

/** Compare a simulated run with the real recording. */
export function compareSides(simSide: FidelitySide, realSide: FidelitySide, top = 10): FidelityRow {
  const sim = { ...simSide, functions: withoutArtifacts(simSide.functions) };
  const real = { ...realSide, functions: withoutArtifacts(realSide.functions) };
  const diff: [string, number][] = [];
  for (const [k, v] of real.functions) diff.push([k, v - (sim.functions.get(k) ?? 0)]);
  for (const [k, v] of sim.functions) if (!real.functions.has(k)) diff.push([k, -v]);
  diff.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  return {
    functionJaccard: weightedJaccard(sim.functions, real.functions),
    eventJaccard: weightedJaccard(sim.events, real.events),
    syscallSimilarity: syscallSimilarity(sim, real),
    distinct: { sim: distinct(sim.functions), real: distinct(real.functions) },
    calls: { sim: sum(sim.functions), real: sum(real.functions) },
    syscalls: { sim: sim.syscalls.length, real: real.syscalls.length },
    pageFaults: { sim: sim.functions.get('handle_mm_fault') ?? 0, real: real.functions.get('handle_mm_fault') ?? 0 },
    missing: diff.filter((d) => d[1] > 0).slice(0, top),
    extra: diff.filter((d) => d[1] < 0).reverse().slice(0, top).map(([k, v]) => [k, -v]),
  };
}
