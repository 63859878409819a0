/**
 * The TP_PROTO arguments of the ext4 and jbd2 module events the recorded trees fire (sites in
 * paths/tpsites.ts; formats in data/kernel/module_events.json.gz), from the path environment and the
 * machine's inode: its number and super block (dev 8,1), the page of a buffered write being worked on
 * (`pos`, `len`: ext4_da_write_begin/end per page, as generic_perform_write calls them), the file's
 * extent (`Inode.diskBlock`: lblk N maps to diskBlock + N), the pages reserved for delayed allocation
 * (`Inode.dirtyPages`), the handle's credits and the caller's return address (_RET_IP_) from the kernel
 * stack.  Values checked against the recordings' events runs (data/recordings/dd-write.json.gz:
 * `ext4_da_write_begin dev 8,1 ino 14162 pos 4096 len 4096`, `jbd2_handle_start dev 8,1 tid 75 type 1
 * line_no 6196 requested_blocks 3`, `ext4_journal_start dev 8,1 blocks 2, rsv_blocks 0, revoke_creds 8,
 * caller ext4_dirty_inode+0x34/0x80 [ext4]`).
 */
import { Semantics } from './semantics';
import { structArgOf } from './semantics';
import { installMaterializers } from './args';
import { stackRetIp } from '../../kernel/callsites';
import { functionId } from '../../kernel/ftrace';
import { kmem } from '../../kernel/memory';
import { btfLookupType } from '../../kernel/btf';
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Task } from '../include/sched';
import type { Env } from '../include/kstack';
import { PAGE, type Inode } from '../include/fs';
import { truncFolio } from '../mm/filemap';
import { EXT4_BLOCKS_PER_GROUP, type MbAlloc } from '../fs/ext4';
import { H_CONT } from './kexec';
import type { BlkRequest } from '../include/blkdev';
import { kallsymsLookupName } from '../../kernel/kallsyms';

export const ext4Trace = new Semantics('ext4_trace');

/** extent status bits as the events print them (ext4_es_status() >> ES_SHIFT): written, delayed */
const ES_WRITTEN = 1, ES_DELAYED = 4;

let inodeArg: ((m: MachineCore, c: Cpu, t: Task, e: Env) => unknown) | null = null;
/** The inode the path works on (fs/layout.ts's `struct inode *` argument: the environment's, the file's). */
function inodeOf(m: MachineCore, c: Cpu, t: Task, e: Env): Inode | null {
  if (!inodeArg) {
    installMaterializers();
    inodeArg = structArgOf('inode')?.('trace_ext4', 'inode', 'struct inode') ?? (() => e.ino);
  }
  const v = inodeArg(m, c, t, e);
  return v && typeof v === 'object' ? (v as Inode) : null;
}

/** The bytes a buffered write covers: [pos, pos + count). */
function writeSpan(e: Env): { pos: number; count: number } | null {
  const b = e.buf;
  if (typeof e.pos !== 'number' || !(b instanceof Uint8Array)) return null;
  return { pos: e.pos, count: b.length };
}

/**
 * The page of a buffered write generic_perform_write is on: the k-th ext4_da_write_begin of the write
 * (`e.tpPage`, counted by the write_begin event), its file offset and length within the page.
 */
function writePage(e: Env): { pos: number; len: number; k: number } {
  const w = writeSpan(e);
  const k = typeof e.tpPage === 'number' ? e.tpPage : 0;
  if (!w) return { pos: 0, len: PAGE, k };
  let pos = w.pos;
  for (let i = 0; i < k; i++) pos = (Math.floor(pos / PAGE) + 1) * PAGE;
  const end = w.pos + w.count;
  return { pos, len: Math.max(0, Math.min(end, (Math.floor(pos / PAGE) + 1) * PAGE) - pos), k };
}

/** The logical block a lookup is for: the write's page, a read's first page (filemap), else 0. */
function lblkOf(e: Env): number {
  if (writeSpan(e)) return Math.floor(writePage(e).pos / PAGE);
  if (typeof e.first === 'number') return e.first;
  return typeof e.pos === 'number' ? Math.floor(e.pos / PAGE) : 0;
}

/** Whether the block is already mapped on disk: a write past the data the file had is not (delayed allocation). */
function mapped(e: Env, ino: Inode | null, lblk: number): boolean {
  if (!ino || !ino.diskBlock) return false;
  const w = writeSpan(e);
  if (w && lblk * PAGE >= w.pos && w.pos + w.count >= ino.size) return false;
  return lblk * PAGE < ino.size;
}

function extent(e: Env, ino: Inode | null, lblk: number): { lblk: number; len: number; pblk: number; status: number } {
  return mapped(e, ino, lblk) ? { lblk, len: 1, pblk: ino!.diskBlock + lblk, status: ES_WRITTEN } : { lblk: 0, len: 0, pblk: 0, status: 0 };
}

/** _RET_IP_ of the function holding the trace call: the return address in its caller (the kernel stack). */
const retIp = (c: Cpu): number => stackRetIp(c.ks.fn, c.ks.sp);

/** The super block's address of an inode (its i_sb, laid out by fs/layout.ts). */
function sbOf(ino: Inode | null): number {
  if (!ino) return 0;
  try {
    const a = kmem.addrOf(ino);
    return kmem.readPtr(a + kmem.fieldOf('struct inode', 'i_sb').offset);
  } catch {
    return 0;
  }
}

/** The super block's s_dev of an inode (dev_t: major << 20 | minor). */
let inodeType: number | null = null;
function devOf(ino: Inode | null): number {
  if (!ino) return 0;
  installMaterializers();
  inodeType ??= btfLookupType('struct inode');
  try {
    const sb = kmem.readPtr(kmem.addrOf(ino, inodeType) + kmem.fieldOf('struct inode', 'i_sb').offset);
    return sb ? Number(kmem.readUnsigned(sb + kmem.fieldOf('struct super_block', 's_dev').offset, 4)) : 0;
  } catch {
    return 0;
  }
}

// The handle each caller starts (fs/ext4/ext4_jbd2.h ext4_journal_start(): credits, EXT4_HT_* type, the
// caller's __LINE__ in Debian's 6.1.192 source), as the recordings show them (`ext4_journal_start ...
// blocks 2 ... caller ext4_dirty_inode`, `jbd2_handle_start ... type 1 line_no 6196 requested_blocks 3`;
// jbd2 asks one credit more than ext4 passes): a new inode's by the inode operation creating it.
const HANDLES: Record<string, [number, number, number]> = {
  ext4_dirty_inode: [2, 1, 6196], ext4_iomap_begin: [28, 3, 3421], ext4_handle_inode_extension: [2, 1, 308],
  ext4_file_write_iter: [2, 1, 544], ext4_evict_inode: [29, 5, 253], ext4_rename: [62, 4, 3922], __ext4_unlink: [24, 4, 3313],
  __ext4_new_inode: [53, 4, 0],
};
const NEW_INODE_LINES: Record<string, number> = { ext4_create: 2885, ext4_mkdir: 3068, ext4_symlink: 3446 };
let handleIds: Map<number, [number, number, number]> | null = null;
let lineIds: Map<number, number> | null = null;
/** [blocks, type, line] of the handle started by the function `depth` frames below the trace call's. */
function handleAt(c: Cpu, depth: number): [number, number, number] {
  if (!handleIds) {
    handleIds = new Map(Object.entries(HANDLES).map(([n, h]) => [functionId(n), h]));
    lineIds = new Map(Object.entries(NEW_INODE_LINES).map(([n, l]) => [functionId(n), l]));
  }
  const ks = c.ks;
  const f = ks.sp > depth ? ks.fn[ks.sp - 1 - depth] : -1;
  const h = handleIds.get(f);
  if (!h) return [1, 0, 0];
  if (h[2] !== 0) return h;
  const up = ks.sp > depth + 1 ? ks.fn[ks.sp - 2 - depth] : -1;
  return [h[0], h[1], lineIds!.get(up) ?? 0];
}

/**
 * The running transaction's id: the recordings' guests were at tid 45-75 when a workload started; the
 * machine starts at 75 and, as jbd2 commits every 5 s (the default commit interval) while anything is
 * dirty, counts one per 5 s of machine time since its start.
 */
function tid(m: MachineCore): number {
  return 75 + Math.floor(Math.max(0, m.now - m.bootNs) / 5e9);
}

// fs/ext4/extents_status.c
ext4Trace.tpArgs('ext4_es_lookup_extent_enter', (m, c, t, e) => [inodeOf(m, c, t, e), lblkOf(e)]);
ext4Trace.tpArgs('ext4_es_lookup_extent_exit', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  const es = extent(e, ino, lblkOf(e));
  return [ino, es, es.status ? 1 : 0];
});
ext4Trace.tpArgs('ext4_es_find_extent_range_enter', (m, c, t, e) => [inodeOf(m, c, t, e), lblkOf(e)]);
ext4Trace.tpArgs('ext4_es_find_extent_range_exit', (m, c, t, e) => [inodeOf(m, c, t, e), { lblk: 0, len: 0, pblk: 0, status: 0 }]);
const esInsert = (m: MachineCore, c: Cpu, t: Task, e: Env): unknown[] => {
  const ino = inodeOf(m, c, t, e);
  const lblk = lblkOf(e);
  return [ino, { lblk, len: 1, pblk: ino ? ino.diskBlock + lblk : 0, status: ES_WRITTEN }];
};
ext4Trace.tpArgs('ext4_es_insert_extent', esInsert);
ext4Trace.tpArgs('ext4_es_cache_extent', esInsert);
ext4Trace.tpArgs('ext4_es_insert_delayed_block', (m, c, t, e) =>
  [inodeOf(m, c, t, e), { lblk: lblkOf(e), len: 1, pblk: 0, status: ES_DELAYED }, false]);

// fs/ext4/inode.c: the delayed-allocation write of one page
ext4Trace.tpArgs('ext4_da_write_begin', (m, c, t, e) => {
  if (writeSpan(e)) e.tpPage = typeof e.tpBegun === 'number' ? e.tpBegun : 0;
  const p = writePage(e);
  e.tpBegun = p.k + 1;
  return [inodeOf(m, c, t, e), p.pos, p.len];
});
ext4Trace.tpArgs('ext4_da_write_end', (m, c, t, e) => {
  const p = writePage(e);
  return [inodeOf(m, c, t, e), p.pos, p.len, p.len];
});
ext4Trace.tpArgs('ext4_da_reserve_space', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  const w = writeSpan(e);
  // the write's pages are dirty already (its data went in first): the ones not yet reserved are after this one
  const left = w ? Math.max(0, Math.ceil((w.pos + w.count) / PAGE) - Math.floor(writePage(e).pos / PAGE) - 1) : 0;
  return [ino, { reserved_data_blocks: Math.max(1, (ino?.dirtyPages ?? 1) - left) }];
});
ext4Trace.tpArgs('ext4_mark_inode_dirty', (m, c, t, e) => [inodeOf(m, c, t, e), retIp(c)]);

// fs/ext4/ext4_jbd2.c, fs/jbd2/transaction.c: a handle's start (in __ext4_journal_start_sb, whose caller
// starts it; jbd2__journal_start one frame deeper) and its statistics at the outermost stop
// (jbd2_journal_stop under __ext4_journal_stop: the handle of the path's last start)
ext4Trace.tpArgs('ext4_journal_start', (m, c, t, e) => [sbOf(inodeOf(m, c, t, e)), handleAt(c, 1)[0], 0, 8, retIp(c)]);
/** MKDEV(8, 1): /dev/sda1, the journal's device (journal->j_fs_dev->bd_dev) */
const SDA1 = (8 << 20) | 1;
ext4Trace.tpArgs('jbd2_handle_start', (m, c, _t, e) => {
  const h = handleAt(c, 2);
  e.tpHandle = h;
  return [SDA1, tid(m), h[1], h[2], h[0] + 1];
});
ext4Trace.tpArgs('jbd2_handle_stats', (m, c, _t, e) => {
  const h = (e.tpHandle as [number, number, number] | undefined) ?? handleAt(c, 2);
  return [SDA1, tid(m), h[1], h[2], 0, 0, h[0] + 1, 0];
});

// fs/ext4/inode.c ext4_invalidate_folio(folio, offset, length) and ext4_release_folio's
// ext4_releasepage(page): the folio a truncate drops (mm/filemap.ts truncFolio), whole (offset 0, the
// folio's size), as its dev, ino and index
function truncPage(e: Env, key: string): { dev: number; ino: number; index: number } {
  const f = truncFolio(e, key);
  return { dev: devOf(f.mapping), ino: f.mapping?.ino ?? 0, index: f.index };
}
ext4Trace.tpArgs('ext4_invalidate_folio', (_m, _c, _t, e) => [truncPage(e, 'tpInvFolio'), 0, PAGE]);
ext4Trace.tpArgs('ext4_releasepage', (_m, _c, _t, e) => [truncPage(e, 'tpRelFolio')]);

// fs/ext4/extents.c ext4_ext_map_blocks(handle, inode, map, flags), ialloc.c __ext4_new_inode
ext4Trace.tpArgs('ext4_ext_map_blocks_enter', (m, c, t, e) => [inodeOf(m, c, t, e), lblkOf(e), 1, 0]);
ext4Trace.tpArgs('ext4_ext_map_blocks_exit', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  const lblk = lblkOf(e);
  const on = mapped(e, ino, lblk);
  return [ino, 0, { lblk, pblk: on ? ino!.diskBlock + lblk : 0, len: 1, mflags: on ? 0x20 : 0 }, on ? 1 : 0];
});
ext4Trace.tpArgs('ext4_request_inode', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  return [ino?.parent ?? ino, ino?.mode ?? 0o100644];
});
ext4Trace.tpArgs('ext4_allocate_inode', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  return [ino, ino?.parent ?? ino, ino?.mode ?? 0o100644];
});

// fs/ext4/mballoc.c ext4_mb_new_blocks(handle, ar, errp): the request (struct ext4_allocation_request),
// the blocks given, and ext4_mb_collect_stats' record of the allocation context: ext4_mballoc_alloc when
// no preallocation served it (ac->ac_op is EXT4_MB_HISTORY_PREALLOC from the start, EXT4_MB_HISTORY_ALLOC
// right before ext4_mb_normalize_request), else ext4_mballoc_prealloc.  Which one is the machine's
// allocation's (fs/ext4.ts mbAllocate, `e.mb` of a direct write: the writes' recorded trees that slept
// for their I/O, which the machine's direct writes run, have no regular allocator), else the tree's.
// The fields are the machine's allocation's, else the block the path works on.  Checked against
// data/recordings/dd-direct-write's events run: `ext4_request_blocks dev 8,1 ino 14153 flags HINT_DATA
// len 16 lblk 144 goal 395824 lleft 143 lright 144 pleft 395823 pright 0`, `ext4_mballoc_prealloc ...
// orig 12/2608/16@144 result 12/2608/16@144`.
ext4Trace.hook('ext4_mb_op_prealloc', (_m, _c, _t, e) => { e.mbRegular = false; return H_CONT; });
ext4Trace.hook('ext4_mb_op_alloc', (_m, _c, _t, e) => { e.mbRegular = true; return H_CONT; });
ext4Trace.at('ext4_mb_new_blocks', 'ext4_mb_op_prealloc');
ext4Trace.at('ext4_mb_normalize_request.constprop.0', 'ext4_mb_op_alloc');
const regular = (e: Env): boolean => (e.mb ? (e.mb as MbAlloc).regular : e.mbRegular === true);
ext4Trace.cond('ext4_mb_regular', (_m, _c, _t, e) => regular(e));
ext4Trace.cond('ext4_mb_preallocated', (_m, _c, _t, e) => !regular(e));
ext4Trace.tpIf('ext4_mballoc_alloc', 'ext4_mb_regular');
ext4Trace.tpIf('ext4_mballoc_prealloc', 'ext4_mb_preallocated');

/** EXT4_MB_HINT_DATA, EXT4_MB_HINT_TRY_GOAL, EXT4_MB_STREAM_ALLOC (the guest's data allocations' flags) */
const HINT_DATA = 0x20, HINT_TRY_GOAL = 0x200, STREAM_ALLOC = 0x800;

/** The allocation the path makes: the machine's (`e.mb`), else one block at the block the path works on. */
function allocOf(m: MachineCore, c: Cpu, t: Task, e: Env): { ino: Inode | null; a: MbAlloc } {
  const ino = inodeOf(m, c, t, e);
  const mb = e.mb as MbAlloc | undefined;
  if (mb) return { ino, a: mb };
  const lblk = lblkOf(e);
  const block = (ino?.diskBlock ?? 0) + lblk;
  return { ino, a: { lblk, len: 1, goal: block, block, regular: e.mbRegular === true, pa: null } };
}
/** struct ext4_allocation_request's fields: the neighbours are the file's blocks before the request. */
function allocRequest(ino: Inode | null, a: MbAlloc): Record<string, number> {
  const left = a.lblk > 0;
  return {
    dev: devOf(ino), ino: ino?.ino ?? 0, len: a.len, logical: a.lblk, goal: a.goal, flags: HINT_DATA,
    lleft: left ? a.lblk - 1 : 0, lright: left ? a.lblk : 0, pleft: left ? a.goal - 1 : 0, pright: 0,
  };
}
/** group/start of a block, as struct ext4_free_extent has it */
const groupOf = (b: number): number => Math.floor(b / EXT4_BLOCKS_PER_GROUP);
const startOf = (b: number): number => b % EXT4_BLOCKS_PER_GROUP;
/** struct ext4_allocation_context's extents (orig, goal, result) as the mballoc events copy them. */
function allocContext(ino: Inode | null, a: MbAlloc): Record<string, number> {
  const ext = (p: string, b: number, len: number): Record<string, number> =>
    ({ [`${p}_logical`]: a.lblk, [`${p}_start`]: startOf(b), [`${p}_group`]: groupOf(b), [`${p}_len`]: len });
  const len = a.pa ? a.pa.len : a.len;
  return {
    dev: devOf(ino), ino: ino?.ino ?? 0, ...ext('orig', a.goal, a.len), ...ext('goal', a.goal, len), ...ext('result', a.block, len),
    found: 1, groups: 0, buddy: 0, flags: HINT_DATA | HINT_TRY_GOAL | STREAM_ALLOC, tail: 0, cr: 0,
  };
}
ext4Trace.tpArgs('ext4_request_blocks', (m, c, t, e) => {
  const { ino, a } = allocOf(m, c, t, e);
  return [allocRequest(ino, a)];
});
ext4Trace.tpArgs('ext4_allocate_blocks', (m, c, t, e) => {
  const { ino, a } = allocOf(m, c, t, e);
  return [allocRequest(ino, a), a.block];
});
ext4Trace.tpArgs('ext4_mballoc_alloc', (m, c, t, e) => {
  const { ino, a } = allocOf(m, c, t, e);
  return [allocContext(ino, a)];
});
ext4Trace.tpArgs('ext4_mballoc_prealloc', (m, c, t, e) => {
  const { ino, a } = allocOf(m, c, t, e);
  return [allocContext(ino, { ...a, pa: null })];
});
ext4Trace.tpArgs('ext4_mb_new_inode_pa', (m, c, t, e) => {
  const { ino, a } = allocOf(m, c, t, e);
  const pa = a.pa ?? { lstart: a.lblk, len: a.len };
  return [allocContext(ino, a), { pa_pstart: a.block, pa_lstart: pa.lstart, pa_len: pa.len }];
});
// extents.c ext4_ext_map_blocks: the extent ext4_find_extent found (the machine's file is one extent
// from its first block), when the file has blocks (a direct write's `e.extBefore`; else a file with
// data and no delayed blocks)
ext4Trace.cond('ext4_extent_found', (m, c, t, e) => {
  if (typeof e.extBefore === 'boolean') return e.extBefore;
  const ino = inodeOf(m, c, t, e);
  return !!ino && ino.size > 0 && ino.dirtyPages === 0;
});
ext4Trace.tpIf('ext4_ext_show_extent', 'ext4_extent_found');
ext4Trace.tpArgs('ext4_ext_show_extent', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  const mb = e.mb as MbAlloc | undefined;
  const blocks = mb ? mb.lblk : Math.ceil((ino?.size ?? 0) / PAGE);
  return [ino, 0, ino?.diskBlock ?? 0, Math.min(blocks, 32768)];
});

// fs/iomap/iter.c: the iteration (struct iomap_iter: the inode, the range, IOMAP_WRITE | IOMAP_DIRECT for
// a direct write) and the mapping ext4_iomap_begin gave (struct iomap: the file's blocks, MAPPED, NEW
// and DIRTY for blocks a write allocated), as the guest traced dd oflag=direct: `iomap_iter dev 8:1 ino
// 0x3749 pos 0x90000 length 0x10000 flags WRITE|DIRECT (0x11) ops ext4_iomap_ops [ext4] caller
// __iomap_dio_rw+0x222/0x7e0`, `iomap_iter_dstmap dev 8:1 ino 0x3749 bdev 8:1 addr 0x60a30000 offset
// 0x90000 length 0x10000 type MAPPED flags NEW|DIRTY`
const IOMAP_WRITE = 1, IOMAP_DIRECT = 0x10, IOMAP_MAPPED = 2, IOMAP_F_NEW = 1, IOMAP_F_DIRTY = 2;
/** The range a direct I/O maps: [pos, pos + length) of the file. */
function ioRange(e: Env): { pos: number; length: number; write: boolean } {
  const r = e.req as BlkRequest | undefined;
  const pos = typeof e.pos === 'number' ? e.pos : 0;
  return { pos, length: r?.bytes ?? 0, write: !!r?.write };
}
ext4Trace.tpArgs('iomap_iter', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  const r = ioRange(e);
  return [{ dev: devOf(ino), ino: ino?.ino ?? 0, pos: r.pos, length: r.length, flags: (r.write ? IOMAP_WRITE : 0) | IOMAP_DIRECT },
    iomapOps(), retIp(c)];
});
ext4Trace.tpArgs('iomap_iter_dstmap', (m, c, t, e) => {
  const ino = inodeOf(m, c, t, e);
  const r = ioRange(e);
  return [ino, {
    addr: ((ino?.diskBlock ?? 0) + Math.floor(r.pos / PAGE)) * PAGE, offset: r.pos, length: r.length, type: IOMAP_MAPPED,
    flags: e.mb ? IOMAP_F_NEW | IOMAP_F_DIRTY : 0, bdev: SDA1,
  }];
});
let opsAddr: number | null = null;
/** &ext4_iomap_ops (the ext4 module's) */
function iomapOps(): number {
  return (opsAddr ??= kallsymsLookupName('ext4_iomap_ops') ?? 0);
}
