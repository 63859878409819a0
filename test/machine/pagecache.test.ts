/**
 * The page cache's access marks (mm/swap.c folio_mark_accessed, mm/filemap.ts markAccessed): filemap_read
 * marks each folio it copies; a folio not referenced becomes referenced, a referenced inactive one is
 * activated (folio_activate, workingset_activation), an active one stays so.  The recorded pagecache-hit
 * (its setup wrote the file, then cat read it once) activated each of its 1024 folios once in dd's reads.
 */
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceHitFn, FTRACE_OPS_FL_INITIALIZED } from '../../src/kernel/ftrace';
import { symbolName } from '../../src/kernel/kallsyms';
import type { Prog } from '../../src/machine/include/sched';
import type { U } from '../../src/machine/process/user';
import { countCalls } from '../helpers/call_counts';

installKernelSemantics();

/** The calls of `fns` in the kernel work of each read(2) of `path` in 64 KiB reads to its end, a program run by `m`. */
function readCalls(m: Machine, path: string, fns: string[]): number[][] {
  const out: number[][] = [];
  let cur: number[] | null = null;
  const op = new FtraceOps('pagecache_test', () => {
    const i = cur ? fns.indexOf(symbolName(ftraceHitFn())) : -1;
    if (i >= 0) cur![i]++;
  }, FTRACE_OPS_FL_INITIALIZED, 'pagecache_test');
  m.procs.programs.set('/usr/bin/rd', function* (u: U): Prog {
    const fd = yield* u.open(path, 0);
    for (;;) {
      cur = fns.map(() => 0);
      const n = (yield* u.read(fd, 65536)).ret;
      out.push(cur);
      cur = null;
      if (n <= 0) break;
    }
    return 0;
  });
  m.fs.createFile('/usr/bin/rd', 'ELF', 0o755);
  registerFtraceFunction(op);
  try { m.run('rd'); } finally { unregisterFtraceFunction(op); }
  return out;
}

describe('page cache: folio_mark_accessed', () => {
  const FNS = ['folio_mark_accessed', 'folio_activate', 'workingset_activation'];
  it('a write leaves its folios unreferenced; the first read references them, the second activates each once, the third none', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    m.run('dd if=/dev/urandom of=/root/f bs=64k count=2');
    // each read of 16 folios marks each (the last read, at the end of the file, none)
    const first = readCalls(m, '/root/f', FNS);
    expect(first).to.deep.equal([[16, 0, 0], [16, 0, 0], [0, 0, 0]]);
    const second = readCalls(m, '/root/f', FNS);
    expect(second.map((r) => r.slice(0, 2))).to.deep.equal([[16, 16], [16, 16], [0, 0]]);
    expect(second[0][2]).to.equal(16);
    expect(readCalls(m, '/root/f', FNS)).to.deep.equal([[16, 0, 0], [16, 0, 0], [0, 0, 0]]);
  });
  it('a page leaving the cache forgets its marks: read again after drop_caches, it is only referenced', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    m.run('dd if=/dev/urandom of=/root/f bs=64k count=1; cat /root/f > /dev/null; sync; echo 1 > /proc/sys/vm/drop_caches');
    expect(m.fs.lookup('/root/f')!.cachedPages).to.equal(0);
    expect(readCalls(m, '/root/f', FNS).map((r) => r[1])).to.deep.equal([0, 0]);
  });
});

describe('writeback: per-page work (mm/page_writeback.ts)', () => {
  it('fsync submits each dirty page (mpage_submit_page), puts the inode on the writeback list once, in folio batches of 15', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    const calls = countCalls(() => { m.run('dd if=/dev/zero of=/root/w bs=4k count=40 conv=fsync'); });
    expect(calls.get('mpage_submit_page')).to.equal(40);
    expect(calls.get('mpage_process_page_bufs')).to.equal(40);
    expect(calls.get('sb_mark_inode_writeback')).to.equal(1);
    // 40 pages: 3 folio batches to submit
    expect(calls.get('filemap_get_folios')).to.equal(3);
    expect([...m.fs.lookup('/root/w')!.pc.subarray(0, 40)].every((st) => st === 1)).to.equal(true);
  });
  it('fsync of a clean file submits nothing, and leaves the other files dirty', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    m.run('dd if=/dev/zero of=/root/w bs=4k count=8 conv=fsync; dd if=/dev/zero of=/root/other bs=4k count=3');
    m.procs.programs.set('/usr/bin/fs1', function* (u: U): Prog {
      const fd = yield* u.open('/root/w', 1);
      yield* u.fsync(fd);
      return 0;
    });
    m.fs.createFile('/usr/bin/fs1', 'ELF', 0o755);
    const calls = countCalls(() => { m.run('fs1'); });
    expect(calls.get('mpage_submit_page') ?? 0).to.equal(0);
    expect(m.fs.lookup('/root/other')!.dirtyPages).to.equal(3);
  });
});

describe('/dev/zero: read_zero', () => {
  it('clears the buffer a page at a time, with cond_resched after each page', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    const per = (n: number): number => {
      let got = 0, on = false;
      const op = new FtraceOps('zero_test', () => { if (on && symbolName(ftraceHitFn()) === '__cond_resched') got++; }, FTRACE_OPS_FL_INITIALIZED, 'zero_test');
      m.procs.programs.set('/usr/bin/z', function* (u: U): Prog {
        const fd = yield* u.open('/dev/zero', 0);
        on = true;
        yield* u.read(fd, n);
        on = false;
        return 0;
      });
      m.fs.createFile('/usr/bin/z', 'ELF', 0o755);
      registerFtraceFunction(op);
      try { m.run('z'); } finally { unregisterFtraceFunction(op); }
      return got;
    };
    expect(per(0)).to.equal(0);
    expect(per(65536)).to.equal(16);
    expect(per(100)).to.equal(1);
    expect(per(5 * 4096 + 1)).to.equal(6);
  });
});
