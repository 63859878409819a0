/**
 * The order ext4 returns directory entries in (src/machine/fs/ext4_dirhash.ts): the htree hash order
 * under the recorder's filesystem hash seed, checked against the real guest's getdents64 (strace of the
 * recordings: each entry's d_off is the next one's hash position), and what ls -U / -f, find and ls /
 * print from it.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { ext4DirHash, ext4DirPos, ext4ReaddirOrder } from '../../src/machine/fs/ext4_dirhash';
import { findRecording, HELDOUT_DIR, loadRecording, Recording } from '../../scripts/record/recording';

/** Each getdents64 of a recording's strace: the names and d_off values, in the order returned. */
function getdents(r: Recording): { names: string[]; offs: string[] }[] {
  return r.strace.filter((s) => s[2] === 'getdents64').map((s) => {
    const j = s.join(' ');
    return { names: [...j.matchAll(/d_name="([^"]*)"/g)].map((m) => m[1]), offs: [...j.matchAll(/d_off=(\d+)/g)].map((m) => m[1]) };
  }).filter((g) => g.names.length > 0);
}

describe('ext4 readdir order (htree hash order)', function () {
  this.timeout(60000);
  const held = (cmd: string): Recording => loadRecording(findRecording(cmd, HELDOUT_DIR)!, HELDOUT_DIR);

  it('hashes names as the guest kernel did: every d_off of find, tar and ls -la on the recorder\'s disk', () => {
    let checked = 0;
    for (const r of [loadRecording(findRecording('find')!), loadRecording(findRecording('tar')!), held('ls -la /etc/systemd')]) {
      for (const g of getdents(r)) {
        for (let i = 0; i + 1 < g.names.length; i++) { expect(ext4DirPos(g.names[i + 1]), g.names[i + 1]).to.equal(g.offs[i]); checked++; }
      }
    }
    expect(checked).to.be.greaterThan(800);
    // the major hash keeps its low bit clear; the position is (hash >> 1) << 32 | minor
    const h = ext4DirHash('.');
    expect(h.hash & 1).to.equal(0);
    expect(ext4DirPos('.')).to.equal('439842472609792981');
  });

  it('returns a one-block directory\'s entries, "." and ".." among them, in the guest\'s order', () => {
    const real = getdents(held('ls -la /etc/systemd'))[0].names;
    expect(real.slice(0, 3)).to.deep.equal(['networkd.conf', '.', 'pstore.conf']);
    expect(ext4ReaddirOrder(real.filter((n) => n !== '.' && n !== '..'), 1)).to.deep.equal(real);
    // an indexed directory (more than one block) returns "." and ".." first
    expect(ext4ReaddirOrder(['b', 'a'], 3).slice(0, 2)).to.deep.equal(['.', '..']);
  });

  it('ls -U and ls -f list in that order; find walks it; new files take their hash place', () => {
    const real = getdents(held('ls -la /etc/systemd'))[0].names;
    const m = new Machine({ cpus: 2, seed: 1 });
    expect(m.run('ls -f /etc/systemd | cat').out).to.equal(real.map((n) => `${n}\n`).join(''));
    expect(m.run('ls -U /etc/systemd | cat').out).to.equal(real.filter((n) => !n.startsWith('.')).map((n) => `${n}\n`).join(''));
    expect(m.run('ls -fl /etc/systemd | cat').out).to.equal(real.map((n) => `${n}\n`).join(''));
    // find prints what the guest's find printed (the held-out recording's writes)
    const out = held('find /etc/systemd -type f').strace.filter((s) => s[2] === 'write').map((s) => JSON.parse(s[3].replace(/^1, /, '').replace(/, \d+$/, ''))).join('');
    expect(m.run('find /etc/systemd -type f').out).to.equal(out);
    const created = ['zz', 'b', 'a', 'c'];
    expect(m.run(`mkdir /root/d; touch ${created.map((n) => `/root/d/${n}`).join(' ')}; ls -f /root/d | cat`).out)
      .to.equal(ext4ReaddirOrder(created, 1).map((n) => `${n}\n`).join(''));
  });

  it('ls / prints the real guest\'s root, lost+found, media and run included (the ls-root recording\'s writes)', () => {
    const r = loadRecording(findRecording('ls-root')!);
    const out = r.strace.filter((s) => s[2] === 'write' && s[3].startsWith('1, ')).map((s) => JSON.parse(s[3].replace(/^1, /, '').replace(/, \d+$/, ''))).join('');
    // the recorded run wrote to the guest's console, 80 columns, as the machine's terminal is
    expect(new Machine({ cpus: 2, seed: 1 }).run('ls /').out).to.equal(out);
    expect(new Machine({ cpus: 2, seed: 1 }).run('ls -ld /lost+found /media; cat /proc/mounts | grep run').out).to.match(
      /^drwx------ 2 root root 16384 .* \/lost\+found\ndrwxr-xr-x 2 root root  4096 .* \/media\ntmpfs \/run tmpfs rw,nosuid,nodev,size=402732k,nr_inodes=819200,mode=755,inode64 0 0\ntmpfs \/run\/lock tmpfs /);
  });
});
