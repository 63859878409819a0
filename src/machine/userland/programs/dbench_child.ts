/**
 * dbench 4.0's client loop (child.c child_run), shared by dbench (the fileio backend,
 * dbench_fileio.ts) and tbench (the socket backend, dbench_sockio.ts): one client replays the NetBench
 * load file, line by line, until the parent marks it done; at the end of the file it rewinds it.
 * Per line: kill(parent, 0) (the parent still there), the `done` check, the line split as util.c's
 * next_token does; a line that starts with a number is timed (nb_time_delay: select(2) until that many
 * seconds after the client's start or rewind), the others go at once (nb_target_rate with no rate: no
 * call); then the operation (`Sleep N`: usleep(N), the others the backend's).
 */
import type { U } from '../../process/user';
import type { Prog, Op, SysResult } from '../../include/sched';

export type G<T> = Generator<Op, T, SysResult>;

/** The operations of the report table, in dbench.c's op_names order. */
export const OPS = ['NTCreateX', 'Close', 'Rename', 'Unlink', 'Deltree', 'Rmdir', 'Mkdir', 'Qpathinfo', 'Qfileinfo', 'Qfsinfo',
  'Sfileinfo', 'Find', 'WriteX', 'ReadX', 'LockX', 'UnlockX', 'Flush'] as const;
export type OpName = typeof OPS[number];
export interface OpStat { count: number; total: number; max: number }

/** struct child_struct: what a client shares with the parent (the shared memory segment) */
export interface Child {
  id: number; line: number; bytes: number; bytesDoneWarmup: number; done: boolean; cleanupFinished: boolean;
  directory: string;
  ops: Record<OpName, OpStat>;
}

/** One client's backend: its operations (null: not an operation of the table) and nb_cleanup. */
export interface NbClient {
  op(params: readonly string[], fname: string, fname2: string, status: string): G<OpName | null>;
  cleanup(): G<void>;
}

/** strtol(s, NULL, 0) */
export const ival = (s: string | undefined): number => {
  const t = (s ?? '').trim();
  const v = /^[+-]?0x/i.test(t) ? Number.parseInt(t, 16) : /^[+-]?0[0-7]/.test(t) ? Number.parseInt(t, 8) : Number.parseInt(t, 10);
  return Number.isNaN(v) ? 0 : v;
};

/** stdio's fgets on a FILE opened "r": reads of BUFSIZ (st_blksize, 4096) as the buffer empties */
class LineReader {
  private buf = '';
  private statted = false;
  private eof = false;
  constructor(readonly fd: number) {}
  *gets(u: U): G<string | null> {
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl >= 0) { const l = this.buf.slice(0, nl + 1); this.buf = this.buf.slice(nl + 1); return l; }
      if (this.eof) { const l = this.buf; this.buf = ''; return l.length ? l : null; }
      if (!this.statted) { this.statted = true; yield* u.fstat(this.fd); }
      const r = yield* u.read(this.fd, 4096);
      if (r.ret <= 0 || !r.data) { this.eof = true; continue; }
      this.buf += Buffer.from(r.data).toString('latin1');
    }
  }
  /** rewind(3): back to the start, the buffer dropped */
  *rewind(u: U): G<void> {
    this.buf = '';
    this.eof = false;
    yield* u.lseek(this.fd, 0, 0);
  }
}

/** next_token with " " separators and quotes, as dbench's util.c splits a load file line */
export function tokens(line: string): string[] {
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

/** util.c msleep: select(0, NULL, NULL, NULL, {t / 1000 s, t % 1000 ms}) */
export function* msleep(u: U, ms: number): G<void> {
  yield* u.sys('pselect6', [0, 0, 0, 0, Math.floor(ms / 1000) * 1e9 + (ms % 1000) * 1e6, 0]);
}

/** glibc's usleep: nanosleep (clock_nanosleep, CLOCK_REALTIME) of that many microseconds, 0 too */
function* usleep(u: U, us: number): G<void> {
  yield* u.sys('clock_nanosleep', [0, 0, us * 1000, 0]);
}

/** child_run: replay `loadfile` until done, then nb_cleanup; the process's exit status */
export function* childRun(u: U, child: Child, client: NbClient, loadfile: string): Prog {
  const parent = (yield* u.sys('getppid', [])).ret;
  const lf = (yield* u.sys('openat', [-100, loadfile, 0])).ret;
  if (lf < 0) { yield* u.err(`${loadfile}: No such file or directory\n`); return 1; }
  const f = new LineReader(lf);
  let start = u.m.now;
  for (;;) {
    const raw = yield* f.gets(u);
    // the end of the file: rewind and start again (nb_time_reset: the timed lines count from here)
    if (raw === null) { yield* f.rewind(u); start = u.m.now; continue; }
    if ((yield* u.kill(parent, 0)) < 0) return 1;
    if (child.done) break;
    child.line++;
    // line[strlen(line)-1] = 0: the newline (or the last character of a last line without one)
    let params = tokens(raw.slice(0, -1).replace(/\\/g, '/').replace(/ \//g, ' '));
    if (params.length < 2 || params[0].startsWith('#')) continue;
    let targett = 0;
    if (/^[0-9]/.test(params[0])) { targett = Number.parseFloat(params[0]) || 0; params = params.slice(1); }
    const status = params[params.length - 1];
    if (!status.startsWith('NT_STATUS_') && !status.startsWith('0x')) { yield* u.printf(`Badly formed status at line ${child.line}\n`); continue; }
    const sub = (p: string | undefined) => (p && p.startsWith('/') ? `${child.directory}${p}`.split('client1').join(`client${child.id}`) : '');
    // nb_time_delay: a timed line waits for its time (in whole milliseconds, as msleep takes them)
    if (targett > 0) {
      const elapsed = (u.m.now - start) / 1e9;
      if (targett > elapsed) yield* msleep(u, Math.trunc(1000 * (targett - elapsed)));
    }
    const t0 = u.m.now;
    if (params[0] === 'Sleep') { yield* usleep(u, ival(params[1])); continue; }
    const name = yield* client.op(params, params.length > 1 ? sub(params[1]) : '', params.length > 2 ? sub(params[2]) : '', status);
    if (!name) { yield* u.printf(`[${child.line}] Unknown operation ${params[0]} in pid ${u.pid}\n`); continue; }
    const s = child.ops[name];
    const dt = (u.m.now - t0) / 1e9;
    s.count++; s.total += dt; if (dt > s.max) s.max = dt;
  }
  yield* u.close(lf);
  yield* client.cleanup();
  child.cleanupFinished = true;
  return 0;
}
