/**
 * GNU coreutils 9.1 (Debian 12) commands with their real output formats in the C locale, TZ UTC:
 * chmod, ln, readlink, df, du,
 * date, id, env, tee, seq, xargs (findutils).  Formats checked against
 * the commands on this Debian 12 host.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import type { StatInfo } from '../../include/fs';
import { bytesToString } from '../../process/user';
import { O_CREAT, O_TRUNC, O_WRONLY, O_APPEND } from '../../include/fs';
import { epochSeconds, lsTime, statTime, dateString, strftime } from '../libc_time';
import { humanScale } from '../gnulib_human';
import { errStr } from '../libc_strerror';
import { execvp } from '../libfs';
import { environOf } from '../../process/environ';
import { error, tryHelp } from '../libc_error';

type G<T> = Generator<Op, T, SysResult>;

const AT_FDCWD = -100;
export { errStr };

/** split argv into option letters (-abc, --long) and operands ("--" ends options) */
/** `digitFlags`: -1, -2 ... are options (ls -1) rather than numbers (head -5, kill -9). */
export function parseArgs(argv: string[], withValue = '', digitFlags = false): { flags: Set<string>; long: string[]; vals: Record<string, string>; ops: string[] } {
  const flags = new Set<string>();
  const long: string[] = [];
  const vals: Record<string, string> = {};
  const ops: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { ops.push(...argv.slice(i + 1)); break; }
    if (a.startsWith('--')) { long.push(a.slice(2)); continue; }
    if (a.startsWith('-') && a.length > 1 && (digitFlags || !/^-\d/.test(a))) {
      for (let k = 1; k < a.length; k++) {
        const ch = a[k];
        if (withValue.includes(ch)) { vals[ch] = a.slice(k + 1) || argv[++i] || ''; break; }
        flags.add(ch);
      }
      continue;
    }
    ops.push(a);
  }
  return { flags, long, vals, ops };
}

function* readInput(u: U, files: string[], prog: string): G<string | null> {
  let s = '';
  for (const f of files.length ? files : ['-']) {
    if (f === '-') { s += bytesToString(yield* u.readAll(0)); continue; }
    const fd = yield* u.open(f);
    if (fd < 0) { yield* u.err(`${prog}: ${f}: ${errStr(fd)}\n`); return null; }
    s += bytesToString(yield* u.readAll(fd));
    yield* u.close(fd);
  }
  return s;
}

const USERS: Record<number, string> = { 0: 'root', 1: 'daemon', 33: 'www-data', 100: 'sshd', 1000: 'user', 65534: 'nogroup' };
export const userName = (id: number) => USERS[id] ?? String(id);

export function modeString(s: StatInfo): string {
  const type = s.isDir ? 'd' : s.isLnk ? 'l' : s.isChr ? 'c' : s.isBlk ? 'b' : (s.mode & 0o170000) === 0o010000 ? 'p' : (s.mode & 0o170000) === 0o140000 ? 's' : '-';
  const m = s.mode;
  const bit = (r: number, ch: string) => (m & r ? ch : '-');
  const x = (exec: number, special: number, on: string, off: string) => (m & special ? (m & exec ? on : off) : (m & exec ? 'x' : '-'));
  return type + bit(0o400, 'r') + bit(0o200, 'w') + x(0o100, 0o4000, 's', 'S') + bit(0o40, 'r') + bit(0o20, 'w') + x(0o10, 0o2000, 's', 'S')
    + bit(0o4, 'r') + bit(0o2, 'w') + x(0o1, 0o1000, 't', 'T');
}

/** ls -h / du -h / df -h sizes: K M G T P (powers of 1024), rounded up (gnulib_human.ts) */
export function human(n: number): string {
  const h = humanScale(n, 1024, Math.ceil, 4);
  return h.unit < 0 ? h.digits : h.digits + 'KMGTP'[h.unit];
}

export function* readlink(u: U, p: string): G<string | null> {
  const r = yield* u.sys('readlinkat', [AT_FDCWD, p, 0, 4096]);
  return r.ret < 0 ? null : String((r.info as { target?: string } | undefined)?.target ?? '');
}

/** who letters' bits (gnulib modechange.c): u, g, o, a */
const WHO: Record<string, number> = { u: 0o4700, g: 0o2070, o: 0o1007, a: 0o7777 };
/** permission letters' bits, for every who */
const PERM: Record<string, number> = { r: 0o444, w: 0o222, x: 0o111, s: 0o6000, t: 0o1000 };
/**
 * A mode string applied to `old` (gnulib mode_compile + mode_adjust, as chmod, mkdir -m, mkfifo -m and
 * mknod -m use it): octal (every bit set as given) or comma-separated [ugoa]*[-+=][rwxXst]* clauses; a
 * clause without who letters is limited by `umask`; a directory keeps its set-id bits unless a clause names
 * them.  Null for an invalid mode.
 */
export function modeAdjust(old: number, isDir: boolean, umask: number, spec: string): number | null {
  if (/^[0-7]+$/.test(spec)) {
    const v = parseInt(spec, 8);
    // (a directory keeps its set-id bits when fewer than 4 digits name them)
    return v > 0o7777 ? null : isDir && spec.replace(/^0+/, '').length < 4 ? v | (old & 0o6000) : v;
  }
  let mode = old;
  for (const clause of spec.split(',')) {
    const m = /^([ugoa]*)([-+=][rwxXst]*)+$/.exec(clause);
    if (!m) return null;
    let affected = 0;
    for (const w of m[1]) affected |= WHO[w];
    for (const op of clause.slice(m[1].length).match(/[-+=][rwxXst]*/g)!) {
      let value = 0;
      for (const ch of op.slice(1)) {
        if (ch === 'X') { if (old & 0o111 || isDir) value |= 0o111; } else value |= PERM[ch];
      }
      const mentioned = affected ? affected & value : value;
      const omit = (isDir ? 0o6000 : 0) & ~mentioned;
      value &= (affected || ~umask) & ~omit;
      if (op[0] === '=') mode = (mode & ((affected ? ~affected : 0) | omit)) | value;
      else if (op[0] === '+') mode |= value;
      else mode &= ~value;
    }
  }
  return mode & 0o7777;
}

const chmod: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  if (ops.length < 2) { yield* u.err(`chmod: missing operand${ops.length ? ` after '${ops[0]}'` : ''}\nTry 'chmod --help' for more information.\n`); return 1; }
  const spec = ops[0];
  let st = 0;
  for (const p of ops.slice(1)) {
    const s = yield* u.stat(p);
    if (typeof s === 'number') { yield* u.err(`chmod: cannot access '${p}': ${errStr(s)}\n`); st = 1; continue; }
    const mode = modeAdjust(s.mode & 0o7777, s.isDir, 0, spec);
    if (mode === null) { yield* u.err(`chmod: invalid mode: '${spec}'\nTry 'chmod --help' for more information.\n`); return 1; }
    const r = yield* u.sys('fchmodat', [AT_FDCWD, p, mode]);
    if (r.ret < 0) { yield* u.err(`chmod: changing permissions of '${p}': ${errStr(r.ret)}\n`); st = 1; }
    else if (flags.has('v')) yield* u.out(`mode of '${p}' changed from ${(s.mode & 0o7777).toString(8).padStart(4, '0')} (${modeString(s).slice(1)}) to ${mode.toString(8).padStart(4, '0')} (${modeString({ ...s, mode: (s.mode & ~0o7777) | mode }).slice(1)})\n`);
  }
  return st;
};

const ln: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  if (!ops.length) { yield* u.err("ln: missing file operand\nTry 'ln --help' for more information.\n"); return 1; }
  const target = ops[0];
  let link = ops[1] ?? target.split('/').pop()!;
  const ds = yield* u.stat(link);
  if (typeof ds !== 'number' && ds.isDir) link = `${link}/${target.split('/').pop()}`;
  if (flags.has('f')) yield* u.unlink(link);
  const r = flags.has('s') ? yield* u.sys('symlinkat', [target, AT_FDCWD, link]) : yield* u.sys('linkat', [AT_FDCWD, target, AT_FDCWD, link, 0]);
  if (r.ret < 0) {
    yield* u.err(r.ret === -17 ? `ln: failed to create ${flags.has('s') ? 'symbolic ' : 'hard '}link '${link}': File exists\n`
      : flags.has('s') ? `ln: failed to create symbolic link '${link}': ${errStr(r.ret)}\n` : `ln: failed to access '${target}': ${errStr(r.ret)}\n`);
    return 1;
  }
  return 0;
};

const readlinkProg: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  let st = 0;
  for (const p of ops) {
    if (flags.has('f') || flags.has('e')) {
      // canonicalize: follow every link of the path
      let cur = p.startsWith('/') ? p : `${u.t.proc.cwd}/${p}`;
      for (let i = 0; i < 16; i++) { const l = yield* readlink(u, cur); if (l === null) break; cur = l.startsWith('/') ? l : `${cur.slice(0, cur.lastIndexOf('/'))}/${l}`; }
      const parts: string[] = [];
      for (const s of cur.split('/')) { if (s === '..') parts.pop(); else if (s && s !== '.') parts.push(s); }
      yield* u.out(`/${parts.join('/')}\n`);
      continue;
    }
    const l = yield* readlink(u, p);
    if (l === null) st = 1; else yield* u.out(l + '\n');
  }
  return st;
};

/** the mounted filesystems (/proc/mounts) */
function* mounts(u: U): G<{ dev: string; at: string; type: string }[]> {
  const fd = yield* u.open('/proc/mounts');
  const t = fd < 0 ? '' : bytesToString(yield* u.readAll(fd));
  if (fd >= 0) yield* u.close(fd);
  return t.split('\n').filter(Boolean).map((l) => { const f = l.split(' '); return { dev: f[0], at: f[1], type: f[2] }; });
}

const df: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  const hum = flags.has('h');
  const all = yield* mounts(u);
  // df hides pseudo filesystems without blocks (proc, sysfs, tracefs ...) unless -a
  let list = all;
  if (ops.length) {
    list = [];
    for (const p of ops) {
      const abs = p.startsWith('/') ? p : `${u.t.proc.cwd}/${p}`;
      const m = all.filter((x) => abs === x.at || abs.startsWith(x.at === '/' ? '/' : x.at + '/')).sort((a, b) => b.at.length - a.at.length)[0];
      if (m) list.push(m);
    }
  }
  const rows: string[][] = [];
  for (const m of list) {
    const r = yield* u.sys('statfs', [m.at, 0]);
    if (r.ret < 0) continue;
    const i = r.info as { bsize: number; blocks: number; bfree: number; bavail: number };
    if (!i.blocks && !flags.has('a') && !ops.length) continue;
    const k = i.bsize / 1024;
    const size = i.blocks * k, used = (i.blocks - i.bfree) * k, avail = i.bavail * k;
    const pct = used + avail ? `${Math.ceil((used * 100) / (used + avail))}%` : '-';
    rows.push([m.dev, hum ? human(size * 1024) : String(size), hum ? human(used * 1024) : String(used), hum ? human(avail * 1024) : String(avail), pct, m.at]);
  }
  const head = ['Filesystem', hum ? 'Size' : '1K-blocks', 'Used', hum ? 'Avail' : 'Available', 'Use%', 'Mounted on'];
  // GNU df's minimum widths: the source 14, 1K-blocks and Available 9, -h sizes 5, Use% 4
  const min = [14, hum ? 5 : 9, 5, hum ? 5 : 9, 4, 0];
  const w = head.map((h, k) => Math.max(min[k], h.length, ...rows.map((r) => r[k].length)));
  const line = (r: string[]) => `${r[0].padEnd(w[0])} ${r.slice(1, 5).map((c, k) => c.padStart(w[k + 1])).join(' ')} ${r[5]}\n`;
  yield* u.out(line(head).replace(/ +\n$/, '\n') + rows.map(line).join(''));
  return 0;
};

const du: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  const hum = flags.has('h');
  const summary = flags.has('s');
  const showAll = flags.has('a');
  let out = '';
  const fmt = (k: number, p: string) => `${hum ? human(k * 1024) : k}\t${p}\n`;
  const walk = function* (p: string, depth: number): G<number> {
    const s = yield* u.stat(p, true);
    if (typeof s === 'number') { yield* u.err(`du: cannot access '${p}': ${errStr(s)}\n`); return 0; }
    let k = (s.blocks ?? 0) / 2;
    if (s.isDir && !p.startsWith('/proc') && depth < 32) {
      const fd = yield* u.open(p, 0o200000);
      const r = fd < 0 ? [] : yield* u.getdents(fd);
      if (fd >= 0) yield* u.close(fd);
      for (const n of (Array.isArray(r) ? r : []).filter((x) => x !== '.' && x !== '..').sort()) {
        const c = p === '/' ? `/${n}` : `${p}/${n}`;
        k += yield* walk(c, depth + 1);
      }
      if (!summary || depth === 0) out += fmt(k, p);
    } else if ((showAll && !summary) || depth === 0) out += fmt(k, p);
    return k;
  };
  let total = 0;
  for (const p of ops.length ? ops : ['.']) total += yield* walk(p, 0);
  if (flags.has('c')) out += fmt(total, 'total');
  yield* u.out(out);
  return 0;
};

const date: ProgramMain = function* (u, argv) {
  const { ops, vals } = parseArgs(argv, 'd');
  let ns = u.m.now;
  let sec = epochSeconds(u.m.bootNs, ns);
  if (vals.d !== undefined) {
    const m = /^@(-?\d+)$/.exec(vals.d.trim());
    if (!m) { yield* u.err(`date: invalid date '${vals.d}'\n`); return 1; }
    sec = Number(m[1]); ns = 0;
  }
  const fmt = ops.find((o) => o.startsWith('+'));
  yield* u.out((fmt ? strftime(fmt.slice(1), sec, Math.floor(((ns - u.m.bootNs) % 1e9 + 1e9) % 1e9)) : dateString(sec)) + '\n');
  return 0;
};

const id: ProgramMain = function* (u, argv) {
  const { flags } = parseArgs(argv);
  const t = u.t;
  if (flags.has('u')) { yield* u.out(`${flags.has('n') ? userName(t.euid) : t.euid}\n`); return 0; }
  if (flags.has('g')) { yield* u.out(`${flags.has('n') ? userName(t.egid) : t.egid}\n`); return 0; }
  if (flags.has('G')) { yield* u.out(`${flags.has('n') ? userName(t.egid) : t.egid}\n`); return 0; }
  yield* u.out(`uid=${t.uid}(${userName(t.uid)}) gid=${t.gid}(${userName(t.gid)}) groups=${t.gid}(${userName(t.gid)})\n`);
  return 0;
};


/**
 * GNU env 9.1: options up to the first operand (getopt "+"), -i / - / --ignore-environment, -u NAME /
 * --unset=NAME, -0 / --null; then NAME=VALUE operands; then the command, run by execvp with the new
 * environment (its PATH searched; glibc's /bin:/usr/bin without one), or the environment printed.
 */
const env: ProgramMain = function* (u, argv) {
  let vars = environOf(u.t.proc).slice();
  let nul = false;
  // (getopt's message, then usage(EXIT_CANCELED)'s pointer)
  const usage = function* (msg: string): G<number> {
    yield* u.err(`env: ${msg}\n`);
    yield* tryHelp(u, 'env');
    return 125;
  };
  const unset = (k: string): void => { vars = vars.filter((v) => !v.startsWith(k + '=')); };
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '-') { vars = []; continue; }
    if (!a.startsWith('-')) break;
    if (a.startsWith('--')) {
      const [name, val] = a.includes('=') ? [a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a.slice(2), undefined];
      const full = ['ignore-environment', 'null', 'unset'].filter((o) => o.startsWith(name));
      if (full.length !== 1) return yield* usage(`unrecognized option '${a}'`);
      if (full[0] === 'ignore-environment') vars = [];
      else if (full[0] === 'null') nul = true;
      else {
        const v = val ?? argv[++i];
        if (v === undefined) return yield* usage(`option '--unset' requires an argument`);
        unset(v);
      }
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const f = a[j];
      if (f === 'i') vars = [];
      else if (f === '0') nul = true;
      else if (f === 'u') {
        const v = j + 1 < a.length ? a.slice(j + 1) : argv[++i];
        if (v === undefined) return yield* usage(`option requires an argument -- 'u'`);
        unset(v);
        break;
      } else return yield* usage(`invalid option -- '${f}'`);
    }
  }
  for (; i < argv.length && argv[i].includes('='); i++) {
    const k = argv[i].slice(0, argv[i].indexOf('='));
    unset(k);
    vars.push(argv[i]);
  }
  if (i < argv.length) {
    const r = yield* execvp(u, argv[i], argv.slice(i), vars);
    yield* error(u, 'env', `'${argv[i]}'`, r);
    return r === -13 ? 126 : 127;
  }
  yield* u.out(vars.map((v) => v + (nul ? '\0' : '\n')).join(''));
  return 0;
};

const tee: ProgramMain = function* (u, argv) {
  const { flags, ops } = parseArgs(argv);
  const fds: number[] = [];
  let st = 0;
  for (const f of ops) {
    const fd = yield* u.open(f, O_WRONLY | O_CREAT | (flags.has('a') ? O_APPEND : O_TRUNC));
    if (fd < 0) { yield* u.err(`tee: ${f}: ${errStr(fd)}\n`); st = 1; } else fds.push(fd);
  }
  for (;;) {
    const r = yield* u.read(0, 8192);
    if (r.ret <= 0 || !r.data) break;
    yield* u.writeAll(1, r.data);
    for (const fd of fds) yield* u.writeAll(fd, r.data);
  }
  for (const fd of fds) yield* u.close(fd);
  return st;
};

const seq: ProgramMain = function* (u, argv) {
  const { flags, vals, ops } = parseArgs(argv, 'sf');
  const nums = ops.map(Number);
  if (!ops.length || nums.some(Number.isNaN)) {
    yield* u.err(ops.length ? `seq: invalid floating point argument: '${ops.find((o) => Number.isNaN(Number(o)))}'\nTry 'seq --help' for more information.\n` : "seq: missing operand\nTry 'seq --help' for more information.\n");
    return 1;
  }
  const [first, step, last] = nums.length === 1 ? [1, 1, nums[0]] : nums.length === 2 ? [nums[0], 1, nums[1]] : nums;
  const dec = Math.max(...ops.slice(0, nums.length === 3 ? 2 : 1).map((o) => (o.includes('.') ? o.length - o.indexOf('.') - 1 : 0)));
  const sep = vals.s ?? '\n';
  const out: string[] = [];
  // -w: every number zero-padded (after its sign) to the wider of FIRST and LAST as printed (coreutils 9.1: seq -w 5 -2 -5 -> 05 ... -5)
  const width = flags.has('w') ? Math.max(first.toFixed(dec).length, last.toFixed(dec).length) : 0;
  const fmt = (x: number): string => { const t = x.toFixed(dec); return t.startsWith('-') ? '-' + t.slice(1).padStart(width - 1, '0') : t.padStart(width, '0'); };
  if (step !== 0) for (let x = first, k = 0; step > 0 ? x <= last + 1e-12 : x >= last - 1e-12; k++, x = first + k * step) { out.push(fmt(x)); if (out.length > 1e6) break; }
  yield* u.out(out.length ? out.join(sep) + '\n' : '');
  return 0;
};

const xargs: ProgramMain = function* (u, argv) {
  let i = 1;
  let n = 0;
  for (; i < argv.length && argv[i].startsWith('-'); i++) {
    if (argv[i] === '-n') n = Number(argv[++i]);
    else if (argv[i].startsWith('-n')) n = Number(argv[i].slice(2));
  }
  const cmd = argv.slice(i).length ? argv.slice(i) : ['echo'];
  const words = bytesToString(yield* u.readAll(0)).split(/\s+/).filter(Boolean);
  const groups: string[][] = [];
  if (!words.length) groups.push([]);
  for (let k = 0; k < words.length; k += n > 0 ? n : words.length) groups.push(words.slice(k, k + (n > 0 ? n : words.length)));
  let st = 0;
  for (const g of groups) {
    const args = [...cmd, ...g];
    const pid = yield* u.fork((c) => (function* (): G<number> { yield* execvp(c, cmd[0], args); yield* c.err(`xargs: ${cmd[0]}: No such file or directory\n`); yield* c.exit(127); return 127; })());
    const [, status] = yield* u.wait(pid);
    if (status !== 0) st = 123;
  }
  return st;
};

export const coreutils: Record<string, ProgramMain> = {
  chmod, ln, readlink: readlinkProg, df, du, date, id, env, tee, seq, xargs,
};
