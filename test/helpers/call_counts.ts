/** Counting the kernel functions the machine enters (its ftrace hook, every function) while `f` runs. */
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceHitFn, FTRACE_OPS_FL_INITIALIZED } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';

export function countCalls(f: () => void): Map<string, number> {
  const n = new Map<string, number>();
  const op = new FtraceOps('call_counts', () => { const k = symbolName(ftraceHitFn()); n.set(k, (n.get(k) ?? 0) + 1); }, FTRACE_OPS_FL_INITIALIZED, 'call_counts');
  registerFtraceFunction(op);
  try { f(); } finally { unregisterFtraceFunction(op); }
  return n;
}
