/**
 * stap probes on the direct path of a live site (ftrace site calls, see
 * test/kernel/sitecall.test.ts): the same output, counts and skipped hits as when another
 * ftrace user forces the generic dispatch (ops list walk).
 */
import { expect } from 'chai';
import { session, cpu, task, resetKernel } from './helpers';
import {
  kcall, functionId, FtraceOps, ftraceSetFilter, registerFtraceFunction, unregisterFtraceFunction, ftraceTraceFunction,
} from '../../src/kernel/ftrace';

const VFS_READ = functionId('vfs_read');
const KSYS_READ = functionId('ksys_read');

/** Another ftrace ops on the list while `body` runs (`generic`), so sites take the generic path. */
async function onPath<T>(generic: boolean, body: () => Promise<T>): Promise<T> {
  let other: FtraceOps | null = null;
  if (generic) {
    other = new FtraceOps('other', () => undefined);
    ftraceSetFilter(other, 'do_sys_openat2', true);
    registerFtraceFunction(other);
  }
  try {
    return await body();
  } finally {
    if (other) unregisterFtraceFunction(other);
  }
}

/** run `script` over `n` probed reads; `generic`: another ftrace ops is on the list meanwhile */
async function run(script: string, n: number, generic: boolean): Promise<{ out: string; err: string; trampoline: string }> {
  resetKernel();
  let trampoline = '';
  const ctx = cpu(task(300, 'reader'));
  const r = await onPath(generic, () => session(script, () => {
    trampoline = ftraceTraceFunction();
    for (let i = 0; i < n; i++) kcall(KSYS_READ, ctx, [3, 0, 64], () => kcall(VFS_READ, ctx, [0, 0, 64, 0], () => 64 - i));
  }));
  resetKernel();
  return { out: r.out, err: r.err, trampoline };
}

describe('probes: the direct path of kernel.function probes', () => {
  afterEach(() => resetKernel());

  it('conditional probes and two probes on one function behave as on the generic path', async () => {
    const script = `
      global on = 0, n, m, order
      probe kernel.function("vfs_read") if (on) { n++; order .= "c" }
      probe kernel.function("vfs_read") { m++; order .= "u"; if (m == 2) on = 1; if (m == 4) on = 0 }
      probe kernel.function("ksys_read").return { order .= sprintf("r%d ", $return) }
      probe end { printf("n=%d m=%d %s\\n", n, m, order) }`;
    const direct = await run(script, 6, false);
    const generic = await run(script, 6, true);
    expect(direct.trampoline).to.equal('kprobe_ftrace_handler');
    expect(generic.trampoline).to.equal('ftrace_ops_list_func');
    expect(direct.err).to.equal('');
    expect({ out: direct.out, err: direct.err }).to.deep.equal({ out: generic.out, err: generic.err });
    // two probes on vfs_read run in script order (stap registers its kprobes in reverse, the
    // kernel runs an address's probes newest first: see test/golden/behaviours/probe_order.stp)
    expect(direct.out).to.equal("n=2 m=6 ur64 ur63 cur62 cur61 ur60 ur59 \n");
  });

  it('missed kretprobe hits are skipped probes on both paths', async () => {
    const script = `
      global n
      probe kernel.function("vfs_read").return.maxactive(1) { n++ }
      probe end { println(n) }`;
    const nested = async (generic: boolean): Promise<string> => {
      resetKernel();
      const ctx = cpu(task(301, 'nest'));
      const r = await onPath(generic, () => session(script, () => {
        for (let i = 0; i < 3; i++) kcall(VFS_READ, ctx, [], () => kcall(VFS_READ, ctx, [], () => 1));
      }));
      return r.out + r.err;
    };
    const direct = await nested(false);
    expect(direct).to.equal(await nested(true));
    expect(direct).to.match(/^3\n/);
    expect(direct).to.contain('WARNING: Number of errors: 0, skipped probes: 3');
  });
});
