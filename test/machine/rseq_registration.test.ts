/**
 * Restartable sequences (kernel/rseq.c) as Linux 6.1 keeps a task's registration: rseq(2) sets
 * TIF_NOTIFY_RESUME (the area gets its cpu_id on that call's return: rseq_update), a fork child with an
 * address space of its own keeps its parent's registration (rseq_fork), an exec drops it (rseq_execve),
 * and a task put on another CPU updates it on its way back to user mode (set_task_cpu's rseq_migrate).
 * The guest's `sh -c 'sleep 5 & kill -TERM $!; wait'` (data/recordings/signal, events run): sh's
 * `sys_enter_rseq` is followed by rseq_update before its next syscall; the forked child (pid 4010,
 * placed on another CPU) traces rseq_update before its execve.
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import type { Task } from '../../src/machine/include/sched';

installKernelSemantics();

interface Ev { name: string; task: Task; rseq: boolean; nr?: number }

function run(cmd: string): Ev[] {
  const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
  const out: Ev[] = [];
  const probes: [string, (...a: unknown[]) => void][] = [];
  const on = (name: string, f: (...a: unknown[]) => void): void => { probes.push([name, f]); tracepointProbeRegister(name, f as never, null); };
  const cur = (): Task => m.executingCpu()!.ctx.task as Task;
  on('rseq_update', () => out.push({ name: 'rseq_update', task: cur(), rseq: cur().rseq }));
  on('sys_enter', (_d, _regs, nr) => out.push({ name: 'sys_enter', task: cur(), rseq: cur().rseq, nr: Number(nr) }));
  on('sched_process_fork', (_d, _parent, child) => out.push({ name: 'fork', task: child as Task, rseq: (child as Task).rseq }));
  on('sched_process_exec', () => out.push({ name: 'exec', task: cur(), rseq: cur().rseq }));
  try {
    const p = m.procs.spawnCommand(cmd, () => undefined, () => undefined);
    m.runUntil(() => p.finished, 20e9);
  } finally {
    for (const [n, f] of probes) tracepointProbeUnregister(n, f as never, null);
  }
  return out;
}

/** x86_64 syscall numbers: rseq 334, execve 59 */
const NR_RSEQ = 334, NR_EXECVE = 59;

describe('rseq registration (kernel/rseq.c)', () => {
  const evs = run("sh -c 'sleep 0 & wait'");
  const sh = evs.find((e) => e.name === 'sys_enter' && e.nr === NR_RSEQ)!.task;

  it("rseq(2) updates the area on the call's own return, before the next syscall", () => {
    for (const t of new Set(evs.filter((e) => e.name === 'sys_enter' && e.nr === NR_RSEQ).map((e) => e.task))) {
      const mine = evs.filter((e) => e.task === t && (e.name === 'rseq_update' || e.name === 'sys_enter'));
      const i = mine.findIndex((e) => e.nr === NR_RSEQ);
      expect(mine[i + 1]?.name, t.comm).to.equal('rseq_update');
    }
  });

  it('a fork child keeps its parent\'s registration until its exec, which drops it', () => {
    const forks = evs.filter((e) => e.name === 'fork');
    expect(forks.length).to.be.greaterThan(0);
    const child = forks.find((f) => evs.some((e) => e.name === 'exec' && e.task === f.task))!;
    expect(child.rseq).to.equal(true);
    // the exec'd image runs without one until its ld.so registers again
    const execAt = evs.findIndex((e) => e.name === 'exec' && e.task === child.task);
    expect(evs[execAt].rseq).to.equal(false);
    const reg = evs.findIndex((e, i) => i > execAt && e.task === child.task && e.name === 'sys_enter' && e.nr === NR_RSEQ);
    expect(reg).to.be.greaterThan(execAt);
    expect(evs.slice(execAt + 1, reg).some((e) => e.task === child.task && e.name === 'rseq_update')).to.equal(false);
    // before its exec, the child ran with the registration (an rseq_update on its way to user mode, or none)
    expect(evs.slice(0, execAt).filter((e) => e.task === child.task && e.name === 'sys_enter' && e.nr === NR_EXECVE).length).to.equal(1);
    expect(sh.rseq).to.equal(true);
  });
});
