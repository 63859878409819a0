/**
 * The block layer (block/blk-core.c, blk-mq.c): bios become requests on the submitting CPU's
 * plug, are inserted and dispatched to the device one by one (the disk driver,
 * drivers/disk.ts, serves them), and complete through the disk interrupt and BLOCK_SOFTIRQ,
 * waking the waiters and marking the page-cache pages up to date; the `struct request` /
 * `struct bio` the block tracepoints see.
 */
import type { CpuMachine, Cpu } from '../include/cpu';
import { BlkRequest, REQ_FUA, REQ_PREFLUSH } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED } from '../paths/kexec';
import { pushWakeups } from '../kernel/sched/core';
import { TASK_UNINTERRUPTIBLE } from '../include/sched';
import { kmem, KernelMemory } from '../../kernel/memory';
import { int3SiteCount } from '../../kernel/kprobes';
import { Prng } from '../core/prng';
import { modelKey, modelRecordings, modelFunctions, modelFnId, variantAt, variantCount, type ModelVariant } from '../paths/model';
import { compileShape, firstCall, parseModelShape, shapeCallCounts } from '../paths/compile';
import type { CompiledPath, KStack, Env } from '../include/kstack';
import type { Task } from '../include/sched';
import { KTimer, type Timers } from '../kernel/timer';

/** A block device as the block layer drives it: its driver takes a request (ahci_qc_issue). */
export interface BlockDevice {
  issue(r: BlkRequest): void;
  /** time to serve a request, ns (the swap-in wait uses it) */
  readonly latencyNs: number;
}

/** The machine as the block layer uses it. */
export interface BlockMachine extends CpuMachine {
  readonly blk: BlockLayer;
  readonly timers: Timers;
}

/** A task's plug (block/blk-core.c struct blk_plug) as the machine keeps it. */
export interface TaskPlug {
  /** the plugged requests */
  rqs: BlkRequest[];
  /** the plug's first request once block_plug traced it (blk_add_rq_to_plug traces block_plug for the
   * request that starts an empty plug: one event per plug, whatever the recorded tree's adds) */
  traced: BlkRequest | null;
  /** the requests the flush in progress took off the plug (blk_mq_flush_plug_list): what its
   * block_unplug counts and its dd_insert_requests inserts (block_rq_insert each), the machine's own
   * requests however many the recorded tree added or inserted */
  flushing: BlkRequest[];
  /** the requests of a full plug the next request made room for (flushed by its blk_add_rq_to_plug) */
  full: BlkRequest[];
}

export class BlockLayer {
  /** completed requests waiting for BLOCK_SOFTIRQ per CPU */
  readonly done: BlkRequest[][];
  /**
   * Each task's plug (struct blk_plug on the stack of the task that called blk_start_plug, current->plug):
   * it goes with the task when the task is preempted and migrates to another CPU, and is flushed by the
   * task (blk_finish_plug, or schedule's blk_flush_plug when it sleeps), never by another one
   */
  private readonly taskPlugs = new WeakMap<object, TaskPlug>();
  /**
   * update_io_ticks' stamps (jiffies) of sda1 and sda (bdev->bd_stamp): a submission in a later jiffy
   * than the stamp asks part_in_flight whether the time counts as busy; submissions and completions move it
   */
  readonly ioStamp = { part: -1, disk: -1 };
  /**
   * sda's request timeout timer (q->timeout, blk_add_timer: blk_rq_timed_out_timer, which queues kblockd's
   * blk_mq_timeout_work; the machine's requests never time out)
   */
  readonly rqTimer = new KTimer('blk_rq_timed_out_timer', () => {});
  /** which recorded completion tree a request's BLOCK_SOFTIRQ runs (a stream of its own: see swapCompletion) */
  readonly rand = new Prng(0xb10c);
  /** @param disk the device behind /dev/sda (drivers/disk.ts) */
  constructor(private readonly m: CpuMachine, readonly disk: BlockDevice) {
    this.done = m.cpus.map(() => []);
  }

  /** The plug of the task running on CPU c (the task whose block I/O the CPU is submitting). */
  plugOf(c: Cpu): TaskPlug {
    const t = this.m.current(c.id);
    let p = this.taskPlugs.get(t);
    if (!p) this.taskPlugs.set(t, (p = { rqs: [], traced: null, flushing: [], full: [] }));
    return p;
  }

  /**
   * A bio enters CPU c's plug: a mergeable bio contiguous with the last plugged request joins it
   * (blk_attempt_plug_merge -> bio_attempt_back_merge, up to max_sectors 256), a PREFLUSH/FUA bio
   * starts its flush sequence (blk_insert_flush: the pre-flush goes first; QEMU's AHCI disk has a
   * write cache without FUA, so FUA becomes a post-flush, as the real guest's FF / WSM / FF shows).
   */
  queue(c: Cpu, r: BlkRequest): boolean {
    const tp = this.plugOf(c);
    const plug = tp.rqs;
    const last = plug[plug.length - 1];
    if (r.merge && !r.nomerge && last?.merge && !last.nomerge && last.flags === r.flags && last.sector + last.bytes / 512 === r.sector && last.bytes + r.bytes <= 256 * 512) {
      last.bytes += r.bytes;
      last.waiters.push(...r.waiters);
      r.mergedInto = last;
      let l = mergedBios.get(last);
      if (!l) mergedBios.set(last, (l = []));
      l.push(r);
      mergedRequest(last);
      return true;
    }
    if (!r.flush && (r.flags ?? 0) & (REQ_PREFLUSH | REQ_FUA)) {
      const flushRq = (): BlkRequest => ({ ino: null, pages: [], write: false, swap: false, sector: 0, bytes: 0, cpu: r.cpu, waiters: [], flags: REQ_PREFLUSH, flush: true, owner: r });
      const steps: BlkRequest[] = [];
      if ((r.flags ?? 0) & REQ_PREFLUSH) steps.push(flushRq());
      if (r.bytes) steps.push({ ...r, waiters: [], flags: (r.flags ?? 0) & ~(REQ_PREFLUSH | REQ_FUA), owner: r });
      if (r.bytes && (r.flags ?? 0) & REQ_FUA) steps.push(flushRq());
      r.seq = steps;
      plug.push(steps.shift() as BlkRequest);
      return false;
    }
    // blk_add_rq_to_plug: a plug of BLK_MAX_REQUEST_COUNT requests, or whose last request holds
    // BLK_PLUG_FLUSH_SIZE, is flushed before the new request starts the next (the tree's blk_add_rq_to_plug
    // traces that flush: plug_add)
    if (last && (plug.length >= BLK_MAX_REQUEST_COUNT || last.bytes >= BLK_PLUG_FLUSH_SIZE)) {
      tp.full.push(...plug);
      tp.rqs = [r];
      tp.traced = null;
      return false;
    }
    plug.push(r);
    return false;
  }

  /** A full plug's requests (queue): they go to the device at the next blk_add_rq_to_plug (plug_add) or flush. */
  takeFull(c: Cpu): BlkRequest[] {
    return this.plugOf(c).full.splice(0);
  }

  /** Take CPU c's plugged requests (blk_mq_flush_plug_list): they go to the device one by one. */
  takePlug(c: Cpu): BlkRequest[] {
    const tp = this.plugOf(c);
    const list = [...tp.full.splice(0), ...tp.rqs];
    tp.rqs = [];
    tp.traced = null;
    return list;
  }

  /**
   * A traced flush (blk_mq_flush_plug_list) takes CPU c's plug: its requests are the flush's (`flushing`,
   * but a flush sequence's steps, which blk_insert_flush sent past the plug and the scheduler).
   */
  takeFlush(c: Cpu): BlkRequest[] {
    const list = this.takePlug(c);
    this.plugOf(c).flushing = list.filter((r) => !r.owner);
    return list;
  }

  /** blk_mq_flush_plug_list without its tree: CPU c's plugged requests go to the device in order. */
  flushPlug(c: Cpu): void {
    for (const r of this.takePlug(c)) this.issue(r);
  }

  /** The driver issues request r to the device (ahci_qc_issue). */
  issue(r: BlkRequest): void {
    this.disk.issue(r);
  }
}

/** block/blk-mq.c: a plug flushed before it takes more requests (blk_plug_max_rq_count, one queue) */
const BLK_MAX_REQUEST_COUNT = 32;
/** include/linux/blkdev.h: a plug whose last request holds this much is flushed before the next request */
const BLK_PLUG_FLUSH_SIZE = 128 * 1024;

/** The bios back-merged into a request after its first (bio->bi_next ...), in order. */
const mergedBios = new WeakMap<BlkRequest, BlkRequest[]>();
/** The bios of request `r`: its own, then those merged into it. */
export function requestBios(r: BlkRequest): BlkRequest[] {
  return [r, ...(mergedBios.get(r) ?? [])];
}

// ---------------------------------------------------------------- struct request / struct bio

const REQ_OP_READ = 0;
const REQ_OP_WRITE = 1;
const REQ_OP_FLUSH = 2;
const reqOp = (q: BlkRequest): number => (q.flush ? REQ_OP_FLUSH : q.write ? REQ_OP_WRITE : REQ_OP_READ);
const requests = new WeakMap<BlkRequest, number>();
const bios = new WeakMap<BlkRequest, number>();

/** The kernel object of type `T` standing for `r`, laid out (by `fill`) when first asked for. */
function objectFor(memo: WeakMap<BlkRequest, number>, r: BlkRequest | undefined, T: string, fill: (a: number, r: BlkRequest) => void): number {
  return r ? kmem.structFor(memo, r, T, (a) => fill(a, r)) : 0;
}

/** The block device a request's bio is for: files and the journal on the ext4 partition, raw I/O of /dev/sda on the disk. */
const bioDevice = (q: BlkRequest): 'sda' | 'sda1' => (q.ino && !q.ino.isBlk ? 'sda1' : q.ino?.dev === 'sda' ? 'sda' : 'sda1');
/** The partition's first sector, which blk_partition_remap adds to the sector of a bio with data in submit_bio_noacct. */
export const startSect = (q: BlkRequest): number => (bioDevice(q) === 'sda1' && q.bytes ? 2048 : 0); // an empty bio is not remapped

/**
 * The `struct bio *` a request was built from (what submit_bio_noacct, block_bio_queue and
 * block_getrq see). Once the device completed it, blk_update_request has advanced its iterator:
 * bio_endio sees bi_size 0 and the remapped (whole-disk) sector, as the real guest's kprobe on
 * bio_endio shows (submit_bio_noacct sector=76616 size=16384, bio_endio sector=78664 size=0).
 */
export function bioAddr(r: BlkRequest | undefined): number {
  const T = 'struct bio';
  return objectFor(bios, r, T, (a, q) => {
    kmem.setField(a, T, 'bi_opf', reqOp(q) | (q.flags ?? 0));
    setBioIter(a, q);
    kmem.setField(a, T, 'bi_vcnt', q.pages.length || Math.ceil(q.bytes / 4096));
    if (q.bytes) kmem.setField(a, T, 'bi_io_vec', firstBioVec(q));
    kmem.setField(a, T, 'bi_bdev', blockDevice(kmem, bioDevice(q)));
    kmem.setField(a, T, 'bi_status', 0);
  });
}
/** include/linux/page-flags.h (6.1): PG_uptodate, PG_swapcache (PG_owner_priv_1), PG_swapbacked */
const PG_uptodate = 2, PG_swapcache = 10, PG_swapbacked = 19;
/** include/linux/page-flags.h: the low bit of page->mapping of an anonymous page (its anon_vma) */
const PAGE_MAPPING_ANON = 1;
/**
 * bi_io_vec[0] of a bio with data: its first page, whose owner is what ioblock's `ino` reads
 * (page->mapping->host->i_ino): a file's page cache (the inode's i_data), a swap-cache page (swap
 * I/O), a process's anonymous page (direct I/O from a user buffer), or the page cache of the
 * partition's block device (the journal and metadata blocks: bdev_add makes its inode's i_ino the dev_t).
 */
function firstBioVec(q: BlkRequest): number {
  const V = 'struct bio_vec', P = 'struct page';
  const v = kmem.allocStruct(V);
  const page = kmem.allocStruct(P);
  kmem.setField(v, V, 'bv_page', page);
  kmem.setField(v, V, 'bv_len', Math.min(q.bytes, 4096));
  kmem.setField(page, P, '_refcount.counter', 1);
  let flags = 1 << PG_uptodate;
  if (q.swap) {
    flags |= (1 << PG_swapbacked) | (1 << PG_swapcache);
    kmem.setField(page, P, 'mapping', kmem.allocStruct('struct anon_vma') | PAGE_MAPPING_ANON);
  } else if (q.dio) {
    flags |= 1 << PG_swapbacked;
    kmem.setField(page, P, 'mapping', kmem.allocStruct('struct anon_vma') | PAGE_MAPPING_ANON);
  } else {
    const host = q.ino && !q.ino.isBlk ? kmem.addrOf(q.ino) : bdevInode(bioDevice(q));
    kmem.setField(page, P, 'mapping', host + kmem.fieldOf('struct inode', 'i_data').offset);
    kmem.setField(page, P, 'index', q.pages[0] ?? 0);
  }
  kmem.setField(page, P, 'flags', flags);
  return v;
}
/** The inode of a block device's page cache (bdev_add: i_ino and i_rdev are its dev_t, MKDEV(8, partno)). */
const bdevInodes = new Map<string, number>();
function bdevInode(name: 'sda' | 'sda1'): number {
  return kmem.structFor(bdevInodes, name, 'struct inode', (a) => {
    const dev = (8 << 20) | (name === 'sda1' ? 1 : 0);
    kmem.setField(a, 'struct inode', 'i_ino', dev);
    kmem.setField(a, 'struct inode', 'i_rdev', dev);
    kmem.setField(a, 'struct inode', 'i_data.host', a);
  });
}
function setBioIter(a: number, q: BlkRequest): void {
  const T = 'struct bio';
  kmem.setField(a, T, 'bi_iter.bi_sector', q.advanced ? q.sector + startSect(q) : q.sector);
  kmem.setField(a, T, 'bi_iter.bi_size', q.advanced ? 0 : q.bytes);
}
/** The device completed `q`: its bio's iterator is consumed (blk_update_request -> bio_advance). */
function advanceBio(q: BlkRequest): void {
  q.advanced = true;
  const a = bios.get(q);
  if (a !== undefined) setBioIter(a, q);
}

/** Bio `q` lost its front to a split (bio_split: __bio_advance): its iterator starts later and holds less. */
export function bioResized(q: BlkRequest): void {
  const a = bios.get(q);
  if (a !== undefined) setBioIter(a, q);
}
/** Bios merged into request `r`: its length grows (blk_rq_bytes). */
function mergedRequest(r: BlkRequest): void {
  const a = requests.get(r);
  if (a !== undefined) kmem.setField(a, 'struct request', '__data_len', r.bytes);
}

/** The `struct request *` of a block request (block_rq_insert/issue/complete's `rq`). */
export function requestAddr(r: BlkRequest | undefined): number {
  const T = 'struct request';
  return objectFor(requests, r, T, (a, q) => {
    // blk_insert_flush took REQ_PREFLUSH and REQ_FUA off a request its flush sequence carries out
    kmem.setField(a, T, 'cmd_flags', reqOp(q) | ((q.flags ?? 0) & (q.seq ? ~(REQ_PREFLUSH | REQ_FUA) : ~0)));
    kmem.setField(a, T, '__data_len', q.bytes);
    // blk_rq_init's (sector_t)-1 stays in a flush request
    kmem.setField(a, T, '__sector', q.flush ? 0xffffffffffffffffn : q.sector + startSect(q));
    kmem.setField(a, T, 'q', sdaQueue(kmem));
    kmem.setField(a, T, 'bio', bioAddr(q));
    kmem.setField(a, T, 'biotail', bioAddr(q));
    kmem.setField(a, T, 'tag', -1);
    kmem.setField(a, T, 'internal_tag', -1);
  });
}

/**
 * struct block_device of /dev/sda (partno 0) or /dev/sda1 (partno 1, from sector 2048 as the
 * guest's disk is partitioned: tools/qemu-debian-guest's sfdisk 'start=2048'), bd_disk the sda gendisk.
 */
const bdevs = new Map<string, number>();
let sdaDisk = 0;
let sdaQ = 0;

/**
 * sda's `struct request_queue`, with the limits the guest's /sys/block/sda/queue/ shows (QEMU's
 * AHCI disk under tools/qemu-debian-guest: 512-byte logical and physical blocks, max_sectors_kb
 * 128, max_segments 168, nr_requests 64).
 */
export function sdaQueue(mem: KernelMemory): number {
  if (sdaQ) return sdaQ;
  const Q = 'struct request_queue';
  sdaQ = mem.allocStruct(Q);
  mem.setField(sdaQ, Q, 'limits.logical_block_size', 512);
  mem.setField(sdaQ, Q, 'limits.physical_block_size', 512);
  mem.setField(sdaQ, Q, 'limits.io_min', 512);
  mem.setField(sdaQ, Q, 'limits.max_sectors', 256);
  mem.setField(sdaQ, Q, 'limits.max_hw_sectors', 256);
  mem.setField(sdaQ, Q, 'limits.max_segments', 168);
  mem.setField(sdaQ, Q, 'nr_requests', 64);
  // the guest's /sys/block/sda/queue/scheduler: "[mq-deadline] none" (the recordings run dd_insert_requests,
  // dd_dispatch_request): its elevator_queue's type is mq-deadline's elevator_type
  const E = 'struct elevator_queue', ET = 'struct elevator_type';
  const elv = mem.allocStruct(E), type = mem.allocStruct(ET);
  mem.setField(type, ET, 'elevator_name', 'mq-deadline');
  mem.setField(elv, E, 'type', type);
  mem.setField(sdaQ, Q, 'elevator', elv);
  mem.setField(sdaQ, Q, 'disk', sdaGendisk(mem));
  return sdaQ;
}
/** sda's struct gendisk, its request queue's disk. */
function sdaGendisk(mem: KernelMemory): number {
  if (sdaDisk) return sdaDisk;
  sdaDisk = mem.allocStruct('struct gendisk');
  mem.setField(sdaDisk, 'struct gendisk', 'disk_name', 'sda');
  mem.setField(sdaDisk, 'struct gendisk', 'major', 8);
  mem.setField(sdaDisk, 'struct gendisk', 'first_minor', 0);
  mem.setField(sdaDisk, 'struct gendisk', 'minors', 16);
  mem.setField(sdaDisk, 'struct gendisk', 'queue', sdaQueue(mem));
  mem.setField(sdaDisk, 'struct gendisk', 'part0', blockDevice(mem, 'sda'));
  return sdaDisk;
}
export function blockDevice(mem: KernelMemory, name: 'sda' | 'sda1'): number {
  const B = 'struct block_device';
  return mem.structFor(bdevs, name, B, (a) => {
    const partno = name === 'sda1' ? 1 : 0;
    sdaGendisk(mem);
    mem.setField(a, B, 'bd_queue', sdaQueue(mem));
    mem.setField(a, B, 'bd_dev', (8 << 20) | partno);
    mem.setField(a, B, 'bd_partno', partno);
    mem.setField(a, B, 'bd_start_sect', partno ? 2048 : 0);
    mem.setField(a, B, 'bd_disk', sdaDisk);
  });
}

// ---------------------------------------------------------------- the paths' hooks

export const block = new Semantics<BlockMachine>('block/core');

/**
 * blk_mq_submit_bio's bio enters the task's plug (block/core.ts queue): whether the plug held a request
 * (blk_attempt_plug_merge tries the last: blk_rq_merge_ok) and whether the bio was merged into it (then no
 * request is allocated: the rest of blk_mq_submit_bio does not run).
 */
block.hook('bio_queued', (m, c, _t, e) => {
  e.plugHad = m.blk.plugOf(c).rqs.length > 0;
  e.merged = m.blk.queue(c, e.req as BlkRequest);
  return H_CONT;
});
block.cond('plug_had_rq', (_m, _c, _t, e) => e.plugHad === true);
block.cond('bio_merged', (_m, _c, _t, e) => e.merged === true);
/**
 * dd_insert_requests (blk_mq_sched_insert_requests): the flush's requests enter the I/O scheduler, each
 * traced by block_rq_insert (dd_insert_request, inlined: before its elv_rb_add), once per request the
 * machine plugged, whatever the number of elv_rb_add calls of the recorded tree.
 */
block.hook('rq_insert_each', (m, c, t, e) => {
  const list = m.blk.plugOf(c).flushing.splice(0);
  const ks = stackOf(c, t, e);
  for (let i = list.length - 1; i >= 0; i--) pushPath(ks, 'blk_rq_insert', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
block.at('dd_insert_requests', 'rq_insert_each');
// the template's flush: its requests go to the driver one by one after the scheduler took them (unplug)
block.hook('rq_dispatch_each', (_m, c, t, e) => {
  const list = (e.plugTaken as BlkRequest[] | undefined) ?? [];
  e.plugTaken = undefined;
  for (let i = list.length - 1; i >= 0; i--) pushPath(stackOf(c, t, e), 'blk_rq_queue', newEnv('rq', { req: list[i], rq: list[i], blkdev: e.blkdev }));
  return list.length ? H_PUSHED : H_CONT;
});
block.hook('dev_issue', (m, _c, _t, e) => {
  m.blk.issue(e.req as BlkRequest);
  return H_CONT;
});
// the bio and request of the path (submit_bio(bio), bio_endio(bio), blk_mq_start_request(rq) ...)
block.structArg('bio', () => (_m, _c, _t, e) => bioAddr(e.req as BlkRequest | undefined));
block.structArg('request', () => (_m, _c, _t, e) => requestAddr(e.req as BlkRequest | undefined));
block.tpArgs('block_rq_issue', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest)]);
block.tpArgs('block_rq_insert', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest)]);
block.tpArgs('block_rq_complete', (_m, _c, _t, e) => [requestAddr(e.req as BlkRequest), 0, (e.nrBytes as number | undefined) ?? (e.req as BlkRequest | undefined)?.bytes ?? 0]);
block.tpArgs('block_bio_queue', (_m, _c, _t, e) => [bioAddr(e.req as BlkRequest)]);
block.tpArgs('block_getrq', (_m, _c, _t, e) => [bioAddr(e.req as BlkRequest)]);
/**
 * A recorded tree's bio tracepoints fire for a bio of the machine's: a recorded submission the machine makes
 * no bio for (a swap-in's readahead or a reclaim's pageout longer than the machine's: mm/page_io.ts) has no
 * bio to trace (they would print a NULL bio's `0,0 R 0 + 0`).
 */
block.cond('has_bio', (_m, _c, _t, e) => e.req != null);
block.tpIf('block_bio_queue', 'has_bio');
block.tpIf('block_getrq', 'has_bio');
block.tpIf('block_bio_backmerge', 'has_bio');
/**
 * The stack the running code is on: a hook pushing a path pushes it where the calling path runs (a
 * task's, or the CPU's for softirq and writeback work).
 */
export const stackOf = (c: Cpu, t: Task, e: Record<string, unknown>): KStack => (c.ks.frames[c.ks.frames.length - 1]?.env === e ? c.ks : t.ks);

/**
 * block/blk-core.c submit_bio_noacct -> blk_partition_remap: a bio with data for a partition (sda1) has
 * the partition's first sector added to its sector and traces block_bio_remap(bio, the partition's
 * dev_t, the old sector); a bio for the whole disk (raw /dev/sda I/O) or without data (a flush) is not
 * remapped.  Every bio submitted for the ext4 partition or the swap file goes through it.
 */
const partitionBio = (q: BlkRequest | undefined): boolean => !!q && !q.flush && startSect(q) > 0;
block.cond('part_bio', (_m, _c, _t, e) => partitionBio(e.req as BlkRequest | undefined));
block.hook('bio_remap', (_m, c, t, e) => {
  if (!partitionBio(e.req as BlkRequest | undefined)) return H_CONT;
  pushPath(stackOf(c, t, e), 'blk_bio_remap', e);
  return H_PUSHED;
});
block.at('submit_bio_noacct', 'bio_remap');
block.tpArgs('block_bio_remap', (_m, _c, _t, e) => {
  const q = e.req as BlkRequest;
  return [bioAddr(q), (8 << 20) | 1, q.sector];
});

/**
 * block/blk-mq.c blk_add_rq_to_plug: the request that starts an empty plug traces block_plug (so does one
 * that finds the plug full and flushes it first: plugAdd).
 * The machine's plug decides (its bio is plugged before the tree's blk_add_rq_to_plug: a bio the
 * machine merged into the plugged request starts nothing, whatever the recorded tree added).
 */
function tracePlug(m: BlockMachine, c: Cpu, t: Task, e: Env): number {
  const tp = m.blk.plugOf(c);
  const first = tp.rqs[0];
  if (!first || tp.traced === first) return H_CONT;
  tp.traced = first;
  pushPath(stackOf(c, t, e), 'blk_plug', e);
  return H_PUSHED;
}
/**
 * The full plug's flush (blk_mq_flush_plug_list from blk_add_rq_to_plug): block_unplug, its requests
 * inserted (block_rq_insert) and dispatched, then block_plug for the request that starts the next plug
 * (pushed first, runs last).  In a recorded tree the tree's own flush, if it has one, dispatches them
 * (its scsi_queue_rq calls: io_dispatch) and finds nothing left to insert; in the template (`tpl`) each
 * goes to the driver through blk_rq_queue (block_rq_issue ...).
 */
function plugAdd(m: BlockMachine, c: Cpu, t: Task, e: Env, tpl: boolean): number {
  const full = m.blk.takeFull(c);
  if (!full.length) return tracePlug(m, c, t, e);
  const ks = stackOf(c, t, e);
  const tp = m.blk.plugOf(c);
  const first = tp.rqs[0];
  if (first && tp.traced !== first) { tp.traced = first; pushPath(ks, 'blk_plug', e); }
  const list = full.filter((r) => !r.owner);
  if (tpl) {
    // blk_mq_flush_plug_list of the full plug (templates/block.ts blk_flush_list): unplug, insert, dispatch
    tp.flushing = list;
    pushPath(ks, 'blk_flush_list', newEnv('blk_flush', { plugTaken: full, blkdev: e.blkdev }));
    return H_PUSHED;
  }
  const rq = (r: BlkRequest): Env => newEnv('rq', { req: r, rq: r, blkdev: e.blkdev });
  for (let i = list.length - 1; i >= 0; i--) pushPath(ks, 'blk_rq_insert', rq(list[i]));
  e.unplugRqs = list.length;
  if (list.length) pushPath(ks, 'blk_unplug', e);
  if (!e.ioReqs) { e.plugIssued = full; e.plugNext = 0; }
  for (const r of full) m.blk.issue(r);
  return H_PUSHED;
}
block.hook('plug_add', (m, c, t, e) => plugAdd(m, c, t, e, false));
block.hook('plug_add_tpl', (m, c, t, e) => plugAdd(m, c, t, e, true));
block.at('blk_add_rq_to_plug', 'plug_add');
/**
 * blk_mq_dispatch_plug_list (inlined in blk_mq_flush_plug_list.part.0) traces block_unplug with the
 * plug's request count (rq_count) before blk_mq_sched_insert_requests takes them: the requests the flush
 * took (`flushing`); a flush of a plug that holds none of the machine's requests traces nothing (the
 * real kernel's blk_mq_flush_plug_list returns before .part.0 for an empty plug).  A plug whose start no
 * recorded blk_add_rq_to_plug traced (the tree merged where the machine made a request) is traced here.
 */
function traceUnplug(m: BlockMachine, c: Cpu, t: Task, e: Env): number {
  const n = m.blk.plugOf(c).flushing.length;
  if (!n) return H_CONT;
  e.unplugRqs = n;
  const ks = stackOf(c, t, e);
  pushPath(ks, 'blk_unplug', e);
  // (pushed last, runs first)
  if (e.plugUntraced === true) pushPath(ks, 'blk_plug', e);
  e.plugUntraced = false;
  return H_PUSHED;
}
/** A traced flush takes CPU c's plug (noting whether block_plug traced its start): the requests it flushes. */
function takeFlush(m: BlockMachine, c: Cpu, e: Env): BlkRequest[] {
  const tp = m.blk.plugOf(c);
  e.plugUntraced = tp.rqs[0] !== undefined && tp.traced !== tp.rqs[0];
  return m.blk.takeFlush(c);
}
block.hook('unplug', (m, c, t, e) => traceUnplug(m, c, t, e));
block.at('blk_mq_flush_plug_list.part.0', 'unplug');
// the template's flush (templates/block.ts blk_dispatch): the plug taken (its block_unplug is traced
// in blk_mq_flush_plug_list.part.0, which runs only for a plug holding requests)
block.hook('plug_take', (m, c, _t, e) => {
  e.plugTaken = takeFlush(m, c, e);
  return H_CONT;
});
block.cond('plug_taken', (_m, _c, _t, e) => ((e.plugTaken as BlkRequest[] | undefined)?.length ?? 0) > 0);
/**
 * schedule's blk_flush_plug (sched_submit_work) where a hook sleeps with requests plugged: the traced
 * flush (templates/sys.ts blk_dispatch: block_unplug, each request's block_rq_insert and dispatch) pushed
 * on stack `ks`; the hook returns what this returns (H_PUSHED).
 */
export function flushPlugTraced(ks: KStack): number {
  pushPath(ks, 'blk_dispatch', newEnv('blk_flush'));
  return H_PUSHED;
}
block.hook('flush_done', (m, c) => { m.blk.plugOf(c).flushing = []; return H_CONT; });
block.at('blk_mq_flush_plug_list', 'flush_done', 'exit');
block.tpArgs('block_plug', () => [sdaQueue(kmem)]);
// (explicit: blk_finish_plug's flush, not schedule's; the event does not print it)
block.tpArgs('block_unplug', (_m, _c, _t, e) => [sdaQueue(kmem), (e.unplugRqs as number | undefined) ?? 0, true]);

/**
 * block/blk-core.c update_io_ticks(part, jiffies, end) from blk_mq_submit_bio (blk_account_io_start):
 * for the partition, then the whole disk, a stamp older than this jiffy moves to it and (6.1.y's "fix
 * that util can be greater than 100%") a submission asks part_in_flight whether the elapsed time was busy;
 * a completion (blk_account_io_done) moves the stamps without asking.
 */
function ioTicks(m: BlockMachine, e: Env, end: boolean): void {
  const now = Math.floor(m.now / m.tickNs);
  const r = e.req as BlkRequest | undefined;
  const part = !!r && startSect(r) > 0;
  const st = m.blk.ioStamp;
  e.ioTicksPart = part && now > st.part && !end;
  e.ioTicksDisk = now > st.disk && !end;
  if (part && now > st.part) st.part = now;
  if (now > st.disk) st.disk = now;
}
block.hook('io_ticks', (m, _c, _t, e) => { ioTicks(m, e, false); return H_CONT; });
block.hook('io_ticks_end', (m, _c, _t, e) => { ioTicks(m, e, true); return H_CONT; });
block.at('blk_update_request', 'io_ticks_end');
block.cond('io_ticks_part', (_m, _c, _t, e) => e.ioTicksPart === true);
block.cond('io_ticks_disk', (_m, _c, _t, e) => e.ioTicksDisk === true);

/**
 * block/blk-timeout.c blk_add_timer: the queue's timeout timer is armed (mod_timer, timer_start) when it is
 * not pending, for the request's deadline (sd's 30 s); it stays pending for the requests that follow.
 */
const RQ_TIMEOUT_NS = 30e9;
block.hook('rq_timeout', (m, _c, _t, e) => {
  e.rqTimerArm = !m.blk.rqTimer.armed;
  if (e.rqTimerArm) { e.ktimer = m.blk.rqTimer; e.timeout = RQ_TIMEOUT_NS; }
  return H_CONT;
});
block.cond('rq_timer_arm', (_m, _c, _t, e) => e.rqTimerArm === true);

block.hook('blk_irq', (m, c, _t, e) => {
  for (const b of requestBios(e.req as BlkRequest)) advanceBio(b);
  m.blk.done[c.id].push(e.req as BlkRequest);
  c.softirqPending |= 1 << 4; // BLOCK_SOFTIRQ
  return H_CONT;
});
block.hook('blk_done', (m, c, t, e) => {
  const list = m.blk.done[c.id].splice(0);
  for (const req of list) {
    const p = req.swap ? swapCompletion(m.blk.rand, req) : null;
    // a recorded completion: each bio_endio ends the request's next bio (bio_next)
    pushPath(c.ks, p ?? 'blk_end_request', newEnv('blk_end', { req, rq: req, swapio: req.swap, bios: p ? requestBios(req) : undefined }));
  }
  return list.length ? H_PUSHED : H_CONT;
});

/** The request bio `q` is part of: itself, or the plugged request it was back-merged into. */
export function swapRequestTarget(q: BlkRequest): BlkRequest {
  while (q.mergedInto) q = q.mergedInto;
  return q;
}

/**
 * Completions of swap requests as the `swap` recording ran them: blk_complete_reqs' callees (scsi_complete
 * ... bio_endio per bio ... blk_mq_free_request) of its BLOCK softirqs that completed one request, of swap
 * writes (end_swap_bio_write) or reads (end_swap_bio_read), with the number of bios each request had.
 */
const SWAP_RECORDING = 'swap';
interface Completion { readonly v: ModelVariant; readonly bios: number; code: CompiledPath | null; inline: boolean }
let swapCompletions: { write: Completion[]; read: Completion[] } | null = null;
function completionsOf(): { write: Completion[]; read: Completion[] } {
  if (swapCompletions) return swapCompletions;
  const out = { write: [] as Completion[], read: [] as Completion[] };
  const k = modelKey('softirq:blk_done_softirq');
  const rec = modelRecordings().findIndex((x) => x.name === SWAP_RECORDING);
  const fns = modelFunctions();
  const [fw, fr, fe, fs] = ['end_swap_bio_write', 'end_swap_bio_read', 'bio_endio', 'scsi_complete'].map((f) => fns.indexOf(f));
  for (let i = 0; k && rec >= 0 && i < variantCount(k); i++) {
    const v = variantAt(k, i);
    if ((v.recs & (2 ** rec)) === 0) continue;
    const n = shapeCallCounts(parseModelShape(v.shape));
    const w = n.get(fw) ?? 0, r = n.get(fr) ?? 0, bios = n.get(fe) ?? 0;
    if (n.get(fs) !== 1 || (w > 0) === (r > 0) || bios !== w + r) continue;
    (w ? out.write : out.read).push({ v, bios, code: null, inline: false });
  }
  return (swapCompletions = out);
}

/**
 * The recorded completion of swap request `q` (null: the recordings have none): one of those of its
 * direction whose number of bios is nearest to the request's (a page per bio), drawn by recorded frequency.
 */
function swapCompletion(rand: Prng, q: BlkRequest): CompiledPath | null {
  const all = q.write ? completionsOf().write : completionsOf().read;
  if (!all.length) return null;
  const bios = Math.max(1, Math.round(q.bytes / 4096));
  const d = (c: Completion): number => Math.abs(Math.log(c.bios / bios));
  const best = Math.min(...all.map(d));
  const near = all.filter((c) => d(c) <= best + 1e-9);
  let x = rand.next() * near.reduce((a, c) => a + c.v.count, 0);
  let pick = near[near.length - 1];
  for (const c of near) { if ((x -= c.v.count) < 0) { pick = c; break; } }
  const inline = int3SiteCount() > 0;
  if (!pick.code || pick.inline !== inline) {
    const shape = pick.v.shape;
    const top = firstCall(shape)!;
    const reqs = firstCall(shape, top.start)!;
    pick.code = compileShape('softirq:blk_done_softirq', shape, reqs.start, reqs.end, modelFnId(reqs.fn), modelFnId, inline);
    pick.inline = inline;
  }
  return pick.code;
}

/**
 * A swap bio ends (end_swap_bio_write / end_swap_bio_read, one per bio of the recorded completion): the
 * first ends the request, waking the tasks waiting for it (a swap-in's fault: mm/page_io.ts).  The
 * recorded tree's bio_endio calls take the request's bios in turn (bio_next: what ioblock.end sees).
 */
block.hook('bio_next', (_m, _c, _t, e) => {
  const bios = e.bios as BlkRequest[] | undefined;
  if (!bios) return H_CONT;
  const n = (e.bioNext as number | undefined) ?? 0;
  e.req = bios[Math.min(n, bios.length - 1)];
  e.bioNext = n + 1;
  return H_CONT;
});
block.at('bio_endio', 'bio_next');
block.hook('swap_end_io', (_m, c, _t, e) => {
  const req = (e.rq ?? e.req) as BlkRequest | undefined;
  if (!req || req.done) return H_CONT;
  req.done = true;
  return pushWakeups(c, req.waiters.splice(0));
});
block.at('end_swap_bio_write', 'swap_end_io');
block.at('end_swap_bio_read', 'swap_end_io');
block.cond('swapio', (_m, _c, _t, e) => e.swapio === true);
block.hook('bio_done', (m, c, _t, e) => {
  const req = e.req as BlkRequest;
  req.done = true;
  const owner = req.owner;
  if (owner) {
    // blk_flush_complete_seq: the next step goes to the device, after the last the request itself ends (+0)
    const next = owner.seq?.shift();
    if (next) pushPath(c.ks, 'blk_rq_queue', newEnv('rq', { req: next, rq: next }));
    else { advanceBio(owner); pushPath(c.ks, 'blk_end_request', newEnv('blk_end', { req: owner, nrBytes: 0 })); }
    return H_PUSHED;
  }
  const ino = req.ino;
  const wake = [...req.waiters];
  if (ino) {
    for (const i of req.pages) if (ino.pc[i] === 3 || ino.pc[i] === 4) ino.pc[i] = 1;
    if (ino.waiters) wake.push(...ino.waiters.splice(0));
  }
  return pushWakeups(c, wake);
});
block.hook('flush_plug', (m, c, _t, e) => {
  const list = takeFlush(m, c, e);
  // the swap requests a recorded tree dispatches next (its scsi_queue_rq calls: io_dispatch)
  if (!e.ioReqs && list.some((r) => r.swap)) { e.plugIssued = list; e.plugNext = 0; }
  for (const r of list) m.blk.issue(r);
  return H_CONT;
});

/**
 * The bios a recorded syscall tree submits (`e.ioReqs`: a read's readahead, a direct read or write,
 * made by the call's semantics before its tree runs): they enter the CPU's plug at the tree's first
 * submit_bio (blk_mq_submit_bio's blk_add_rq_to_plug), go to the device at blk_mq_flush_plug_list
 * (blk_finish_plug), and the caller sleeps at io_schedule / blk_io_schedule (the tree's '^') until they
 * complete (bio_endio wakes the request's waiters).
 */
function queueIo(m: BlockMachine, c: Cpu, e: Record<string, unknown>): void {
  const reqs = e.ioReqs as BlkRequest[] | undefined;
  if (!reqs || e.ioQueued === true) return;
  e.ioQueued = true;
  // the request the block tracepoints of the tree describe (block_bio_queue ... block_rq_issue)
  e.req = reqs[0];
  for (const r of reqs) m.blk.queue(c, r);
}
block.hook('io_submit', (m, c, _t, e) => {
  queueIo(m, c, e);
  return H_CONT;
});
block.hook('io_wait', (m, c, t, e) => {
  const reqs = e.ioReqs as BlkRequest[] | undefined;
  if (!reqs) return H_CONT;
  // schedule's blk_flush_plug: what the task plugged goes to the device before it sleeps
  queueIo(m, c, e);
  m.blk.flushPlug(c);
  const r = reqs.find((q) => !q.done);
  if (!r) return H_CONT;
  if (!r.waiters.includes(t)) r.waiters.push(t);
  t.state = TASK_UNINTERRUPTIBLE;
  t.wchan = r.dio ? 'blk_io_schedule' : 'folio_wait_bit_common';
  return H_CONT;
});
// a tree with no submit_bio or plug flush where the machine started I/O: it goes to the device when the call ends
block.hook('io_flush', (m, c, _t, e) => {
  if (!e.ioReqs) return H_CONT;
  queueIo(m, c, e);
  m.blk.flushPlug(c);
  return H_CONT;
});
// the driver takes the requests in order (scsi_queue_rq, whose blk_mq_start_request traces block_rq_issue)
block.hook('io_dispatch', (_m, _c, _t, e) => {
  const reqs = (e.ioReqs ?? e.plugIssued) as BlkRequest[] | undefined;
  if (!reqs) return H_CONT;
  if (!e.ioReqs) {
    const n = e.plugNext as number;
    if (n < reqs.length) { e.req = reqs[n]; e.plugNext = n + 1; }
    return H_CONT;
  }
  const i = (e.ioNext as number | undefined) ?? 0;
  e.req = reqs[Math.min(i, reqs.length - 1)];
  e.ioNext = i + 1;
  return H_CONT;
});
block.at('submit_bio', 'io_submit');
block.at('scsi_queue_rq', 'io_dispatch');
block.at('blk_mq_flush_plug_list', 'flush_plug');
block.at('io_schedule', 'io_wait');
block.at('blk_io_schedule', 'io_wait');
block.at('vfs_read', 'io_flush', 'exit');
block.at('vfs_write', 'io_flush', 'exit');
