import { expect } from 'chai';
import * as fs from 'fs';
import { decodeSymtab, openSymtabFile, encodeSymtab, parseSymtabData, parseSymtabText, sourceStamp, builtSymtabFile, SymtabSource, nameBucketCount, nameHashOf } from '../../src/kernel/ksymtab';

describe('kernel data: compact symbol table', () => {
  const small = (): SymtabSource => parseSymtabText(
    // delta-encoded addresses (System.map order: unsigned ascending), as kallsyms.gz stores them
    ['0 A fixed_percpu_data', '2000 D cpu_number', 'ffffffff80ffe000 T _stext', '10 t dup', '10 T vfs_read', '20 t dup', '8 t \xe9t\xe9'].join('\n'),
    ['M ext4 ffffffffc0100000 3000 1000 1 - Live', '10 t dup\tfs/ext4/a.c\t7', '@10', '20 T ext4_read', 'S ext4 kernel'].join('\n'));

  it('round-trips names, types, addresses, modules and duplicate names', () => {
    const src = small();
    const t = decodeSymtab(encodeSymtab(src, 'x'), 'x')!;
    expect(t.n).to.equal(9);
    expect(t.allNames()).to.deep.equal(src.names);
    expect([...t.addrs]).to.deep.equal(src.addrs);
    expect(Array.from({ length: t.n }, (_, i) => t.type(i)).join('')).to.equal('ADTtTtttT');
    expect(t.lookup('dup')).to.deep.equal([3, 5, 7]);
    expect(t.lookup('vfs_read')).to.deep.equal([4]);
    expect(t.lookup('\xe9t\xe9')).to.deep.equal([6]);
    for (const miss of ['', 'a', 'du', 'dupe', 'zzz', '\u0100']) expect(t.lookup(miss)).to.deep.equal([]);
    expect([...t.mods]).to.deep.equal([-1, -1, -1, -1, -1, -1, -1, 0, 0]);
    expect(t.modules()).to.deep.equal({
      modules: [{ name: 'ext4', base: Number(BigInt.asIntN(64, 0xffffffffc0100000n)), size: 0x3000, textSize: 0x1000, refcnt: 1, usedBy: [], loaded: true, firstId: 7, endId: 9 }],
      sites: [Number(BigInt.asIntN(64, 0xffffffffc0100010n))],
      locs: [[7, 'fs/ext4/a.c', 7]],
      sysModules: ['ext4', 'kernel'],
    });
  });

  it('orders addresses signed (kernel half first) without reordering ids', () => {
    const t = decodeSymtab(encodeSymtab(small(), 'x'), 'x')!;
    const order = Array.from({ length: t.n }, (_, k) => t.sortedId(k));
    expect(order).to.deep.equal([2, 3, 4, 5, 6, 7, 8, 0, 1]);
    expect([...t.sortedAddrs]).to.deep.equal(order.map((i) => t.addrs[i]));
  });

  it('finds names through the hash buckets (several names to a bucket, repeated names)', () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`10 t f${i % 1000}_${(i * 7919) % 3000}`, '10 t rep');
    const src = parseSymtabText(lines.join('\n'), null);
    const t = decodeSymtab(encodeSymtab(src, 'x'), 'x')!;
    const nb = nameBucketCount(src.names.length);
    expect(nb).to.equal(4096);
    const perBucket = new Map<number, number>();
    for (const n of new Set(src.names)) perBucket.set(nameHashOf(n) & (nb - 1), (perBucket.get(nameHashOf(n) & (nb - 1)) ?? 0) + 1);
    expect([...perBucket.values()].some((c) => c > 2), 'some buckets hold several names').to.equal(true);
    for (let i = 0; i < src.names.length; i += 2) expect(t.lookup(src.names[i])).to.deep.equal([i]);
    expect(t.lookup('rep')).to.deep.equal(Array.from({ length: 3000 }, (_, i) => 2 * i + 1));
    for (const miss of ['f1', 'f0_', 're', 'repp', 'f1000_0']) expect(t.lookup(miss)).to.deep.equal([]);
  });

  it('is not used when made from other data', () => {
    const bin = encodeSymtab(small(), 'kallsyms.gz=1:2');
    expect(decodeSymtab(bin, 'kallsyms.gz=1:3')).to.equal(null);
    expect(decodeSymtab(Buffer.from('garbage\n'), 'x')).to.equal(null);
  });

  it('the build\'s table matches the text data', () => {
    const bin = fs.readFileSync(builtSymtabFile());
    const t = decodeSymtab(bin, sourceStamp());
    expect(t, 'dist/kernel-tables/ksymtab.bin is current').to.not.equal(null);
    const src = parseSymtabData();
    expect(t!.n).to.equal(src.names.length);
    const byName = new Map<string, number[]>();
    src.names.forEach((n, i) => { const l = byName.get(n); if (l) l.push(i); else byName.set(n, [i]); });
    for (let i = 0; i < src.names.length; i += 97) {
      expect(t!.name(i)).to.equal(src.names[i]);
      expect(t!.type(i)).to.equal(src.types[i]);
      expect(t!.addrs[i]).to.equal(src.addrs[i]);
      expect(t!.lookup(src.names[i])).to.deep.equal(byName.get(src.names[i]));
    }
    expect(t!.modules()).to.deep.equal(src.moduleData);
    // read from the file as used: the same answers, names from every page of the blob
    const f = openSymtabFile(builtSymtabFile(), sourceStamp())!;
    expect(f.n).to.equal(src.names.length);
    for (let i = src.names.length - 1; i >= 0; i -= 89) {
      expect(f.lookup(src.names[i])).to.deep.equal(byName.get(src.names[i]));
      expect(f.name(i)).to.equal(src.names[i]);
      expect(f.addrs[i]).to.equal(src.addrs[i]);
    }
    expect(f.allNames()).to.deep.equal(src.names);
    expect(f.moduleList()).to.deep.equal(src.moduleData.modules);
    expect(f.moduleLocs()).to.deep.equal(src.moduleData.locs);
    expect(openSymtabFile(builtSymtabFile(), 'other data')).to.equal(null);
    expect(openSymtabFile('/nonexistent/ksymtab.bin', sourceStamp())).to.equal(null);
  });
});
