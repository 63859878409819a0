/**
 * dbench 4.0 (Debian 12's dbench 4.0-2.1; dbench.c, child.c, fileio.c): NPROCS clients replay the
 * NetBench load file (/usr/share/dbench/client.txt) against the filesystem under -D for -t seconds.
 * What the real binary does, syscall by syscall (strace of `dbench -t 1 -D /root 1` in the Debian 12
 * guest, data/recordings/dbench.json.gz, and the 4.0 source):
 *   main: the banner and the settings on a line-buffered stdout; create_procs opens the load file,
 *   keeps the children's status in System V shared memory (shmget/shmat/shmctl IPC_RMID) and starts
 *   them on a semaphore barrier (semget, semop +1 SEM_UNDO, fork, semctl GETZCNT polled every 100 ms
 *   until every child waits, semop -1, IPC_RMID); SIGALRM every second prints the progress line and
 *   ends the run after the time limit (the children see `done` in the shared status); waitpid, the
 *   final progress line, the operation table, the throughput line; atexit's semctl IPC_RMID (EINVAL).
 *   child: semop 0 (wait for the release), semctl IPC_RMID (EINVAL: removed already), getppid,
 *   fopen of the load file; per line kill(parent, 0), then the operation (fileio.c: resolve_name's
 *   stat and, for a name not found, the scan of its directory; open/mkdir/pwrite/pread/fstat/statfs/
 *   rename/unlink/fsync/utime/fcntl); at the end of the file rewind; when done, fclose and the
 *   cleanup: deltree of clients/clientN (stat and unlink of each file, its subdirectories recursed)
 *   and rmdir of clients.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Prog, Op, SysResult } from '../../include/sched';
import { gForm } from '../libc_printf';

type G<T> = Generator<Op, T, SysResult>;

const O_RDONLY = 0, O_RDWR = 2, O_CREAT = 0o100, O_TRUNC = 0o1000, O_DIRECTORY = 0o200000;
/** opendir(3): O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY */
const OPENDIR = 0o4000 | 0o2000000 | O_DIRECTORY;
const EISDIR = 21, SIGALRM = 14;
const IPC_PRIVATE = 0, IPC_CREAT = 0o1000, IPC_RMID = 0, GETZCNT = 15, SEM_UNDO = 0x1000;
const FILE_OPEN = 1, FILE_CREATE = 2, FILE_OVERWRITE = 4, FILE_OVERWRITE_IF = 5, FILE_DIRECTORY_FILE = 1;
const F_SETLKW = 7;
const LOADFILE = '/usr/share/dbench/client.txt';
/** sizeof(struct child_struct) of the amd64 build: shmget's size is NPROCS times it (552 for one) */
const CHILD_STRUCT = 552;

/** The operations of the report table, in dbench.c's op_names order. */
const OPS = ['NTCreateX', 'Close', 'Rename', 'Unlink', 'Deltree', 'Rmdir', 'Mkdir', 'Qpathinfo', 'Qfileinfo', 'Qfsinfo',
  'Sfileinfo', 'Find', 'WriteX', 'ReadX', 'LockX', 'UnlockX', 'Flush'] as const;
type OpName = typeof OPS[number];
interface OpStat { count: number; total: number; max: number }

/** struct child_struct: what a child shares with the parent (the shared memory segment) */
interface Child {
  id: number; line: number; bytes: number; done: boolean; cleanupFinished: boolean;
  ops: Record<OpName, OpStat>;
}

/** stdio's fgets on a FILE opened "r": reads of BUFSIZ (st_blksize, 4096) as the buffer empties */
class LineReader {
  private buf = '';
  private statted = false;
  constructor(readonly fd: number) {}
  *gets(u: U): G<string | null> {
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl >= 0) { const l = this.buf.slice(0, nl); this.buf = this.buf.slice(nl + 1); return l; }
      if (!this.statted) { this.statted = true; yield* u.fstat(this.fd); }
      const r = yield* u.read(this.fd, 4096);
      if (r.ret <= 0 || !r.data) { const l = this.buf; this.buf = ''; return l.length ? l : null; }
      this.buf += Buffer.from(r.data).toString('latin1');
    }
  }
  /** rewind(3): back to the start, the buffer dropped */
  *rewind(u: U): G<void> {
    this.buf = '';
    yield* u.lseek(this.fd, 0, 0);
  }
}

/** next_token with " " separators and quotes, as dbench's util.c splits a load file line */
function tokens(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ') i++;
    if (i >= line.length) break;
    let tok = '';
    let quoted = false;
    for (; i < line.length && (quoted || line[i] !== ' '); i++) {
      if (line[i] === '"') { quoted = !quoted; continue; }
      tok += line[i];
    }
    out.push(tok);
  }
  return out;
}

const zeros = new Map<number, Uint8Array>();
const zeroBuf = (n: number): Uint8Array => { let b = zeros.get(n); if (!b) zeros.set(n, b = new Uint8Array(n)); return b; };

/** One client process: child_run with the fileio backend. */
function* clientRun(u: U, child: Child, dir: string, parent: number): Prog {
  const files = new Map<number, { fd: number; name: string }>();
  const cname = `client${child.id}`;
  const ival = (s: string | undefined): number => { const v = Number.parseInt(s ?? '0', s?.startsWith('0x') ? 16 : 10); return Number.isNaN(v) ? 0 : v; };
  const expectOk = (status: string): boolean => status === 'NT_STATUS_OK' || (status.startsWith('0x') && Number.parseInt(status, 16) === 0);

  /** opendir, readdir to the end (or `stop`), closedir: the names read */
  const scan = function* (d: string, stop?: (n: string) => boolean): G<string[] | null> {
    const fd = (yield* u.sys('openat', [-100, d, OPENDIR])).ret;
    if (fd < 0) return null;
    yield* u.fstat(fd);
    const names: string[] = [];
    for (;;) {
      const r = yield* u.sys('getdents64', [fd, 0, 32768]);
      if (r.ret <= 0) break;
      const got = (r.info?.names as string[]) ?? [];
      names.push(...got);
      if (stop && got.some(stop)) break;
    }
    yield* u.close(fd);
    return names;
  };
  /** pvfs_resolve_name's simulation: stat, and for a name not found a case-insensitive scan of its directory */
  const resolve = function* (name: string): G<void> {
    if (typeof (yield* u.stat(name)) !== 'number') return;
    const slash = name.lastIndexOf('/');
    if (slash < 0) return;
    const want = name.slice(slash + 1).toLowerCase();
    yield* scan(name.slice(0, slash), (n) => n.toLowerCase() === want);
  };
  const handle = (h: number): { fd: number; name: string } => {
    const f = files.get(h);
    if (!f) throw new Error(`dbench: handle ${h} was not found`);
    return f;
  };
  const deltree = function* (d: string): G<void> {
    const fd = (yield* u.sys('openat', [-100, d, OPENDIR])).ret;
    if (fd < 0) return;
    yield* u.fstat(fd);
    for (;;) {
      const r = yield* u.sys('getdents64', [fd, 0, 32768]);
      if (r.ret <= 0) break;
      for (const n of (r.info?.names as string[]) ?? []) {
        if (n === '.' || n === '..') continue;
        const p = `${d}/${n}`;
        const st = yield* u.stat(p);
        if (typeof st === 'number') continue;
        if (st.isDir) yield* deltree(p);
        else yield* u.sys('unlink', [p]);
      }
    }
    yield* u.close(fd);
  };

  const op = function* (params: string[], fname: string, fname2: string, status: string): G<OpName | null> {
    switch (params[0]) {
      case 'NTCreateX': {
        const opts = ival(params[2]);
        const disp = ival(params[3]);
        yield* resolve(fname);
        let flags = O_RDWR;
        if (disp === FILE_CREATE) flags |= O_CREAT;
        if (disp === FILE_OVERWRITE || disp === FILE_OVERWRITE_IF) flags |= O_CREAT | O_TRUNC;
        if (opts & FILE_DIRECTORY_FILE) { yield* u.sys('mkdir', [fname, 0o700]); flags = O_RDONLY | O_DIRECTORY; }
        let fd = (yield* u.sys('openat', [-100, fname, flags, 0o600])).ret;
        if (fd === -EISDIR) fd = (yield* u.sys('openat', [-100, fname, O_RDONLY | O_DIRECTORY, 0o600])).ret;
        if (fd < 0) return 'NTCreateX';
        if (!expectOk(status)) { yield* u.close(fd); return 'NTCreateX'; }
        files.set(ival(params[4]), { fd, name: fname });
        yield* u.fstat(fd);
        return 'NTCreateX';
      }
      case 'Close': { const f = handle(ival(params[1])); yield* u.close(f.fd); files.delete(ival(params[1])); return 'Close'; }
      case 'Rename': yield* resolve(fname); yield* resolve(fname2); yield* u.sys('rename', [fname, fname2]); return 'Rename';
      case 'Unlink': yield* resolve(fname); yield* u.sys('unlink', [fname]); return 'Unlink';
      case 'Deltree': yield* deltree(fname); return 'Deltree';
      case 'Rmdir': yield* resolve(fname); yield* u.sys('rmdir', [fname]); return 'Rmdir';
      case 'Mkdir': yield* resolve(fname); yield* u.sys('mkdir', [fname, 0o777]); return 'Mkdir';
      case 'QUERY_PATH_INFORMATION': yield* resolve(fname); return 'Qpathinfo';
      case 'QUERY_FILE_INFORMATION': yield* u.fstat(handle(ival(params[1])).fd); return 'Qfileinfo';
      case 'QUERY_FS_INFORMATION': yield* u.sys('statfs', [dir, 0]); return 'Qfsinfo';
      case 'SET_FILE_INFORMATION': {
        const f = handle(ival(params[1]));
        yield* u.fstat(f.fd);
        yield* u.sys('utime', [f.name, 0]);
        return 'Sfileinfo';
      }
      case 'FIND_FIRST': {
        yield* resolve(fname);
        if (!/[<>*?"]/.test(fname)) return 'Find';
        const slash = fname.lastIndexOf('/');
        if (slash < 0) return 'Find';
        let maxcnt = ival(params[3]);
        const fd = (yield* u.sys('openat', [-100, fname.slice(0, slash), OPENDIR])).ret;
        if (fd < 0) return 'Find';
        yield* u.fstat(fd);
        while (maxcnt > 0) {
          const r = yield* u.sys('getdents64', [fd, 0, 32768]);
          if (r.ret <= 0) break;
          maxcnt -= ((r.info?.names as string[]) ?? []).length;
        }
        yield* u.close(fd);
        return 'Find';
      }
      case 'WriteX': {
        const f = handle(ival(params[1]));
        const size = ival(params[3]);
        yield* u.pwrite(f.fd, zeroBuf(size), ival(params[2]));
        child.bytes += size;
        return 'WriteX';
      }
      case 'ReadX': {
        const f = handle(ival(params[1]));
        const size = ival(params[3]);
        yield* u.pread(f.fd, size, ival(params[2]));
        child.bytes += size;
        return 'ReadX';
      }
      case 'LockX': case 'UnlockX':
        yield* u.sys('fcntl', [handle(ival(params[1])).fd, F_SETLKW, 0]);
        return params[0];
      case 'Flush': yield* u.fsync(handle(ival(params[1])).fd); return 'Flush';
      default: return null;
    }
  };

  const lf = (yield* u.sys('openat', [-100, LOADFILE, O_RDONLY])).ret;
  if (lf < 0) { yield* u.err(`${LOADFILE}: No such file or directory\n`); return 1; }
  const f = new LineReader(lf);
  for (;;) {
    const line = yield* f.gets(u);
    if (line === null) { yield* f.rewind(u); continue; }
    if ((yield* u.kill(parent, 0)) < 0) return 1;
    if (child.done) break;
    child.line++;
    const params = tokens(line.replace(/\\/g, '/').replace(/ \//g, ' '));
    if (params.length < 2 || params[0].startsWith('#')) continue;
    const status = params[params.length - 1];
    if (!status.startsWith('NT_STATUS_') && !status.startsWith('0x')) continue;
    const sub = (p: string | undefined) => (p && p.startsWith('/') ? `${dir}${p}`.split('client1').join(cname) : '');
    const t0 = u.m.now;
    const name = yield* op(params, sub(params[1]), sub(params[2]), status);
    if (name) {
      const s = child.ops[name];
      const dt = (u.m.now - t0) / 1e9;
      s.count++; s.total += dt; if (dt > s.max) s.max = dt;
    }
  }
  yield* u.close(lf);
  // nb_cleanup
  yield* deltree(`${dir}/clients/${cname}`);
  yield* u.sys('rmdir', [`${dir}/clients`]);
  child.cleanupFinished = true;
  return 0;
}

/** `%.0f`/`%.3f`/`%g` of the report lines */
const f3 = (x: number) => x.toFixed(3);
const pad = (s: string | number, n: number) => String(s).padStart(n);

export const dbench: ProgramMain = function* (u, argv) {
  let timelimit = 600, dir = '.', loadfile = LOADFILE;
  const rest: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-t' || a === '--timelimit') timelimit = Number(argv[++i]) || 0;
    else if (a.startsWith('-t')) timelimit = Number(a.slice(2)) || 0;
    else if (a === '-D' || a === '--directory') dir = argv[++i] ?? '.';
    else if (a.startsWith('-D')) dir = a.slice(2);
    else if (a === '-c' || a === '--loadfile') loadfile = argv[++i] ?? LOADFILE;
    else if (a.startsWith('-') && a.length > 1) { yield* u.err(`Invalid option ${a}: unknown option\n`); return 1; }
    else rest.push(a);
  }
  yield* u.printf('dbench version 4.00 - Copyright Andrew Tridgell 1999-2004\n\n');
  if (!rest.length) { yield* u.printf('You need to specify NPROCS\n'); return 1; }
  const nprocs = Number.parseInt(rest[0], 10) || 0;
  const warmup = Math.trunc(timelimit / 5);
  yield* u.printf(`Running for ${timelimit} seconds with load '${loadfile}' and minimum warmup ${warmup} secs\n`);
  if ((yield* u.sys('openat', [-100, loadfile, O_RDONLY])).ret < 0) {
    yield* u.err(`dbench: error opening '${loadfile}': No such file or directory\n`);
    return 1;
  }
  if (nprocs < 1) { yield* u.err(`create ${nprocs} procs?  you must be kidding.\n`); return 0; }
  const shmid = (yield* u.sys('shmget', [IPC_PRIVATE, CHILD_STRUCT * nprocs, 0o600])).ret;
  yield* u.sys('shmat', [shmid, 0, 0]);
  yield* u.sys('shmctl', [shmid, IPC_RMID, 0]);
  const children: Child[] = [];
  for (let i = 0; i < nprocs; i++) {
    const ops = {} as Record<OpName, OpStat>;
    for (const o of OPS) ops[o] = { count: 0, total: 0, max: 0 };
    children.push({ id: i, line: 0, bytes: 0, done: false, cleanupFinished: false, ops });
  }
  const barrier = (yield* u.sys('semget', [IPC_PRIVATE, 1, IPC_CREAT | 0o600])).ret;
  yield* u.sys('semtimedop', [barrier, 0, 1, 0], { sops: [[0, 1, SEM_UNDO]] });
  for (let i = 0; i < nprocs; i++) {
    const child = children[i];
    yield* u.fork(function* (cu: U): Prog {
      if ((yield* cu.sys('semtimedop', [barrier, 0, 1, 0], { sops: [[0, 0, 0]] })).ret < 0) return 1;
      yield* cu.sys('semctl', [barrier, 0, IPC_RMID, 0]);
      const ppid = (yield* cu.sys('getppid', [])).ret;
      return yield* clientRun(cu, child, dir, ppid);
    });
  }
  const tv = u.m.now;
  let sync = 0;
  do {
    sync = (yield* u.sys('semctl', [barrier, 0, GETZCNT, 0])).ret;
    yield* u.printf(`${sync} of ${nprocs} processes prepared for launch ${pad(((u.m.now - tv) / 1e9).toFixed(0), 3)} sec\n`);
    if (sync === nprocs) break;
    yield* u.nanosleep(100e6);
  } while (u.m.now - tv < 30e9);
  if (sync !== nprocs) { yield* u.printf(`FAILED TO START ${nprocs} CLIENTS (started ${sync})\n`); return 0; }
  yield* u.printf('releasing clients\n');
  let start = u.m.now;
  yield* u.sys('semtimedop', [barrier, 0, 1, 0], { sops: [[0, -1, 0]] });
  yield* u.sys('semctl', [barrier, 0, IPC_RMID, 0]);
  let throughput = 0, inCleanup = false, warm = warmup;
  let pending = 0;
  const onAlarm = () => { pending++; };
  /** sig_alarm: the progress line; past the time limit the children are told to finish */
  const sigAlarm = function* (): G<void> {
    const now = u.m.now;
    let total = 0, lines = 0, active = 0, finished = 0, inWarmup = false;
    for (const c of children) {
      total += c.bytes;
      if (c.bytes === 0) inWarmup = true; else active++;
      lines += c.line;
      if (c.cleanupFinished) finished++;
    }
    const t = (now - start) / 1e9;
    if (!inWarmup && warm > 0 && t > warm) { start = now; warm = 0; }
    else {
      if (t < warm) inWarmup = true;
      else if (!inWarmup && !inCleanup && t > timelimit) { for (const c of children) c.done = true; inCleanup = true; }
      if (t >= 1) {
        if (inWarmup) yield* u.printf(`${pad(active, 4)}  ${pad(Math.trunc(lines / nprocs), 8)}  ${pad((1e-6 * total / t).toFixed(2), 7)} MB/sec  warmup ${pad(t.toFixed(0), 3)} sec  latency 0.000 ms\n`);
        else if (inCleanup) yield* u.printf(`${pad(nprocs - finished, 4)}  cleanup ${pad(t.toFixed(0), 3)} sec\n`);
        else {
          throughput = 1e-6 * total / t;
          yield* u.printf(`${pad(nprocs, 4)}  ${pad(Math.trunc(lines / nprocs), 8)}  ${pad(throughput.toFixed(2), 7)} MB/sec  execute ${pad(t.toFixed(0), 3)} sec  latency 0.000 ms\n`);
        }
      }
    }
    yield* u.sigaction(SIGALRM, onAlarm);
    yield* u.sys('alarm', [1]);
  };
  yield* u.sigaction(SIGALRM, onAlarm);
  yield* u.sys('alarm', [1]);
  for (let done = 0; done < nprocs;) {
    const [pid, status] = yield* u.wait(0);
    // the handler ran on the way out of the interrupted wait4, which SA_RESTART restarts after its rt_sigreturn
    while (pending > 0) { pending--; yield* sigAlarm(); yield* u.sys('rt_sigreturn', [], { restore: pid }); }
    if (pid < 0) continue;
    if ((status >> 8) & 0xff) { yield* u.printf(`Child failed with status ${(status >> 8) & 0xff}\n`); return 1; }
    done++;
  }
  yield* u.sys('alarm', [0]);
  yield* sigAlarm();
  yield* u.printf('\n');
  yield* u.printf(' Operation      Count    AvgLat    MaxLat\n');
  yield* u.printf(' ----------------------------------------\n');
  for (const o of OPS) {
    let count = 0, total = 0, max = 0;
    for (const c of children) { count += c.ops[o].count; total += c.ops[o].total; max = Math.max(max, c.ops[o].max); }
    if (!count) continue;
    yield* u.printf(` ${o.padEnd(12)} ${pad(count, 7)} ${pad(f3(1000 * total / count), 9)} ${pad(f3(max * 1000), 9)}\n`);
  }
  yield* u.printf('\n');
  yield* u.printf(`Throughput ${gForm(throughput, 6, false, false)} MB/sec  ${nprocs} clients  ${nprocs} procs  max_latency=0.000 ms\n`);
  // atexit(sem_cleanup): the barrier is gone already
  yield* u.sys('semctl', [barrier, 0, IPC_RMID, 0]);
  return 0;
};

