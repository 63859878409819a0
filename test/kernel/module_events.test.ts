/**
 * The trace events of the loaded modules (scsi_mod, libata, jbd2, ext4: built as modules on Debian),
 * checked against the real guest's tracefs as scripts/kernel-data/module-events.sh recorded it
 * (data/kernel/module_events.snapshot.gz): each event's `format` file byte for byte, every event's id
 * (vmlinux's and the modules'), and available_events' order (the latest registered first: ext4's
 * events, then jbd2's, libata's, scsi's, then vmlinux's).
 */
import { expect } from 'chai';
import * as zlib from 'zlib';
import * as fs from 'fs';
import * as path from 'path';
import { kernelDataDir } from '../../src/kernel/data';
import { traceEvents, eventFormat, findEvent, tracepoint, matchEvents } from '../../src/kernel/tracepoint';

function snapshot(): Map<string, string[]> {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(kernelDataDir(), 'module_events.snapshot.gz'))).toString('utf8');
  const out = new Map<string, string[]>();
  let cur: string[] | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('== ')) out.set(line.slice(3), (cur = []));
    else if (cur) cur.push(line);
  }
  return out;
}

describe('kernel data: the modules\' trace events (ext4, jbd2, libata, scsi)', () => {
  const snap = snapshot();

  it('each module event\'s format file is the guest\'s, byte for byte', () => {
    let n = 0;
    for (const [key, lines] of snap) {
      const m = /^event (\S+) (\S+) (\d+)$/.exec(key);
      if (!m) continue;
      const ev = findEvent(m[1], m[2]);
      expect(ev, key).to.not.equal(null);
      expect(ev!.id, key).to.equal(Number(m[3]));
      expect(eventFormat(ev!), key).to.equal(lines.join('\n').replace(/\n*$/, '\n'));
      n++;
    }
    expect(n).to.equal(172);
  });

  it('every event has the id the guest gave it (the unmapped sys_*_ni_syscall events have none)', () => {
    const ids = new Map(snap.get('ids')!.filter((l) => l).map((l) => { const [id, key] = l.split(' '); return [key, Number(id)]; }));
    const ours = traceEvents().filter((e) => e.system !== 'ftrace');
    expect(ours.length).to.equal([...ids.keys()].filter((k) => !k.startsWith('ftrace:')).length);
    for (const e of ours) expect(ids.get(`${e.system}:${e.name}`), `${e.system}:${e.name}`).to.equal(e.id);
    expect(findEvent('syscalls', 'sys_enter_ni_syscall')).to.equal(null);
  });

  it('available_events lists them first, the latest registered first', () => {
    const real = snap.get('available_events')!.filter((l) => l);
    const ours = traceEvents().slice().reverse().map((e) => `${e.system}:${e.name}`);
    expect(ours.slice(0, 172)).to.deep.equal(real.slice(0, 172));
    expect(real[0]).to.equal('ext4:ext4_other_inode_update_time');
  });

  it('their tracepoints exist and kernel.trace globs see them', () => {
    expect(tracepoint('ext4_da_write_begin')).to.not.equal(null);
    expect(tracepoint('jbd2_handle_start')).to.not.equal(null);
    expect(matchEvents('ext4:*').length).to.equal(113);
    expect(matchEvents('jbd2:*').length).to.equal(21);
  });
});
