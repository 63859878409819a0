/**
 * The default system: init (systemd), the kernel threads of the real guest (boot_tasks.ts: kthreadd,
 * per-CPU cpuhp/N, migration/N with the watchdog, ksoftirqd/N, kworker/N:M running the periodic
 * delayed works, rcu_preempt, kswapd0, kcompactd0, jbd2/sda1-8, the writeback flusher, and the
 * workqueue rescuers, scsi_eh_N, kauditd ... that sleep on an idle box), and the services (journald,
 * sshd, cron, rsyslogd, nginx) with the real guest's pids, doing what the `idle` recording shows them
 * do on an idle Debian 12 box.
 */
import type { ProcMachine } from '../process/procs';
import type { ProgramMain } from '../process/user';
import type { Task, Process } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { OpenFile, O_WRONLY, O_APPEND } from '../include/fs';
import type { NetMachine } from '../net/core';
import { sockFile } from '../net/sock';
import { pushPath, newEnv } from '../paths/kexec';
import { KTimer, pushScheduleTimeout } from '../kernel/timer';
import { rcuGpKthread, type RcuMachine } from '../kernel/rcu';
import { DelayedWork, queueDelayed, workerThread } from '../kernel/workqueue';
import { shMain } from './sh/exec';
import { allProgramNames, programPath } from './fstree';
import { services, RSYSLOGD_THREADS, rsyslogdThread } from './programs/services';
import { bootKthreads, bootServices, type BootKthread } from './boot_tasks';
import { recordedServices, useRecordedService } from './service_mm';

/** A program module's table of mains, loaded (and its top-level code run) when first asked for. */
type ProgramModule = () => Record<string, ProgramMain>;

const core: ProgramModule = () => (require('./programs/core') as typeof import('./programs/core')).programs;
const coreutils: ProgramModule = () => (require('./programs/coreutils') as typeof import('./programs/coreutils')).coreutils;
const textutils: ProgramModule = () => (require('./programs/textutils') as typeof import('./programs/textutils')).textutils;
const fileutils: ProgramModule = () => (require('./programs/fileutils') as typeof import('./programs/fileutils')).fileutils;
const ls: ProgramModule = () => (require('./programs/ls') as typeof import('./programs/ls')).lsPrograms;
const stat: ProgramModule = () => ({ stat: (require('./programs/stat') as typeof import('./programs/stat')).stat });
const gzip: ProgramModule = () => (require('./programs/gzip') as typeof import('./programs/gzip')).gzipPrograms;
const ping: ProgramModule = () => ({ ping: (require('./programs/ping') as typeof import('./programs/ping')).ping });
const procps: ProgramModule = () => (require('./programs/procps') as typeof import('./programs/procps')).procps;
const sed: ProgramModule = () => (require('./programs/sed') as typeof import('./programs/sed')).sedPrograms;
const bench: ProgramModule = () => (require('./programs/bench') as typeof import('./programs/bench')).benchPrograms;
const dbench: ProgramModule = () => {
  const d = require('./programs/dbench') as typeof import('./programs/dbench');
  return { dbench: d.dbench, tbench: d.tbench, tbench_srv: (require('./programs/dbench_sockio') as typeof import('./programs/dbench_sockio')).tbenchSrv };
};
const tools: ProgramModule = () => (require('./programs/tools') as typeof import('./programs/tools')).toolPrograms;
const seedTools: ProgramModule = () => (require('./programs/seed_tools') as typeof import('./programs/seed_tools')).seedTools;
const traceCmd: ProgramModule = () => ({ 'trace-cmd': (require('./programs/trace_cmd') as typeof import('./programs/trace_cmd')).traceCmd });
const perf: ProgramModule = () => ({ perf: (require('./programs/perf') as typeof import('./programs/perf')).perf });
const mknod: ProgramModule = () => (require('./programs/mknod') as typeof import('./programs/mknod')).mknodPrograms;
const nc: ProgramModule = () => ({ nc: (require('./programs/nc') as typeof import('./programs/nc')).nc });
const small: ProgramModule = () => (require('./programs/coreutils_small') as typeof import('./programs/coreutils_small')).coreutilsSmall;
/** an nginx worker: its module loaded when a connection first wakes one */
const nginxWorkerMain: ProgramMain = function* (u) {
  return yield* (require('./programs/nginx') as typeof import('./programs/nginx')).nginxWorker(u);
};
/** the services (systemd, sshd, ...) run from boot on: loaded with the machine */
const boot: ProgramModule = () => services;

/**
 * Each program under /usr/bin and the module that holds it.  A module is loaded the first time one
 * of its programs runs (a `tapsim shell -c true` loads none of them: start-up, issue 17).  A program
 * a module exports that is not listed here would not exist in the machine (test/machine/workload
 * checks the two agree).  Only the names fstree.ts installs are programs (gcc is not among them;
 * gunzip, zcat and which are the Debian shell scripts of the recorded tree, userland/root_tree.ts).
 */
export const PROGRAM_MODULES: Readonly<Record<string, ProgramModule>> = {
  true: core, false: core, echo: core, cat: core, sleep: core, grep: core, head: core, tail: core, wc: textutils,
  xxd: core, dd: core, sync: core, pwd: core, uname: core, swapon: core, swapoff: core, kill: core, find: core,
  chmod: coreutils, ln: coreutils, readlink: coreutils, df: coreutils, du: coreutils, date: coreutils,
  id: coreutils, env: coreutils, tee: coreutils, seq: coreutils, tr: textutils, xargs: coreutils,
  cp: fileutils, mv: fileutils, rm: fileutils, mkdir: fileutils, touch: fileutils,
  ls, stat, ping, sed,
  gzip,
  ps: procps, free: procps, uptime: procps, dmesg: procps,
  block_hasher: bench, tbench_srv: dbench, tbench: dbench, dbench,
  tar: tools, make: tools, cc: tools, gcc: tools,
  mount: seedTools, mkswap: seedTools, cut: seedTools, sort: seedTools, uniq: seedTools, awk: seedTools, timeout: seedTools,
  'trace-cmd': traceCmd, perf, nc, mkfifo: mknod, mknod,
  basename: small, dirname: small, nproc: small, rmdir: small, printenv: small, tac: small, yes: small, whoami: small,
  hostname: small, md5sum: small, sha1sum: small, sha256sum: small, nice: small,
  killall5: () => ({ killall5: (require('./programs/pidof') as typeof import('./programs/pidof')).pidof }),
  systemd: boot, 'systemd-journald': boot, sshd: boot, rsyslogd: boot, nginx: boot, cron: boot,
};

/** `name`'s main, its module loaded on the first run. */
function lazyMain(name: string, load: ProgramModule): ProgramMain {
  let main: ProgramMain | undefined;
  return (u, argv) => (main ??= load()[name])(u, argv);
}

export function registerPrograms(m: ProcMachine): void {
  for (const name of allProgramNames()) {
    const load = PROGRAM_MODULES[name];
    const main = name === 'sh' || name === 'bash' ? shMain : load && lazyMain(name, load);
    if (main) m.procs.programs.set(programPath(name), main);
  }
}

/** The machine as the default system uses it: processes, and the kernel's timers and RCU. */
type SystemMachine = ProcMachine & RcuMachine & NetMachine;

function sleeper(m: ProcMachine): (t: Task) => void {
  return (t) => {
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'smpboot_thread_fn';
    pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
  };
}

/** migration/N: cpu_stopper_thread, woken by the watchdog's hrtimer to run softlockup_fn. */
function cpuStopper(): (t: Task) => void {
  return (t) => {
    if (t.scratch.due) { t.scratch.due = false; pushPath(t.ks, 'cpu_stopper_run', newEnv('stopper')); return; }
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'smpboot_thread_fn';
    pushPath(t.ks, 'smpboot_sleep', newEnv('sleep'));
  };
}

/**
 * The watchdog (kernel/watchdog.c): a per-CPU hrtimer every 2 * watchdog_thresh / 5 = 4 s that queues
 * softlockup_fn on the CPU's stopper thread (migration/N) and wakes it.
 */
function watchdog(m: SystemMachine, cpu: number, stopper: Task): void {
  const period = 4e9;
  const t = new KTimer('watchdog_timer_fn', (mm, _c, e) => {
    stopper.scratch.due = true;
    (e.wakes as Task[]).push(stopper);
    mm.timers.mod(t, cpu, t.expires + period);
  }, true);
  // the CPUs' watchdogs started one after another at boot (the recording: ~0.2 s apart)
  m.timers.mod(t, cpu, m.now + period * (cpu + 1) / m.ncpus + m.timers.rand.int(1e6));
}

/**
 * The periodic delayed works of an idle Debian 12 box (the `idle` recording's workqueue_queue_work
 * by function and CPU, timer_start timeouts): psi_avgs_work of four psi groups every PSI_FREQ (2 s),
 * neigh_managed_work of the ARP and ND tables every DELAY_PROBE_TIME (5 s), and the deferrable
 * vmstat_update (per CPU), vmstat_shepherd (CPU 0) every second and flush_memcg_stats_dwork every
 * FLUSH_TIME (2 s, unbound), which run when their CPU is awake anyway.
 */
function idleWorks(m: SystemMachine, unbound: number): DelayedWork[] {
  const w: DelayedWork[] = [];
  const on = (cpu: number) => cpu % m.ncpus;
  for (const cpu of [0, 2, 3, 3]) w.push(new DelayedWork('psi_avgs_work', 2e9 + 4e6, on(cpu), false));
  for (let i = 0; i < 2; i++) w.push(new DelayedWork('neigh_managed_work', 5e9, 0, false));
  for (const c of m.cpus) w.push(new DelayedWork('vmstat_update', 1e9, c.id, true));
  w.push(new DelayedWork('vmstat_shepherd', 1e9, 0, true));
  w.push(new DelayedWork('flush_memcg_stats_dwork', 2e9, unbound, true));
  for (const x of w) queueDelayed(m, x, m.timers.rand.int(x.period));
  return w;
}

/**
 * net/ipv4/tcp.c tcp_orphan_update: a deferrable timer every TCP_ORPHAN_TIMER_PERIOD (100 ms) that
 * re-arms itself from its callback (the recording: on CPU 1, when that CPU is awake).
 */
function tcpOrphanTimer(m: SystemMachine, cpu: number): void {
  const period = 100e6;
  const t = new KTimer('tcp_orphan_update', (mm, c) => { mm.timers.mod(t, c.id, mm.now + period); }, false, true);
  m.timers.mod(t, cpu, m.now + m.timers.rand.int(period));
}

/** What a boot kthread does, by its name; null: it sleeps for good (nothing on an idle box wakes it). */
type Role = (t: Task) => void;

export function startDefaultSystem(m: SystemMachine): void {
  registerPrograms(m);
  const init = m.procs.spawn(null, '/sbin/init', ['/sbin/init'], [null, null, null], { comm: 'systemd' });
  m.procs.init = init;
  registeredRseq(init.threads[0]);
  const svc = bootServices();
  init.threads[0].startTime = svc.get('systemd')?.startNs ?? 0;
  const works = idleWorks(m, m.ncpus - 1);
  tcpOrphanTimer(m, Math.min(1, m.ncpus - 1));
  const unboundName = `kworker/u${2 * m.ncpus}:`;
  // the per-CPU worker that runs the periodic works: the first kworker/N:M of each CPU
  const worker = new Map<number, Task>();
  let unboundWorker: Task | null = null;
  let kswapd: Task | null = null, kcompactd: Task | null = null;
  const kthreads = bootKthreads(m.ncpus);
  // the unbound workers of the boot set: the first runs the unbound periodic work, the second (kworker/uN:1) writes back
  const unbound = kthreads.filter((k) => k.comm.startsWith(unboundName));
  const unboundK = unbound[0], flushK = unbound[1] ?? unbound[0];
  const role = (k: BootKthread): Role | null => {
    const c = k.bound;
    if (k.comm === 'kthreadd') return sleeper(m);
    if (k.comm === 'rcu_preempt') return rcuGpKthread(m);
    if (/^migration\//.test(k.comm)) return cpuStopper();
    if (/^ksoftirqd\//.test(k.comm)) return sleeper(m);
    if (c >= 0 && /^kworker\/\d+:\d+$/.test(k.comm) && !worker.has(c)) return workerThread();
    if (k.comm === 'kswapd0') return kswapdBody(m);
    if (k.comm === 'kcompactd0') return kcompactdBody;
    if (k.comm === 'jbd2/sda1-8') return (t) => pushPath(t.ks, 'jbd2_commit', newEnv('jbd2'));
    if (k === flushK) return flusherBody(m);
    if (k === unboundK) return workerThread();
    return null;
  };
  for (const k of kthreads) {
    if (k.pid) m.procs.nextPid = k.pid;
    const body = role(k) ?? dormant;
    const t = m.procs.kthread(k.comm, body, k.bound >= 0 ? k.bound : k.cpu, k.nice);
    if (k.bound >= 0) t.boundCpu = k.bound;
    t.pflags = k.flags;
    t.idleSleep = k.idle;
    t.wqDesc = k.wq;
    t.startTime = k.startNs;
    if (k.policy) { t.policy = k.policy; t.rtPriority = k.rtPriority; t.prio = 99 - k.rtPriority; }
    if (k.comm === 'kthreadd') { m.procs.kthreadd = t; t.exitSignal = 0; }
    else if (k.comm === 'rcu_preempt') m.rcu.gpTask = t;
    else if (/^migration\//.test(k.comm)) watchdog(m, k.bound, t);
    else if (body !== dormant && /^kworker\/\d+:\d+$/.test(k.comm)) worker.set(k.bound, t);
    else if (k.comm === 'kswapd0') kswapd = t;
    else if (k.comm === 'kcompactd0') kcompactd = t;
    else if (k.comm === 'jbd2/sda1-8') m.procs.jbd2 = t;
    else if (k === flushK) t.wqDesc = 'flush-8:0'; // /proc/PID/comm and ps: wq_worker_comm of a writeback worker
    else if (k === unboundK) unboundWorker = t;
  }
  for (const w of works) w.worker = w.fn === 'flush_memcg_stats_dwork' ? unboundWorker : worker.get(w.cpu) ?? null;
  if (kswapd) m.mm.kswapd = kswapd;
  // kcompactd ran once at boot (kthread_run), arming its timeout; the flusher waits to be woken
  if (kcompactd) m.sched.wake(kcompactd);
  const root = [m.fs.devNullFile(), m.fs.devNullFile(), m.fs.devNullFile()];
  // the guest's address spaces and counters of the services (systemd's included), in its pid order by name
  const recorded = recordedServices();
  const asRecorded = (p: Process, comm: string): void => {
    const r = recorded.get(comm)?.shift();
    if (r) useRecordedService(m, p, r);
  };
  asRecorded(init, 'systemd');
  const service = (exe: string, argv: string[], comm: string): Process => {
    const s = svc.get(comm);
    if (s) m.procs.nextPid = s.pid;
    const p = m.procs.spawn(init, exe, argv, root, { comm });
    if (s) p.threads[0].startTime = s.startNs;
    registeredRseq(p.threads[0]);
    asRecorded(p, comm);
    return p;
  };
  service('/lib/systemd/systemd-journald', ['/lib/systemd/systemd-journald'], 'systemd-journal');
  const rsyslogd = service('/usr/sbin/rsyslogd', ['/usr/sbin/rsyslogd', '-n', '-iNONE'], 'rsyslogd');
  for (const comm of RSYSLOGD_THREADS) registeredRseq(m.procs.adoptThread(rsyslogd, comm, rsyslogdThread, 'ep_poll'));
  service('/usr/sbin/cron', ['/usr/sbin/cron', '-f'], 'cron');
  service('/usr/sbin/sshd', ['sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups'], 'sshd');
  const nginx = service('/usr/sbin/nginx', ['nginx: master process /usr/sbin/nginx -g daemon on; master_process on;'], 'nginx');
  // what the master opened before forking its workers: the logs (fds 3, 4) and the listening socket on
  // 0.0.0.0:80 (fd 5, listen backlog 511: NGX_LISTEN_BACKLOG)
  const lis = m.net.listenAtBoot(80, 511);
  const nginxFds = [
    new OpenFile('file', m.fs.lookup('/var/log/nginx/error.log'), O_WRONLY | O_APPEND),
    new OpenFile('file', m.fs.lookup('/var/log/nginx/access.log'), O_WRONLY | O_APPEND), sockFile(m, lis)];
  nginx.fds.push(...nginxFds);
  // nginx's workers (worker_processes auto: one per CPU), as www-data (uid 33), the pids after the
  // master's: asleep in epoll_wait on the listening socket (EPOLLEXCLUSIVE) from before the machine is
  // handed over; a connection wakes one of them (programs/nginx.ts)
  for (let i = 0; i < m.ncpus; i++) {
    const w = m.procs.adoptSleeper(nginx.tgid + 1 + i, 'nginx', '/usr/sbin/nginx', ['nginx: worker process'], nginxWorkerMain, 'ep_poll',
      { parent: nginx, uid: 33, cwd: '/' });
    w.threads[0].startTime = nginx.threads[0].startTime;
    registeredRseq(w.threads[0]);
    asRecorded(w, 'nginx');
    w.fds.push(...nginxFds.map((f) => f.dup()));
    lis.exclWait.push(w.threads[0]);
  }
  m.procs.nextPid = 5800 + m.rand.int(100);
}

/**
 * A service's thread registered its rseq area when it started (glibc 2.36 does for every thread: the
 * machine is handed over long after): its returns to user mode after a switch run the rseq work (the
 * idle recording: systemd's 10 rseq_update, one per wakeup from epoll_wait).
 */
function registeredRseq(t: Task): void {
  t.rseq = true;
}

/** A kernel thread with nothing to do on an idle box (rescuers, scsi_eh, kauditd ...): it sleeps until woken, and nothing wakes it. */
function dormant(t: Task): void {
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'kthread';
  pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
}

function kswapdBody(m: SystemMachine): (t: Task) => void {
  return (t) => {
    if (m.mm.freePages < m.mm.highPages) { pushPath(t.ks, 'kswapd_run', newEnv('kswapd')); return; }
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'kswapd_try_to_sleep';
    pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
  };
}

/** kcompactd: wait_event_freezable_timeout(HPAGE_FRAG_CHECK_INTERVAL_MSEC = 500 ms), then the proactive compaction check */
function kcompactdBody(t: Task): void {
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'kcompactd';
  pushPath(t.ks, 'kcompactd_wait', newEnv('kcompactd', { timeout: 500e6 }));
}

/**
 * The flusher: dirty_writeback_interval (5 s) while inodes are dirty (wb_wakeup_delayed), else only
 * when its CPU is awake anyway.  Its comm is kworker/uN:M (TASK_COMM_LEN 16: the real guest's ftrace
 * comm of its writeback bios is "kworker/u2:1" on 1 CPU).
 */
function flusherBody(m: SystemMachine): (t: Task) => void {
  return (t) => {
    if (t.scratch.due) { t.scratch.due = false; if (m.fs.dirty.size) { pushPath(t.ks, 'writeback_work', newEnv('writeback_work')); return; } }
    t.scratch.due = true;
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'worker_thread';
    pushScheduleTimeout(t, 5e9, m.fs.dirty.size === 0);
  };
}
