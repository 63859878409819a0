/**
 * Counting what the function tracer records (tracefs's `function` tracer on a set_ftrace_filter)
 * while `run` executes: the cross-checks between stap probes and ftrace use it.
 */
import { Tracefs } from '../../src/kernel/tracefs/tracefs';
import { walk, writeFile } from '../../src/kernel/tracefs/vfs';
import { CpuContext } from '../../src/kernel/current';

export function functionTracerCount(filter: string, run: () => void, ncpus = 4, clock: () => number = () => 0): number {
  const ctx: CpuContext = { cpu: 0, task: { pid: 1, tid: 1, comm: 'test' } };
  const tfs = new Tracefs({ clock, ncpus, current: () => ctx, kernelStack: () => [], task: () => undefined });
  const root = tfs.root();
  const who = { ctx };
  const echo = (file: string, text: string) => {
    const r = writeFile(walk(root, [file])!, text, who);
    if (r < 0) throw new Error(`echo ${text} > ${file}: ${r}`);
  };
  echo('buffer_size_kb', '65536\n');
  echo('set_ftrace_filter', `${filter}\n`);
  echo('current_tracer', 'function\n');
  try {
    run();
    return tfs.top.tr.buffer.totals().written;
  } finally {
    tfs.shutdown();
  }
}
