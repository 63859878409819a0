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

type G<T> = Generator<Op, T, SysResult>;

function* readText(u: U, p: string): G<string | null> {
  const fd = yield* u.open(p);
  if (fd < 0) return null;
  const t = bytesToString(yield* u.readAll(fd));
  yield* u.close(fd);
  return t;
}
function* isTty(u: U, fd: number): G<boolean> {
  const s = yield* u.fstat(fd);
  return typeof s !== 'number' && s.isChr;
}

const USERS: Record<number, string> = { 0: 'root', 1: 'daemon', 33: 'www-data', 100: 'sshd', 1000: 'user' };

interface PsRow { t: Task; pid: number; ppid: number; user: string; stat: string; tty: string; cmd: string; comm: string; start: string; cpu: number; vsz: number; rss: number; time: number }

function* psRows(u: U): G<PsRow[]> {
  // procps reads /proc: the directory, then each process's stat, status and cmdline
  const fd = yield* u.open('/proc', 0o200000);
  const names = fd < 0 ? [] : yield* u.getdents(fd);
  if (fd >= 0) yield* u.close(fd);
  const rows: PsRow[] = [];
  const nowSec = epochSeconds(u.m.bootNs, u.m.now);
  for (const n of Array.isArray(names) ? names : []) {
    if (!/^\d+$/.test(n)) continue;
    const st = yield* readText(u, `/proc/${n}/stat`);
    if (!st) continue;
    const cmdline = (yield* readText(u, `/proc/${n}/cmdline`)) ?? '';
    const t = u.m.procs.list().find((x) => x.tid === Number(n));
    if (!t) continue;
    const close = st.lastIndexOf(')');
    const comm = st.slice(st.indexOf('(') + 1, close);
    const f = st.slice(close + 2).split(' ');
    const state = f[0];
    const nice = Number(f[16]);
    const threads = Number(f[17]);
    const ttyNr = Number(f[4]);
    const startSec = epochSeconds(u.m.bootNs, Number(f[19]) * 1e7);
    const time = Math.floor((Number(f[11]) + Number(f[12])) / 100);
    const elapsed = Math.max(1, nowSec - startSec);
    const isLeader = Number(f[3]) === Number(n);
    const stat = state + (nice < 0 ? '<' : nice > 0 ? 'N' : '') + (isLeader && Number(f[2]) === Number(n) ? 's' : '') + (threads > 1 ? 'l' : '') + (ttyNr && Number(f[5]) === Number(n) ? '+' : '');
    const args = cmdline.split('\0').filter(Boolean).join(' ');
    rows.push({
      t, pid: Number(n), ppid: Number(f[1]), user: USERS[t.uid] ?? String(t.uid), stat, tty: ttyNr ? `pts/${ttyNr & 0xff}` : '?',
      cmd: args || `[${comm}]`, comm, start: nowSec - startSec < 86400 ? strftime('%H:%M', startSec) : strftime('%b%d', startSec),
      cpu: Math.round((time * 1000) / elapsed) / 10, vsz: Math.floor(Number(f[20]) / 1024), rss: Number(f[21]) * 4, time,
    });
  }
  return rows;
}

const mmss = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
const hhmmss = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;

const ps: ProgramMain = function* (u, argv) {
  const a = argv.slice(1);
  const bsd = a.length > 0 && !a[0].startsWith('-');
  const opts = bsd ? a[0] : a.filter((x) => x.startsWith('-')).map((x) => x.slice(1)).join('');
  const pIdx = a.indexOf('-p');
  const uIdx = a.indexOf('-u');
  let rows = yield* psRows(u);
  const tty = yield* isTty(u, 1);
  const cut = (l: string) => (tty && !opts.includes('w') ? l.slice(0, 80) : l);
  const memKb = (yield* meminfo(u)).MemTotal || 1;
  let out = '';
  if (bsd && opts.includes('u')) {
    if (!opts.includes('a') || !opts.includes('x')) rows = rows.filter((r) => r.tty !== '?' || opts.includes('x'));
    out = cut('USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND') + '\n';
    for (const r of rows) {
      const mem = (Math.round((r.rss * 1000) / memKb) / 10).toFixed(1);
      out += cut(`${r.user.padEnd(8)} ${String(r.pid).padStart(7)} ${r.cpu.toFixed(1).padStart(4)} ${mem.padStart(4)} ${String(r.vsz).padStart(6)} ${String(r.rss).padStart(5)} ${r.tty.padEnd(8)} ${r.stat.padEnd(4)} ${r.start.padStart(5)} ${mmss(r.time).padStart(6)} ${r.cmd}`) + '\n';
    }
  } else if (opts.includes('f')) {
    if (!opts.includes('e') && !opts.includes('A')) rows = rows.filter((r) => r.tty !== '?');
    if (pIdx >= 0) rows = rows.filter((r) => a[pIdx + 1].split(',').includes(String(r.pid)));
    out = cut('UID          PID    PPID  C STIME TTY          TIME CMD') + '\n';
    for (const r of rows) out += cut(`${r.user.padEnd(8)} ${String(r.pid).padStart(7)} ${String(r.ppid).padStart(7)} ${String(Math.min(99, Math.floor(r.cpu))).padStart(2)} ${r.start.padStart(5)} ${r.tty.padEnd(8)} ${hhmmss(r.time).padStart(8)} ${r.cmd}`) + '\n';
  } else {
    if (pIdx >= 0) rows = rows.filter((r) => a[pIdx + 1].split(',').includes(String(r.pid)));
    else if (uIdx >= 0) rows = rows.filter((r) => r.user === a[uIdx + 1] || String(r.t.uid) === a[uIdx + 1]);
    else if (!opts.includes('e') && !opts.includes('A') && !(bsd && opts.includes('a') && opts.includes('x'))) {
      // the processes of this terminal (procps: same tty and euid as ps itself)
      const self = rows.find((r) => r.pid === u.t.pid);
      rows = rows.filter((r) => r.tty !== '?' && r.tty === (self?.tty ?? 'pts/0'));
    }
    out = '    PID TTY          TIME CMD\n';
    for (const r of rows) out += `${String(r.pid).padStart(7)} ${r.tty.padEnd(8)} ${hhmmss(r.time)} ${r.comm}\n`;
  }
  yield* u.out(out);
  return 0;
};

/** /proc/meminfo's fields in KiB */
function* meminfo(u: U): G<Record<string, number>> {
  const t = (yield* readText(u, '/proc/meminfo')) ?? '';
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
