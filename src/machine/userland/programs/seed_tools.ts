/**
 * The small tools the seed experiments (and the tracing tools' users) run that the userland did
 * not have yet: mount (tracefs, debugfs), mkswap, cut, sort, uniq, timeout (and awk, programs/awk.ts).
 * Listed in the issue-17 report; the userland proper grows elsewhere.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, Prog, SysResult } from '../../include/sched';
import { bytesToString } from '../../process/user';
import { O_WRONLY } from '../../include/fs';
import { SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGCHLD, SIGCONT, SIGTTIN, SIGTTOU, sigBit } from '../../include/signal';
import { PAGE } from '../../include/fs';
import { awkMain as awk } from './awk';
import { execvp } from '../libfs';
import { parseArgs } from './coreutils';

type G<T> = Generator<Op, T, SysResult>;

/** What `mount` needs of the machine: its tree and the tracing filesystems' roots. */
interface MountMachine {
  readonly fs: import('../../fs/namei').Fs;
  readonly tracefs: { root(): import('../../../kernel/tracefs/vfs').PseudoNode; debugfs(): import('../../../kernel/tracefs/vfs').PseudoNode };
}

function* input(u: U, files: string[], prog: string): G<string | null> {
  let s = '';
  for (const f of files.length ? files : ['-']) {
    const fd = f === '-' ? 0 : yield* u.open(f);
    if (fd < 0) { yield* u.err(`${prog}: ${f}: No such file or directory\n`); return null; }
    s += bytesToString(yield* u.readAll(fd));
    if (f !== '-') yield* u.close(fd);
  }
  return s;
}
const lines = (s: string) => { const l = s.split('\n'); if (l[l.length - 1] === '') l.pop(); return l; };

/** mount [-t TYPE] SOURCE DIR (tracefs, debugfs), or the mount table. */
const mount: ProgramMain = function* (u, argv) {
  const a = argv.slice(1);
  let type = '';
  const rest: string[] = [];
  for (let i = 0; i < a.length; i++) { if (a[i] === '-t') type = a[++i] ?? ''; else if (a[i] === '-o') i++; else rest.push(a[i]); }
  if (!rest.length) {
    const fd = yield* u.open('/proc/mounts');
    const t = bytesToString(yield* u.readAll(fd));
    yield* u.close(fd);
    yield* u.out(t.split('\n').filter(Boolean).map((l) => { const [src, at, fs, opts] = l.split(' '); return `${src} on ${at} type ${fs} (${opts})\n`; }).join(''));
    return 0;
  }
  const dir = rest[rest.length - 1];
  // mount(2) as a direct call into the machine (the userland has no mount syscall path yet)
  const m = u.m as unknown as MountMachine;
  const ino = m.fs.lookup(dir, u.t.proc.cwd);
  if (!ino || !ino.isDir) { yield* u.err(`mount: ${dir}: mount point does not exist.\n`); return 32; }
  if (type === 'tracefs') m.fs.mountPseudo(ino, m.tracefs.root(), 'tracefs');
  else if (type === 'debugfs') m.fs.mountPseudo(ino, m.tracefs.debugfs(), 'debugfs');
  else { yield* u.err(`mount: ${dir}: unknown filesystem type '${type}'.\n`); return 32; }
  return 0;
};

/** mkswap FILE: a swap signature on the file (version 1, 4 KiB pages) */
const mkswap: ProgramMain = function* (u, argv) {
  const f = argv.filter((x, i) => i > 0 && !x.startsWith('-')).pop();
  if (!f) { yield* u.err('mkswap: no device specified\n'); return 1; }
  const st = yield* u.stat(f);
  if (typeof st === 'number') { yield* u.err(`mkswap: cannot open ${f}: No such file or directory\n`); return 1; }
  const pages = Math.floor(st.size / PAGE);
  if (pages < 10) { yield* u.err(`mkswap: error: swap area needs to be at least 40 KiB\n`); return 1; }
  const fd = yield* u.open(f, O_WRONLY);
  const sig = new Uint8Array(PAGE);
  sig.set(Buffer.from('SWAPSPACE2'), PAGE - 10);
  const dv = new DataView(sig.buffer);
  dv.setUint32(1024, 1, true);
  dv.setUint32(1028, pages - 1, true);
  yield* u.pwrite(fd, sig, 0);
  yield* u.close(fd);
  yield* u.out(`Setting up swapspace version 1, size = ${(pages - 1) * 4} KiB (${(pages - 1) * PAGE} bytes)\nno label, UUID=3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7\n`);
  return 0;
};

/** a cut LIST (1,3-5,7-): whether position n (from 1) is in it */
function cutList(list: string): ((n: number) => boolean) | null {
  const ranges: [number, number][] = [];
  for (const r of list.split(',')) {
    const m = /^(\d*)(-?)(\d*)$/.exec(r);
    if (!m || (!m[1] && !m[3])) return null;
    const lo = m[1] ? Number(m[1]) : 1;
    ranges.push([lo, m[2] ? (m[3] ? Number(m[3]) : Infinity) : lo]);
  }
  return (n) => ranges.some(([lo, hi]) => n >= lo && n <= hi);
}

/** cut -f LIST [-d DELIM] [-s], -b/-c LIST: the selected parts in input order (coreutils 9.1) */
const cut: ProgramMain = function* (u, argv) {
  const { flags, vals, ops } = parseArgs(argv, 'dfbc');
  const list = vals.f ?? vals.c ?? vals.b;
  if (list === undefined) { yield* u.err("cut: you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.\n"); return 1; }
  const want = cutList(list);
  if (!want) { yield* u.err(`cut: invalid field range\nTry 'cut --help' for more information.\n`); return 1; }
  const delim = vals.d ?? '\t';
  const s = yield* input(u, ops, 'cut');
  if (s === null) return 1;
  let out = '';
  for (const l of lines(s)) {
    if (vals.f === undefined) { out += [...l].filter((_, k) => want(k + 1)).join('') + '\n'; continue; }
    if (!l.includes(delim)) { if (!flags.has('s')) out += l + '\n'; continue; }
    out += l.split(delim).filter((_, k) => want(k + 1)).join(delim) + '\n';
  }
  yield* u.out(out);
  return 0;
};

/** a sort key (-k F[.C][opts][,F[.C][opts]]): fields from 1, end 0 = end of line */
interface SortKey { sf: number; sc: number; ef: number; ec: number; mode: SortMode; r: boolean; b: boolean }
/** how a key compares: '' bytes, n numeric, g general numeric, h human numeric, M month, V version */
type SortMode = '' | 'n' | 'g' | 'h' | 'M' | 'V';
const SORT_MODES = 'nghMV';
const modeOf = (o: string): SortMode => ([...o].reverse().find((c) => SORT_MODES.includes(c)) ?? '') as SortMode;

/** the field boundaries of a line: with -t at each separator, else each field begins with its leading blanks */
function fieldStarts(l: string, t: string | undefined): [number, number][] {
  const f: [number, number][] = [];
  if (t !== undefined) { let p = 0; for (const x of l.split(t)) { f.push([p, p + x.length]); p += x.length + 1; } return f; }
  const re = /[ \t]*[^ \t]*/g;
  for (let m = re.exec(l); m && m[0]; m = re.exec(l)) f.push([m.index, m.index + m[0].length]);
  return f.length ? f : [[0, 0]];
}

function keyText(l: string, k: SortKey, t: string | undefined): string {
  const f = fieldStarts(l, t);
  const skip = (p: number, end: number) => { if (k.b) while (p < end && (l[p] === ' ' || l[p] === '\t')) p++; return p; };
  if (k.sf > f.length) return '';
  const [fs, fe] = f[k.sf - 1];
  const start = Math.min(skip(fs, fe) + k.sc - 1, fe);
  let end = l.length;
  if (k.ef) end = k.ef > f.length ? l.length : k.ec ? Math.min(skip(f[k.ef - 1][0], f[k.ef - 1][1]) + k.ec, f[k.ef - 1][1]) : f[k.ef - 1][1];
  return start < end ? l.slice(start, end) : '';
}

/** strtold-like leading number of a key: blanks, sign, digits, decimal point (sort -n) */
const numOf = (s: string): number => { const m = /^[ \t]*(-?(\d*\.?\d*))/.exec(s); return m && /\d/.test(m[2]) ? Number(m[1].replace(/\.$/, '')) : 0; };
const byteCmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** strtold of a key's start (blanks, sign, decimal or hex float, inf, nan): the value, or null when nothing converts (sort -g) */
function strtold(s: string): number | null {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])/.exec(s);
  if (!m) return null;
  const sign = m[1] === '-' ? -1 : 1;
  const t = m[2].toLowerCase();
  if (t.startsWith('inf')) return sign * Infinity;
  if (t === 'nan') return NaN;
  if (t.startsWith('0x')) {
    const h = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/.exec(t)!;
    const v = parseInt(h[1] || '0', 16) + (h[2] ? parseInt(h[2], 16) / 16 ** h[2].length : 0);
    return sign * v * 2 ** Number(h[3] ?? 0);
  }
  return sign * Number(t);
}
/** coreutils general_numcompare: conversion failures first, then NaNs, then numbers in order */
function generalCmp(a: string, b: string): number {
  const x = strtold(a), y = strtold(b);
  if (x === null) return y === null ? 0 : -1;
  if (y === null) return 1;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}
/** coreutils find_unit_order: the SI suffix after a nonzero number (K/k 1 ... Q 10), negative for a negative number */
function unitOrder(s: string): number {
  const m = /^[ \t]*(-?)(\d*)(?:\.(\d*))?(.?)/.exec(s)!;
  if (!/[1-9]/.test(m[2] + (m[3] ?? ''))) return 0;
  const o = ' KMGTPEZYRQ'.indexOf(m[4] === 'k' ? 'K' : m[4]);
  const order = m[4] && o > 0 ? o : 0;
  return m[1] ? -order : order;
}
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** coreutils getmonth: the month of a key's first three letters after blanks (case-insensitive), 0 if none */
const monthOf = (s: string): number => MONTHS.indexOf(s.replace(/^[ \t\n\v\f\r]*/, '').slice(0, 3).toUpperCase()) + 1;
/** gnulib filevercmp's character order: digits 0, letters themselves, '~' before everything, the rest after letters */
const verOrder = (s: string, i: number, len: number): number => {
  if (i >= len) return 0;
  const c = s.charCodeAt(i);
  if (c >= 48 && c <= 57) return 0;
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return c;
  return c === 126 ? -1 : c + 256;
};
const isDigitAt = (s: string, i: number, len: number): boolean => i < len && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;
/** gnulib verrevcmp: non-digit runs by verOrder, digit runs numerically (leading zeros skipped) */
function verrevcmp(a: string, al: number, b: string, bl: number): number {
  let i = 0, j = 0;
  while (i < al || j < bl) {
    let first = 0;
    while ((i < al && !isDigitAt(a, i, al)) || (j < bl && !isDigitAt(b, j, bl))) {
      const x = verOrder(a, i, al), y = verOrder(b, j, bl);
      if (x !== y) return x - y;
      i++; j++;
    }
    while (i < al && a[i] === '0') i++;
    while (j < bl && b[j] === '0') j++;
    while (isDigitAt(a, i, al) && isDigitAt(b, j, bl)) {
      if (!first) first = a.charCodeAt(i) - b.charCodeAt(j);
      i++; j++;
    }
    if (isDigitAt(a, i, al)) return 1;
    if (isDigitAt(b, j, bl)) return -1;
    if (first) return first;
  }
  return 0;
}
/** gnulib file_prefixlen: the length without trailing suffixes (\.[A-Za-z~][A-Za-z0-9~]*)* */
function filePrefixLen(s: string): number {
  const n = s.length;
  let prefix = 0;
  for (let i = 0; i < n;) {
    i++;
    prefix = i;
    while (i + 1 < n && s[i] === '.' && /[A-Za-z~]/.test(s[i + 1])) for (i += 2; i < n && /[A-Za-z0-9~]/.test(s[i]); i++) { /* the suffix */ }
  }
  return prefix;
}
/** gnulib filevercmp (sort -V): "." < ".." < other dot names < the rest; versions without, then with, their suffixes */
function verCmp(a: string, b: string): number {
  if (!a) return b ? -1 : 0;
  if (!b) return 1;
  if (a[0] === '.') {
    if (b[0] !== '.') return -1;
    if (a === '.') return b === '.' ? 0 : -1;
    if (b === '.') return 1;
    if (a === '..') return b === '..' ? 0 : -1;
    if (b === '..') return 1;
  } else if (b[0] === '.') return 1;
  const ap = filePrefixLen(a), bp = filePrefixLen(b);
  const r = verrevcmp(a, ap, b, bp);
  return r || (ap === a.length && bp === b.length) ? r : verrevcmp(a, a.length, b, b.length);
}
/** compare two keys as sort's mode says */
function keyCompare(mode: SortMode, x: string, y: string): number {
  switch (mode) {
    case 'n': return numOf(x) - numOf(y);
    case 'g': return generalCmp(x, y);
    case 'h': return unitOrder(x) - unitOrder(y) || numOf(x) - numOf(y);
    case 'M': return monthOf(x) - monthOf(y);
    case 'V': return verCmp(x, y);
    default: return byteCmp(x, y);
  }
}

/** sort [-nghMVrubs] [-t SEP] [-k KEY]...: keys in order, then the whole line (not with -s or -u), as coreutils 9.1 in the C locale */
const sort: ProgramMain = function* (u, argv) {
  const { flags, long, vals, ops } = parseArgs(argv, 'tko');
  const LONG: Record<string, string> = {
    'numeric-sort': 'n', 'general-numeric-sort': 'g', 'human-numeric-sort': 'h', 'month-sort': 'M', 'version-sort': 'V',
    reverse: 'r', unique: 'u', stable: 's', 'ignore-leading-blanks': 'b',
  };
  for (const l of long) if (LONG[l]) flags.add(LONG[l]);
  const keyArgs: string[] = [];
  for (let i = 1; i < argv.length; i++) { const a = argv[i]; if (a === '-k') keyArgs.push(argv[++i] ?? ''); else if (/^-[a-z]*k./.test(a)) keyArgs.push(a.slice(a.indexOf('k') + 1)); else if (a === '--') break; }
  const glob = { mode: modeOf([...SORT_MODES].filter((c) => flags.has(c)).join('')), r: flags.has('r'), b: flags.has('b') };
  const keys: SortKey[] = [];
  for (const ka of keyArgs) {
    const m = /^(\d+)(?:\.(\d+))?([bnrghMV]*)(?:,(\d+)(?:\.(\d+))?([bnrghMV]*))?$/.exec(ka);
    if (!m || Number(m[1]) === 0) { yield* u.err(`sort: invalid number at field start: invalid count at start of '${ka}'\n`); return 2; }
    const o = (m[3] ?? '') + (m[6] ?? '');
    const k = o ? { mode: modeOf(o), r: o.includes('r'), b: o.includes('b') } : glob;
    keys.push({ sf: Number(m[1]), sc: Number(m[2] ?? 1), ef: Number(m[4] ?? 0), ec: Number(m[5] ?? 0), ...k });
  }
  if (!keys.length) keys.push({ sf: 1, sc: 1, ef: 0, ec: 0, ...glob });
  const t = vals.t;
  const s = yield* input(u, ops, 'sort');
  if (s === null) return 2;
  const keyCmp = (a: string, b: string): number => {
    for (const k of keys) {
      const x = keyText(a, k, t), y = keyText(b, k, t);
      const c = keyCompare(k.mode, x, y);
      if (c) return k.r ? -c : c;
    }
    return 0;
  };
  const last = !flags.has('s') && !flags.has('u');
  let l = lines(s).sort((a, b) => keyCmp(a, b) || (last ? (glob.r ? -byteCmp(a, b) : byteCmp(a, b)) : 0));
  if (flags.has('u')) l = l.filter((x, i) => i === 0 || keyCmp(x, l[i - 1]) !== 0);
  yield* u.out(l.map((x) => x + '\n').join(''));
  return 0;
};

/** uniq [-c] [-d] [-u]: adjacent equal lines, counted with "%7d " */
const uniq: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  const s = yield* input(u, ops, 'uniq');
  if (s === null) return 1;
  let out = '';
  const l = lines(s);
  for (let i = 0; i < l.length;) {
    let j = i;
    while (j < l.length && l[j] === l[i]) j++;
    const n = j - i;
    if (!(flags.has('d') && n === 1) && !(flags.has('u') && n > 1)) out += flags.has('c') ? `${String(n).padStart(7)} ${l[i]}\n` : `${l[i]}\n`;
    i = j;
  }
  yield* u.out(out);
  return 0;
};

/**
 * timeout DURATION COMMAND...: coreutils 9.1's timeout.c as strace shows Debian 12's binary
 * (data/recordings/timeout.json.gz, `timeout 1 sleep 3`): its own process group (setpgid), the
 * cleanup handler on ALRM INT QUIT HUP TERM (TERM twice: install_cleanup then the term signal), TTIN
 * and TTOU ignored, the CHLD handler installed and unblocked; fork, and in the child the TTIN/TTOU
 * defaults back and execvp; in the parent ALRM unblocked, a POSIX timer (timer_create +
 * timer_settime) armed, the handled signals blocked, then waitpid(WNOHANG) / sigsuspend until the
 * child is gone. When the timer fires the cleanup handler sends TERM to the child and (ignoring it
 * itself) to its group, then CONT the same way; the exit status is 124, else the child's.
 */
const timeout: ProgramMain = function* (u, argv) {
  const secs = parseDuration(argv[1] ?? '');
  if (secs === null || argv.length < 3) {
    yield* u.err(argv.length < 3 ? "timeout: missing operand\nTry 'timeout --help' for more information.\n" : `timeout: invalid time interval '${argv[1]}'\nTry 'timeout --help' for more information.\n`);
    return 125;
  }
  const cmd = argv.slice(2);
  const bit = (...s: number[]): number => s.reduce((a, x) => a | sigBit(x), 0);
  yield* u.malloc();
  yield* u.sys('setpgid', [0, 0]);
  const caught: number[] = [];
  const cleanupHandler = (sig: number): void => { caught.push(sig); };
  for (const sig of [SIGALRM, SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTERM]) yield* u.sigaction(sig, cleanupHandler);
  yield* u.sigaction(SIGTTIN, 'ignore');
  yield* u.sigaction(SIGTTOU, 'ignore');
  let chld = 0;
  yield* u.sigaction(SIGCHLD, () => { chld++; });
  yield* u.sys('rt_sigprocmask', [1, 1, 0, 8], { set: bit(SIGCHLD) });
  const pid = yield* u.fork(function* (cu: U): Prog {
    yield* cu.sigaction(SIGTTIN, 'default');
    yield* cu.sigaction(SIGTTOU, 'default');
    const r = yield* execvp(cu, cmd[0], cmd);
    yield* cu.err(`timeout: failed to run command '${cmd[0]}': ${r === -2 ? 'No such file or directory' : 'Permission denied'}\n`);
    return r === -2 ? 127 : 126;
  });
  if (pid < 0) { yield* u.err('timeout: fork system call failed: Resource temporarily unavailable\n'); return 125; }
  yield* u.sys('rt_sigprocmask', [1, 1, 0, 8], { set: bit(SIGALRM) });
  if (secs > 0) {
    yield* u.sys('timer_create', [0, 1, 1], { signo: SIGALRM });
    yield* u.sys('timer_settime', [0, 0, 1, 0], { value: Math.round(secs * 1e9) });
  }
  const held = bit(SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGCHLD);
  const orig = ((yield* u.sys('rt_sigprocmask', [0, 1, 1, 8], { set: held })).info?.old as number | undefined) ?? 0;
  let timedOut = false;
  let seenChld = 0;
  // a handler's end: the CHLD handler that ran on the way out of a syscall, then this one
  function* handlersDone(mask: number): G<void> {
    if (chld > seenChld) { seenChld = chld; yield* u.sys('rt_sigreturn', [], { set: mask | bit(SIGALRM) }); }
  }
  let status = 0;
  for (;;) {
    const [w, st] = yield* u.wait(pid, true);
    if (w !== 0) { status = st; break; }
    yield* u.sys('rt_sigsuspend', [1, 8], { set: orig });
    // the handlers that ran when the signals were delivered (cleanup's kill / sigaction calls are the program's)
    for (let sig = caught.shift(); sig !== undefined; sig = caught.shift()) {
      if (sig === SIGALRM) timedOut = true;
      const term = sig === SIGALRM ? SIGTERM : sig;
      // timeout.c's send_sig(child, s); signal(s, SIG_IGN); send_sig(0, s): the signal, then SIGCONT
      for (const s of [term, SIGCONT]) {
        yield* u.kill(pid, s);
        yield* handlersDone(orig);
        yield* u.sigaction(s, 'ignore');
        yield* handlersDone(orig);
        yield* u.kill(0, s);
        yield* handlersDone(orig);
      }
    }
    if (chld > seenChld) seenChld = chld;
    yield* u.sys('rt_sigreturn', [], { set: held, restore: -4 });
  }
  yield* u.closeStdout();
  if (timedOut) return 124;
  return status & 0x7f ? 128 + (status & 0x7f) : (status >> 8) & 0xff;
};

/** timeout's DURATION: a floating point number with an optional suffix s, m, h or d */
function parseDuration(s: string): number | null {
  const m = /^([0-9]*\.?[0-9]+|[0-9]+\.)([smhd]?)$/.exec(s);
  if (!m) return null;
  return parseFloat(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2]];
}

export const seedTools: Record<string, ProgramMain> = { mount, mkswap, cut, sort, uniq, awk, timeout };
