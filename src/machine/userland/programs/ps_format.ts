/**
 * procps-ng 4.0.2's output formats (ps/output.c): the format specifiers of `ps -o` with their
 * headers, widths and alignment, the standard formats (-f, -F, -l, -j, u, the default), and the
 * column layout of show_one_proc (a column that overflows its width takes the space from the ones
 * after it). Headers, widths and values checked against Debian 12's ps on this host (procps-ng 4.0.2).
 */
import { strftime } from '../libc_time';

/** One process as ps sees it (its /proc/PID/stat, status, cmdline and wchan) */
export interface PsProc {
  pid: number; ppid: number; pgid: number; sid: number; tpgid: number; tty: string;
  state: string; flags: number; minflt: number; majflt: number;
  /** utime + stime, clock ticks (USER_HZ 100) */
  ticks: number;
  priority: number; nice: number; nlwp: number; psr: number; policy: number; rtprio: number;
  /** start time, seconds since the epoch; vsize and RSS in kB */
  start: number; vszKb: number; rssKb: number;
  ruid: number; euid: number; rgid: number; egid: number;
  ruser: string; euser: string; egroup: string;
  comm: string; args: string; wchan: string;
}

/** What a column needs ps to have read: the clock (START and the like), /proc/meminfo (%MEM), wchan */
export type Need = 'clock' | 'mem' | 'wchan';
export interface PsCtx { now: number; memKb: number }

interface Spec {
  header: string; width: number; right: boolean;
  /** the width is pid_max's digits (7 on Debian 12: systemd sets pid_max 4194304) */
  pidWidth?: boolean;
  /** a user or group name longer than the column ends in '+' */
  name?: boolean;
  need?: Need;
  value(p: PsProc, c: PsCtx): string;
}

const PID_WIDTH = 7;
const two = (n: number): string => String(n).padStart(2, '0');
/** [DD-]HH:MM:SS of CPU time */
function cputime(ticks: number): string {
  const s = Math.floor(ticks / 100);
  const d = Math.floor(s / 86400);
  return `${d ? `${d}-` : ''}${two(Math.floor(s / 3600) % 24)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}
/** [[DD-]HH:]MM:SS of elapsed time */
function etime(s: number): string {
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24;
  return `${d ? `${d}-` : ''}${d || h ? `${two(h)}:` : ''}${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}
const elapsed = (p: PsProc, c: PsCtx): number => Math.max(0, c.now - p.start);
/** tenths of a percent, truncated, as "%u.%u" (pr_pcpu, pr_pmem); over 99.9 without the decimal */
function tenths(v: number): string {
  return v > 999 ? String(Math.floor(v / 10)) : `${Math.floor(v / 10)}.${v % 10}`;
}
const pcpu = (p: PsProc, c: PsCtx): number => {
  const s = elapsed(p, c);
  return s ? Math.floor((p.ticks * 1000) / 100 / s) : 0;
};
const sameDay = (a: number, b: number): boolean => strftime('%Y%j', a) === strftime('%Y%j', b);
/** pr_stime: HH:MM today, MmmDD this year, else the year */
const stime = (p: PsProc, c: PsCtx): string =>
  sameDay(p.start, c.now) ? strftime('%H:%M', p.start) : strftime('%Y', p.start) === strftime('%Y', c.now) ? strftime('%b%d', p.start) : strftime('%Y', p.start);
const CLASSES = ['TS', 'FF', 'RR', 'B', 'ISO', 'IDL', 'DLN'];
const cls = (p: PsProc): string => CLASSES[p.policy] ?? '?';

const num = (header: string, width: number, value: (p: PsProc, c: PsCtx) => number | string, extra: Partial<Spec> = {}): Spec =>
  ({ header, width, right: true, value: (p, c) => String(value(p, c)), ...extra });
const txt = (header: string, width: number, value: (p: PsProc, c: PsCtx) => string, extra: Partial<Spec> = {}): Spec =>
  ({ header, width, right: false, value, ...extra });
const pidCol = (header: string, value: (p: PsProc) => number): Spec => num(header, PID_WIDTH, value, { pidWidth: true });

const args = (header: string): Spec => txt(header, 27, (p) => p.args);
const comm = (header: string): Spec => txt(header, 15, (p) => p.comm);
const pctCpu = num('%CPU', 4, (p, c) => tenths(pcpu(p, c)));
const pctMem = num('%MEM', 4, (p, c) => tenths(c.memKb ? Math.floor((p.rssKb * 1000) / c.memKb) : 0), { need: 'mem' });
const timeCol = num('TIME', 8, (p) => cputime(p.ticks));
const flags = num('F', 1, (p) => ((p.flags >>> 6) & 7).toString(8));
const user = (header: string, v: (p: PsProc) => string): Spec => txt(header, 8, v, { name: true });
/** SCHED_FIFO, SCHED_RR: an RTPRIO, no nice value */
const realtime = (p: PsProc): boolean => p.policy === 1 || p.policy === 2;
const ni = num('NI', 3, (p) => (realtime(p) ? '-' : p.nice));

/** the format specifiers (ps -o), by name */
export const SPECS: Record<string, Spec> = {
  '%cpu': pctCpu, pcpu: pctCpu, '%mem': pctMem, pmem: pctMem,
  args: args('COMMAND'), cmd: args('CMD'), command: args('COMMAND'),
  comm: comm('COMMAND'), ucmd: comm('CMD'), ucomm: comm('COMMAND'), fname: txt('COMMAND', 8, (p) => p.comm.slice(0, 8)),
  c: num('C', 2, (p, c) => Math.min(99, Math.floor(pcpu(p, c) / 10))),
  etime: num('ELAPSED', 11, (p, c) => etime(elapsed(p, c))), etimes: num('ELAPSED', 7, (p, c) => elapsed(p, c)),
  f: flags, flag: flags, flags,
  gid: num('GID', 5, (p) => p.egid), egid: num('EGID', 5, (p) => p.egid), rgid: num('RGID', 5, (p) => p.rgid),
  group: user('GROUP', (p) => p.egroup), egroup: user('EGROUP', (p) => p.egroup),
  lwp: pidCol('LWP', (p) => p.pid), tid: pidCol('TID', (p) => p.pid), spid: pidCol('SPID', (p) => p.pid),
  maj_flt: num('MAJFL', 6, (p) => p.majflt), min_flt: num('MINFL', 6, (p) => p.minflt),
  majflt: num('MAJFLT', 6, (p) => p.majflt), minflt: num('MINFLT', 6, (p) => p.minflt),
  ni, nice: ni,
  nlwp: num('NLWP', 4, (p) => p.nlwp), thcount: num('THCNT', 5, (p) => p.nlwp),
  pgid: pidCol('PGID', (p) => p.pgid), pgrp: pidCol('PGRP', (p) => p.pgid),
  pid: pidCol('PID', (p) => p.pid), tgid: pidCol('TGID', (p) => p.pid), ppid: pidCol('PPID', (p) => p.ppid),
  sid: pidCol('SID', (p) => p.sid), sess: pidCol('SESS', (p) => p.sid), session: pidCol('SESS', (p) => p.sid),
  tpgid: pidCol('TPGID', (p) => p.tpgid),
  // pr_pri: 39 - the stat priority (19 at nice 0); -l's PRI: the priority + 60 (80 at nice 0)
  pri: num('PRI', 3, (p) => 39 - p.priority), opri: num('PRI', 3, (p) => p.priority + 60),
  psr: num('PSR', 3, (p) => p.psr),
  rss: num('RSS', 5, (p) => p.rssKb), rssize: num('RSS', 5, (p) => p.rssKb), rsz: num('RSZ', 5, (p) => p.rssKb),
  vsz: num('VSZ', 6, (p) => p.vszKb), vsize: num('VSZ', 6, (p) => p.vszKb),
  sz: num('SZ', 5, (p) => Math.floor(p.vszKb / 4)),
  s: txt('S', 1, (p) => p.state), state: txt('S', 1, (p) => p.state), stat: txt('STAT', 4, (p) => statFlags(p)),
  start: num('STARTED', 8, (p, c) => (c.now - p.start < 86400 ? strftime('%H:%M:%S', p.start) : strftime('%b %d', p.start)), { need: 'clock' }),
  stime: txt('STIME', 5, stime, { need: 'clock' }), start_time: num('START', 5, stime, { need: 'clock' }),
  bsdstart: num('START', 6, (p, c) => (c.now - p.start < 86400 ? strftime('%H:%M', p.start) : strftime('%b %d', p.start)), { need: 'clock' }),
  lstart: num('STARTED', 24, (p) => strftime('%a %b %e %H:%M:%S %Y', p.start), { need: 'clock' }),
  time: timeCol, cputime: timeCol,
  // (BSD's M:SS, ps u's TIME)
  bsdtime: num('TIME', 6, (p) => { const s = Math.floor(p.ticks / 100); return `${Math.floor(s / 60)}:${two(s % 60)}`; }),
  tt: txt('TT', 8, (p) => p.tty), tty: txt('TT', 8, (p) => p.tty), tname: txt('TTY', 8, (p) => p.tty),
  uid: num('UID', 5, (p) => p.euid), euid: num('EUID', 5, (p) => p.euid), ruid: num('RUID', 5, (p) => p.ruid),
  user: user('USER', (p) => p.euser), euser: user('EUSER', (p) => p.euser), uname: user('USER', (p) => p.euser),
  // (-f's UID column: the user's name)
  uid_hack: user('UID', (p) => p.euser),
  ruser: user('RUSER', (p) => p.ruser),
  wchan: txt('WCHAN', 6, (p) => (p.state === 'R' ? '-' : p.wchan || '-'), { need: 'wchan' }),
  cls: num('CLS', 3, cls), class: num('CLS', 3, cls), policy: txt('POL', 3, cls),
  rtprio: num('RTPRIO', 6, (p) => (realtime(p) ? p.rtprio : '-')),
  addr: num('ADDR', 4, () => '-'), addr_1: txt('ADDR', 1, () => '-'),
};

/** the STAT column (pr_stat): state, <N (nice), s (session leader), l (threads), + (foreground group) */
export function statFlags(p: PsProc): string {
  return p.state + (p.nice < 0 ? '<' : p.nice > 0 ? 'N' : '') + (p.sid === p.pid ? 's' : '') + (p.nlwp > 1 ? 'l' : '') + (p.tpgid !== -1 && p.pgid === p.tpgid ? '+' : '');
}

/** The standard formats of ps's options */
export const FORMATS = {
  default: 'pid,tname,time,ucmd',
  f: 'uid_hack,pid,ppid,c,stime,tname,time,cmd',
  F: 'uid_hack,pid,ppid,c,sz,rss,psr,stime,tname,time,cmd',
  l: 'flags,state,uid,pid,ppid,c,opri,ni,addr_1,sz,wchan,tname,time,ucmd',
  // -lf: -l's columns with -f's user, stime and cmd
  lf: 'flags,state,uid_hack,pid,ppid,c,opri,ni,addr_1,sz,wchan,stime,tname,time,cmd',
  j: 'pid,pgid,sid,tname,time,ucmd',
  u: 'user,pid,%cpu,%mem,vsz,rss,tname,stat,start_time,bsdtime,args',
} as const;

export interface Column { spec: Spec; header: string; width: number }

/**
 * The columns of format lists (`-o pid,comm`, `-o pid=ID -o comm`): NAME[:WIDTH][=HEADER], comma or
 * space separated. Throws the name of an unknown one.
 */
export function parseFormat(lists: string[]): Column[] {
  const cols: Column[] = [];
  for (const list of lists) {
    let rest = list.trim();
    while (rest) {
      const m = /^([^,\s=:]+)(?::(\d+))?(=)?/.exec(rest);
      if (!m) throw new Error(rest);
      const spec = SPECS[m[1].toLowerCase()];
      if (!spec) throw new Error(m[1]);
      let header = spec.header;
      rest = rest.slice(m[0].length);
      // (procps 4.0.2: a header ends at a comma or a space, as a name does)
      if (m[3]) { header = /^[^,\s]*/.exec(rest)![0]; rest = rest.slice(header.length); }
      const width = m[2] ? Number(m[2]) : Math.max(spec.width, 0);
      cols.push({ spec, header, width });
      rest = rest.replace(/^[,\s]+/, '');
    }
  }
  return cols;
}

/** a value cut to its column (a name ends in '+'), unless it is the last column */
function fit(col: Column, v: string, last: boolean): string {
  if (last || col.spec.right || v.length <= col.width) return v;
  return col.spec.name ? `${v.slice(0, col.width - 1)}+` : v.slice(0, col.width);
}

/** show_one_proc's layout: each column where it should start, a space at least between two */
export function layout(cols: Column[], texts: string[], header = false): string {
  let out = '', correct = 0, actual = 0, dospace = 0;
  cols.forEach((col, i) => {
    const last = i === cols.length - 1;
    const text = header ? texts[i] : fit(col, texts[i], last);
    const leftpad = col.spec.right ? Math.max(0, col.width - text.length) : 0;
    let space = correct - actual + leftpad;
    if (space < 1) space = dospace;
    out += ' '.repeat(space) + text;
    actual += space + text.length;
    correct += col.width + 1;
    dospace = 1;
  });
  return out;
}

export const headerLine = (cols: Column[]): string => layout(cols, cols.map((c) => c.header), true);
export const rowLine = (cols: Column[], p: PsProc, c: PsCtx): string => layout(cols, cols.map((col) => col.spec.value(p, c)));
