/**
 * The tracing ring buffer (kernel/trace/ring_buffer.c, 6.1) at page granularity:
 * one buffer per CPU made of BUF_PAGE_SIZE (4080-byte) data pages; an event takes a 4-byte
 * header plus its payload rounded up to 4 bytes (8 more for a time extend when the delta since
 * the previous event is >= 2^27 ns). Overwrite mode drops the oldest *page* when the writer
 * catches up (all its events count as overrun); producer/consumer mode drops the new event
 * (dropped events). Timestamps come from the clock you hand in (simulated ns).
 */
import { CpuContext } from './current';
import { TraceSink } from './ftrace';

export const BUF_PAGE_SIZE = 4080;
export const RB_EVNT_HDR_SIZE = 4;
const TS_DELTA_LIMIT = 2 ** 27;

export interface RbEvent {
  ts: number;
  cpu: number;
  type: number;
  pid: number;
  comm: string;
  /** trace_entry flags (irqs-off 0x01, hardirq 0x08, softirq 0x10, nmi 0x40) */
  flags: number;
  preemptCount: number;
  length: number;
  payload: Record<string, unknown>;
}

interface Page { events: RbEvent[]; used: number }

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
  pages: Page[] = [{ events: [], used: 0 }];
  nrPages: number;
  overrun = 0;
  dropped = 0;
  read = 0;
  written = 0;
  lastTs = 0;
  /** events lost since the last consuming read (for "CPU:%d [LOST %lu EVENTS]") */
  lostSinceRead = 0;
  constructor(nrPages: number) {
    this.nrPages = Math.max(2, nrPages);
  }
  entries(): number {
    let n = 0;
    for (const p of this.pages) n += p.events.length;
    return n;
  }
  bytes(): number {
    let n = 0;
    for (const p of this.pages) n += p.used;
    return n;
  }
}

export class RingBuffer implements TraceSink {
  private cpus = new Map<number, CpuBuffer>();
  overwrite: boolean;
  /** tracing_on: when false writes are ignored (callbacks still run) */
  recordOn = true;
  private sizeBytes: number;
  readonly clock: () => number;
  constructor(opts: { sizeKb?: number; overwrite?: boolean; clock: () => number }) {
    this.sizeBytes = (opts.sizeKb ?? 1408) * 1024;
    this.overwrite = opts.overwrite ?? true;
    this.clock = opts.clock;
  }

  /** buffer_size_kb per CPU; resizing keeps the newest events that fit. */
  get sizeKb(): number {
    return this.sizeBytes >> 10;
  }

  resize(kb: number): void {
    if (!(kb > 0)) throw new RangeError('buffer size must be > 0');
    this.sizeBytes = kb * 1024;
    for (const b of this.cpus.values()) {
      b.nrPages = this.pagesFor();
      while (b.pages.length > b.nrPages) { const p = b.pages.shift() as Page; b.overrun += p.events.length; }
    }
  }

  private pagesFor(): number {
    return Math.max(2, Math.ceil(this.sizeBytes / 4096));
  }

  private cpu(c: number): CpuBuffer {
    let b = this.cpus.get(c);
    if (!b) { b = new CpuBuffer(this.pagesFor()); this.cpus.set(c, b); }
    return b;
  }

  /** Reserve+commit one event. Returns false when it was not recorded. */
  write(cpu: number, type: number, ctx: CpuContext, payload: Record<string, unknown>, payloadLen = 16): boolean {
    if (!this.recordOn) return false;
    const b = this.cpu(cpu);
    const ts = this.clock();
    let len = RB_EVNT_HDR_SIZE + ((payloadLen + 3) & ~3);
    if (b.written > 0 && ts - b.lastTs >= TS_DELTA_LIMIT) len += 8;
    if (len > BUF_PAGE_SIZE) return false;
    let tail = b.pages[b.pages.length - 1];
    if (tail.used + len > BUF_PAGE_SIZE) {
      if (b.pages.length >= b.nrPages) {
        if (!this.overwrite) { b.dropped++; b.lostSinceRead++; return false; }
        const old = b.pages.shift() as Page;
        b.overrun += old.events.length;
        b.lostSinceRead += old.events.length;
      }
      tail = { events: [], used: 0 };
      b.pages.push(tail);
    }
    const ctxFlags = (ctx.irqsOff ? 0x01 : 0) | (ctx.context === 1 ? 0x10 : 0) | (ctx.context === 2 ? 0x08 : 0) |
      (ctx.context === 3 ? 0x40 : 0);
    tail.events.push({
      ts, cpu, type, pid: ctx.task.tid, comm: ctx.task.comm, flags: ctxFlags, preemptCount: ctx.preemptCount ?? 0,
      length: len, payload,
    });
    tail.used += len;
    b.written++;
    b.lastTs = ts;
    return true;
  }

  /** Non-consuming iteration over all CPUs merged by timestamp (the `trace` file). */
  peekAll(): RbEvent[] {
    const all: RbEvent[] = [];
    for (const c of [...this.cpus.keys()].sort((a, b) => a - b)) for (const p of this.cpu(c).pages) all.push(...p.events);
    return all.sort((a, b) => a.ts - b.ts || a.cpu - b.cpu);
  }

  /** Consume the oldest event across CPUs (trace_pipe); reports events lost on that CPU first. */
  consume(): { event: RbEvent; lostBefore: number } | null {
    let best: CpuBuffer | null = null;
    let bestEv: RbEvent | null = null;
    for (const b of this.cpus.values()) {
      const p = b.pages.find((pg) => pg.events.length > 0);
      if (!p) continue;
      const e = p.events[0];
      if (!bestEv || e.ts < bestEv.ts || (e.ts === bestEv.ts && e.cpu < bestEv.cpu)) { best = b; bestEv = e; }
    }
    if (!best || !bestEv) return null;
    const p = best.pages.find((pg) => pg.events.length > 0) as Page;
    p.events.shift();
    p.used -= bestEv.length;
    if (p.events.length === 0 && best.pages.length > 1) best.pages.splice(best.pages.indexOf(p), 1);
    best.read++;
    const lost = best.lostSinceRead;
    best.lostSinceRead = 0;
    return { event: bestEv, lostBefore: lost };
  }

  /** Clear one CPU or all (echo > trace). */
  reset(cpu?: number): void {
    const list = cpu === undefined ? [...this.cpus.values()] : [this.cpu(cpu)];
    for (const b of list) {
      b.pages = [{ events: [], used: 0 }];
      b.overrun = 0; b.dropped = 0; b.read = 0; b.written = 0; b.lostSinceRead = 0;
    }
  }

  /** per_cpu/cpuN/stats numbers. */
  stats(cpu: number): CpuStats {
    const b = this.cpu(cpu);
    const first = b.pages.find((p) => p.events.length)?.events[0];
    return {
      entries: b.entries(), overrun: b.overrun, commitOverrun: 0, bytes: b.bytes(),
      oldestTs: first ? first.ts : 0, nowTs: this.clock(), dropped: b.dropped, read: b.read,
    };
  }

  /** entries-in-buffer / entries-written over all CPUs (the `trace` header numbers). */
  totals(): { entries: number; written: number } {
    let entries = 0, overrun = 0;
    for (const b of this.cpus.values()) { entries += b.entries(); overrun += b.overrun; }
    return { entries, written: entries + overrun };
  }

  cpusInUse(): number[] {
    return [...this.cpus.keys()].sort((a, b) => a - b);
  }
}
