/**
 * dash 0.5.12's kill builtin (jobs.c killcmd, as Debian 12's /bin/sh behaves): `kill [-s sigspec |
 * -signum | -sigspec] [pid | job]...` and `kill -l [exitstatus]`.  A signal is a number below NSIG
 * (0 included) or a name without SIG, in any case; an argument that is neither is read as options
 * (`-STKFLT`: "Illegal option -S", as dash's table has no name for 16).  A failed kill(2) is a warning
 * whose text ends in a newline of its own (sh_warnx("%s\n", strerror): an empty line follows) and
 * the next operand is still signalled; status 1.  A pid operand goes to kill(2) as given (0 and -PGID
 * name process groups).  `%N` signals each of the job's processes.  Not as dash: a non-interactive
 * dash runs its jobs in its own process group, and its kill(-pid) of a job's first process finds no
 * such group; the machine signals the job's processes as bash does, which the scripts that stop a
 * background tracer with `kill %1` rely on.
 */
import type { Op, SysResult } from '../../include/sched';
import type { U } from '../../process/user';
import { SIGNAL_NAMES } from '../../include/signal';
import { errStr } from '../libc_strerror';

type G<T> = Generator<Op, T, SysResult>;

/** NSIG on x86_64 (_NSIG + 1 in dash's table) */
const NSIG = 65;
/** dash's signal_names[n]: the name kill -l prints (the number where dash's table has none) */
export function dashSignalName(n: number): string {
  if (n >= 1 && n < 32 && n !== 16) return SIGNAL_NAMES[n];
  if (n === 34) return 'RTMIN';
  if (n === 64) return 'RTMAX';
  if (n > 34 && n < 50) return `RTMIN+${n - 34}`;
  if (n >= 50 && n < 64) return `RTMAX-${64 - n}`;
  return String(n);
}

/** decode_signal(string, 1): a number below NSIG, or a signal's name in any case; -1 if neither */
function decodeSignal(s: string): number {
  if (/^\d+$/.test(s)) { const n = Number(s); return n < NSIG ? n : -1; }
  for (let n = 1; n < NSIG; n++) if (dashSignalName(n).toUpperCase() === s.toUpperCase()) return n;
  return -1;
}

/** what kill needs of the shell */
export interface KillShell {
  prefix(): string;
  jobPids(id: number): readonly number[] | null;
}

class KillError { constructor(readonly msg: string) {} }

const USAGE = 'Usage: kill [-s sigspec | -signum | -sigspec] [pid | job]... or\nkill -l [exitstatus]';

/** dash's number(): a decimal integer operand, else "Illegal number" */
function num(s: string): number {
  if (!/^\d+$/.test(s)) throw new KillError(`Illegal number: ${s}`);
  return Number(s);
}

export function* dashKill(sh: KillShell, u: U, w: string[]): G<number> {
  try {
    return yield* kill(sh, u, w);
  } catch (e) {
    if (!(e instanceof KillError)) throw e;
    yield* u.err(`${sh.prefix()}kill: ${e.msg}\n`);
    return 2;
  }
}

function* kill(sh: KillShell, u: U, w: string[]): G<number> {
  if (w.length <= 1) throw new KillError(USAGE);
  let i = 1;
  let signo = -1;
  let list = false;
  if (w[i].startsWith('-')) {
    signo = decodeSignal(w[i].slice(1));
    if (signo < 0) {
      // nextopt("ls:"): option letters of the arguments that start with '-', up to `--`
      for (; i < w.length && w[i].startsWith('-') && w[i] !== '-'; i++) {
        if (w[i] === '--') { i++; break; }
        for (let j = 1; j < w[i].length; j++) {
          const c = w[i][j];
          if (c === 'l') list = true;
          else if (c === 's') {
            const arg = j + 1 < w[i].length ? w[i].slice(j + 1) : w[++i];
            if (arg === undefined) throw new KillError('No arg for -s option');
            signo = decodeSignal(arg);
            if (signo < 0) throw new KillError(`invalid signal number or name: ${arg}`);
            break;
          } else throw new KillError(`Illegal option -${c}`);
        }
      }
    } else i++;
  }
  if (!list && signo < 0) signo = 15;
  const args = w.slice(i);
  if ((signo < 0 || !args.length) !== list) throw new KillError(USAGE);
  if (list) {
    if (!args.length) {
      yield* u.out(['0', ...Array.from({ length: NSIG - 1 }, (_, k) => dashSignalName(k + 1))].join('\n') + '\n');
      return 0;
    }
    let n = num(args[0]);
    if (n > 128) n -= 128;
    if (!(n > 0 && n < NSIG)) throw new KillError(`invalid signal number or exit status: ${args[0]}`);
    yield* u.out(`${dashSignalName(n)}\n`);
    return 0;
  }
  let st = 0;
  for (const a of args) {
    let pids: readonly number[];
    if (a.startsWith('%')) {
      const id = /^%\d+$/.test(a) ? Number(a.slice(1)) : -1;
      const job = sh.jobPids(id);
      if (!job) throw new KillError(`No such job: ${a}`);
      pids = job;
    } else pids = [a.startsWith('-') ? -num(a.slice(1)) : num(a)];
    for (const pid of pids) {
      const r = yield* u.kill(pid, signo);
      if (r < 0) { yield* u.err(`${sh.prefix()}kill: ${errStr(r)}\n\n`); st = 1; }
    }
  }
  return st;
}
