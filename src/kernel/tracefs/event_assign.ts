/**
 * TP_fast_assign for the simulated kernel: how a trace event's record fields are filled from its
 * tracepoint's TP_PROTO arguments. The event table has every event's fields and the BTF has
 * every TP_PROTO, so the assignment is derived by name the way the TRACE_EVENT definitions
 * read: a field named like an argument takes its value (`irq`, `call_site`, `ptr`, `bytes_req`);
 * `prev_pid` is `prev->pid`, `child_comm` is `child->comm`; `comm`, `pid`, `prio` come from the
 * task argument (the objects are read through their kernel layout, src/kernel/memory.ts);
 * a few events whose TP_fast_assign computes a value have it here (sched_switch's prev_state,
 * the wakeup target CPU, softirq vectors, exec file names, syscall registers, block request
 * fields). A field with no source is 0 (or an empty string), as a zeroed record.
 */
import { CpuContext } from '../current';
import { btfResolve, btfType, btfSizeof, btfFindMember, btfArrayInfo, btfTypeName, btfLookupType, BtfKind } from '../btf';
import { kmem, pageToPfn } from '../memory';
import { TraceEvent, TraceEventField, tracepointProto, TpArg } from '../tracepoint';

export type FieldValue = bigint | number | string | Uint8Array;

/** Computes one field from the TP_PROTO arguments and the executing context. */
export type FieldGetter = (args: readonly unknown[], ctx: CpuContext) => FieldValue;

const ZERO: FieldGetter = () => 0;
const EMPTY: FieldGetter = () => '';

function isStringField(f: TraceEventField): boolean {
  return /^(__data_loc |__rel_loc )?(const )?char\b/.test(f.type) && (f.type.includes('[') || f.type.startsWith('__data_loc'));
}

/** Pointee BTF type of a pointer type (0 when not a pointer). */
function pointee(type: number): number {
  try {
    const r = btfResolve(type);
    const t = btfType(r);
    return t.kind === BtfKind.PTR ? t.type : 0;
  } catch {
    return 0;
  }
}

/** A struct member read through the object's kernel layout (or the JS property as a fallback). */
function memberReader(structType: number, member: string, asString: boolean): ((obj: unknown) => FieldValue) | null {
  let m;
  try {
    m = btfFindMember(btfResolve(structType), member);
  } catch {
    return null;
  }
  if (!m) return null;
  const off = m.bitOffset >> 3;
  const mt = btfResolve(m.type);
  const t = btfType(mt);
  if (t.kind === BtfKind.ARRAY) {
    const n = btfArrayInfo(mt).nelems;
    return (obj) => {
      if (obj === null || obj === undefined) return '';
      if (typeof obj === 'object' && typeof (obj as Record<string, unknown>)[member] === 'string') return (obj as Record<string, string>)[member];
      try { return kmem.readString(kmem.addrOf(obj, structType) + off, n); } catch { return ''; }
    };
  }
  const size = t.kind === BtfKind.PTR ? 8 : Math.max(1, Math.min(8, btfSizeof(mt)));
  const isCharPtr = t.kind === BtfKind.PTR && asString;
  return (obj) => {
    if (obj === null || obj === undefined) return isCharPtr ? '' : 0;
    if (typeof obj === 'object' && isCharPtr && typeof (obj as Record<string, unknown>)[member] === 'string') return (obj as Record<string, string>)[member];
    try {
      const a = kmem.addrOf(obj, structType) + off;
      if (isCharPtr) { const p = kmem.readPtr(a); return p ? kmem.readString(p, 4096) : ''; }
      if (m!.bitSize) return Number((kmem.readUnsigned(a, size) >> BigInt(m!.bitOffset & 7)) & ((1n << BigInt(m!.bitSize)) - 1n));
      return kmem.readUnsigned(a, size);
    } catch {
      return isCharPtr ? '' : 0;
    }
  };
}

/** An argument's value as a record field wants it (objects become their kernel addresses). */
function argValue(a: TpArg, asString: boolean): (v: unknown) => FieldValue {
  const pt = pointee(a.btfType);
  return (v) => {
    if (typeof v === 'string') return asString ? v : kmem.addrOf(v);
    if (typeof v === 'number' || typeof v === 'bigint') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v === null || v === undefined) return asString ? '' : 0;
    return kmem.addrOf(v, pt || null);
  };
}

/** __trace_sched_switch_state(): TASK_REPORT bit of the state (0x100 = preempted, R+). */
function switchState(preempt: unknown, prevState: unknown): number {
  if (preempt) return 0x100;
  const st = Number(prevState ?? 0);
  if ((st & 0x402) === 0x402) return 0x80; // TASK_IDLE
  const rep = st & 0x7f;
  if (!rep) return 0;
  return 1 << (31 - Math.clz32(rep));
}

function prop(o: unknown, ...names: string[]): unknown {
  if (!o || typeof o !== 'object') return undefined;
  for (const n of names) { const v = (o as Record<string, unknown>)[n]; if (v !== undefined) return v; }
  return undefined;
}

/** Events whose TP_fast_assign computes fields (by "event.field"). */
const SPECIAL: Record<string, (argNames: string[]) => FieldGetter | null> = {
  'sched_switch.prev_state': (n) => (a) => switchState(a[n.indexOf('preempt')], a[n.indexOf('prev_state')]),
  'sched_wakeup.target_cpu': () => (a, ctx) => Number(prop(a[0], 'cpu', 'wakeCpu') ?? ctx.cpu),
  'sched_wakeup_new.target_cpu': () => (a, ctx) => Number(prop(a[0], 'cpu', 'wakeCpu') ?? ctx.cpu),
  'sched_waking.target_cpu': () => (a, ctx) => Number(prop(a[0], 'cpu', 'wakeCpu') ?? ctx.cpu),
  'sched_process_exec.filename': () => (a) => String(prop(a[2], 'filename', 'path') ?? prop(a[0], 'exe') ?? ''),
  'sched_process_exec.pid': () => (a) => Number(prop(a[0], 'tid') ?? 0),
  'irq_handler_entry.name': () => (a) => String(prop(a[1], 'name') ?? ''),
  'sys_enter.args': () => (a) => {
    const regs = a[0] as { args?: readonly unknown[] } | undefined;
    const out = new Uint8Array(48);
    const dv = new DataView(out.buffer);
    for (let i = 0; i < 6; i++) dv.setBigUint64(i * 8, BigInt.asUintN(64, BigInt(toNum(regs?.args?.[i]))), true);
    return out;
  },
  'sys_exit.id': () => (a) => Number((a[0] as { orig_ax?: number } | undefined)?.orig_ax ?? -1),
  'block_rq_issue.comm': () => (_a, ctx) => ctx.task.comm,
  'block_rq_insert.comm': () => (_a, ctx) => ctx.task.comm,
  'block_bio_queue.comm': () => (_a, ctx) => ctx.task.comm,
};
// block/blk-mq.c's events read `struct request` (rq->q->disk is sda: dev 8,0): blk_rq_trace_sector()
// is 0 for a flush request (its __sector is (sector_t)-1), block_rq_complete prints blk_rq_pos()
// as it is and nr_bytes >> 9; the rwbs string is blk_fill_rwbs() of cmd_flags.
const RQ = 'struct request', BIO = 'struct bio';
for (const e of ['block_rq_issue', 'block_rq_insert', 'block_rq_complete', 'block_rq_requeue']) {
  const complete = e === 'block_rq_complete';
  SPECIAL[`${e}.dev`] = () => () => (8 << 20) | 0;
  SPECIAL[`${e}.rwbs`] = () => (a) => blkRwbs(rd(a[0], RQ, 'cmd_flags'));
  SPECIAL[`${e}.sector`] = () => (a) => {
    const s = rdBig(a[0], RQ, '__sector');
    return complete || s !== 0xffffffffffffffffn ? s : 0n;
  };
  SPECIAL[`${e}.nr_sector`] = () => (a) => Math.floor((complete ? Number(a[2] ?? 0) : rd(a[0], RQ, '__data_len')) / 512);
  SPECIAL[`${e}.bytes`] = () => (a) => rd(a[0], RQ, '__data_len');
  SPECIAL[`${e}.cmd`] = () => EMPTY;
}
// block_bio_*: bio_dev() is the whole disk's devt, the sector is the remapped one (blk_partition_remap
// ran before submit_bio_noacct_nocheck traced it: the partition's bd_start_sect added to a bio with data).
for (const e of ['block_bio_remap', 'block_bio_queue', 'block_getrq', 'block_bio_complete', 'block_bio_backmerge', 'block_bio_frontmerge', 'block_bio_bounce']) {
  SPECIAL[`${e}.dev`] = () => (a) => (rd(bioArg(e, a), BIO, 'bi_bdev') ? 8 << 20 : 0);
  SPECIAL[`${e}.rwbs`] = () => (a) => blkRwbs(rd(bioArg(e, a), BIO, 'bi_opf'));
  SPECIAL[`${e}.sector`] = () => (a) => {
    const bio = bioArg(e, a);
    const bdev = typeof bio === 'number' && bio ? kmem.readPtr(bio + kmem.fieldOf(BIO, 'bi_bdev').offset) : 0;
    const start = bdev && rd(bio, BIO, 'bi_iter.bi_size') ? rd(bdev, 'struct block_device', 'bd_start_sect') : 0;
    return rd(bio, BIO, 'bi_iter.bi_sector') + start;
  };
  SPECIAL[`${e}.nr_sector`] = () => (a) => Math.floor(rd(bioArg(e, a), BIO, 'bi_iter.bi_size') / 512);
}
/** block_bio_complete(q, bio) has the bio second; the others first. */
const bioArg = (e: string, a: readonly unknown[]): unknown => (e === 'block_bio_complete' ? a[1] : a[0]);
// block_bio_remap(bio, dev, from): the bio already remapped (the disk's sector), the partition's dev_t and sector
SPECIAL['block_bio_remap.old_dev'] = () => (a) => toNum(a[1]);
SPECIAL['block_bio_remap.old_sector'] = () => (a) => toNum(a[2]);
// block_plug(q) / block_unplug(q, depth, explicit): current's comm, the plug's request count
SPECIAL['block_plug.comm'] = () => (_a, ctx) => ctx.task.comm;
SPECIAL['block_unplug.comm'] = () => (_a, ctx) => ctx.task.comm;
SPECIAL['block_unplug.nr_rq'] = () => (a) => toNum(a[1]);
// mm_vmscan_write_folio(folio): folio_pfn(folio); trace_reclaim_flags(folio_is_file_lru): the machine's
// pageout writes only swap-backed (anon) folios, RECLAIM_WB_ANON | RECLAIM_WB_ASYNC
SPECIAL['mm_vmscan_write_folio.pfn'] = () => (a) => (toNum(a[0]) ? pageToPfn(Number(toNum(a[0]))) : 0);
SPECIAL['mm_vmscan_write_folio.reclaim_flags'] = () => () => 0x0001 | 0x0008;
// mm_vmscan_lru_shrink_inactive(nid, nr_scanned, nr_reclaimed, stat, priority, file) and
// mm_vmscan_lru_shrink_active(nid, nr_taken, nr_active, nr_deactivated, nr_referenced, priority, file):
// trace_reclaim_flags(file), RECLAIM_WB_FILE or RECLAIM_WB_ANON, | RECLAIM_WB_ASYNC
SPECIAL['mm_vmscan_lru_shrink_inactive.reclaim_flags'] = () => (a) => (toNum(a[5]) ? 0x0002 : 0x0001) | 0x0008;
SPECIAL['mm_vmscan_lru_shrink_active.reclaim_flags'] = () => (a) => (toNum(a[6]) ? 0x0002 : 0x0001) | 0x0008;
for (const e of ['softirq_entry', 'softirq_exit', 'softirq_raise']) SPECIAL[`${e}.vec`] = () => (a) => Number(a[0] ?? 0);
// kmem:rss_stat (include/trace/events/kmem.h): mm_id is mm_ptr_to_hash(mm) (the pointer's low 32 bits
// mixed with a boot-time key), curr whether mm is current's (the machine traces only the current
// task's counters), size the counter in bytes (count << PAGE_SHIFT)
SPECIAL['rss_stat.mm_id'] = () => (a) => (Math.imul(Number(BigInt.asUintN(32, BigInt(toNum(a[0])))), 0x9e3779b1) ^ 0x5bd1e995) >>> 0;
SPECIAL['rss_stat.curr'] = () => (a) => (a[0] ? 1 : 0);
SPECIAL['rss_stat.size'] = () => (a) => Number(a[2] ?? 0) * 4096;

// filemap:mm_filemap_add_to_page_cache / mm_filemap_delete_from_page_cache(folio) (include/trace/events/
// filemap.h): the folio's frame, folio->mapping->host's i_ino and i_sb->s_dev, folio->index, its order;
// the machine passes a page cache folio as a plain object { mapping: inode, index, pfn } (mm/filemap.ts)
let inodeType: number | null = null;
const host = (a: readonly unknown[], member: string): number => inodeMember(plainProp(a[0], 'mapping'), member, (inodeType ??= btfLookupType('struct inode') ?? 0));
for (const e of ['mm_filemap_add_to_page_cache', 'mm_filemap_delete_from_page_cache']) {
  SPECIAL[`${e}.pfn`] = () => (a) => toNum(plainProp(a[0], 'pfn') ?? 0);
  SPECIAL[`${e}.i_ino`] = () => (a) => host(a, 'i_ino');
  SPECIAL[`${e}.index`] = () => (a) => toNum(plainProp(a[0], 'index') ?? 0);
  SPECIAL[`${e}.s_dev`] = () => (a) => sbDev(host(a, 'i_sb'));
  SPECIAL[`${e}.order`] = () => () => 0;
}

/**
 * The event systems whose TP_fast_assign reads the filesystem's objects (fsFieldGetter): the modules'
 * and iomap's (fs/iomap/trace.h: the inode's dev and ino, a struct iomap_iter or struct iomap the
 * machine passes as a plain object)
 */
const FS_SYSTEMS = new Set(['ext4', 'jbd2', 'iomap']);

/** A plain object's own property (the machine passes a struct it does not lay out in memory as one). */
function plainProp(v: unknown, name: string): unknown {
  if (!v || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  return Object.prototype.hasOwnProperty.call(v, name) ? (v as Record<string, unknown>)[name] : undefined;
}

/**
 * ext4's and jbd2's fields (include/trace/events/ext4.h, jbd2.h): `dev` is inode->i_sb->s_dev (or
 * sb->s_dev), `ino` inode->i_ino, an inode argument stored as a number (`dir`) its i_ino, `mode`
 * and the other i_* copies the inode's member; a struct the machine passes as a plain object (an
 * extent_status, an ext4_map_blocks) gives the field of its name (es->es_lblk as `lblk` ...), as do
 * the values only the module's private inode holds (EXT4_I(inode)->i_reserved_data_blocks, passed
 * after the TP_PROTO arguments).
 */
function fsFieldGetter(ev: TraceEvent, f: TraceEventField, proto: TpArg[]): FieldGetter | null {
  if (!FS_SYSTEMS.has(ev.system)) return null;
  const kinds = proto.map((p) => { const st = pointee(p.btfType); return st ? btfTypeName(st) : ''; });
  const inodeAt = kinds.indexOf('struct inode');
  const sbAt = kinds.indexOf('struct super_block');
  const plain = (k: number, fallback: FieldGetter): FieldGetter => (a, ctx) => {
    const v = plainProp(a[k], f.name);
    return v === undefined ? fallback(a, ctx) : toNum(v);
  };
  // (TP_PROTO's `unsigned long IP` is stored as `ip`)
  const named = proto.findIndex((p) => p.name === f.name || (f.name === 'ip' && p.name === 'IP'));
  if (named >= 0 && f.name === 'ip') return (a) => toNum(a[named]);
  const IT = inodeAt >= 0 ? pointee(proto[inodeAt].btfType) : 0;
  if (named >= 0 && kinds[named] === 'struct inode' && !isStringField(f)) {
    const T = pointee(proto[named].btfType);
    return (a) => inodeMember(a[named], 'i_ino', T);
  }
  if (named >= 0) return null;
  if (f.name === 'dev' && inodeAt >= 0) return (a) => sbDev(inodeMember(a[inodeAt], 'i_sb', IT));
  if (f.name === 'dev' && sbAt >= 0) return (a) => sbDev(toNum(a[sbAt]));
  if (f.name === 'ino' && inodeAt >= 0) return (a) => inodeMember(a[inodeAt], 'i_ino', IT);
  let base: FieldGetter = ZERO;
  if (inodeAt >= 0) {
    const m = btfFindMemberSafe('struct inode', f.name.startsWith('i_') ? f.name : `i_${f.name}`);
    if (m) base = (a) => inodeMember(a[inodeAt], m, IT);
  }
  // a plain-object argument (TP_PROTO's struct pointers, then values after them)
  for (let k = proto.length; k >= 0; k--) {
    if (k === proto.length || kinds[k]) base = plain(k, base);
  }
  return base;
}

function btfFindMemberSafe(T: string, member: string): string | null {
  try {
    return kmem.fieldOf(T, member) ? member : null;
  } catch {
    return null;
  }
}

/** A member of the machine's inode object (read through its kernel layout). */
function inodeMember(obj: unknown, member: string, T: number): number {
  if (obj === null || obj === undefined || obj === 0) return 0;
  try {
    const a = typeof obj === 'number' ? obj : kmem.addrOf(obj, T || null);
    const fl = kmem.fieldOf('struct inode', member);
    const size = btfSizeof(fl.type);
    return Number(size === 8 && member === 'i_sb' ? kmem.readPtr(a + fl.offset) : kmem.readUnsigned(a + fl.offset, Math.min(8, size)));
  } catch {
    return 0;
  }
}

/** sb->s_dev of a super block address. */
function sbDev(sb: number | bigint): number {
  try {
    return rd(Number(sb), 'struct super_block', 's_dev');
  } catch {
    return 0;
  }
}

/** A field of the kernel object at address `addr` (0 when there is none). */
function rdBig(addr: unknown, T: string, path: string): bigint {
  const a = typeof addr === 'number' ? addr : 0;
  if (!a) return 0n;
  const f = kmem.fieldOf(T, path);
  return kmem.readUnsigned(a + f.offset, btfSizeof(f.type));
}
const rd = (addr: unknown, T: string, path: string): number => Number(rdBig(addr, T, path));

/** blk_fill_rwbs() of 6.1 (block/blktrace.c): PREFLUSH, the op, then FUA, RAHEAD, SYNC, META. */
function blkRwbs(opf: number): string {
  let s = opf & (1 << 18) ? 'F' : '';
  const op = opf & 0xff;
  s += op === 1 ? 'W' : op === 3 ? 'D' : op === 5 ? 'DE' : op === 2 ? 'F' : op === 0 ? 'R' : 'N';
  if (opf & (1 << 17)) s += 'F';
  if (opf & (1 << 19)) s += 'A';
  if (opf & (1 << 11)) s += 'S';
  if (opf & (1 << 12)) s += 'M';
  return s;
}

function toNum(v: unknown): number | bigint {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null || v === undefined) return 0;
  if (typeof v === 'string') return kmem.addrOf(v);
  return kmem.addrOf(v);
}

/**
 * The context of a tracepoint's call site where the machine's CPU context does not show it:
 * __schedule() and try_to_wake_up() run with interrupts off holding the run-queue (and pi)
 * locks, so their events show "d..2." (tracing_gen_ctx_dec() has taken the tracepoint's own
 * preempt_disable off already).
 */
export const CALL_SITE_CONTEXT: Record<string, { irqsOff: boolean; preempt: number }> = {
  sched_switch: { irqsOff: true, preempt: 2 }, sched_wakeup: { irqsOff: true, preempt: 2 },
  sched_wakeup_new: { irqsOff: true, preempt: 2 }, sched_waking: { irqsOff: true, preempt: 1 },
  sched_migrate_task: { irqsOff: true, preempt: 2 }, sched_stat_runtime: { irqsOff: true, preempt: 2 },
};

/** The getters of an event's fields, in field order (cached per event). */
const cache = new Map<TraceEvent, FieldGetter[]>();

export function fieldGetters(ev: TraceEvent): FieldGetter[] {
  let g = cache.get(ev);
  if (g) return g;
  const proto = ev.tracepoint ? tracepointProto(ev.name) ?? [] : [];
  g = ev.fields.map((f) => getterFor(ev, f, proto));
  cache.set(ev, g);
  return g;
}

function getterFor(ev: TraceEvent, f: TraceEventField, proto: TpArg[]): FieldGetter {
  const names = proto.map((p) => p.name);
  const sp = SPECIAL[`${ev.name}.${f.name}`];
  if (sp) { const s = sp(names); if (s) return s; }
  const asString = isStringField(f);
  // 0. the filesystem's objects as ext4's and jbd2's TP_fast_assign read them
  const fsg = fsFieldGetter(ev, f, proto);
  if (fsg) return fsg;
  // 1. an argument of that name
  const i = names.indexOf(f.name);
  if (i >= 0) { const conv = argValue(proto[i], asString); return (a) => conv(a[i]); }
  // 2. prefix_member: prev_pid = prev->pid, child_comm = child->comm
  for (let k = 0; k < proto.length; k++) {
    const p = proto[k];
    if (!f.name.startsWith(p.name + '_')) continue;
    const st = pointee(p.btfType);
    if (!st) continue;
    const rd = memberReader(st, f.name.slice(p.name.length + 1), asString);
    if (rd) return (a) => rd(a[k]);
  }
  // 3. a member of a struct argument (comm, pid, prio of the task; len of an skb ...)
  for (let k = 0; k < proto.length; k++) {
    const st = pointee(proto[k].btfType);
    if (!st) continue;
    const rd = memberReader(st, f.name, asString);
    if (rd) return (a) => rd(a[k]);
  }
  // 4. the current task's (TP_fast_assign often copies current->comm / current->pid)
  if (f.name === 'comm') return (_a, ctx) => ctx.task.comm;
  if (f.name === 'pid') return (_a, ctx) => ctx.task.tid;
  return asString ? EMPTY : ZERO;
}
