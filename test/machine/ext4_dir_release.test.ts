/**
 * ext4_release_dir (fs/ext4/dir.c): the last close of a directory read through the htree code frees the
 * fnames its last ext4_htree_fill_tree left in the dir_info's rb-tree (ext4_htree_free_dir_info ->
 * free_rb_tree_fname, one kfree each): for a one-block directory all its entries with "." and ".."
 * (src/machine/fs/ext4.ts ext4DirFnames).  The tar-gzip recording's events run shows it at each of tar's
 * directory closes: kfree from free_rb_tree_fname 2 for an empty directory, 3 for one entry ... (67 closes,
 * 333 fnames in its first 20000 records), where the machine drew a recorded close's count (tar's close
 * kfree 904 for about 500).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter } from '../../src/kernel/ftrace';
import { lookupAddr, symbolName } from '../../src/kernel/kallsyms';

/** kfree calls made by free_rb_tree_fname while `run` runs. */
function fnamesFreed(run: () => void): number {
  let n = 0;
  const op = new FtraceOps('fnames', (_ip, pip) => {
    const at = lookupAddr(pip);
    if (at && symbolName(at.id) === 'free_rb_tree_fname') n++;
  });
  ftraceSetFilter(op, 'kfree', false);
  registerFtraceFunction(op);
  try { run(); } finally { unregisterFtraceFunction(op); }
  return n;
}

describe('ext4_release_dir: a read directory\'s fnames freed at its last close', function () {
  this.timeout(60000);
  it('frees every entry of a one-block directory, "." and ".." among them; none for a directory never read', () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    expect(m.run('mkdir /root/e /root/f && touch /root/f/a /root/f/b /root/f/c /root/f/d /root/f/e').status).to.equal(0);
    // ls opens the directory, reads it to the end (getdents64 until 0) and closes it
    expect(fnamesFreed(() => { expect(m.run('ls /root/e').status).to.equal(0); })).to.equal(2);
    expect(fnamesFreed(() => { expect(m.run('ls /root/f').status).to.equal(0); })).to.equal(7);
    // a directory opened and closed without a read has no dir_info
    expect(fnamesFreed(() => { expect(m.run('cd /root/f && true').status).to.equal(0); })).to.equal(0);
  });

  it('frees what each directory held, whatever its size: the release run is one of a directory about as big', () => {
    // (recorded releases of big directories list their kfrees one by one, not as a repeated call whose
    // count the machine sets: drawn for a small directory, they freed /etc's 85 fnames, tar's close kfree 979
    // for 500 in tar-gzip's events run)
    const m = new Machine({ cpus: 4, seed: 2, memMB: 2048 });
    const sizes = [0, 1, 2, 3, 4, 6, 10, 15, 30];
    expect(m.run(sizes.map((k) => `mkdir /root/d${k}` + (k ? ` && touch ${Array.from({ length: k }, (_, i) => `/root/d${k}/f${i}`).join(' ')}` : '')).join(' && ')).status).to.equal(0);
    const dirs = sizes.map((k) => `/root/d${k}`).join(' ');
    // ls and tar of them all, a few times: each directory's close frees its own
    const want = sizes.reduce((a, k) => a + k + 2, 0);
    for (let i = 0; i < 3; i++) {
      expect(fnamesFreed(() => { expect(m.run(`ls ${dirs} > /dev/null`).status).to.equal(0); })).to.equal(want);
      expect(fnamesFreed(() => { expect(m.run(`tar cf /dev/null ${dirs}`).status).to.equal(0); })).to.equal(want);
    }
    // /etc: its 98 names, "." and ".." (the ls-l recording's fill stored 100)
    expect(fnamesFreed(() => { expect(m.run('ls /etc > /dev/null').status).to.equal(0); })).to.equal(100);
  });
});
