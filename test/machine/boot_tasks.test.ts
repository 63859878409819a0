/**
 * The default system's tasks are the real Debian 12 guest's: `ps aux` on the machine lists the kernel
 * threads and services the recorded guest's `ps aux` printed (data/recordings/ps.json.gz, its strace
 * run's writes to stdout), at their pids, with their user, VSZ/RSS (0 for a kthread), tty, state
 * (I/I</S/SN/S< as TASK_IDLE, nice and the session say) and `[name]` (a worker with its workqueue),
 * lines cut at 80 columns as on the guest's serial console.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { Machine } from '../../src/machine/machine';
import { splitArgs, straceValue } from '../../scripts/paths/strace';

interface Row { user: string; pid: number; vsz: string; rss: string; tty: string; stat: string; cmd: string }
const parse = (l: string): Row | null => {
  const m = /^(\S+)\s+(\d+)\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s(.*)$/.exec(l);
  return m ? { user: m[1], pid: Number(m[2]), vsz: m[3], rss: m[4], tty: m[5], stat: m[6], cmd: m[7] } : null;
};

describe('boot tasks: the real guest\'s kernel threads and services', function () {
  this.timeout(60000);
  const rec = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'data', 'recordings', 'ps.json.gz'))).toString('utf8')) as
    { strace: [number, number, string, string, string][] };
  const realOut = rec.strace.filter((l) => l[2] === 'write' && l[3].startsWith('1, "'))
    .map((l) => JSON.parse(l[3].slice(3, l[3].lastIndexOf('"') + 1).replace(/\\x([0-9a-f]{2})/g, '\\u00$1')) as string).join('');
  const real = realOut.split('\n').map(parse).filter((r): r is Row => r !== null);
  const sim = new Map(new Machine({ cpus: 4, seed: 1 }).run('ps aux').out.split('\n').map(parse).filter((r): r is Row => r !== null).map((r) => [r.pid, r]));

  it('every kernel thread of the guest, at its pid, as ps aux prints it', () => {
    const kthreads = real.filter((r) => r.cmd.startsWith('['));
    expect(kthreads.length).to.be.greaterThan(70);
    for (const r of kthreads) expect(sim.get(r.pid), `pid ${r.pid}`).to.deep.equal(r);
  });

  it('the services at the guest\'s pids, with their users and command lines', () => {
    for (const name of ['/lib/systemd/', '/usr/sbin/cro', '/usr/sbin/rsy', 'nginx: master', 'nginx: worker', 'sshd: /usr/sb']) {
      for (const r of real.filter((x) => x.cmd.startsWith(name))) {
        const s = sim.get(r.pid);
        expect(s, `pid ${r.pid}`).to.not.equal(undefined);
        expect([s!.user, s!.tty, s!.stat, s!.cmd]).to.deep.equal([r.user, r.tty, r.stat, r.cmd]);
      }
    }
  });

  // the recording's /proc/PID/stat lines (ps read each once after its openat): field 20 is num_threads
  const threadsOf = (text: string): number => Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[17]);
  const realThreads = new Map<number, number>();
  let cur = -1;
  for (const [, , name, args] of rec.strace) {
    if (name === 'openat') { const m = /"\/proc\/(\d+)\/stat"/.exec(args); cur = m ? Number(m[1]) : -1; continue; }
    if (name !== 'read' || cur < 0) continue;
    const v = straceValue(splitArgs(args)[1]);
    if (typeof v === 'string' && !realThreads.has(cur)) realThreads.set(cur, threadsOf(v));
    cur = -1;
  }

  it('each kernel thread and service with the recorded guest\'s thread count (rsyslogd: 4, ps aux Ssl)', () => {
    const m = new Machine({ cpus: 4, seed: 1 });
    const out = m.run('for p in 1 2 15 174 198 201 211 212 216; do cat /proc/$p/stat; echo; done').out;
    const simThreads = new Map(out.split('\n').filter((l) => l).map((l) => [Number(l.split(' ')[0]), threadsOf(l)] as [number, number]));
    expect(realThreads.get(201)).to.equal(4);
    for (const [pid, n] of simThreads) expect(n, `pid ${pid}`).to.equal(realThreads.get(pid));
    expect(sim.get(201)!.stat).to.equal('Ssl');
    // rsyslogd's other threads, after its pid (tar-gzip's events run: in:imuxsock at rsyslogd's pid + 1)
    expect([202, 203, 204].map((tid) => m.procs.tasks.get(tid)?.comm)).to.deep.equal(['in:imuxsock', 'in:imklog', 'rs:main Q:Reg']);
  });

  it('a fatal signal to a multi-threaded service ends every thread of it (zap_other_threads)', () => {
    const m = new Machine({ cpus: 4, seed: 1 });
    const out = m.run('kill -9 201; sleep 1; kill -0 201 2>/dev/null; echo $?').out;
    expect(out).to.equal('1\n');
    expect([201, 202, 203, 204].map((tid) => m.procs.tasks.has(tid))).to.deep.equal([false, false, false, false]);
  });
});
