/**
 * The end of a run (process/session.ts): a `tapsim shell -c` shell's exit_group ends the run at the
 * call when nothing can see the exit, and runs the whole exit when something can (a probe in the
 * kernel, a process still holding the terminal).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { Process } from '../../src/machine/include/sched';
import { endRunAtExit, kernelUnobserved } from '../../src/machine/process/session';
import { useRecordedShell } from '../../src/machine/userland/service_mm';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';

interface Run { out: string; p: Process; kcalls: number }

function runShell(cmd: string, before?: () => void): Run {
  const m = new Machine({ seed: 1 });
  let out = '';
  const p = m.procs.spawnShellArgv(['sh', '-c', cmd], (s) => { out += s; }, (s) => { out += s; });
  useRecordedShell(m, p);
  endRunAtExit(m, p);
  before?.();
  const k0 = m.kcalls;
  m.runUntil(() => p.exited || p.runEnd !== null, 60e9);
  return { out, p, kcalls: m.kcalls - k0 };
}

describe('machine: the end of a run (the session leader\'s exit)', () => {
  it('nothing attached: the run ends at exit_group with its status, before the exit\'s kernel work', () => {
    expect(kernelUnobserved()).to.equal(true);
    const r = runShell('echo hi; exit 3');
    expect(r.out).to.equal('hi\n');
    expect(r.p.runEnd).to.equal(3);
    expect(r.p.exited).to.equal(false);
    // the exit's teardown of the shell's address space is thousands of calls; none ran
    expect(r.kcalls).to.be.below(3000);
  });

  it('a tracepoint with a probe sees the exit: it runs whole (sched_process_exit fires)', () => {
    const seen: string[] = [];
    const probe = (_d: unknown, t: unknown): void => { seen.push((t as { comm: string }).comm); };
    try {
      const r = runShell('exit 5', () => tracepointProbeRegister('sched_process_exit', probe, null));
      expect(r.p.exited).to.equal(true);
      expect(r.p.runEnd).to.equal(null);
      expect(r.p.exitCode).to.equal(5);
      expect(seen).to.include('sh');
      expect(r.kcalls).to.be.above(3000);
    } finally {
      tracepointProbeUnregister('sched_process_exit', probe, null);
    }
    expect(kernelUnobserved()).to.equal(true);
  });

  it('a background job still holding the terminal: the exit runs whole', () => {
    const r = runShell('sleep 1 & exit 0');
    expect(r.p.exited).to.equal(true);
    expect(r.p.runEnd).to.equal(null);
  });
});
