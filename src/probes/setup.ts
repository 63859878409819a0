/**
 * Wiring of the kernel probe layer (issue 6).
 *
 *   installKernelProbes()   // once, before elaboration: providers, $var codegen, builtins
 *   kernelFamilies()        // RunOptions.families for runProgram(): the runtime families
 *
 * Nothing of a family is loaded before a script uses it (a begin-only script loads none):
 * - elaborate side: FAMILIES below, root name -> loader, registered with the probe registry
 *   (src/elaborate/probes.ts), which runs a loader when a probe point first names one of its
 *   roots: kernel.function/module().function/kernel.statement/kprobe.*, kernel.trace and
 *   kernel.data, procfs, netfilter, perf, process.  The kernel-free providers (begin, end,
 *   timer...) and every loaded one are given a targetType/targetDefined that resolve
 *   `@cast`/`@var` (which need no probe context);
 * - translate side: setTargetCodegen(compileTarget ...), loading the target code when a script
 *   has a target expression;
 * - runtime: the builtins of context.ts and library_builtins.ts are added to the runtime builtin
 *   table when a lookup first misses there; kernelFamilies() are stand-ins that load their
 *   family's module when the engine registers probes with it.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { addProviderSetup, type ProbeRegistry, type Provider } from '../elaborate/probes';
import { setTargetCodegen, setTargetAssignCodegen } from '../translate';
import { builtins, addLazyBuiltins } from '../runtime/builtins';
import type { ProbeFamilyRuntime } from '../runtime/engine';
import type { Long } from '../runtime/int64';

type Targets = typeof import('./targets');
type Procfs = typeof import('./procfs');
type Netfilter = typeof import('./netfilter');
const targets = (): Targets => require('./targets') as Targets;
const procfs = (): Procfs => require('./procfs') as Procfs;
const netfilter = (): Netfilter => require('./netfilter') as Netfilter;

let installed = false;

function castOnly(rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast): A.Type | SemanticError {
  if (e.k !== 'cast' && e.k !== 'atvar' && e.k !== 'autocast') {
    return new SemanticError('unresolved target-symbol expression', e.tok, [], 'unresolved-target');
  }
  const p = targets().planFor(rp, e);
  return p instanceof SemanticError ? p : p.type;
}

/** A provider without its own target typing gets castOnly's. */
function patchProvider(p: Provider): void {
  if (p.targetType) return;
  p.targetType = castOnly;
  p.targetDefined = (rp, e) => !(castOnly(rp, e) instanceof SemanticError);
  p.targetPointee = (rp, e) => (castOnly(rp, e) instanceof SemanticError ? undefined : targets().targetPointee(rp, e));
}

/** Run `register`, then give the providers it registered castOnly's typing where they have none. */
function withCastOnly(r: ProbeRegistry, register: () => void): void {
  const before = r.providers().length;
  register();
  for (const p of r.providers().slice(before)) patchProvider(p);
}

/** kernel.mark points: the kernel has no static markers, so each resolves to nothing. */
const NO_MARKERS: Provider = { family: 'kernel.mark', build: () => [] };

/**
 * The probe families by root name: each loader registers its family's patterns when a probe
 * point first names one of its roots (src/elaborate/probes.ts, ProbeRegistry.addFamily).
 * (The kernel.function, kprobe and kernel.trace providers type their targets themselves.)
 */
const FAMILIES: { roots: string[]; load: (r: ProbeRegistry) => void }[] = [
  // procfs("PATH").read/.write (procfs.ts): its own $value typing
  { roots: ['procfs'], load: (r) => withCastOnly(r, () => procfs().registerProcfs(r)) },
  // netfilter.hook(..).pf(..) (netfilter.ts): $verdict, parameters
  { roots: ['netfilter'], load: (r) => withCastOnly(r, () => netfilter().registerNetfilter(r)) },
  // perf.type(N).config(M)[.sample(N)|.hz(N)] (perf.ts)
  { roots: ['perf'], load: (r) => withCastOnly(r, () => (require('./perf') as typeof import('./perf')).registerPerf(r)) },
  // process(...).* (process.ts): .begin/.end/.thread.* (task_finder.ts); user space is not modelled yet
  { roots: ['process'], load: (r) => withCastOnly(r, () => (require('./process') as typeof import('./process')).registerProcess(r, castOnly)) },
  {
    roots: ['kernel', 'module', 'kprobe'],
    load: (r) => {
      // kernel.data(...).write|.rw (hwbkpt.ts): hardware breakpoints
      withCastOnly(r, () => (require('./hwbkpt') as typeof import('./hwbkpt')).registerHwbkpt(r));
      // kernel.function/module().function/kernel.statement/kprobe.* (kernel_function.ts);
      // kernel.statement("F@FILE:N") / "F@FILE+N" resolve with line records, and
      // .callee/.callees/.label (kernel_scopes.ts)
      const { FUNCTION_PATTERNS, kernelFunctionProvider } = require('./kernel_function') as typeof import('./kernel_function');
      const { scopePatterns, withStatementLines } = require('./kernel_scopes') as typeof import('./kernel_scopes');
      for (const [pattern, prov] of FUNCTION_PATTERNS) r.register(pattern, pattern.startsWith('kernel.statement(string)') ? withStatementLines(prov) : prov);
      for (const [pattern, prov] of scopePatterns(kernelFunctionProvider)) r.register(pattern, prov);
      // kernel.trace("[SYS:]EVENT") (tracepoint.ts)
      r.register('kernel.trace(string)', (require('./tracepoint') as typeof import('./tracepoint')).tracepointProvider);
      // kernel.mark("NAME")[.format("FMT")]: static markers left Linux in 2.6.32, and stap 4.8
      // still registers the family but finds none (real-stap: `no match`)
      r.register('kernel.mark(string)', NO_MARKERS);
      r.register('kernel.mark(string).format(string)', NO_MARKERS);
    },
  },
];

/** The kernel-context and tapset-library builtins (context.ts, library_builtins.ts). */
function loadBuiltins(): void {
  const { kernelBuiltins } = require('./context') as typeof import('./context');
  for (const [k, f] of Object.entries(kernelBuiltins)) builtins[k] = f;
  const { writeTarget } = require('./target_eval') as typeof import('./target_eval');
  builtins.__tvset = (c, plan, v, ...rest) => writeTarget(c, plan as import('./targets').Plan, v as Long, ...rest) as Long;
  (require('./library_builtins') as typeof import('./library_builtins')).installLibraryBuiltins(builtins); // stdlib/aux_syscalls.stp, floatingpoint.stp, ...
}

export function installKernelProbes(): void {
  if (installed) return;
  installed = true;
  addProviderSetup((r) => {
    // (the providers registered so far: the kernel-free ones)
    for (const p of r.providers()) patchProvider(p);
    for (const f of FAMILIES) r.addFamily(f);
  });
  setTargetCodegen((e, api) => procfs().compileProcfsTarget(e, api) ?? netfilter().compileNetfilterTarget(e, api) ?? targets().compileTarget(e, api));
  setTargetAssignCodegen((e, api) => procfs().compileProcfsAssign(e, api) ?? netfilter().compileNetfilterAssign(e, api) ?? targets().compileTargetAssign(e, api));
  // context.ts's pexecname (the parent task's comm) replaces the kernel-free table's guess
  delete builtins.pexecname;
  addLazyBuiltins(loadBuiltins);
}

/** A runtime family whose module is loaded when the engine first registers probes with it. */
function lazyFamily(family: string, make: () => ProbeFamilyRuntime): ProbeFamilyRuntime {
  let real: ProbeFamilyRuntime | undefined;
  return {
    family,
    register: (probes, engine) => (real ??= make()).register(probes, engine),
    unregister: () => real?.unregister(),
  };
}

/** Fresh runtime families for one run (pass as RunOptions.families). */
export function kernelFamilies(): ProbeFamilyRuntime[] {
  type KF = typeof import('./kernel_function');
  return [
    lazyFamily('kernel.function', () => new (require('./kernel_function') as KF).KernelFunctionFamily('kernel.function')),
    lazyFamily('kprobe', () => new (require('./kernel_function') as KF).KernelFunctionFamily('kprobe')),
    lazyFamily('kernel.trace', () => new (require('./tracepoint') as typeof import('./tracepoint')).TracepointFamily()),
    lazyFamily('procfs', () => new (procfs().ProcfsFamily)()),
    lazyFamily('netfilter', () => new (netfilter().NetfilterFamily)()),
    lazyFamily('perf', () => new (require('./perf') as typeof import('./perf')).PerfFamily()),
    lazyFamily('kernel.data', () => new (require('./hwbkpt') as typeof import('./hwbkpt')).HwbkptFamily()),
    lazyFamily('process', () => new (require('./task_finder') as typeof import('./task_finder')).TaskFinderFamily()),
  ];
}
