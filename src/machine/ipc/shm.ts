/**
 * System V shared memory (ipc/shm.c): shmget(2) makes a segment of `size` bytes (IPC_PRIVATE: always
 * a new one), shmat(2) maps it shared into the caller (`/SYSV<key>` in /proc/<pid>/maps; `(deleted)`
 * once removed), shmctl(2) IPC_RMID marks it for removal (it lives on while attached; later calls on
 * the id fail with EINVAL).  dbench 4.0 keeps its children's status there (strace of Debian 12's
 * dbench: shmget(IPC_PRIVATE, 552, 0600), shmat(id, NULL, 0), shmctl(id, IPC_RMID, NULL)).
 */
import type { MmMachine } from '../mm/mm';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { PAGE } from '../include/fs';
import { perMachineIds } from './util';

const EINVAL = 22, ENOMEM = 12;
const IPC_RMID = 0, SHM_RDONLY = 0o10000;
const PROT_READ = 1, PROT_RW = 3;

/** one struct shmid_kernel */
interface Segment { id: number; key: number; size: number; removed: boolean }
/** a machine's shm ids (ipc_ids) */
const shmIds = perMachineIds<Segment>();

export const shm = new Semantics<MmMachine>('ipc/shm');

shm.syscall('shmget', (m, _c, _t, e) => {
  const size = Number(e.a[1]);
  if (size <= 0 || size > 2 ** 46) { e.ret = -EINVAL; return H_CONT; }
  const ids = shmIds(m);
  const s = ids.add((id) => ({ id, key: Number(e.a[0]), size, removed: false }));
  e.ret = s.id;
  return H_CONT;
});

shm.syscall('shmat', (m, _c, t, e) => {
  const s = shmIds(m).objs.get(Number(e.a[0]));
  const mm = t.proc.mm;
  if (!s || s.removed) { e.ret = -EINVAL; return H_CONT; }
  if (!mm) { e.ret = -ENOMEM; return H_CONT; }
  const pages = Math.ceil(s.size / PAGE);
  const start = Number(e.a[1]) || mm.place(pages);
  const label = `/SYSV${s.key.toString(16).padStart(8, '0')}`;
  const r = mm.mapAt(`shm${s.id}`, start, pages, Number(e.a[2]) & SHM_RDONLY ? PROT_READ : PROT_RW, null, 0, label);
  r.shared = true;
  e.ret = start;
  return H_CONT;
});

shm.syscall('shmctl', (m, _c, _t, e) => {
  const ids = shmIds(m);
  const s = ids.objs.get(Number(e.a[0]));
  if (!s || s.removed) { e.ret = -EINVAL; return H_CONT; }
  if ((Number(e.a[1]) & 0xff) === IPC_RMID) {
    s.removed = true;
    ids.objs.delete(s.id);
    e.ret = 0;
    return H_CONT;
  }
  e.ret = -EINVAL;
  return H_CONT;
});
