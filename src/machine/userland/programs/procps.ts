/**
 * procps-ng 4.0.2 (Debian 12): ps (Unix, BSD and GNU options: -e/-A, a, x, -p, -u, -C, -t, --ppid,
 * the formats -f -F -l -j u and -o/--format with its specifiers (ps_format.ts), --sort, --no-headers),
 * free (-k -m -g -h -b), uptime; util-linux 2.38's dmesg.  Output formats as the real commands print
 * them (the real guest's `ps aux`, data/recordings/ps.json.gz: PID width 7 since Debian's systemd
 * sets pid_max 4194304, lines cut at the terminal's 80 columns).  They read /proc like the real ones.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { bytesToString } from '../../process/user';
import { epochSeconds, strftime } from '../libc_time';
import { human } from './coreutils';
import { IdCache, tzset, dlopenMissing } from '../libc_nss';
import { libcapInit } from '../libcap';
import { FORMATS, SPECS, parseFormat, headerLine, rowLine, type Column, type Need, type PsCtx, type PsProc } from './ps_format';

type G<T> = Generator<Op, T, SysResult>;

function* readText(u: U, p: string): G<string | null> {
  const fd = yield* u.open(p);
  if (fd < 0) return null;
  const t = bytesToString(yield* u.readAll(fd));
  yield* u.close(fd);
  return t;
}

/**
 * libproc2's file2str: a file read into a buffer kept between calls, 1 KiB to start, grown by 1 KiB
 * each time a read fills it (so one read per file once the buffer is big enough)
 */
class StrBuf {
  size = 1024;
  *read(u: U, p: string): G<string | null> {
    const fd = yield* u.open(p, 0);
    if (fd < 0) return null;
    let tot = 0;
    const parts: Uint8Array[] = [];
    for (;;) {
      const r = yield* u.read(fd, this.size - tot);
      if (r.ret <= 0) break;
      if (r.data) parts.push(r.data);
      tot += r.ret;
      if (tot < this.size) break;
      this.size += 1024;
    }
    yield* u.close(fd);
    return bytesToString(Buffer.concat(parts));
  }
}
/** libproc2's file2strvec (environ, cmdline): reads of what is left of 128 KiB until end of file */
function* readVec(u: U, p: string): G<string | null> {
  const fd = yield* u.open(p, 0);
  if (fd < 0) return null;
  let tot = 0;
  const parts: Uint8Array[] = [];
  for (;;) {
    const r = yield* u.read(fd, 131072 - tot);
    if (r.ret <= 0 || !r.data) break;
    parts.push(r.data);
    tot += r.ret;
  }
  yield* u.close(fd);
  return bytesToString(Buffer.concat(parts));
}
/** a small /proc file read whole with one read of 1 KiB after an fstat (procps' uptime, pid_max) */
function* readSmall(u: U, p: string): G<string | null> {
  const fd = yield* u.open(p, 0);
  if (fd < 0) return null;
  yield* u.fstat(fd);
  const r = yield* u.read(fd, 1024);
  yield* u.close(fd);
  return bytesToString(r.data ?? new Uint8Array(0));
}

const AT_FDCWD = -100;
/** the size of libproc2's anonymous mapping for ps's results (strace of ps aux: mmap(NULL, 1183744, ...), munmap'd before the exit) */
const PS_STACKS_BYTES = 1183744;
/** ps's signal handler (ps/display.c: every signal but SIGKILL, SIGSTOP, the job-control and ignored ones), highest first */
const PS_SIGNALS = [31, 30, 29, 26, 25, 24, 21, 17, 16, 15, 14, 13, 12, 11, 10, 8, 7, 6, 5, 4, 1];

/**
 * procps-ng 4.0.2's start (strace of Debian 12's `ps aux`, data/recordings/ps.json.gz): malloc, libcap's
 * bounding-set probe, the signal handlers, libproc2's libnuma dlopen, its own /proc/self look-up, the
 * terminal size (stdout, stderr, stdin, then /dev/tty), whether stdout is a terminal (lines cut at 80
 * columns), euid and pid_max
 */
function* psStart(u: U): G<{ tty: boolean; stacks: number }> {
  yield* u.malloc();
  yield* libcapInit(u);
  // (its handler ends ps on the signal: here the default action, which ends it too)
  for (const sig of PS_SIGNALS) yield* u.sigaction(sig, 'default');
  yield* dlopenMissing(u, 'libnuma.so', true);
  yield* dlopenMissing(u, 'libnuma.so.1', false);
  // procps_pids_new: the hertz and the task lookups of ps itself
  yield* new StrBuf().read(u, '/proc/self/stat');
  const pid = (yield* u.sys('getpid', [])).ret;
  yield* u.sys('newfstatat', [AT_FDCWD, '/proc/self/task', 0, 0]);
  yield* u.sys('mmap', [0, 135168, 3, 0x22, -1, 0]);
  yield* u.sys('mmap', [0, 135168, 3, 0x22, -1, 0]);
  yield* readSmall(u, '/proc/uptime');
  // libproc2's stacks of pids results (its 1183744-byte allocation, faulted in whole as it is filled,
  // munmap'd at the end)
  const stacks = (yield* u.sys('mmap', [0, PS_STACKS_BYTES, 3, 0x22, -1, 0])).ret;
  yield* new StrBuf().read(u, `/proc/${pid}/status`);
  yield* u.sys('newfstatat', [AT_FDCWD, `/proc/${pid}`, 0, 0]);
  yield* new StrBuf().read(u, `/proc/${pid}/stat`);
  // set_screen_size: the first of stdout, stderr, stdin with a size, else the controlling terminal's
  let sized = false;
  for (const fd of [1, 2, 0]) {
    const r = yield* u.sys('ioctl', [fd, 0x5413, 0]);
    const ws = (r.info as { ws?: { col: number; row: number } } | undefined)?.ws;
    if (r.ret === 0 && ws && ws.col > 0 && ws.row > 0) { sized = true; break; }
  }
  if (!sized) {
    // O_RDONLY|O_NOCTTY|O_NONBLOCK
    const fd = yield* u.open('/dev/tty', 0x900);
    if (fd >= 0) { yield* u.sys('ioctl', [fd, 0x5413, 0]); yield* u.close(fd); }
  }
  const tty = yield* u.isatty(1);
  yield* u.sys('geteuid', []);
  yield* readSmall(u, '/proc/sys/kernel/pid_max');
  yield* u.sys('mmap', [0, 139264, 3, 0x22, -1, 0]);
  yield* u.sys('mprotect', [0, 4096, 0]);
  return { tty, stacks };
}

/** the device name of a tty number (procps devname.c: /proc/tty/drivers read once, the candidate paths stat-ed) */
function* ttyName(u: U, nr: number, drivers: { text: string | null }): G<string> {
  if (drivers.text === null) {
    const fd = yield* u.open('/proc/tty/drivers', 0);
    drivers.text = '';
    if (fd >= 0) { drivers.text = bytesToString((yield* u.read(fd, 9999)).data ?? new Uint8Array(0)); yield* u.close(fd); }
  }
  const major = (nr >> 8) & 0xfff, minor = (nr & 0xff) | ((nr >> 12) & 0xfff00);
  // Unix98 ptys (major 136..143): /dev/pts<N> then /dev/pts/<N>; the rest by the driver's name
  const cands = major >= 136 && major <= 143 ? [`/dev/pts${minor}`, `/dev/pts/${minor}`] : major === 4 && minor >= 64 ? [`/dev/ttyS${minor - 64}`] : [`/dev/tty${minor}`];
  for (const c of cands) {
    const s = yield* u.stat(c);
    if (typeof s !== 'number') return c.slice(5);
  }
  return '?';
}

function* psRows(u: U, needs: Set<Need>, groups: boolean): G<PsProc[]> {
  // procps reads /proc: the directory, then per process its directory's owner, stat, status, the
  // owner's name, environ, cmdline and the ctty probe, as the task stack of libproc2 does
  const fd = yield* u.open('/proc', 0x90800);
  const rows: PsProc[] = [];
  if (fd < 0) return rows;
  yield* u.fstat(fd);
  // opendir's 32 KiB buffer does not fit the arena's top chunk: malloc extends it (strace: brk(+0x28000),
  // the request and M_TOP_PAD's 128 KiB), the heap pages the recorded run faults in later
  yield* u.sbrk(0x28000);
  yield* readSmall(u, '/proc/uptime');
  const buf = new StrBuf();
  const users = new IdCache();
  const drivers = { text: null as string | null };
  for (;;) {
    const r = yield* u.sys('getdents64', [fd, 0, 32768]);
    if (r.ret <= 0) break;
    for (const n of (r.info?.names as string[] | undefined) ?? []) {
      if (!/^\d+$/.test(n)) continue;
      const ds = yield* u.sys('newfstatat', [AT_FDCWD, `/proc/${n}`, 0, 0]);
      if (ds.ret < 0) continue;
      const st = yield* buf.read(u, `/proc/${n}/stat`);
      if (!st) continue;
      const status = (yield* buf.read(u, `/proc/${n}/status`)) ?? '';
      const ids = (key: string): number[] => (new RegExp(`^${key}:\\s+(\\d+)\\s+(\\d+)`, 'm').exec(status) ?? []).slice(1).map(Number);
      const [ruid = 0, euid = 0] = ids('Uid'), [rgid = 0, egid = 0] = ids('Gid');
      const euser = yield* users.user(u, euid);
      const ruser = ruid === euid ? euser : yield* users.user(u, ruid);
      const egroup = groups ? yield* users.group(u, egid) : '';
      yield* readVec(u, `/proc/${n}/environ`);
      const cmdline = (yield* readVec(u, `/proc/${n}/cmdline`)) ?? '';
      yield* u.open(`/proc/${n}/ctty`, 0);
      const wchan = needs.has('wchan') ? (yield* readSmall(u, `/proc/${n}/wchan`)) ?? '' : '';
      if (!u.m.procs.listed(Number(n))) continue;
      const close = st.lastIndexOf(')');
      const comm = st.slice(st.indexOf('(') + 1, close);
      // f[N - 3] is field N of proc(5); field 3 is the state letter
      const fields = st.slice(close + 2).split(' ');
      const f = fields.map(Number);
      const args = cmdline.split('\0').filter(Boolean).join(' ');
      rows.push({
        pid: Number(n), ppid: f[1], pgid: f[2], sid: f[3], tpgid: f[5],
        tty: f[4] ? yield* ttyName(u, f[4], drivers) : '?', state: fields[0], flags: f[6],
        minflt: f[7], majflt: f[9], ticks: f[11] + f[12], priority: f[15], nice: f[16], nlwp: f[17],
        start: epochSeconds(u.m.bootNs, f[19] * 1e7), vszKb: Math.floor(f[20] / 1024), rssKb: f[21] * 4,
        psr: f[36], rtprio: f[37], policy: f[38],
        ruid, euid, rgid, egid, ruser, euser, egroup, comm, args: args || `[${comm}]`, wchan,
      });
    }
  }
  yield* u.close(fd);
  return rows;
}

/** what ps reads before its first line with a START or TIME: the time zone, the CPUs (/proc/cpuinfo) and the boot time (/proc/stat, twice) */
function* psClock(u: U): G<void> {
  yield* tzset(u);
  let fd = yield* u.open('/proc/cpuinfo', 0);
  if (fd >= 0) {
    yield* u.fstat(fd);
    while ((yield* u.read(fd, 1024)).ret > 0) { /* to the end */ }
    yield* u.close(fd);
  }
  fd = yield* u.open('/proc/stat', 0);
  if (fd >= 0) {
    yield* u.fstat(fd);
    for (let i = 0; i < 2; i++) {
      yield* u.lseek(fd, 0, 0);
      yield* u.read(fd, 8192);
      yield* u.read(fd, 6144);
    }
    yield* u.close(fd);
  }
}

const PS_USAGE = `
Usage:
 ps [options]

 Try 'ps --help <simple|list|output|threads|misc|all>'
  or 'ps --help <s|l|o|t|m|a>'
 for additional help text.

For more details see ps(1).
`;

/** What the command line of ps asks for (procps parser.c: Unix, BSD and GNU options) */
interface PsArgs {
  /** selection: every process; BSD a (any user's on a terminal), x (also without one); lists */
  all: boolean; bsdA: boolean; bsdX: boolean; notLeaders: boolean; notLeadersTty: boolean;
  pids: number[]; ppids: number[]; users: string[]; cmds: string[]; ttys: string[];
  formats: string[]; std: keyof typeof FORMATS | null; long: boolean;
  sort: string[]; noHeaders: boolean; wide: boolean;
}

/** Parse ps's arguments; a string is the error procps prints */
function psArgs(argv: string[]): PsArgs | string {
  const o: PsArgs = { all: false, bsdA: false, bsdX: false, notLeaders: false, notLeadersTty: false, pids: [], ppids: [], users: [], cmds: [], ttys: [], formats: [], std: null, long: false, sort: [], noHeaders: false, wide: false };
  const list = (v: string | undefined): string[] => (v ?? '').split(/[,\s]+/).filter(Boolean);
  const pidList = (v: string | undefined): number[] | null => {
    const l = list(v);
    return l.length && l.every((x) => /^\d+$/.test(x)) ? l.map(Number) : null;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v0] = a.slice(2).split(/=(.*)/s);
      const v = (): string | undefined => v0 ?? argv[++i];
      if (k === 'pid' || k === 'ppid') {
        const l = pidList(v());
        if (!l) return 'process ID list syntax error';
        (k === 'pid' ? o.pids : o.ppids).push(...l);
      } else if (k === 'user' || k === 'User') o.users.push(...list(v()));
      else if (k === 'format') o.formats.push(v() ?? '');
      else if (k === 'sort') o.sort.push(...list(v()));
      else if (k === 'no-headers' || k === 'no-heading') o.noHeaders = true;
      else if (k === 'deselect' || k === 'forest' || k === 'headers') continue;
      else return 'unknown gnu long option';
      continue;
    }
    const unix = a.startsWith('-');
    const letters = unix ? a.slice(1) : a;
    for (let j = 0; j < letters.length; j++) {
      const c = letters[j];
      // an option with an argument takes the rest of the word, else the next one
      const arg = (): string | undefined => (j + 1 < letters.length ? letters.slice(j + 1) : argv[++i]);
      if (unix) {
        if (c === 'e' || c === 'A') o.all = true;
        else if (c === 'a') o.notLeadersTty = true;
        else if (c === 'd') o.notLeaders = true;
        else if (c === 'f' || c === 'F' || c === 'j') o.std = c === 'f' && o.long ? 'lf' : c;
        else if (c === 'l') { o.long = true; o.std = o.std === 'f' ? 'lf' : 'l'; }
        else if (c === 'w') o.wide = true;
        else if (c === 'H' || c === 'y' || c === 'm') continue;
        else if (c === 'o') { o.formats.push(arg() ?? ''); break; }
        else if (c === 'p' || c === 'q') { const l = pidList(arg()); if (!l) return 'process ID list syntax error'; o.pids.push(...l); break; }
        else if (c === 'u' || c === 'U' || c === 'g' || c === 'G') { o.users.push(...list(arg())); break; }
        else if (c === 'C') { o.cmds.push(...list(arg())); break; }
        else if (c === 't') { o.ttys.push(...list(arg())); break; }
        else return 'unsupported SysV option';
      } else {
        if (c === 'a') o.bsdA = true;
        else if (c === 'x') o.bsdX = true;
        else if (c === 'u') o.std = 'u';
        else if (c === 'j' || c === 'l') o.std = c;
        else if (c === 'w') o.wide = true;
        else if (c === 'h') o.noHeaders = true;
        else if (c === 'e' || c === 'f') continue;
        else if (c === 'o') { o.formats.push(arg() ?? ''); break; }
        else if (c === 'O') return 'unsupported option (BSD syntax)';
        else if (c === 'p' || c === 'q') { const l = pidList(arg()); if (!l) return 'process ID list syntax error'; o.pids.push(...l); break; }
        else if (c === 'U') { o.users.push(...list(arg())); break; }
        else if (c === 't') { o.ttys.push(...list(arg())); break; }
        else if (c === 'k') { o.sort.push(...list(arg())); break; }
        else if (/^\d$/.test(c)) { o.pids.push(Number(letters.slice(j))); break; }
        else return 'unsupported option (BSD syntax)';
      }
    }
  }
  return o;
}

/** whether ps lists a process: the lists and flags asked for, else the processes of its terminal and user */
function selected(o: PsArgs, r: PsProc, self: PsProc | undefined, uidOf: (name: string) => number | undefined): boolean {
  if (o.all || (o.bsdA && o.bsdX)) return true;
  const lists = o.pids.length + o.ppids.length + o.users.length + o.cmds.length + o.ttys.length;
  let hit = false;
  if (o.pids.includes(r.pid) || o.ppids.includes(r.ppid) || o.cmds.includes(r.comm)) hit = true;
  if (o.users.some((x) => (/^\d+$/.test(x) ? Number(x) : uidOf(x)) === r.euid)) hit = true;
  if (o.ttys.some((x) => x.replace(/^\/dev\//, '') === r.tty)) hit = true;
  if (o.notLeaders && r.sid !== r.pid) hit = true;
  if (o.notLeadersTty && r.sid !== r.pid && r.tty !== '?') hit = true;
  if (o.bsdA && r.tty !== '?') hit = true;
  if (o.bsdX && r.euid === self?.euid) hit = true;
  if (lists || o.notLeaders || o.notLeadersTty || o.bsdA || o.bsdX) return hit;
  // (no selection: the processes of ps's terminal and effective user)
  return r.tty !== '?' && r.tty === (self?.tty ?? 'pts/0') && r.euid === (self?.euid ?? 0);
}

const ps: ProgramMain = function* (u, argv) {
  const o = psArgs(argv.slice(1));
  let cols: Column[] = [];
  let err = typeof o === 'string' ? o : '';
  if (typeof o !== 'string') {
    try {
      cols = parseFormat(o.formats.length ? o.formats : [FORMATS[o.std ?? 'default']]);
    } catch (e) {
      err = `unknown user-defined format specifier "${(e as Error).message}"`;
    }
    for (const k of o.sort) if (!err && !SPECS[k.replace(/^[+-]/, '').toLowerCase()]) err = 'unknown sort specifier';
  }
  if (err || typeof o === 'string') {
    yield* u.err(`error: ${err}\n${PS_USAGE}`);
    return 1;
  }
  const needs = new Set(cols.map((c) => c.spec.need).filter((n): n is Need => n !== undefined));
  const { tty, stacks } = yield* psStart(u);
  const all = yield* psRows(u, needs, cols.some((c) => c.spec === SPECS.group));
  const self = all.find((r) => r.pid === u.t.pid);
  const uids = new Map(all.map((r) => [r.euser, r.euid] as const));
  if (o.users.some((x) => !/^\d+$/.test(x) && !uids.has(x) && x !== 'root')) {
    yield* u.err(`error: user name does not exist\n${PS_USAGE}`);
    return 1;
  }
  let rows = all.filter((r) => selected(o, r, self, (n) => uids.get(n) ?? (n === 'root' ? 0 : undefined)));
  const ctx: PsCtx = { now: epochSeconds(u.m.bootNs, u.m.now), memKb: 1 };
  for (const k of [...o.sort].reverse()) {
    const spec = SPECS[k.replace(/^[+-]/, '').toLowerCase()];
    const dir = k.startsWith('-') ? -1 : 1;
    const key = (r: PsProc): string | number => { const v = spec.value(r, ctx); return spec.right && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v; };
    rows = [...rows].sort((x, y) => { const a = key(x), b = key(y); return (a < b ? -1 : a > b ? 1 : 0) * dir; });
  }
  const cut = (l: string): string => (tty && !o.wide ? l.slice(0, 80) : l);
  const line = (l: string): G<void> => u.printf(cut(l) + '\n');
  if (!o.noHeaders && cols.some((c) => c.header)) yield* line(headerLine(cols));
  // (what the columns need is read after the header, in their order: %MEM's /proc/meminfo, START's clock)
  let memRead = false, clockRead = false;
  for (const c of cols) {
    const n = c.spec.need;
    if (n === 'mem' && !memRead) { memRead = true; ctx.memKb = (yield* meminfo(u, true)).MemTotal || 1; }
    if (n === 'clock' && !clockRead) { clockRead = true; yield* psClock(u); }
  }
  for (const r of rows) yield* line(rowLine(cols, r, ctx));
  // (the mapping's pages freed: the recorded run's munmap freed the 289 pages it had faulted in)
  yield* u.sys('munmap', [stacks, PS_STACKS_BYTES]);
  yield* u.closeStdout();
  return rows.length ? 0 : 1;
};

/** /proc/meminfo's fields in KiB (procps' meminfo: rewound and read twice with 8191 bytes) */
function* meminfo(u: U, procps = false): G<Record<string, number>> {
  let t = '';
  if (procps) {
    const fd = yield* u.open('/proc/meminfo', 0);
    if (fd >= 0) {
      for (let i = 0; i < 2; i++) { yield* u.lseek(fd, 0, 0); t = bytesToString((yield* u.read(fd, 8191)).data ?? new Uint8Array(0)); }
      yield* u.close(fd);
    }
  } else t = (yield* readText(u, '/proc/meminfo')) ?? '';
  const m: Record<string, number> = {};
  for (const l of t.split('\n')) { const x = /^(\S+):\s+(\d+)/.exec(l); if (x) m[x[1]] = Number(x[2]); }
  return m;
}

const free: ProgramMain = function* (u, argv) {
  const o = argv.slice(1).join('');
  const m = yield* meminfo(u);
  const total = m.MemTotal ?? 0, freeK = m.MemFree ?? 0, shared = m.Shmem ?? 0;
  const cache = (m.Buffers ?? 0) + (m.Cached ?? 0) + (m.SReclaimable ?? 0);
  const used = Math.max(0, total - freeK - cache);
  const avail = m.MemAvailable ?? freeK + cache;
  const sTotal = m.SwapTotal ?? 0, sFree = m.SwapFree ?? 0;
  const conv = (k: number) => (o.includes('h') ? human(k * 1024).replace(/([KMGT])$/, '$1i').replace(/^(\d+)$/, '$1B')
    : o.includes('g') ? String(Math.floor(k / 1048576)) : o.includes('m') ? String(Math.floor(k / 1024)) : o.includes('b') ? String(k * 1024) : String(k));
  const col = (v: number) => conv(v).padStart(11);
  let out = '               total        used        free      shared  buff/cache   available\n';
  out += `Mem:   ${col(total)} ${col(used)} ${col(freeK)} ${col(shared)} ${col(cache)} ${col(avail)}\n`;
  out += `Swap:  ${col(sTotal)} ${col(sTotal - sFree)} ${col(sFree)}\n`;
  yield* u.out(out);
  return 0;
};

const uptime: ProgramMain = function* (u, argv) {
  const up = Number(((yield* readText(u, '/proc/uptime')) ?? '0').split(' ')[0]);
  const load = ((yield* readText(u, '/proc/loadavg')) ?? '0 0 0').split(' ');
  if (argv.includes('-p')) {
    const mins = Math.floor(up / 60);
    const parts = [[Math.floor(mins / 1440), 'day'], [Math.floor(mins / 60) % 24, 'hour'], [mins % 60, 'minute']].filter(([n]) => n) as [number, string][];
    yield* u.out(`up ${parts.map(([n, w]) => `${n} ${w}${n === 1 ? '' : 's'}`).join(', ') || '0 minutes'}\n`);
    return 0;
  }
  const now = strftime('%H:%M:%S', epochSeconds(u.m.bootNs, u.m.now));
  const mins = Math.floor(up / 60);
  const days = Math.floor(mins / 1440);
  const hm = `${String(Math.floor(mins / 60) % 24).padStart(2)}:${String(mins % 60).padStart(2, '0')}`;
  const upStr = (days ? `${days} day${days === 1 ? '' : 's'}, ` : '') + (mins < 60 ? `${mins} min` : hm);
  yield* u.out(` ${now} up ${upStr},  0 user,  load average: ${load[0]}, ${load[1]}, ${load[2]}\n`);
  // procps 4.0.2 (Debian 12) prints "0 user" (this host's uptime)
  return 0;
};

const dmesg: ProgramMain = function* (u) {
  // SYSLOG_ACTION_READ_ALL (3) of the kernel ring buffer (kernel/printk.ts)
  const r = yield* u.sys('syslog', [3, 0, 1 << 20]);
  if (r.ret < 0) { yield* u.err('dmesg: read kernel buffer failed: Operation not permitted\n'); return 1; }
  yield* u.out(String((r.info as { text?: string } | undefined)?.text ?? ''));
  return 0;
};

export const procps: Record<string, ProgramMain> = { ps, free, uptime, dmesg };
