/** Pipes (fs/pipe.c): pipe2, reads that wait for data or the last writer, writes that wait for room or fail with EPIPE (and SIGPIPE). */
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP, H_AGAIN } from '../paths/kexec';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { SIGPIPE } from '../include/signal';
import { OpenFile } from '../include/fs';
import { Pipe } from '../include/pipe_fs_i';
import { installFd } from '../include/fdtable';
import { pushWakeups, wakeLater } from '../kernel/sched/core';

const EBADF = 9, EPIPE = 32, EINTR = 4;

export const fsPipe = new Semantics<FsMachine>('fs/pipe');

// pipes: closing ends wakes the other side
function pipeFile(kind: 'pipe_r' | 'pipe_w', p: Pipe): OpenFile {
  const f = new OpenFile(kind, null, kind === 'pipe_r' ? 0 : 1);
  f.pipe = p;
  f.onClose = () => {
    if (kind === 'pipe_r') { p.readers--; for (const w of p.writeWait.splice(0)) wakeLater(w); }
    else { p.writers--; for (const w of p.readWait.splice(0)) wakeLater(w); }
  };
  return f;
}
fsPipe.syscall('pipe2', (_m, _c, t, e) => {
  const p = new Pipe();
  const r = installFd(t, pipeFile('pipe_r', p));
  const w = installFd(t, pipeFile('pipe_w', p));
  e.info = { fds: [r, w] };
  e.ret = 0;
  return H_CONT;
});
fsPipe.hook('pipe_read', (m, c, t, e) => {
  const f = e.file as OpenFile;
  const p = f.pipe;
  if (!p) { e.ret = -EBADF; return H_CONT; }
  if (p.bytes > 0) {
    const b = p.take(e.count as number);
    e.data = b; e.ret = b.length;
    const w = p.writeWait.splice(0);
    return pushWakeups(c, w);
  }
  const writers = p.writers;
  if (writers === 0) { e.data = new Uint8Array(0); e.ret = 0; return H_CONT; }
  if (t.sigPending & ~t.sigBlocked) { e.ret = -EINTR; return H_CONT; }
  p.readWait.push(t);
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'pipe_read';
  return H_SLEEP;
});
fsPipe.hook('pipe_write', (m, c, t, e) => {
  const f = e.file as OpenFile;
  const p = f.pipe;
  const b = e.buf as Uint8Array;
  const readers = p ? p.readers : 0;
  if (!p || readers === 0) {
    e.ret = -EPIPE;
    t.sigPending |= 1 << (SIGPIPE - 1);
    return H_CONT;
  }
  const done = e.done as number;
  const n = p.push(b.subarray(done));
  e.done = done + n;
  const waiters = p.readWait.splice(0);
  if ((e.done as number) < b.length && n === 0) {
    if (waiters.length) { pushWakeups(c, waiters); return H_AGAIN; }
    p.writeWait.push(t);
    t.state = TASK_INTERRUPTIBLE;
    t.wchan = 'pipe_write';
    return H_SLEEP;
  }
  e.ret = e.done as number;
  return pushWakeups(c, waiters);
});
