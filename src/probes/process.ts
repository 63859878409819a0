/**
 * User-space probe points (`process("PATH"|PID).begin`, `.function("f")`, `.mark("m")`,
 * `.library("L")...`, `.plt`, `.insn` ...): every pattern stap 4.8 registers
 * (`stap --dump-probe-types`), so a script names them as it would on a real system and they
 * list in --dump-probe-types, but the simulated machine does not model user space (programs'
 * code, ELF/DWARF, uprobes) yet: resolving one is a semantic error that says so, in stap's
 * format (`semantic error: while resolving probe point: identifier 'process' at ...` then the
 * reason).  The unspecified `process.*` checks (-c/-x) of src/elaborate/process_target.ts
 * come first, as in stap.
 */
import { SemanticError } from '../diag';
import type { ProbeRegistry, Provider } from '../elaborate/probes';

const notModelled: Provider = {
  family: 'process',
  build() {
    throw new SemanticError('process probes are not available: tapsim does not model user space yet (program code, ELF/DWARF and uprobes)',
      undefined, [], 'process-not-modelled');
  },
};

/** Code points of a program or library (`process("PATH").library("L")...` too). */
const CODE = [
  'function(number)', 'function(number).call', 'function(number).exported', 'function(number).return',
  'function(string)', 'function(string).call', 'function(string).callee(string)', 'function(string).callee(string).call',
  'function(string).callee(string).return', 'function(string).callees', 'function(string).callees(number)',
  'function(string).exported', 'function(string).inline', 'function(string).label(string)', 'function(string).return',
  'mark(string)', 'plt', 'plt(string)', 'plt(string).return', 'plt.return', 'provider(string).mark(string)',
  'statement(number)', 'statement(number).nearest', 'statement(string)', 'statement(string).nearest',
];

/** Suffixes after `process`, `process("PATH")` and `process(PID)` (all three roots). */
const COMMON = ['begin', 'end', 'thread.begin', 'thread.end', 'syscall', 'syscall.return', ...CODE];

export function registerProcess(r: ProbeRegistry): void {
  for (const root of ['process', 'process(string)', 'process(number)']) {
    for (const s of COMMON) r.register(`${root}.${s}`, notModelled);
  }
  for (const root of ['process', 'process(string)']) {
    for (const s of CODE) r.register(`${root}.library(string).${s}`, notModelled);
  }
  for (const root of ['process(string)', 'process(number)']) {
    r.register(`${root}.insn`, notModelled);
    r.register(`${root}.insn.block`, notModelled);
  }
  r.register('process(number).statement(number).absolute', notModelled);
  r.register('process(number).statement(number).absolute.return', notModelled);
}
