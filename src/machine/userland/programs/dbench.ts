/**
 * dbench 4.0 and tbench (Debian 12's dbench 4.0-2.1; dbench.c, child.c): NPROCS clients replay the
 * NetBench load file (/usr/share/dbench/client.txt, -c FILE) for -t seconds, dbench against the file
 * system under -D (dbench_fileio.ts), tbench as request/reply exchanges with tbench_srv over TCP
 * (dbench_sockio.ts).  The same main for both, syscall by syscall as strace of the real binaries shows
 * (data/recordings/dbench.json.gz, tbench.json.gz, and the 4.0 source):
 *   main: setlinebuf(stdout), the banner and the settings; create_procs opens the load file, keeps the
 *   children's status in System V shared memory (shmget/shmat/shmctl IPC_RMID) and starts them on a
 *   semaphore barrier (semget, semop +1 SEM_UNDO, fork, semctl GETZCNT polled every 100 ms until every
 *   child waits, for at most 30 s; semop -1, IPC_RMID); SIGALRM every second prints the progress line
 *   and, past the time limit, marks the children done; waitpid, the final progress line, the operation
 *   table, the throughput line; atexit's semctl IPC_RMID (EINVAL: removed already).
 *   child: nb_setup (tbench: its connection), semop 0 (wait for the release), semctl IPC_RMID (EINVAL),
 *   then child_run (dbench_child.ts); a client that cannot start exits 1, its atexit removing the
 *   barrier (the parent then reads GETZCNT as -1 until its 30 s are up).
 */
import type { U, ProgramMain } from '../../process/user';
import type { Prog } from '../../include/sched';
import { gForm } from '../libc_printf';
import { OPS, childRun, type Child, type NbClient, type OpName, type OpStat, type G } from './dbench_child';
import { fileioClient } from './dbench_fileio';
import { sockioClient, TCP_OPTIONS } from './dbench_sockio';

const O_RDONLY = 0, SIGALRM = 14;
const IPC_PRIVATE = 0, IPC_CREAT = 0o1000, IPC_RMID = 0, GETZCNT = 15, SEM_UNDO = 0x1000;
const LOADFILE = '/usr/share/dbench/client.txt';
/** sizeof(struct child_struct) of the amd64 build: shmget's size is NPROCS times it (552 for one) */
const CHILD_STRUCT = 552;

interface Options { timelimit: number; dir: string; loadfile: string; tcpOptions: string; server: string }
/** a client's backend once nb_setup has run: null when it could not start (it printed why) */
type Setup = (u: U, child: Child, o: Options) => G<NbClient | null>;

/** `%.0f`/`%.3f`/`%g` of the report lines */
const f3 = (x: number) => x.toFixed(3);
const pad = (s: string | number, n: number) => String(s).padStart(n);

function* benchMain(u: U, argv: string[], setup: Setup): Prog {
  let timelimit = 600, dir = '.', loadfile = LOADFILE, tcpOptions = TCP_OPTIONS;
  const rest: string[] = [];
  u.setlinebuf();
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-t' || a === '--timelimit') timelimit = Number(argv[++i]) || 0;
    else if (a.startsWith('-t')) timelimit = Number(a.slice(2)) || 0;
    else if (a === '-D' || a === '--directory') dir = argv[++i] ?? '.';
    else if (a.startsWith('-D')) dir = a.slice(2);
    else if (a === '-c' || a === '--loadfile') loadfile = argv[++i] ?? LOADFILE;
    else if (a.startsWith('-c') && a.length > 2) loadfile = a.slice(2);
    else if (a === '-T' || a === '--tcp-options') tcpOptions = argv[++i] ?? TCP_OPTIONS;
    else if (a.startsWith('-T')) tcpOptions = a.slice(2);
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
  const o: Options = { timelimit, dir, loadfile, tcpOptions, server: rest[1] ?? 'localhost' };
  const throughputLine = (t: number) => `Throughput ${gForm(t, 6, false, false)} MB/sec  ${nprocs} clients  ${nprocs} procs  max_latency=0.000 ms\n`;
  if (nprocs < 1) { yield* u.err(`create ${nprocs} procs?  you must be kidding.\n`); yield* u.printf(throughputLine(0)); return 0; }
  const shmid = (yield* u.sys('shmget', [IPC_PRIVATE, CHILD_STRUCT * nprocs, 0o600])).ret;
  yield* u.sys('shmat', [shmid, 0, 0]);
  yield* u.sys('shmctl', [shmid, IPC_RMID, 0]);
  const children: Child[] = [];
  for (let i = 0; i < nprocs; i++) {
    const ops = {} as Record<OpName, OpStat>;
    for (const o of OPS) ops[o] = { count: 0, total: 0, max: 0 };
    children.push({ id: i, line: 0, bytes: 0, bytesDoneWarmup: 0, done: false, cleanupFinished: false, directory: dir, ops });
  }
  const barrier = (yield* u.sys('semget', [IPC_PRIVATE, 1, IPC_CREAT | 0o600])).ret;
  yield* u.sys('semtimedop', [barrier, 0, 1, 0], { sops: [[0, 1, SEM_UNDO]] });
  for (let i = 0; i < nprocs; i++) {
    const child = children[i];
    yield* u.fork(function* (cu: U): Prog {
      cu.inheritStdio(u);
      const client = yield* setup(cu, child, o);
      // exit(1): atexit's sem_cleanup removes the barrier
      if (!client) { yield* cu.sys('semctl', [barrier, 0, IPC_RMID, 0]); return 1; }
      if ((yield* cu.sys('semtimedop', [barrier, 0, 1, 0], { sops: [[0, 0, 0]] })).ret < 0) {
        yield* cu.printf(`failed to use the barrier semaphore in child ${cu.pid}\n`);
        yield* cu.sys('semctl', [barrier, 0, IPC_RMID, 0]);
        return 1;
      }
      yield* cu.sys('semctl', [barrier, 0, IPC_RMID, 0]);
      // _exit(0) after child_run
      return yield* childRun(cu, child, client, loadfile);
    });
  }
  const tv = u.m.now;
  let sync = 0;
  do {
    sync = Math.max(-1, (yield* u.sys('semctl', [barrier, 0, GETZCNT, 0])).ret);
    yield* u.printf(`${sync} of ${nprocs} processes prepared for launch ${pad(((u.m.now - tv) / 1e9).toFixed(0), 3)} sec\n`);
    if (sync === nprocs) break;
    yield* u.nanosleep(100e6);
  } while (u.m.now - tv < 30e9);
  if (sync !== nprocs) {
    yield* u.printf(`FAILED TO START ${nprocs} CLIENTS (started ${sync})\n`);
    yield* u.printf(throughputLine(0));
    yield* u.sys('semctl', [barrier, 0, IPC_RMID, 0]);
    return 0;
  }
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
      total += c.bytes - c.bytesDoneWarmup;
      if (c.bytes === 0) inWarmup = true; else active++;
      lines += c.line;
      if (c.cleanupFinished) finished++;
    }
    const t = (now - start) / 1e9;
    // the warmup ends: the clock, the bytes and the operation statistics start again
    if (!inWarmup && warm > 0 && t > warm) {
      start = now;
      warm = 0;
      for (const c of children) { c.bytesDoneWarmup = c.bytes; for (const o of OPS) c.ops[o] = { count: 0, total: 0, max: 0 }; }
    }
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
  yield* u.printf(throughputLine(throughput));
  // atexit(sem_cleanup): the barrier is gone already
  yield* u.sys('semctl', [barrier, 0, IPC_RMID, 0]);
  return 0;
}

export const dbench: ProgramMain = (u, argv) => benchMain(u, argv, function* (cu, child) { return fileioClient(cu, child); });
export const tbench: ProgramMain = (u, argv) => benchMain(u, argv, (cu, child, o) => sockioClient(cu, child, o.server, o.tcpOptions));
