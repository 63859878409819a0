/**
 * What every layer may use of the machine: the virtual clock, the one event queue, the PRNG and
 * the configuration.  The Machine class (src/machine/machine.ts, the top of the tree) implements
 * it; the layers below never import that class.  Each layer adds what it needs on top of this
 * interface: include/cpu.ts `CpuMachine` (the CPUs, interrupt entry), then one interface per
 * subsystem (`SchedMachine`, `MmMachine`, `FsMachine` ...) naming the subsystems it uses.
 */
import type { Prng } from './prng';
import type { QEvent } from './events';

export interface MachineCore {
  /** current virtual time, ns since boot */
  now: number;
  /** uptime at start, ns */
  readonly bootNs: number;
  /** timer interrupt rate (CONFIG_HZ) and its period in ns */
  readonly hz: number;
  readonly tickNs: number;
  readonly hostname: string;
  readonly ncpus: number;
  /** the only source of randomness in the simulation */
  readonly rand: Prng;
  /**
   * the choice among recorded variants of a kernel entry (paths/model.ts): a stream of its own, so
   * that what probes do never changes which variant runs
   */
  readonly pathRand: Prng;
  /** kernel function calls executed (mcount sites reached) */
  kcalls: number;
  /**
   * How many times slower than hardware the simulated CPUs execute (MachineOptions.cpuSlowdown):
   * the factor on the simulated time of CPU work, kernel functions (paths/kexec.ts fnCost), the
   * modelled copies and user-space compute. Timers, sleeps and devices keep real time.
   */
  readonly cpuSlowdown: number;
  /** Schedule `cb` at absolute virtual time `atNs`. Ties: `prio`, then FIFO. */
  schedule(atNs: number, cb: () => void, prio?: number): QEvent;
  /** Schedule relative to now. */
  after(ns: number, cb: () => void, prio?: number): QEvent;
  cancel(ev: QEvent | null): void;
}
