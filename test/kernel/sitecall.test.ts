/**
 * The direct path of a live site (ftrace site calls): while one ops owns the fentry trampoline,
 * a site call installed for a function stands for the ops func there. Kprobes install one per
 * probed function entry; every observable (handlers, order, nhit, nmissed, recursion guard,
 * current_kprobe, ops/record state) must be what the generic path (ops list walk,
 * kprobe_ftrace_handler's lookup) gives.
 */
import { expect } from 'chai';
import {
  Kprobe, Kretprobe, registerKprobe, unregisterKprobe, registerKretprobe, resetKprobes, disableKprobe, enableKprobe,
  kprobeFtraceOps, kprobeRunning, getKprobe,
} from '../../src/kernel/kprobes';
import {
  kcall, kenter, kleave, functionId, resetFtrace, FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter,
  ftraceSetSiteCall, ftraceSiteCall, ftraceTraceFunction, ftraceOpsList, ftraceListEnd, enabledFunctions, siteState,
  FTRACE_OPS_FL_PID, FTRACE_OPS_FL_RECURSION, FtraceFunc, ftraceRecursionMisses,
} from '../../src/kernel/ftrace';
import { CpuContext, PtRegs } from '../../src/kernel/current';
import { symbolAddr } from '../../src/kernel/kallsyms';

const ctx: CpuContext = { cpu: 1, task: { pid: 42, tid: 42, comm: 'bash' } };

describe('ftrace site calls (the direct path of a live site)', () => {
  const vfsRead = functionId('vfs_read');
  const vfsWrite = functionId('vfs_write');
  afterEach(() => { resetKprobes(); resetFtrace(); });

  function opsOn(name: string, fnName: string, func: FtraceFunc, flags = 0): FtraceOps {
    const op = new FtraceOps(name, func, flags);
    expect(ftraceSetFilter(op, fnName, true)).to.equal(0);
    expect(registerFtraceFunction(op)).to.equal(0);
    return op;
  }

  it('is called instead of the func only while its ops alone owns the trampoline', () => {
    const log: string[] = [];
    const func: FtraceFunc = (ip) => { log.push(`func ${ip === symbolAddr(vfsRead)}`); };
    const op = opsOn('t', 'vfs_read', func);
    ftraceSetSiteCall(vfsRead, { func, call: (ip, _pip, regs) => { log.push(`site ${ip === regs.ip}`); } });
    expect(siteState[vfsRead]).to.equal(5);
    kcall(vfsRead, ctx, [], () => 0);
    expect(log).to.deep.equal(['site true']);
    expect(op.hits).to.equal(1);
    // a second ops on the list: ftrace_ops_list_func walks it, the func runs
    const other = opsOn('u', 'vfs_write', () => undefined);
    expect(ftraceTraceFunction()).to.equal('ftrace_ops_list_func');
    kcall(vfsRead, ctx, [], () => 0);
    expect(log).to.deep.equal(['site true', 'func true']);
    unregisterFtraceFunction(other);
    kcall(vfsRead, ctx, [], () => 0);
    expect(log.slice(2)).to.deep.equal(['site true']);
    // a call standing for another func is not used
    ftraceSetSiteCall(vfsRead, { func: () => undefined, call: () => { log.push('wrong'); } });
    kcall(vfsRead, ctx, [], () => 0);
    expect(log.slice(3)).to.deep.equal(['func true']);
    ftraceSetSiteCall(vfsRead, null);
    expect(siteState[vfsRead]).to.equal(1);
    expect(ftraceSiteCall(vfsRead)).to.equal(null);
  });

  it('is not used for ops ftrace wraps (PID filtering, assist recursion) and not on dead sites', () => {
    for (const flags of [FTRACE_OPS_FL_PID, FTRACE_OPS_FL_RECURSION]) {
      const log: string[] = [];
      const func: FtraceFunc = () => { log.push('func'); };
      const op = opsOn('w', 'vfs_read', func, flags);
      ftraceSetSiteCall(vfsRead, { func, call: () => { log.push('site'); } });
      kcall(vfsRead, ctx, [], () => 0);
      expect(log).to.deep.equal(['func']);
      unregisterFtraceFunction(op);
      expect(siteState[vfsRead]).to.equal(0); // the NOP site stays a NOP with a call installed
      kcall(vfsRead, ctx, [], () => 0);
      expect(log).to.deep.equal(['func']);
      ftraceSetSiteCall(vfsRead, null);
    }
    expect(ftraceRecursionMisses()).to.equal(0);
  });

  it('kprobes install one per probed entry, following aggregation and unregistration', () => {
    const p1 = new Kprobe({ symbolName: 'vfs_read', preHandler: () => 0 });
    expect(registerKprobe(p1)).to.equal(0);
    expect(ftraceSiteCall(vfsRead)).to.not.equal(null);
    expect(ftraceSiteCall(vfsRead)!.func).to.equal(kprobeFtraceOps.func);
    const p2 = new Kprobe({ symbolName: 'vfs_read', preHandler: () => 0 });
    expect(registerKprobe(p2)).to.equal(0);
    // the aggregator took p1's place in kprobe_table: the site call runs it
    expect((ftraceSiteCall(vfsRead) as unknown as { p: Kprobe }).p).to.equal(getKprobe(symbolAddr(vfsRead)));
    unregisterKprobe(p1);
    unregisterKprobe(p2);
    expect(ftraceSiteCall(vfsRead)).to.equal(null);
    expect(siteState[vfsRead]).to.equal(0);
    // registration state is the kernel's either way
    expect(ftraceOpsList()).to.deep.equal([ftraceListEnd]);
  });

  /**
   * One scenario on the kprobe hit path; `generic` puts another ftrace ops on the list first so
   * every hit goes through ftrace_ops_list_func and kprobe_ftrace_handler's lookup.
   */
  function scenario(generic: boolean): unknown {
    let extra: FtraceOps | null = null;
    if (generic) extra = opsOn('other', 'do_sys_openat2', () => undefined);
    const log: string[] = [];
    const seen = (tag: string) => (_p: Kprobe, regs: PtRegs, c: CpuContext): number => {
      log.push(`${tag} ip+${regs.ip - symbolAddr(functionId(tag.split(':')[0]))} ${regs.args.join(',')} running=${kprobeRunning(c.cpu) !== null}`);
      return 0;
    };
    const a = new Kprobe({ symbolName: 'vfs_read', preHandler: seen('vfs_read:a') });
    // its handler re-enters the kernel: the inner probe's hit is missed (current_kprobe is set)
    const inner = new Kprobe({ symbolName: 'vfs_write', preHandler: seen('vfs_write:inner') });
    const outer = new Kprobe({
      symbolName: 'ksys_read',
      preHandler: (_p, _r, c) => { kcall(vfsWrite, c, ['nested'], () => 0); return 0; },
    });
    registerKprobe(a);
    registerKprobe(inner);
    registerKprobe(outer);
    const trampoline = ftraceTraceFunction();
    for (let i = 0; i < 3; i++) kcall(vfsRead, ctx, ['f', i], () => i);
    kcall(functionId('ksys_read'), ctx, [], () => 0);
    kcall(vfsWrite, ctx, ['direct'], () => 0);
    // a probe added while another is armed shares its address: aggregated, newest first
    const b = new Kprobe({ symbolName: 'vfs_read', preHandler: seen('vfs_read:b') });
    registerKprobe(b);
    kcall(vfsRead, ctx, ['g'], () => 0);
    disableKprobe(a);
    kcall(vfsRead, ctx, ['h'], () => 0);
    enableKprobe(a);
    unregisterKprobe(b);
    kcall(vfsRead, ctx, ['k'], () => 0);
    // a post handler moves the probe to kprobe_ipmodify_ops (its own site call)
    const post = new Kprobe({ symbolName: 'vfs_fsync', postHandler: (_p, regs) => { log.push(`post ip+${regs.ip - symbolAddr(functionId('vfs_fsync'))}`); } });
    registerKprobe(post);
    kcall(functionId('vfs_fsync'), ctx, [], () => 0);
    // a kretprobe: its instance is pushed by the pre handler, the return runs on kleave
    const rets: unknown[] = [];
    const rp = new Kretprobe({ symbolName: 'vfs_readv', maxactive: 1, handler: (_ri, regs) => { rets.push(regs.retval); return 0; } });
    registerKretprobe(rp);
    kcall(functionId('vfs_readv'), ctx, [], () => kcall(functionId('vfs_readv'), ctx, [], () => 7) + 1);
    const m = kenter(functionId('vfs_readv'), ctx, []);
    kleave(functionId('vfs_readv'), ctx, 9, m);
    const state = {
      trampoline, log, rets, rpMissed: rp.nmissed,
      nhit: [a.nhit, b.nhit, inner.nhit, outer.nhit, post.nhit], nmissed: [a.nmissed, b.nmissed, inner.nmissed, outer.nmissed],
      running: kprobeRunning(ctx.cpu), misses: ftraceRecursionMisses(),
      enabled: enabledFunctions().filter((l) => !l.startsWith('do_sys_openat2')),
    };
    if (extra) unregisterFtraceFunction(extra);
    return state;
  }

  it('kprobe hits through site calls match the generic path', () => {
    const direct = scenario(false) as Record<string, unknown>;
    resetKprobes();
    resetFtrace();
    const generic = scenario(true) as Record<string, unknown>;
    // the direct path was taken in one and not in the other
    expect(direct.trampoline).to.equal('kprobe_ftrace_handler');
    expect(generic.trampoline).to.equal('ftrace_ops_list_func');
    delete direct.trampoline;
    delete generic.trampoline;
    expect(direct).to.deep.equal(generic);
    expect((direct as { log: string[] }).log).to.deep.equal([
      'vfs_read:a ip+1 f,0 running=true', 'vfs_read:a ip+1 f,1 running=true', 'vfs_read:a ip+1 f,2 running=true',
      'vfs_write:inner ip+1 direct running=true',
      'vfs_read:b ip+1 g running=true', 'vfs_read:a ip+1 g running=true',
      'vfs_read:b ip+1 h running=true',
      'vfs_read:a ip+1 k running=true',
      'post ip+5',
    ]);
    expect(direct).to.deep.include({ rets: [8, 9], rpMissed: 1, nhit: [5, 2, 1, 1, 1], nmissed: [0, 0, 1, 0], running: null, misses: 0 });
  });
});
