/**
 * perf's output forms checked against the recording guest (test/fixtures/tracefs-real/perf_*,
 * linux-perf 6.1 on Debian 12): the golden test test/golden/seeds/perf_tool.sh pins what the
 * machine prints; here the fixed parts of that output are compared with the real tool's.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { formatStat } from '../../src/machine/userland/perf/stat_print';
import { swListLines } from '../../src/machine/userland/perf/events';
import { formatReport, formatTraceSummary, decodeSamples } from '../../src/machine/userland/perf/report';
import { encodeSamples } from '../../src/machine/kernel/perf_event_open';

const root = path.join(__dirname, '..', '..', '..');
const real = (n: string): string => fs.readFileSync(path.join(root, 'test', 'fixtures', 'tracefs-real', n), 'latin1');
const ours = fs.readFileSync(path.join(root, 'test', 'golden', 'seeds', 'perf_tool.expected'), 'latin1');

describe('perf tool output forms vs the guest', () => {
  it('perf list sw prints the software and tool events as perf 6.1', () => {
    expect(swListLines()).to.equal(real('perf_list').split('\n').slice(0, 15).join('\n') + '\n');
  });
  it('perf stat: the block around the counts and the row layout', () => {
    // the real perf_stat_sw with its own numbers, rebuilt by the formatter
    const r = formatStat({
      target: 'ls /', elapsedNs: 389149920, rusage: { utime: 192284000, stime: 216319000 },
      counts: [
        { name: 'task-clock', value: 366610000, running: 1, clock: true, sw: true },
        { name: 'context-switches', value: 3, running: 1, clock: false, sw: true },
        { name: 'cpu-migrations', value: 0, running: 1, clock: false, sw: true },
        { name: 'page-faults', value: 87, running: 1, clock: false, sw: true },
        { name: 'minor-faults', value: 83, running: 1, clock: false, sw: true },
        { name: 'major-faults', value: 4, running: 1, clock: false, sw: true },
      ],
    });
    // 366.61 ms: the guest's 0.942 CPUs and rates come from the unrounded task-clock; the layout is the point
    const strip = (s: string): string => s.replace(/\d+\.\d+/g, 'N');
    expect(strip(r)).to.equal(strip(real('perf_stat_sw')));
    const tp = formatStat({
      target: 'system wide', elapsedNs: 502904820,
      counts: [
        { name: 'sched:sched_switch', value: 69, running: 1, clock: false, sw: false },
        { name: 'syscalls:sys_enter_openat', value: 2, running: 1, clock: false, sw: false },
        { name: 'raw_syscalls:sys_enter', value: 55, running: 1, clock: false, sw: false },
      ],
    });
    expect(tp).to.equal(real('perf_stat_tp'));
    const def = real('perf_stat_default').split('\n').filter((l) => l.includes('<not supported>'));
    for (const l of def) expect(ours).to.include(l);
    expect(real('perf_stat_misc')).to.include(ours.slice(ours.indexOf("event syntax error: 'nosuch'"), ours.indexOf('rc=129') + 7));
  });
  it('perf report --stdio: header and columns', () => {
    const ip = -0x7e5adc30; // any kernel address: the symbol comes from the resolver
    const s = (comm: string, pid: number) => ({ ip, pid, tid: pid, time: 0, cpu: 0, period: 1, comm, callchain: [], raw: [] });
    const samples = decodeSamples(encodeSamples([
      ...Array.from({ length: 35 }, () => s('swapper/0', 0)), ...Array.from({ length: 29 }, () => s('rcu_preempt', 14)),
      ...Array.from({ length: 6 }, () => s('perf', 195)), ...Array.from({ length: 5 }, () => s('sleep', 195)),
      ...Array.from({ length: 4 }, () => s('ksoftirqd/0', 12)), ...Array.from({ length: 3 }, () => s('kworker/0:2-mm_', 40)),
      s('kcompactd0', 30), s('migration/0', 15), s('migration/1', 18), s('perf-exec', 195),
    ]));
    const r = formatReport('sched:sched_switch', 0, samples, () => ({ name: '__schedule', start: 0, dso: '[kernel.kallsyms]', kernel: true })).split('\n');
    const want = real('perf_record').split('\n').slice(3, 28);
    expect(r.slice(0, 22)).to.deep.equal(want.slice(0, 22));
    expect(r[23]).to.equal('#');
  });
  it('perf trace -s: the summary table', () => {
    const mk = (time: number, raw: number[]) => ({ ip: 0, pid: 224, tid: 224, time, cpu: 0, period: 1, comm: 'ls', callchain: [], raw });
    const enter = decodeSamples(encodeSamples([mk(1000, [257])]));
    const exit = decodeSamples(encodeSamples([mk(500, [59, 0]), mk(138000, [257, 3])]));
    const out = formatTraceSummary(enter, exit, (nr) => (nr === 257 ? 'openat' : 'execve')).split('\n');
    const want = real('perf_trace_s').split('\n');
    const head = want.indexOf(' Summary of events:');
    expect(out.slice(1, 3)).to.deep.equal(want.slice(head, head + 2));
    expect(out.slice(5, 8)).to.deep.equal(want.slice(head + 4, head + 7));
    expect(out[8]).to.equal('   openat                 1      0     0.137     0.137     0.137     0.137      0.00%');
    expect(out[9]).to.equal(want.find((l) => l.includes('execve')));
  });
});
