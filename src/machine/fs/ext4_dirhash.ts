/**
 * The order ext4 returns a directory's entries in (fs/ext4/dir.c ext4_dx_readdir, namei.c
 * ext4_htree_fill_tree, hash.c ext4fs_dirhash): with dir_index, a directory of one block or an indexed
 * one is read through the htree code, which returns its entries sorted by (hash, minor hash) of their
 * names under the filesystem's hash seed. A one-block directory hashes "." and ".." like any name; an
 * indexed one (more than one block) returns them first (hashes 0 and 2). getdents64's d_off is the
 * next entry's hash2pos(): (hash >> 1) << 32 | minor hash with 64-bit cookies.
 *
 * The hash is the half-MD4 one mke2fs picks by default (s_def_hash_version), signed-char variant as
 * on x86 (EXT2_FLAGS_SIGNED_HASH). Checked against the recordings: every getdents64 d_off of the
 * recorder's disk (find, tar, cp-r, ls-l, the held-out ls -la /etc/systemd ...) is the next entry's
 * position computed here.
 */

/**
 * The recorder's filesystem hash seed (scripts/record/record.sh REC_FS_HASH_SEED, given to mke2fs so
 * that every recording's disk orders its directories alike), as s_hash_seed's four little-endian words.
 */
const SEED = ((uuid: string): number[] => {
  const b = Buffer.from(uuid.replace(/-/g, ''), 'hex');
  return [0, 1, 2, 3].map((i) => b.readUInt32LE(i * 4));
})('8d3f2a61-4b7e-4c19-a5d0-3e9b1c7f2a84');

const rol = (x: number, s: number): number => ((x << s) | (x >>> (32 - s))) >>> 0;
const F = (x: number, y: number, z: number): number => (z ^ (x & (y ^ z))) >>> 0;
const G = (x: number, y: number, z: number): number => (((x & y) >>> 0) + (((x ^ y) & z) >>> 0)) >>> 0;
const H = (x: number, y: number, z: number): number => (x ^ y ^ z) >>> 0;
const K2 = 0o13240474631, K3 = 0o15666365641;

/** hash.c half_md4_transform: three rounds over eight words, added into buf */
function halfMd4(buf: number[], x: readonly number[]): void {
  let [a, b, c, d] = buf;
  const r = (f: typeof F, p: number, q: number, s: number, t: number, w: number, k: number): number => rol((p + f(q, s, t) + w) >>> 0, k);
  a = r(F, a, b, c, d, x[0], 3); d = r(F, d, a, b, c, x[1], 7); c = r(F, c, d, a, b, x[2], 11); b = r(F, b, c, d, a, x[3], 19);
  a = r(F, a, b, c, d, x[4], 3); d = r(F, d, a, b, c, x[5], 7); c = r(F, c, d, a, b, x[6], 11); b = r(F, b, c, d, a, x[7], 19);
  const g = (w: number): number => (w + K2) >>> 0;
  a = r(G, a, b, c, d, g(x[1]), 3); d = r(G, d, a, b, c, g(x[3]), 5); c = r(G, c, d, a, b, g(x[5]), 9); b = r(G, b, c, d, a, g(x[7]), 13);
  a = r(G, a, b, c, d, g(x[0]), 3); d = r(G, d, a, b, c, g(x[2]), 5); c = r(G, c, d, a, b, g(x[4]), 9); b = r(G, b, c, d, a, g(x[6]), 13);
  const h = (w: number): number => (w + K3) >>> 0;
  a = r(H, a, b, c, d, h(x[3]), 3); d = r(H, d, a, b, c, h(x[7]), 9); c = r(H, c, d, a, b, h(x[2]), 11); b = r(H, b, c, d, a, h(x[6]), 15);
  a = r(H, a, b, c, d, h(x[1]), 3); d = r(H, d, a, b, c, h(x[5]), 9); c = r(H, c, d, a, b, h(x[0]), 11); b = r(H, b, c, d, a, h(x[4]), 15);
  buf[0] = (buf[0] + a) >>> 0; buf[1] = (buf[1] + b) >>> 0; buf[2] = (buf[2] + c) >>> 0; buf[3] = (buf[3] + d) >>> 0;
}

/** hash.c str2hashbuf_signed: up to num words of the name's bytes (as signed chars), padded with its length */
function str2hashbuf(s: Uint8Array, off: number, len: number, num: number): number[] {
  const out: number[] = [];
  let pad = (len | (len << 8)) >>> 0;
  pad = (pad | (pad << 16)) >>> 0;
  let val = pad;
  const n = Math.min(len, num * 4);
  for (let i = 0; i < n; i++) {
    const ch = s[off + i] > 127 ? s[off + i] - 256 : s[off + i];
    val = (ch + ((val << 8) >>> 0)) >>> 0;
    if (i % 4 === 3) { out.push(val); val = pad; num--; }
  }
  if (--num >= 0) out.push(val);
  while (--num >= 0) out.push(pad);
  return out;
}

/** ext4fs_dirhash of a name (its bytes: strings are bytes, one char each): the major hash (low bit clear) and the minor one */
export function ext4DirHash(name: string): { hash: number; minor: number } {
  const bytes = Buffer.from(name, 'latin1');
  const buf = [...SEED];
  for (let p = 0, len = bytes.length; len > 0; len -= 32, p += 32) halfMd4(buf, str2hashbuf(bytes, p, len, 8));
  let hash = (buf[1] & ~1) >>> 0;
  if (hash === 0xfffffffe) hash = 0xfffffffc; // EXT4_HTREE_EOF_32BIT << 1 is reserved
  return { hash, minor: buf[2] };
}

/** getdents64's d_off of the entry before this one (hash2pos with 64-bit cookies), as a decimal string */
export function ext4DirPos(name: string): string {
  const { hash, minor } = ext4DirHash(name);
  return ((BigInt(hash >>> 1) << 32n) | BigInt(minor)).toString();
}

/**
 * A directory's names in the order ext4 reads them: sorted by (hash, minor hash); "." and ".." among
 * them in a one-block directory, first in an indexed one (`blocks` > 1).
 */
export function ext4ReaddirOrder(names: Iterable<string>, blocks: number): string[] {
  const keyed = [...names].map((n) => ({ n, h: ext4DirHash(n) }));
  if (blocks <= 1) keyed.push({ n: '.', h: ext4DirHash('.') }, { n: '..', h: ext4DirHash('..') });
  keyed.sort((a, b) => a.h.hash - b.h.hash || a.h.minor - b.h.minor || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
  const out = keyed.map((k) => k.n);
  return blocks <= 1 ? out : ['.', '..', ...out];
}

/** The blocks of an ext4 directory of `size` bytes (i_size / 4 KiB, one at least). */
export function ext4DirBlocks(d: { readonly size: number }): number {
  return Math.ceil(Math.max(4096, d.size) / 4096);
}

/**
 * The entries (in ext4ReaddirOrder's order, '.' and '..' among them) at which the leaves of a directory of
 * `n` entries in `blocks` blocks start: a one-block directory is one leaf of them all; an indexed one keeps
 * "." and ".." in its root block (the htree header) and its other entries in the `blocks - 1` leaf blocks,
 * taken here as even shares in hash order (the machine keeps no leaf blocks).  The starts of the leaves,
 * the first one 0, then the end, `n`.
 */
export function ext4LeafStarts(n: number, blocks: number): number[] {
  if (blocks <= 1 || n <= 2) return [0, n];
  const leaves = blocks - 1;
  const out = [0];
  for (let k = 1; k < leaves; k++) {
    const s = 2 + Math.floor((k * (n - 2)) / leaves);
    if (s > out[out.length - 1] && s < n) out.push(s);
  }
  out.push(n);
  return out;
}

/**
 * The fills of ext4_htree_fill_tree (namei.c) while a getdents64 returns entries [from, to) of a directory
 * of `n` entries in `blocks` blocks, read through ext4_dx_readdir (dir.c: dir_index, a one-block or an
 * indexed directory).  The readdir fills its rb-tree when the tree is used up: the first call fills at once
 * (the first leaf, "." and ".." stored with it: the htree header's, or the one block's own); a call that
 * uses up a leaf fills the next one when it has room for another entry (here: when it returns that leaf's
 * first entry or stops right at it); the call after the last leaf (next_hash ~0) returns 0 without a fill.
 * Each fill first frees the tree's fnames (free_rb_tree_fname: one kfree each, none before the first fill).
 * `stores`: the entries the fills store (ext4_htree_store_dirent: one kmalloc'd struct fname each);
 * `frees`: the fnames each of them frees (their mean: the call's recorded tree frees per free_rb_tree_fname).
 * The recordings: each of the /etc walks' 85 directories (one block each) stored all its entries in one
 * fill at its first getdents64 (tar, tar-gzip, cp-r: 500 ext4_htree_store_dirent; ls -l /etc: 100 in its
 * only fill), and freed them at its close (fs/ext4.ts ext4DirFnames), none in a getdents64.
 */
export function ext4Fills(n: number, blocks: number, from: number, to: number): { stores: number; frees: number } {
  const starts = ext4LeafStarts(n, blocks);
  let stores = 0, frees = 0, fills = 0;
  for (let k = 0; k + 1 < starts.length; k++) {
    const s = starts[k];
    const filled = k === 0 ? from === 0 && n > 0 : from < s && s <= to;
    if (!filled) continue;
    fills++;
    stores += starts[k + 1] - s;
    if (k > 0) frees += s - starts[k - 1];
  }
  return { stores, frees: fills ? Math.round(frees / fills) : 0 };
}
