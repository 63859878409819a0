/**
 * Fuzz worker pool: jobs run in worker threads (worker.ts) with a wall-clock bound per job (a
 * worker past it is terminated and the job counts as a hang), a memory bound (a worker over its
 * heap limit dies and the job counts as out of memory) and a stack about the size of the main
 * thread's, so depth limits behave as in the `stap` command.
 */
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { Job, Outcome } from './worker';

export interface Result extends Outcome {
  hang?: boolean;
  oom?: boolean;
  crashed?: string;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  pending?: { job: Job; resolve: (r: Result) => void; timer: NodeJS.Timeout };
}

export class Pool {
  private slots: Slot[] = [];
  private queue: { job: Job; resolve: (r: Result) => void; timeoutMs: number }[] = [];

  constructor(private size: number, private heapMb = 1024) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(path.join(__dirname, 'worker.js'), {
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, stackSizeMb: 1 },
      stdout: true, stderr: true,
    });
    worker.unref();
    worker.stdout?.resume();
    worker.stderr?.resume();
    const slot: Slot = { worker, busy: false };
    worker.on('message', (o: Outcome) => this.finish(slot, o));
    worker.on('error', (e: Error & { code?: string }) => {
      const oom = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.fail(slot, oom ? { oom: true } : { crashed: String(e.stack ?? e) });
    });
    worker.on('exit', () => this.fail(slot, { crashed: 'worker exited' }));
    return slot;
  }

  private finish(slot: Slot, o: Outcome): void {
    const p = slot.pending;
    if (!p || p.job.id !== o.id) return;
    clearTimeout(p.timer);
    slot.pending = undefined;
    slot.busy = false;
    p.resolve(o);
    this.pump();
  }

  private fail(slot: Slot, why: Partial<Result>): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    const p = slot.pending;
    slot.pending = undefined;
    this.slots[i] = this.spawn();
    void slot.worker.terminate();
    if (p) {
      clearTimeout(p.timer);
      p.resolve({ id: p.job.id, code: null, out: '', err: '', writes: [], ms: 0, heapMb: 0, ...why });
    }
    this.pump();
  }

  run(job: Job, timeoutMs: number): Promise<Result> {
    return new Promise((resolve) => {
      this.queue.push({ job, resolve, timeoutMs });
      this.pump();
    });
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy || !this.queue.length) continue;
      const q = this.queue.shift()!;
      slot.busy = true;
      const timer = setTimeout(() => this.fail(slot, { hang: true, ms: q.timeoutMs }), q.timeoutMs);
      slot.pending = { job: q.job, resolve: q.resolve, timer };
      slot.worker.postMessage(q.job);
    }
  }

  async close(): Promise<void> {
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
