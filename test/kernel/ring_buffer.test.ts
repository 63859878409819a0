import { expect } from 'chai';
import {
  RingBuffer, BUF_PAGE_SIZE, PAGE_SIZE, rbEventLength, pageEvents, getU64, RINGBUF_TYPE_TIME_EXTEND, RB_MISSED_EVENTS,
} from '../../src/kernel/ring_buffer';

/** 16-byte events (an 8-byte trace_entry + 8): 20 bytes each, 204 per 4080-byte page */
function put(rb: RingBuffer, cpu: number, v: number): boolean {
  const dv = rb.reserve(cpu, 16);
  if (!dv) return false;
  dv.setUint32(rb.off + 8, v, true);
  return true;
}
const vals = (rb: RingBuffer) => [...rb.events()].map((e) => e.dv.getUint32(e.off + 8, true));

describe('ring buffer (kernel/trace/ring_buffer.c layout)', () => {
  it('computes event lengths as rb_calculate_event_length()', () => {
    expect(rbEventLength(24)).to.equal(28); // struct ftrace_entry
    expect(rbEventLength(112)).to.equal(116);
    expect(rbEventLength(113)).to.equal(124); // length word, 4-byte alignment
    expect(rbEventLength(0)).to.equal(8);
  });

  it('drops whole oldest pages in overwrite mode and counts them as overrun', () => {
    let now = 0;
    const rb = new RingBuffer({ clock: () => now++ });
    rb.resizeBytes(8000); // 2 pages per CPU (DIV_ROUND_UP(size, BUF_PAGE_SIZE))
    const perPage = Math.floor(BUF_PAGE_SIZE / 20);
    for (let i = 0; i < perPage * 3; i++) put(rb, 0, i);
    const st = rb.stats(0);
    expect(st.overrun).to.equal(perPage);
    expect(st.entries).to.equal(perPage * 2);
    expect(rb.totals()).to.deep.equal({ entries: perPage * 2, written: perPage * 3 });
    expect(vals(rb)[0]).to.equal(perPage);
    const first = rb.consume()!;
    expect(first.lost).to.equal(perPage);
    expect(rb.consume()!.lost).to.equal(0);
    expect(rb.stats(0).read).to.equal(2);
    expect(rb.totals().entries).to.equal(perPage * 2 - 2);
  });

  it('drops new events in producer/consumer mode', () => {
    const rb = new RingBuffer({ overwrite: false, clock: () => 5 });
    rb.resizeBytes(8000);
    const perPage = Math.floor(BUF_PAGE_SIZE / 20);
    let ok = 0;
    for (let i = 0; i < perPage * 3; i++) if (put(rb, 0, i)) ok++;
    expect(ok).to.equal(perPage * 2);
    expect(rb.stats(0).dropped).to.equal(perPage);
    expect(rb.stats(0).overrun).to.equal(0);
    expect(vals(rb)[0]).to.equal(0);
  });

  it('merges CPUs by time stamp, honours tracing_on and writes time extends', () => {
    let now = 0;
    const rb = new RingBuffer({ clock: () => now, ncpus: 2 });
    now = 10; put(rb, 1, 1);
    now = 5; put(rb, 0, 0);
    rb.recordOn = false;
    expect(rb.reserve(0, 16)).to.equal(null);
    rb.recordOn = true;
    now = 2 ** 28; put(rb, 0, 2);
    expect(vals(rb)).to.deep.equal([0, 1, 2]);
    expect([...rb.events()].map((e) => e.ts)).to.deep.equal([5, 10, 2 ** 28]);
    expect(rb.stats(0).bytes).to.equal(20 + 28);
    rb.reset();
    expect(rb.totals()).to.deep.equal({ entries: 0, written: 0 });
  });

  it('hands out pages as trace_pipe_raw does: header time stamp, commit, compressed headers', () => {
    let now = 1000;
    const rb = new RingBuffer({ clock: () => now });
    put(rb, 0, 7);
    now += 3;
    put(rb, 0, 8);
    now += 2 ** 27 + 5; // needs a time extend
    put(rb, 0, 9);
    const page = rb.readPage(0)!;
    expect(page.length).to.equal(PAGE_SIZE);
    const dv = new DataView(page.buffer);
    expect(getU64(dv, 0)).to.equal(1000);
    expect(dv.getUint32(8, true)).to.equal(20 + 20 + 8 + 20);
    // the first event: delta 0, type_len 4 (16 bytes); the third is preceded by a time extend
    expect(dv.getUint32(16, true)).to.equal(4);
    expect(dv.getUint32(36, true)).to.equal(4 | (3 << 5));
    expect(dv.getUint32(56, true) & 31).to.equal(RINGBUF_TYPE_TIME_EXTEND);
    const evs: { ts: number; v: number }[] = [];
    for (const e of pageEvents(0, dv, page, 0, dv.getUint32(8, true), getU64(dv, 0))) evs.push({ ts: e.ts, v: e.dv.getUint32(e.off + 8, true) });
    expect(evs).to.deep.equal([{ ts: 1000, v: 7 }, { ts: 1003, v: 8 }, { ts: 1003 + 2 ** 27 + 5, v: 9 }]);
    expect(rb.readPage(0)).to.equal(null);
    expect(rb.totals().entries).to.equal(0);
  });

  it('marks a page read after an overwrite with RB_MISSED_EVENTS', () => {
    let now = 0;
    const rb = new RingBuffer({ clock: () => now++ });
    rb.resizeBytes(8000);
    for (let i = 0; i < 204 * 3; i++) put(rb, 0, i);
    const page = rb.readPage(0)!;
    const commit = new DataView(page.buffer).getUint32(8, true);
    expect(commit >= RB_MISSED_EVENTS).to.equal(true);
    expect(commit - RB_MISSED_EVENTS).to.equal(204 * 20);
  });
});
