import { expect } from 'chai';
import {
  FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter, ftraceSetNotrace, kcall, kenter,
  kleave, functionId, resetFtrace, ftraceOpsList, ftraceListEnd, ftraceTraceFunction, recordOfFunction,
  FTRACE_FL_ENABLED, FTRACE_FL_REGS, FTRACE_OPS_FL_SAVE_REGS, FTRACE_OPS_FL_RECURSION, FTRACE_OPS_FL_IPMODIFY, FTRACE_OPS_FL_PID,
  recordRefCount, ftraceRecursionMisses, setFtracePids,
  ftraceOpsTest, ftraceRecords, recordName, isTraceable, enabledFunctions, siteState, setFtraceEnabled,
} from '../../src/kernel/ftrace';
import { registerFtraceGraph, unregisterFtraceGraph, FgraphOps } from '../../src/kernel/fgraph';
import { FunctionProfiler, graphDuration } from '../../src/kernel/ftrace_profile';
import { CpuContext, TaskRef } from '../../src/kernel/current';
import { EBUSY, EINVAL } from '../../src/kernel/errno';
import { symbolAddr, symbolCount, symbolName, kallsymsLookupName, lookupAddr } from '../../src/kernel/kallsyms';

const task: TaskRef = { pid: 100, tid: 100, comm: 'cat' };
const ctx: CpuContext = { cpu: 0, task };

describe('dynamic ftrace', () => {
  const vfsRead = functionId('vfs_read');
  const ksysRead = functionId('ksys_read');
  afterEach(() => resetFtrace());

  it('functionId is the first alias at the address of the first symbol of that name', () => {
    const viaAddress = (name: string): number => {
      const a = kallsymsLookupName(name);
      const p = a === null ? null : lookupAddr(a);
      return p ? p.id : -1;
    };
    const n = symbolCount();
    let aliases = 0, outside = 0;
    for (let i = 0; i < n; i += 37) {
      const name = symbolName(i);
      const id = functionId(name);
      expect(id, name).to.equal(viaAddress(name));
      if (id >= 0 && symbolName(id) !== name) aliases++;
      if (id < 0) outside++;
    }
    expect(aliases, 'names that are not the first alias').to.be.greaterThan(0);
    expect(outside, 'per-cpu and module data symbols').to.be.greaterThan(0);
    expect(functionId('no_such_function_xyz')).to.equal(-1);
  });

  it('has one record per traceable function and costs nothing with no ops', () => {
    expect(ftraceRecords().length).to.be.greaterThan(30000);
    expect(isTraceable(vfsRead)).to.equal(true);
    expect(isTraceable(functionId('exc_int3'))).to.equal(false); // noinstr
    expect(ftraceRecords().some((r) => recordName(r).startsWith('__ftrace_invalid_address___'))).to.equal(true);
    expect(kenter(vfsRead, ctx, [])).to.equal(-1);
    expect(kcall(vfsRead, ctx, [], () => 42)).to.equal(42);
    expect(ftraceTraceFunction()).to.equal('ftrace_stub');
  });

  it('applies filter/notrace hashes: empty = all, notrace wins', () => {
    const seen: number[] = [];
    const op = new FtraceOps('test_ops', (ip) => { seen.push(ip); });
    expect(ftraceOpsTest(op, symbolAddr(vfsRead))).to.equal(true);
    expect(ftraceSetFilter(op, 'vfs_read', true)).to.equal(0);
    expect(ftraceSetFilter(op, 'no_such_function_xyz', false)).to.equal(-EINVAL);
    expect(registerFtraceFunction(op)).to.equal(0);
    expect(registerFtraceFunction(op)).to.equal(-EBUSY);
    kcall(vfsRead, ctx, [], () => 0);
    kcall(ksysRead, ctx, [], () => 0);
    expect(seen).to.deep.equal([symbolAddr(vfsRead)]);
    expect(ftraceSetNotrace(op, 'vfs_*', true)).to.equal(0);
    kcall(vfsRead, ctx, [], () => 0);
    expect(seen).to.have.length(1);
    expect(recordRefCount(recordOfFunction(vfsRead)!)).to.equal(0);
    expect(siteState[vfsRead]).to.equal(0);
    unregisterFtraceFunction(op);
  });

  it('keeps ref counts and record flags in step with the enabled ops', () => {
    const a = new FtraceOps('a_ops', () => undefined);
    const b = new FtraceOps('b_ops', () => undefined, FTRACE_OPS_FL_SAVE_REGS);
    ftraceSetFilter(a, 'vfs_read', true);
    ftraceSetFilter(b, 'vfs_rea*', true);
    registerFtraceFunction(a);
    registerFtraceFunction(b);
    const r = recordOfFunction(vfsRead)!;
    expect(recordRefCount(r)).to.equal(2);
    expect(r.flags & FTRACE_FL_ENABLED).to.not.equal(0);
    expect(r.flags & FTRACE_FL_REGS).to.not.equal(0);
    expect(enabledFunctions()).to.include('vfs_read (2) R  ');
    unregisterFtraceFunction(b);
    expect(recordRefCount(r)).to.equal(1);
    expect(r.flags & FTRACE_FL_REGS).to.equal(0);
    setFtraceEnabled(false);
    expect(siteState[vfsRead]).to.equal(0);
  });

  it('dispatches newest-first through ftrace_ops_list_func ending at ftrace_list_end', () => {
    const order: string[] = [];
    const a = new FtraceOps('a_ops', () => { order.push('a'); }, 0, 'a_func');
    const b = new FtraceOps('b_ops', () => { order.push('b'); }, 0, 'b_func');
    registerFtraceFunction(a);
    expect(ftraceTraceFunction()).to.equal('a_func');
    registerFtraceFunction(b);
    expect(ftraceOpsList()).to.deep.equal([b, a, ftraceListEnd]);
    expect(ftraceTraceFunction()).to.equal('ftrace_ops_list_func');
    kcall(vfsRead, ctx, [], () => 0);
    expect(order).to.deep.equal(['b', 'a']);
  });

  it('refuses a second IPMODIFY ops on the same function', () => {
    const a = new FtraceOps('a', () => undefined, FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
    const b = new FtraceOps('b', () => undefined, FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
    ftraceSetFilter(a, 'vfs_read', true);
    ftraceSetFilter(b, 'vfs_read', true);
    expect(registerFtraceFunction(a)).to.equal(0);
    expect(registerFtraceFunction(b)).to.equal(-EBUSY);
  });

  it('guards against recursion per CPU and context (one transition level allowed)', () => {
    let depth = 0, calls = 0, irqCalls = 0;
    const missesBefore = ftraceRecursionMisses();
    const mk = (name: string) => new FtraceOps(name, (_ip, _p, _o, _r, c) => {
      if (c.context === 2) { irqCalls++; return; }
      calls++;
      depth++;
      kcall(vfsRead, c, [], () => 0); // recursion in the same context
      depth--;
    }, FTRACE_OPS_FL_RECURSION);
    const op = mk('rec');
    ftraceSetFilter(op, 'vfs_read', true);
    registerFtraceFunction(op);
    expect(ftraceTraceFunction()).to.equal('ftrace_ops_assist_func');
    kcall(vfsRead, ctx, [], () => 0);
    expect(calls).to.equal(2); // outer + one transition-level recursion
    expect(ftraceRecursionMisses()).to.equal(missesBefore + 1);
    kcall(vfsRead, { ...ctx, context: 2 }, [], () => 0);
    expect(irqCalls).to.equal(1);
    // through the list func as well
    const other = new FtraceOps('other', () => undefined);
    registerFtraceFunction(other);
    expect(ftraceTraceFunction()).to.equal('ftrace_ops_list_func');
    kcall(vfsRead, ctx, [], () => 0);
    expect(calls).to.equal(4);
    expect(depth).to.equal(0);
  });

  it('filters by set_ftrace_pid for PID ops', () => {
    let n = 0;
    const op = new FtraceOps('pid_ops', () => { n++; }, FTRACE_OPS_FL_PID);
    ftraceSetFilter(op, 'vfs_read', true);
    registerFtraceFunction(op);
    setFtracePids([200]);
    kcall(vfsRead, ctx, [], () => 0);
    expect(n).to.equal(0);
    setFtracePids([100]);
    kcall(vfsRead, ctx, [], () => 0);
    expect(n).to.equal(1);
  });

  it('runs function_graph entry/return with depth through graph_ops and allows one graph user', () => {
    let now = 0;
    const clock = () => now;
    const log: string[] = [];
    const hashes = { filterHash: new Set<number>(), notraceHash: new Set<number>() };
    const user: FgraphOps = {
      entryfunc: (e) => { log.push(`ent ${e.depth}`); return true; },
      retfunc: (g) => { log.push(`ret ${g.depth} ${g.rettime - g.calltime}`); },
    };
    expect(registerFtraceGraph(user, clock, hashes)).to.equal(0);
    const other: FgraphOps = { entryfunc: () => true, retfunc: () => undefined };
    expect(registerFtraceGraph(other, clock)).to.equal(-EBUSY);
    // graph_ops shares the hashes given (global_ops': set_ftrace_filter)
    const op = ftraceOpsList().find((o) => o.name === 'graph_ops')!;
    expect(ftraceSetFilter(op, 'vfs_read', true)).to.equal(0);
    expect(ftraceSetFilter(op, 'ksys_read', false)).to.equal(0);
    expect(hashes.filterHash.size).to.equal(2);
    kcall(ksysRead, ctx, [], () => { now += 10; kcall(vfsRead, ctx, [], () => { now += 5; }); now += 1; });
    expect(log).to.deep.equal(['ent 0', 'ent 1', 'ret 1 5', 'ret 0 16']);
    unregisterFtraceGraph(user);
    const m = kenter(vfsRead, ctx, []);
    kleave(vfsRead, ctx, 0, m);
  });

  it('profiles hits and times per CPU, reset by a new start, graph-time off subtracting children', () => {
    let now = 0;
    const prof = new FunctionProfiler(() => now);
    expect(prof.start(2)).to.equal(0);
    for (let i = 0; i < 3; i++) kcall(vfsRead, ctx, [], () => { now += 100; });
    prof.stop();
    const rec = prof.stats[0].get(symbolAddr(vfsRead))!;
    expect(rec.counter).to.equal(3);
    expect(rec.time).to.equal(300);
    expect(rec.timeSquared).to.equal(30000n);
    // trace_stat/function0: 6.1's header and row layout (ftrace.c function_stat_show)
    const text = prof.statText(0).split('\n');
    expect(text[0]).to.equal('  Function                               Hit    Time            Avg             s^2');
    expect(text[2]).to.equal(`  ${'vfs_read'.padEnd(30)}  ${'3'.padStart(10)}    0.300 us        0.100 us        0.000 us    `);
    prof.graphTime = false;
    expect(prof.start(2)).to.equal(0);
    expect(prof.stats[0].size).to.equal(0);
    kcall(ksysRead, ctx, [], () => { now += 10; kcall(vfsRead, ctx, [], () => { now += 5; }); });
    prof.stop();
    expect(prof.stats[0].get(symbolAddr(ksysRead))!.time).to.equal(10);
  });

  it('prints durations as trace_print_graph_duration() does', () => {
    // 7 digits at most, " us " and padding to 8 (trace_functions_graph.c)
    expect(graphDuration(386)).to.equal('0.386 us    ');
    expect(graphDuration(14748)).to.equal('14.748 us   ');
    expect(graphDuration(246835458000)).to.equal('246835458 us ');
    expect(graphDuration(389883500)).to.equal('389883.5 us ');
    expect(graphDuration(88436650)).to.equal('88436.65 us ');
  });
});
