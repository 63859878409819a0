/**
 * The system calls of workload commands run on a simulated machine, per program image (from its
 * execve to its exit), as strace would list them: shared by the tests that compare programs with
 * strace of the real Debian 12 binaries.
 */
import { Machine } from '../../src/machine/machine';
import { syscallByNr } from '../../src/kernel/syscalls';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';

export interface Image { exe: string; names: string[]; args: unknown[][] }

/**
 * Put the machine's directories in a given getdents order (a directory made by a test's setup, in the
 * order the real ext4 listed the same directory): a program that does something different for each
 * kind of entry follows that order
 */
export function useDirOrder(m: Machine, order: Map<string, string[]>): void {
  for (const [dir, names] of order) {
    const d = m.fs.lookup(dir, '/', true);
    if (!d?.children) continue;
    const rank = new Map(names.map((n, i) => [n, i] as const));
    const kids = [...d.children.entries()].sort((a, b) => (rank.get(a[0]) ?? Infinity) - (rank.get(b[0]) ?? Infinity));
    d.children.clear();
    for (const [n, c] of kids) d.children.set(n, c);
  }
}

/** tapsim's images of a workload command run as `stap -c` runs it (procs.spawnCommand) */
export function simulatedImages(command: string, setup: string, order?: Map<string, string[]>): Image[] {
  const m = new Machine({ cpus: 4, seed: 1, memMB: 2048 });
  if (setup) m.run(setup);
  if (order) useDirOrder(m, order);
  const tids = new Set<number>();
  const out: Image[] = [];
  const cur = new Map<number, Image>();
  const tidOf = (): number => {
    const c = m.executingCpu();
    const t = c?.ctx.task as { tid?: number } | undefined;
    return t?.tid ?? -1;
  };
  const onFork = (_d: unknown, parent: { tid: number }, child: { tid: number }): void => { if (tids.has(parent.tid)) tids.add(child.tid); };
  const onEnter = (_d: unknown, regs: { args: unknown[] }, nr: number): void => {
    const tid = tidOf();
    if (!tids.has(tid)) return;
    const sc = syscallByNr(Number(nr));
    if (!sc) return;
    if (sc.name === 'execve') {
      const im: Image = { exe: String(regs.args[0]), names: [], args: [] };
      out.push(im);
      cur.set(tid, im);
    }
    const im = cur.get(tid);
    if (im) { im.names.push(sc.name); im.args.push(regs.args.slice()); }
  };
  tracepointProbeRegister('sched_process_fork', onFork as never, null);
  tracepointProbeRegister('sys_enter', onEnter as never, null);
  try {
    const p = m.procs.spawnCommand(command, () => undefined, () => undefined);
    tids.add(p.tgid);
    m.runUntil(() => p.finished, 60e9);
  } finally {
    tracepointProbeUnregister('sched_process_fork', onFork as never, null);
    tracepointProbeUnregister('sys_enter', onEnter as never, null);
  }
  return out;
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
/** the image of `exe` that ran longest (a failed execve of a PATH candidate leaves a short one) */
export const pick = (ims: Image[], exe: string): Image | undefined =>
  ims.filter((i) => base(i.exe) === exe).sort((a, b) => b.names.length - a.names.length)[0];

