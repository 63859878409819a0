import { expect } from 'chai';
import {
  Kprobe, Kretprobe, registerKprobe, unregisterKprobe, registerKretprobe, unregisterKretprobe, hashPtr,
  kprobeTable, getKprobe, getKprobeFromTable, isAggrKprobe, disableKprobe, enableKprobe, resetKprobes, kprobeFtraceOps,
  kprobeIpmodifyOps, KPROBE_FLAG_FTRACE, KPROBE_FLAG_ON_FUNC_ENTRY, KPROBE_FLAG_DISABLED, setNumPossibleCpus,
  defaultMaxactive, kprobeHitAddress, setKprobesEnabled,
} from '../../src/kernel/kprobes';
import { kcall, functionId, ftraceOpsList, ftraceListEnd, resetFtrace, recordOfFunction, FTRACE_FL_REGS, FTRACE_FL_IPMODIFY } from '../../src/kernel/ftrace';
import { CpuContext } from '../../src/kernel/current';
import { EINVAL, ENOENT, EILSEQ, E2BIG } from '../../src/kernel/errno';
import { kallsymsLookupName, parseAddr, addrToBigInt, symbolAddr } from '../../src/kernel/kallsyms';
import { crashFtraceOpsList, crashKprobeTable, crashKprobe, kprobesList, crashKretprobe } from '../../src/kernel/introspect';

const ctx: CpuContext = { cpu: 1, task: { pid: 42, tid: 42, comm: 'bash' } };

describe('kprobes', () => {
  const vfsRead = functionId('vfs_read');
  const ksysRead = functionId('ksys_read');
  afterEach(() => { resetKprobes(); resetFtrace(); });

  it('hashes addresses as hash_ptr(addr, 6) does', () => {
    // 3.10 constant check from the spec: do_fork 0xffffffff81084de0 -> bucket 18
    const h310 = Number(((addrToBigInt(parseAddr('ffffffff81084de0')) * 0x9e37fffffffc0001n) & ((1n << 64n) - 1n)) >> 58n);
    expect(h310).to.equal(18);
    // 6.1: hash_64_generic with GOLDEN_RATIO_64
    const a = kallsymsLookupName('do_sys_open') as number;
    const expected = Number(((BigInt.asUintN(64, BigInt(a)) * 0x61c8864680b583ebn) % (1n << 64n)) >> 58n);
    expect(hashPtr(a, 6)).to.equal(expected);
    const p = new Kprobe({ symbolName: 'do_sys_open', preHandler: () => 0 });
    expect(registerKprobe(p)).to.equal(0);
    expect(kprobeTable()[expected][0]).to.equal(p);
    expect(getKprobeFromTable(a)).to.equal(p);
    expect(crashKprobeTable().split('\n').filter((l) => l.includes('first = 0x') && !l.includes('0x0'))).to.have.length(1);
  });

  it('returns the kernel errors on registration', () => {
    expect(registerKprobe(new Kprobe())).to.equal(-EINVAL);
    expect(registerKprobe(new Kprobe({ symbolName: 'vfs_read', addr: 1 }))).to.equal(-EINVAL);
    expect(registerKprobe(new Kprobe({ symbolName: 'no_such_symbol_qq' }))).to.equal(-ENOENT);
    expect(registerKprobe(new Kprobe({ symbolName: 'exc_int3' }))).to.equal(-EINVAL); // noinstr blacklist
    expect(registerKprobe(new Kprobe({ symbolName: 'do_int3' }))).to.equal(-EINVAL); // NOKPROBE_SYMBOL
    expect(registerKprobe(new Kprobe({ symbolName: 'jiffies' }))).to.equal(-EINVAL); // not text
    expect(registerKprobe(new Kprobe({ symbolName: 'vfs_read', offset: 2 }))).to.equal(-EILSEQ);
    const p = new Kprobe({ symbolName: 'vfs_read' });
    expect(registerKprobe(p)).to.equal(0);
    expect(registerKprobe(p)).to.equal(-EINVAL); // already registered
    expect(unregisterKprobe(p)).to.equal(0);
    expect(unregisterKprobe(p)).to.equal(-EINVAL);
  });

  it('puts function-entry probes on ftrace via kprobe_ftrace_ops and runs pre/post handlers', () => {
    const log: string[] = [];
    const p = new Kprobe({ symbolName: 'vfs_read', preHandler: (_k, regs) => { log.push(`pre ${regs.args[2]}`); return 0; } });
    expect(registerKprobe(p)).to.equal(0);
    expect(p.flags & KPROBE_FLAG_FTRACE).to.not.equal(0);
    expect(p.flags & KPROBE_FLAG_ON_FUNC_ENTRY).to.not.equal(0);
    expect(ftraceOpsList()).to.deep.equal([kprobeFtraceOps, ftraceListEnd]);
    expect(crashFtraceOpsList()).to.match(/= \(struct ftrace_ops \*\) 0xffffffff[0-9a-f]{8} <kprobe_ftrace_ops>$/);
    expect(recordOfFunction(vfsRead)!.flags & FTRACE_FL_REGS).to.not.equal(0);
    kcall(vfsRead, ctx, ['file', 'buf', 4096], () => 0);
    expect(log).to.deep.equal(['pre 4096']);
    expect(kprobesList()[0]).to.match(/^ffffffff81[0-9a-f]{6}  k  vfs_read\+0x0    \[FTRACE\]$/);
    // a post handler moves the probe to kprobe_ipmodify_ops
    const q = new Kprobe({ symbolName: 'ksys_read', postHandler: () => { log.push('post'); } });
    expect(registerKprobe(q)).to.equal(0);
    expect(ftraceOpsList()[0]).to.equal(kprobeIpmodifyOps);
    expect(recordOfFunction(ksysRead)!.flags & FTRACE_FL_IPMODIFY).to.not.equal(0);
    kcall(ksysRead, ctx, [], () => 0);
    expect(log).to.deep.equal(['pre 4096', 'post']);
    expect(crashKprobe(p)).to.match(/pre_handler = 0xffffffffc0a1[0-9a-f]{4}\n/);
  });

  it('aggregates probes sharing an address', () => {
    const log: string[] = [];
    const p1 = new Kprobe({ symbolName: 'vfs_read', preHandler: () => { log.push('p1'); return 0; } });
    const p2 = new Kprobe({ symbolName: 'vfs_read', preHandler: () => { log.push('p2'); return 0; } });
    registerKprobe(p1);
    expect(registerKprobe(p2)).to.equal(0);
    const ap = getKprobe(symbolAddr(vfsRead))!;
    expect(isAggrKprobe(ap)).to.equal(true);
    expect(ap.list).to.deep.equal([p2, p1]);
    expect(ap.preHandlerName).to.equal('aggr_pre_handler');
    expect(kprobeTable().flat().filter((k) => k.addr === ap.addr)).to.deep.equal([ap]);
    kcall(vfsRead, ctx, [], () => 0);
    expect(log).to.deep.equal(['p2', 'p1']);
    expect(disableKprobe(p2)).to.equal(0);
    kcall(vfsRead, ctx, [], () => 0);
    expect(log).to.deep.equal(['p2', 'p1', 'p1']);
    expect(disableKprobe(p1)).to.equal(0);
    expect(ap.flags & KPROBE_FLAG_DISABLED).to.not.equal(0);
    expect(ftraceOpsList()).to.deep.equal([ftraceListEnd]);
    expect(enableKprobe(p1)).to.equal(0);
    kcall(vfsRead, ctx, [], () => 0);
    expect(log.slice(3)).to.deep.equal(['p1']);
    expect(kprobesList().map((l) => l.replace(/^\w+/, ''))).to.deep.equal([
      '  k  vfs_read+0x0    [DISABLED][FTRACE]', '  k  vfs_read+0x0    [FTRACE]']);
    unregisterKprobe(p2);
    unregisterKprobe(p1);
    expect(getKprobe(symbolAddr(vfsRead))).to.equal(null);
    expect(ftraceOpsList()).to.deep.equal([ftraceListEnd]);
  });

  it('counts re-entrant hits as nmissed and supports global disarm', () => {
    const inner = new Kprobe({ symbolName: 'ksys_read', preHandler: () => 0 });
    const outer = new Kprobe({ symbolName: 'vfs_read', preHandler: (_p, _r, c) => { kcall(ksysRead, c, [], () => 0); return 0; } });
    registerKprobe(inner);
    registerKprobe(outer);
    kcall(vfsRead, ctx, [], () => 0);
    expect(inner.nmissed).to.equal(1);
    expect(inner.nhit).to.equal(0);
    kcall(ksysRead, ctx, [], () => 0);
    expect(inner.nhit).to.equal(1);
    setKprobesEnabled(false);
    kcall(ksysRead, ctx, [], () => 0);
    expect(inner.nhit).to.equal(1);
    setKprobesEnabled(true);
    kcall(ksysRead, ctx, [], () => 0);
    expect(inner.nhit).to.equal(2);
  });

  it('uses int3 for probes inside a function body', () => {
    let hits = 0;
    const addr = symbolAddr(vfsRead) + 0x10;
    const p = new Kprobe({ addr, preHandler: () => { hits++; return 0; } });
    expect(registerKprobe(p)).to.equal(0);
    expect(p.flags & KPROBE_FLAG_FTRACE).to.equal(0);
    kprobeHitAddress(addr, ctx, { ip: addr, parentIp: 0, args: [], retval: undefined });
    kcall(vfsRead, ctx, [], () => 0);
    expect(hits).to.equal(1);
  });

  it('runs kretprobes with entry handler, maxactive pool and nmissed', () => {
    setNumPossibleCpus(4);
    expect(defaultMaxactive()).to.equal(10);
    setNumPossibleCpus(8);
    expect(defaultMaxactive()).to.equal(16);
    const rets: unknown[] = [];
    const rp = new Kretprobe({
      symbolName: 'vfs_read', maxactive: 2,
      entryHandler: (ri, regs) => { ri.data.count = regs.args[2]; return 0; },
      handler: (ri, regs) => { rets.push([ri.data.count, regs.retval]); return 0; },
    });
    expect(registerKretprobe(rp)).to.equal(0);
    expect(rp.freeInstances).to.have.length(2);
    expect(rp.kp.preHandlerName).to.equal('pre_handler_kretprobe');
    // three nested activations: the third finds the pool empty
    const nest = (d: number): number => kcall(vfsRead, ctx, [null, null, d], () => (d < 3 ? nest(d + 1) : 0) + d);
    nest(1);
    expect(rp.nmissed).to.equal(1);
    expect(rets).to.deep.equal([[2, 5], [1, 6]]);
    expect(rp.freeInstances).to.have.length(2);
    expect(crashKretprobe(rp)).to.include('maxactive = 2');
    expect(unregisterKretprobe(rp)).to.equal(0);
    const def = new Kretprobe({ symbolName: 'ksys_read', handler: () => 0 });
    expect(registerKretprobe(def)).to.equal(0);
    expect(def.maxactive).to.equal(16);
    expect(registerKretprobe(new Kretprobe({ symbolName: '__switch_to' }))).to.equal(-EINVAL);
    expect(registerKretprobe(new Kretprobe({ symbolName: 'vfs_read', offset: 0x10 }))).to.equal(-EINVAL);
    expect(registerKretprobe(new Kretprobe({ symbolName: 'vfs_write', dataSize: 5000 }))).to.equal(-E2BIG);
    expect(registerKretprobe(new Kretprobe({ symbolName: 'nope_nope' }))).to.equal(-ENOENT);
  });

  it('skips the return handler when the entry handler refuses', () => {
    let n = 0;
    const rp = new Kretprobe({ symbolName: 'vfs_read', entryHandler: () => 1, handler: () => { n++; } });
    registerKretprobe(rp);
    kcall(vfsRead, ctx, [], () => 0);
    expect(n).to.equal(0);
    expect(rp.freeInstances.length).to.equal(rp.maxactive);
  });
});
