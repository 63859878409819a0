/** The services of the default system (systemd, journald, sshd, cron, rsyslogd, an nginx-like server): periodic activity so probes see a live machine. */
import type { ProgramMain } from '../../process/user';
import { O_APPEND, O_CREAT, O_WRONLY } from '../../include/fs';

export const services: Record<string, ProgramMain> = {
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
