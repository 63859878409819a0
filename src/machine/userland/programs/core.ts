/** Core userland programs. Each is a generator of system calls (see user.ts). */
import type { U } from '../../process/user';
import type { Prog } from '../../include/sched';
import type { ProgramMain } from '../../process/user';
import { bytesToString } from '../../process/user';
import { O_CREAT, O_TRUNC, O_WRONLY, O_DIRECT } from '../../include/fs';
import { sh } from '../shell';

function* catFd(u: U, fd: number): Generator<import('../../include/sched').Op, void, import('../../include/sched').SysResult> {
  for (;;) {
    const r = yield* u.read(fd, 65536);
    if (r.ret <= 0 || !r.data) return;
    yield* u.writeAll(1, r.data);
  }
}
function* readText(u: U, p: string | null): Generator<import('../../include/sched').Op, string | null, import('../../include/sched').SysResult> {
  const fd = p === null ? 0 : yield* u.open(p);
  if (fd < 0) return null;
  const b = yield* u.readAll(fd);
  if (p !== null) yield* u.close(fd);
  return bytesToString(b);
}
const num = (s: string | undefined, d: number) => (s === undefined ? d : Number(s.replace(/[kKmMgG]$/, '')) * ({ k: 1024, K: 1024, m: 1 << 20, M: 1 << 20, g: 1 << 30, G: 1 << 30 }[s.slice(-1)] ?? 1));

/** A POSIX basic regular expression as a JavaScript one (\\( \\) \\{ \\} \\| \\+ \\? are the operators, the bare characters literals). */
export function breToJs(pat: string): string {
  let src = '';
  for (let i = 0; i < pat.length; i++) {
    const ch = pat[i];
    if (ch === '\\' && i + 1 < pat.length && '(){}|+?'.includes(pat[i + 1])) { src += pat[++i]; continue; }
    if (ch === '\\' && i + 1 < pat.length) { src += ch + pat[++i]; continue; }
    src += '(){}|+?'.includes(ch) ? `\\${ch}` : ch;
  }
  return src;
}

/**
 * grep's pattern: -F a fixed string, -E an extended regular expression, else a basic one (\( \)
 * \{ \} \| \+ \? are the operators, the bare characters literals); -i ignores case. A bad pattern
 * gives GNU grep's message instead of a match function.
 */
function grepPattern(pat: string, flags: string): { test(s: string): boolean } | string {
  const icase = flags.includes('i');
  if (flags.includes('F')) {
    const p = icase ? pat.toLowerCase() : pat;
    return { test: (s: string) => (icase ? s.toLowerCase() : s).includes(p) };
  }
  const src = flags.includes('E') ? pat : breToJs(pat);
  try {
    return new RegExp(src, icase ? 'i' : '');
  } catch (e) {
    const m = String((e as Error).message);
    // GNU grep 3.8: a '[' that ends the pattern is "Invalid regular expression"
    return /character class/.test(m) ? (pat.endsWith('[') ? 'Invalid regular expression' : 'Unmatched [, [^, [:, [., or [=')
      : /group|\)/.test(m) ? 'Unmatched ( or \\('
        : 'Invalid regular expression';
  }
}

export const programs: Record<string, ProgramMain> = {
  true: function* () { return 0; },
  false: function* () { return 1; },
  echo: function* (u, argv) {
    let a = argv.slice(1);
    let nl = true;
    if (a[0] === '-n') { nl = false; a = a.slice(1); }
    yield* u.out(a.join(' ') + (nl ? '\n' : ''));
    return 0;
  },
  cat: function* (u, argv) {
    const files = argv.slice(1);
    let st = 0;
    if (!files.length) yield* catFd(u, 0);
    for (const f of files) {
      if (f === '-') { yield* catFd(u, 0); continue; }
      const fd = yield* u.open(f);
      if (fd < 0) { yield* u.err(`cat: ${f}: No such file or directory\n`); st = 1; continue; }
      yield* catFd(u, fd);
      yield* u.close(fd);
    }
    return st;
  },
  sleep: function* (u, argv) {
    const s = parseFloat(argv[1] ?? '0');
    if (Number.isNaN(s)) { yield* u.err(`sleep: invalid time interval '${argv[1]}'\n`); return 1; }
    yield* u.nanosleep(Math.round(s * 1e9));
    return 0;
  },
  touch: function* (u, argv) {
    for (const f of argv.slice(1)) { const fd = yield* u.open(f, O_WRONLY | O_CREAT); if (fd >= 0) yield* u.close(fd); }
    return 0;
  },
  rm: function* (u, argv) {
    const rec = argv.some((a) => a === '-r' || a === '-rf' || a === '-fr');
    const force = argv.some((a) => a.includes('f') && a.startsWith('-'));
    let st = 0;
    const rmr = function* (p: string): Generator<import('../../include/sched').Op, number, import('../../include/sched').SysResult> {
      const s = yield* u.stat(p, true);
      if (typeof s !== 'number' && s.isDir && rec) {
        const fd = yield* u.open(p, 0o200000);
        const r = yield* u.getdents(fd);
        yield* u.close(fd);
        for (const n of Array.isArray(r) ? r : []) if (n !== '.' && n !== '..') yield* rmr(`${p}/${n}`);
        return yield* u.unlink(p, true);
      }
      return yield* u.unlink(p);
    };
    for (const f of argv.slice(1).filter((a) => !a.startsWith('-'))) {
      const r = yield* rmr(f);
      if (r < 0 && !force) { yield* u.err(`rm: cannot remove '${f}': ${r === -21 ? 'Is a directory' : 'No such file or directory'}\n`); st = 1; }
    }
    return st;
  },
  mkdir: function* (u, argv) {
    const p = argv.includes('-p');
    let st = 0;
    for (const d of argv.slice(1).filter((a) => !a.startsWith('-'))) {
      if (p) {
        let cur = d.startsWith('/') ? '' : '.';
        for (const part of d.split('/').filter(Boolean)) { cur += '/' + part; yield* u.mkdir(cur); }
        continue;
      }
      const r = yield* u.mkdir(d);
      if (r < 0) { yield* u.err(`mkdir: cannot create directory '${d}': ${r === -17 ? 'File exists' : 'No such file or directory'}\n`); st = 1; }
    }
    return st;
  },
  cp: function* (u, argv) {
    const a = argv.slice(1).filter((x) => !x.startsWith('-'));
    if (a.length < 2) { yield* u.err('cp: missing file operand\n'); return 1; }
    let dst = a[a.length - 1];
    const ds = yield* u.stat(dst);
    for (const src of a.slice(0, -1)) {
      const target = typeof ds !== 'number' && ds.isDir ? `${dst}/${src.split('/').pop()}` : dst;
      const i = yield* u.open(src);
      if (i < 0) { yield* u.err(`cp: cannot stat '${src}': No such file or directory\n`); return 1; }
      const o = yield* u.open(target, O_WRONLY | O_CREAT | O_TRUNC);
      for (;;) { const r = yield* u.read(i, 131072); if (r.ret <= 0 || !r.data) break; yield* u.writeAll(o, r.data); }
      yield* u.close(i); yield* u.close(o);
    }
    void dst; dst = '';
    return 0;
  },
  mv: function* (u, argv) {
    const a = argv.slice(1);
    if (a.length < 2) { yield* u.err('mv: missing file operand\n'); return 1; }
    const ds = yield* u.stat(a[1]);
    const target = typeof ds !== 'number' && ds.isDir ? `${a[1]}/${a[0].split('/').pop()}` : a[1];
    const r = yield* u.rename(a[0], target);
    if (r < 0) { yield* u.err(`mv: cannot stat '${a[0]}': No such file or directory\n`); return 1; }
    return 0;
  },
  grep: function* (u, argv) {
    const flags = argv.slice(1).filter((a) => a.startsWith('-') && a !== '-').join('');
    const rest = argv.slice(1).filter((a) => !a.startsWith('-') || a === '-');
    const pat = rest[0];
    if (pat === undefined) { yield* u.err('Usage: grep [OPTION]... PATTERNS [FILE]...\nTry \'grep --help\' for more information.\n'); return 2; }
    const re = grepPattern(pat, flags);
    if (typeof re === 'string') { yield* u.err(`grep: ${re}\n`); return 2; }
    const files = rest.slice(1);
    let found = false;
    let count = 0;
    let st = 0;
    for (const f of files.length ? files : [null]) {
      const text = yield* readText(u, f === '-' ? null : f);
      if (text === null) { yield* u.err(`grep: ${f}: No such file or directory\n`); st = 2; continue; }
      let out = '';
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const [n, l] of lines.entries()) {
        if (re.test(l) !== flags.includes('v')) {
          found = true; count++;
          if (!flags.includes('c') && !flags.includes('q')) out += (files.length > 1 && !flags.includes('h') ? `${f}:` : '') + (flags.includes('n') ? `${n + 1}:` : '') + l + '\n';
        }
      }
      yield* u.out(out);
    }
    if (flags.includes('c')) yield* u.out(`${count}\n`);
    return st || (found ? 0 : 1);
  },
  /** head [-n N | -nN | -N | --lines=N] [FILE...]: the first N lines (a header per file when several) */
  head: function* (u, argv) {
    let n = 10, arg = '10';
    const files: string[] = [];
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i];
      const opt = a === '-n' ? argv[++i] ?? '' : /^-n./.test(a) ? a.slice(2) : /^-\d/.test(a) ? a.slice(1) : a.startsWith('--lines=') ? a.slice(8) : null;
      if (opt === null) files.push(a);
      else { arg = opt; n = /^\d+$/.test(opt) ? Number(opt) : NaN; }
    }
    if (Number.isNaN(n)) { yield* u.err(`head: invalid number of lines: '${arg}'\n`); return 1; }
    let status = 0;
    const list = files.length ? files : [null];
    for (const [k, f] of list.entries()) {
      const t = yield* readText(u, f);
      if (t === null) { yield* u.err(`head: cannot open '${f}' for reading: No such file or directory\n`); status = 1; continue; }
      if (list.length > 1) yield* u.out(`${k ? '\n' : ''}==> ${f} <==\n`);
      let end = 0;
      for (let l = 0; l < n && end < t.length; l++) { const nl = t.indexOf('\n', end); end = nl < 0 ? t.length : nl + 1; }
      yield* u.out(t.slice(0, end));
    }
    return status;
  },
  tail: function* (u, argv) {
    const n = argv[1] === '-n' ? Number(argv[2]) : argv[1]?.startsWith('-') ? Number(argv[1].slice(1)) : 10;
    const f = argv.slice(1).filter((a) => !a.startsWith('-') && a !== String(n)).pop() ?? null;
    // keep only the last n lines while streaming
    const fd = f === null ? 0 : yield* u.open(f);
    if (fd < 0) return 1;
    let keep: string[] = [];
    let partial = '';
    for (;;) {
      const r = yield* u.read(fd, 65536);
      if (r.ret <= 0 || !r.data) break;
      const parts = (partial + bytesToString(r.data)).split('\n');
      partial = parts.pop() as string;
      keep = keep.concat(parts).slice(-n);
    }
    if (partial) keep = keep.concat([partial]).slice(-n);
    yield* u.out(keep.map((l) => l + '\n').join(''));
    return 0;
  },
  wc: function* (u, argv) {
    const f = argv.slice(1).filter((a) => !a.startsWith('-'))[0] ?? null;
    const t = yield* readText(u, f);
    if (t === null) return 1;
    const l = (t.match(/\n/g) ?? []).length;
    const w = t.split(/\s+/).filter(Boolean).length;
    if (argv.includes('-l')) yield* u.out(`${l}${f ? ' ' + f : ''}\n`);
    else yield* u.out(`${String(l).padStart(7)} ${String(w).padStart(7)} ${String(t.length).padStart(7)}${f ? ' ' + f : ''}\n`);
    return 0;
  },
  xxd: function* (u, argv) {
    const f = argv[1] ?? null;
    const fd = f === null ? 0 : yield* u.open(f);
    if (fd < 0) { yield* u.err(`xxd: ${f}: No such file or directory\n`); return 2; }
    let off = 0;
    let carry = new Uint8Array(0);
    for (;;) {
      const r = yield* u.read(fd, 4096);
      if (r.ret <= 0 || !r.data) break;
      const b = carry.length ? Buffer.concat([carry, r.data]) : r.data;
      const full = b.length - (b.length % 16);
      let out = '';
      for (let i = 0; i < full; i += 16) out += xxdLine(off + i, b.subarray(i, i + 16));
      off += full;
      carry = b.slice(full);
      yield* u.cpu(full * 6);
      yield* u.writeAll(1, out);
    }
    if (carry.length) yield* u.writeAll(1, xxdLine(off, carry));
    return 0;
  },
  dd: function* (u, argv) {
    const o: Record<string, string> = {};
    for (const a of argv.slice(1)) { const i = a.indexOf('='); if (i > 0) o[a.slice(0, i)] = a.slice(i + 1); }
    const bs = num(o.bs, 512);
    const count = o.count !== undefined ? Number(o.count) : Infinity;
    // iflag=direct / oflag=direct: O_DIRECT on that file (coreutils dd's open flags)
    const direct = (v: string | undefined) => ((v ?? '').split(',').includes('direct') ? O_DIRECT : 0);
    const ifd = o.if ? yield* u.open(o.if, direct(o.iflag)) : 0;
    if (ifd < 0) { yield* u.err(`dd: failed to open '${o.if}': No such file or directory\n`); return 1; }
    const ofd = o.of ? yield* u.open(o.of, O_WRONLY | O_CREAT | (o.conv?.split(',').includes('notrunc') ? 0 : O_TRUNC) | direct(o.oflag)) : 1;
    const t0 = u.m.now;
    let full = 0, part = 0, bytes = 0;
    while (full + part < count) {
      const r = yield* u.read(ifd, bs);
      if (r.ret <= 0 || !r.data) break;
      if (r.ret === bs) full++; else part++;
      bytes += r.ret;
      yield* u.writeAll(ofd, r.data);
    }
    if (o.conv === 'fsync' || o.conv === 'fdatasync') yield* u.fsync(ofd);
    if (o.of) yield* u.close(ofd);
    const secs = Math.max(1e-6, (u.m.now - t0) / 1e9);
    const rate = bytes / secs;
    const rs = rate >= 1e9 ? `${(rate / 1e9).toFixed(1)} GB/s` : rate >= 1e6 ? `${(rate / 1e6).toFixed(1)} MB/s` : `${(rate / 1e3).toFixed(1)} kB/s`;
    const h = (v: number) => (v >= 10 ? String(Math.round(v)) : (Math.round(v * 10) / 10).toFixed(1));
    const human = bytes >= 1e6 ? ` (${h(bytes / 1e6)} MB, ${h(bytes / 1048576)} MiB)` : bytes >= 1000 ? ` (${h(bytes / 1e3)} kB, ${h(bytes / 1024)} KiB)` : '';
    yield* u.err(`${full}+${part} records in\n${full}+${part} records out\n${bytes} bytes${human} copied, ${secs.toPrecision(3)} s, ${rs}\n`);
    return 0;
  },
  sync: function* (u) { yield* u.sync(); return 0; },
  pwd: function* (u) { yield* u.out(u.t.proc.cwd + '\n'); return 0; },
  uname: function* (u, argv) {
    yield* u.uname();
    const { KERNEL_RELEASE } = require('../../../kernel/config') as typeof import('../../../kernel/config');
    yield* u.out(argv.includes('-r') ? `${KERNEL_RELEASE}\n` : argv.includes('-a') ? `Linux ${u.m.hostname} ${KERNEL_RELEASE} #1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-09) x86_64 GNU/Linux\n` : 'Linux\n');
    return 0;
  },
  swapon: function* (u, argv) {
    let targets = argv.slice(1).filter((a) => !a.startsWith('-'));
    if (argv.includes('-a')) {
      const t = (yield* readText(u, '/etc/fstab')) ?? '';
      targets = t.split('\n').filter((l) => !l.startsWith('#') && l.split(/\s+/)[2] === 'swap').map((l) => l.split(/\s+/)[0]);
      const cur = (yield* readText(u, '/proc/swaps')) ?? '';
      targets = targets.filter((x) => !cur.includes(x));
    }
    if (!targets.length && !argv.includes('-a')) { yield* u.out((yield* readText(u, '/proc/swaps')) ?? ''); return 0; }
    let st = 0;
    for (const t of targets) {
      // read the swap header (mkswap signature page)
      const fd = yield* u.open(t);
      if (fd >= 0) { yield* u.pread(fd, 4096, 0); yield* u.close(fd); }
      const r = yield* u.swapon(t);
      if (r < 0) { yield* u.err(`swapon: ${t}: swapon failed: ${r === -16 ? 'Device or resource busy' : 'No such file or directory'}\n`); st = 1; }
    }
    return st;
  },
  swapoff: function* (u, argv) {
    let targets = argv.slice(1).filter((a) => !a.startsWith('-'));
    if (argv.includes('-a')) targets = u.m.mm.swaps.map((s) => s.path);
    for (const t of targets) yield* u.swapoff(t);
    return 0;
  },
  kill: function* (u, argv) {
    let sig = 15;
    const a = argv.slice(1);
    if (a[0]?.startsWith('-')) { const s = a.shift()!.slice(1); sig = /^\d+$/.test(s) ? Number(s) : ({ KILL: 9, TERM: 15, INT: 2, HUP: 1, USR1: 10, USR2: 12, STOP: 19, CONT: 18 } as Record<string, number>)[s.replace(/^SIG/, '')] ?? 15; }
    let st = 0;
    for (const p of a) {
      const r = yield* u.kill(Number(p), sig);
      if (r < 0) { yield* u.err(`kill: (${p}) - No such process\n`); st = 1; }
    }
    return st;
  },
  find: function* (u, argv) {
    const a = argv.slice(1);
    const roots = a.filter((x, i) => !x.startsWith('-') && (i === 0 || !a[i - 1].startsWith('-')));
    const ni = a.indexOf('-name');
    const ti = a.indexOf('-type');
    const { globToRegExp } = require('../../../kernel/kallsyms') as typeof import('../../../kernel/kallsyms');
    const re = ni >= 0 ? globToRegExp(a[ni + 1]) : null;
    const type = ti >= 0 ? a[ti + 1] : null;
    let out = '';
    const walk = function* (p: string, depth: number): Generator<import('../../include/sched').Op, void, import('../../include/sched').SysResult> {
      const s = yield* u.stat(p, true);
      if (typeof s === 'number') return;
      const name = p.split('/').pop() || p;
      const tOk = !type || (type === 'd' && s.isDir) || (type === 'f' && s.isReg) || (type === 'l' && s.isLnk);
      if ((!re || re.test(name)) && tOk) out += p + '\n';
      if (s.isDir && depth < 12 && !p.startsWith('/proc')) {
        const fd = yield* u.open(p, 0o200000);
        const r = yield* u.getdents(fd);
        yield* u.close(fd);
        for (const n of (Array.isArray(r) ? r : []).filter((x) => x !== '.' && x !== '..').sort()) yield* walk(p === '/' ? `/${n}` : `${p}/${n}`, depth + 1);
      }
    };
    for (const r of roots.length ? roots : ['.']) yield* walk(r, 0);
    yield* u.out(out);
    return 0;
  },
  sh,
  bash: sh,
};

function xxdLine(off: number, b: Uint8Array): string {
  let hex = '';
  let asc = '';
  for (let i = 0; i < 16; i++) {
    if (i < b.length) { hex += b[i].toString(16).padStart(2, '0'); asc += b[i] >= 32 && b[i] < 127 ? String.fromCharCode(b[i]) : '.'; }
    else hex += '  ';
    if (i & 1) hex += ' ';
  }
  return `${off.toString(16).padStart(8, '0')}: ${hex} ${asc}\n`;
}

export type { Prog };
