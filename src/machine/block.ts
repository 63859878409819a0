/**
 * The block layer and the disk behind /dev/sda: bios become requests on the submitting CPU's
 * plug, are dispatched to the device (mq-deadline insert, issue), served in order with a
 * latency + bandwidth model, and complete through the disk interrupt and BLOCK_SOFTIRQ.
 */
import type { Machine, Cpu } from './machine';
import type { Inode } from './fs';
import type { Task } from './task';
import { newEnv } from './kexec';

export interface BlkRequest {
  ino: Inode | null;
  pages: number[];
  write: boolean;
  swap: boolean;
  sector: number;
  bytes: number;
  cpu: number;
  /** tasks to wake at completion */
  waiters: Task[];
}

export class BlockLayer {
  /** per-CPU plug lists */
  readonly plugs: BlkRequest[][];
  /** completed requests waiting for BLOCK_SOFTIRQ per CPU */
  readonly done: BlkRequest[][];
  busyUntil = 0;
  /** device latency and bandwidth */
  latencyNs = 90000;
  bytesPerNs = 0.5; // 500 MB/s
  readonly stats = { reads: 0, writes: 0, sectorsRead: 0, sectorsWritten: 0, inflight: 0 };
  constructor(private m: Machine) {
    this.plugs = m.cpus.map(() => []);
    this.done = m.cpus.map(() => []);
  }

  queue(c: Cpu, r: BlkRequest): void {
    this.plugs[c.id].push(r);
  }

  /** Issue all plugged requests of CPU c to the device. */
  issue(c: Cpu): void {
    const list = this.plugs[c.id];
    this.plugs[c.id] = [];
    for (const r of list) {
      const start = Math.max(this.m.now, this.busyUntil);
      const seq = this.lastSector === r.sector ? 0.25 : 1;
      const done = start + this.latencyNs * seq + r.bytes / this.bytesPerNs;
      this.busyUntil = done;
      this.lastSector = r.sector + r.bytes / 512;
      this.stats.inflight++;
      if (r.write) { this.stats.writes++; this.stats.sectorsWritten += r.bytes / 512; } else { this.stats.reads++; this.stats.sectorsRead += r.bytes / 512; }
      this.m.schedule(done, () => {
        this.stats.inflight--;
        const cpu = this.m.cpus[r.cpu];
        this.m.irq(cpu, 'blk_irq', newEnv('blk_irq', { req: r, irq: 16 }));
      });
    }
  }
  private lastSector = -1;
}
