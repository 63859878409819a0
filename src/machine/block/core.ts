/**
 * The block layer and the disk behind /dev/sda: bios become requests on the submitting CPU's
 * plug, are dispatched to the device (mq-deadline insert, issue), served in order with a
 * latency + bandwidth model, and complete through the disk interrupt and BLOCK_SOFTIRQ.
 */
import type { Machine, Cpu } from '../machine';
import type { Inode } from '../include/fs';
import type { Task } from '../include/sched';
import { newEnv } from '../paths/kexec';
import { kmem } from '../../kernel/memory';

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

  /** Take CPU c's plugged requests (blk_mq_flush_plug_list): they go to the device one by one. */
  takePlug(c: Cpu): BlkRequest[] {
    const list = this.plugs[c.id];
    this.plugs[c.id] = [];
    return list;
  }

  /** The driver issues request r to the device (ahci_qc_issue). */
  issue(r: BlkRequest): void {
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
  private lastSector = -1;
}

// ---------------------------------------------------------------- struct request / struct bio

const REQ_OP_READ = 0;
const REQ_OP_WRITE = 1;
const requests = new WeakMap<BlkRequest, number>();
const bios = new WeakMap<BlkRequest, number>();

/** The kernel object of type `T` standing for `r`, laid out (by `fill`) when first asked for. */
function objectFor(memo: WeakMap<BlkRequest, number>, r: BlkRequest | undefined, T: string, fill: (a: number, r: BlkRequest) => void): number {
  if (!r) return 0;
  let a = memo.get(r);
  if (a !== undefined) return a;
  a = kmem.allocStruct(T);
  memo.set(r, a);
  fill(a, r);
  return a;
}

/** The `struct bio *` a request was built from (what block_bio_queue / block_getrq see). */
export function bioAddr(r: BlkRequest | undefined): number {
  const T = 'struct bio';
  return objectFor(bios, r, T, (a, q) => {
    kmem.setField(a, T, 'bi_opf', q.write ? REQ_OP_WRITE : REQ_OP_READ);
    kmem.setField(a, T, 'bi_iter.bi_sector', q.sector);
    kmem.setField(a, T, 'bi_iter.bi_size', q.bytes);
    kmem.setField(a, T, 'bi_vcnt', q.pages.length || Math.ceil(q.bytes / 4096));
  });
}

/** The `struct request *` of a block request (block_rq_insert/issue/complete's `rq`). */
export function requestAddr(r: BlkRequest | undefined): number {
  const T = 'struct request';
  return objectFor(requests, r, T, (a, q) => {
    kmem.setField(a, T, 'cmd_flags', q.write ? REQ_OP_WRITE : REQ_OP_READ);
    kmem.setField(a, T, '__data_len', q.bytes);
    kmem.setField(a, T, '__sector', q.sector);
    kmem.setField(a, T, 'bio', bioAddr(q));
    kmem.setField(a, T, 'biotail', bioAddr(q));
    kmem.setField(a, T, 'tag', -1);
    kmem.setField(a, T, 'internal_tag', -1);
  });
}
