/**
 * The function graph infrastructure (kernel/trace/fgraph.c of Linux 6.1): one graph user at a
 * time (register_ftrace_graph() returns -EBUSY while one is registered), entered from the fentry
 * site through graph_ops (FTRACE_OPS_FL_PID, the global ops' filter hashes: set_ftrace_filter /
 * set_ftrace_notrace of the top trace instance), with the per-task return stack
 * (FTRACE_RETFUNC_DEPTH entries, trace_overrun counted when it is full) and the return hook
 * recording calltime/rettime from the trace clock.
 *
 * Users: the function_graph tracer (tracefs/trace_functions_graph.ts) and the function
 * profiler (ftrace_profile.ts).
 */
import { CpuContext, taskState } from './current';
import { EBUSY } from './errno';
import {
  FtraceOps, FTRACE_OPS_FL_INITIALIZED, FTRACE_OPS_FL_PID, FTRACE_OPS_FL_STUB, FTRACE_RETFUNC_DEPTH,
  registerFtraceFunction, unregisterFtraceFunction, pushReturnHook, ftraceHitFn,
} from './ftrace';

/** struct ftrace_graph_ent */
export interface GraphEnt { func: number; depth: number }
/** struct ftrace_graph_ret */
export interface GraphRet { func: number; depth: number; calltime: number; rettime: number; overrun: number }

/** struct fgraph_ops: entryfunc returns false to not trace this call (and its return). */
export interface FgraphOps {
  entryfunc(e: GraphEnt, ctx: CpuContext): boolean;
  retfunc(r: GraphRet, ctx: CpuContext): void;
}

let active: { gops: FgraphOps; op: FtraceOps } | null = null;

/**
 * register_ftrace_graph(): 0, or -EBUSY when a graph user is registered. `hashes` is the ops
 * whose filter/notrace hashes graph_ops shares (global_ops: set_ftrace_filter); `clock` is the
 * trace clock (ns) for calltime/rettime.
 */
export function registerFtraceGraph(gops: FgraphOps, clock: () => number, hashes?: { filterHash: Set<number>; notraceHash: Set<number> }): number {
  if (active) return -EBUSY;
  const op = new FtraceOps('graph_ops', (ip, _parentIp, _op, _regs, ctx) => {
    const ts = taskState(ctx.task);
    // function_graph_enter(): trace.depth = ++current->curr_ret_depth
    const depth = ts.graphDepth + 1;
    if (depth >= FTRACE_RETFUNC_DEPTH - 1) { ts.graphOverrun++; return; }
    const ent: GraphEnt = { func: ip, depth };
    ts.graphDepth = depth;
    if (!gops.entryfunc(ent, ctx)) { ts.graphDepth = depth - 1; return; }
    const calltime = clock();
    pushReturnHook(ctx, {
      fn: ftraceHitFn(),
      run: (_regs, c) => {
        ts.graphDepth = depth - 1;
        gops.retfunc({ func: ip, depth, calltime, rettime: clock(), overrun: ts.graphOverrun }, c);
      },
    });
  }, FTRACE_OPS_FL_PID | FTRACE_OPS_FL_INITIALIZED | FTRACE_OPS_FL_STUB, 'ftrace_graph_func', hashes);
  const r = registerFtraceFunction(op);
  if (r < 0) return r;
  active = { gops, op };
  return 0;
}

/** unregister_ftrace_graph() of the registered user (no-op for another). */
export function unregisterFtraceGraph(gops: FgraphOps): void {
  if (!active || active.gops !== gops) return;
  unregisterFtraceFunction(active.op);
  active = null;
}

/** The registered graph user, if any. */
export function ftraceGraphUser(): FgraphOps | null {
  return active ? active.gops : null;
}

/** Forget the graph user (tests / new session; the ops list is reset by resetFtrace()). */
export function resetFgraph(): void {
  active = null;
}
