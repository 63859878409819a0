import { expect } from 'chai';
import { Engine } from '../../src/runtime/engine';
import { kernelFamilies } from '../../src/probes/setup';
import { connectMachine, disconnectMachine } from '../../src/probes/machine_glue';
import { compile } from '../translate/pipeline';
import { Machine } from '../../src/machine/machine';
import { resetKernel } from './helpers';
import { startFunctionTracer, ftraceSetFilter, unregisterFtraceFunction, functionId, TraceSink } from '../../src/kernel/ftrace';
import { symbolAddr } from '../../src/kernel/kallsyms';

/** Run `cmd` on a fresh machine with `script` attached; returns the script output. */
async function onMachine(script: string, cmd: string): Promise<{ out: string; err: string }> {
  const c = compile(script);
  if (!c.tr) return { out: '', err: c.err };
  let out = '';
  let err = '';
  const engine = new Engine(c.tr, { stdout: (s) => (out += s), stderr: (s) => (err += s), handleSignals: false, families: kernelFamilies() });
  const m = new Machine({ seed: 1 });
  connectMachine(m);
  const pr = engine.run();
  try {
    m.run(cmd);
  } finally {
    engine.exit();
  }
  await pr;
  disconnectMachine();
  return { out, err };
}

describe('probes on the simulated machine (golden one-liners)', () => {
  afterEach(resetKernel);

  it('file names of vfs_read through $file->f_path->dentry->d_name->name', async () => {
    const r = await onMachine('probe kernel.function("vfs_read") { printf("%s %s %d\\n", execname(), kernel_string($file->f_path->dentry->d_name->name), $count) }', 'cat /etc/passwd');
    expect(r.err).to.equal('');
    expect(r.out.split('\n')[0]).to.equal('cat passwd 65536');
  });

  it('vfs_read count equals the function tracer count on the same workload', async () => {
    const r = await onMachine('global n probe kernel.function("vfs_read") { n++ } probe end { println(n) }', 'cat /etc/passwd; cat /etc/hostname');
    let traced = 0;
    const sink: TraceSink = { write: (_c, _t, _x, p) => { if (p.ip === symbolAddr(functionId('vfs_read'))) traced++; return true; } };
    const op = startFunctionTracer(sink);
    ftraceSetFilter(op, 'vfs_read', true);
    new Machine({ seed: 1 }).run('cat /etc/passwd; cat /etc/hostname');
    unregisterFtraceFunction(op);
    expect(Number(r.out.trim())).to.equal(traced).and.to.be.greaterThan(0);
  });

  it('sched_switch with $prev->comm / $next->pid, print_backtrace in a function probe', async () => {
    const r = await onMachine('probe kernel.trace("sched_switch") { printf("%s -> %d\\n", kernel_string($prev->comm), $next->pid); exit() }', 'true');
    expect(r.out).to.match(/^\S+ -> \d+\n$/);
    const b = await onMachine('probe kernel.function("vfs_read") { print_backtrace(); exit() }', 'cat /etc/passwd');
    expect(b.out.split('\n')[0]).to.match(/^ 0xffffffff[0-9a-f]{8} : vfs_read\+0x0\/0x[0-9a-f]+ \[kernel\]$/);
    expect(b.out).to.contain('do_syscall_64+0x9/');
  });
});
