/**
 * System V semaphores (ipc/sem.c): semget(2) makes a set of `nsems` semaphores (IPC_PRIVATE: always a
 * new one), semop(2)/semtimedop(2) apply an array of operations atomically or sleep until they can
 * (a positive op adds, a negative one waits until the value covers it, a zero op waits for zero),
 * semctl(2) GETVAL/SETVAL/GETNCNT/GETZCNT/IPC_RMID (removal wakes the sleepers with EIDRM; later
 * calls on the id fail with EINVAL).  dbench 4.0 starts its clients this way (strace of Debian 12's
 * `dbench -t 1 -D /root 1`: semget(IPC_PRIVATE, 1, IPC_CREAT|0600), semop +1 with SEM_UNDO, the
 * children's semop 0, semctl GETZCNT polled by the parent, semop -1 releasing them, IPC_RMID).
 *
 * The programs pass the operations as `sops: [num, op, flg][]` (the struct sembuf array).
 */
import type { Task } from '../include/sched';
import { TASK_INTERRUPTIBLE } from '../include/sched';
import { Semantics } from '../paths/semantics';
import { H_CONT, H_SLEEP } from '../paths/kexec';
import { wakeTasks } from '../kernel/sched/core';
import type { CpuMachine, Cpu } from '../include/cpu';
import type { Env } from '../include/kstack';
import { perMachineIds } from './util';

const EINVAL = 22, EIDRM = 43, EAGAIN = 11, EINTR = 4, EFBIG = 27, ERANGE = 34;
const IPC_RMID = 0, GETNCNT = 14, GETZCNT = 15, GETVAL = 12, SETVAL = 16, IPC_NOWAIT = 0o4000;

/** one struct sem_array: the values and the tasks sleeping in semop */
type Sop = [number, number, number];
interface Waiter { t: Task; e: Env; sops: readonly Sop[] }
interface SemArray { id: number; vals: number[]; waiters: Waiter[]; removed: boolean }
/** a machine's semaphore ids (ipc_ids) */
const semIds = perMachineIds<SemArray>();

export const sem = new Semantics<CpuMachine>('ipc/sem');

sem.syscall('semget', (m, _c, _t, e) => {
  const ids = semIds(m);
  const nsems = Number(e.a[1]);
  if (nsems < 0 || nsems > 32000) { e.ret = -EINVAL; return H_CONT; }
  const s = ids.add((id) => ({ id, vals: new Array(nsems).fill(0), waiters: [], removed: false }));
  e.ret = s.id;
  return H_CONT;
});

/** perform_atomic_semop: all of `sops` or none; 0 done, 1 must sleep, <0 an error */
function tryOps(s: SemArray, sops: readonly Sop[]): number {
  const v = s.vals.slice();
  for (const [n, op] of sops) {
    if (n < 0 || n >= v.length) return -EFBIG;
    if (op === 0) { if (v[n] !== 0) return 1; continue; }
    if (v[n] + op < 0) return 1;
    if (v[n] + op > 32767) return -ERANGE;
    v[n] += op;
  }
  s.vals = v;
  return 0;
}
/**
 * update_queue / do_smart_update: the sleepers whose operations can run now complete them (in
 * queue order, each seeing the values the earlier ones left) and are woken with their result;
 * `removed`: all of them are woken with EIDRM (freeary).
 */
function wakeAll(c: Cpu, e: Env, s: SemArray, removed = false): number {
  const ts: Task[] = [];
  for (let again = true; again;) {
    again = false;
    for (const w of s.waiters.slice()) {
      const r = removed ? -EIDRM : tryOps(s, w.sops);
      if (r === 1) continue;
      w.e.semResult = r;
      s.waiters.splice(s.waiters.indexOf(w), 1);
      ts.push(w.t);
      if (r === 0) again = true;
    }
  }
  return ts.length ? wakeTasks(c, e, ts) : H_CONT;
}

function semop(m: CpuMachine, c: Cpu, t: Task, e: Env): number {
  // woken: the operations were done (or failed) by the call that woke it
  if (typeof e.semResult === 'number') { e.ret = e.semResult; return H_CONT; }
  const s = semIds(m).objs.get(Number(e.a[0]));
  if (!s || s.removed) { e.ret = -EINVAL; return H_CONT; }
  const sops = (e.sops as Sop[] | undefined) ?? [];
  const r = tryOps(s, sops);
  if (r < 0) { e.ret = r; return H_CONT; }
  if (r === 0) { e.ret = 0; return wakeAll(c, e, s); }
  if (sops.some(([, , f]) => f & IPC_NOWAIT)) { e.ret = -EAGAIN; return H_CONT; }
  if (e.slept && (t.sigPending & ~t.sigBlocked)) { e.ret = -EINTR; return H_CONT; }
  e.slept = true;
  if (!s.waiters.some((w) => w.t === t)) s.waiters.push({ t, e, sops });
  t.state = TASK_INTERRUPTIBLE;
  t.wchan = 'do_semtimedop';
  return H_SLEEP;
}
sem.syscall('semtimedop', semop);
sem.syscall('semop', semop);

sem.syscall('semctl', (m, c, _t, e) => {
  const ids = semIds(m);
  const s = ids.objs.get(Number(e.a[0]));
  if (!s || s.removed) { e.ret = -EINVAL; return H_CONT; }
  const n = Number(e.a[1]), cmd = Number(e.a[2]) & 0xff;
  switch (cmd) {
    case IPC_RMID:
      s.removed = true;
      ids.objs.delete(s.id);
      e.ret = 0;
      return wakeAll(c, e, s, true);
    case GETVAL: e.ret = s.vals[n] ?? -EINVAL; return H_CONT;
    case GETZCNT: e.ret = s.waiters.filter((w) => w.sops.some(([k, op]) => k === n && op === 0)).length; return H_CONT;
    case GETNCNT: e.ret = s.waiters.filter((w) => w.sops.some(([k, op]) => k === n && op < 0)).length; return H_CONT;
    case SETVAL:
      if (n < 0 || n >= s.vals.length) { e.ret = -EINVAL; return H_CONT; }
      s.vals[n] = Number(e.a[3]);
      e.ret = 0;
      return wakeAll(c, e, s);
    default: e.ret = -EINVAL; return H_CONT;
  }
});
