/**
 * The services of the default system as the `idle` recording shows them on an idle Debian 12 box:
 * systemd wakes every 500 ms on a timerfd in its event loop (epoll_wait, read of the timerfd, gettid,
 * timerfd_settime: the recording's only service syscalls) and reaps exited children; journald,
 * rsyslogd, sshd and nginx wait in their event loops for work that never comes on an idle box (a
 * signal ends the wait); cron wakes once a minute to look at its crontab.
 */
import type { ProgramMain } from '../../process/user';

/** systemd's periodic event-loop timer (the recording: timerfd_tmrproc every 500 ms) */
const SYSTEMD_TIMER_NS = 500e6;
const CLOCK_MONOTONIC = 1, TFD_NONBLOCK_CLOEXEC = 0o4004000, TFD_TIMER_ABSTIME = 1;

/** A daemon idling in its event loop: epoll_wait with no timeout, again after a signal. */
const eventLoop: ProgramMain = function* (u) {
  for (;;) yield* u.epollWait(-1);
};

export const services: Record<string, ProgramMain> = {
  systemd: function* (u) {
    const tfd = (yield* u.sys('timerfd_create', [CLOCK_MONOTONIC, TFD_NONBLOCK_CLOEXEC])).ret;
    yield* u.sys('timerfd_settime', [tfd, TFD_TIMER_ABSTIME, SYSTEMD_TIMER_NS, 0]);
    for (;;) {
      const r = yield* u.sys('epoll_wait', [4, 0, 64, -1]);
      // SIGCHLD (its signalfd): reap every exited child
      while (u.t.proc.children.some((c) => c.exited && !c.reaped)) {
        const [pid] = yield* u.wait(-1, true);
        if (pid <= 0) break;
      }
      if (!(r.info as { timers?: number } | undefined)?.timers) continue;
      yield* u.read(tfd, 8);
      yield* u.sys('gettid', []);
      yield* u.sys('timerfd_settime', [tfd, TFD_TIMER_ABSTIME, SYSTEMD_TIMER_NS, 0]);
    }
  },
  'systemd-journald': eventLoop,
  sshd: eventLoop,
  rsyslogd: eventLoop,
  nginx: eventLoop,
  cron: function* (u) {
    for (;;) {
      yield* u.nanosleep(60e9);
      const fd = yield* u.open('/etc/crontab');
      yield* u.read(fd, 4096);
      yield* u.close(fd);
    }
  },
};
