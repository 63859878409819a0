/**
 * The default system: init (systemd), kthreadd and per-CPU kthreads (ksoftirqd/N, migration/N,
 * kworker/N:M), rcu_sched, kswapd0, jbd2/sda1-8, writeback flusher, and services (journald,
 * sshd, cron, rsyslogd, nginx-like server) with periodic activity so probes see a live machine.
 */
import type { Machine } from '../machine';
import type { U } from '../process/user';
import type { Prog, Task } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { pushPath, newEnv } from '../paths/kexec';
import { timedWake } from '../fs/read_write';
import { programs } from './programs/core';
import { benchPrograms } from './programs/bench';
import { toolPrograms } from './programs/tools';
import { O_APPEND, O_CREAT, O_WRONLY } from '../process/user';
import { PROGRAM_NAMES } from './fstree';

export function registerPrograms(m: Machine): void {
  const all = { ...programs, ...benchPrograms, ...toolPrograms, ...services };
  for (const name of PROGRAM_NAMES) {
    const main = all[name];
    if (main) m.procs.programs.set(`/usr/bin/${name}`, main);
  }
  m.procs.programs.set('/bin/sh', programs.sh);
}

/** A periodically-waking kernel thread running `pathName` every `period` ns (± jitter). */
function periodic(m: Machine, pathName: string, period: number): (t: Task) => void {
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

function sleeper(m: Machine): (t: Task) => void {
  return (t) => {
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'smpboot_thread_fn';
    pushPath(t.ks, 'kthread_sleep', newEnv('sleep'));
  };
}

const services: Record<string, (u: U, argv: string[]) => Prog> = {
  systemd: function* (u) {
    for (;;) {
      const [r] = yield* u.wait(-1);
      if (r < 0) yield* u.nanosleep(5e9);
    }
  },
  'systemd-journald': function* (u) {
    const fd = yield* u.open('/var/log/syslog', O_WRONLY | O_CREAT | O_APPEND);
    for (let i = 0; ; i++) {
      yield* u.epollWait(0);
      yield* u.nanosleep(400e6 + (i % 7) * 100e6);
      yield* u.write(fd, `Jan  1 00:00:${String(i % 60).padStart(2, '0')} debian systemd-journald[${u.pid}]: message ${i}\n`);
      yield* u.cpu(30000);
    }
  },
  sshd: function* (u) {
    for (;;) { yield* u.nanosleep(2e9); yield* u.cpu(5000); }
  },
  cron: function* (u) {
    for (;;) {
      yield* u.nanosleep(60e9);
      const fd = yield* u.open('/etc/crontab');
      yield* u.read(fd, 4096);
      yield* u.close(fd);
    }
  },
  rsyslogd: function* (u) {
    for (;;) { yield* u.nanosleep(1e9); yield* u.cpu(8000); }
  },
  nginx: function* (u) {
    for (let i = 0; ; i++) {
      yield* u.nanosleep(50e6 + (i % 5) * 20e6);
      const fd = yield* u.open('/var/www/html/index.html');
      yield* u.read(fd, 4096);
      yield* u.close(fd);
      yield* u.cpu(40000);
    }
  },
};

export function startDefaultSystem(m: Machine): void {
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
