/**
 * procps-ng 4.0.2 (Debian 12): ps (default, aux, -e/-A, -ef, -f, -p PID, -u USER), free (-k -m -g
 * -h -b), uptime; util-linux 2.38's dmesg.  Output formats as the real commands print them (the
 * real guest's `ps aux`, data/recordings/ps.json.gz: PID width 7 since Debian's systemd sets
 * pid_max 4194304, lines cut at the terminal's 80 columns).  They read /proc like the real ones.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult, Task } from '../../include/sched';
import { bytesToString } from '../../process/user';
import { epochSeconds, strftime } from '../libc_time';
import { human } from './coreutils';
import { IdCache, tzset, dlopenMissing } from '../libc_nss';
import { libcapInit } from '../libcap';

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

interface PsRow { t: Task; pid: number; ppid: number; user: string; stat: string; tty: string; cmd: string; comm: string; start: string; cpu: number; vsz: number; rss: number; time: number; uid: number }

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

function* psRows(u: U): G<PsRow[]> {
  // procps reads /proc: the directory, then per process its directory's owner, stat, status, the
  // owner's name, environ, cmdline and the ctty probe, as the task stack of libproc2 does
  const fd = yield* u.open('/proc', 0x90800);
  const rows: PsRow[] = [];
  if (fd < 0) return rows;
  yield* u.fstat(fd);
  // opendir's 32 KiB buffer does not fit the arena's top chunk: malloc extends it (strace: brk(+0x28000),
  // the request and M_TOP_PAD's 128 KiB), the heap pages the recorded run faults in later
  yield* u.sbrk(0x28000);
  yield* readSmall(u, '/proc/uptime');
  const nowSec = epochSeconds(u.m.bootNs, u.m.now);
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
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const user = yield* users.user(u, uid);
      yield* readVec(u, `/proc/${n}/environ`);
      const cmdline = (yield* readVec(u, `/proc/${n}/cmdline`)) ?? '';
      yield* u.open(`/proc/${n}/ctty`, 0);
      const t = u.m.procs.list().find((x) => x.tid === Number(n));
      if (!t) continue;
      const close = st.lastIndexOf(')');
      const comm = st.slice(st.indexOf('(') + 1, close);
      const f = st.slice(close + 2).split(' ');
      const state = f[0];
      const nice = Number(f[16]);
      const threads = Number(f[17]);
      const ttyNr = Number(f[4]);
      const tty = ttyNr ? yield* ttyName(u, ttyNr, drivers) : '?';
      const startSec = epochSeconds(u.m.bootNs, Number(f[19]) * 1e7);
      const time = Math.floor((Number(f[11]) + Number(f[12])) / 100);
      const elapsed = Math.max(1, nowSec - startSec);
      // (procps pr_stat: s for a session leader, session == tgid; + in the terminal's foreground
      // process group, pgrp == tpgid)
      const stat = state + (nice < 0 ? '<' : nice > 0 ? 'N' : '') + (Number(f[3]) === Number(n) ? 's' : '') + (threads > 1 ? 'l' : '') + (Number(f[2]) === Number(f[5]) ? '+' : '');
      const args = cmdline.split('\0').filter(Boolean).join(' ');
      rows.push({
        t, pid: Number(n), ppid: Number(f[1]), user, uid, stat, tty,
        cmd: args || `[${comm}]`, comm, start: nowSec - startSec < 86400 ? strftime('%H:%M', startSec) : strftime('%b%d', startSec),
        cpu: Math.round((time * 1000) / elapsed) / 10, vsz: Math.floor(Number(f[20]) / 1024), rss: Number(f[21]) * 4, time,
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

const mmss = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
const hhmmss = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;

const ps: ProgramMain = function* (u, argv) {
  const a = argv.slice(1);
  const bsd = a.length > 0 && !a[0].startsWith('-');
  const opts = bsd ? a[0] : a.filter((x) => x.startsWith('-')).map((x) => x.slice(1)).join('');
  const pIdx = a.indexOf('-p');
  const uIdx = a.indexOf('-u');
  const { tty, stacks } = yield* psStart(u);
  let rows = yield* psRows(u);
  const cut = (l: string) => (tty && !opts.includes('w') ? l.slice(0, 80) : l);
  const line = (l: string) => u.printf(cut(l) + '\n');
  if (bsd && opts.includes('u')) {
    if (!opts.includes('a') || !opts.includes('x')) rows = rows.filter((r) => r.tty !== '?' || opts.includes('x'));
    yield* line('USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND');
    // the header is out before /proc/meminfo (%MEM) and the clock are read (strace of ps aux)
    const memKb = (yield* meminfo(u, true)).MemTotal || 1;
    yield* psClock(u);
    for (const r of rows) {
      const mem = (Math.round((r.rss * 1000) / memKb) / 10).toFixed(1);
      yield* line(`${r.user.padEnd(8)} ${String(r.pid).padStart(7)} ${r.cpu.toFixed(1).padStart(4)} ${mem.padStart(4)} ${String(r.vsz).padStart(6)} ${String(r.rss).padStart(5)} ${r.tty.padEnd(8)} ${r.stat.padEnd(4)} ${r.start.padStart(5)} ${mmss(r.time).padStart(6)} ${r.cmd}`);
    }
  } else if (opts.includes('f')) {
    if (!opts.includes('e') && !opts.includes('A')) rows = rows.filter((r) => r.tty !== '?');
    if (pIdx >= 0) rows = rows.filter((r) => a[pIdx + 1].split(',').includes(String(r.pid)));
    yield* line('UID          PID    PPID  C STIME TTY          TIME CMD');
    yield* psClock(u);
    for (const r of rows) yield* line(`${r.user.padEnd(8)} ${String(r.pid).padStart(7)} ${String(r.ppid).padStart(7)} ${String(Math.min(99, Math.floor(r.cpu))).padStart(2)} ${r.start.padStart(5)} ${r.tty.padEnd(8)} ${hhmmss(r.time).padStart(8)} ${r.cmd}`);
  } else {
    if (pIdx >= 0) rows = rows.filter((r) => a[pIdx + 1].split(',').includes(String(r.pid)));
    else if (uIdx >= 0) rows = rows.filter((r) => r.user === a[uIdx + 1] || String(r.uid) === a[uIdx + 1]);
    else if (!opts.includes('e') && !opts.includes('A') && !(bsd && opts.includes('a') && opts.includes('x'))) {
      // the processes of this terminal (procps: same tty and euid as ps itself)
      const self = rows.find((r) => r.pid === u.t.pid);
      rows = rows.filter((r) => r.tty !== '?' && r.tty === (self?.tty ?? 'pts/0'));
    }
    yield* u.printf('    PID TTY          TIME CMD\n');
    for (const r of rows) yield* u.printf(`${String(r.pid).padStart(7)} ${r.tty.padEnd(8)} ${hhmmss(r.time)} ${r.comm}\n`);
  }
  // (the mapping's pages freed: the recorded run's munmap freed the 289 pages it had faulted in)
  yield* u.sys('munmap', [stacks, PS_STACKS_BYTES]);
  yield* u.closeStdout();
  return 0;
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
