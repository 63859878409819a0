/**
 * The tasks a Debian 12 box has before anyone logs in, as the real guest showed them to `ps aux`
 * (data/userland/kthreads.json, scripts/userland/kthreads.ts): every kernel thread with its pid,
 * name, workqueue description, sleep state (I: TASK_IDLE, S), PF_* flags, nice, policy, CPU and start
 * time, and the pids of the boot services.  The recording is of a 4-CPU guest: for another CPU count
 * the per-CPU threads of the CPUs it lacks are left out, those of the CPUs it has more of are made as
 * CPU 3's are, and the unbound pools (kworker/uN) are renamed by their pool ids (2 per CPU).
 */
import * as fs from 'fs';
import { userlandDataFile } from '../process/ldso';

export interface BootKthread {
  pid: number; comm: string; wq: string; idle: boolean; flags: number; nice: number;
  policy: number; rtPriority: number; cpu: number; startNs: number;
  /** the CPU a per-CPU thread is bound to (its name's /N or kworker/N:M), else -1 */
  bound: number;
}
export interface BootService { pid: number; comm: string; startNs: number }

type Row = [number, string, string, string, number, number, number, number, number, number];
interface Data { kthreads: Row[]; services: { pid: number; comm: string; start: number }[] }

const RECORDED_CPUS = 4;
/** USER_HZ clock ticks, as /proc/PID/stat's starttime counts */
const TICK_NS = 10e6;

let data: Data | null = null;
function load(): Data {
  if (data) return data;
  const f = userlandDataFile('kthreads.json');
  data = f ? JSON.parse(fs.readFileSync(f, 'utf8')) as Data : { kthreads: [], services: [] };
  return data;
}

/** the CPU a per-CPU kthread's name binds it to: ksoftirqd/2, migration/2, cpuhp/2, kworker/2:1H */
export function boundCpuOf(comm: string): number {
  const m = /^(?:ksoftirqd|migration|cpuhp)\/(\d+)$/.exec(comm) ?? /^kworker\/(\d+):\d+H?$/.exec(comm);
  return m ? Number(m[1]) : -1;
}

/** The kernel threads of a machine with `ncpus` CPUs, in pid order (pid 0: allocate one). */
export function bootKthreads(ncpus: number): BootKthread[] {
  const out: BootKthread[] = [];
  const unbound = (comm: string): string => comm.replace(/^kworker\/u(\d+):/, (_m, p: string) => `kworker/u${2 * ncpus + Number(p) - 2 * RECORDED_CPUS}:`);
  const mk = (r: Row, comm: string, pid: number, cpu: number): BootKthread => ({
    pid, comm, wq: r[2], idle: r[3] === 'I', flags: r[4], nice: r[5], policy: r[6], rtPriority: r[7],
    cpu, startNs: r[9] * TICK_NS, bound: boundCpuOf(comm),
  });
  const last: Row[] = [];
  for (const r of load().kthreads) {
    const b = boundCpuOf(r[1]);
    if (b >= ncpus) continue;
    if (b === RECORDED_CPUS - 1) last.push(r);
    out.push(mk(r, unbound(r[1]), r[0], r[8] < ncpus ? r[8] : r[8] % ncpus));
  }
  // more CPUs than recorded: each extra CPU gets the per-CPU threads CPU 3 has
  for (let c = RECORDED_CPUS; c < ncpus; c++) {
    for (const r of last) out.push(mk(r, r[1].replace(/(\/)3(?=$|:)/, `$1${c}`), 0, c));
  }
  return out;
}

/** The boot services' recorded pids and start times, by comm (the first of a name). */
export function bootServices(): Map<string, BootService> {
  const m = new Map<string, BootService>();
  for (const s of load().services) if (!m.has(s.comm)) m.set(s.comm, { pid: s.pid, comm: s.comm, startNs: s.start * TICK_NS });
  return m;
}
