/**
 * The default system: init (systemd), kthreadd and per-CPU kthreads (ksoftirqd/N, migration/N,
 * kworker/N:M), rcu_sched, kswapd0, jbd2/sda1-8, writeback flusher, and services (journald,
 * sshd, cron, rsyslogd, nginx-like server) with periodic activity so probes see a live machine.
 */
import type { ProcMachine } from '../process/procs';
import type { ProgramMain } from '../process/user';
import type { Task } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { pushPath, newEnv } from '../paths/kexec';
import { timedWake } from '../kernel/time';
import { programs } from './programs/core';
import { benchPrograms } from './programs/bench';
import { toolPrograms } from './programs/tools';
import { services } from './programs/services';
import { seedTools } from './programs/seed_tools';
import { traceCmd } from './programs/trace_cmd';
import { perf } from './programs/perf';
import { shMain } from './sh/exec';
import { PROGRAM_NAMES, SEED_TOOL_NAMES, MORE_TOOL_NAMES } from './fstree';
import { coreutils } from './programs/coreutils';
import { fileutils } from './programs/fileutils';
import { stat } from './programs/stat';
import { gzipPrograms } from './programs/gzip';
import { ping } from './programs/ping';
import { procps } from './programs/procps';
import { sedPrograms } from './programs/sed';

export function registerPrograms(m: ProcMachine): void {
  const all: Record<string, ProgramMain> = {
    ...programs, ...coreutils, ...fileutils, stat, ...gzipPrograms, ping, ...procps, ...sedPrograms, ...benchPrograms, ...toolPrograms, ...seedTools, 'trace-cmd': traceCmd, perf, ...services,
    sh: shMain, bash: shMain,
  };
  for (const name of [...PROGRAM_NAMES, ...SEED_TOOL_NAMES, ...MORE_TOOL_NAMES]) {
    const main = all[name];
    if (main) m.procs.programs.set(`/usr/bin/${name}`, main);
  }
  m.procs.programs.set('/bin/sh', shMain);
}

/** A periodically-waking kernel thread running `pathName` every `period` ns (± jitter). */
function periodic(m: ProcMachine, pathName: string, period: number): (t: Task) => void {
  return (t) => {
    if (t.scratch.due) {
      t.scratch.due = false;
      pushPath(t.ks, pathName, newEnv(pathName));
      return;
    }
    t.scratch.due = true;
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'schedule_timeout';
    timedWake(m, t, period * (0.75 + m.rand.next() / 2));
    pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
  };
}

function sleeper(m: ProcMachine): (t: Task) => void {
  return (t) => {
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'smpboot_thread_fn';
    pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
  };
}

export function startDefaultSystem(m: ProcMachine): void {
  registerPrograms(m);
  const init = m.procs.spawn(null, '/usr/bin/systemd', ['/sbin/init'], [null, null, null], { comm: 'systemd' });
  m.procs.init = init;
  m.procs.kthreadd = m.procs.kthread('kthreadd', sleeper(m));
  m.procs.kthread('rcu_sched', periodic(m, 'rcu_gp', 12e6));
  for (const c of m.cpus) {
    m.procs.kthread(`migration/${c.id}`, sleeper(m), c.id);
    m.procs.kthread(`ksoftirqd/${c.id}`, sleeper(m), c.id);
    m.procs.kthread(`kworker/${c.id}:0`, periodic(m, 'kworker_work', 1e9), c.id);
    m.procs.kthread(`kworker/${c.id}:1H`, sleeper(m), c.id, -20);
  }
  const kswapd = m.procs.kthread('kswapd0', (t) => {
    if (m.mm.freePages < m.mm.highPages) { pushPath(t.ks, 'kswapd_run', newEnv('kswapd')); return; }
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'kswapd_try_to_sleep';
    pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
  });
  m.mm.kswapd = kswapd;
  m.procs.jbd2 = m.procs.kthread('jbd2/sda1-8', (t) => pushPath(t.ks, 'jbd2_commit', newEnv('jbd2')));
  m.procs.kthread('kworker/u8:1-flush-8:0', periodic(m, 'writeback_work', 5e9));
  const root = [m.fs.devNullFile(), m.fs.devNullFile(), m.fs.devNullFile()];
  m.procs.spawn(init, '/usr/bin/systemd-journald', ['/lib/systemd/systemd-journald'], root, { comm: 'systemd-journal' });
  m.procs.spawn(init, '/usr/bin/rsyslogd', ['/usr/sbin/rsyslogd', '-n'], root);
  m.procs.spawn(init, '/usr/bin/cron', ['/usr/sbin/cron', '-f'], root);
  m.procs.spawn(init, '/usr/bin/sshd', ['sshd: /usr/sbin/sshd -D'], root);
  m.procs.spawn(init, '/usr/bin/nginx', ['nginx: master process'], root);
  m.procs.nextPid = 5800 + m.rand.int(100);
}
