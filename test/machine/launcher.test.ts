/**
 * The recorder's launcher on the machine's dash (scripts/record/guest/recorder.sh `launch`):
 * `sh -c 'read x < FILE; exec "$@"' rec CMD...`. Expected sequences from Debian 12's dash 0.5.12-2 on
 * this host (strace -f -e trace=execve,openat,read dash -c 'read x < /tmp/lgo; exec "$@"' rec sleep 0).
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { syscallByNr } from '../../src/kernel/syscalls';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { launcherArgv, LAUNCHER_SCRIPT } from '../../bench/fidelity_run';
import { resetKernel } from '../probes/helpers';

/** [syscall, first argument, result] of every call of `argv`'s process (and the images it execs) */
function trace(m: Machine, argv: string[]): { calls: [string, unknown, number][]; status: number } {
  const calls: [string, unknown, number][] = [];
  let pid = -1;
  const cur = (): number => (m.executingCpu()?.ctx.task as { tid?: number } | undefined)?.tid ?? -1;
  const pending = new Map<number, [string, unknown]>();
  const onEnter = (_d: unknown, regs: { args: unknown[] }, nr: number): void => {
    if (cur() !== pid) return;
    pending.set(pid, [syscallByNr(Number(nr))?.name ?? String(nr), regs.args[0]]);
  };
  const onExit = (_d: unknown, _regs: unknown, ret: number): void => {
    const p = pending.get(cur());
    if (cur() !== pid || !p) return;
    calls.push([p[0], p[1], Number(ret)]);
    pending.delete(pid);
  };
  tracepointProbeRegister('sys_enter', onEnter as never, null);
  tracepointProbeRegister('sys_exit', onExit as never, null);
  try {
    const p = m.procs.spawnExec(m.procs.init, '/bin/sh', argv, [m.fs.devNullFile(), null, null], '/root');
    pid = p.tgid;
    m.runUntil(() => p.finished, 30e9);
    return { calls, status: p.exitCode };
  } finally {
    tracepointProbeUnregister('sys_enter', onEnter as never, null);
    tracepointProbeUnregister('sys_exit', onExit as never, null);
  }
}

describe('the recorder\'s launcher on the machine\'s dash', () => {
  afterEach(resetKernel);

  it('launcherArgv: the positional arguments recorder.sh launch gives sh -c', () => {
    expect(launcherArgv('sleep 1')).to.deep.equal(['sh', '-c', LAUNCHER_SCRIPT, 'rec', 'sleep', '1']);
    expect(launcherArgv('uname  -a')).to.deep.equal(['sh', '-c', LAUNCHER_SCRIPT, 'rec', 'uname', '-a']);
    // a glob character is shell syntax to has_shell_syntax
    expect(launcherArgv('find /etc -name *.conf')).to.deep.equal(['sh', '-c', LAUNCHER_SCRIPT, 'rec', 'sh', '-c', 'find /etc -name *.conf']);
    expect(launcherArgv('ls / > /dev/null')).to.deep.equal(['sh', '-c', LAUNCHER_SCRIPT, 'rec', 'sh', '-c', 'ls / > /dev/null']);
  });

  it('read x < FILE reads the line byte by byte from fd 0, then exec "$@" tries every PATH directory with execve', function () {
    this.timeout(60000);
    const m = new Machine({ cpus: 4, seed: 1 });
    m.fs.createFile('/tmp/rec-go', 'go\n', 0o644, 'tmpfs');
    const { calls, status } = trace(m, ['sh', '-c', LAUNCHER_SCRIPT, 'rec', 'sleep', '0']);
    expect(status).to.equal(0);
    const open = calls.findIndex(([n, a]) => n === 'openat' && a === -100);
    expect(open).to.be.greaterThan(0);
    // the line read one byte at a time (dash's read builtin: read(0, buf, 1))
    const reads = calls.filter(([n, a]) => n === 'read' && a === 0).map(([, , r]) => r);
    expect(reads).to.deep.equal([1, 1, 1]);
    // dash's shellexec with idx 0: one execve per PATH entry until one succeeds
    const execs = calls.filter(([n]) => n === 'execve').map(([, a, r]) => [a, r]);
    expect(execs).to.deep.equal([
      ['/bin/sh', 0],
      ['/usr/local/sbin/sleep', -2], ['/usr/local/bin/sleep', -2], ['/usr/sbin/sleep', -2], ['/usr/bin/sleep', 0],
    ]);
  });

  it('exec of a name found nowhere on PATH: every directory tried, "not found", status 127', function () {
    this.timeout(60000);
    const m = new Machine({ cpus: 4, seed: 1 });
    const r = m.run(`sh -c 'exec nosuchprog' 2>&1; echo $?`);
    expect(r.out).to.equal('sh: 1: exec: nosuchprog: not found\n127\n');
  });
});
