/**
 * ext4_dx_readdir's fills (fs/ext4/dir.c, namei.c ext4_htree_fill_tree): the entries a getdents64 stores
 * in the readdir's rb-tree (ext4_htree_store_dirent, one kmalloc'd struct fname each), which decide the
 * recorded getdents64 tree the machine runs (src/machine/fs/ext4_dirhash.ts ext4Fills, fs/stat.ts).
 * The recordings: ls -l /etc stores its 100 entries in its only fill, the /etc walks (tar, cp-r) 500 in 85
 * fills, one per directory; before, the machine drew trees of other directories (ls -l /etc stored 2,
 * tar 767).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { ext4DirBlocks, ext4Fills, ext4LeafStarts } from '../../src/machine/fs/ext4_dirhash';
import { findRecording, loadRecording } from '../../scripts/record/recording';
import { counting } from './ftrace_counting';

/** A recording's calls of kernel function `fn` (its graph run). */
function recordedCalls(name: string, fn: string): number {
  const r = loadRecording(findRecording(name)!);
  const i = r.functions.indexOf(fn);
  return i < 0 ? 0 : r.calls[i];
}

/**
 * The machine runs a recorded tree whose stores are nearest the fill's (paths/model.ts nearestZap: the
 * variants within ~20% in ratio of the nearest are drawn alike), so its count is the fill's to that.
 */
function near(n: number, want: number): void {
  expect(n).to.be.within(Math.floor(want * 0.8), Math.ceil(want * 1.25));
}

describe('ext4_htree_fill_tree: the entries each getdents64 stores', function () {
  this.timeout(60000);

  it('fills a one-block directory at once: all its entries at the first call, none at the end-of-directory call', () => {
    expect(ext4LeafStarts(7, 1)).to.deep.equal([0, 7]);
    expect(ext4Fills(7, 1, 0, 7).stores).to.equal(7);
    expect(ext4Fills(7, 1, 7, 7).stores).to.equal(0);
    // a call that returns part of it (a small buffer) still filled it all; the next one fills nothing
    expect(ext4Fills(7, 1, 0, 3).stores).to.equal(7);
    expect(ext4Fills(7, 1, 3, 7).stores).to.equal(0);
    expect(ext4DirBlocks({ size: 4096 })).to.equal(1);
    expect(ext4DirBlocks({ size: 0 })).to.equal(1);
    expect(ext4DirBlocks({ size: 12288 })).to.equal(3);
  });

  it('fills an indexed directory a leaf at a time, "." and ".." with the first, each leaf once', () => {
    // 1002 entries in 5 blocks: the root block's "." and "..", 1000 in 4 leaves of 250
    expect(ext4LeafStarts(1002, 5)).to.deep.equal([0, 252, 502, 752, 1002]);
    expect(ext4Fills(1002, 5, 0, 512).stores).to.equal(252 + 250 + 250);
    expect(ext4Fills(1002, 5, 512, 1002).stores).to.equal(250);
    expect(ext4Fills(1002, 5, 1002, 1002).stores).to.equal(0);
    // a call that stops right at a leaf's first entry filled that leaf (it had room for one more)
    expect(ext4Fills(1002, 5, 0, 252).stores).to.equal(252 + 250);
    expect(ext4Fills(1002, 5, 252, 502).stores).to.equal(250);
    // whatever the calls, every entry is stored once
    let sum = 0;
    for (let from = 0; from < 1002; from += 100) sum += ext4Fills(1002, 5, from, Math.min(1002, from + 100)).stores;
    expect(sum).to.equal(1002);
    // each fill first frees the fnames of the one before (free_rb_tree_fname): none at the first
    expect(ext4Fills(1002, 5, 0, 512)).to.deep.equal({ stores: 752, frees: Math.round((252 + 250) / 3) });
    expect(ext4Fills(1002, 5, 512, 1002)).to.deep.equal({ stores: 250, frees: 250 });
    expect(ext4Fills(7, 1, 0, 7)).to.deep.equal({ stores: 7, frees: 0 });
  });

  it('runs a tree storing the directory\'s entries: ls of a small directory, and ls -l /etc as recorded', () => {
    const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
    expect(m.run('mkdir /root/f && touch /root/f/a /root/f/b /root/f/c /root/f/d /root/f/e').status).to.equal(0);
    let c = counting(['ext4_htree_store_dirent', 'ext4_htree_fill_tree'], 'fill');
    try { expect(m.run('ls /root/f').status).to.equal(0); } finally { c.stop(); }
    expect(c.n.get('ext4_htree_fill_tree')).to.equal(1);
    near(c.n.get('ext4_htree_store_dirent')!, 7);
    // the directories of the recordings: about their recorded counts
    c = counting(['ext4_htree_store_dirent', 'ext4_htree_fill_tree'], 'fill-root');
    try { expect(m.run('ls / > /dev/null').status).to.equal(0); } finally { c.stop(); }
    near(c.n.get('ext4_htree_store_dirent')!, recordedCalls('ls-root', 'ext4_htree_store_dirent'));
    c = counting(['ext4_htree_store_dirent', 'ext4_htree_fill_tree'], 'fill-etc');
    try { expect(m.run('ls -l /etc > /dev/null').status).to.equal(0); } finally { c.stop(); }
    expect(c.n.get('ext4_htree_fill_tree')).to.equal(recordedCalls('ls-l', 'ext4_htree_fill_tree'));
    near(c.n.get('ext4_htree_store_dirent')!, recordedCalls('ls-l', 'ext4_htree_store_dirent'));
  });
});
