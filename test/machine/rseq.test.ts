/**
 * rseq registration and its notify-resume work (kernel/rseq.c, include/linux/sched.h rseq_fork /
 * rseq_execve / rseq_migrate): the rseq:rseq_update event on a return to user mode. Expected from
 * data/recordings (graph runs, the entries holding __rseq_handle_notify_resume): each program's own
 * rseq(2) entry (sys_rseq's rseq_set_notify_resume); fork-wait's `&` children (fork: they inherit the
 * registration, wake_up_new_task's rseq_migrate) in their first entry after schedule_tail, no vfork
 * child (CLONE_VM: none); the idle recording's systemd once per wakeup from epoll_wait (10 of 10).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

/** rseq_update per task name and the last syscall the task entered (-1: none yet) */
const SCRIPT = `global last, n
  probe kernel.trace("sys_enter") { last[tid()] = $id }
  probe kernel.trace("rseq_update") { n[execname(), tid() in last ? last[tid()] : -1]++ }
  probe end { foreach ([e, s] in n) printf("%s %d: %d\\n", e, s, n[e, s]) }`;
const RSEQ_NR = 334, RT_SIGSUSPEND_NR = 130, VFORK_NR = 58;

describe('rseq_update', () => {
  afterEach(resetKernel);

  it('a forked child inherits the registration and runs the work at its first return; exec drops it, the new image registers again', async function () {
    this.timeout(60000);
    const r = await stapOnMachine(compile(SCRIPT), "sh -c '/bin/true & wait'");
    expect(r.err).to.equal('');
    // the workload's tasks (the services, moved to another CPU by the balancer, run it too: rseq_migrate)
    const lines = r.out.trim().split('\n').filter((l) => /^(sh|true) /.test(l)).sort();
    // sh's own registration, its child's first return (before any syscall), true's registration after
    // the child's exec, and sh switched out in wait's rt_sigsuspend: woken by SIGCHLD, its handler's frame
    // (rseq_signal_deliver) and then the switch's notify-resume work (the recordings: rseq_update,
    // x86_fpu_regs_activated, rseq_update after signal_deliver in signal's and cow's sh)
    expect(lines).to.deep.equal([`sh -1: 1`, `sh ${RSEQ_NR}: 1`, `sh ${RT_SIGSUSPEND_NR}: 2`, `true ${RSEQ_NR}: 1`].sort());
  });

  it('a vfork child has none until its new image registers', async function () {
    this.timeout(60000);
    const r = await stapOnMachine(compile(SCRIPT), "sh -c '/bin/true; /bin/true'");
    const lines = r.out.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('sh -1:'))).to.deep.equal([]);
    expect(lines).to.include(`true ${RSEQ_NR}: 2`);
    // the parent, switched out while its vfork child ran, runs it on the way back from vfork (the first
    // time at least: the second vfork's child may run elsewhere, its update then after wait4)
    expect(lines.some((l) => l.startsWith(`sh ${VFORK_NR}: `))).to.equal(true);
  });

  it('the services registered theirs when they started: systemd runs it after each wakeup', () => {
    const m = new Machine({ seed: 1 });
    const updates = new Map<string, number>(), wakeups = new Map<string, number>(), moves = new Map<string, number>();
    const onUpdate = (): void => { const t = m.executingCpu()?.ctx.task as { comm: string } | undefined; if (t) updates.set(t.comm, (updates.get(t.comm) ?? 0) + 1); };
    const onWakeup = (_d: unknown, t: { comm: string }): void => { wakeups.set(t.comm, (wakeups.get(t.comm) ?? 0) + 1); };
    tracepointProbeRegister('rseq_update', onUpdate as never, null);
    // the services' moves to another CPU (fair.ts migrate: set_task_cpu), counted from the run's start
    const services = [...m.procs.tasks.values()].filter((t) => t.comm === 'systemd');
    const before = services.reduce((a, t) => a + t.nrMigrations, 0);
    tracepointProbeRegister('sched_wakeup', onWakeup as never, null);
    try { m.run('sleep 3'); } finally {
      moves.set('systemd', services.reduce((a, t) => a + t.nrMigrations, 0) - before);
      tracepointProbeUnregister('rseq_update', onUpdate as never, null);
      tracepointProbeUnregister('sched_wakeup', onWakeup as never, null);
    }
    expect(wakeups.get('systemd') ?? 0).to.be.greaterThan(2);
    // one per wakeup, and one more for a move to another CPU between them (set_task_cpu's rseq_migrate)
    expect(updates.get('systemd')).to.be.within(wakeups.get('systemd')!, wakeups.get('systemd')! + (moves.get('systemd') ?? 0));
    // kernel threads have no rseq area
    expect(updates.get('kcompactd0') ?? 0).to.equal(0);
  });
});
