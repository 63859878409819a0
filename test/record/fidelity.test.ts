/**
 * The fidelity measure's arithmetic (bench/fidelity_measure.ts), its two sides (the recording's counts,
 * a tapsim run), and the committed recordings' own consistency; no QEMU needed.
 */
import { expect } from 'chai';
import { compareSides, editDistance, editSimilarity, syscallSimilarity, weightedJaccard } from '../../bench/fidelity_measure';
import { bootBetweenRuns, heldoutSummary, recordedCpu, recordedEntries, recordedSide, warmsUp } from '../../bench/fidelity';
import { recorderWarmsUp, runSimulated, warmUpCommand } from '../../bench/fidelity_run';
import { findRecording, HELDOUT_DIR, loadIndex, loadRecording, readJsonGz, Recording, RECORDINGS_DIR } from '../../scripts/record/recording';
import { storedSlowdown } from '../../bench/fidelity_speed';
import * as path from 'path';
import { countShapeCalls } from '../../scripts/record/shape';

const M = (o: Record<string, number>): Map<string, number> => new Map(Object.entries(o));

describe('fidelity: arithmetic', () => {
  it('weighted Jaccard is the sum of minima over the sum of maxima', () => {
    expect(weightedJaccard(M({ a: 2, b: 1 }), M({ a: 1, c: 1 }))).to.equal(1 / 4);
    expect(weightedJaccard(M({ a: 3 }), M({ a: 3 }))).to.equal(1);
    expect(weightedJaccard(M({ a: 3 }), M({ b: 3 }))).to.equal(0);
    expect(weightedJaccard(M({}), M({}))).to.equal(1);
    expect(weightedJaccard(M({ a: 1, b: 4 }), M({ b: 2, a: 1 }))).to.equal(3 / 5);
  });
  it('edit distance and normalized edit similarity', () => {
    expect(editDistance([...'kitten'], [...'sitting'])).to.equal(3);
    expect(editDistance([], ['a', 'b'])).to.equal(2);
    expect(editDistance(['openat', 'read', 'close'], ['openat', 'close'])).to.equal(1);
    expect(editSimilarity([...'kitten'], [...'sitting'])).to.be.closeTo(1 - 3 / 7, 1e-12);
    expect(editSimilarity([], [])).to.equal(1);
  });
  it('compares two sides: distinct functions, calls, faults and the largest differences', () => {
    const real = { functions: M({ f: 10, handle_mm_fault: 5, g: 1, __traceiter_sched_switch: 7 }), events: M({ sched_switch: 2 }), syscalls: ['execve', 'brk', 'exit_group'] };
    const sim = { functions: M({ f: 4, h: 2 }), events: M({ sched_switch: 2 }), syscalls: ['execve', 'exit_group'] };
    const row = compareSides(sim, real);
    expect(row.functionJaccard).to.equal(4 / 18);
    expect(row.eventJaccard).to.equal(1);
    expect(row.syscallSimilarity).to.be.closeTo(2 / 3, 1e-12);
    expect(row.distinct).to.deep.equal({ sim: 2, real: 3 });
    expect(row.calls).to.deep.equal({ sim: 6, real: 16 });
    expect(row.pageFaults).to.deep.equal({ sim: 0, real: 5 });
    expect(row.missing[0]).to.deep.equal(['f', 6]);
    expect(row.extra).to.deep.equal([['h', 2]]);
  });
});

describe('fidelity: the syscall sequences', () => {
  const side = (tasks: string[][] | undefined, syscalls: string[]) => ({ functions: M({}), events: M({}), syscalls, tasks });
  it('compares task by task in creation order, so the interleaving of concurrent tasks does not count', () => {
    const a = side([['execve', 'clone', 'wait4'], ['read', 'exit_group']], ['execve', 'clone', 'read', 'wait4', 'exit_group']);
    const b = side([['execve', 'clone', 'wait4'], ['read', 'exit_group']], ['execve', 'clone', 'wait4', 'read', 'exit_group']);
    expect(syscallSimilarity(a, b)).to.equal(1);
    expect(editSimilarity(a.syscalls, b.syscalls)).to.be.lessThan(1);
    // a missing call counts once over the longer sequences' total; a task only one side has counts whole
    const c = side([['execve', 'clone', 'wait4'], ['exit_group']], []);
    expect(syscallSimilarity(a, c)).to.be.closeTo(1 - 1 / 5, 1e-12);
    const d = side([['execve', 'clone', 'wait4']], []);
    expect(syscallSimilarity(a, d)).to.be.closeTo(1 - 2 / 5, 1e-12);
    // without per-task sequences: the merged ones
    expect(syscallSimilarity(side(undefined, a.syscalls), b)).to.equal(editSimilarity(a.syscalls, b.syscalls));
  });
  it('has no figure for a recording made without its strace run (idle: the whole system, no strace)', () => {
    const a = side([['execve', 'nanosleep', 'exit_group']], ['execve', 'nanosleep', 'exit_group']);
    expect(syscallSimilarity(a, { ...side([], []), straced: false })).to.be.NaN;
    expect(syscallSimilarity(a, { ...side([], []), straced: true })).to.equal(0);
  });
});

describe('fidelity: the recorded side', () => {
  it('takes calls by function name, event counts and the strace syscall names', () => {
    const rec = {
      functions: ['a', 'b', 'a'], calls: [1, 0, 2], events: ['sched_switch', 'x'], eventCounts: [3, 0],
      strace: [[1, 0, 'execve', '', '0'], [1, 5, '---', 'SIGCHLD', ''], [1, 9, 'exit_group', '0', '?'], [1, 9, '+++', 'exited with 0', '']],
    } as unknown as Recording;
    const side = recordedSide(rec);
    expect([...side.functions]).to.deep.equal([['a', 3]]);
    expect([...side.events]).to.deep.equal([['sched_switch', 3]]);
    expect(side.syscalls).to.deep.equal(['execve', 'exit_group']);
    expect(side.tasks).to.deep.equal([['execve', 'exit_group']]);
  });
  it('orders the tasks as they were created: the root, then the pids its fork/vfork/clone returned', () => {
    const rec = {
      functions: [], calls: [], events: [], eventCounts: [],
      strace: [[1, 0, 'execve', '', '0'], [1, 1, 'clone', '', '3'], [1, 2, 'vfork', '', '2'], [2, 3, 'execve', '', '0'], [3, 4, 'read', '', '0'],
        [1, 5, 'wait4', '', '2'], [2, 6, 'exit_group', '0', '?'], [3, 7, 'exit_group', '0', '?']],
    } as unknown as Recording;
    expect(recordedSide(rec).tasks).to.deep.equal([['execve', 'clone', 'vfork', 'wait4'], ['read', 'exit_group'], ['execve', 'exit_group']]);
  });
});

describe('fidelity: the committed recordings', () => {
  const idx = loadIndex();
  it('has an index of recordings, each with its file', () => {
    expect(idx.recordings.length).to.be.greaterThan(0);
    for (const e of idx.recordings) expect(e.command, e.name).to.be.a('string').and.not.equal('');
  });
  it('expands every task\'s entries to exactly the per-function counts (shapes are complete)', function () {
    this.timeout(60000);
    for (const e of idx.recordings) {
      const r = loadRecording(e);
      const into = new Map<number, number>();
      const parsed = new Map();
      for (const t of r.tasks) for (let i = 2; i < t.entries.length; i += 3) countShapeCalls(r.shapes, t.entries[i], 1, into, parsed);
      const mismatched = r.calls.filter((c, i) => (into.get(i) ?? 0) !== c).length;
      expect(mismatched, e.name).to.equal(0);
      expect(r.summary.distinctFunctions, e.name).to.equal(r.calls.filter((c) => c > 0).length);
      expect(r.shapes.length, e.name).to.equal(r.shapeCounts.length);
    }
  });
  it('ls / on the real guest is what issue 14 quotes, within 15%', () => {
    // issue 14: 912 distinct functions, 39,061 calls, 87 page faults, 72 syscalls (the shared tool's run)
    const e = findRecording('ls /');
    expect(e).to.not.equal(null);
    const s = e!.summary;
    expect(s.distinctFunctions).to.be.within(912 * 0.85, 912 * 1.15);
    expect(s.calls).to.be.within(39061 * 0.85, 39061 * 1.15);
    expect(s.pageFaults).to.be.within(87 * 0.85, 87 * 1.15);
    expect(s.syscalls).to.be.within(72 * 0.85, 72 * 1.15);
  });
  it('splits ls /\'s calls by kernel entry: every call once, the syscalls by name, the user faults, the interrupts', () => {
    const r = loadRecording(findRecording('ls-root')!);
    const by = recordedEntries(r);
    expect([...by.values()].reduce((a, b) => a + b, 0)).to.equal(r.calls.reduce((a, b) => a + b, 0));
    expect(by.get('sys:execve')).to.be.greaterThan(1000);
    expect(by.get('sys:newfstatat')).to.be.greaterThan(0);
    expect(by.get('fault')).to.be.greaterThan(1000);
    expect(by.get('irq')).to.be.greaterThan(0);
  });
});

describe('fidelity: the held-out recordings (commands outside the catalogue)', () => {
  const held = loadIndex(HELDOUT_DIR).recordings;
  it('are other commands than the catalogue\'s, and the machine\'s entry model was generated without them', () => {
    expect(held.length).to.be.at.least(10);
    const catalogue = new Set(loadIndex().recordings.map((e) => e.command));
    for (const h of held) expect(catalogue.has(h.command), h.command).to.equal(false);
    const model = readJsonGz<{ recordings: { name: string; command: string }[] }>(path.join(RECORDINGS_DIR, '..', 'paths', 'entries.json.gz'));
    expect(model.recordings.length).to.equal(loadIndex().recordings.filter((e) => e.file !== 'system.json.gz').length);
    for (const h of held) expect(model.recordings.map((r) => r.command)).to.not.include(h.command);
    // findRecording looks in the catalogue's directory only; fidelity.ts falls back to the held-out one
    expect(findRecording(held[0].name)).to.equal(null);
    expect(findRecording(held[0].name, HELDOUT_DIR)?.command).to.equal(held[0].command);
  });
  it('head -c 100 writes through stdio as on the guest, and the run reaches issue 14\'s 0.6 for workloads outside the catalogue', function () {
    this.timeout(60000);
    const e = findRecording('head -c 100 /etc/passwd', HELDOUT_DIR);
    expect(e).to.not.equal(null);
    const rec = loadRecording(e!, HELDOUT_DIR);
    const real = recordedSide(rec);
    const sim = runSimulated(rec.command, { setup: rec.setup || undefined, warmUp: warmsUp(rec), seed: 1, cpu: recordedCpu(rec), cpuSlowdown: storedSlowdown().graphMedian });
    expect(sim.output).to.equal('root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/');
    // the guest's strace: read(3, .., 100), fstat and TCGETS of stdout, a write per line, the rest at close_stdout
    expect(sim.tasks?.[0]).to.deep.equal(real.tasks?.[0]);
    const row = compareSides(sim, real);
    expect(row.functionJaccard).to.be.at.least(0.6);
    expect(row.distinct.sim).to.be.within(0.9 * row.distinct.real, 1.1 * row.distinct.real);
    expect(heldoutSummary([row, row])).to.match(/^fn J median 0\.\d{3}, mean 0\.\d{3}, min 0\.\d{3} \(2\/2 ≥ 0\.6\); ev J/);
  });
});

describe('fidelity: the simulated side', () => {
  it('counts the workload\'s functions, events and syscalls from its execve on', function () {
    this.timeout(60000);
    const sim = runSimulated('ls /', { seed: 1 });
    expect(sim.exited).to.equal(true);
    expect(sim.syscalls[0]).to.equal('execve');
    expect(sim.syscalls[sim.syscalls.length - 1]).to.equal('exit_group');
    expect(sim.functions.size).to.be.greaterThan(10);
    expect(sim.events.get('sys_enter_execve')).to.equal(1);
    expect(sim.events.get('sys_enter')).to.equal(sim.syscalls.length);
    expect(sim.tasks).to.deep.equal([sim.syscalls]);
    // the same calls split by kernel entry (syscalls by table name, user page faults)
    const total = [...sim.functions.values()].reduce((a, b) => a + b, 0);
    expect([...sim.byEntry.values()].reduce((a, b) => a + b, 0)).to.equal(total);
    expect(sim.byEntry.get('sys:newfstatat')).to.be.greaterThan(0);
    expect(sim.byEntry.get('fault')).to.be.greaterThan(1000);
  });
  it('launches as the recorder did: the workload\'s execve tears down the dash launcher\'s address space', function () {
    // data/recordings/sleep: the recorded execve of `sleep 1` (from `sh -c 'read x < /tmp/rec-go; exec "$@"' rec
    // sleep 1`) calls page_remove_rmap 390 times and unmap_single_vma 25 times, the exit 356 and 22; forked
    // from init without the launcher the machine's execve tore down almost nothing (361 in all)
    // (the median of three seeds: the launcher's fault-around draws recorded fault variants, whose
    // page counts vary, so one seed's launcher may map and tear down ~170 pages fewer)
    this.timeout(180000);
    const rec = loadRecording(findRecording('sleep')!);
    const real = recordedSide(rec).functions;
    const sims = [1, 2, 3].map((seed) => runSimulated(rec.command, { seed }));
    for (const sim of sims) {
      expect(sim.status).to.equal(0);
      expect(sim.events.get('sys_enter_execve')).to.equal(1);
    }
    for (const f of ['page_remove_rmap', 'unmap_single_vma']) {
      const s = sims.map((sim) => sim.functions.get(f) ?? 0).sort((a, b) => a - b)[1];
      const r = real.get(f) ?? 0;
      expect(Math.abs(s - r) / r, `${f}: sim median ${s} real ${r}`).to.be.below(0.1);
    }
  });
  it('counts a background workload from the recorder\'s open of the launcher\'s fifo, as the idle recording does', function () {
    this.timeout(120000);
    // data/recordings/idle (every task traced): the recorder's shell opens /tmp/rec-go (fifo_open, its
    // echo's fcntl/dup2 and write), the launcher's open returns and it reads the line byte by byte
    // (pipe_read x3), then wait4 and the launcher's exec; the machine's recorder script does the same
    const rec = loadRecording(findRecording('idle')!);
    const real = recordedSide(rec).functions;
    expect(real.get('fifo_open')).to.equal(1);
    expect(real.get('pipe_read')).to.equal(3);
    const sim = runSimulated('sleep 1', { seed: 1, allTasks: true });
    expect(sim.status).to.equal(0);
    expect(sim.functions.get('pipe_read')).to.equal(3);
    expect(sim.functions.get('fifo_open') ?? 0).to.be.within(1, 2);
    expect(sim.functions.get('__x64_sys_dup2') ?? 0).to.be.at.least(2);
    // nothing from before tracing went on: not the recorder's 100 polls of the launcher's wchan
    expect(sim.events.get('sys_enter_execve')).to.equal(4);
    expect(sim.syscalls[0]).to.equal('openat');
  });
  it('runs beside the recorder\'s own processes, as ps aux of the ps recording lists them', function () {
    this.timeout(60000);
    // data/recordings/ps (its strace run's writes of ps's output): `217 ... Ss ... /bin/sh /sbin[/recorder-run]`,
    // `227 ... S ... sh /root/rec/[recorder.sh]`, its watcher `4033 ... S ... sh /root/rec/`, `4035 ... S ...
    // sleep 300`, and ps itself `R` (recorder.sh's job, in the boot runner's session)
    const lines = runSimulated('ps aux', { seed: 1 }).output.split('\n');
    const stat = (re: RegExp): string[] => lines.filter((l) => re.test(l)).map((l) => l.split(/ +/)[7]);
    expect(stat(/ \/bin\/sh \/sbin$/)).to.deep.equal(['Ss']);
    expect(stat(/ sh \/root\/rec\/$/)).to.deep.equal(['S', 'S']);
    expect(stat(/ sleep 300$/)).to.deep.equal(['S']);
    expect(stat(/ ps aux$/)).to.deep.equal(['R']);
  });
  it('warms up as recorder.sh run_setup did: one untraced run of the workload in the traced run\'s form, unless cold or background', () => {
    expect(warmUpCommand('cp /etc/passwd /root/passwd.copy')).to.equal("cd /root && timeout 300 'cp' '/etc/passwd' '/root/passwd.copy' < /dev/null > /dev/null 2>&1");
    expect(warmUpCommand("sh -c 'sleep 5 & wait'")).to.equal("cd /root && timeout 300 'sh' '-c' 'sh -c '\\''sleep 5 & wait'\\''' < /dev/null > /dev/null 2>&1");
    expect(recorderWarmsUp([])).to.equal(true);
    expect(recorderWarmsUp(['memcg=4M', 'buf=131072'])).to.equal(true);
    expect(recorderWarmsUp(['cold'])).to.equal(false);
    expect(recorderWarmsUp(['background', 'nostrace'])).to.equal(false);
    // as the recordings were made: cp warm, pagecache-miss cold, idle background, signal before the warm-up
    // existed (66856cb, before be2b24e), sleep re-recorded after it (373b66c)
    const warm = (n: string): boolean => warmsUp(loadRecording(findRecording(n)!));
    expect(['cp', 'tbench', 'pagecache-miss', 'idle', 'signal', 'sleep'].map(warm)).to.deep.equal([true, true, false, false, false, true]);
  });
  it("replays the recording boot's drop_caches before the events phase: the events run activates the program's pages again", function () {
    this.timeout(120000);
    // cp was recorded in a boot with pagecache-miss (373b66c), tar in one without (21d10d7)
    const rec = loadRecording(findRecording('cp')!);
    const pm = findRecording('pagecache-miss')!;
    expect(bootBetweenRuns(rec)).to.deep.equal([pm.setup, 'sync; sleep 0.5', warmUpCommand(pm.command)]);
    expect(bootBetweenRuns(loadRecording(findRecording('tar')!))).to.equal(undefined);
    // the recorded events run: mm_lru_activate 38, all in cp's exit_group (its pages read again by the
    // events phase's warm-up after the drop); without the drop they are active since the graph phase
    const recorded = rec.eventCounts[rec.events.indexOf('mm_lru_activate')];
    expect(recorded).to.equal(38);
    const o = { setup: rec.setup || undefined, warmUp: warmsUp(rec), seed: 1, eventsRun: true, cpu: recordedCpu(rec, true), cpuSlowdown: storedSlowdown().eventsMedian };
    expect(runSimulated(rec.command, o).events.get('mm_lru_activate') ?? 0).to.equal(0);
    expect(runSimulated(rec.command, { ...o, betweenRuns: bootBetweenRuns(rec) }).events.get('mm_lru_activate') ?? 0).to.be.greaterThan(0);
  });
  it('after the warm-up the traced cp finds its target existing and truncates it, as recorded', function () {
    this.timeout(60000);
    // data/recordings/cp: the recorded openat of /root/passwd.copy (O_WRONLY|O_TRUNC) truncates the file
    // the warm-up run made (ext4_truncate 1, no ext4_create); without the warm-up cp creates it
    const real = recordedSide(loadRecording(findRecording('cp')!)).functions;
    expect([real.get('ext4_create'), real.get('ext4_truncate')]).to.deep.equal([undefined, 1]);
    const calls = (warmUp: boolean): (number | undefined)[] => {
      const sim = runSimulated('cp /etc/passwd /root/passwd.copy', { seed: 1, warmUp });
      expect(sim.status).to.equal(0);
      return [sim.functions.get('ext4_create'), sim.functions.get('ext4_truncate')];
    };
    expect(calls(true)).to.deep.equal([undefined, 1]);
    expect(calls(false)).to.deep.equal([1, undefined]);
  });
});
