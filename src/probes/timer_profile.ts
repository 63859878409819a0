/**
 * `timer.profile.freq.hz(N)`: fires on EVERY CPU N times a second (an engine timer), in the
 * context of the task running there (the machine's current task, else the idle task).
 * (`timer.profile.tick` is refused in pass 2 on Linux 6.1, and `timer.profile` resolves to the
 * perf cpu_clock alternative: src/probes/perf.ts.)
 */
import { kernelHz } from '../kernel/config';
import { idleTask, TaskRef, CpuContext } from '../kernel/current';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import { deliver } from './hit';

let currentTask: ((cpu: number) => TaskRef) | null = null;
/** The machine installs which task runs on a CPU (default: the idle task). */
export function setCurrentTaskSource(f: ((cpu: number) => TaskRef) | null): void {
  currentTask = f;
}

export class TimerProfileFamily implements ProbeFamilyRuntime {
  family = 'timer.profile';
  private armed = false;
  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    // timer.profile.freq.hz(N): N per second
    const groups = new Map<number, RegisteredProbe[]>();
    for (const p of probes) {
      const hz = Number((p.meta.data as { hz?: number }).hz ?? 0);
      const period = Math.round(1e9 / (hz > 0 ? hz : kernelHz()));
      const g = groups.get(period) ?? [];
      g.push(p);
      groups.set(period, g);
    }
    for (const [period, list] of groups) {
      const tick = (): void => {
        if (!this.armed || engine.state !== 'RUNNING') return;
        for (let cpu = 0; cpu < engine.ncpus; cpu++) {
          const task = currentTask ? currentTask(cpu) : idleTask(cpu);
          const ctx = { cpu, task, context: 2 };
          for (const p of list) {
            if (engine.state !== 'RUNNING') return;
            deliver(engine, p, 'profile_timer', false, { regs: { ip: 0, parentIp: 0, args: [], retval: undefined }, cpuCtx: ctx, args: [], fn: -1, addr: 0 });
          }
        }
        if (this.armed) engine.schedule(engine.now + period, tick, list[0].meta.index);
      };
      engine.schedule(engine.now + period, tick, list[0].meta.index);
    }
  }
  unregister(): void {
    this.armed = false;
  }
}
