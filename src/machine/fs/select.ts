/**
 * poll(2) (fs/select.c do_sys_poll): each descriptor's ready events from its file's poll method
 * (sockets: tcp_poll/udp_poll, pipes: pipe_poll, /dev/null and terminals always ready), the caller
 * asleep on every queue it polls until one becomes ready, a signal, or the timeout.  The descriptors
 * and the events asked come with the call (`pfds`: [fd, events] pairs, fd < 0 ignored); the revents
 * go back in `info.revents`.
 */
import { TASK_INTERRUPTIBLE } from '../include/sched';
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
    const p = f.pipe;
    if (f.kind === 'pipe_r') {
      if (p.bytes > 0) r |= POLLIN;
      if (p.writers === 0) r |= POLLHUP;
      queues.push(p.readWait);
    } else {
      if (p.readers === 0) r |= POLLERR;
      else if (p.bytes < 65536) r |= POLLOUT;
      queues.push(p.writeWait);
    }
  } else r |= POLLIN | POLLOUT; // regular files, /dev/null, terminals: always ready
  return r & (events | POLLERR | POLLHUP);
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
  if (timeout === 0) { e.ret = 0; return H_CONT; }
  if (e.deadline === undefined) e.deadline = timeout > 0 ? m.now + timeout * 1e6 : -1;
  const deadline = e.deadline as number;
  if (deadline >= 0 && m.now >= deadline) { e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  for (const q of queues) q.push(t);
  e.pollQueues = queues;
  if (deadline >= 0) timedWake(m, t, deadline - m.now);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'do_sys_poll';
  return H_SLEEP;
});
