/**
 * perf trace's strace-like lines (src/machine/userland/perf/trace_print.ts) against the recording
 * guest's `perf trace cat /etc/hostname` (test/fixtures/tracefs-real/perf_trace, linux-perf 6.1 on
 * Debian 12): the same calls, arguments, times and results give the same bytes.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { formatTraceLines, TraceArg } from '../../src/machine/userland/perf/trace_print';
import type { DecodedSample } from '../../src/machine/userland/perf/report';
import { findEvent } from '../../src/kernel/tracepoint';
import { syscallByName, syscallByNr } from '../../src/kernel/syscalls';

const fixture = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'tracefs-real', 'perf_trace');

const args = (call: string): TraceArg[] =>
  findEvent('syscalls', `sys_enter_${call}`)!.fields.filter((f) => !f.name.startsWith('common_') && f.name !== '__syscall_nr').map((f) => ({ name: f.name, type: f.type }));

describe('perf trace lines (against linux-perf 6.1)', () => {
  it('prints the recorded calls of cat as the real perf trace does', () => {
    // [time ms, duration ms, call, arguments, result] of the recorded lines
    const calls: [number, number, string, number[], number][] = [
      [293.506, 0.083, 'mprotect', [0x5556ff6f8000, 4096, 1], 0],
      [375.711, 0.344, 'mprotect', [0x7fed2774c000, 8192, 1], 0],
      [376.677, 0.044, 'prlimit64', [0, 3, 0, 0x7ffeacc3a830], 0],
      [377.335, 0.235, 'munmap', [0x7fed27717000, 7515], 0],
      [577.310, 0.100, 'getrandom', [0x7fed2770f478, 8, 1], 8],
      [577.765, 0.016, 'brk', [0], 0x555731425000],
      [577.815, 0.108, 'brk', [0x555731446000], 0x555731446000],
      [583.658, 0.126, 'newfstatat', [1, 0x7fed276cbdd5, 0x7ffeacc3aa30, 4096], 0],
      [583.903, 0.271, 'openat', [-100, 0x7ffeacc3bd81, 0, 0], 3],
      [584.217, 0.019, 'newfstatat', [3, 0x7fed276cbdd5, 0x7ffeacc3aa30, 4096], 0],
      [584.276, 0.047, 'fadvise64', [3, 0, 0, 2], 0],
      [591.095, 0.202, 'mmap', [0, 139264, 3, 0x22, -1, 0], 0x7fed27510000],
      [591.605, 5.343, 'read', [3, 0x7fed27511000, 131072], 3],
      [597.142, 0.061, 'write', [1, 0x7fed27511000, 3], 3],
      [597.410, 0.035, 'read', [3, 0x7fed27511000, 131072], 0],
      [597.572, 0.267, 'munmap', [0x7fed27510000, 139264], 0],
      [597.900, 0.014, 'close', [3], 0],
      [601.047, 0.049, 'close', [1], 0],
      [601.313, 0.009, 'close', [2], 0],
      [602.823, 0, 'exit_group', [0], 0],
    ];
    const base = 1_000_000_000;
    const mk = (time: number, raw: number[]): DecodedSample =>
      ({ ip: 0, pid: 230, tid: 230, time, cpu: 0, period: 1, callchain: [], raw, comm: 'cat', user: false });
    const nr = (c: string) => syscallByName(c)!.nr;
    // the first event: execve's return (tracing starts at exec), the base of the times
    const enter: DecodedSample[] = [];
    const exit: DecodedSample[] = [mk(base, [nr('execve'), 0])];
    for (const [t, d, c, a, r] of calls) {
      const at = base + Math.round(t * 1e6);
      enter.push(mk(at, [nr(c), nr(c), ...a, 0, 0, 0, 0, 0, 0].slice(0, 8)));
      if (c !== 'exit_group') exit.push(mk(at + Math.round(d * 1e6), [nr(c), r]));
    }
    const got = formatTraceLines(enter, exit, (n) => syscallByNr(n)!.name, args).split('\n');
    expect(got[0]).to.equal('         ? (         ): cat/230  ... [continued]: execve())                                           = 0');
    expect(got.slice(1).join('\n')).to.equal(fs.readFileSync(fixture, 'latin1'));
  });

  it('a call interrupted by another thread\'s is printed at once and continued at its return; errors by name', () => {
    const mk = (tid: number, comm: string, time: number, raw: number[]): DecodedSample =>
      ({ ip: 0, pid: tid, tid, time, cpu: 0, period: 1, callchain: [], raw, comm, user: false });
    const wait4 = syscallByName('wait4')!.nr, openat = syscallByName('openat')!.nr;
    const enter = [mk(10, 'sh', 1e6, [wait4, wait4, 11, 0, 0, 0, 0, 0]), mk(11, 'ls', 2e6, [openat, openat, -100, 0x7ffd00001000, 0x80000, 0, 0, 0])];
    const exit = [mk(11, 'ls', 2.5e6, [openat, -2]), mk(10, 'sh', 4e6, [wait4, 11])];
    const got = formatTraceLines(enter, exit, (n) => syscallByNr(n)!.name, args).split('\n');
    expect(got).to.deep.equal([
      '     0.000 (         ): sh/10 wait4(upid: 11)                                                    ...',
      '     1.000 ( 0.500 ms): ls/11 openat(dfd: CWD, filename: 0x1000, flags: CLOEXEC)                    = -1 ENOENT (No such file or directory)',
      '     0.000 ( 3.000 ms): sh/10  ... [continued]: wait4())                                            = 11 (ls)',
      '',
    ]);
  });
});
