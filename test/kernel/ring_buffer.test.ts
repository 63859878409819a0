import { expect } from 'chai';
import { RingBuffer, BUF_PAGE_SIZE } from '../../src/kernel/ring_buffer';
import { CpuContext } from '../../src/kernel/current';

const ctx: CpuContext = { cpu: 0, task: { pid: 7, tid: 7, comm: 'w' } };

describe('ring buffer', () => {
  it('drops whole oldest pages in overwrite mode and counts them as overrun', () => {
    let now = 0;
    const rb = new RingBuffer({ sizeKb: 8, clock: () => now++ }); // 2 pages per CPU
    const perPage = Math.floor(BUF_PAGE_SIZE / 20); // 4-byte header + 16-byte payload
    for (let i = 0; i < perPage * 3; i++) rb.write(0, 1, ctx, { i });
    const st = rb.stats(0);
    expect(st.overrun).to.equal(perPage);
    expect(st.entries).to.equal(perPage * 2);
    expect(rb.totals()).to.deep.equal({ entries: perPage * 2, written: perPage * 3 });
    expect(rb.peekAll()[0].payload).to.deep.equal({ i: perPage });
    const first = rb.consume()!;
    expect(first.lostBefore).to.equal(perPage);
    expect(rb.consume()!.lostBefore).to.equal(0);
    expect(rb.stats(0).read).to.equal(2);
  });

  it('drops new events in producer/consumer mode', () => {
    const rb = new RingBuffer({ sizeKb: 8, overwrite: false, clock: () => 5 });
    const perPage = Math.floor(BUF_PAGE_SIZE / 20);
    let ok = 0;
    for (let i = 0; i < perPage * 3; i++) if (rb.write(0, 1, ctx, { i })) ok++;
    expect(ok).to.equal(perPage * 2);
    expect(rb.stats(0).dropped).to.equal(perPage);
    expect(rb.stats(0).overrun).to.equal(0);
    expect(rb.peekAll()[0].payload).to.deep.equal({ i: 0 });
  });

  it('merges CPUs by timestamp, honours tracing_on and time extends', () => {
    let now = 0;
    const rb = new RingBuffer({ clock: () => now });
    now = 10; rb.write(1, 1, { ...ctx, cpu: 1 }, { a: 1 });
    now = 5; rb.write(0, 1, ctx, { a: 0 });
    rb.recordOn = false;
    expect(rb.write(0, 1, ctx, {})).to.equal(false);
    rb.recordOn = true;
    now = 2 ** 28; rb.write(0, 1, ctx, { a: 2 });
    expect(rb.peekAll().map((e) => e.payload.a)).to.deep.equal([0, 1, 2]);
    expect(rb.stats(0).bytes).to.equal(20 + 28);
    rb.reset();
    expect(rb.totals()).to.deep.equal({ entries: 0, written: 0 });
  });
});
