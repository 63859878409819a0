/**
 * ext4's auto_da_alloc (fs/ext4/inode.c ext4_truncate, fs/ext4/file.c ext4_release_file): a regular file
 * truncated to 0 bytes (an open with O_TRUNC of an existing file, ftruncate) is in
 * EXT4_STATE_DA_ALLOC_CLOSE, and its last close allocates and writes its delayed-allocation pages
 * (ext4_alloc_da_blocks -> filemap_flush, WB_SYNC_NONE: nobody waits) instead of leaving them to the
 * flusher.  The cp recording (data/recordings/cp.json.gz, `cp /etc/passwd /root/passwd.copy` after the
 * recorder's warm-up run made the file) shows it in cp's last fput: ext4_release_file ->
 * ext4_alloc_da_blocks -> filemap_flush ... ext4_writepages, one write request (block_rq_issue), and the
 * events run fires ext4:ext4_alloc_da_blocks once; a file the open creates is not truncated.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { counting } from './ftrace_counting';
import type { Inode } from '../../src/machine/include/fs';

const FNS = ['ext4_release_file', 'ext4_alloc_da_blocks', 'filemap_flush', 'ext4_writepages'];
const dirty = (ino: Inode | null): number => (ino ? ino.pc.filter((s) => s === 2).length : -1);

describe('ext4 auto_da_alloc: a truncated and rewritten file is written back at its last close', function () {
  this.timeout(120000);

  it('cp over an existing file flushes it at close (ext4_alloc_da_blocks, a write request); cp to a new file does not', () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    let events = 0;
    const probe = (): void => { events++; };
    expect(tracepointProbeRegister('ext4_alloc_da_blocks', probe as never, null)).to.equal(0);
    try {
      // the copy creates the file: its pages stay dirty for the flusher
      const first = counting(FNS, 'da1');
      expect(m.run('cp /etc/passwd /root/passwd.copy').status).to.equal(0);
      first.stop();
      const ino = m.fs.lookup('/root/passwd.copy');
      expect(dirty(ino)).to.equal(1);
      expect(first.n.get('ext4_alloc_da_blocks')).to.equal(0);
      expect(events).to.equal(0);
      // the copy truncates it (O_TRUNC of an existing file) and rewrites it: its close writes it
      const issued: boolean[] = [];
      const rq = (_d: unknown, req: unknown): void => { void req; issued.push(true); };
      expect(tracepointProbeRegister('block_rq_issue', rq as never, null)).to.equal(0);
      const second = counting(FNS, 'da2');
      let status = -1;
      try { status = m.run('cp /etc/passwd /root/passwd.copy').status; } finally { second.stop(); tracepointProbeUnregister('block_rq_issue', rq as never, null); }
      expect(status).to.equal(0);
      expect(Object.fromEntries(second.n)).to.deep.include({ ext4_alloc_da_blocks: 1, filemap_flush: 1, ext4_writepages: 1 });
      expect(events).to.equal(1);
      expect(issued.length).to.be.greaterThan(0);
      expect(dirty(m.fs.lookup('/root/passwd.copy'))).to.equal(0);
    } finally {
      tracepointProbeUnregister('ext4_alloc_da_blocks', probe as never, null);
    }
  });

  it("the state ends with the truncated file's release, whoever makes it: a later writer's close flushes nothing", () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    expect(m.run('cp /etc/passwd /root/t').status).to.equal(0);
    const c = counting(FNS, 'da3');
    // truncated by a shell's redirection and released at its exit (no close(2)) with nothing written; then
    // rewritten without O_TRUNC and closed: its pages stay dirty for the flusher
    try { expect(m.run("sh -c 'exec 3> /root/t'; dd if=/etc/passwd of=/root/t conv=notrunc status=none").status).to.equal(0); } finally { c.stop(); }
    expect(c.n.get('filemap_flush')).to.equal(0);
    expect(dirty(m.fs.lookup('/root/t'))).to.equal(1);
  });
});
