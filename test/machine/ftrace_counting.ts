/** Counting kernel function calls in machine tests (an ftrace ops filtered to the functions). */
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter, functionId } from '../../src/kernel/ftrace';
import { lookupAddr } from '../../src/kernel/kallsyms';

/** Count the calls of each of `fns` from now until `stop` (an ftrace ops named `name` filtered to them). */
export function counting(fns: string[], name = 'count'): { n: Map<string, number>; stop: () => void } {
  const n = new Map<string, number>(fns.map((f) => [f, 0]));
  const names = new Map<number, string>();
  for (const f of fns) names.set(functionId(f), f);
  const op = new FtraceOps(name, (ip) => {
    const f = names.get(lookupAddr(ip)!.id);
    if (f) n.set(f, n.get(f)! + 1);
  });
  for (const f of fns) ftraceSetFilter(op, f, false);
  registerFtraceFunction(op);
  return { n, stop: () => unregisterFtraceFunction(op) };
}
