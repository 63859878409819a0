/**
 * User-space probe points (`process("PATH"|PID).function("f")`, `.mark("m")`, `.syscall`,
 * `.library("L")...`, `.plt`, `.insn` ...): every pattern stap 4.8 registers
 * (`stap --dump-probe-types`), so a script names them as it would on a real system and they
 * list in --dump-probe-types, but the simulated machine does not model user space (programs'
 * code, ELF/DWARF, uprobes) yet: resolving one is a semantic error that says so, in stap's
 * format (`semantic error: while resolving probe point: identifier 'process' at ...` then the
 * reason).  The task-finder events `.begin`, `.end`, `.thread.begin`, `.thread.end` are kernel-side
 * and work over the machine's processes (src/probes/task_finder.ts).  The unspecified `process.*` checks (-c/-x) of src/elaborate/process_target.ts
 * come first, as in stap.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { ProbeRegistry, Provider } from '../elaborate/probes';
import { taskFinderProvider } from './task_finder';

const notModelled: Provider = {
  family: 'process',
  build() {
    throw new SemanticError('process probes are not available: tapsim does not model user space yet (program code, ELF/DWARF and uprobes)',
      undefined, [], 'process-not-modelled');
  },
};

/** `process.library("L")...` and `process("PATH").library("L")...`. */
const LIBRARY = [
  'function(number)', 'function(number).call', 'function(number).exported', 'function(number).return',
  'function(string)', 'function(string).call', 'function(string).callee(string)', 'function(string).callee(string).call',
  'function(string).callee(string).return', 'function(string).callees', 'function(string).callees(number)',
  'function(string).exported', 'function(string).inline', 'function(string).label(string)', 'function(string).return',
  'mark(string)', 'plt', 'plt(string)', 'plt(string).return', 'plt.return', 'provider(string).mark(string)',
  'statement(number)', 'statement(number).nearest', 'statement(string)', 'statement(string).nearest',
];

/** The task finder's events (modelled) after `process`, `process("PATH")` and `process(PID)`. */
const EVENTS = ['begin', 'end', 'thread.begin', 'thread.end'];
/** Suffixes after all three roots: the syscall events and the library ones. */
const COMMON = ['syscall', 'syscall.return', ...LIBRARY];

/** `castOnly`: the @cast/@var typing that needs no probe context (setup.ts). */
export function registerProcess(r: ProbeRegistry,
  castOnly: (rp: A.ResolvedPoint, e: A.Target | A.Cast | A.AtVar | A.Autocast) => A.Type | SemanticError): void {
  const finder = taskFinderProvider(castOnly);
  for (const root of ['process', 'process(string)', 'process(number)']) {
    for (const s of EVENTS) r.register(`${root}.${s}`, finder);
    for (const s of COMMON) r.register(`${root}.${s}`, notModelled);
  }
  for (const root of ['process', 'process(string)']) {
    for (const s of LIBRARY) r.register(`${root}.library(string).${s}`, notModelled);
  }
  for (const root of ['process(string)', 'process(number)']) {
    r.register(`${root}.insn`, notModelled);
    r.register(`${root}.insn.block`, notModelled);
  }
  r.register('process(number).statement(number).absolute', notModelled);
  r.register('process(number).statement(number).absolute.return', notModelled);
}
