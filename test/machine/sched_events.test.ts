/**
 * Where the scheduler's and the context switch's events fire, as in Linux 6.1 (and as the recordings
 * show: data/recordings/*.json.gz events runs):
 * - try_to_wake_up of a task whose CPU is another, idle one queues it on that CPU's wake list
 *   (ttwu_queue_wakelist): sched_waking fires in the waker, sched_wakeup in the target CPU's
 *   call-function-single IPI (sched_ttwu_pending), not in the waker; the task is on no runqueue until
 *   that IPI activates it (ttwu_do_activate), so the IPI is the idle task's, never the woken task's
 *   (dd-direct-read: no call_function_single_entry and no sched_wakeup in dd's context, whose reads
 *   complete on CPU2); a wakeup of a task still on its runqueue (woken between set_current_state and
 *   its __schedule's dequeue) only makes it TASK_RUNNING again (ttwu_runnable: no wake list, no IPI);
 *   a wakeup onto the waker's own CPU
 *   activates it there (tbench: 163 of 168 wakings of a task on another CPU have no sched_wakeup in
 *   the waker's context, 15 of 20 on its own CPU do);
 * - __switch_to's switch_fpu_prepare traces x86_fpu_regs_deactivated in the outgoing user task whose
 *   registers are live; the return to user mode traces x86_fpu_regs_activated only when the CPU's
 *   registers no longer hold the task's state (sleep 1: 3 switches, 4 deactivated with exit's
 *   fpu__drop, 1 activated: after the exec);
 * - arch_prctl(ARCH_SET_FS) writes MSR_FS_BASE (write_msr c0000100 in the caller), and so does
 *   __switch_to for a next task with an FS base, in the previous task's context;
 * - select_task_rq_fair for a wakeup: wake_affine, then select_idle_sibling with SIS_UTIL's bounded
 *   scan (pipe: rcu_preempt woken from the softirq of a busy task while 3 of 4 CPUs are busy migrates
 *   to the waker's CPU although one CPU is idle).
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { TASK_RUNNING, type Task } from '../../src/machine/include/sched';

installKernelSemantics();

interface Ev { name: string; cpu: number; curr: Task; ctx: number; args: unknown[]; next: Task | null; currFs: number; nextFs: number }

/** Run `cmd` on machine `m`, recording the events `names` with the CPU, current task and context they fired in. */
function record(m: Machine, names: string[], run: () => void): Ev[] {
  const out: Ev[] = [];
  const probes = names.map((name) => {
    const f = (_d: unknown, ...args: unknown[]): void => {
      const c = m.executingCpu()!;
      out.push({ name, cpu: c.id, curr: c.curr, ctx: c.ctx.context ?? 0, args, next: c.next, currFs: c.curr.fsbase, nextFs: c.next?.fsbase ?? 0 });
    };
    tracepointProbeRegister(name, f as never, null);
    return [name, f] as const;
  });
  try { run(); } finally { for (const [n, f] of probes) tracepointProbeUnregister(n, f as never, null); }
  return out;
}

describe('machine: scheduler and context-switch events', function () {
  this.timeout(120000);

  it('a wakeup onto another, idle CPU is activated there (wake list IPI); onto the waker\'s CPU, in the waker', () => {
    const m = new Machine({ seed: 1, cpus: 4 });
    const ev = record(m, ['sched_waking', 'sched_wakeup', 'call_function_single_entry'], () => {
      m.run("sh -c 'cat /etc/passwd | wc -l; sleep 0.01'");
    });
    let remote = 0, local = 0;
    ev.forEach((w, i) => {
      if (w.name !== 'sched_waking') return;
      const p = w.args[0] as Task;
      const j = ev.findIndex((x, k) => k > i && x.name === 'sched_wakeup' && x.args[0] === p);
      if (j < 0) return;
      const up = ev[j];
      if (up.cpu === w.cpu) {
        local++;
        return;
      }
      remote++;
      // on the target CPU, in its IPI (hardirq), after the call-function-single entry, not in the waker
      expect(up.ctx).to.equal(2);
      expect(up.curr).to.not.equal(w.curr);
      expect(ev.slice(i + 1, j).some((x) => x.name === 'call_function_single_entry' && x.cpu === up.cpu)).to.equal(true);
    });
    expect(remote).to.be.greaterThan(0);
    expect(local).to.be.greaterThan(0);
  });

  it('a wake-list wakeup: the task stays off every runqueue until the target CPU\'s IPI activates it, in the idle task\'s context', () => {
    const m = new Machine({ seed: 1, cpus: 2 });
    const p = m.procs.spawnCommand('sleep 5', () => undefined, () => undefined);
    const t = p.threads[0];
    m.runUntil(() => t.state !== TASK_RUNNING && !t.onCpu && m.current(t.cpu).idle, 10e9);
    const target = m.cpus[t.cpu];
    const waker = m.cpus[1 - t.cpu];
    let r: ReturnType<typeof m.sched.wake> = null;
    const ev = record(m, ['sched_wakeup', 'call_function_single_entry'], () => {
      m.executing = waker;
      r = m.sched.wake(t);
      m.executing = null;
      expect(r!.queued).to.equal(true);
      expect(r!.target).to.equal(target);
      // ttwu_queue_wakelist: queued on the target's list, not yet on its runqueue
      expect(t.onRq).to.equal(false);
      expect(t.wakePending).to.equal(true);
      m.runUntil(() => t.onCpu, 1e9);
    });
    expect(t.onCpu).to.equal(true);
    expect(t.wakePending).to.equal(false);
    const ipi = ev.find((x) => x.name === 'call_function_single_entry' && x.cpu === target.id)!;
    const up = ev.find((x) => x.name === 'sched_wakeup' && x.args[0] === t)!;
    expect(ipi.curr.idle).to.equal(true);
    expect(up.cpu).to.equal(target.id);
    expect(up.ctx).to.equal(2);
    expect(up.curr.idle).to.equal(true);
    expect(ev.indexOf(ipi)).to.be.below(ev.indexOf(up));
  });

  it('ttwu_runnable: waking a task not yet dequeued by its __schedule makes it TASK_RUNNING, with no IPI', () => {
    const m = new Machine({ seed: 1, cpus: 2 });
    const p = m.procs.spawnCommand('dd if=/dev/zero of=/dev/null bs=1M count=100000', () => undefined, () => undefined);
    const t = p.threads[0];
    m.runUntil(() => t.onCpu && t.comm === 'dd', 10e9);
    expect(t.onRq).to.equal(true);
    // as between its set_current_state(TASK_INTERRUPTIBLE) and schedule()
    t.state = 1;
    const c = m.cpus[t.cpu];
    let r: ReturnType<typeof m.sched.wake> = null;
    const ev = record(m, ['call_function_single_entry'], () => {
      m.executing = m.cpus[1 - t.cpu];
      r = m.sched.wake(t);
      m.executing = null;
      m.runFor(2e6);
    });
    expect(r!.runnable).to.equal(true);
    expect(r!.queued).to.equal(false);
    expect(r!.target).to.equal(c);
    expect(t.state).to.equal(TASK_RUNNING);
    expect(t.wakePending).to.equal(false);
    expect(ev.filter((x) => x.cpu === c.id)).to.deep.equal([]);
  });

  it('x86_fpu_regs_deactivated at each switch-out of a user task with live registers; activated only when they were lost', () => {
    const m = new Machine({ seed: 1, cpus: 1 });
    // one napper alone: it comes back to its own registers (the idle task does not touch them)
    m.procs.programs.set('/usr/bin/napper', function* (u) { for (let i = 0; i < 5; i++) { yield* u.cpu(2e5); yield* u.nanosleep(1e6); } return 0; });
    m.fs.createFile('/usr/bin/napper', 'ELF', 0o755);
    const names = ['sched_switch', 'x86_fpu_regs_deactivated', 'x86_fpu_regs_activated'];
    const alone = record(m, names, () => { m.run('napper'); });
    const napper = (e: Ev): boolean => e.curr.comm === 'napper';
    const outs = alone.filter((e) => e.name === 'sched_switch' && napper(e));
    expect(outs.length).to.be.at.least(5);
    // right after each of its switches out (still in its context): deactivated
    alone.forEach((e, i) => {
      if (e.name !== 'sched_switch' || !napper(e)) return;
      expect(alone[i + 1]?.name).to.equal('x86_fpu_regs_deactivated');
      expect(alone[i + 1].curr).to.equal(e.curr);
    });
    // it reloads after its exec and when a user task (the shell, a service) ran on the CPU meanwhile, not
    // after the naps where only the idle task or a kernel thread did
    const reloads = alone.filter((e) => e.name === 'x86_fpu_regs_activated' && napper(e)).length;
    expect(reloads).to.be.at.least(1);
    expect(reloads).to.be.at.most(outs.length - 3);
    // two nappers taking turns on the CPU: each comes back to the other's registers and reloads its own
    const two = record(m, names, () => { m.run("sh -c 'napper & napper; wait'"); });
    const act = two.filter((e) => e.name === 'x86_fpu_regs_activated' && napper(e)).length;
    expect(act).to.be.at.least(8);
  });

  it('write_msr MSR_FS_BASE: arch_prctl(ARCH_SET_FS) in the caller, __switch_to to a task with an FS base in the previous task', () => {
    const m = new Machine({ seed: 1, cpus: 1 });
    const ev = record(m, ['write_msr', 'sched_switch', 'sys_enter'], () => { m.run("sh -c 'sleep 0.01 & sleep 0.01; wait'"); });
    let prctl = 0, switched = 0, lastNr = -1;
    const toTls = ev.filter((e) => e.name === 'sched_switch' && e.nextFs !== 0).length;
    for (const e of ev) {
      if (e.name === 'sys_enter') { lastNr = Number(e.args[1]); continue; }
      if (e.name !== 'write_msr') continue;
      expect(e.args[0]).to.equal(0xc0000100);
      if (e.next !== null && e.next !== e.curr) {
        // in a switch, in the previous task's context: the next task's base
        switched++;
        expect(e.args[1]).to.equal(e.nextFs);
        expect(e.nextFs).to.not.equal(0);
      } else {
        prctl++;
        expect(lastNr).to.equal(158); // arch_prctl
        expect(e.args[1]).to.equal(e.currFs);
      }
    }
    // sh and two sleeps each set their TLS; every switch to one of them (fsbase set) wrote it
    expect(prctl).to.equal(3);
    expect(switched).to.equal(toTls);
    expect(switched).to.be.greaterThan(0);
  });
});

describe('machine: wakeup CPU selection (select_task_rq_fair)', () => {
  it('wake_affine and select_idle_sibling: prev if idle, the waker\'s CPU when both are busy and the LLC is busy, else a scanned idle CPU', () => {
    const m = new Machine({ seed: 1, cpus: 4 });
    m.runFor(1e6);
    const users = [...m.procs.tasks.values()].filter((t) => !t.kthread && !t.idle);
    const wakee = [...m.procs.tasks.values()].find((t) => t.comm === 'rcu_preempt')!;
    const [c0, c1, c2, c3] = m.cpus;
    const busy = (c: typeof c0, i: number): void => { c.curr = users[i]; };
    const idle = (c: typeof c0): void => { c.curr = c.idleTask; };
    for (const c of m.cpus) m.sched.rqs[c.id].q.length = 0;
    wakee.cpu = 2;
    m.executing = c1;
    // 3 of 4 busy (CPU 0 idle): no scan; the previous CPU busy -> the waker's
    busy(c1, 0); busy(c2, 1); busy(c3, 2); idle(c0);
    expect(m.sched.selectWakeCpu(wakee)).to.equal(c1);
    // the previous CPU idle -> it
    idle(c2);
    expect(m.sched.selectWakeCpu(wakee)).to.equal(c2);
    // 2 of 4 busy (waker and previous): the scan from the target finds an idle CPU
    busy(c2, 1); idle(c3);
    expect(m.sched.selectWakeCpu(wakee)).to.equal(c3);
    // the waker idle (an interrupt on an idle CPU), the previous busy -> the waker's
    idle(c1); busy(c0, 2); busy(c3, 3);
    expect(m.sched.selectWakeCpu(wakee)).to.equal(c1);
    m.executing = null;
  });
});
