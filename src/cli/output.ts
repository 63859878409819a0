/** What the passes write to (`Output`: stdout and stderr) and the resource figures of `-v` pass lines (`PassTimer`). */
import * as fs from 'fs';

export interface Output {
  out(s: string): void;
  err(s: string): void;
  /** stap run as a program inside the simulated machine (src/cli/stap_program.ts) */
  guest?: GuestRun;
  /** the stap command's arguments (its process's command line in the simulated machine) */
  argv?: readonly string[];
}

/**
 * What differs when stap runs inside the simulated machine: the script files are the machine's
 * (read by the stap process beforehand), and pass 5 runs the session on that machine, alongside
 * its other processes, instead of on a machine of its own.
 */
export interface GuestRun {
  /** the text of a script file the stap process read, or why it could not */
  readFile(name: string): string | 'missing' | 'directory';
  /** pass 5 on the machine the stap process runs in; resolves to the session's exit status */
  run(engine: import('../runtime/engine').Engine): Promise<number>;
  /** the stap process, which plays stapio's part: its pid and its parent's (the session's stapio identity) */
  readonly stapio: { pid: number; ppid: number };
}

/** Resource figures for `-v` pass lines, in stap's layout. */
export class PassTimer {
  private cpu = process.cpuUsage();
  private t0 = process.hrtime.bigint();

  usage(): string {
    let virt = 0, res = 0, shr = 0, data = 0;
    try {
      const st = fs.readFileSync('/proc/self/status', 'latin1');
      const get = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(st)?.[1] ?? 0);
      virt = get('VmSize'); res = get('VmRSS'); shr = get('RssFile') + get('RssShmem'); data = get('VmData');
    } catch {
      const m = process.memoryUsage();
      res = Math.round(m.rss / 1024); virt = res; data = Math.round(m.heapTotal / 1024);
    }
    return `using ${virt}virt/${res}res/${shr}shr/${data}data kb`;
  }

  times(): string {
    const c = process.cpuUsage(this.cpu);
    const real = Number(process.hrtime.bigint() - this.t0) / 1e6;
    return `in ${Math.round(c.user / 1000)}usr/${Math.round(c.system / 1000)}sys/${Math.round(real)}real ms.`;
  }

  reset(): void {
    this.cpu = process.cpuUsage();
    this.t0 = process.hrtime.bigint();
  }
}
