/**
 * The tracing ring buffer (kernel/trace/ring_buffer.c of Linux 6.1), byte for byte: one buffer per
 * CPU made of 4096-byte pages (`struct buffer_data_page`: u64 time_stamp, local_t commit, then
 * BUF_PAGE_SIZE = 4080 bytes of events). An event is a u32 header (type_len:5, time_delta:27)
 * followed by its data: type_len 1..28 = data length / 4 (data ≤ 112 bytes), 0 = length in
 * array[0] (larger data), 29 padding, 30 time extend (a delta of 2^27 ns or more; 8 bytes),
 * 31 absolute time stamp. The first event of a page has delta 0 and the page carries its time
 * stamp. Pages are what trace_pipe_raw hands out and trace-cmd stores in trace.dat.
 *
 * Overwrite mode (the `overwrite` option, default) drops the oldest *page* when the writer
 * catches up with it (all its unread events count as overrun); producer/consumer mode drops the
 * new event ("dropped events"). `recordOn` is tracing_on (writes are refused while off).
 */
export const PAGE_SIZE = 4096;
export const BUF_PAGE_HDR_SIZE = 16;
export const BUF_PAGE_SIZE = PAGE_SIZE - BUF_PAGE_HDR_SIZE;
export const RB_EVNT_HDR_SIZE = 4;
export const RB_MAX_SMALL_DATA = 28 * 4;
export const RINGBUF_TYPE_DATA_TYPE_LEN_MAX = 28;
export const RINGBUF_TYPE_PADDING = 29;
export const RINGBUF_TYPE_TIME_EXTEND = 30;
export const RINGBUF_TYPE_TIME_STAMP = 31;
export const RB_LEN_TIME_EXTEND = 8;
export const RB_MISSED_EVENTS = 2 ** 31;
export const RB_MISSED_STORED = 2 ** 30;
const TS_SHIFT = 27;
const TS_MASK = (1 << TS_SHIFT) - 1;
const TWO32 = 4294967296;

/** Store a signed 64-bit value held in a JS number (exact up to 2^53) little-endian. */
export function putI64(dv: DataView, off: number, v: number): void {
  const hi = Math.floor(v / TWO32);
  dv.setUint32(off, v - hi * TWO32, true);
  dv.setInt32(off + 4, hi, true);
}

/** Read a little-endian 64-bit value as a JS number (signed; exact for |v| < 2^53). */
export function getI64(dv: DataView, off: number): number {
  return dv.getInt32(off + 4, true) * TWO32 + dv.getUint32(off, true);
}

/** Read a little-endian unsigned 64-bit value as a JS number (exact below 2^53). */
export function getU64(dv: DataView, off: number): number {
  return dv.getUint32(off + 4, true) * TWO32 + dv.getUint32(off, true);
}

/** rb_calculate_event_length(): header + data rounded up to 4 bytes (+4 for a length word). */
export function rbEventLength(dataLen: number): number {
  let length = dataLen || 1;
  if (length > RB_MAX_SMALL_DATA) length += 4;
  length += RB_EVNT_HDR_SIZE;
  return (length + 3) & ~3;
}

class BufferPage {
  readonly bytes = new Uint8Array(PAGE_SIZE);
  readonly dv = new DataView(this.bytes.buffer);
  /** write index into the data area (tail_page->write) */
  write = 0;
  /** events committed on this page */
  entries = 0;
  /** page time stamp (ts of its first event) */
  ts = 0;
  /** consumed: data offset of the next unread event, events read, ts at that point */
  read = 0;
  readEntries = 0;
  readTs = 0;
  reset(): void {
    this.write = 0; this.entries = 0; this.ts = 0; this.read = 0; this.readEntries = 0; this.readTs = 0;
  }
}

/** One event as an iterator sees it: where its data is and its absolute time stamp. */
export interface RbEventRef {
  cpu: number;
  ts: number;
  /** the page's view; data starts at `off` (already past the header / length word) */
  dv: DataView;
  bytes: Uint8Array;
  off: number;
  len: number;
}

export interface CpuStats {
  entries: number;
  overrun: number;
  commitOverrun: number;
  bytes: number;
  oldestTs: number;
  nowTs: number;
  dropped: number;
  read: number;
}

class CpuBuffer {
  pages: BufferPage[];
  /** oldest page with unread data, the page being written */
  head = 0;
  tail = 0;
  /** pages between head and tail inclusive that hold data: head..tail */
  overrun = 0;
  dropped = 0;
  read = 0;
  /** events committed since the last reset (entries = written - overrun - read) */
  written = 0;
  /** bytes of committed events (entries_bytes) minus those dropped/read */
  bytes = 0;
  /** last event's time stamp (write_stamp); -1 when nothing was written on the tail page yet */
  lastTs = 0;
  /** overrun at the last consuming read (lost events = overrun - lastOverrun) */
  lastOverrun = 0;
  constructor(public nrPages: number) {
    this.pages = Array.from({ length: nrPages }, () => new BufferPage());
  }
  entries(): number {
    return this.written - this.overrun - this.read;
  }
}

function pagesFor(bytes: number): number {
  return Math.max(2, Math.ceil(bytes / BUF_PAGE_SIZE));
}

export class RingBuffer {
  private readonly cpuBufs: CpuBuffer[] = [];
  overwrite: boolean;
  /** tracing_on (ring_buffer_record_on/off): when false writes are refused */
  recordOn = true;
  /** per-CPU size in bytes as written to buffer_size_kb (entries) */
  private readonly sizes: number[] = [];
  readonly clock: () => number;
  /** called after an event is committed on a CPU while set (trace_pipe readers waiting) */
  onWrite: ((cpu: number) => void) | null = null;
  /** where the last reserve() put the event's data */
  off = 0;
  constructor(opts: { sizeKb?: number; overwrite?: boolean; clock: () => number; ncpus?: number }) {
    this.overwrite = opts.overwrite ?? true;
    this.clock = opts.clock;
    const n = opts.ncpus ?? 1;
    for (let c = 0; c < n; c++) this.sizes.push((opts.sizeKb ?? 1408) * 1024);
  }

  get ncpus(): number {
    return this.sizes.length;
  }

  /** buffer_size_kb of a CPU (the size written, not rounded to pages). */
  sizeKbOf(cpu: number): number {
    return this.sizes[cpu] >> 10;
  }

  /** buffer_size_kb of every CPU, or -1 when they differ (the file then reads "X"). */
  get sizeKb(): number {
    const s = this.sizes[0];
    return this.sizes.every((x) => x === s) ? s >> 10 : -1;
  }

  /** ring_buffer_resize() in KB: one CPU or all; keeps the newest pages that fit. */
  resize(kb: number, cpu?: number): void {
    this.resizeBytes(kb * 1024, cpu);
  }

  /** The size of a CPU's buffer in bytes as requested. */
  bytesOf(cpu: number): number {
    return this.sizes[cpu] ?? this.sizes[0];
  }

  /** The data bytes a CPU's buffer holds when full: its pages times BUF_PAGE_SIZE (ring_buffer_size()). */
  capacityOf(cpu: number): number {
    return pagesFor(this.bytesOf(cpu)) * BUF_PAGE_SIZE;
  }

  /** ring_buffer_resize() in bytes. */
  resizeBytes(bytes: number, cpu?: number): void {
    if (!(bytes > 0)) throw new RangeError('buffer size must be > 0');
    for (let c = 0; c < this.sizes.length; c++) {
      if (cpu !== undefined && c !== cpu) continue;
      this.sizes[c] = bytes;
      const b = this.cpuBufs[c];
      if (!b) continue;
      const want = pagesFor(this.sizes[c]);
      if (want === b.nrPages) continue;
      // rebuild the ring in order (oldest first), dropping the oldest pages that no longer fit
      const order: BufferPage[] = [];
      for (let i = 0, p = b.head; i < b.nrPages; i++, p = (p + 1) % b.nrPages) {
        order.push(b.pages[p]);
        if (p === b.tail) break;
      }
      while (order.length > want) {
        const old = order.shift()!;
        b.overrun += old.entries - old.readEntries;
      }
      const used = order.length;
      while (order.length < want) order.push(new BufferPage());
      b.pages = order;
      b.nrPages = want;
      b.head = 0;
      b.tail = used - 1;
    }
  }

  private cpu(c: number): CpuBuffer {
    let b = this.cpuBufs[c];
    if (!b) {
      while (this.sizes.length <= c) this.sizes.push(this.sizes[0] ?? 1408 * 1024);
      b = this.cpuBufs[c] = new CpuBuffer(pagesFor(this.sizes[c]));
    }
    return b;
  }

  /**
   * Reserve and commit an event of `dataLen` bytes on `cpu` at the clock's time. Returns the
   * page's DataView with `this.off` at the event data, or null when nothing was recorded
   * (tracing off, producer/consumer buffer full, too large).
   */
  reserve(cpu: number, dataLen: number): DataView | null {
    if (!this.recordOn) return null;
    return this.reserveAt(cpu, dataLen, this.clock());
  }

  /** reserve() at a given time stamp (the clock's value when the event was taken). */
  reserveAt(cpu: number, dataLen: number, ts: number): DataView | null {
    if (!this.recordOn) return null;
    const b = this.cpu(cpu);
    const evLen = rbEventLength(dataLen);
    if (evLen > BUF_PAGE_SIZE - RB_LEN_TIME_EXTEND) return null;
    let page = b.pages[b.tail];
    let delta = page.write === 0 ? 0 : ts - b.lastTs;
    if (delta < 0) delta = 0;
    let extend = delta > TS_MASK;
    let len = evLen + (extend ? RB_LEN_TIME_EXTEND : 0);
    if (page.write + len > BUF_PAGE_SIZE) {
      // rb_move_tail(): pad the rest of the page, go to the next one
      const next = (b.tail + 1) % b.nrPages;
      if (next === b.head) {
        if (!this.overwrite) { b.dropped++; return null; }
        // rb_handle_head_page(): the writer takes the oldest page
        const old = b.pages[next];
        b.overrun += old.entries - old.readEntries;
        b.bytes -= old.write - old.read;
        b.head = (next + 1) % b.nrPages;
      }
      this.pad(page);
      b.tail = next;
      page = b.pages[next];
      page.reset();
      delta = 0;
      extend = false;
      len = evLen;
    }
    const dv = page.dv;
    let at = BUF_PAGE_HDR_SIZE + page.write;
    if (page.write === 0) page.ts = ts;
    if (extend) {
      dv.setUint32(at, RINGBUF_TYPE_TIME_EXTEND | ((delta % (TS_MASK + 1)) << 5) >>> 0, true);
      dv.setUint32(at + 4, Math.floor(delta / (TS_MASK + 1)), true);
      at += RB_LEN_TIME_EXTEND;
      delta = 0;
    }
    const d = dataLen || 1;
    if (d > RB_MAX_SMALL_DATA) {
      dv.setUint32(at, (delta << 5) >>> 0, true);
      dv.setUint32(at + 4, evLen - RB_EVNT_HDR_SIZE - 4, true);
      this.off = at + 8;
    } else {
      dv.setUint32(at, ((((evLen - RB_EVNT_HDR_SIZE) >> 2) | (delta << 5)) >>> 0), true);
      this.off = at + 4;
    }
    // zero the data (a reused page holds old bytes; fields not written read as 0)
    page.bytes.fill(0, this.off, at + evLen);
    page.write += len;
    page.entries++;
    b.written++;
    b.bytes += len;
    b.lastTs = ts;
    page.dv.setUint32(8, page.write, true);
    if (this.onWrite) this.onWrite(cpu);
    return dv;
  }

  /** rb_reset_tail(): a padding event over the unused end of a page being left. */
  private pad(page: BufferPage): void {
    const left = BUF_PAGE_SIZE - page.write;
    if (left < RB_EVNT_HDR_SIZE) return;
    const at = BUF_PAGE_HDR_SIZE + page.write;
    if (left < 8) {
      page.dv.setUint32(at, RINGBUF_TYPE_PADDING, true);
      return;
    }
    page.dv.setUint32(at, (RINGBUF_TYPE_PADDING | (1 << 5)) >>> 0, true);
    page.dv.setUint32(at + 4, left - RB_EVNT_HDR_SIZE, true);
  }

  /** The events of one CPU, oldest first (a non-consuming iterator over its pages). */
  *cpuEvents(cpu: number): Generator<RbEventRef, void, void> {
    const b = this.cpuBufs[cpu];
    if (!b) return;
    for (let i = 0, p = b.head; i < b.nrPages; i++, p = (p + 1) % b.nrPages) {
      const page = b.pages[p];
      yield* pageEvents(cpu, page.dv, page.bytes, page.read, page.write, page.read ? page.readTs : page.ts);
      if (p === b.tail) break;
    }
  }

  /**
   * Every event of every CPU merged by time stamp (the `trace` file's order: the oldest first,
   * the lower CPU first on equal time stamps).
   */
  *events(cpus?: readonly number[]): Generator<RbEventRef, void, void> {
    const list = cpus ?? this.cpusInUse();
    const its = list.map((c) => this.cpuEvents(c));
    const cur: (RbEventRef | null)[] = its.map((it) => copyRef(it.next()));
    for (;;) {
      let best = -1;
      for (let i = 0; i < cur.length; i++) {
        const e = cur[i];
        if (e && (best < 0 || e.ts < cur[best]!.ts)) best = i;
      }
      if (best < 0) return;
      yield cur[best]!;
      cur[best] = copyRef(its[best].next());
    }
  }

  /**
   * Consume the oldest event over the given CPUs (trace_pipe). `lost`: events overwritten on
   * that CPU since its last consuming read. The returned data stays valid until the next write.
   */
  consume(cpus?: readonly number[]): { event: RbEventRef; lost: number } | null {
    let best: RbEventRef | null = null;
    for (const c of cpus ?? this.cpusInUse()) {
      const e = this.peekCpu(c);
      if (e && (!best || e.ts < best.ts)) best = e;
    }
    if (!best) return null;
    const b = this.cpuBufs[best.cpu];
    const page = b.pages[b.head];
    // advance past this event (and any padding / time extends before it)
    page.read = best.off + best.len - BUF_PAGE_HDR_SIZE;
    page.read = nextEventStart(page, page.read);
    page.readEntries++;
    page.readTs = best.ts;
    b.read++;
    const lost = b.overrun - b.lastOverrun;
    b.lastOverrun = b.overrun;
    this.settleHead(b);
    return { event: best, lost };
  }

  /** ring_buffer_consume() of one CPU: its oldest event and the events lost before it. */
  consumeCpu(cpu: number): { event: RbEventRef; lost: number } | null {
    return this.consume([cpu]);
  }

  /** The next unread event of a CPU (null when empty); valid until the next read or write. */
  peekCpu(c: number): RbEventRef | null {
    const b = this.cpuBufs[c];
    if (!b) return null;
    this.settleHead(b);
    const it = this.cpuEvents(c).next();
    return it.done ? null : it.value;
  }

  /** Move the head past fully read pages (never past the tail). */
  private settleHead(b: CpuBuffer): void {
    while (b.head !== b.tail) {
      const page = b.pages[b.head];
      if (page.readEntries < page.entries) break;
      b.bytes -= page.write - page.read;
      page.reset();
      b.head = (b.head + 1) % b.nrPages;
    }
  }

  /**
   * ring_buffer_read_page(): take the oldest data of a CPU as one page (trace_pipe_raw):
   * a full page when the writer has left it, else the unread events of the page being written.
   * The page header's commit carries RB_MISSED_EVENTS when events were lost before it.
   */
  readPage(cpu: number): Uint8Array | null {
    const b = this.cpuBufs[cpu];
    if (!b) return null;
    this.settleHead(b);
    const page = b.pages[b.head];
    if (page.readEntries >= page.entries) return null;
    const out = new Uint8Array(PAGE_SIZE);
    const dv = new DataView(out.buffer);
    const ts = page.read ? page.readTs : page.ts;
    if (page.read === 0) out.set(page.bytes.subarray(0, BUF_PAGE_HDR_SIZE + page.write), 0);
    else {
      // a partly read page: its unread events, re-based on the time of the last one read
      out.set(page.bytes.subarray(BUF_PAGE_HDR_SIZE + page.read, BUF_PAGE_HDR_SIZE + page.write), BUF_PAGE_HDR_SIZE);
    }
    putI64(dv, 0, ts);
    let commit = page.write - page.read;
    const lost = b.overrun - b.lastOverrun;
    if (lost) commit += RB_MISSED_EVENTS;
    dv.setUint32(8, commit >>> 0, true);
    dv.setUint32(12, 0, true);
    b.read += page.entries - page.readEntries;
    b.lastOverrun = b.overrun;
    page.readEntries = page.entries;
    page.read = page.write;
    if (b.head === b.tail) {
      b.bytes -= page.write;
      page.reset();
    } else this.settleHead(b);
    return out;
  }

  /** Clear one CPU or all (echo > trace). */
  reset(cpu?: number): void {
    for (let c = 0; c < this.cpuBufs.length; c++) {
      if (cpu !== undefined && c !== cpu) continue;
      const b = this.cpuBufs[c];
      if (!b) continue;
      for (const p of b.pages) p.reset();
      b.head = b.tail = 0;
      b.overrun = b.dropped = b.read = b.written = b.bytes = b.lastOverrun = 0;
      b.lastTs = 0;
    }
  }

  /** per_cpu/cpuN/stats numbers. */
  stats(cpu: number): CpuStats {
    const b = this.cpuBufs[cpu];
    if (!b) return { entries: 0, overrun: 0, commitOverrun: 0, bytes: 0, oldestTs: 0, nowTs: this.clock(), dropped: 0, read: 0 };
    const first = this.cpuEvents(cpu).next();
    return {
      entries: b.entries(), overrun: b.overrun, commitOverrun: 0, bytes: b.bytes,
      oldestTs: first.done ? 0 : first.value.ts, nowTs: this.clock(), dropped: b.dropped, read: b.read,
    };
  }

  /** get_total_entries(): entries in the buffer and entries + overrun (the `trace` header). */
  totals(cpus?: readonly number[]): { entries: number; written: number } {
    let entries = 0, overrun = 0;
    for (const c of cpus ?? this.cpusInUse()) {
      const b = this.cpuBufs[c];
      if (!b) continue;
      entries += b.entries();
      overrun += b.overrun;
    }
    return { entries, written: entries + overrun };
  }

  /** ring_buffer_overruns(): events lost to overwrite on every CPU. */
  overruns(): number {
    let n = 0;
    for (const b of this.cpuBufs) if (b) n += b.overrun;
    return n;
  }

  /** CPUs that have a buffer (every CPU ever written to). */
  cpusInUse(): number[] {
    const out: number[] = [];
    for (let c = 0; c < this.cpuBufs.length; c++) if (this.cpuBufs[c]) out.push(c);
    return out;
  }

  /** True when no CPU holds an unread event. */
  empty(cpus?: readonly number[]): boolean {
    for (const c of cpus ?? this.cpusInUse()) {
      const b = this.cpuBufs[c];
      if (b && b.entries() > 0) return false;
    }
    return true;
  }
}

function copyRef(r: IteratorResult<RbEventRef, void>): RbEventRef | null {
  return r.done ? null : { ...r.value };
}

/** Data offset of the next data event at or after `pos` (skipping padding), page-relative. */
function nextEventStart(page: BufferPage, pos: number): number {
  const dv = page.dv;
  while (pos < page.write) {
    const h = dv.getUint32(BUF_PAGE_HDR_SIZE + pos, true);
    const tl = h & 31;
    if (tl === RINGBUF_TYPE_PADDING) return page.write;
    return pos;
  }
  return pos;
}

/**
 * The data events of one page between data offsets `from` and `to`, time stamps starting at
 * `ts` (the page time stamp, or the time of the last event read before `from`).
 */
export function* pageEvents(cpu: number, dv: DataView, bytes: Uint8Array, from: number, to: number, ts: number): Generator<RbEventRef, void, void> {
  let pos = BUF_PAGE_HDR_SIZE + from;
  const end = BUF_PAGE_HDR_SIZE + to;
  const ref: RbEventRef = { cpu, ts, dv, bytes, off: 0, len: 0 };
  while (pos < end) {
    const h = dv.getUint32(pos, true);
    const tl = h & 31;
    const delta = h >>> 5;
    if (tl === RINGBUF_TYPE_PADDING) {
      if (delta === 0) return;
      pos += 4 + dv.getUint32(pos + 4, true);
      continue;
    }
    if (tl === RINGBUF_TYPE_TIME_EXTEND) {
      ts += delta + dv.getUint32(pos + 4, true) * (TS_MASK + 1);
      pos += 8;
      continue;
    }
    if (tl === RINGBUF_TYPE_TIME_STAMP) {
      ts = delta + dv.getUint32(pos + 4, true) * (TS_MASK + 1);
      pos += 8;
      continue;
    }
    ts += delta;
    let len: number, data: number;
    if (tl === 0) { len = dv.getUint32(pos + 4, true); data = pos + 8; } else { len = tl * 4; data = pos + 4; }
    ref.ts = ts;
    ref.off = data;
    ref.len = len;
    yield ref;
    pos = data + len;
  }
}
