import { expect } from 'chai';
import {
  addrHex, functionLocation, kallsymsLookupName, lookupAddr, lookupName, matchFunctions, symbol,
  formatSymOffset, withinKprobeBlacklist, isInlineOnly, parseFuncPattern, globToRegExp, kprobeBlacklist,
  symbolCount, symbolName, isFunction,
} from '../../src/kernel/kallsyms';
import {
  btfFunc, btfTypeName, btfLookupType, btfResolveChain, btfSizeof, btfFindMember, btfEnumValues, btfFindByName, BtfKind, btfType, btfTypeCount,
} from '../../src/kernel/btf';
import { syscallByName, syscallByNr, syscallTableSize, syscallNumber, syscallNumberIn, syscallRowIn, syscalls } from '../../src/kernel/syscalls';
import { readDataText } from '../../src/kernel/data';
import { kconfig } from '../../src/kernel/config';

describe('kernel data: kallsyms', () => {
  it('an exact function name finds its compiler clones as the one-name glob does', () => {
    // matchFunctions('foo') skips the clone index (and the DWARF table it needs) unless some text
    // symbol is named foo.<suffix>; '[f]oo' always goes through the index: both must agree
    const bases = new Set<string>();
    for (let id = 0; id < symbolCount(); id++) {
      const n = symbolName(id);
      if (n.indexOf('.') > 0 && isFunction(id)) bases.add(n.slice(0, n.indexOf('.')));
    }
    const sample = [...bases].filter((b, i) => i % 40 === 0 && /^[a-z_]/.test(b));
    expect(sample.length).to.be.greaterThan(20);
    let withClones = 0;
    for (const b of sample) {
      const exact = matchFunctions(b);
      expect(exact, b).to.deep.equal(matchFunctions(`[${b[0]}]${b.slice(1)}`));
      if (exact.some((id) => symbolName(id) !== b)) withClones++;
    }
    expect(withClones).to.be.greaterThan(0);
    // names without a dotted namesake: the symbols of that name only
    expect(matchFunctions('vfs_read')).to.deep.equal(lookupName('vfs_read'));
    expect(matchFunctions('sys_read')).to.deep.equal([]);
  });

  it('has real 6.1 symbols with addresses, type letters and file:line', () => {
    const [id] = lookupName('vfs_read');
    const s = symbol(id);
    expect(s.type).to.equal('T');
    expect(addrHex(s.addr)).to.match(/^ffffffff81[0-9a-f]{6}$/);
    expect(functionLocation(id)).to.deep.equal({ file: 'fs/read_write.c', line: 450 });
    const open = lookupName('do_sys_open').map(functionLocation);
    expect(open[0]).to.deep.equal({ file: 'fs/open.c', line: 1333 });
  });

  it('looks up addresses like kallsyms_lookup_size_offset', () => {
    const a = kallsymsLookupName('vfs_read') as number;
    const p = lookupAddr(a + 7);
    expect(p).to.not.equal(null);
    expect(p!.offset).to.equal(7);
    expect(p!.size).to.be.greaterThan(7);
    expect(formatSymOffset(a)).to.match(/^vfs_read\+0x0\/0x[0-9a-f]+$/);
  });

  it('matches wildcards and @file suffixes', () => {
    const names = matchFunctions('vfs_rea*@fs/read_write.c').map((i) => symbol(i).name).sort();
    expect(names).to.include.members(['vfs_read', 'vfs_readv']);
    expect(matchFunctions('vfs_read@read_write.c')).to.have.length(1);
    expect(matchFunctions('vfs_read@fs/open.c')).to.have.length(0);
    expect(parseFuncPattern('sys_*@kernel/*.c:12')).to.deep.equal({ func: 'sys_*', file: 'kernel/*.c', line: 12 });
    expect(globToRegExp('a[bc]?d*').test('acxdzz')).to.equal(true);
  });

  it('knows the kprobe blacklist and inline-only functions', () => {
    expect(kprobeBlacklist().length).to.be.greaterThan(100);
    expect(withinKprobeBlacklist(kallsymsLookupName('do_int3') as number)).to.equal(true);
    expect(withinKprobeBlacklist(kallsymsLookupName('vfs_read') as number)).to.equal(false);
    expect(isInlineOnly('get_current')).to.equal(true);
    expect(isInlineOnly('vfs_read')).to.equal(false);
  });
});

describe('kernel data: BTF', () => {
  it('gives prototypes with parameter names and types (checked against 6.1 sources)', () => {
    const f = btfFunc('vfs_read')!;
    expect(f.params.map((p) => `${p.name}:${btfTypeName(p.type, 'stap')}`)).to.deep.equal(
      ['file:struct file*', 'buf:char*', 'count:size_t', 'pos:loff_t*']);
    expect(btfTypeName(f.ret)).to.equal('ssize_t');
    const o = btfFunc('do_sys_open')!;
    expect(o.params.map((p) => `${p.name}:${btfTypeName(p.type)}`)).to.deep.equal(
      ['dfd:int', 'filename:const char *', 'flags:int', 'mode:umode_t']);
    const k = btfFunc('ksys_write')!;
    expect(k.params.map((p) => p.name)).to.deep.equal(['fd', 'buf', 'count']);
    expect(btfTypeName(k.params[0].type)).to.equal('unsigned int');
  });

  it('resolves struct member chains with offsets', () => {
    const file = btfLookupType('struct file')!;
    const chain = btfResolveChain(file, ['f_path', 'dentry', 'd_name', 'name']);
    expect(chain.map((s) => s.offset)).to.deep.equal([16, 8, 32, 8]);
    expect(btfTypeName(chain[3].type)).to.equal('const unsigned char *');
    const task = btfLookupType('struct task_struct')!;
    expect(btfTypeName(btfFindMember(task, 'comm')!.type)).to.equal('char [16]');
    expect(btfSizeof(btfLookupType('struct list_head')!)).to.equal(16);
    expect(() => btfResolveChain(file, ['no_such_member'])).to.throw(/unable to find member/);
    // anonymous union member in struct page
    const page = btfLookupType('struct page')!;
    expect(btfFindMember(page, 'flags')!.bitOffset).to.equal(0);
  });

  it('has enums and typedefs', () => {
    const e = btfFindByName('pid_type', BtfKind.ENUM)[0];
    expect(btfEnumValues(e).map((v) => v.name)).to.include('PIDTYPE_PID');
    expect(btfSizeof(btfLookupType('pid_t')!)).to.equal(4);
  });
});

describe('kernel data: BTF names', () => {
  it('btfFindByName finds every type of a name, in id order, as decoding every name does', function () {
    this.timeout(120000);
    const byName = new Map<string, number[]>();
    for (let id = 1; id < btfTypeCount(); id++) {
      const n = btfType(id).name;
      if (!n) continue;
      const l = byName.get(n);
      if (l) l.push(id); else byName.set(n, [id]);
    }
    expect(byName.size).to.be.greaterThan(50000);
    for (const [n, ids] of byName) expect(btfFindByName(n), n).to.deep.equal(ids);
    expect(btfFindByName('vfs_read', BtfKind.FUNC)).to.have.length(1);
    for (const n of ['vfs_rea', 'vfs_readx', 'no_such_type_anywhere', 'vfs_read\0']) expect(btfFindByName(n), n).to.deep.equal([]);
  });
});

describe('kernel data: syscalls and config', () => {
  it('has the x86_64 syscall table with argument metadata', () => {
    expect(syscallByNr(0)!.name).to.equal('read');
    expect(syscallByName('openat')!.nr).to.equal(257);
    expect(syscallByName('openat')!.tableSymbol).to.equal('__x64_sys_openat');
    expect(syscallByName('read')!.args).to.deep.equal([
      { type: 'unsigned int', name: 'fd' }, { type: 'char *', name: 'buf' }, { type: 'size_t', name: 'count' }]);
    expect(syscallTableSize()).to.be.greaterThan(400);
  });

  it('numbers a syscall from the table\'s text as the parsed table does (the first native row of the name)', () => {
    const text = '\n' + readDataText('syscalls.tsv');
    const names = new Set<string>();
    for (const line of text.split('\n')) if (line && !line.startsWith('#')) names.add(line.split('\t')[2]);
    expect(names.size).to.be.greaterThan(350);
    for (const n of names) expect(syscallNumberIn(text, n), n).to.equal(syscallByName(n)?.nr ?? -1);
    // an x32-only name, a name that is another column's text, no such syscall
    expect(syscallNumberIn(text, 'sys_read')).to.equal(-1);
    expect(syscallNumberIn(text, 'no_such_syscall')).to.equal(-1);
    expect(syscallNumber('openat')).to.equal(257);
  });

  it('finds a syscall\'s row by name in the table\'s text as the parsed table does (a start parses no table)', () => {
    const text = '\n' + readDataText('syscalls.tsv');
    const table = syscalls(); // parsed: syscallByName answers from the table from here on
    const names = new Set(table.map((r) => r.name));
    names.add('sys_read').add('no_such_syscall');
    const fields = (r: ReturnType<typeof syscallByName>) => r && { nr: r.nr, abi: r.abi, name: r.name, entry: r.entry, tableSymbol: r.tableSymbol, args: r.args };
    for (const n of names) expect(fields(syscallRowIn(text, n)), n).to.deep.equal(fields(syscallByName(n)));
    expect(syscallRowIn(text, 'openat')!.args!.map((a) => a.name)).to.deep.equal(['dfd', 'filename', 'flags', 'mode']);
  });

  it('reads the Debian .config', () => {
    expect(kconfig('CONFIG_KPROBES')).to.equal('y');
    expect(kconfig('CONFIG_HZ')).to.equal('250');
    expect(kconfig('CONFIG_KRETPROBE_ON_RETHOOK')).to.equal('y');
  });
});
