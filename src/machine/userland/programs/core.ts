/** Core userland programs. Each is a generator of system calls (see user.ts). */
import type { U } from '../../process/user';
import type { Prog, Op, SysResult } from '../../include/sched';
import type { ProgramMain } from '../../process/user';
import { bytesToString } from '../../process/user';
import { O_CREAT, O_TRUNC, O_WRONLY, O_RDWR, O_DIRECT } from '../../include/fs';
import { sh } from '../shell';
import { gForm } from '../libc_printf';
import { humanScale } from '../gnulib_human';
import { find } from './find';
import { errStr } from '../libc_strerror';

function* catFd(u: U, fd: number): Generator<import('../../include/sched').Op, void, import('../../include/sched').SysResult> {
  for (;;) {
    const r = yield* u.read(fd, 65536);
    if (r.ret <= 0 || !r.data) return;
    yield* u.writeAll(1, r.data);
  }
}
/**
 * head -c -N / -n -N (head.c elide_tail_*; the pipe variant, which coreutils 9.1 also takes for a
 * regular file no larger than its st_blksize): fstat, lseek(0, SEEK_CUR), the whole input read (-c:
 * into an N + 8 KiB buffer, -n: 8 KiB reads), all but the last N bytes or lines through stdio, and a
 * seekable input left positioned after what was printed (lseek SEEK_SET) as strace of Debian 12's
 * head shows.  A larger regular file is read the same way (the real head seeks back from its end).
 */
function* headElide(u: U, fd: number, n: number, bytes: boolean): Generator<import('../../include/sched').Op, void, import('../../include/sched').SysResult> {
  yield* u.fstat(fd);
  const pos = yield* u.lseek(fd, 0, 1);
  const size = bytes ? n + 8192 : 8192;
  let t = '';
  for (;;) {
    const r = yield* u.read(fd, bytes ? size - (t.length % size) : size);
    if (r.ret <= 0 || !r.data) break;
    t += bytesToString(r.data);
  }
  let end = Math.max(0, t.length - n);
  if (!bytes) {
    const ls = t.split(/(?<=\n)/).filter(Boolean);
    end = ls.slice(0, Math.max(0, ls.length - n)).join('').length;
  }
  if (end) yield* u.printf(t.slice(0, end));
  if (pos >= 0) yield* u.lseek(fd, pos + end, 0);
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
/** grep's pattern as a JavaScript regular expression's source: -F escaped, -E as it is, a basic one translated */
function grepSource(pat: string, flags: string): string {
  return flags.includes('F') ? pat.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : flags.includes('E') ? pat : breToJs(pat);
}

function grepPattern(pat: string, flags: string): { test(s: string): boolean } | string {
  const icase = flags.includes('i');
  if (flags.includes('F')) {
    const p = icase ? pat.toLowerCase() : pat;
    return { test: (s: string) => (icase ? s.toLowerCase() : s).includes(p) };
  }
  const src = grepSource(pat, flags);
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

/** GNU grep's options that take an argument, short and long */
const GREP_ARG_SHORT = 'efmABCdD';
const GREP_LONG: Record<string, string> = {
  'regexp': 'e', 'file': 'f', 'max-count': 'm', 'ignore-case': 'i', 'invert-match': 'v', 'count': 'c', 'line-number': 'n',
  'no-filename': 'h', 'with-filename': 'H', 'files-with-matches': 'l', 'files-without-match': 'L', 'quiet': 'q', 'silent': 'q',
  'no-messages': 's', 'word-regexp': 'w', 'line-regexp': 'x', 'only-matching': 'o', 'extended-regexp': 'E', 'fixed-strings': 'F',
  'basic-regexp': 'G', 'null': 'Z',
};

/**
 * GNU grep 3.8's command line (getopt_long, arguments permuted): flags, the -e patterns (or none:
 * the first operand is), -m's count, the operands; `error` the message of a bad option.
 */
function grepOptions(argv: string[]): { flags: string; patterns?: string; max?: number; operands: string[]; error?: string } {
  let flags = '';
  const pats: string[] = [];
  const operands: string[] = [];
  let max: number | undefined;
  const withArg = (o: string, v: string): void => { if (o === 'e') pats.push(v); else if (o === 'm') max = Number(v); };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { operands.push(...argv.slice(i + 1)); break; }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const hits = Object.keys(GREP_LONG).filter((k) => k.startsWith(name));
      const key = GREP_LONG[name] !== undefined ? name : hits.length === 1 ? hits[0] : undefined;
      if (key === undefined) return { flags, operands, error: `grep: unrecognized option '${a}'\n` };
      const o = GREP_LONG[key];
      if (GREP_ARG_SHORT.includes(o)) {
        const v = eq < 0 ? argv[++i] : a.slice(eq + 1);
        if (v === undefined) return { flags, operands, error: `grep: option '--${key}' requires an argument\n` };
        withArg(o, v);
      } else flags += o;
      continue;
    }
    if (!a.startsWith('-') || a === '-') { operands.push(a); continue; }
    for (let j = 1; j < a.length; j++) {
      const o = a[j];
      if (GREP_ARG_SHORT.includes(o)) {
        const v = j + 1 < a.length ? a.slice(j + 1) : argv[++i];
        if (v === undefined) return { flags, operands, error: `grep: option requires an argument -- '${o}'\n` };
        withArg(o, v);
        break;
      }
      if (!'ivcnhHlLqswxoEFGZ'.includes(o)) return { flags, operands, error: `grep: invalid option -- '${o}'\n` };
      flags += o;
    }
  }
  return { flags, patterns: pats.length ? pats.join('\n') : undefined, max, operands };
}

/**
 * The patterns (one per line of `pat`) as one matcher: -w a match with no word character on either
 * side, -x the whole line; `parts` the matched pieces of a line (-o).
 */
function grepMatcher(pat: string, flags: string): { test(s: string): boolean; parts(s: string): string[] } | string {
  const ms: { test(s: string): boolean }[] = [];
  const srcs: string[] = [];
  for (const p of pat.split('\n')) {
    const m = grepPattern(p, flags);
    if (typeof m === 'string') return m;
    ms.push(m);
    srcs.push(grepSource(p, flags));
  }
  const w = flags.includes('w'), x = flags.includes('x');
  const whole = new RegExp(srcs.map((s) => (x ? `^(?:${s})$` : w ? `(?<![A-Za-z0-9_])(?:${s})(?![A-Za-z0-9_])` : `(?:${s})`)).join('|'), 'g' + (flags.includes('i') ? 'i' : ''));
  return {
    test: (s: string) => { if (!w && !x) return ms.some((m) => m.test(s)); whole.lastIndex = 0; return whole.test(s); },
    parts: (s: string) => { whole.lastIndex = 0; const out: string[] = []; for (let r = whole.exec(s); r; r = whole.exec(s)) { if (r[0] === '') { whole.lastIndex++; continue; } out.push(r[0]); } return out; },
  };
}

/** A tail count: digits with coreutils' multiplier suffixes (b 512, kB 1000, K/KiB 1024, MB, M ...), else null. */
function tailCount(v: string): number | null {
  const m = /^(\d+)(b|[kKMGT]B|[KMGT](?:iB)?)?$/.exec(v);
  if (!m) return null;
  const suf = m[2] ?? '';
  const mult = suf === 'b' ? 512 : suf === '' ? 1 : (suf.endsWith('B') && !suf.endsWith('iB') ? 1000 : 1024) ** ('KMGT'.indexOf(suf[0].toUpperCase()) + 1);
  return Number(m[1]) * mult;
}

/**
 * tail -c N, -c +N, -n +N (coreutils 9.1 tail.c, strace of Debian 12's tail): -c N of a regular file
 * bigger than its st_blksize (4096) lseeks to N before the end (lseek(0, SEEK_CUR), lseek(end - N,
 * SEEK_SET)) and reads just those N bytes; of a smaller file or a pipe it reads everything in BUFSIZ
 * (8192) reads (pipe_bytes) and keeps the last N.  -c +N lseeks N-1 forward from the current
 * position (a pipe: reads and drops them); -n +N reads past N-1 lines; both then copy the rest in
 * BUFSIZ reads to the end (dump_remainder), through stdio.
 */
function* tailFrom(u: U, fd: number, size: number, bytes: number | null, n: number, fromStart: boolean): Generator<Op, void, SysResult> {
  if (bytes !== null && !fromStart) {
    if (size > 4096) {
      const cur = yield* u.lseek(fd, 0, 1);
      let left = Math.min(bytes, Math.max(0, size - cur));
      if (bytes < size - cur) yield* u.lseek(fd, size - bytes, 0);
      while (left > 0) {
        const r = yield* u.read(fd, Math.min(left, 8192));
        if (r.ret <= 0 || !r.data) break;
        left -= r.ret;
        yield* u.printf(bytesToString(r.data));
      }
      return;
    }
    const parts: Uint8Array[] = [];
    for (;;) { const r = yield* u.read(fd, 8192); if (r.ret <= 0 || !r.data) break; parts.push(r.data); }
    const all = Buffer.concat(parts);
    if (bytes > 0) yield* u.printf(bytesToString(all.subarray(Math.max(0, all.length - bytes))));
    return;
  }
  let skip = bytes !== null ? Math.max(0, bytes - 1) : n;
  let carry = '';
  if (bytes !== null && size >= 0) { yield* u.lseek(fd, skip, 1); skip = 0; }
  for (;;) {
    const r = yield* u.read(fd, 8192);
    if (r.ret <= 0 || !r.data) break;
    let t = bytesToString(r.data);
    if (bytes !== null && skip > 0) { const d = Math.min(skip, t.length); t = t.slice(d); skip -= d; }
    if (bytes === null && skip > 0) {
      t = carry + t;
      carry = '';
      let i = 0;
      while (skip > 0) { const nl = t.indexOf('\n', i); if (nl < 0) { i = -1; break; } i = nl + 1; skip--; }
      if (i < 0) continue;
      t = t.slice(i);
    }
    if (t) yield* u.printf(t);
  }
}

export const programs: Record<string, ProgramMain> = {
  true: function* () { return 0; },
  false: function* () { return 1; },
  /** coreutils echo: the first malloc (setlocale), stdio output, close_stdout */
  echo: function* (u, argv) {
    let a = argv.slice(1);
    let nl = true;
    if (a[0] === '-n') { nl = false; a = a.slice(1); }
    yield* u.malloc();
    yield* u.printf(a.join(' ') + (nl ? '\n' : ''));
    yield* u.closeStdout();
    return 0;
  },
  /**
   * coreutils cat: fstat of the output, then per file: open, fstat, posix_fadvise(SEQUENTIAL), a
   * 128 KiB buffer (mmap'd: past malloc's mmap threshold), read/write until EOF (write(2), no stdio)
   */
  cat: function* (u, argv) {
    const files = argv.slice(1);
    let st = 0;
    yield* u.malloc();
    yield* u.fstat(1);
    for (const f of files.length ? files : ['-']) {
      const fd = f === '-' ? 0 : yield* u.open(f);
      if (fd < 0) { yield* u.err(`cat: ${f}: No such file or directory\n`); st = 1; continue; }
      yield* u.fstat(fd);
      yield* u.sys('fadvise64', [fd, 0, 0, 2]);
      yield* u.mmap('catbuf', 34);
      for (;;) {
        const r = yield* u.read(fd, 131072);
        // a directory's read fails (EISDIR): `cat: /etc: Is a directory`, status 1 (Debian 12's cat)
        if (r.ret < 0) { yield* u.err(`cat: ${f}: ${errStr(r.ret)}\n`); st = 1; break; }
        if (r.ret === 0 || !r.data) break;
        yield* u.writeAll(1, r.data);
      }
      yield* u.munmap('catbuf');
      if (fd !== 0) yield* u.close(fd);
    }
    // close_stdin when it was read (the real `cat <&3`: close(0), close(1), close(2); data/recordings/tcp-http)
    if (!files.length || files.includes('-')) yield* u.close(0);
    yield* u.closeStdout();
    return st;
  },
  sleep: function* (u, argv) {
    const s = parseFloat(argv[1] ?? '0');
    yield* u.malloc();
    if (Number.isNaN(s)) { yield* u.err(`sleep: invalid time interval '${argv[1]}'\n`); yield* u.closeStdout(); return 1; }
    // xnanosleep: clock_nanosleep(CLOCK_REALTIME, 0, ...)
    yield* u.sys('clock_nanosleep', [0, 0, Math.round(s * 1e9), 0]);
    yield* u.closeStdout();
    return 0;
  },
  /**
   * GNU grep 3.8: c-stack's overflow handler (it reads /proc/self/maps through an 8 KiB mmap'd buffer,
   * then sigaltstack and SIGSEGV's action), fstat of the output and stat of /dev/null (output to
   * /dev/null stops at the first match), each file opened O_RDONLY|O_NOCTTY, fstat'd and read 96 KiB
   * at a time; matches through stdio; close_stdout.
   */
  grep: function* (u, argv) {
    const opts = grepOptions(argv);
    const flags = opts.flags;
    const rest = opts.operands;
    const pat = opts.patterns ?? rest.shift();
    yield* u.malloc();
    const maps = yield* u.open('/proc/self/maps');
    if (maps >= 0) {
      yield* u.mmap('grepmaps', 2);
      yield* u.lseek(maps, 0, 0);
      let want = 8192;
      for (;;) { const r = yield* u.read(maps, want); if (r.ret <= 0) break; want = Math.max(1, want - r.ret); }
      yield* u.close(maps);
      yield* u.munmap('grepmaps');
    }
    yield* u.sys('sigaltstack', [0, 0]);
    yield* u.sys('rt_sigaction', [11, 0, 0, 8]);
    yield* u.sys('rt_sigaction', [11, 0, 0, 8]);
    if (opts.error !== undefined || pat === undefined) { yield* u.err(`${opts.error ?? ''}Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n`); yield* u.closeStdout(); return 2; }
    const re = grepMatcher(pat, flags);
    if (typeof re === 'string') { yield* u.err(`grep: ${re}\n`); yield* u.closeStdout(); return 2; }
    yield* u.fstat(1);
    yield* u.stat('/dev/null');
    const files = rest;
    const multi = (files.length > 1 || flags.includes('H')) && !flags.includes('h');
    const max = opts.max ?? Infinity;
    let found = false;
    let count = 0;
    let st = 0;
    const listing = flags.includes('l') || flags.includes('L');
    for (const f of files.length ? files : ['-']) {
      const fd = f === '-' ? 0 : yield* u.open(f, 0x100);
      if (fd < 0) { if (!flags.includes('s')) yield* u.err(`grep: ${f}: No such file or directory\n`); st = 2; continue; }
      yield* u.fstat(fd);
      const name = f === '-' ? '(standard input)' : f;
      let partial = '';
      let n = 0;
      let hits = 0;
      for (;;) {
        const r = yield* u.read(fd, 98304);
        const eof = r.ret <= 0 || !r.data;
        const lines = (partial + (eof ? '' : bytesToString(r.data))).split('\n');
        partial = eof ? '' : lines.pop() as string;
        if (eof && lines[lines.length - 1] === '') lines.pop();
        for (const l of lines) {
          if (hits >= max) break;
          n++;
          if (re.test(l) === flags.includes('v')) continue;
          found = true; hits++;
          if (flags.includes('c') || flags.includes('q') || listing) continue;
          const lead = (multi ? `${name}:` : '') + (flags.includes('n') ? `${n}:` : '');
          if (flags.includes('o') && !flags.includes('v')) { for (const part of re.parts(l)) yield* u.printf(lead + part + '\n'); } else yield* u.printf(lead + l + '\n');
        }
        if (eof || hits >= max) break;
      }
      if (fd !== 0) yield* u.close(fd);
      count += hits;
      if (flags.includes('c') && !listing) yield* u.printf((multi ? `${name}:` : '') + `${hits}\n`);
      if ((flags.includes('l') && hits > 0) || (flags.includes('L') && hits === 0)) yield* u.printf(name + '\n');
    }
    yield* u.closeStdout();
    return st || (found ? 0 : 1);
  },
  /**
   * head [-n N | -nN | -N | --lines=N | -c N] [FILE...]: the first N lines or bytes (a header per file
   * when several). coreutils head.c: lines are read BUFSIZ (8192) at a time and, the input being
   * seekable, the offset put back after the last line printed (lseek SEEK_CUR); bytes are read
   * min(BUFSIZ, what is left) and fwritten; output through stdio; close_stdout.
   */
  head: function* (u, argv) {
    let n = 10, arg = '10', bytes = false;
    const files: string[] = [];
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i];
      if (a === '-c' || /^-c./.test(a)) { bytes = true; arg = a === '-c' ? argv[++i] ?? '' : a.slice(2); n = /^-?\d+$/.test(arg) ? Number(arg) : NaN; continue; }
      const opt = a === '-n' ? argv[++i] ?? '' : /^-n./.test(a) ? a.slice(2) : /^-\d/.test(a) ? a.slice(1) : a.startsWith('--lines=') ? a.slice(8) : null;
      if (opt === null) files.push(a);
      else { arg = opt; n = /^\d+$/.test(opt) || (a === '-n' || /^-n./.test(a)) && /^-\d+$/.test(opt) ? Number(opt) : NaN; }
    }
    yield* u.malloc();
    if (Number.isNaN(n)) { yield* u.err(`head: invalid number of ${bytes ? 'bytes' : 'lines'}: '${arg.replace(/^-/, '')}'\n`); yield* u.closeStdout(); return 1; }
    let status = 0;
    const list = files.length ? files : ['-'];
    for (const [k, f] of list.entries()) {
      const fd = f === '-' ? 0 : yield* u.open(f);
      if (fd < 0) { yield* u.err(`head: cannot open '${f}' for reading: No such file or directory\n`); status = 1; continue; }
      if (list.length > 1) yield* u.printf(`${k ? '\n' : ''}==> ${f === '-' ? 'standard input' : f} <==\n`);
      if (n < 0 || Object.is(n, -0)) yield* headElide(u, fd, -n, bytes);
      else if (bytes) {
        let left = n, first = true;
        while (left > 0) {
          const r = yield* u.read(fd, Math.min(8192, left));
          if (r.ret < 0) { yield* u.err(`head: error reading '${f}': ${errStr(r.ret)}\n`); status = 1; break; }
          if (r.ret === 0 || !r.data) break;
          left -= r.ret;
          // xwrite_stdout: fwrite to stdout; the stream's first output on a line-buffered terminal puts
          // each byte through __overflow, which writes at every newline (strace of head -c 100 on the
          // guest's console: writes of 32 and 48 bytes, the unterminated rest at close_stdout)
          const t = bytesToString(r.data);
          if (first) { for (const line of t.split(/(?<=\n)/)) if (line) yield* u.printf(line); } else yield* u.printf(t);
          first = false;
        }
      } else {
        let lines = 0;
        while (lines < n) {
          const r = yield* u.read(fd, 8192);
          if (r.ret < 0) { yield* u.err(`head: error reading '${f}': ${errStr(r.ret)}\n`); status = 1; break; }
          if (r.ret === 0 || !r.data) break;
          const t = bytesToString(r.data);
          let end = 0;
          while (lines < n && end < t.length) { const nl = t.indexOf('\n', end); end = nl < 0 ? t.length : nl + 1; if (nl >= 0) lines++; }
          if (lines >= n && end < t.length) yield* u.lseek(fd, end - t.length, 1);
          for (const line of t.slice(0, end).split(/(?<=\n)/)) if (line) yield* u.printf(line);
        }
      }
      if (fd !== 0) yield* u.close(fd);
    }
    yield* u.closeStdout();
    return status;
  },
  /**
   * tail -n N FILE (coreutils tail.c tail_lines on a regular file): fstat, lseek(0, SEEK_CUR),
   * lseek(0, SEEK_END), then reading back from the end in BUFSIZ blocks (a file under BUFSIZ: one
   * read of its size from the start), output through stdio, a last read of 0 bytes; close_stdout.
   */
  tail: function* (u, argv) {
    let n = 10;
    let bytes: number | null = null;
    let fromStart = false;
    const files: string[] = [];
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i];
      const c = /^(?:-c|--bytes=?)(.*)$/.exec(a);
      if (c) {
        const v = c[1] !== '' || a === '--bytes=' ? c[1] : argv[++i] ?? '';
        fromStart = v.startsWith('+');
        const b = tailCount(v.replace(/^[+-]/, ''));
        if (b === null) { yield* u.err(`tail: invalid number of bytes: '${v}'\n`); return 1; }
        bytes = b;
      } else if (a === '-n' || /^-n.+$/.test(a) || /^--lines=/.test(a)) {
        const v = a === '-n' ? argv[++i] ?? '' : a.replace(/^(-n|--lines=)/, '');
        fromStart = v.startsWith('+');
        const l = tailCount(v.replace(/^[+-]/, ''));
        if (l === null) { yield* u.err(`tail: invalid number of lines: '${v}'\n`); return 1; }
        n = l;
        bytes = null;
      } else if (/^-\d+$/.test(a)) { n = Number(a.slice(1)); bytes = null; fromStart = false; } else files.push(a);
    }
    yield* u.malloc();
    const f = files[0] ?? '-';
    const fd = f === '-' ? 0 : yield* u.open(f);
    if (fd < 0) { yield* u.err(`tail: cannot open '${f}' for reading: No such file or directory\n`); yield* u.closeStdout(); return 1; }
    const st = yield* u.fstat(fd);
    const reg = typeof st !== 'number' && st.isReg;
    if (bytes !== null || fromStart) {
      yield* tailFrom(u, fd, reg ? (st as { size: number }).size : -1, bytes, fromStart ? Math.max(0, n - 1) : n, fromStart);
      if (fd !== 0) yield* u.close(fd);
      yield* u.closeStdout();
      return 0;
    }
    let text = '';
    // tail_lines: a regular file read back from its end when lseek finds one past the offset; else, as
    // a /proc or /sys file (st_size 0, seq files refuse SEEK_END), read through to EOF (pipe_lines)
    const cur = reg ? yield* u.lseek(fd, 0, 1) : -1;
    const size = reg ? yield* u.lseek(fd, 0, 2) : -1;
    const fromEnd = reg && cur >= 0 && cur < size;
    if (reg && !fromEnd && cur >= 0 && cur !== size) yield* u.lseek(fd, cur, 0);
    if (fromEnd) {
      const start = Math.max(0, size - (size % 8192 || 8192));
      yield* u.lseek(fd, start, 0);
      const r = yield* u.read(fd, size - start);
      text = bytesToString(r.data);
      let pos = start;
      while ((text.match(/\n/g) ?? []).length <= n && pos > 0) {
        pos -= 8192;
        yield* u.lseek(fd, pos, 0);
        text = bytesToString((yield* u.read(fd, 8192)).data) + text;
      }
    } else {
      for (;;) { const r = yield* u.read(fd, 8192); if (r.ret <= 0 || !r.data) break; text += bytesToString(r.data); }
    }
    const lines = text.split(/(?<=\n)/).filter(Boolean);
    for (const l of lines.slice(-n)) yield* u.printf(l);
    if (fromEnd) yield* u.read(fd, 0);
    if (fd !== 0) yield* u.close(fd);
    yield* u.closeStdout();
    return 0;
  },
  /**
   * xxd (vim 9.0's, 2022-01-14): a hex dump, 16 octets a line; -l LEN stops after LEN octets, -s SEEK
   * starts at SEEK (read and dropped, as the real one does after an lseek to 0), -h and -v; the other
   * options (-c, -g, -p, -i, -r, ...) are not modelled and print the usage, as a bad option does.
   */
  xxd: function* (u, argv) {
    let f: string | null = null, len = Infinity, seek = 0;
    const num = (v: string | undefined): number => (v === undefined ? NaN : /^0x/i.test(v) ? parseInt(v.slice(2), 16) : /^0/.test(v) && v.length > 1 ? parseInt(v, 8) : Number(v));
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i];
      if (f === null && /^-(l|len)$/.test(a)) len = num(argv[++i]);
      else if (f === null && /^-l\d/.test(a)) len = num(a.slice(2));
      else if (f === null && a === '-s') seek = num(argv[++i]?.replace(/^\+/, ''));
      else if (f === null && a === '-v') { yield* u.err('xxd 2022-01-14 by Juergen Weigert et al.\n'); return 0; }
      else if (f === null && a.startsWith('-') && a !== '-') { yield* u.err(XXD_USAGE); return 1; }
      else if (f === null) f = a === '-' ? null : a;
    }
    if (!(len >= 0) || !(seek >= 0)) { yield* u.err(XXD_USAGE); return 1; }
    const fd = f === null ? 0 : yield* u.open(f);
    if (fd < 0) { yield* u.err(`xxd: ${f}: No such file or directory\n`); return 2; }
    if (seek > 0) {
      if (fd !== 0) yield* u.lseek(fd, 0, 0);
      for (let left = seek; left > 0;) { const r = yield* u.read(fd, left); if (r.ret <= 0) break; left -= r.ret; }
    }
    let off = seek;
    let carry = new Uint8Array(0);
    for (let left = len; left > 0;) {
      const r = yield* u.read(fd, 4096);
      if (r.ret <= 0 || !r.data) break;
      const got = r.data.length > left ? r.data.subarray(0, left) : r.data;
      left -= got.length;
      const b = carry.length ? Buffer.concat([carry, got]) : got;
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
  /**
   * coreutils dd: SIGINT's and SIGUSR1's actions, the first malloc, if= opened (iflag=direct:
   * O_DIRECT) and dup2'd to 0, lseek(0, 0, SEEK_CUR), of= opened O_WRONLY|O_CREAT|O_TRUNC (oflag=direct:
   * O_DIRECT) and dup2'd to 1, the buffer (mmap'd past malloc's 128 KiB threshold), read/write of bs
   * until count or EOF, fsync for conv=fsync, close(0), close(1), the statistics (status=none: none; noxfer: the record counts) in writes to
   * stderr, close(2).
   */
  dd: function* (u, argv) {
    const o: Record<string, string> = {};
    for (const a of argv.slice(1)) { const i = a.indexOf('='); if (i > 0) o[a.slice(0, i)] = a.slice(i + 1); }
    const bs = num(o.bs, 512);
    const count = o.count !== undefined ? Number(o.count) : Infinity;
    yield* u.sys('rt_sigaction', [2, 0, 0, 8]);
    yield* u.sys('rt_sigaction', [10, 0, 0, 8]);
    yield* u.malloc();
    const direct = (flag: string | undefined): number => ((flag ?? '').split(',').includes('direct') ? O_DIRECT : 0);
    if (o.if) {
      const fd = yield* u.open(o.if, direct(o.iflag));
      if (fd < 0) { yield* u.err(`dd: failed to open '${o.if}': No such file or directory\n`); return 1; }
      yield* u.dup2(fd, 0);
      yield* u.close(fd);
    }
    yield* u.lseek(0, 0, 1);
    // seek=N: the output opened O_RDWR without O_TRUNC, cut to N blocks unless conv=notrunc (iftruncate),
    // then lseek(1, N*bs, SEEK_CUR) (strace of Debian 12's dd seek=16 conv=notrunc on this host)
    const seek = Number(o.seek ?? 0) * bs;
    const notrunc = (o.conv ?? '').split(',').includes('notrunc');
    if (o.of) {
      const fd = yield* u.open(o.of, (seek ? O_RDWR : O_WRONLY) | O_CREAT | (notrunc || seek ? 0 : O_TRUNC) | direct(o.oflag), 0o666);
      if (fd < 0) { yield* u.err(`dd: failed to open '${o.of}': No such file or directory\n`); return 1; }
      yield* u.dup2(fd, 1);
      yield* u.close(fd);
      if (seek && !notrunc && (yield* u.sys('ftruncate', [1, seek])).ret < 0) {
        yield* u.err(`dd: failed to truncate to ${seek} bytes in output file '${o.of}': Invalid argument\n`);
        return 1;
      }
    }
    if (seek) yield* u.lseek(1, seek, 1);
    // the buffer, the reads' destination (a read faults in the pages it copies to, mm/fault.ts kfault_buffer)
    const buf = bs + 4096 >= 131072 ? yield* u.mmap('ddbuf', Math.ceil((bs + 4096) / 4096)) : 0;
    const t0 = u.m.now;
    let full = 0, part = 0, bytes = 0;
    while (full + part < count) {
      const r = yield* u.read(0, bs, buf > 0 ? buf : 0);
      if (r.ret <= 0 || !r.data) break;
      if (r.ret === bs) full++; else part++;
      bytes += r.ret;
      yield* u.writeAll(1, r.data);
    }
    const conv = (o.conv ?? '').split(',');
    if (conv.includes('fsync')) yield* u.sys('fsync', [1]);
    else if (conv.includes('fdatasync')) yield* u.sys('fdatasync', [1]);
    yield* u.close(0);
    yield* u.close(1);
    // status=none prints nothing, status=noxfer the record counts only (strace of Debian 12's dd 9.1)
    if (o.status !== 'none') {
      yield* u.err(`${full}+${part} records in\n${full}+${part} records out\n`);
      if (o.status !== 'noxfer') {
        const secs = Math.max(1e-6, (u.m.now - t0) / 1e9);
        yield* u.err(`${bytes} byte${bytes === 1 ? '' : 's'}${ddHumanBytes(bytes)} copied, ${gForm(secs, 6, false, false)} s, ${ddRate(bytes / secs)}`);
        yield* u.err('\n');
      }
    }
    yield* u.close(2);
    return 0;
  },
  sync: function* (u) { yield* u.malloc(); yield* u.sync(); yield* u.closeStdout(); return 0; },
  pwd: function* (u) { yield* u.out(u.t.proc.cwd + '\n'); return 0; },
  /**
   * coreutils uname: the fields asked for (-s -n -r -v -m -p -i -o, clustered, or long forms), in that
   * order whatever the order asked; -a all but -p and -i, which are "unknown" on Linux (also with -p or
   * -i beside it: -a asks for every field); none: -s
   */
  uname: function* (u, argv) {
    yield* u.malloc();
    const { KERNEL_RELEASE, KERNEL_UTS_VERSION } = require('../../../kernel/config') as typeof import('../../../kernel/config');
    const LONG: Record<string, string> = { '--kernel-name': 's', '--nodename': 'n', '--kernel-release': 'r', '--kernel-version': 'v', '--machine': 'm', '--processor': 'p', '--hardware-platform': 'i', '--operating-system': 'o', '--all': 'a' };
    let want = '';
    for (const a of argv.slice(1)) {
      if (LONG[a]) { want += LONG[a]; continue; }
      const bad = !a.startsWith('-') || a === '-' ? null : [...a.slice(1)].find((c) => !'snrvmpioa'.includes(c));
      if (!a.startsWith('-') || a === '-' || bad !== undefined) {
        yield* u.err(a.startsWith('--') ? `uname: unrecognized option '${a}'\n` : a.startsWith('-') && a !== '-' ? `uname: invalid option -- '${bad}'\n` : `uname: extra operand '${a}'\n`);
        yield* u.err("Try 'uname --help' for more information.\n");
        yield* u.closeStdout();
        return 1;
      }
      want += a.slice(1);
    }
    yield* u.uname();
    const all = want.includes('a');
    const fields: [string, string][] = [['s', 'Linux'], ['n', u.m.hostname], ['r', KERNEL_RELEASE], ['v', KERNEL_UTS_VERSION], ['m', 'x86_64'], ['p', 'unknown'], ['i', 'unknown'], ['o', 'GNU/Linux']];
    const out = fields.filter(([c]) => (all ? c !== 'p' && c !== 'i' : want.includes(c))).map(([, v]) => v);
    if (!want && !all) out.push('Linux');
    yield* u.printf(out.join(' ') + '\n');
    yield* u.closeStdout();
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
  find,
  sh,
  bash: sh,
};

/** xxd -h's summary (and what a bad option prints), exit status 1 */
const XXD_USAGE = "Usage:\n       xxd [options] [infile [outfile]]\n    or\n       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\nOptions:\n    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.\n    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.\n    -C          capitalize variable names in C include file style (-i).\n    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).\n    -E          show characters in EBCDIC. Default ASCII.\n    -e          little-endian dump (incompatible with -ps,-i,-r).\n    -g bytes    number of octets per group in normal output. Default 2 (-e: 4).\n    -h          print this summary.\n    -i          output in C include file style.\n    -l len      stop after <len> octets.\n    -n name     set the variable name used in C include output (-i).\n    -o off      add <off> to the displayed file position.\n    -ps         output in postscript plain hexdump style.\n    -r          reverse operation: convert (or patch) hexdump into binary.\n    -r -s off   revert with <off> added to file positions found in hexdump.\n    -d          show offset in decimal instead of hex.\n    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.\n    -u          use upper case hex letters.\n    -v          show version: \"xxd 2022-01-14 by Juergen Weigert et al.\".\n";

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

/**
 * The sizes dd 9.1 prints after the byte count: " (3.1 kB, 3.0 KiB)", SI from 1000 bytes and IEC from
 * 1024, to the nearest (gnulib_human.ts; checked with Debian 12's dd on 999 to 2e9 bytes)
 */
function ddHumanBytes(bytes: number): string {
  const scaled = (base: number, units: string[]): string => {
    const h = humanScale(bytes, base, Math.round, units.length - 1);
    return `${h.digits} ${units[h.unit]}`;
  };
  if (bytes < 1000) return '';
  const si = scaled(1000, ['kB', 'MB', 'GB', 'TB', 'PB', 'EB']);
  return bytes < 1024 ? ` (${si})` : ` (${si}, ${scaled(1024, ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'])})`;
}

/** dd 9.1's transfer rate: SI units from kB/s, one decimal below 100 and whole numbers above ("0.1 kB/s", "61.4 MB/s", "584 MB/s") */
function ddRate(perSec: number): string {
  const units = ['kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let v = perSec / 1000, i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${v < 100 ? v.toFixed(1) : String(Math.round(v))} ${units[i]}/s`;
}
