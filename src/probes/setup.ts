/**
 * Wiring of the kernel probe layer (issue 6).
 *
 *   installKernelProbes()   // once, before elaboration: providers, $var codegen, builtins
 *   kernelFamilies()        // RunOptions.families for runProgram(): the runtime families
 *
 * Elaborate side: kernel.function/module().function/kernel.statement, kprobe.*, kernel.trace
 * providers and procfs (src/elaborate/probes.ts registry); the kernel-free providers (begin, end, timer...)
 * are given a targetType/targetDefined that resolve `@cast`/`@var` (which need no probe context).
 * Translate side: setTargetCodegen(compileTarget).  Runtime: the builtins of context.ts are
 * added to the runtime builtin table.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { addProviderSetup, ProbeRegistry, MatchNode } from '../elaborate/probes';
import { setTargetCodegen, setTargetAssignCodegen } from '../translate';
import { builtins } from '../runtime/builtins';
import type { ProbeFamilyRuntime } from '../runtime/engine';
import { FUNCTION_PATTERNS, KernelFunctionFamily, kernelFunctionProvider } from './kernel_function';
import { scopePatterns, withStatementLines } from './kernel_scopes';
import { tracepointProvider, TracepointFamily } from './tracepoint';
import { registerPerf, PerfFamily } from './perf';
import { compileTarget, compileTargetAssign, planFor, targetPointee, type Plan } from './targets';
import { writeTarget } from './target_eval';
import type { Long } from '../runtime/int64';
import { kernelBuiltins } from './context';
import { registerProcfs, compileProcfsTarget, compileProcfsAssign, ProcfsFamily } from './procfs';
import { registerNetfilter, compileNetfilterTarget, compileNetfilterAssign, NetfilterFamily } from './netfilter';
import { registerProcess } from './process';
import { registerHwbkpt, HwbkptFamily } from './hwbkpt';
import { TaskFinderFamily } from './task_finder';

let installed = false;

function castOnly(rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast): A.Type | SemanticError {
  if (e.k !== 'cast' && e.k !== 'atvar' && e.k !== 'autocast') {
    return new SemanticError('unresolved target-symbol expression', e.tok, [], 'unresolved-target');
  }
  const p = planFor(rp, e);
  return p instanceof SemanticError ? p : p.type;
}

function patchProviders(r: ProbeRegistry): void {
  const visit = (n: MatchNode): void => {
    const p = n.provider;
    if (p && !p.targetType) {
      p.targetType = castOnly;
      p.targetDefined = (rp, e) => !(castOnly(rp, e) instanceof SemanticError);
      p.targetPointee = (rp, e) => (castOnly(rp, e) instanceof SemanticError ? undefined : targetPointee(rp, e));
    }
    for (const c of n.children.values()) visit(c);
  };
  visit(r.root);
}

export function installKernelProbes(): void {
  if (installed) return;
  installed = true;
  addProviderSetup((r) => {
    registerProcfs(r); // procfs("PATH").read/.write (src/probes/procfs.ts): its own $value typing
    registerNetfilter(r); // netfilter.hook(..).pf(..) (src/probes/netfilter.ts): $verdict, parameters
    registerPerf(r); // perf.type(N).config(M)[.sample(N)|.hz(N)] (src/probes/perf.ts)
    registerProcess(r, castOnly); // process(...).* (src/probes/process.ts): .begin/.end/.thread.* (task_finder.ts); user space is not modelled yet
    registerHwbkpt(r); // kernel.data(...).write|.rw (src/probes/hwbkpt.ts): hardware breakpoints
    patchProviders(r);
    // kernel.statement("F@FILE:N") / "F@FILE+N" resolve with line records (src/probes/kernel_scopes.ts)
    for (const [pattern, prov] of FUNCTION_PATTERNS) r.register(pattern, pattern.startsWith('kernel.statement(string)') ? withStatementLines(prov) : prov);
    for (const [pattern, prov] of scopePatterns(kernelFunctionProvider)) r.register(pattern, prov); // .callee/.callees/.label
    r.register('kernel.trace(string)', tracepointProvider);
  });
  setTargetCodegen((e, api) => compileProcfsTarget(e, api) ?? compileNetfilterTarget(e, api) ?? compileTarget(e, api));
  setTargetAssignCodegen((e, api) => compileProcfsAssign(e, api) ?? compileNetfilterAssign(e, api) ?? compileTargetAssign(e, api));
  for (const [k, f] of Object.entries(kernelBuiltins)) builtins[k] = f;
  builtins.__tvset = (c, plan, v, ...rest) => writeTarget(c, plan as Plan, v as Long, ...rest) as Long;
  require('./library_builtins').installLibraryBuiltins(builtins); // tapset-library builtins (stdlib/aux_syscalls.stp, floatingpoint.stp, ...)
}

/** Fresh runtime families for one run (pass as RunOptions.families). */
export function kernelFamilies(): ProbeFamilyRuntime[] {
  return [
    new KernelFunctionFamily('kernel.function'),
    new KernelFunctionFamily('kprobe'),
    new TracepointFamily(),
    new ProcfsFamily(),
    new NetfilterFamily(),
    new PerfFamily(),
    new HwbkptFamily(),
    new TaskFinderFamily(),
  ];
}
