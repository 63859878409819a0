/**
 * The probe hit path keeps its per-CPU state right when something throws through it: the seam
 * (ftrace.ts), kprobe_ftrace_handler / the int3 path and the rethook handler restore the
 * recursion bits, current_kprobe, the hit function and the pooled registers on every exit.
 */
import { expect } from 'chai';
import {
  Kprobe, Kretprobe, registerKprobe, registerKretprobe, resetKprobes, kprobeRunning,
} from '../../src/kernel/kprobes';
import {
  kcall, functionId, resetFtrace, ftraceHitFn, ftraceRecursionMisses, FtraceOps, registerFtraceFunction,
  ftraceSetFilter, FTRACE_OPS_FL_RECURSION,
} from '../../src/kernel/ftrace';
import { CpuContext } from '../../src/kernel/current';

const ctx: CpuContext = { cpu: 0, task: { pid: 7, tid: 7, comm: 'hit' } };

describe('kernel hit path: state after errors', () => {
  const vfsRead = functionId('vfs_read');
  const vfsWrite = functionId('vfs_write');
  afterEach(() => { resetKprobes(); resetFtrace(); });

  it('a pre-handler that throws is counted as a fault and the next hits run normally', () => {
    let calls = 0;
    const faults: unknown[] = [];
    const p = new Kprobe({
      symbolName: 'vfs_read',
      preHandler: () => { calls++; if (calls === 1) throw new Error('boom'); return 0; },
      faultHandler: (_p, e) => { faults.push((e as Error).message); },
    });
    expect(registerKprobe(p)).to.equal(0);
    for (let i = 0; i < 3; i++) expect(kcall(vfsRead, ctx, [], () => 5)).to.equal(5);
    expect(calls).to.equal(3);
    expect(p.nmissed).to.equal(0); // current_kprobe was cleared after the fault
    expect(p.faults).to.equal(1);
    expect(faults).to.deep.equal(['boom']);
    expect(kprobeRunning(0)).to.equal(null);
    expect(ftraceHitFn()).to.equal(-1);
    expect(ftraceRecursionMisses()).to.equal(0);
  });

  it('an error escaping a fault hook leaves no recursion bit, current_kprobe or hit function behind', () => {
    let calls = 0;
    const p = new Kprobe({
      symbolName: 'vfs_read',
      preHandler: () => { calls++; throw new Error('inner'); },
      faultHandler: () => { throw new Error('escaped'); },
    });
    expect(registerKprobe(p)).to.equal(0);
    expect(() => kcall(vfsRead, ctx, [], () => 0)).to.throw('escaped');
    expect(kprobeRunning(0)).to.equal(null);
    expect(ftraceHitFn()).to.equal(-1);
    // the next hit is neither refused by the recursion guard nor counted as missed
    expect(() => kcall(vfsRead, ctx, [], () => 0)).to.throw('escaped');
    expect(calls).to.equal(2);
    expect(p.nmissed).to.equal(0);
    expect(ftraceRecursionMisses()).to.equal(0);
  });

  it('nested probed calls see their own registers after an inner hit', () => {
    const seen: string[] = [];
    const outer = new Kprobe({ symbolName: 'vfs_read', preHandler: (_k, regs) => { seen.push(`read ${regs.args[0]}`); return 0; } });
    const inner = new Kprobe({ symbolName: 'vfs_write', preHandler: (_k, regs) => { seen.push(`write ${regs.args[0]}`); return 0; } });
    expect(registerKprobe(outer)).to.equal(0);
    expect(registerKprobe(inner)).to.equal(0);
    kcall(vfsRead, ctx, ['r1'], () => kcall(vfsWrite, ctx, ['w1'], () => 0));
    kcall(vfsRead, ctx, ['r2'], () => 0);
    expect(seen).to.deep.equal(['read r1', 'write w1', 'read r2']);
  });

  it('a kretprobe handler that throws still recycles its instance', () => {
    let rets = 0;
    const rp = new Kretprobe({
      symbolName: 'vfs_read',
      maxactive: 1,
      handler: () => { rets++; throw new Error('ret boom'); },
    });
    expect(registerKretprobe(rp)).to.equal(0);
    for (let i = 0; i < 4; i++) kcall(vfsRead, ctx, [], () => i);
    expect(rets).to.equal(4); // with maxactive 1, a leaked instance would miss the next calls
    expect(rp.nmissed).to.equal(0);
    expect(rp.kp.faults).to.equal(4);
    expect(rp.inUse.size).to.equal(0);
    expect(kprobeRunning(0)).to.equal(null);
  });

  it('an ops callback that throws through the seam leaves the recursion guard open', () => {
    let n = 0;
    const op = new FtraceOps('thrower', () => { n++; throw new Error('ops'); }, FTRACE_OPS_FL_RECURSION);
    expect(ftraceSetFilter(op, 'vfs_read', true)).to.equal(0);
    expect(registerFtraceFunction(op)).to.equal(0);
    expect(() => kcall(vfsRead, ctx, [], () => 0)).to.throw('ops');
    expect(() => kcall(vfsRead, ctx, [], () => 0)).to.throw('ops');
    expect(n).to.equal(2);
    expect(ftraceRecursionMisses()).to.equal(0);
    expect(ftraceHitFn()).to.equal(-1);
  });
});
