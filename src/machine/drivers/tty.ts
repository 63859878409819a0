/**
 * A terminal for an interactive shell (tapsim shell): writes go to the host's writer; reads take
 * the lines the host types (blocking while there are none, as a tty read in canonical mode);
 * end of input (Ctrl-D) reads as EOF. Signals from the terminal (Ctrl-C) are sent to a process
 * from outside the machine with `signalFromOutside`.
 */
import type { Machine } from '../machine';
import type { Task } from '../include/sched';
import { TASK_RUNNING } from '../include/sched';
import { ConsoleFile } from '../include/fs';
import { timedWake } from '../kernel/time';

export class TtyFile extends ConsoleFile {
  private readonly queue: Buffer[] = [];
  private eof = false;
  private readonly waiters: Task[] = [];
  private interrupted = false;
  constructor(private readonly m: Machine, writer: (s: string) => void) {
    super(writer);
  }

  /** a line typed (null: end of input) */
  input(s: string | null): void {
    if (s === null) this.eof = true; else this.queue.push(Buffer.from(s, 'latin1'));
    this.wakeAll();
  }

  /** Ctrl-C with no foreground job: the reader's line is abandoned (read returns -EINTR) */
  interrupt(): void {
    this.interrupted = true;
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const t of this.waiters.splice(0)) if (t.state !== TASK_RUNNING) timedWake(this.m, t, 1000);
  }

  /** read(2) on the terminal: a line, EOF, -EINTR, or null (the task sleeps until input) */
  ttyRead(t: Task, n: number): Uint8Array | number | null {
    if (this.interrupted) { this.interrupted = false; return -4; }
    const b = this.queue.shift();
    if (b) {
      if (b.length > n) { this.queue.unshift(b.subarray(n)); return b.subarray(0, n); }
      return b;
    }
    if (this.eof) return new Uint8Array(0);
    if (!this.waiters.includes(t)) this.waiters.push(t);
    return null;
  }
}

/** kill(2) from outside the machine (the terminal's Ctrl-C): pending signal + wakeups. */
export function signalFromOutside(m: Machine, pid: number, sig: number): number {
  const r = m.procs.signal(pid, sig);
  if (typeof r === 'number') return r;
  for (const t of r) timedWake(m, t, 1000);
  return 0;
}
