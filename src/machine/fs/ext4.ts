/**
 * ext4 and its journal (fs/ext4, fs/jbd2): which files and block requests take ext4's paths,
 * and the jbd2/sda1-8 thread: woken by fsync/sync, committing the journal and sleeping for the
 * 5 s commit interval.
 */
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { pushPath, newEnv, H_CONT, H_PUSHED, H_SLEEP, H_AGAIN } from '../paths/kexec';
import { TASK_INTERRUPTIBLE, TASK_RUNNING, TASK_UNINTERRUPTIBLE } from '../include/sched';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { fdOf } from '../include/fdtable';
import { Inode, PAGE } from '../include/fs';
import type { OpenFile } from '../include/fs';
import { BlkRequest, REQ_SYNC, REQ_META, REQ_PRIO, REQ_FUA, REQ_PREFLUSH } from '../include/blkdev';
import { pushWakeups } from '../kernel/sched/core';
import { timedWake } from '../kernel/time';
import { startWriteback } from '../mm/page_writeback';
import { ext4DirBlocks, ext4LeafStarts } from './ext4_dirhash';

export const ext4 = new Semantics<FsMachine>('fs/ext4');

const isExt4 = (e: Env) => (e.ino as Inode | undefined)?.fs === 'ext4' && e.blkdev !== true;
ext4.cond('ext4file', (_m, _c, _t, e) => isExt4(e));
ext4.cond('othfile', (_m, _c, _t, e) => e.blkdev !== true && !isExt4(e));
const reqExt4 = (e: Env) => { const r = e.req as BlkRequest | undefined; return !!r && !r.swap && !r.dio && r.ino?.fs === 'ext4' && !r.ino.isBlk; };
ext4.cond('ext4read', (_m, _c, _t, e) => e.blkdev !== true && reqExt4(e) && !(e.req as BlkRequest).write);
ext4.cond('ext4write', (_m, _c, _t, e) => reqExt4(e) && (e.req as BlkRequest).write);
ext4.cond('ext4wbio', (_m, _c, _t, e) => e.swapio !== true && reqExt4(e) && (e.req as BlkRequest).write);
const dio = (e: Env) => (e.req as BlkRequest | undefined)?.dio === true;
ext4.cond('diobio', (_m, _c, _t, e) => e.swapio !== true && dio(e));
ext4.cond('plainbio', (_m, _c, _t, e) => e.swapio !== true && !dio(e) && !(reqExt4(e) && (e.req as BlkRequest).write));
/**
 * The journal of sda1 (fs/jbd2): ext4's journal inode 8 is one extent at fs block 196608 (the real
 * guest's `debugfs -R 'stat <8>'`: (0-8191):196608-204799, 4 KiB blocks); the running transaction
 * holds the metadata blocks the file system dirtied, a commit logs a descriptor block, those blocks
 * and a commit block at the journal head, then they are dirty in the block device's cache until
 * sync writes them back (the checkpoint). data/recordings/guest/sync-block.txt
 * (scripts/record/guest/sync-block.sh) has each step.
 */
export class Journal {
  /** the next free journal block: the guest's first commit after boot logged at block 19 */
  head = 19;
  /** metadata blocks (fs block numbers) of the running transaction */
  readonly meta = new Set<number>();
  /** committed metadata blocks not yet written in place */
  readonly checkpoint = new Set<number>();
  /** tasks waiting for the running transaction's commit (jbd2_log_wait_commit) */
  readonly waiters: Task[] = [];
  /** inodes whose creation a commit has logged already */
  private readonly known = new WeakSet<Inode>();
  /** each logged inode's size when its metadata was last logged */
  private readonly loggedSize = new WeakMap<Inode, number>();
  /** inodes whose blocks were freed (O_TRUNC) since their metadata was last logged: rewriting them allocates anew */
  readonly reallocated = new WeakSet<Inode>();
  /**
   * inodes in EXT4_STATE_DA_ALLOC_CLOSE: truncated to 0 bytes (ext4_truncate, the auto_da_alloc
   * heuristic for the "truncate and rewrite" pattern), whose delayed-allocation blocks the last close
   * allocates and writes (ext4ReleaseFile)
   */
  readonly daAllocClose = new WeakSet<Inode>();
  /**
   * fdatasync needs a commit (ext4_sync_file with datasync: the inode's i_datasync_tid) only when
   * metadata a later read needs changed since it was logged: a new inode, its size, or its blocks
   * (freed by a truncate and allocated again at writeback); overwriting allocated blocks needs none.
   */
  datasyncNeedsCommit(ino: Inode): boolean {
    return !this.known.has(ino) || this.reallocated.has(ino) || this.loggedSize.get(ino) !== ino.size;
  }
  /** the inode table block of each file logged, and the next inode slot (from the guest's /root/f) */
  private readonly itables = new WeakMap<Inode, number>();
  private slot = 15;
  /** first sector (of sda1) of journal block b */
  static sector(b: number): number { return (196608 + b) * 8; }
  /**
   * Writing back an ext4 file dirties its allocation's metadata (the guest's `dd of=/root/f; sync`
   * logged 6 blocks, at fs blocks 1 (group descriptors), 271 and 274 (the bitmaps), 303 (/root's
   * inode), 1306 (the new inode's table block) and 8698 (/root's directory block), the sectors sync writes back;
   * rewriting an existing file (conv=fdatasync) logged 4).
   */
  touch(ino: Inode): void {
    if (ino.fs !== 'ext4' || ino.isBlk) return;
    // 16 inodes of 256 bytes per block: the files a commit logs get the guest's inode table slots in
    // order (its /root/f was the last inode of block 1306, the next file's in 1307; the recording
    // has no inode numbers, so tapsim's own numbering is not used)
    let itable = this.itables.get(ino);
    if (itable === undefined) this.itables.set(ino, (itable = 1306 + Math.floor(this.slot++ / 16)));
    // a file only extended since it was logged (blocks appended, `dd seek=16 conv=notrunc,fdatasync` on the
    // guest) logs 3 (the group descriptors, the block bitmap, its inode's table block)
    const grown = this.known.has(ino) && !this.reallocated.has(ino) && (this.loggedSize.get(ino) ?? 0) < ino.size;
    for (const b of !this.known.has(ino) ? [1, 271, 274, 303, itable, 8698] : grown ? [1, 271, itable] : [1, 271, 303, itable]) this.meta.add(b);
    this.known.add(ino);
    this.loggedSize.set(ino, ino.size);
    this.reallocated.delete(ino);
  }
}
const journals = new WeakMap<object, Journal>();
export function journalOf(m: FsMachine): Journal {
  let j = journals.get(m.fs);
  if (!j) { j = new Journal(); journals.set(m.fs, j); }
  return j;
}

/**
 * ext4_truncate of a regular file to `size` bytes: at 0 bytes it sets EXT4_STATE_DA_ALLOC_CLOSE (unless
 * the file system is mounted noauto_da_alloc, which the guest's / is not).  An open with O_TRUNC of a file
 * it created truncates nothing (do_open: FMODE_CREATED clears will_truncate).
 */
export function ext4Truncated(m: FsMachine, ino: Inode, size: number): void {
  if (ino.fs === 'ext4' && ino.isReg && size === 0) journalOf(m).daAllocClose.add(ino);
}
/**
 * ext4_release_file (the last fput of an ext4 file): an inode in EXT4_STATE_DA_ALLOC_CLOSE leaves it, and
 * ext4_alloc_da_blocks writes its delayed-allocation pages when it has blocks reserved (dirty pages not
 * yet allocated): filemap_flush, WB_SYNC_NONE, without waiting.  True when there is that flush to run:
 * close(2)'s deferred fput then runs the recorded tree that flushes (the tree feature 'da' of
 * `tail:task_work_run`, paths/model.ts), whose ext4_alloc_da_blocks starts the writeback (da_alloc).
 */
export function ext4ReleaseFile(m: FsMachine, ino: Inode): boolean {
  const jr = journalOf(m);
  if (!jr.daAllocClose.has(ino)) return false;
  jr.daAllocClose.delete(ino);
  return ino.dirtyPages > 0;
}
/**
 * ext4_release_dir (the last fput of an ext4 directory): a directory read through the htree code
 * (ext4_dx_readdir: every directory of the recorder's disk, dir_index on) keeps the entries of its last
 * ext4_htree_fill_tree in an rb-tree of struct fname, which ext4_htree_free_dir_info's
 * free_rb_tree_fname frees, one kfree each.  A fill reads one leaf block: for a one-block directory all
 * its entries, "." and ".." among them, which the getdents64 that reaches the end leaves in the tree (the
 * next one returns 0 before any fill); for an indexed one the last leaf's, taken here as an even share of
 * the entries over its leaf blocks (the machine keeps no leaves).  The number of fnames freed, -1 when
 * the directory was never read (no dir_info: no free_rb_tree_fname).
 */
export function ext4DirFnames(f: OpenFile): number {
  const d = f.inode;
  if (!d || !d.isDir || d.fs !== 'ext4' || d.pseudo || d.dyn || !f.dirNames) return -1;
  // the leaf of the last fill: the last one whose first entry the reads reached (ext4Fills)
  const starts = ext4LeafStarts(f.dirNames.length, ext4DirBlocks(d));
  let k = 0;
  while (k + 2 < starts.length && starts[k + 1] <= f.pos) k++;
  return starts[k + 1] - starts[k];
}

// free_rb_tree_fname's kfree of each fname (close's deferred fput of a directory: fs/open.ts close_recorded;
// a getdents64's refill of the readdir's tree: fs/stat.ts, ext4Fills)
ext4.count('kfree', (_m, _c, _t, e) => (typeof e.dirFnames === 'number' ? e.dirFnames : undefined));

/**
 * ext4_alloc_da_blocks -> filemap_flush: the inode's dirty pages are allocated (their metadata joins the
 * running transaction: Journal.touch) and written as the bios the recorded tree submits (`e.ioReqs`:
 * block/core.ts io_submit at its submit_bio, issued at its blk_mq_flush_plug_list); nobody waits for them.
 */
ext4.hook('da_alloc', (m, c, _t, e) => {
  const ino = e.daIno as Inode | undefined;
  if (!ino || e.ioReqs) return H_CONT;
  journalOf(m).touch(ino);
  const { reqs } = startWriteback(m, c.id, [ino], 0);
  if (reqs.length) { e.ioReqs = reqs; e.req = reqs[0]; }
  return H_CONT;
});
ext4.at('ext4_alloc_da_blocks', 'da_alloc');
ext4.tpArgs('ext4_alloc_da_blocks', (_m, _c, _t, e) => [e.daIno]);

/** An empty REQ_PREFLUSH write: the disk's cache flushed (blkdev_issue_flush, "FWS 0 + 0" as the guest traces it). */
export function flushRequest(cpu: number): BlkRequest {
  return { ino: null, pages: [], write: true, swap: false, sector: 0, bytes: 0, cpu, waiters: [], flags: REQ_SYNC | REQ_PREFLUSH };
}
/** A 4 KiB block request of the journal or the metadata (REQ_SYNC | REQ_META | REQ_PRIO: "WSM" as the guest traces them). */
export function metaRequest(sector: number, cpu: number, flags = 0, merge = false): BlkRequest {
  return { ino: null, pages: [], write: true, swap: false, sector, bytes: PAGE, cpu, waiters: [], flags: REQ_SYNC | REQ_META | REQ_PRIO | flags, merge };
}

/**
 * fsync/fdatasync/sync: wake the journal thread for a commit and wait for it (jbd2_log_wait_commit);
 * fdatasync only when the file's size or allocation changed (Journal.datasyncNeedsCommit)
 */
ext4.hook('jbd2_kick', (m, c, t, e) => {
  const jr = journalOf(m);
  if (!e.jbd2Kicked) {
    e.jbd2Kicked = true;
    const ino = (e.file as { inode?: Inode } | undefined)?.inode ?? (e.a ? fdOf(t, (e.a as number[])[0])?.inode : null);
    if (ino && e.name === 'fdatasync' && !jr.datasyncNeedsCommit(ino)) {
      // nothing to commit: ext4_sync_file flushes the disk's cache itself (blkdev_issue_flush), as the
      // guest's `dd conv=notrunc,fdatasync` over allocated blocks shows ("FWS 0 + 0 [dd]", then "FF")
      const fl = flushRequest(c.id);
      fl.waiters.push(t);
      e.flushRq = fl;
      pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
      pushPath(t.ks, 'bio_submit', newEnv('bio', { req: fl, rq: fl, bio: fl }));
      return H_AGAIN;
    }
    if (ino) jr.touch(ino);
    const j = m.procs.jbd2;
    if (!j || !jr.meta.size) return H_CONT;
    j.scratch.commit = true;
    jr.waiters.push(t);
    if (j.state !== TASK_RUNNING) { const r = pushWakeups(c, [j]); if (r === H_PUSHED) return H_AGAIN; }
    return H_AGAIN;
  }
  if (jr.waiters.includes(t)) {
    t.state = TASK_UNINTERRUPTIBLE;
    t.wchan = 'jbd2_log_wait_commit';
    return H_SLEEP;
  }
  const fl = e.flushRq as BlkRequest | undefined;
  if (fl && !fl.done) {
    t.state = TASK_UNINTERRUPTIBLE;
    t.wchan = 'submit_bio_wait';
    return H_SLEEP;
  }
  return H_CONT;
});
/**
 * kjournald2's commit (jbd2_journal_commit_transaction): the descriptor and the logged blocks go
 * out as one bio each, merged into one request ("WSM ... + 56" for 7 blocks), and once they are
 * on disk the commit block, with REQ_PREFLUSH | REQ_FUA ("FWFSM"); then the waiters wake.
 */
ext4.hook('jbd2_commit', (m, c, t, e) => {
  const jr = journalOf(m);
  const step = (e.step as number | undefined) ?? 0;
  if (step === 0) {
    t.scratch.commit = false;
    if (!jr.meta.size) {
      e.step = 3;
      return jr.waiters.length ? pushWakeups(c, jr.waiters.splice(0)) : H_CONT;
    }
    const n = 1 + jr.meta.size;
    const bios: BlkRequest[] = [];
    for (let i = 0; i < n; i++) bios.push(metaRequest(Journal.sector(jr.head + i), c.id, 0, true));
    bios[0].waiters.push(t);
    e.log = bios[0];
    e.step = 1;
    pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
    for (let i = n - 1; i >= 0; i--) pushPath(t.ks, 'bio_submit', newEnv('bio', { req: bios[i], rq: bios[i], bio: bios[i] }));
    return H_AGAIN;
  }
  const wait = (r: BlkRequest): number => { t.state = TASK_UNINTERRUPTIBLE; t.wchan = 'jbd2_journal_commit_transaction'; void r; return H_SLEEP; };
  if (step === 1) {
    const log = e.log as BlkRequest;
    if (!log.done) return wait(log);
    const commit = metaRequest(Journal.sector(jr.head + 1 + jr.meta.size), c.id, REQ_PREFLUSH | REQ_FUA);
    commit.waiters.push(t);
    e.commit = commit;
    e.step = 2;
    pushPath(t.ks, 'blk_plug_flush', newEnv('bio'));
    pushPath(t.ks, 'bio_submit', newEnv('bio', { req: commit, rq: commit, bio: commit }));
    return H_AGAIN;
  }
  if (step === 2) {
    const commit = e.commit as BlkRequest;
    if (!commit.done) return wait(commit);
    jr.head += 2 + jr.meta.size;
    for (const b of jr.meta) jr.checkpoint.add(b);
    jr.meta.clear();
    e.step = 3;
    if (jr.waiters.length) return pushWakeups(c, jr.waiters.splice(0));
  }
  return H_CONT;
});
ext4.hook('jbd2_sleep', (m, _c, t, e) => {
  if (e.slept) return H_CONT;
  e.slept = true;
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'kjournald2';
  timedWake(m, t, 5e9);
  return H_SLEEP;
});

/** Blocks per ext4 block group (4 KiB blocks: 32768, as sda1's `dumpe2fs` says). */
export const EXT4_BLOCKS_PER_GROUP = 32768;
/** s_mb_stream_request: a file of more blocks allocates from its own preallocations, a smaller one from its CPU's locality group's. */
const MB_STREAM_REQUEST = 16;

/** One block allocation (fs/ext4/mballoc.c ext4_mb_new_blocks) as the machine works it out. */
export interface MbAlloc {
  /** the request: logical block, length, goal (the block after the left neighbour's) */
  lblk: number; len: number; goal: number;
  /** the physical block given */
  block: number;
  /** the regular allocator found it (ext4_mb_regular_allocator: no preallocation covered the request) */
  regular: boolean;
  /** the inode preallocation it made (ext4_mb_new_inode_pa), logical start and length, or null */
  pa: { lstart: number; len: number } | null;
}

/** Each file's inode preallocation (EXT4_I(inode)->i_prealloc_list: one, as a sequential writer has): logical [start, end). */
const inodePa = new WeakMap<Inode, { start: number; end: number }>();

/**
 * ext4_mb_normalize_request's goal window for a request ending at logical block `end` (4 KiB blocks):
 * up to 1 MiB the file's size rounded up to a power of two from 16 KiB, starting at 0; up to 4 MiB the 2 MiB
 * window holding the request, up to 8 MiB the 4 MiB one, else 8 MiB windows.
 */
function normalizedWindow(lblk: number, end: number): [number, number] {
  const bytes = end * PAGE;
  if (bytes <= 1 << 20) return [0, Math.max(16 << 10, 2 ** Math.ceil(Math.log2(bytes))) / PAGE];
  const win = bytes <= 4 << 20 ? 2 << 20 : bytes <= 8 << 20 ? 4 << 20 : 8 << 20;
  const w = win / PAGE;
  const start = Math.floor(lblk / w) * w;
  return [start, start + w];
}

/**
 * The allocation of blocks [lblk, lblk + len) of `ino` appended to its `allocated` blocks (a direct
 * write past the end: ext4_iomap_begin -> ext4_map_blocks -> ext4_ext_map_blocks -> ext4_mb_new_blocks).
 * A file of at most MB_STREAM_REQUEST blocks takes its blocks from the CPU's locality group
 * preallocation (ext4_mb_group_or_file: EXT4_MB_HINT_GROUP_ALLOC); a larger one from its inode
 * preallocation when that covers the request, else the regular allocator finds them and, when the
 * normalized window (normalizedWindow, trimmed to start at the request: the blocks before are the
 * file's) is larger than the request, keeps the rest as the inode's new preallocation.  The guest's dd
 * bs=64k oflag=direct of 64 blocks (data/recordings/dd-direct-write: events run): preallocations at
 * blocks 32, 64, 128, 256, 512 of 32, 64, 128, 256, 512 blocks, the regular allocator at those and 16,
 * 58 requests served by a preallocation.
 */
export function mbAllocate(ino: Inode, lblk: number, len: number, allocated: number): MbAlloc {
  const block = ino.diskBlock + lblk;
  const a: MbAlloc = { lblk, len, goal: block, block, regular: false, pa: null };
  if (allocated === 0) inodePa.delete(ino);
  const end = lblk + len;
  if (Math.max(end, allocated) <= MB_STREAM_REQUEST) return a;
  const pa = inodePa.get(ino);
  if (pa && lblk >= pa.start && end <= pa.end) return a;
  a.regular = true;
  const [, wEnd] = normalizedWindow(lblk, end);
  if (wEnd - lblk > len) {
    a.pa = { lstart: lblk, len: wEnd - lblk };
    inodePa.set(ino, { start: lblk, end: wEnd });
  } else inodePa.delete(ino);
  return a;
}
