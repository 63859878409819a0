/**
 * poll(2) (fs/select.c do_sys_poll): each descriptor's ready events from its file's poll method
 * (sockets: tcp_poll/udp_poll, pipes: pipe_poll, /dev/null and terminals always ready), the caller
 * asleep on every queue it polls until one becomes ready, a signal, or the timeout.  The descriptors
 * and the events asked come with the call (`pfds`: [fd, events] pairs, fd < 0 ignored); the revents
 * go back in `info.revents`.
 */
import { TASK_INTERRUPTIBLE, type Task } from '../include/sched';
import type { Env } from '../include/kstack';
import type { OpenFile } from '../include/fs';
import { leaveQueues, type WaitQueue } from '../include/wait';
import { fdOf } from '../include/fdtable';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import type { CpuMachine } from '../include/cpu';
import { timedWake } from '../kernel/time';
import { TCP_ESTABLISHED, TCP_CLOSE_WAIT } from '../include/net';

const EINTR = 4;
export const POLLIN = 0x1, POLLOUT = 0x4, POLLERR = 0x8, POLLHUP = 0x10, POLLNVAL = 0x20;

export const fsSelect = new Semantics<CpuMachine>('fs/select');

/** the file's ready events and the queues a poller of `events` sleeps on */
function pollFile(f: OpenFile, events: number, queues: WaitQueue[]): number {
  let r = 0;
  if (f.sock) {
    const s = f.sock;
    if (s.pollIn) r |= POLLIN;
    if (s.err) r |= POLLERR;
    if (s.isTcp ? (s.state === TCP_ESTABLISHED || s.state === TCP_CLOSE_WAIT) && !s.finSent : !s.closed) r |= POLLOUT;
    if (s.isTcp && s.rxEof && s.finSent) r |= POLLHUP;
    queues.push(s.readWait, s.writeWait);
  } else if (f.pipe) {
    // pipe_poll by f_mode: a FIFO open O_RDWR is both
    const p = f.pipe;
    const acc = f.flags & 3;
    if (acc !== 1) {
      if (p.bytes > 0) r |= POLLIN;
      if (p.writers === 0 && f.version !== p.wCounter) r |= POLLHUP;
      queues.push(p.readWait);
    }
    if (acc !== 0) {
      if (p.bytes < 65536) r |= POLLOUT;
      if (p.readers === 0) r |= POLLERR;
      queues.push(p.writeWait);
    }
  } else r |= POLLIN | POLLOUT; // regular files, /dev/null, terminals: always ready
  return r & (events | POLLERR | POLLHUP);
}

/**
 * Nothing ready: 0 at once for a zero timeout or once the deadline passed (the first call sets it:
 * `timeoutNs` from now, negative none), EINTR for a pending signal, else asleep on every queue polled
 * (and the timer) in `wchan` until one wakes the caller, which then looks again.
 */
function waitReady(m: CpuMachine, t: Task, e: Env, queues: WaitQueue[], timeoutNs: number, wchan: string): number {
  if (timeoutNs === 0) { e.ret = 0; return H_CONT; }
  if (e.deadline === undefined) e.deadline = timeoutNs > 0 ? m.now + timeoutNs : -1;
  const deadline = e.deadline as number;
  if (deadline >= 0 && m.now >= deadline) { e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  for (const q of queues) q.push(t);
  e.pollQueues = queues;
  if (deadline >= 0) timedWake(m, t, deadline - m.now);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = wchan;
  return H_SLEEP;
}

fsSelect.syscall('poll', (m, _c, t, e) => {
  const pfds = (e.pfds as [number, number][] | undefined) ?? (e.pfd !== undefined ? [[Number(e.pfd), POLLIN]] as [number, number][] : []);
  const timeout = Number(e.a[2]);
  leaveQueues(t, (e.pollQueues as WaitQueue[] | undefined) ?? []);
  const queues: WaitQueue[] = [];
  const revents = pfds.map(([fd, ev]) => {
    if (fd < 0) return 0;
    const f = fdOf(t, fd);
    return f ? pollFile(f, ev, queues) : POLLNVAL;
  });
  const ready = revents.filter((r) => r !== 0).length;
  e.info = { revents };
  if (ready) { e.ret = ready; return H_CONT; }
  return waitReady(m, t, e, queues, timeout < 0 ? -1 : timeout * 1e6, 'do_sys_poll');
});

/**
 * pselect6(2) (fs/select.c core_sys_select, do_select) as glibc's select() issues it: the descriptor
 * sets come with the call (`rfds`, `wfds`: descriptor lists; none when nfds is 0), the timeout in
 * a[4] (ns; null or negative: none); it returns the number of ready descriptors (`info.ready`: those
 * descriptors), 0 at the timeout, EINTR for a signal.  util.c's msleep (dbench) is select with no
 * descriptors: a sleep until the timeout.
 */
fsSelect.syscall('pselect6', (m, _c, t, e) => {
  const rfds = (e.rfds as number[] | undefined) ?? [];
  const wfds = (e.wfds as number[] | undefined) ?? [];
  const timeout = e.a[4] === null || e.a[4] === undefined ? -1 : Number(e.a[4]);
  leaveQueues(t, (e.pollQueues as WaitQueue[] | undefined) ?? []);
  const queues: WaitQueue[] = [];
  const ready: number[] = [];
  for (const [fds, ev] of [[rfds, POLLIN], [wfds, POLLOUT]] as [number[], number][]) {
    for (const fd of fds) {
      const f = fdOf(t, fd);
      if (!f) { e.ret = -9; return H_CONT; } // EBADF
      if (pollFile(f, ev, queues) & (ev | POLLERR | POLLHUP)) ready.push(fd);
    }
  }
  e.info = { ready };
  if (ready.length) { e.ret = ready.length; return H_CONT; }
  return waitReady(m, t, e, queues, timeout, 'do_select');
});
