/**
 * The boot services' address spaces and counters are the real guest's: /proc/PID/maps, status and stat
 * of each service on the machine against the recorder's system snapshot of the same files
 * (data/recordings/procs.json.gz, read here directly: the machine reads data/userland/services.json,
 * made from it by scripts/userland/services.ts). And each task's page fault counters
 * (mm_account_fault: min_flt, maj_flt), with the reaped children's in the parent's cminflt/cutime.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { Machine } from '../../src/machine/machine';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';

type Procs = Record<string, Record<string, string>>;
const snapshot = (JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'data', 'recordings', 'procs.json.gz'))).toString('utf8')) as { procs: Procs }).procs;
const commOf = (stat: string): string => stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
/** field N of a stat line (1-based, as proc(5) numbers them) */
const field = (stat: string, n: number): string => stat.slice(stat.lastIndexOf(')') + 2).trim().split(' ')[n - 3];
const statusKb = (status: string, key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);

describe('boot services: address spaces and counters as the real guest\'s', function () {
  this.timeout(60000);
  const m = new Machine({ cpus: 4, seed: 1 });
  // the snapshot's services in pid order, matched to the machine's by name and order (nginx: master, workers)
  const real = Object.keys(snapshot).map(Number).sort((a, b) => a - b)
    .filter((pid) => snapshot[pid].smaps && field(snapshot[pid].stat, 4) !== '2' && pid !== 2 && !['recorder-run', 'sh', 'ps'].includes(commOf(snapshot[pid].stat)));
  const simPids = [1, 174, 198, 201, 211, 212, 213, 214, 215, 216];
  const read = (cmd: string): string => m.run(cmd).out;

  it('the snapshot holds the ten services the machine starts, in the same order', () => {
    expect(real.map((pid) => commOf(snapshot[pid].stat))).to.deep.equal(simPids.map((pid) => m.procs.tasks.get(pid)!.comm));
  });

  it('/proc/PID/maps lists the guest\'s VMAs (inode numbers: the machine\'s own for the files it has)', () => {
    real.forEach((pid, i) => {
      const sim = read(`cat /proc/${simPids[i]}/maps`);
      const norm = (t: string): string[] => t.split('\n').map((l) => l.replace(/^(\S+ \S+ \S+) \d\d:\d\d \d+ */, '$1 ').trimEnd());
      expect(norm(sim), `pid ${simPids[i]}`).to.deep.equal(norm(snapshot[pid].maps));
    });
  });

  it('status: the VMA sizes exactly, the resident set as smaps counted it, page tables within 10%', () => {
    real.forEach((pid, i) => {
      const sim = read(`cat /proc/${simPids[i]}/status`), rec = snapshot[pid].status;
      for (const k of ['VmSize', 'VmData', 'VmStk', 'VmExe', 'VmLib']) expect(statusKb(sim, k), `${simPids[i]} ${k}`).to.equal(statusKb(rec, k));
      const smapsRss = [...snapshot[pid].smaps.matchAll(/^Rss:\s+(\d+) kB/gm)].reduce((a, x) => a + Number(x[1]), 0);
      expect(statusKb(sim, 'VmRSS'), `${simPids[i]} VmRSS`).to.equal(smapsRss);
      expect(Math.abs(statusKb(sim, 'VmPTE') / statusKb(rec, 'VmPTE') - 1), `${simPids[i]} VmPTE`).to.be.below(0.1);
      // (the guest's status counts RssAnon with lagging per-thread counters: smaps counts each page)
      const smapsAnon = [...snapshot[pid].smaps.matchAll(/^Anonymous:\s+(\d+) kB/gm)].reduce((a, x) => a + Number(x[1]), 0);
      expect(statusKb(sim, 'RssAnon'), `${simPids[i]} RssAnon`).to.equal(smapsAnon);
    });
  });

  it('stat: the guest\'s flags, page faults and CPU time, its vsize; ps aux shows them', () => {
    real.forEach((pid, i) => {
      const sim = read(`cat /proc/${simPids[i]}/stat`), rec = snapshot[pid].stat;
      for (const n of [9, 12, 14, 15, 23]) expect(field(sim, n), `${simPids[i]} field ${n}`).to.equal(field(rec, n));
      // (minflt: and the faults the service took since, in its event loop's system calls on the machine)
      expect(Number(field(sim, 10)) - Number(field(rec, 10)), `${simPids[i]} minflt`).to.be.within(0, 5);
    });
    const systemd = read('ps aux').split('\n').find((l) => / 1 .*\/sbin\/init$/.test(l))!;
    // VSZ and RSS in kB, TIME from utime + stime (183 + 508 ticks: 0:06)
    expect(systemd.split(/\s+/).slice(4, 6)).to.deep.equal([String(statusKb(snapshot[1].status, 'VmSize')), read('grep VmRSS /proc/1/status').split(/\s+/)[1]]);
    expect(systemd).to.match(/ 0:06 \/sbin\/init$/);
  });

  it('free memory holds the services\' anonymous pages', () => {
    const anonKb = real.reduce((a, pid) => a + [...snapshot[pid].smaps.matchAll(/^Anonymous:\s+(\d+) kB/gm)].reduce((b, x) => b + Number(x[1]), 0), 0);
    const fresh = new Machine({ cpus: 4, seed: 1 });
    expect(fresh.mm.anonPages * 4).to.be.at.least(anonKb);
  });
});

describe('page fault counters of a task (mm_account_fault)', function () {
  this.timeout(60000);

  it('min_flt counts the task\'s faults; the parent\'s cminflt takes a reaped child\'s', () => {
    const m = new Machine({ cpus: 4, seed: 1 });
    const faults = new Map<number, number>();
    // (every fault the task takes: its user faults, its system calls' buffer faults, execve's on the new
    // stack, ret_from_fork's)
    const onFault = (): void => {
      const t = m.executingCpu()?.ctx.task as { proc?: { tgid: number } } | undefined;
      const pid = t?.proc?.tgid ?? -1;
      faults.set(pid, (faults.get(pid) ?? 0) + 1);
    };
    tracepointProbeRegister('page_fault_user', onFault as never, null);
    tracepointProbeRegister('page_fault_kernel', onFault as never, null);
    let out: string;
    try {
      out = m.run('sh -c \'dd if=/dev/zero of=/dev/null bs=1M count=2 2>/dev/null; cat /proc/$$/stat; cat /proc/self/stat\'').out;
    } finally {
      tracepointProbeUnregister('page_fault_user', onFault as never, null);
      tracepointProbeUnregister('page_fault_kernel', onFault as never, null);
    }
    const [sh, cat] = out.trim().split('\n');
    // the cat reading its own stat: every fault it took so far (the loader's, its buffer's)
    expect(Number(field(cat, 10))).to.be.greaterThan(30);
    expect(Number(field(cat, 12))).to.equal(0);
    // the shell reaped dd (which faulted its 1 MiB buffer in: 256 pages and more) before cat ran
    const cmin = Number(field(sh, 11));
    expect(cmin).to.be.greaterThan(256);
    const dd = [...faults.entries()].find(([pid]) => pid !== Number(field(sh, 1)) && pid !== Number(field(cat, 1)) && (faults.get(pid) ?? 0) === cmin);
    expect(dd, `a child whose faults are the shell's cminflt ${cmin}: ${JSON.stringify([...faults])}`).to.not.equal(undefined);
  });
});
