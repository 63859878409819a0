/**
 * pidof (sysvinit-utils 3.06's killall5 run as pidof; Debian's /usr/bin/pidof -> /sbin/killall5): the
 * pids of the processes running the programs named, newest first, as strace of the real one shows it
 * reading them: chdir("/proc"), opendir("."), and for each process N/stat, N/cmdline (1 KiB) and
 * readlink("/proc/N/exe").  A name matches a process whose argv[0], or its base name, or the base name
 * of its executable, or (a kernel thread, no command line) its comm is the name; a name with a slash
 * matches the executable's path or argv[0].  Options: -s (the first only), -q (status only), -d SEP,
 * -o PID,... (%PPID: pidof's parent), -c -n -x -z accepted.  Exit 0 when one was found, else 1.
 * killall5 itself (signalling every process) is not modelled.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { bytesToString } from '../../process/user';
import { readDir } from '../libfs';

type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100;

/** what pidof reads of one process: 4 KiB of stat, 1 KiB of cmdline, the executable's path */
function* procInfo(u: U, pid: string): G<{ comm: string; argv0: string; exe: string | null } | null> {
  // (stdio: a 4 KiB read, then another of 3 KiB at the end of the stat line; one 1 KiB read of cmdline)
  const read = function* (file: string, sizes: number[]): G<string | null> {
    const fd = yield* u.open(file);
    if (fd < 0) return null;
    yield* u.fstat(fd);
    let text = '';
    for (const n of sizes) {
      const r = yield* u.read(fd, n);
      if (r.ret <= 0 || !r.data) break;
      text += bytesToString(r.data);
    }
    yield* u.close(fd);
    return text;
  };
  const stat = yield* read(`${pid}/stat`, [4096, 3072]);
  if (stat === null) return null;
  const cmdline = (yield* read(`${pid}/cmdline`, [1024])) ?? '';
  const l = yield* u.sys('readlink', [`/proc/${pid}/exe`, 0, 4096]);
  const exe = l.ret < 0 ? null : String((l.info as { target?: string } | undefined)?.target ?? '');
  return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), argv0: cmdline.split('\0')[0], exe };
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

export const pidof: ProgramMain = function* (u, argv) {
  if (base(argv[0]) !== 'pidof') {
    yield* u.err(`${argv[0]}: killall5 (signalling every process) is not modelled by tapsim's simulated userland\n`);
    return 127;
  }
  let single = false, quiet = false, sep = ' ';
  const omit = new Set<number>();
  const names: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (names.length || !a.startsWith('-') || a === '-') { names.push(a); continue; }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (c === 's') single = true;
      else if (c === 'q') quiet = true;
      else if (c === 'c' || c === 'n' || c === 'x' || c === 'z') continue;
      else if (c === 'd' || c === 'o') {
        const v = j + 1 < a.length ? a.slice(j + 1) : argv[++i];
        if (v === undefined) return 1;
        if (c === 'd') sep = v;
        else for (const p of v.split(',')) omit.add(p === '%PPID' ? u.t.proc.parent?.tgid ?? 0 : Number(p));
        break;
      } else return 1;
    }
  }
  if (!names.length) return 1;
  yield* u.chdir('/proc');
  const fd = yield* u.open('.', 0x90800);
  yield* u.fstat(fd);
  yield* u.malloc();
  const procs: { pid: number; comm: string; argv0: string; exe: string | null }[] = [];
  for (const e of yield* readDir(u, fd)) {
    if (!/^\d+$/.test(e.name)) continue;
    const info = yield* procInfo(u, e.name);
    if (info) procs.push({ pid: Number(e.name), ...info });
  }
  yield* u.close(fd);
  yield* u.sys('getuid', []);
  const self = u.t.proc.tgid;
  const found: number[] = [];
  for (const n of names) {
    const hit = (p: (typeof procs)[number]): boolean => n.includes('/')
      ? p.exe === n || p.argv0 === n
      : base(p.argv0) === n || p.argv0 === n || (p.exe !== null && base(p.exe) === n) || (!p.argv0 && p.comm === n);
    // (newest first: the list is built by prepending as /proc is read)
    for (const p of [...procs].reverse()) if (p.pid !== self && !omit.has(p.pid) && hit(p) && !found.includes(p.pid)) found.push(p.pid);
  }
  if (!found.length) return 1;
  if (!quiet) {
    yield* u.printf((single ? found.slice(0, 1) : found).join(sep) + '\n');
    yield* u.fflush();
  }
  return 0;
};
