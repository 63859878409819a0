/**
 * The block layer (block/blk-core.c, blk-mq.c): bios become requests on the submitting CPU's
 * plug, are inserted and dispatched to the device one by one (the disk driver,
 * drivers/disk.ts, serves them), and complete through the disk interrupt and BLOCK_SOFTIRQ,
 * waking the waiters and marking the page-cache pages up to date; the `struct request` /
 * `struct bio` the block tracepoints see.
 */
import type { CpuMachine, Cpu } from '../include/cpu';
import type { BlkRequest } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED } from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/core';
import { kmem } from '../../kernel/memory';

/** A block device as the block layer drives it: its driver takes a request (ahci_qc_issue). */
export interface BlockDevice {
  issue(r: BlkRequest): void;
  /** time to serve a request, ns (the swap-in wait uses it) */
  readonly latencyNs: number;
}

/** The machine as the block layer uses it. */
export interface BlockMachine extends CpuMachine {
  readonly blk: BlockLayer;
}

export class BlockLayer {
  /** per-CPU plug lists */
  readonly plugs: BlkRequest[][];
  /** completed requests waiting for BLOCK_SOFTIRQ per CPU */
  readonly done: BlkRequest[][];
  /** @param disk the device behind /dev/sda (drivers/disk.ts) */
  constructor(m: CpuMachine, readonly disk: BlockDevice) {
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
    this.disk.issue(r);
  }
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

// ---------------------------------------------------------------- the paths' hooks

export const block = new Semantics<BlockMachine>('block/core');

block.hook('bio_queued', (m, c, _t, e) => {
  m.blk.queue(c, e.req as BlkRequest);
  return H_CONT;
});
block.hook('rq_insert_each', (m, c, t, e) => {
  const list = m.blk.plugs[c.id];
  for (let i = list.length - 1; i >= 0; i--) pushPath(t.ks, 'blk_rq_insert', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
block.hook('rq_dispatch_each', (m, c, t, e) => {
  const list = m.blk.takePlug(c);
  for (let i = list.length - 1; i >= 0; i--) pushPath(t.ks, 'blk_rq_queue', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
block.hook('dev_issue', (m, _c, _t, e) => {
  m.blk.issue(e.req as BlkRequest);
  return H_CONT;
});
block.tpArgs('block_rq_issue', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest)]);
block.tpArgs('block_rq_insert', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest)]);
block.tpArgs('block_rq_complete', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest), 0, (e.req as BlkRequest | undefined)?.bytes ?? 0]);
block.tpArgs('block_bio_queue', (_m, _c, _t, e) => [bioAddr(e.req as BlkRequest)]);
block.tpArgs('block_getrq', (_m, _c, _t, e) => [bioAddr(e.req as BlkRequest)]);
block.hook('blk_irq', (m, c, _t, e) => {
  m.blk.done[c.id].push(e.req as BlkRequest);
  c.softirqPending |= 1 << 4; // BLOCK_SOFTIRQ
  return H_CONT;
});
block.hook('blk_done', (m, c, t, e) => {
  const list = m.blk.done[c.id].splice(0);
  for (const req of list) pushPath(c.ks, 'blk_end_request', newEnv('blk_end', { req, swapio: req.swap }));
  return list.length ? H_PUSHED : H_CONT;
});
block.cond('swapio', (_m, _c, _t, e) => e.swapio === true);
block.hook('bio_done', (m, c, _t, e) => {
  const req = e.req as BlkRequest;
  const ino = req.ino;
  const wake = [...req.waiters];
  if (ino) {
    for (const i of req.pages) if (ino.pc[i] === 3) ino.pc[i] = 1; else if (ino.pc[i] === 4) ino.pc[i] = 1;
    wake.push(...ino.waiters.splice(0));
  }
  return pushWakeups(c, wake);
});
block.hook('flush_plug', (m, c) => {
  for (const r of m.blk.takePlug(c)) m.blk.issue(r);
  return H_CONT;
});
