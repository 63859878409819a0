/**
 * `timer.profile.tick` (and the tapset alias `timer.profile`): fires on EVERY CPU at each
 * scheduler tick (HZ from the kernel config), in the context of the task running there.
 *
 * With a simulated machine connected (setProfileTickSource), the tick probes fire from the
 * machine's timer interrupts themselves (profile_tick of each CPU's tick: hardirq context,
 * current = the interrupted task, on that CPU, at the tick's time); a CPU that does not tick
 * (idle with NO_HZ) gets no hit.  Without a machine, and for timer.profile.freq.hz(N), an
 * engine timer fires on every CPU with the CPU's current task.
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

type TickSource = (f: ((ctx: CpuContext) => void) | null) => void;
let tickSource: TickSource | null = null;
/** The machine installs how to listen to its CPUs' profile ticks (null: no machine). */
export function setProfileTickSource(f: TickSource | null): void {
  tickSource = f;
}

export class TimerProfileFamily implements ProbeFamilyRuntime {
  family = 'timer.profile';
  private armed = false;
  private source: TickSource | null = null;
  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    // timer.profile.tick: every tick (HZ); timer.profile.freq.hz(N): N per second
    const groups = new Map<number, RegisteredProbe[]>();
    const ticks: RegisteredProbe[] = [];
    for (const p of probes) {
      const hz = Number((p.meta.data as { hz?: number }).hz ?? 0);
      if (hz <= 0 && tickSource) { ticks.push(p); continue; }
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
    if (ticks.length && tickSource) {
      this.source = tickSource;
      tickSource((ctx) => {
        for (const p of ticks) {
          if (!this.armed || engine.state !== 'RUNNING') return;
          deliver(engine, p, 'profile_timer', false, { regs: { ip: 0, parentIp: 0, args: [], retval: undefined }, cpuCtx: ctx, args: [], fn: -1, addr: 0 });
        }
      });
    }
  }
  unregister(): void {
    this.armed = false;
    if (this.source) { this.source(null); this.source = null; }
  }
}
