import { expect } from 'chai';
import * as zlib from 'zlib';
import * as fs from 'fs';
import * as path from 'path';
import { encodeEventTable, decodeEventTable, builtEventTableFile, eventSourceStamp, RawEvent } from '../../src/kernel/event_table';
import { kernelDataDir } from '../../src/kernel/data';

describe('kernel data: trace event table', () => {
  const raw: { events: RawEvent[]; tracepoints: string[] } = {
    events: [
      { system: 'sched', name: 'sched_switch', class: 'sched_switch', fields: [['char[16]', 'prev_comm', 8, 16, 0, 16]], fmt: '"prev_comm=%s"', flags: 16, id: 300 },
      { system: 'syscalls', name: 'sys_enter_read', class: 'syscall_enter', fields: [['int', '__syscall_nr', 8, 4, 1, 0]], fmt: '"fd: 0x%08lx"', flags: 2, id: 0, nr: 0 },
    ],
    tracepoints: ['sched_switch'],
  };

  it('round-trips events, reading details on first use', () => {
    const t = decodeEventTable(encodeEventTable(raw, 's'), 's')!;
    expect(t.tracepoints).to.deep.equal(['sched_switch']);
    expect(t.count).to.equal(2);
    const a = t.event(0), b = t.event(1);
    expect(t.event(0)).to.equal(a);
    expect([a.id, a.system, a.name, a.flags, a.tracepoint]).to.deep.equal([300, 'sched', 'sched_switch', 16, true]);
    expect(a.fields).to.deep.equal([{ type: 'char[16]', name: 'prev_comm', offset: 8, size: 16, signed: false, len: 16 }]);
    expect([a.class, a.printFmt, a.syscallNr]).to.deep.equal(['sched_switch', '"prev_comm=%s"', undefined]);
    expect([b.tracepoint, b.syscallNr, b.class, b.fields[0].signed]).to.deep.equal([false, 0, 'syscall_enter', true]);
    expect(decodeEventTable(encodeEventTable(raw, 's'), 'other')).to.equal(null);
  });

  it('finds events by exact system and name (repeated keys in section order)', () => {
    const ev = (system: string, name: string, id: number): RawEvent => ({ system, name, class: name, fields: [], fmt: '""', flags: 16, id });
    const t = decodeEventTable(encodeEventTable({
      events: [ev('b', 'x', 21), ev('a', 'y', 22), ev('a', 'x', 23), ev('b', 'x', 24), ev('a', 'xx', 25), ev('ab', 'x', 26)],
      tracepoints: [],
    }, 's'), 's')!;
    expect(t.find('b', 'x')).to.deep.equal([0, 3]);
    expect(t.find('a', 'x')).to.deep.equal([2]);
    expect(t.find('a', 'xx').map((i) => t.event(i).id)).to.deep.equal([25]);
    expect(t.find('ab', 'x')).to.deep.equal([5]);
    for (const [s, n] of [['a', ''], ['', 'x'], ['c', 'x'], ['a', 'z'], ['b', 'y']]) expect(t.find(s, n)).to.deep.equal([]);
  });

  it('the build\'s table matches events.json.gz followed by module_events.json.gz', () => {
    const t = decodeEventTable(fs.readFileSync(builtEventTableFile()), eventSourceStamp());
    expect(t, 'dist/kernel-tables/events.tab is current').to.not.equal(null);
    const [core, mods] = ['events.json.gz', 'module_events.json.gz'].map((f) =>
      JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(kernelDataDir(), f))).toString('latin1')) as typeof raw);
    const src = { events: [...core.events, ...mods.events], tracepoints: [...core.tracepoints, ...mods.tracepoints].sort() };
    expect(t!.tracepoints).to.deep.equal(src.tracepoints);
    expect(t!.count).to.equal(src.events.length);
    src.events.forEach((e, i) => {
      const x = t!.event(i);
      expect(t!.find(e.system, e.name)).to.include(i);
      expect([x.system, x.name, x.id, x.flags, x.class, x.printFmt, x.syscallNr, x.fields.length])
        .to.deep.equal([e.system, e.name, e.id, e.flags, e.class, e.fmt, e.nr, e.fields.length]);
    });
  });
});
