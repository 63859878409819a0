/**
 * The recorder's converter (scripts/record/) on small excerpts in the exact formats the real guest
 * produced (function_graph with funcgraph-abstime/-cpu/-proc/-duration/-tail, the nop tracer's event
 * lines, strace -f -tt -X raw): no QEMU needed.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { GraphConverter } from '../../scripts/record/graph';
import { EventsConverter, parseEventLine } from '../../scripts/record/events';
import { Interner } from '../../scripts/record/intern';
import { parseStrace, syscallNames } from '../../scripts/record/strace';
import { countShapeCalls, joinSiblings, parseShape, shapeWithNames, ShapeSyntaxError } from '../../scripts/record/shape';
import { convertProcs, parseCpuTable } from '../../scripts/record/system';
import { slowedRecordings } from '../../scripts/record/convert';
import type { IndexEntry, RecordingIndex } from '../../scripts/record/recording';

const L = (ts: string, cpu: number, proc: string, dur: string, body: string): string =>
  `   ${ts} |   ${cpu})   ${proc.padStart(8)}   | ${dur.padEnd(13)} |  ${body}`;

// the launcher (pid 100) tries /usr/local/bin/ls (ENOENT), then execs /usr/bin/ls; faults with a
// timer interrupt and its softirq inside; forks 101; a kworker on another CPU is not the workload's
const GRAPH = [
  '# tracer: function_graph',
  L('10.000001', 0, 'sh-100', '', 'x64_sys_call() {'),
  L('10.000002', 0, 'sh-100', '', '  __x64_sys_execve() {'),
  L('10.000003', 0, 'sh-100', '1.000 us', '    getname();'),
  L('10.000004', 0, 'sh-100', '2.000 us', '  } /* __x64_sys_execve */'),
  L('10.000005', 0, 'sh-100', '3.000 us', '} /* x64_sys_call */'),
  L('10.000006', 0, 'sh-100', '1.000 us', 'exit_to_user_mode_prepare();'),
  L('10.000010', 0, 'sh-100', '', 'x64_sys_call() {'),
  L('10.000011', 0, 'sh-100', '', '  __x64_sys_execve() {'),
  L('10.000012', 0, 'sh-100', '1.000 us', '    getname();'),
  L('10.000013', 0, 'sh-100', '', '    /* sched_process_exec: filename=/usr/bin/ls pid=100 old_pid=100 */'),
  L('10.000014', 0, 'ls-100', '! 105.000 us', '  } /* __x64_sys_execve */'),
  L('10.000015', 0, 'ls-100', '6.000 us', '} /* x64_sys_call */'),
  L('10.000016', 0, 'ls-100', '1.000 us', 'exit_to_user_mode_prepare();'),
  L('10.000020', 0, 'ls-100', '1.000 us', 'lock_mm_and_find_vma();'),
  L('10.000021', 0, 'ls-100', '', 'handle_mm_fault() {'),
  L('10.000022', 0, 'ls-100', '1.000 us', '  irq_enter_rcu();'),
  L('10.000023', 0, 'ls-100', '1.000 us', '  __sysvec_apic_timer_interrupt();'),
  L('10.000024', 0, 'ls-100', '', '  irq_exit_rcu() {'),
  L('10.000025', 0, 'ls-100', '', '    __do_softirq() {'),
  L('10.000026', 0, 'ls-100', '1.000 us', '      run_timer_softirq();'),
  L('10.000027', 0, 'ls-100', '2.000 us', '    } /* __do_softirq */'),
  L('10.000028', 0, 'ls-100', '3.000 us', '  } /* irq_exit_rcu */'),
  L('10.000029', 0, 'ls-100', '1.000 us', '  ext4_page_mkwrite [ext4]();'),
  L('10.000030', 0, 'ls-100', '9.000 us', '} /* handle_mm_fault */'),
  L('10.000031', 0, 'ls-100', '1.000 us', 'up_read();'),
  L('10.000032', 0, 'ls-100', '1.000 us', 'exit_to_user_mode_prepare();'),
  L('10.000033', 1, 'kworker-7', '1.000 us', 'process_one_work();'),
  '------------------------------------------',
  ' 1)   kworker-7    =>     ls-101    ',
  '------------------------------------------',
  L('10.000034', 0, 'ls-100', '', 'x64_sys_call() {'),
  L('10.000035', 0, 'ls-100', '', '  /* sched_process_fork: comm=ls pid=100 child_comm=ls child_pid=101 */'),
  L('10.000036', 0, 'ls-100', '1.000 us', '} /* x64_sys_call */'),
  L('10.000037', 0, 'ls-100', '1.000 us', 'exit_to_user_mode_prepare();'),
  L('10.000038', 1, 'ls-101', '1.000 us', 'schedule_tail();'),
  L('10.000039', 1, 'ls-101', '1.000 us', 'exit_to_user_mode_prepare();'),
  L('10.000040', 0, 'ls-100', '', 'x64_sys_call() {'),
  L('10.000041', 0, 'ls-100', '1.000 us', '  _raw_spin_lock();'),
  L('10.000042', 0, 'ls-100', '1.000 us', '  _raw_spin_lock();'),
  L('10.000043', 0, 'ls-100', '1.000 us', '  _raw_spin_lock();'),
  L('10.000044', 0, 'ls-100', '4.000 us', '} /* x64_sys_call */'),
  L('10.000045', 0, 'ls-100', '1.000 us', 'exit_to_user_mode_prepare();'),
];

function convertGraph(lines: string[], rootPid: number | null) {
  const functions = new Interner();
  const shapes = new Interner();
  const events = new Interner();
  const shapeKinds = new Map<number, string>();
  const g = new GraphConverter({ rootPid, functions, shapes, events, shapeKinds });
  for (const l of lines) g.line(l);
  const res = g.finish();
  const calls = (name: string): number => res.calls.get(functions.id(name)) ?? 0;
  const named = (id: number): string => shapeWithNames(shapes.names[id], functions.names, events.names);
  return { res, functions, shapes, shapeKinds, calls, named };
}

describe('record: shapes', () => {
  it('folds runs of identical siblings and parses back', () => {
    expect(joinSiblings(['1', '1', '1', '2(3)', '2(3)', '4'])).to.equal('1*3 2(3)*2 4');
    const nodes = parseShape('12(34 56(7)*3 @5 !2) 8');
    expect(nodes).to.have.length(2);
    const first = nodes[0];
    expect(first.kind).to.equal('call');
    if (first.kind !== 'call') return;
    expect(first.children.map((c) => c.kind)).to.deep.equal(['call', 'call', 'ref', 'event']);
    expect(first.children[1].repeat).to.equal(3);
  });
  it('counts calls with @ references expanded and repeats multiplied', () => {
    const shapes = ['1(2*3 @1)', '4(5) 5'];
    const into = new Map<number, number>();
    countShapeCalls(shapes, 0, 2, into);
    expect([...into].sort((a, b) => a[0] - b[0])).to.deep.equal([[1, 2], [2, 6], [4, 2], [5, 4]]);
  });
  it('rejects malformed shapes and reference cycles', () => {
    expect(() => parseShape('1(2')).to.throw(ShapeSyntaxError);
    expect(() => parseShape('1 x')).to.throw(ShapeSyntaxError);
    expect(() => countShapeCalls(['@0'], 0, 1, new Map())).to.throw(ShapeSyntaxError);
  });
});

describe('record: function_graph converter', () => {
  it('starts the workload at the root\'s successful execve and follows its forks', () => {
    const { res, calls, functions } = convertGraph(GRAPH, 100);
    expect(res.tasks.map((t) => [t.pid, t.comm, t.parent])).to.deep.equal([[100, 'ls', -1], [101, 'ls', 100]]);
    expect(res.tasks[0].execs).to.deep.equal(['/usr/bin/ls']);
    expect(calls('getname')).to.equal(1); // the failed attempt's call is not the workload's
    expect(calls('x64_sys_call')).to.equal(3);
    expect(calls('exit_to_user_mode_prepare')).to.equal(5);
    expect(calls('process_one_work')).to.equal(0);
    expect(calls('_raw_spin_lock')).to.equal(3);
    expect(res.timeNs.get(functions.id('getname'))).to.equal(1000);
    expect(res.timeNs.get(functions.id('__x64_sys_execve'))).to.equal(105000);
    expect([...res.modules]).to.deep.equal([['ext4_page_mkwrite', 'ext4']]);
  });
  it('makes one entry per return to user mode, interrupts and softirqs as their own shapes', () => {
    const { res, named, shapeKinds } = convertGraph(GRAPH, 100);
    const ls = res.tasks[0];
    const entries = [];
    for (let i = 0; i < ls.entries.length; i += 3) entries.push(ls.entries[i + 2]);
    expect(entries).to.have.length(4);
    expect(named(entries[0])).to.equal('x64_sys_call(__x64_sys_execve(getname !sched_process_exec)) exit_to_user_mode_prepare');
    const fault = named(entries[1]);
    const irq = Number(/@(\d+)/.exec(fault)![1]);
    expect(fault).to.equal(`lock_mm_and_find_vma handle_mm_fault(@${irq} ext4_page_mkwrite) up_read exit_to_user_mode_prepare`);
    expect(shapeKinds.get(irq)).to.equal('irq');
    const irqText = named(irq);
    const soft = Number(/@(\d+)/.exec(irqText)![1]);
    expect(irqText).to.equal(`irq_enter_rcu __sysvec_apic_timer_interrupt irq_exit_rcu(@${soft})`);
    expect(shapeKinds.get(soft)).to.equal('softirq');
    expect(named(soft)).to.equal('__do_softirq(run_timer_softirq)');
    expect(named(entries[3])).to.equal('x64_sys_call(_raw_spin_lock*3) exit_to_user_mode_prepare');
    // entries: [startUs since the workload's start, cpu, shape]
    expect(ls.entries.slice(0, 2)).to.deep.equal([0, 0]);
    expect(ls.entries[3]).to.equal(10);
  });
  it('keeps every task and one entry per top-level call for kernel threads in background mode', () => {
    const { res, named } = convertGraph(GRAPH, null);
    const kw = res.tasks.find((t) => t.pid === 7)!;
    expect(kw.entries.length).to.equal(3);
    expect(named(kw.entries[2])).to.equal('process_one_work');
  });
  it('sums the expanded shapes of the entries to the per-function counts', () => {
    const { res, shapes } = convertGraph(GRAPH, 100);
    const into = new Map<number, number>();
    for (const t of res.tasks) for (let i = 2; i < t.entries.length; i += 3) countShapeCalls(shapes.names, t.entries[i], 1, into);
    expect([...into].sort()).to.deep.equal([...res.calls].sort());
  });
});

describe('record: events converter', () => {
  const EV = [
    '              sh-100     [001] .....   169.893349: sys_enter: NR 59 (5600, 5608, 5610, 0, 0, 0)',
    '              sh-100     [001] ...1.   169.893349: sys_execve(filename: 5600, argv: 5608, envp: 5610)',
    '              sh-100     [001] ...1.   169.893350: sys_execve -> 0xfffffffffffffffe',
    '              sh-100     [001] ...1.   169.893360: sys_execve(filename: 5700, argv: 5608, envp: 5610)',
    '              sh-100     [001] .....   169.893361: sched_process_exec: filename=/usr/bin/ls pid=100 old_pid=100',
    '              ls-100     [001] d....   169.893370: page_fault_user: address=0x7f456d763068 ip=0x7f456d763068 error_code=0x14',
    '              ls-100     [001] .....   169.893380: sched_process_fork: comm=ls pid=100 child_comm=ls child_pid=101',
    '          <idle>-0       [002] d.h1.   169.893381: irq_handler_entry: irq=14 name=ahci[0000:00:03.0]',
    '              ls-101     [000] ...1.   169.893390: sys_write -> 0x2',
  ];
  it('names syscall events, starts at the successful execve and follows forks', () => {
    expect(parseEventLine(EV[1])).to.include({ comm: 'sh', pid: 100, cpu: 1, event: 'sys_enter_execve', fields: 'filename: 5600, argv: 5608, envp: 5610' });
    expect(parseEventLine(EV[2])).to.include({ event: 'sys_exit_execve', fields: '0xfffffffffffffffe' });
    const names = new Interner();
    const c = new EventsConverter(names, 100);
    for (const l of EV) c.line(l);
    const r = c.finish();
    const count = (n: string): number => r.counts.get(names.id(n)) ?? 0;
    expect(count('sys_enter_execve')).to.equal(1);
    expect(count('sys_exit_execve')).to.equal(0);
    expect(count('page_fault_user')).to.equal(1);
    expect(count('sys_exit_write')).to.equal(1);
    expect(count('irq_handler_entry')).to.equal(0);
    expect(r.systemCounts.get(names.id('irq_handler_entry'))).to.equal(1);
    expect(r.pids).to.deep.equal([100, 101]);
    expect(r.records.slice(0, 6)).to.deep.equal([0, 100, 1, names.id('sys_enter_execve'), '...1.', 'filename: 5700, argv: 5608, envp: 5610']);
  });
});

describe('record: strace parser', () => {
  const S = [
    '322   05:03:09.180035 execve("/usr/bin/ls", ["ls", "/"], 0x7ffd4a5c8f28 /* 3 vars */) = 0',
    '322   05:03:09.202191 access("/etc/ld.so.preload", 0x4) = -1 ENOENT (No such file or directory)',
    '322   05:03:09.300000 read(0,  <unfinished ...>',
    '323   05:03:09.300100 write(1, "a) = b\\n", 7) = 7',
    '322   05:03:09.400000 <... read resumed>"x", 1) = 1',
    '323   05:03:09.500000 --- SIGCHLD {si_signo=17, si_code=1, si_pid=324} ---',
    '322   05:03:11.227680 exit_group(0)     = ?',
    '322   05:03:12.237218 +++ exited with 0 +++',
  ].join('\n');
  it('joins unfinished and resumed calls and keeps signals and exits', () => {
    const r = parseStrace(S);
    expect(r.map((x) => x.name)).to.deep.equal(['execve', 'access', 'read', 'write', '---', 'exit_group', '+++']);
    expect(r[1]).to.deep.include({ args: '"/etc/ld.so.preload", 0x4', ret: '-1 ENOENT (No such file or directory)', t: 22156 });
    expect(r[2]).to.deep.include({ pid: 322, args: '0, "x", 1', ret: '1' });
    expect(r[3]).to.deep.include({ args: '1, "a) = b\\n", 7', ret: '7' });
    expect(r[6].args).to.equal('exited with 0');
    expect(syscallNames(r)).to.deep.equal(['execve', 'access', 'read', 'write', 'exit_group']);
    expect(syscallNames(r, 323)).to.deep.equal(['write']);
  });
});

describe('record: /proc tables', () => {
  it('reads /proc/interrupts rows per CPU with their description', () => {
    const t = parseCpuTable('           CPU0       CPU1\n  0:        130          0   IO-APIC   2-edge      timer\nLOC:       5000       4000   Local timer interrupts\n');
    expect(t.get('0')).to.deep.equal({ counts: [130, 0], desc: 'IO-APIC 2-edge timer' });
    expect(t.get('LOC')!.counts).to.deep.equal([5000, 4000]);
  });
});

describe('record: the host-load check', () => {
  const entry = (name: string, calib?: number): IndexEntry => ({
    name, command: name, setup: '', file: `${name}.json.gz`,
    summary: { distinctFunctions: 1, calls: 1, pageFaults: 0, pageFaultEvents: 0, syscalls: 1, tasks: 1, shapes: 1, events: 1, ...(calib === undefined ? {} : { calib }) },
  });
  it('reports the recordings whose slowest calibration is over 1.5x the median (the upper one of an even count: 0.36 / 0.22), older ones without one ignored', () => {
    const index: RecordingIndex = { format: 1, recordings: [entry('a', 0.18), entry('b', 0.2), entry('c', 0.22), entry('d', 0.36), entry('old')] };
    expect(slowedRecordings(index).map((r) => [r.name, r.ratio.toFixed(2)])).to.deep.equal([['d', '1.64']]);
    expect(slowedRecordings({ format: 1, recordings: [entry('old')] })).to.deep.equal([]);
  });
});

describe('record: system snapshot', () => {
  it('keeps each process\'s maps and its smaps, stat and status (recorder.sh snapshot_system)', () => {
    const raw = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-sys-'));
    try {
      fs.mkdirSync(path.join(raw, 'maps'));
      const MAPS = '55d0c2a00000-55d0c2a0e000 r--p 00000000 08:01 1962 /usr/lib/systemd/systemd\n';
      fs.writeFileSync(path.join(raw, 'maps', '1'), MAPS);
      fs.writeFileSync(path.join(raw, 'maps', '1.smaps'), MAPS + 'Size:                 56 kB\nRss:                  56 kB\n');
      fs.writeFileSync(path.join(raw, 'maps', '1.stat'), '1 (systemd) S 0 1 1 0 -1 4194560 3375 17554 184\n');
      fs.writeFileSync(path.join(raw, 'maps', '10.status'), 'Name:\tmm_percpu_wq\n');
      const s = convertProcs(raw);
      expect(s.procs['1'].maps).to.equal(MAPS);
      expect(Object.keys(s.procs)).to.deep.equal(['1', '10']);
      expect(s.procs['1'].smaps).to.match(/^Rss: +56 kB$/m);
      expect(s.procs['1'].stat).to.match(/^1 \(systemd\) S/);
      expect(s.procs['10']).to.deep.equal({ status: 'Name:\tmm_percpu_wq\n' });
    } finally {
      fs.rmSync(raw, { recursive: true, force: true });
    }
  });
});
