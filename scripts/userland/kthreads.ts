/**
 * `node dist/scripts/userland/kthreads.js`: data/userland/kthreads.json, the tasks the real Debian 12
 * guest runs before any workload: every kernel thread (children of kthreadd, and kthreadd itself) and
 * the boot services, as `/proc/PID/stat` showed them to the `ps aux` workload's strace run
 * (data/recordings/ps.json.gz, scripts/record/FORMAT.md): pid, comm (with a workqueue worker's
 * description after its name, wq_worker_comm), state letter, task flags (PF_*), nice, policy and
 * rt_priority, the CPU it last ran on, and its start time (clock ticks after boot).
 * The recorder's own tasks (recorder-run, its shells, strace, sleep, ps) are left out.
 */
import * as fs from 'fs';
import * as path from 'path';
import { findRecording, loadRecording } from '../record/recording';
import { splitArgs, straceValue } from '../paths/strace';

/** one task: [pid, comm, wq description, state, flags, nice, policy, rt_priority, cpu, start ticks] */
export type KthreadRow = [number, string, string, string, number, number, number, number, number, number];
export interface KthreadData { from: string; kthreads: KthreadRow[]; services: { pid: number; comm: string; start: number }[] }

/** the stat lines ps read, by pid (the first read of each /proc/PID/stat after its openat) */
function statLines(lines: [number, number, string, string, string][]): Map<number, string> {
  const out = new Map<number, string>();
  let cur = -1;
  for (const [, , name, args] of lines) {
    if (name === 'openat') {
      const m = /"\/proc\/(\d+)\/stat"/.exec(args);
      cur = m ? Number(m[1]) : -1;
      continue;
    }
    if (name === 'read' && cur >= 0 && !out.has(cur)) {
      const v = straceValue(splitArgs(args)[1]);
      if (typeof v === 'string') out.set(cur, v);
      cur = -1;
    }
  }
  return out;
}

const RECORDER = new Set(['recorder-run', 'sh', 'strace', 'sleep', 'ps']);

export function kthreadData(): KthreadData {
  const e = findRecording('ps');
  if (!e) throw new Error('no ps recording in data/recordings');
  const r = loadRecording(e);
  const kthreads: KthreadRow[] = [];
  const services: KthreadData['services'] = [];
  for (const [pid, text] of statLines(r.strace as [number, number, string, string, string][])) {
    const close = text.lastIndexOf(')');
    const name = text.slice(text.indexOf('(') + 1, close);
    const f = text.slice(close + 2).trim().split(' ');
    // f[0] is field 3 (state): field N is f[N - 3]
    const ppid = Number(f[1]);
    const start = Number(f[19]);
    if (pid === 2 || ppid === 2) {
      const dash = /^kworker\//.test(name) ? name.indexOf('-') : -1;
      const comm = dash > 0 ? name.slice(0, dash) : name;
      const wq = dash > 0 ? name.slice(dash + 1) : '';
      kthreads.push([pid, comm, wq, f[0], Number(f[6]), Number(f[16]), Number(f[38]), Number(f[37]), Number(f[36]), start]);
    } else if (!RECORDER.has(name)) {
      services.push({ pid, comm: name, start });
    }
  }
  kthreads.sort((a, b) => a[0] - b[0]);
  services.sort((a, b) => a.pid - b.pid);
  return { from: 'data/recordings/ps.json.gz (strace run: /proc/PID/stat as ps aux read it)', kthreads, services };
}

if (require.main === module) {
  const out = path.join(__dirname, '..', '..', '..', 'data', 'userland', 'kthreads.json');
  const d = kthreadData();
  const rows = d.kthreads.map((k) => `    ${JSON.stringify(k)}`).join(',\n');
  fs.writeFileSync(out, `{\n  "from": ${JSON.stringify(d.from)},\n  "kthreads": [\n${rows}\n  ],\n  "services": ${JSON.stringify(d.services)}\n}\n`);
  console.log(`${out}: ${d.kthreads.length} kernel threads, ${d.services.length} services`);
}
