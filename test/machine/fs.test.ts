import { expect } from 'chai';
import { Inode, S_IFREG } from '../../src/machine/include/fs';
import { Fs } from '../../src/machine/fs/namei';
import { Machine } from '../../src/machine/machine';
import { OpenFile } from '../../src/machine/include/fs';
import type { Task } from '../../src/machine/include/sched';
import type { Env } from '../../src/machine/include/kstack';
import type { FsMachine } from '../../src/machine/fs/namei';
import { fsAttr } from '../../src/machine/fs/attr';
import { mappedFilePages, markAccessed } from '../../src/machine/mm/filemap';
import type { Mm } from '../../src/machine/include/mm_types';

const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');
const bytes = (s: string): Uint8Array => Buffer.from(s, 'latin1');

describe('machine: file contents (Inode data)', () => {
  const fresh = (): Inode => {
    const ino = new Inode(100, S_IFREG | 0o644, 'ext4', 0);
    ino.data = Buffer.alloc(0);
    return ino;
  };

  it('keeps contents across growth (small and block-sized writes)', () => {
    const ino = fresh();
    ino.writeBytes(0, bytes('abc'));
    ino.writeBytes(3, bytes('def'));
    expect(text(ino.readBytes(0, 100))).to.equal('abcdef');
    const big = new Uint8Array(16384).fill(0x41);
    for (let k = 0; k < 5; k++) ino.writeBytes(6 + k * 16384, big);
    expect(ino.size).to.equal(6 + 5 * 16384);
    const all = ino.readBytes(0, ino.size);
    expect(text(all.subarray(0, 6))).to.equal('abcdef');
    expect(all.subarray(6).every((b) => b === 0x41)).to.equal(true);
  });

  it('old bytes past a truncation never show again: rewrites, holes, extending truncates', () => {
    const ino = fresh();
    ino.writeBytes(0, bytes('hello world'));
    ino.truncate(0);
    expect(ino.readBytes(0, 100).length).to.equal(0);
    ino.writeBytes(0, bytes('hi'));
    expect(text(ino.readBytes(0, 100))).to.equal('hi');
    // a write past the end leaves a hole that reads as zeros (not the old "llo world")
    ino.writeBytes(6, bytes('X'));
    expect(Array.from(ino.readBytes(0, 100))).to.deep.equal([0x68, 0x69, 0, 0, 0, 0, 0x58]);
    // shrinking then extending with truncate: the extension is zeros
    ino.truncate(1);
    ino.truncate(5);
    expect(Array.from(ino.readBytes(0, 100))).to.deep.equal([0x68, 0, 0, 0, 0]);
  });

  it('a hole opened by growing the buffer reads as zeros', () => {
    const ino = fresh();
    ino.writeBytes(0, bytes('ab'));
    ino.writeBytes(100000, bytes('z'));
    const all = ino.readBytes(0, ino.size);
    expect(all.length).to.equal(100001);
    expect(text(all.subarray(0, 2))).to.equal('ab');
    expect(all.subarray(2, 100000).every((b) => b === 0)).to.equal(true);
    expect(text(all.subarray(100000))).to.equal('z');
  });

  it('a program rewriting a file with O_TRUNC reads back only the new contents', () => {
    const m = new Machine({ seed: 3 });
    const r = m.run('echo hello world > /tmp/t1; echo hi > /tmp/t1; cat /tmp/t1; wc /tmp/t1');
    expect(r.status).to.equal(0);
    // wc's width: the digits of the file's 3-byte size (coreutils 9.1 on this host: `wc t1` prints '1 1 3 t1')
    expect(r.out).to.equal('hi\n1 1 3 /tmp/t1\n');
  });
});

describe('machine: path lookups', () => {
  const m = new Machine({ seed: 3 });
  it('lookupParent resolves the directory like lookup of the path without its last component', () => {
    const fs = m.fs;
    fs.mkdirp('/tmp/lp/a/b');
    fs.symlink('/tmp/lp/ln', 'a/b');
    fs.symlink('/tmp/lp/abs', '/tmp/lp/a');
    const cases: [string, string][] = [
      ['/tmp/lp/a/b/f', '/'], ['/tmp/lp/ln/f', '/'], ['/tmp/lp/abs/b/f', '/'], ['b/f', '/tmp/lp/a'],
      ['../a/./b/f', '/tmp/lp/a'], ['/f', '/'], ['/tmp/lp/none/f', '/'], ['/tmp/lp/a/b', '/'],
    ];
    for (const [p, cwd] of cases) {
      const got = fs.lookupParent(p, cwd);
      const parts = p.split('/');
      const name = parts.filter((s) => s && s !== '.').pop();
      const dirPath = (p.startsWith('/') ? '' : cwd + '/') + parts.slice(0, -1).join('/');
      const want = fs.lookup(dirPath || '/', '/');
      if (!want) expect(got, p).to.equal(null);
      else expect({ dir: got?.dir, name: got?.name }, p).to.deep.equal({ dir: want, name });
    }
    expect(fs.lookupParent('/', '/')).to.equal(null);
    expect(fs.lookupParent('/tmp/lp/ln/f', '/')!.dir).to.equal(fs.lookup('/tmp/lp/a/b'));
  });

  it('relative symlinks resolve against the walked path, also after an earlier symlink', () => {
    const fs = m.fs;
    fs.mkdirp('/tmp/rs/real/sub/deep');
    fs.mkdirp('/tmp/rs/other');
    fs.symlink('/tmp/rs/hop', 'real');           // relative, in /tmp/rs
    fs.symlink('/tmp/rs/real/rel', 'sub/deep');  // relative, in /tmp/rs/real
    fs.symlink('/tmp/rs/real/up', '../other');   // relative with '..'
    fs.symlink('/tmp/rs/real/sub/deep/back', '../../sub'); // relative, two levels down
    const deep = fs.lookup('/tmp/rs/real/sub/deep');
    expect(deep).to.not.equal(null);
    // hop -> real, then rel is resolved in real (the path through the first link's target)
    expect(fs.lookup('/tmp/rs/hop/rel')).to.equal(deep);
    expect(fs.lookup('/tmp/rs/hop/up')).to.equal(fs.lookup('/tmp/rs/other'));
    expect(fs.lookup('/tmp/rs/hop/rel/back/deep')).to.equal(deep);
    expect(fs.lookup('rel/back', '/tmp/rs/hop')).to.equal(fs.lookup('/tmp/rs/real/sub'));
    // nofollow keeps the final link itself
    expect(fs.lookup('/tmp/rs/hop/rel', '/', true)!.isLnk).to.equal(true);
  });

  it('path components: normalised, the same for the same full path, whatever the cwd spelling', () => {
    expect(Fs.parts('/a/./b/../c//d/', '/')).to.deep.equal(['a', 'c', 'd']);
    expect(Fs.parts('x/../..', '/a/b')).to.deep.equal(['a']);
    expect(Fs.parts('/..', '/')).to.deep.equal([]);
    // memoized: asking again gives the same components (and the shared array is not changed by lookups)
    const once = Fs.parts('/tmp/rs/hop/rel', '/');
    m.fs.lookup('/tmp/rs/hop/rel');
    m.fs.lookupParent('/tmp/rs/hop/rel');
    expect(Fs.parts('/tmp/rs/hop/rel', '/')).to.deep.equal(['tmp', 'rs', 'hop', 'rel']);
    expect(Fs.parts('hop/rel', '/tmp/rs')).to.equal(once);
  });

  it('fchmodat resolves a relative path against its dirfd (fs/open.c do_fchmodat: user_path_at(dfd, ...))', () => {
    const m = new Machine({ seed: 3 });
    m.run('mkdir /tmp/d; touch /tmp/d/f /tmp/f');
    const fchmodat = fsAttr.syscalls.find(([n]) => n === 'fchmodat')![1];
    const dir = new OpenFile('dir', m.fs.lookup('/tmp/d'), 0o200000);
    const t = { proc: { cwd: '/tmp', fds: [null, null, null, dir] } } as unknown as Task;
    const call = (dfd: number, path: string, mode: number): number => {
      const e = { name: 'fchmodat', nr: 268, a: [dfd, path, mode], ret: 0, rv: 0 } as Env;
      fchmodat(m as unknown as FsMachine, null as never, t, e);
      return e.ret;
    };
    expect(call(3, 'f', 0o600)).to.equal(0);
    expect(m.fs.lookup('/tmp/d/f')!.mode & 0o7777).to.equal(0o600);
    expect(m.fs.lookup('/tmp/f')!.mode & 0o7777).to.equal(0o644);
    expect(call(-100, 'f', 0o640)).to.equal(0); // AT_FDCWD: the cwd's f
    expect(m.fs.lookup('/tmp/f')!.mode & 0o7777).to.equal(0o640);
    expect(call(3, 'nope', 0o600)).to.equal(-2);
  });
});

describe('machine: the page cache at boot (data/paths/pagecache.json, scripts/paths/pagecache.ts)', () => {
  const cached = (m: Machine, p: string): number => m.fs.lookup(p)?.cachedPages ?? -1;
  it('holds the files the recorded guest had cached (libraries, programs, /etc), every page', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    const libc = m.fs.lookup('/lib/x86_64-linux-gnu/libc.so.6') as Inode;
    expect(libc.cachedPages).to.equal(Math.ceil(libc.size / 4096));
    expect(cached(m, '/etc/passwd')).to.be.greaterThan(0);
    expect(cached(m, '/usr/bin/ls')).to.be.greaterThan(0);
    expect(m.mm.filePages).to.be.greaterThan(1000);
  });
  it('leaves other files cold, and drop_caches empties it but for the pages processes map', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    const libc = m.fs.lookup('/lib/x86_64-linux-gnu/libc.so.6') as Inode;
    const before = libc.cachedPages;
    m.run('dd if=/dev/zero of=/root/f bs=4k count=4; sync; echo 3 > /proc/sys/vm/drop_caches');
    // sync waits for the writeback it (or the flusher before it) started: every page clean, then dropped
    expect(cached(m, '/root/f')).to.equal(0);
    // a program no process runs leaves the cache whole; libc keeps what the running processes map
    // (invalidate_mapping_pages -> mapping_evict_folio keeps a mapped folio), each of those pages once
    expect(cached(m, '/usr/bin/find')).to.equal(0);
    const mms = new Set<Mm>();
    for (const t of m.procs.tasks.values()) if (t.proc.mm && !t.proc.exited) mms.add(t.proc.mm);
    const mapped = mappedFilePages(mms).get(libc)?.size ?? 0;
    expect(mapped).to.be.greaterThan(0);
    expect(libc.cachedPages).to.equal(mapped).and.to.be.lessThan(before);
  });
  it('a page drop_caches frees is neither referenced nor active when read again', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    const ino = m.fs.lookup('/etc/passwd') as Inode;
    // two reads activate its first page (folio_mark_accessed: referenced, then active)
    markAccessed(ino, 0, 1);
    expect(markAccessed(ino, 0, 1)).to.equal(1);
    expect(markAccessed(ino, 0, 1)).to.equal(0);
    m.run('echo 1 > /proc/sys/vm/drop_caches');
    expect(ino.cachedPages).to.equal(0);
    // (a mapping's fault brings it back without a read: the zap's mark finds a new folio) referenced, then active
    expect(markAccessed(ino, 0, 1)).to.equal(0);
    expect(markAccessed(ino, 0, 1)).to.equal(1);
  });
  it('a cold file comes into the cache when read', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    m.run('dd if=/dev/zero of=/root/g bs=4k count=4; sync; echo 1 > /proc/sys/vm/drop_caches');
    expect(cached(m, '/root/g')).to.equal(0);
    m.run('cat /root/g > /dev/null');
    expect(cached(m, '/root/g')).to.equal(4);
  });
});
