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

/**
 * rsyslogd's other threads (rsyslog 8.2302 with bookworm's rsyslog.conf, which loads imuxsock and
 * imklog): an input thread per input module, named "in:MODULE", and the main queue's worker,
 * "rs:main Q:Reg".  The ps recording's /proc/201/stat counts 4 threads (ps aux: Ssl), and tar-gzip's
 * events run shows in:imuxsock at the pid after rsyslogd's; the order of the other two tids is not
 * recorded (taken in the order the configuration starts them).  Nothing on an idle box wakes them
 * (the idle recording shows none of them run); like the services' main threads, each waits in the
 * machine's event-loop wait (epoll_wait), for rsyslog's poll, /proc/kmsg read and futex wait.
 */
export const RSYSLOGD_THREADS: readonly string[] = ['in:imuxsock', 'in:imklog', 'rs:main Q:Reg'];
export const rsyslogdThread: ProgramMain = eventLoop;

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
