/**
 * `kernel.data(ADDR|"SYMBOL")[.length(N)].write|.rw`: hardware breakpoints on kernel data
 * (stap 4.8's hwbkpt_builder; the module's registration code as `stap -p3` generates it).
 *
 * Pass 2 (as real-stap -p2 prints it): the derived point always carries its length,
 * `.length(1)` when none is given; an address prints in hex (`kernel.data(0x1234)`); a symbol is
 * not looked up until the module starts, so any name resolves in pass 2; `-l` lists the point as
 * written.  There are no context variables (`$value` is unresolved).
 *
 * Run time: a symbol is looked up in kallsyms when the session starts; an unknown one gives
 * `WARNING: Probe PP registration skipped: invalid symbol SYM ` and the probe is skipped.  Then
 * register_wide_hw_breakpoint.  The simulated CPUs do not model debug registers (the machine
 * does not trace its own stores to kernel variables), so registration fails as on a kernel
 * without breakpoint support (-ENODEV): stap's warning for the probe, then its error, and the
 * session does not start.
 */
import type * as A from '../ast';
import type { BuildRequest, ProbeRegistry, Provider } from '../elaborate/probes';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import { kallsymsLookupName } from '../kernel/kallsyms';

const ENODEV = 19;

interface HwbkptData {
  /** the point as written, the address in hex: -p2's origin, -l's line and pn() */
  dumpOrigin: string;
  pn: string;
  symbol: string | null;
  address: bigint;
  length: number;
  rw: boolean;
}

function build(req: BuildRequest): A.ResolvedPoint[] {
  const cs = req.components;
  const arg = cs[1].arg!;
  const lenC = cs.find((c) => c.name === 'length');
  const length = lenC?.arg?.k === 'num' ? Number(lenC.arg.value) : 1;
  const rw = cs[cs.length - 1].name === 'rw';
  const symbol = arg.k === 'str' ? arg.value : null;
  const address = arg.k === 'num' ? BigInt.asUintN(64, BigInt(arg.value)) : 0n;
  const where = symbol !== null ? `"${symbol}"` : address === 0n ? '0' : `0x${address.toString(16)}`;
  const written = `kernel.data(${where})${lenC ? `.length(${length})` : ''}.${rw ? 'rw' : 'write'}`;
  const data: HwbkptData = { dumpOrigin: written, pn: written, symbol, address, length, rw };
  // (stap 4.8 takes address 0 for "no address": its pp then names neither, real-stap -p2)
  const what = symbol === null && address === 0n ? '' : `.data(${where})`;
  return [{
    family: 'kernel.data',
    pp: `kernel${what}.length(${length}).${rw ? 'rw' : 'write'}`,
    data: data as unknown as Record<string, unknown>,
  }];
}

const provider: Provider = { family: 'kernel.data', build };

/** Register stap 4.8's kernel.data patterns (--dump-probe-types of real-stap). */
export function registerHwbkpt(r: ProbeRegistry): void {
  for (const arg of ['number', 'string']) {
    for (const kind of ['write', 'rw']) r.register(`kernel.data(${arg}).${kind}`, provider);
  }
  for (const kind of ['write', 'rw']) r.register(`kernel.data(number).length(number).${kind}`, provider);
}

/** The kernel's %p of a non-NULL pointer is a per-boot hash: a fixed mix of the address here. */
function hashedPointer(a: bigint): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0n; i < 64n; i += 8n) h = BigInt.asUintN(64, (h ^ ((a >> i) & 0xffn)) * 0x100000001b3n);
  return (h >> 32n).toString(16).padStart(16, '0');
}

export class HwbkptFamily implements ProbeFamilyRuntime {
  family = 'kernel.data';

  register(probes: RegisteredProbe[], engine: Engine): void {
    let failed: { pp: string; rc: number } | null = null;
    for (const p of probes) {
      const d = p.meta.data as unknown as HwbkptData;
      if (d.symbol !== null && !kallsymsLookupName(d.symbol)) {
        engine.warn(`Probe ${p.meta.pp} registration skipped: invalid symbol ${d.symbol} `);
        continue;
      }
      const addr = d.symbol !== null ? '0000000000000000' : d.address === 0n ? '0000000000000000' : hashedPointer(d.address);
      engine.warn(`Hwbkpt probe ${p.meta.pp}: registration error [man warning::pass5] ${-ENODEV}, addr ${addr}, name ${d.symbol ?? '(null)'}`);
      failed = { pp: p.meta.pp, rc: -ENODEV };
    }
    if (failed) engine.failStart(`probe ${failed.pp} registration error [man warning::pass5] (rc ${failed.rc})`);
  }

  unregister(): void {
    // nothing was registered
  }
}
