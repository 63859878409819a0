/**
 * The boot trees made when first looked up (/etc from the recording, /sys/devices/system/cpu,
 * /sys/module; include/fs.ts LazyDir) are the trees an eager build makes: the inode numbers, times, links and
 * directory order do not depend on what reaches them first, and the numbers are the ones
 * reserved at boot (the recorded inode order for /etc, the order of creation for sysfs); the warm
 * page cache of a file not made yet waits for it.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import { Machine } from '../../src/machine/machine';
import { Inode, LazyDir, type LazyEntry } from '../../src/machine/include/fs';
import { userlandDataFile } from '../../src/machine/process/ldso';

type Entry = [string, string, number, number, number, number, number, number, number, string | null];

/** every inode reachable from `dir` (not into pseudo filesystems): its stat, page cache and place */
function dump(d: Inode, p: string, out: string[] = []): string[] {
  for (const [n, c] of d.children ?? []) {
    const q = `${p === '/' ? '' : p}/${n}`;
    out.push([q, c.ino, c.mode.toString(8), c.uid, c.gid, c.nlink, c.size, c.mtime, c.atime, c.fs, c.diskBlock,
      c.cachedPages, Array.from(c.pc).join(''), c.target, c.parent?.ino].join(' '));
    if (c.isDir && !c.pseudo && c.parent === d) dump(c, q, out);
  }
  return out;
}

describe('machine: boot trees made on first use', () => {
  it('are the same whatever looks them up first', () => {
    const a = new Machine({ seed: 1 });
    const whole = dump(a.fs.root, '/');
    const b = new Machine({ seed: 1 });
    // a few deep look-ups (each makes its entry, not its directory's listing), then the whole tree
    for (const p of ['/etc/ssh/sshd_config', '/etc/systemd/system/multi-user.target.wants', '/etc/ld.so.cache',
      '/sys/devices/system/cpu/cpu3/topology/core_id', '/sys/devices/system/cpu/cpuidle/current_governor', '/sys/module/ext4']) {
      expect(b.fs.lookup(p), p).to.not.equal(null);
    }
    expect(b.fs.lookup('/sys/devices/system/cpu/cpu3/topology/core_id')!.show!()).to.equal('3\n');
    expect(dump(b.fs.root, '/')).to.deep.equal(whole);
  });

  it('give /etc the recorded inode order and new entries the numbers after the boot tree', () => {
    const m = new Machine({ seed: 1 });
    const entries = (JSON.parse(fs.readFileSync(userlandDataFile('etc.json'), 'utf8')) as { entries: Entry[] }).entries;
    const byIno = entries.slice().sort((x, y) => x[8] - y[8]).filter((e) => e[0] !== '/etc');
    const kind: Record<string, number> = { d: 0o040000, f: 0o100000, l: 0o120000 };
    let last = 0, n = 0;
    for (const e of byIno) {
      const ino = m.fs.lookup(e[0], '/', true)!;
      expect(ino, e[0]).to.not.equal(null);
      if ((ino.mode & 0o170000) !== kind[e[1]]) continue; // the machine's own kind of entry (os-release) keeps its place
      expect(ino.ino, e[0]).to.be.greaterThan(last);
      last = ino.ino;
      n++;
    }
    expect(n).to.be.greaterThan(300);
    // the directory gains an entry after its listing, numbered after everything the boot made
    const before = [...m.fs.lookup('/etc/ssh')!.children!.keys()];
    const made = m.fs.createFile('/etc/ssh/new_key', 'x');
    expect([...m.fs.lookup('/etc/ssh')!.children!.keys()]).to.deep.equal([...before, 'new_key']);
    expect(made.ino).to.be.greaterThan(m.fs.lookup('/usr/bin/nc')!.ino);
  });

  it('number /sys/devices/system/cpu as made one by one, before the tree made after it', () => {
    // the boot reserves the numbers and links from the tree's shape (kernel/cpu.ts sysCpuShape), before the tree is worked out
    for (const cpus of [1, 2, 5, 33]) {
      const m = new Machine({ seed: 1, cpus });
      const cpu = m.fs.lookup('/sys/devices/system/cpu')!;
      const links = cpu.nlink;
      const nums: number[] = [];
      const walk = (d: Inode): void => {
        for (const c of d.children!.values()) { nums.push(c.ino); if (c.isDir) walk(c); }
      };
      walk(cpu);
      nums.sort((x, y) => x - y);
      expect(nums[0], `${cpus} CPUs`).to.equal(cpu.ino + 1);
      expect(nums[nums.length - 1] - nums[0] + 1).to.equal(nums.length);
      expect(m.fs.lookup('/dev/pts')!.ino).to.equal(nums[nums.length - 1] + 1);
      expect(links).to.equal(2 + [...cpu.children!.values()].filter((c) => c.isDir).length);
      expect(cpu.children!.has(`cpu${cpus - 1}`) && !cpu.children!.has(`cpu${cpus}`)).to.equal(true);
    }
  });

  it('keep the warm page cache of /etc files not made yet until they are made or reclaimed', () => {
    const m = new Machine({ seed: 1 });
    const pam = m.fs.lookup('/etc/pam.d')!.children as LazyDir;
    const waiting = pam.peek('common-auth') as LazyEntry;
    // not made by the boot: its pages are counted, and given to the inode when a look-up makes it
    expect(waiting.lazy).to.equal(true);
    const size = waiting.size;
    expect(size).to.be.greaterThan(0);
    const file = m.fs.lookup('/etc/pam.d/common-auth')!;
    expect(pam.peek('common-auth')).to.equal(file);
    expect(file.size).to.equal(size);
    expect(file.cachedPages).to.equal(Math.ceil(size / 4096));
    expect(Array.from(file.pc.subarray(0, file.cachedPages))).to.deep.equal(new Array(file.cachedPages).fill(1));
    // reclaim reaches the runs of files still waiting (their inodes are made then) and frees every page
    const other = pam.peek('common-password') as LazyEntry;
    expect(other.lazy).to.equal(true);
    const cached = m.mm.filePages;
    expect(m.mm.reclaimVictims(cached).file).to.equal(cached);
    expect(m.mm.filePages).to.equal(0);
    const made = pam.peek('common-password') as Inode;
    expect(made).to.be.instanceOf(Inode);
    expect(made.cachedPages).to.equal(0);
    expect(Array.from(made.pc).every((x) => x === 0)).to.equal(true);
    expect(file.cachedPages).to.equal(0);
  });

  it('LazyDir: a look-up makes one entry, a listing all of them in order, a change lists first', () => {
    const made: string[] = [];
    const mk = (n: string): Inode => { made.push(n); return new Inode(made.length, 0o100644, 'ext4', 0); };
    const cache = new Map<string, Inode>();
    const one = (n: string): Inode | undefined => (['b', 'c'].includes(n) ? cache.get(n) ?? cache.set(n, mk(n)).get(n) : undefined);
    const own = new Inode(99, 0o100644, 'ext4', 0);
    const d = new LazyDir([['a', own]], { one, all: () => [['c', one('c')!], ['a', own], ['b', one('b')!]] });
    expect(d.get('a')).to.equal(own);
    const c = d.get('c');
    expect(made).to.deep.equal(['c']);
    expect(d.has('x')).to.equal(false);
    expect(d.size).to.equal(3);
    expect(made).to.deep.equal(['c', 'b']);
    expect([...d.keys()]).to.deep.equal(['c', 'a', 'b']);
    expect(d.get('c')).to.equal(c);
    const e = new LazyDir([], { one, all: () => [['b', one('b')!]] });
    e.set('z', own);
    expect([...e.keys()]).to.deep.equal(['b', 'z']);
  });
});
