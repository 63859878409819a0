/**
 * Test helpers for the kernel probe layer: compile a script with the kernel families installed,
 * run it in an Engine and drive the simulated kernel (kcall / traceCall) while it is RUNNING.
 */
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { listProbes, TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { Engine } from '../../src/runtime/engine';
import { installKernelProbes, kernelFamilies } from '../../src/probes/setup';
import { compile } from '../translate/pipeline';
import { kmem } from '../../src/kernel/memory';
import type { CpuContext, TaskRef } from '../../src/kernel/current';
import { resetFtrace } from '../../src/kernel/ftrace';
import { resetKprobes } from '../../src/kernel/kprobes';
import { resetTracepoints } from '../../src/kernel/tracepoint';
import type { Translated } from '../../src/translate';
import { Machine } from '../../src/machine/machine';
import { connectMachine, disconnectMachine, driveMachine } from '../../src/probes/machine_glue';

installKernelProbes();

export interface Session { out: string; err: string; code: number }

export async function session(script: string, drive: (engine: Engine) => void, opts: { ncpus?: number } = {}): Promise<Session> {
  const c = compile(script);
  if (!c.tr) return { out: '', err: c.err, code: 1 };
  let out = '';
  let err = c.err;
  const engine = new Engine(c.tr, {
    stdout: (s) => (out += s), stderr: (s) => (err += s), handleSignals: false, families: kernelFamilies(), ncpus: opts.ncpus ?? 2,
    epochNs: 1700000000000000000n,
  });
  const pr = engine.run();
  try {
    if (engine.state === 'RUNNING') drive(engine);
  } finally {
    engine.exit();
  }
  const code = await pr;
  return { out, err, code };
}

/**
 * As `stap -c CMD --seed N`: a compiled script runs on a fresh machine's clock; the run ends
 * when CMD exits.  `cmd` may depend on the module name (procfs paths); the command's own
 * output goes to `out` unless `commandOutput` is false.
 */
export async function stapOnMachine(c: { tr?: Translated; err: string }, cmd: string | ((mod: string) => string),
  opts: { seed?: number; commandOutput?: boolean } = {}): Promise<Session> {
  if (!c.tr) return { out: '', err: c.err, code: 1 };
  const seed = opts.seed ?? 1;
  let out = '';
  let err = '';
  const engine = new Engine(c.tr, { stdout: (s) => (out += s), stderr: (s) => (err += s), handleSignals: false, families: kernelFamilies(), seed });
  const m = new Machine({ seed });
  connectMachine(m);
  try {
    const command = typeof cmd === 'string' ? cmd : cmd(engine.moduleName);
    driveMachine(engine, m, { command, out: opts.commandOutput === false ? () => undefined : (s) => (out += s) });
    const code = await engine.run();
    return { out, err, code };
  } finally {
    disconnectMachine();
  }
}

export function compileErr(script: string): string {
  return compile(script).err;
}

export function list(pattern: string, vars: boolean): string[] {
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
  const f = parseFile({ name: '<input>', text: `probe ${pattern} {}`, isTapset: false }, { args: [], guru: false } as never, diag);
  if (!f) return [];
  const library = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag });
  return listProbes([f], { guru: false, library }, diag, vars);
}

export function task(pid: number, comm: string, tid = pid): TaskRef {
  return { pid, tid, comm };
}

export function cpu(t: TaskRef, n = 0): CpuContext {
  return { cpu: n, task: t };
}

/** A `struct file` whose f_path.dentry->d_name.name is `name`. */
export function fileNamed(name: string): number {
  const d = kmem.allocStruct('struct dentry');
  kmem.setField(d, 'struct dentry', 'd_name.name', kmem.strdup(name));
  kmem.setField(d, 'struct dentry', 'd_name.len', name.length);
  const f = kmem.allocStruct('struct file');
  kmem.setField(f, 'struct file', 'f_path.dentry', d);
  kmem.setField(f, 'struct file', 'f_flags', 0o100000);
  return f;
}

export function resetKernel(): void {
  resetKprobes();
  resetFtrace();
  resetTracepoints();
}
