/**
 * timerfd (fs/timerfd.c) and the part of epoll_wait (fs/eventpoll.c) the idle system's services use:
 * a timerfd is an hrtimer (timerfd_tmrproc) whose expirations a read(2) returns as a u64; epoll_wait
 * of a process holding timerfds sleeps until one has expired, a child exited (the SIGCHLD signalfd
 * systemd watches) or a signal arrives; with nothing to wait for it sleeps until a signal (a daemon
 * idling in its event loop) or for its timeout. The sockets a caller's epoll set watches for EPOLLIN
 * come with the call (`socks`: nginx's listening and connection sockets, userland/programs/nginx.ts).
 */
import type { Task, Process } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { OpenFile, O_RDWR } from '../include/fs';
import { installFd, fdOf } from '../include/fdtable';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import { KTimer, type TimerMachine } from '../kernel/timer';
import { timedWake } from '../kernel/time';
import type { PseudoOpen } from '../../kernel/tracefs/vfs';
import type { Sock } from '../include/net';
import { leaveQueues } from '../include/wait';

const EBADF = 9, EINTR = 4, EINVAL = 22;

/** One timerfd: its hrtimer, expirations not yet read, the tasks waiting in epoll_wait. */
class TimerFd {
  ticks = 0;
  interval = 0;
  readonly timer: KTimer;
  constructor(readonly proc: Process) {
    this.timer = new KTimer('timerfd_tmrproc', (m, _c, e) => {
      this.ticks++;
      if (this.interval > 0) m.timers.mod(this.timer, this.timer.cpu, this.timer.expires + this.interval);
      const w = waiters.get(this.proc);
      if (w) { waiters.delete(this.proc); (e.wakes as Task[]).push(...w); }
    }, true);
  }
}
const timerfds = new WeakMap<Process, TimerFd[]>();
const byFile = new WeakMap<OpenFile, TimerFd>();
const waiters = new WeakMap<Process, Task[]>();

export const timerfd = new Semantics<TimerMachine>('fs/timerfd');

timerfd.syscall('timerfd_create', (_m, _c, t, e) => {
  const tf = new TimerFd(t.proc);
  const f = new OpenFile('dev', null, O_RDWR);
  const pseudo: PseudoOpen = {
    read: (n) => {
      // a non-blocking timerfd with nothing expired (-EAGAIN): no bytes
      if (n < 8 || !tf.ticks) return new Uint8Array(0);
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt(tf.ticks), true);
      tf.ticks = 0;
      return b;
    },
    write: () => -EINVAL,
    release: () => 0,
  };
  f.pseudo = pseudo;
  f.anon = { name: '[timerfd]', fops: 'timerfd_fops' };
  byFile.set(f, tf);
  const l = timerfds.get(t.proc) ?? [];
  l.push(tf);
  timerfds.set(t.proc, l);
  e.ret = installFd(t, f);
  return H_CONT;
});

/** timerfd_settime(fd, flags, value ns, interval ns): arm (0: disarm) the timer on this CPU. */
timerfd.syscall('timerfd_settime', (m, c, t, e) => {
  const f = fdOf(t, e.a[0]);
  const tf = f ? byFile.get(f) : undefined;
  if (!tf) { e.ret = f ? -EINVAL : -EBADF; return H_CONT; }
  const ns = Number(e.a[2] ?? 0);
  tf.interval = Number(e.a[3] ?? 0);
  if (ns > 0) m.timers.mod(tf.timer, c.id, m.now + ns); else m.timers.del(tf.timer);
  e.hrfn = 'timerfd_tmrproc';
  e.ret = 0;
  return H_CONT;
});

timerfd.syscall('epoll_wait', (m, _c, t, e) => {
  const tfs = timerfds.get(t.proc) ?? [];
  // the sockets of the caller's epoll set (e.socks, EPOLLIN; e.excl: added with EPOLLEXCLUSIVE)
  const socks = (e.socks as Sock[] | undefined) ?? [];
  for (const s of socks) leaveQueues(t, [s.readWait, s.exclWait]);
  // the ready events (epoll_event data): expired timerfds, a child exit, readable sockets
  const timers = tfs.filter((x) => x.ticks > 0).length;
  const ready = timers + (hasZombie(t.proc) ? 1 : 0) + socks.filter((s) => s.pollIn).length;
  if (ready) { e.ret = ready; e.info = { timers }; return H_CONT; }
  const timeout = Number(e.a[3] ?? -1);
  if (e.slept) {
    if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
    if (timeout >= 0) { e.ret = 0; return H_CONT; }
  }
  if (timeout === 0) { e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  const w = waiters.get(t.proc) ?? [];
  if (!w.includes(t)) w.push(t);
  waiters.set(t.proc, w);
  // a child's exit wakes it as wait4's waiters are woken (systemd's SIGCHLD signalfd is in its epoll set)
  if (!t.proc.waitq.includes(t)) t.proc.waitq.push(t);
  for (const s of socks) (e.excl ? s.exclWait : s.readWait).push(t);
  if (timeout > 0) timedWake(m, t, timeout * 1e6);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'ep_poll';
  return H_SLEEP;
});

function hasZombie(p: Process): boolean {
  return p.children.some((c) => !c.reaped && c.exited);
}

