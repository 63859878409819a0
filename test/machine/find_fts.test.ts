/**
 * find over gnulib's fts on trees other than the recorded /etc: the system calls of its walk (from the
 * first argument's lstat to the fchdir back), by name and the name argument of openat/newfstatat.
 * Expected values: strace of Debian 12's find 4.9 on this Debian 12 host (ext4), 2026-11-26:
 *   mkdir -p /tmp/mt/a/b /tmp/mt/c; touch /tmp/mt/a/x.conf /tmp/mt/a/b/y /tmp/mt/c/z.conf /tmp/mt/top.conf
 *   mkdir -p /tmp/mt2/e /tmp/mt2/l/m/n/o/p/q /tmp/mt2/z; touch /tmp/mt2/l/m/n/o/p/q/f /tmp/mt2/z/g /tmp/mt2/l/h
 *   strace find /tmp/mt2 /tmp/mt -name g >/dev/null
 * (ioctl lines dropped: the host's stdin/stdout were not the simulated terminal). The host's getdents
 * order is given to the simulated directories. It shows the ring of 4 descriptors (the 5th level closes
 * the oldest, the climb past it opens ".."), fstatfs once per argument for the first leaf directory, an
 * empty directory left at once, find's own duplicate dropped at each change of depth and postorder visit.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { simulatedImages, pick } from './images';

const EXPECTED = [
  'newfstatat /tmp/mt2|openat /tmp/mt2|newfstatat|fcntl|fcntl|newfstatat /tmp/mt2|fcntl|getdents64|getdents64|close',
  'newfstatat l|fcntl|openat l|newfstatat|fcntl|fcntl|newfstatat l|fcntl|getdents64|getdents64|close',
  'newfstatat m|close|fcntl|openat m|newfstatat|fcntl|fcntl|newfstatat m|fcntl|getdents64|getdents64|close',
  'newfstatat n|close|fcntl|openat n|newfstatat|fcntl|fcntl|newfstatat n|fcntl|getdents64|getdents64|close',
  'newfstatat o|close|fcntl|openat o|newfstatat|fcntl|fcntl|newfstatat o|fcntl|getdents64|getdents64|close',
  'newfstatat p|close|fcntl|openat p|newfstatat|fcntl|fcntl|newfstatat p|fcntl|close|getdents64|getdents64|close',
  'newfstatat q|close|fcntl|openat q|newfstatat|fcntl|fcntl|newfstatat q|fstatfs|fcntl|close|getdents64|getdents64|close',
  'close|fcntl|close|close|fcntl|close|close|fcntl|close|close|fcntl|close|close|fcntl',
  'openat ..|newfstatat|close|close|fcntl|openat ..|newfstatat|close|close|fcntl',
  'newfstatat e|openat e|newfstatat|fcntl|fcntl|newfstatat e|fcntl|getdents64|getdents64|close|close|close|fcntl',
  'newfstatat z|openat z|newfstatat|fcntl|fcntl|newfstatat z|fcntl|getdents64|getdents64|close|close|fcntl|newfstatat',
  'close|close|fcntl|close|close',
  'newfstatat /tmp/mt|openat /tmp/mt|newfstatat|fcntl|fcntl|newfstatat /tmp/mt|fcntl|getdents64|getdents64|close|fcntl',
  'newfstatat c|openat c|newfstatat|fcntl|fcntl|newfstatat c|fstatfs|fcntl|getdents64|getdents64|close|close|fcntl|close|close|fcntl',
  'newfstatat a|openat a|newfstatat|fcntl|fcntl|newfstatat a|fcntl|getdents64|getdents64|close',
  'newfstatat b|close|fcntl|openat b|newfstatat|fcntl|fcntl|newfstatat b|fcntl|getdents64|getdents64|close',
  'close|fcntl|close|close|fcntl|close|close|fcntl|close|close|fchdir',
].join('|').split('|');

const ORDER: [string, string[]][] = [
  ['/tmp/mt', ['top.conf', 'c', 'a']], ['/tmp/mt/a', ['b', 'x.conf']], ['/tmp/mt2', ['l', 'e', 'z']], ['/tmp/mt2/l', ['m', 'h']],
];
const SETUP = 'mkdir -p /tmp/mt/a/b /tmp/mt/c; touch /tmp/mt/a/x.conf /tmp/mt/a/b/y /tmp/mt/c/z.conf /tmp/mt/top.conf; ' +
  'mkdir -p /tmp/mt2/e /tmp/mt2/l/m/n/o/p/q /tmp/mt2/z; touch /tmp/mt2/l/m/n/o/p/q/f /tmp/mt2/z/g /tmp/mt2/l/h';

describe('find: gnulib fts walk (strace of Debian 12 find 4.9)', function () {
  this.timeout(60000);
  it('find /tmp/mt2 /tmp/mt -name g issues the real walk: ring of 4, "..", fstatfs per argument, empty directories', () => {
    const im = pick(simulatedImages('find /tmp/mt2 /tmp/mt -name g >/dev/null', SETUP, new Map(ORDER)), 'find')!;
    const calls = im.names.map((n, i) => {
      const a = im.args[i];
      return (n === 'openat' || n === 'newfstatat') && typeof a[1] === 'string' && a[1] !== '' ? `${n} ${a[1]}` : n;
    }).filter((c) => c !== 'ioctl');
    const from = calls.indexOf('newfstatat /tmp/mt2');
    const walk = calls.slice(from, calls.indexOf('fchdir') + 1);
    expect(walk.join('\n')).to.equal(EXPECTED.join('\n'));
  });
  it('prints what it finds (sorted; the same commands on the host)', () => {
    const m = new Machine({ cpus: 1, seed: 1 });
    m.run(SETUP);
    const sorted = (c: string): string[] => m.run(c).out.split('\n').filter(Boolean).sort();
    expect(sorted('find /tmp/mt -maxdepth 1')).to.deep.equal(['/tmp/mt', '/tmp/mt/a', '/tmp/mt/c', '/tmp/mt/top.conf']);
    expect(sorted('find /tmp/mt2 -type f')).to.deep.equal(['/tmp/mt2/l/h', '/tmp/mt2/l/m/n/o/p/q/f', '/tmp/mt2/z/g']);
  });
});
